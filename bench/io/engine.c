/* engine: see engine.h. */
#include "io/engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/clock.h"
#include "stats/meter.h"

/* --- network timing --- */

/* The process's figures: destroyed engines', and transfers reported without an engine. */
static pthread_mutex_t net_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gf_net_timing *net_acc[GF_IO_OPS];

void gf_net_timing_init(struct gf_net_timing *t)
{
	t->requests = t->bytes_sent = t->bytes_received = t->new_connections = 0;
	gf_hist_init(&t->connect);
	gf_hist_init(&t->tls);
	gf_hist_init(&t->ttfb);
	gf_hist_init(&t->total);
}

void gf_net_timing_merge(struct gf_net_timing *dst, const struct gf_net_timing *src)
{
	dst->requests += src->requests;
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_received += src->bytes_received;
	dst->new_connections += src->new_connections;
	gf_hist_merge(&dst->connect, &src->connect);
	gf_hist_merge(&dst->tls, &src->tls);
	gf_hist_merge(&dst->ttfb, &src->ttfb);
	gf_hist_merge(&dst->total, &src->total);
}

/* One request's timing into t[op] (allocated on first use: four histograms are 80 KiB,
 * and most engines never see a network). A failed allocation loses the figure, not the
 * request. */
static void net_record(struct gf_net_timing **t, const struct gf_io_req *r, uint64_t now)
{
	struct gf_net_timing *n;

	if ((unsigned)r->op >= GF_IO_OPS)
		return;
	n = t[r->op];
	if (!n) {
		n = malloc(sizeof(*n));
		if (!n)
			return;
		gf_net_timing_init(n);
		t[r->op] = n;
	}
	n->requests++;
	if (r->op != GF_IO_READ)
		n->bytes_sent += r->length;
	if (r->op != GF_IO_WRITE && r->result > 0)
		n->bytes_received += (uint64_t)r->result;
	if (r->connect_ns) {
		n->new_connections++;
		gf_hist_record(&n->connect, r->connect_ns);
	}
	if (r->tls_ns)
		gf_hist_record(&n->tls, r->tls_ns);
	if (r->ttfb_ns) {
		gf_hist_record(&n->ttfb, r->ttfb_ns);
		gf_hist_record(&n->total, now > r->start_ns ? now - r->start_ns : 0);
	}
}

void gf_engine_report(struct gf_io *io, const struct gf_io_req *r)
{
	uint64_t now = gf_now_ns();

	if (io && io->engine) {
		net_record(io->engine->net, r, now);
		return;
	}
	pthread_mutex_lock(&net_lock);
	net_record(net_acc, r, now);
	pthread_mutex_unlock(&net_lock);
}

/* An engine's figures into the process's, when it is destroyed. */
static void net_flush(struct gf_engine *e)
{
	pthread_mutex_lock(&net_lock);
	for (int k = 0; k < GF_IO_OPS; k++) {
		if (!e->net[k])
			continue;
		if (!net_acc[k]) {
			/* Hand the engine's over whole rather than allocate under the lock. */
			net_acc[k] = e->net[k];
			e->net[k] = NULL;
			continue;
		}
		gf_net_timing_merge(net_acc[k], e->net[k]);
	}
	pthread_mutex_unlock(&net_lock);
	for (int k = 0; k < GF_IO_OPS; k++) {
		free(e->net[k]);
		e->net[k] = NULL;
	}
}

void gf_engine_net_take(struct gf_net_timing *out)
{
	pthread_mutex_lock(&net_lock);
	for (int k = 0; k < GF_IO_OPS; k++) {
		if (out && net_acc[k])
			out[k] = *net_acc[k];
		else if (out)
			gf_net_timing_init(&out[k]);
		free(net_acc[k]);
		net_acc[k] = NULL;
	}
	pthread_mutex_unlock(&net_lock);
}

/* --- the engine --- */

int gf_engine_init(struct gf_engine *e, struct gf_io *io, unsigned qd, size_t buf_size,
		   size_t align, struct gf_hist *latency)
{
	memset(e, 0, sizeof(*e));
	if (qd == 0)
		qd = 1;
	if (align < 64)
		align = 64;
	buf_size = (buf_size + align - 1) / align * align;
	e->io = io;
	e->qd = qd;
	e->buf_size = buf_size;
	e->latency = latency;
	if (posix_memalign((void **)&e->bufs, align, (size_t)qd * buf_size))
		return -ENOMEM;
	e->reqs = calloc(qd, sizeof(*e->reqs));
	e->free_reqs = calloc(qd, sizeof(*e->free_reqs));
	e->done = calloc(qd, sizeof(*e->done));
	if (!e->reqs || !e->free_reqs || !e->done) {
		gf_engine_destroy(e);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < qd; i++) {
		e->reqs[i].buf = e->bufs + (size_t)i * buf_size;
		e->free_reqs[i] = &e->reqs[i];
	}
	e->nfree = qd;
	if (io)
		io->engine = e;
	/* Optional: a backend that cannot register works with plain buffers. */
	if (io && io->ops->register_buffers && io->ops->register_buffers(io, e->bufs, buf_size, qd))
		io->detail[0] = '\0';
	return 0;
}

void gf_engine_destroy(struct gf_engine *e)
{
	/* Transfers the backend reports from now on (its closes) go to the process's figures. */
	if (e->io && e->io->engine == e)
		e->io->engine = NULL;
	net_flush(e);
	free(e->done);
	free(e->free_reqs);
	free(e->reqs);
	free(e->bufs);
	memset(e, 0, sizeof(*e));
}

static void complete(struct gf_engine *e, struct gf_io_req *r, uint64_t now)
{
	if (e->latency)
		gf_hist_record(e->latency, now - r->start_ns);
	if (r->net)
		net_record(e->net, r, now);
	e->requests++;
	if (r->result >= 0) {
		e->bytes += (uint64_t)r->result;
		gf_meter_add(r->op == GF_IO_READ ? GF_METER_READ : GF_METER_WRITE, (uint64_t)r->result);
		if (e->series) {
			gf_series_add(e->series, now, r->op == GF_IO_READ ? GF_TS_READ_BYTES : GF_TS_WRITE_BYTES,
				      (uint64_t)r->result);
			gf_series_add(e->series, now, GF_TS_REQUESTS, 1);
			gf_series_add(e->series, now, GF_TS_LATENCY_NS, now - r->start_ns);
		}
	}
	if (!e->error && r->op == GF_IO_READ && r->result > 0 && e->on_read) {
		int vrc = e->on_read(e->on_read_arg, r);
		if (vrc)
			e->error = vrc;
	}
	if (!e->error) {
		if (r->result < 0) {
			e->error = (int)r->result;
			snprintf(e->errmsg, sizeof(e->errmsg), "%s at offset %llu: %s%s%s",
				 r->op == GF_IO_READ ? "read" : "write", (unsigned long long)r->offset,
				 strerror((int)-r->result), e->io->detail[0] ? " - " : "", e->io->detail);
		} else if ((size_t)r->result < r->need && r->op != GF_IO_READ) {
			/* Backends finish short writes or name the errno; one that cannot (an
			 * object's PUT) gives the count. */
			e->error = -EIO;
			snprintf(e->errmsg, sizeof(e->errmsg), "short write at offset %llu: %lld of %zu bytes%s%s",
				 (unsigned long long)r->offset, (long long)r->result, r->length,
				 e->io->detail[0] ? " - " : "", e->io->detail);
		} else if ((size_t)r->result < r->need) {
			/* The plan says the data is there: a short read means the dataset is not
			 * what the manifest claims. */
			e->error = -EIO;
			snprintf(e->errmsg, sizeof(e->errmsg),
				 "short read at offset %llu: %lld of %zu bytes (is the dataset complete?)",
				 (unsigned long long)r->offset,
				 (long long)r->result, r->length);
		}
	}
	e->free_reqs[e->nfree++] = r;
	e->inflight--;
	if (e->on_done)
		e->on_done(e->on_done_arg, r);
}

/* Reap at least min completions. */
static int reap(struct gf_engine *e, unsigned min)
{
	int n;

	if (e->queued && e->io->ops->commit) {
		int rc = e->io->ops->commit(e->io);
		if (rc < 0)
			return rc;
		e->queued = 0;
	}
	n = e->io->ops->reap(e->io, min, e->inflight, e->done);
	if (n < 0)
		return n;
	uint64_t now = gf_now_ns();
	for (int i = 0; i < n; i++)
		complete(e, e->done[i], now);
	return 0;
}

static int submit(struct gf_engine *e, enum gf_io_op op, uint64_t file, uint64_t offset,
		  size_t len, size_t need, void *buf, void *owner)
{
	struct gf_io_req *r;
	int rc;

	if (e->error)
		return e->error;
	if (len > e->buf_size)
		return -EINVAL;
	while (e->nfree == 0) {
		rc = reap(e, 1);
		if (rc < 0) {
			e->error = rc;
			snprintf(e->errmsg, sizeof(e->errmsg), "reap: %s", strerror(-rc));
			return rc;
		}
	}
	r = e->free_reqs[--e->nfree];
	if (buf && buf != r->buf)
		memcpy(r->buf, buf, len);
	r->op = op;
	r->file = file;
	r->offset = offset;
	r->length = len;
	r->need = need;
	r->owner = owner;
	r->result = 0;
	r->net = false;
	r->connect_ns = r->tls_ns = r->ttfb_ns = 0;
	e->inflight++;
	r->start_ns = gf_now_ns();
	rc = e->io->ops->submit(e->io, r);
	if (rc == GF_IO_COMPLETED) {
		complete(e, r, gf_now_ns());
	} else if (rc == GF_IO_QUEUED) {
		e->queued++;
		/* Send a full batch at once (fewer system calls per request), or each request at
		 * once when the device, not the CPU, is the limit (submit_each). */
		if ((e->nfree == 0 || e->submit_each) && e->io->ops->commit) {
			rc = e->io->ops->commit(e->io);
			if (rc < 0)
				return e->error = rc;
			e->queued = 0;
		}
	} else {
		r->result = rc;
		complete(e, r, gf_now_ns());
	}
	return e->error;
}

int gf_engine_read(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len)
{
	return submit(e, GF_IO_READ, file, offset, len, len, NULL, NULL);
}

int gf_engine_read_span(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len,
			size_t need, void *owner)
{
	return submit(e, GF_IO_READ, file, offset, len, need < len ? need : len, NULL, owner);
}

void *gf_engine_write_buf(struct gf_engine *e)
{
	/* Writers fill the buffer of the next free slot; wait for one if all are busy. */
	while (e->nfree == 0) {
		if (reap(e, 1) < 0)
			return NULL;
	}
	return e->free_reqs[e->nfree - 1]->buf;
}

int gf_engine_write(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len, void *buf)
{
	return submit(e, GF_IO_WRITE, file, offset, len, len, buf, NULL);
}

int gf_engine_flush(struct gf_engine *e)
{
	if (e->queued && e->io->ops->commit) {
		int rc = e->io->ops->commit(e->io);
		if (rc < 0) {
			if (!e->error) {
				e->error = rc;
				snprintf(e->errmsg, sizeof(e->errmsg), "commit: %s", strerror(-rc));
			}
			return rc;
		}
		e->queued = 0;
	}
	return 0;
}

int gf_engine_drain(struct gf_engine *e)
{
	while (e->inflight) {
		int rc = reap(e, e->inflight);
		if (rc < 0) {
			if (!e->error) {
				e->error = rc;
				snprintf(e->errmsg, sizeof(e->errmsg), "reap: %s", strerror(-rc));
			}
			return rc;
		}
	}
	return e->error;
}
