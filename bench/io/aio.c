/* aio: Linux native AIO through libaio, one context per instance (per reader thread).
 *
 * submit() prepares an iocb from a fixed pool of queue_depth; commit() sends every
 * prepared one with io_submit; reap() sends what is left and waits with io_getevents. libaio returns -errno
 * from its calls instead of setting errno, and a completion's res carries -errno as an
 * unsigned long: both are translated here. Native AIO is asynchronous only with
 * O_DIRECT; on buffered files io_submit does the read before it returns, which is
 * still correct, only not concurrent. */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"

struct aio_priv {
	io_context_t ctx;
	bool ctx_ok;
	unsigned depth;
	struct iocb *iocbs;      /* depth */
	struct iocb **free_cbs;  /* depth */
	unsigned nfree;
	struct iocb **pending;   /* prepared, not yet submitted */
	unsigned npending;
	struct iocb **failed;    /* refused by io_submit, returned by the next reap */
	unsigned nfailed;
	struct io_event *events; /* depth */
};

static void aio_cleanup(struct gf_io *io)
{
	struct aio_priv *a = io->priv;

	if (a->ctx_ok)
		io_destroy(a->ctx);
	free(a->events);
	free(a->failed);
	free(a->pending);
	free(a->free_cbs);
	free(a->iocbs);
	memset(a, 0, sizeof(*a));
}

static int aio_init(struct gf_io *io)
{
	struct aio_priv *a = io->priv;
	unsigned depth = io->cfg.queue_depth;
	int rc;

	a->depth = depth;
	a->iocbs = calloc(depth, sizeof(*a->iocbs));
	a->free_cbs = calloc(depth, sizeof(*a->free_cbs));
	a->pending = calloc(depth, sizeof(*a->pending));
	a->failed = calloc(depth, sizeof(*a->failed));
	a->events = calloc(depth, sizeof(*a->events));
	if (!a->iocbs || !a->free_cbs || !a->pending || !a->failed || !a->events) {
		rc = -ENOMEM;
		goto err_free;
	}
	for (unsigned i = 0; i < depth; i++)
		a->free_cbs[i] = &a->iocbs[depth - 1 - i];
	a->nfree = depth;
	rc = io_setup((int)depth, &a->ctx);
	if (rc) {
		/* EAGAIN: fs.aio-max-nr is used up by other processes. */
		snprintf(io->detail, sizeof(io->detail), "io_setup(%u): %s%s", depth, strerror(-rc),
			 rc == -EAGAIN ? " (raise fs.aio-max-nr)" : "");
		goto err_free;
	}
	a->ctx_ok = true;
	return 0;
err_free:
	aio_cleanup(io); /* no context yet: frees the arrays only */
	return rc;
}


static int aio_submit(struct gf_io *io, struct gf_io_req *req)
{
	struct aio_priv *a = io->priv;
	struct iocb *cb;

	if (a->nfree == 0) {
		snprintf(io->detail, sizeof(io->detail), "more requests than queue_depth %u", a->depth);
		return -EBUSY;
	}
	cb = a->free_cbs[--a->nfree];
	if (req->op == GF_IO_READ)
		io_prep_pread(cb, (int)req->file, req->buf, req->length, (long long)req->offset);
	else
		io_prep_pwrite(cb, (int)req->file, req->buf, req->length, (long long)req->offset);
	cb->data = req;
	a->pending[a->npending++] = cb;
	return GF_IO_QUEUED;
}

static int aio_commit(struct gf_io *io)
{
	struct aio_priv *a = io->priv;
	unsigned sent = 0;

	while (sent < a->npending) {
		int rc = io_submit(a->ctx, (long)(a->npending - sent), a->pending + sent);
		if (rc == -EINTR)
			continue;
		if (rc < 0) {
			/* The rest never reach the kernel: they complete with the error, so the
			 * caller accounts for them like any other failed request. */
			snprintf(io->detail, sizeof(io->detail), "io_submit: %s", strerror(-rc));
			for (unsigned i = sent; i < a->npending; i++) {
				((struct gf_io_req *)a->pending[i]->data)->result = rc;
				a->failed[a->nfailed++] = a->pending[i];
			}
			break;
		}
		sent += (unsigned)rc;
	}
	a->npending = 0;
	return 0;
}

static int aio_reap(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **done)
{
	struct aio_priv *a = io->priv;
	unsigned n = 0;
	int got;

	aio_commit(io);
	while (a->nfailed && n < max) {
		struct iocb *cb = a->failed[--a->nfailed];
		done[n++] = cb->data;
		a->free_cbs[a->nfree++] = cb;
	}
	if (n >= max || (n >= min && n))
		return (int)n;
	if (max - n > a->depth)
		max = a->depth + n;
	do
		got = io_getevents(a->ctx, (long)(min > n ? min - n : 0), (long)(max - n), a->events, NULL);
	while (got == -EINTR);
	if (got < 0) {
		snprintf(io->detail, sizeof(io->detail), "io_getevents: %s", strerror(-got));
		return got;
	}
	for (int i = 0; i < got; i++) {
		struct iocb *cb = a->events[i].obj;
		struct gf_io_req *r = cb->data;
		/* res is unsigned long; an error is -errno in it. */
		r->result = (long)a->events[i].res;
		gf_io_finish_short_write((int)r->file, r);
		done[n++] = r;
		a->free_cbs[a->nfree++] = cb;
	}
	return (int)n;
}

static int aio_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	return gf_io_posix.open(io, path, flags, file);
}

static int aio_close(struct gf_io *io, uint64_t file)
{
	return gf_io_posix.close(io, file);
}

static int aio_fsync(struct gf_io *io, uint64_t file)
{
	return gf_io_posix.fsync(io, file);
}

static int aio_probe(char *why, size_t len)
{
	io_context_t ctx = 0;
	int rc = io_setup(1, &ctx);

	if (rc) {
		snprintf(why, len, "io_setup: %s", strerror(-rc));
		return rc;
	}
	io_destroy(ctx);
	return 0;
}

const struct gf_io_ops gf_io_aio = {
	.name = "aio",
	.caps = GF_IO_CAP_ASYNC | GF_IO_CAP_DIRECT | GF_IO_CAP_KERNEL_PATH | GF_IO_CAP_BATCH_BUFFERED,
	.help = "Linux native AIO (libaio): io_submit / io_getevents, queue_depth per thread; "
		"asynchronous with O_DIRECT",
	.async = true,
	.priv_size = sizeof(struct aio_priv),
	.init = aio_init,
	.cleanup = aio_cleanup,
	.open = aio_open,
	.close = aio_close,
	.submit = aio_submit,
	.commit = aio_commit,
	.reap = aio_reap,
	.fsync = aio_fsync,
	.ns = &gf_io_posix_ns,
	.probe = aio_probe,
};
