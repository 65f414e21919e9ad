/* Description: queue depth accounting in the engine, against a fake asynchronous backend
 * that queues in submit, sends in commit and completes in reap (in reverse order, to be
 * unlike a FIFO). For queue depths 1, 2, 8 and 32 and 1,000 reads: never more than the
 * depth in flight (the backend counts), every request completed once (on_done with its
 * owner), bytes and request totals exact, a full queue sent as one batch, drain leaves
 * nothing in flight, flush sends without waiting; buffers are registered once, aligned.
 * A result below need is a short read (-EIO, "short" in the message) while a result
 * between need and length is accepted (O_DIRECT padding); a -errno result is the
 * engine's first error; a sync backend (posix-like) completes inside submit. Network
 * timing that a backend carries in its requests, and transfers it reports on its own
 * (a PUT at close), are recorded by the engine per kind and reach the process's figures
 * when the engine is destroyed; a request without timing is not counted; a report with
 * no engine attached goes to the process's figures directly.
 * Expected result: as stated. Buggy result: more in flight than the depth, a completion
 * lost or counted twice, padding taken for a short read or a short read accepted, local
 * reads counted as network requests, timing lost with the engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/engine.h"

struct fake {
	struct gf_io_req *queued[64], *sent[64];
	unsigned nqueued, nsent;
	unsigned max_outstanding, commits, reaps;
	void *reg_base;
	size_t reg_size;
	unsigned reg_n;
	int64_t short_by;  /* results are length - short_by */
	int64_t fail_at;   /* offset that fails with -EIO, or -1 */
	bool net;          /* completions carry network timing, closes report a PUT */
};

static struct fake F;

static int f_init(struct gf_io *io) { (void)io; return 0; }
static void f_cleanup(struct gf_io *io) { (void)io; }
static int f_open(struct gf_io *io, const char *p, unsigned fl, uint64_t *h) { (void)io; (void)p; (void)fl; *h = 7; return 0; }
#include "stats/clock.h"

static int f_close(struct gf_io *io, uint64_t h)
{
	/* A backend that stores a file at close (s3's PUT) reports that transfer. */
	if (F.net) {
		struct gf_io_req put = { .op = GF_IO_WRITE, .length = 100, .net = true, .ttfb_ns = 2000,
					 .start_ns = gf_now_ns() - 3000 };
		gf_engine_report(io, &put);
	}
	(void)h;
	return 0;
}
static int f_fsync(struct gf_io *io, uint64_t h) { (void)io; (void)h; return 0; }

static int f_submit(struct gf_io *io, struct gf_io_req *r)
{
	(void)io;
	F.queued[F.nqueued++] = r;
	if (F.nqueued + F.nsent > F.max_outstanding)
		F.max_outstanding = F.nqueued + F.nsent;
	return GF_IO_QUEUED;
}

static int f_commit(struct gf_io *io)
{
	(void)io;
	for (unsigned i = 0; i < F.nqueued; i++)
		F.sent[F.nsent++] = F.queued[i];
	F.nqueued = 0;
	F.commits++;
	return 0;
}

static int f_reap(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **done)
{
	unsigned n = 0;

	(void)io;
	F.reaps++;
	/* Only what was sent can complete: reaping with nothing sent would hang for real. */
	assert_true(F.nsent >= min);
	while (n < max && F.nsent) {
		struct gf_io_req *r = F.sent[--F.nsent];
		r->result = (int64_t)r->offset == F.fail_at ? -EIO : (int64_t)r->length - F.short_by;
		if (F.net) {
			/* The first request opened the connection; every one was answered. */
			r->net = true;
			r->connect_ns = r->offset == 0 ? 5000 : 0;
			r->ttfb_ns = 1000;
		}
		done[n++] = r;
	}
	return (int)n;
}

static int f_register(struct gf_io *io, void *base, size_t size, unsigned n)
{
	(void)io;
	F.reg_base = base;
	F.reg_size = size;
	F.reg_n = n;
	return 0;
}

static const struct gf_io_ops fake_async = {
	.name = "fake", .async = true, .init = f_init, .cleanup = f_cleanup, .open = f_open,
	.close = f_close, .submit = f_submit, .commit = f_commit, .reap = f_reap, .fsync = f_fsync,
	.ns = &gf_io_posix_ns, .register_buffers = f_register,
};

struct counts {
	unsigned done;
	uint64_t owners;
};

static void on_done(void *arg, struct gf_io_req *r)
{
	struct counts *c = arg;

	c->done++;
	c->owners += (uint64_t)(uintptr_t)r->owner;
}

static void run_depth(unsigned qd)
{
	struct gf_io_config cfg = { .queue_depth = qd };
	struct gf_io *io;
	struct gf_engine e;
	struct counts c = { 0 };
	uint64_t owners = 0;

	memset(&F, 0, sizeof(F));
	F.fail_at = -1;
	assert_int_equal(gf_io_open_backend(&fake_async, &cfg, &io), 0);
	assert_int_equal(gf_engine_init(&e, io, qd, 4096, 512, NULL), 0);
	assert_ptr_equal(F.reg_base, e.bufs);
	assert_int_equal(F.reg_n, qd);
	assert_int_equal(F.reg_size, e.buf_size);
	assert_int_equal((uintptr_t)e.bufs % 512, 0);
	e.on_done = on_done;
	e.on_done_arg = &c;
	for (unsigned i = 0; i < 1000; i++) {
		assert_int_equal(gf_engine_read_span(&e, 7, (uint64_t)i * 4096, 4096, 4096,
						     (void *)(uintptr_t)(i + 1)), 0);
		owners += i + 1;
		assert_true(e.inflight <= qd);
	}
	assert_int_equal(gf_engine_drain(&e), 0);
	assert_int_equal(e.inflight, 0);
	assert_int_equal(F.nqueued + F.nsent, 0);
	assert_true(F.max_outstanding <= qd);
	assert_int_equal(F.max_outstanding, qd); /* and the depth is used */
	assert_int_equal(c.done, 1000);
	assert_int_equal(c.owners, owners);
	assert_int_equal(e.requests, 1000);
	assert_int_equal(e.bytes, 1000u * 4096);
	/* A full queue goes out in one commit: about 1000 / qd commits, not 1000. */
	assert_true(F.commits <= 1000 / qd + 2);
	/* flush sends what is queued and waits for nothing. */
	if (qd > 1) {
		assert_int_equal(gf_engine_read(&e, 7, 0, 100), 0);
		assert_int_equal(F.nqueued, 1);
		assert_int_equal(gf_engine_flush(&e), 0);
		assert_int_equal(F.nqueued, 0);
		assert_int_equal(F.nsent, 1);
		assert_int_equal(gf_engine_drain(&e), 0);
	}
	gf_engine_destroy(&e);
	gf_io_close_backend(io);
}

static void test_depths(void **state)
{
	static const unsigned qds[] = { 1, 2, 8, 32 };

	(void)state;
	for (size_t i = 0; i < sizeof(qds) / sizeof(qds[0]); i++)
		run_depth(qds[i]);
}

static void test_short_and_errors(void **state)
{
	struct gf_io_config cfg = { .queue_depth = 4 };
	struct gf_io *io;
	struct gf_engine e;

	(void)state;
	memset(&F, 0, sizeof(F));
	F.fail_at = -1;
	assert_int_equal(gf_io_open_backend(&fake_async, &cfg, &io), 0);
	assert_int_equal(gf_engine_init(&e, io, 4, 4096, 4096, NULL), 0);
	/* 100 bytes short of 4096, but only 3000 needed: padding, accepted. */
	F.short_by = 100;
	assert_int_equal(gf_engine_read_span(&e, 7, 0, 4096, 3000, NULL), 0);
	assert_int_equal(gf_engine_drain(&e), 0);
	assert_int_equal(e.bytes, 3996);
	/* Needed all of it: a short read. */
	assert_int_equal(gf_engine_read_span(&e, 7, 4096, 4096, 4096, NULL), 0);
	assert_int_equal(gf_engine_drain(&e), -EIO);
	assert_non_null(strstr(e.errmsg, "short"));
	/* Once failed, no more requests are taken. */
	assert_int_equal(gf_engine_read(&e, 7, 0, 10), -EIO);
	gf_engine_destroy(&e);

	/* A -errno result becomes the engine's error with the offset in the message. */
	F.short_by = 0;
	F.fail_at = 8192;
	assert_int_equal(gf_engine_init(&e, io, 4, 4096, 4096, NULL), 0);
	for (unsigned i = 0; i < 4; i++)
		gf_engine_read(&e, 7, (uint64_t)i * 4096, 4096);
	assert_int_equal(gf_engine_drain(&e), -EIO);
	assert_non_null(strstr(e.errmsg, "8192"));
	assert_int_equal(e.requests, 4);
	gf_engine_destroy(&e);
	gf_io_close_backend(io);
}

static void test_sync_backend(void **state)
{
	struct gf_io_config cfg = { .queue_depth = 8 };
	struct gf_io *io;
	struct gf_engine e;
	struct counts c = { 0 };

	(void)state;
	/* null completes in submit: nothing is ever in flight. */
	assert_int_equal(gf_io_open_backend(gf_io_find("null"), &cfg, &io), 0);
	assert_int_equal(gf_engine_init(&e, io, 8, 1024, 64, NULL), 0);
	e.on_done = on_done;
	e.on_done_arg = &c;
	for (unsigned i = 0; i < 100; i++) {
		assert_int_equal(gf_engine_read_span(&e, 0, i, 1024, 1024, (void *)(uintptr_t)1), 0);
		assert_int_equal(e.inflight, 0);
		assert_int_equal(c.done, i + 1);
	}
	assert_int_equal(e.bytes, 100u * 1024);
	gf_engine_destroy(&e);
	gf_io_close_backend(io);
}

static void test_net_timing(void **state)
{
	struct gf_io_config cfg = { .queue_depth = 4 };
	struct gf_net_timing *k = malloc(GF_IO_OPS * sizeof(*k));
	struct gf_io *io;
	struct gf_engine e;

	(void)state;
	assert_non_null(k);
	gf_engine_net_take(NULL);
	memset(&F, 0, sizeof(F));
	F.fail_at = -1;
	assert_int_equal(gf_io_open_backend(&fake_async, &cfg, &io), 0);
	assert_int_equal(gf_engine_init(&e, io, 4, 4096, 4096, NULL), 0);
	/* Local reads carry no timing: not network requests. */
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(gf_engine_read(&e, 7, 4096 + (uint64_t)i * 4096, 4096), 0);
	assert_int_equal(gf_engine_drain(&e), 0);
	F.net = true;
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(gf_engine_read(&e, 7, (uint64_t)i * 4096, 4096), 0);
	assert_int_equal(gf_engine_drain(&e), 0);
	assert_int_equal(io->ops->close(io, 7), 0);
	/* The figures move to the process's when the engine is destroyed, not before. */
	gf_engine_net_take(k);
	assert_int_equal(k[GF_IO_READ].requests, 0);
	gf_engine_destroy(&e);
	/* No engine attached any more: a report goes to the process's figures directly. */
	{
		struct gf_io_req list = { .op = GF_IO_OTHER, .length = 10, .result = 300, .net = true,
					  .ttfb_ns = 700, .start_ns = gf_now_ns() };
		gf_engine_report(io, &list);
	}
	gf_engine_net_take(k);
	assert_int_equal(k[GF_IO_READ].requests, 10);
	assert_int_equal(k[GF_IO_READ].bytes_received, 10u * 4096);
	assert_int_equal(k[GF_IO_READ].bytes_sent, 0);
	assert_int_equal(k[GF_IO_READ].new_connections, 1);
	assert_int_equal(k[GF_IO_READ].connect.count, 1);
	assert_int_equal(k[GF_IO_READ].connect.min_ns, 5000);
	assert_int_equal(k[GF_IO_READ].ttfb.count, 10);
	assert_int_equal(k[GF_IO_READ].total.count, 10);
	assert_int_equal(k[GF_IO_READ].tls.count, 0);
	assert_int_equal(k[GF_IO_WRITE].requests, 1);
	assert_int_equal(k[GF_IO_WRITE].bytes_sent, 100);
	assert_true(k[GF_IO_WRITE].total.min_ns >= 3000);
	assert_int_equal(k[GF_IO_OTHER].requests, 1);
	assert_int_equal(k[GF_IO_OTHER].bytes_sent, 10);
	assert_int_equal(k[GF_IO_OTHER].bytes_received, 300);
	/* Taken: the next take starts from nothing. */
	gf_engine_net_take(k);
	assert_int_equal(k[GF_IO_READ].requests + k[GF_IO_WRITE].requests + k[GF_IO_OTHER].requests, 0);
	gf_io_close_backend(io);
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depths),
		cmocka_unit_test(test_short_and_errors),
		cmocka_unit_test(test_sync_backend),
		cmocka_unit_test(test_net_timing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
