/* fetch: see fetch.h.
 *
 * A sample in flight counts its outstanding requests. The count starts at one, a guard
 * held while its requests are being queued, so that a synchronous backend (which
 * completes each request inside submit) cannot finish the sample, and close its file,
 * before the last request was even issued. */
#include "phase/fetch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "stats/clock.h"
#include "phase/dio.h"
#include "model/dist.h"
#include "model/fformat.h"

struct gf_fetch_sample {
	uint64_t file;
	uint64_t handle;
	int slot;            /* cache slot, -1 when the file is closed after this sample */
	unsigned outstanding;
	bool failed;         /* a request of it failed or was cancelled: not a sample read */
	uint64_t open_ns;
};

static void set_error(struct gf_fetch *f, int rc, const char *what, uint64_t file)
{
	if (f->error)
		return;
	f->error = rc;
	if (gf_plan_file_path(f->cfg->w, f->cfg->plan, f->cfg->root, file, f->path, sizeof(f->path)))
		snprintf(f->path, sizeof(f->path), "file %llu", (unsigned long long)file);
	snprintf(f->errmsg, sizeof(f->errmsg), "%s: %s", f->path, what);
}

static int close_file(struct gf_fetch *f, uint64_t handle, uint64_t open_ns)
{
	uint64_t t = gf_now_ns();
	int rc = f->io->ops->close(f->io, handle);

	if (f->open_latency)
		gf_hist_record(f->open_latency, open_ns + (gf_now_ns() - t));
	return rc;
}

static int cache_close(void *arg, uint64_t handle, uint32_t slot)
{
	struct gf_fetch *f = arg;

	return close_file(f, handle, f->open_ns[slot]);
}

static void finish(struct gf_fetch *f, struct gf_fetch_sample *ps)
{
	if (ps->slot >= 0)
		gf_fdcache_unpin(&f->cache, ps->slot);
	else
		close_file(f, ps->handle, ps->open_ns); /* a failed read-only close loses nothing */
	if (!ps->failed) {
		f->samples++;
		if (f->series && !f->series_skips_samples)
			gf_series_add(f->series, gf_now_ns(), GF_TS_SAMPLES, 1);
	}
	f->free_ps[f->nfree_ps++] = ps;
}

static void on_done(void *arg, struct gf_io_req *r)
{
	struct gf_fetch *f = arg;
	struct gf_fetch_sample *ps = r->owner;

	if (!ps)
		return;
	if (r->result < 0)
		ps->failed = true;
	if (f->eng.error && !f->error)
		set_error(f, f->eng.error, f->eng.errmsg, ps->file);
	if (--ps->outstanding == 0)
		finish(f, ps);
}

unsigned gf_fetch_open_files(const struct gf_workload *w, const struct gf_plan *p)
{
	uint64_t threads = w->reader.read_threads > 0 ? (uint64_t)w->reader.read_threads : 1;
	uint64_t qd = p->read_depth > 0 ? p->read_depth : 1;
	uint64_t n = 1024;
	struct rlimit rl;

	/* The TFRecord stream opens each file itself, once per pass. */
	if (p->loader == GF_LOADER_TF_STREAM || (w->reader.read_type == GF_READ_ON_DEMAND && !p->keep_open))
		return 0;
	/* mmap_indexed_binary: every file stays mapped for the run, as DLIO's reader does. */
	if (p->keep_open && !w->target.open_files)
		n = p->files + 1 < 1024 ? p->files + 1 : 1024;
	if (w->target.open_files > 0) {
		n = (uint64_t)w->target.open_files;
	} else if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		/* A quarter of the limit leaves the rest to MPI, the results folder and libraries. */
		uint64_t share = rl.rlim_cur / 4 / threads;
		if (share < n)
			n = share;
	}
	if (n < qd + 1)
		n = qd + 1;
	return (unsigned)n;
}

int gf_fetch_init(struct gf_fetch *f, const struct gf_fetch_cfg *cfg, struct gf_hist *latency,
		  struct gf_hist *open_latency, struct gf_series *series)
{
	const struct gf_plan *p = cfg->plan;
	unsigned align = cfg->align ? cfg->align : 1;
	struct gf_io_config iocfg = {
		.queue_depth = p->read_depth,
		.direct = cfg->direct,
		.max_open = cfg->open_files,
	};
	uint64_t maxlen, bufsize;
	size_t bufalign;
	int rc;

	memset(f, 0, sizeof(*f));
	f->cfg = cfg;
	f->open_latency = open_latency;
	f->series = series;
	if (iocfg.queue_depth == 0)
		iocfg.queue_depth = 1;
	/* Every sample in flight pins its file: the cache must hold more than that. */
	if (iocfg.max_open && iocfg.max_open <= iocfg.queue_depth)
		iocfg.max_open = iocfg.queue_depth + 1;
	rc = gf_io_open_backend(cfg->ops, &iocfg, &f->io);
	if (rc) {
		snprintf(f->errmsg, sizeof(f->errmsg), "engine %s cannot start: %s", cfg->ops->name,
			 strerror(-rc));
		return rc;
	}
	/* Buffers as large as the largest request, not the chunk limit: 4 KiB samples need
	 * no 4 MiB buffers; an aligned read spans one more block. */
	maxlen = p->mean_bytes;
	/* Sizes that vary, reads of a whole file (fformat.c) and stream reads that span
	 * records may take a whole chunk. */
	if (p->stdev_bytes || p->layout == GF_LAYOUT_FILE_PER_SAMPLE || p->loader == GF_LOADER_TF_STREAM)
		maxlen = p->chunk;
	bufsize = align > 1 ? gf_align_up(maxlen, align) : maxlen;
	/* Samples of equal, aligned sizes start aligned; others may straddle a block more. */
	if (align > 1 && (p->stdev_bytes || p->mean_bytes % align))
		bufsize += align;
	if (bufsize > gf_dio_chunk((size_t)p->chunk, align))
		bufsize = gf_dio_chunk((size_t)p->chunk, align);
	/* Page-aligned buffers of whole pages: a 4 KiB read into a buffer that straddles two
	 * pages costs the kernel a second page (and a second segment for direct I/O). */
	bufalign = cfg->mem_align > align ? cfg->mem_align : align;
	if (bufsize >= 4096 && bufalign < 4096)
		bufalign = 4096;
	rc = gf_engine_init(&f->eng, f->io, iocfg.queue_depth, (size_t)bufsize, bufalign, latency);
	if (rc) {
		snprintf(f->errmsg, sizeof(f->errmsg), "out of memory for %u read buffers of %llu bytes",
			 iocfg.queue_depth, (unsigned long long)bufsize);
		goto err_io;
	}
	f->eng_ok = true;
	f->eng.submit_each = cfg->direct;
	f->eng.series = series;
	f->eng.on_done = on_done;
	f->eng.on_done_arg = f;
	f->nps = iocfg.queue_depth + 1;
	f->ps = calloc(f->nps, sizeof(*f->ps));
	f->free_ps = calloc(f->nps, sizeof(*f->free_ps));
	if (!f->ps || !f->free_ps) {
		rc = -ENOMEM;
		snprintf(f->errmsg, sizeof(f->errmsg), "out of memory");
		goto err_ps;
	}
	for (unsigned i = 0; i < f->nps; i++)
		f->free_ps[i] = &f->ps[i];
	f->nfree_ps = f->nps;
	if (iocfg.max_open) {
		f->open_ns = calloc(iocfg.max_open, sizeof(*f->open_ns));
		rc = f->open_ns ? gf_fdcache_init(&f->cache, iocfg.max_open, cache_close, f) : -ENOMEM;
		if (rc) {
			snprintf(f->errmsg, sizeof(f->errmsg), "out of memory for a cache of %u open files",
				 iocfg.max_open);
			goto err_cache;
		}
	}
	return 0;
err_cache:
	free(f->open_ns);
err_ps:
	free(f->free_ps);
	free(f->ps);
	gf_engine_destroy(&f->eng);
err_io:
	gf_io_close_backend(f->io);
	f->io = NULL;
	return rc;
}

void gf_fetch_destroy(struct gf_fetch *f)
{
	if (!f->io)
		return;
	if (f->eng_ok)
		gf_engine_drain(&f->eng);
	/* Samples still held (a drain that failed) keep files open: close them. */
	for (unsigned i = 0; f->ps && i < f->nps; i++) {
		bool held = true;
		for (unsigned j = 0; j < f->nfree_ps; j++)
			if (f->free_ps[j] == &f->ps[i])
				held = false;
		if (held && f->ps[i].slot < 0)
			f->io->ops->close(f->io, f->ps[i].handle);
	}
	gf_fdcache_destroy(&f->cache);
	free(f->open_ns);
	free(f->free_ps);
	free(f->ps);
	if (f->eng_ok)
		gf_engine_destroy(&f->eng);
	gf_io_close_backend(f->io);
	f->io = NULL;
}

/* The handle of s's file: from the cache, or opened now. */
static int open_sample(struct gf_fetch *f, struct gf_fetch_sample *ps)
{
	const struct gf_fetch_cfg *cfg = f->cfg;
	unsigned flags = GF_O_READ | (cfg->direct ? GF_O_DIRECT : 0);
	uint64_t t0;
	int rc;

	ps->slot = -1;
	if (cfg->open_files) {
		ps->slot = gf_fdcache_get(&f->cache, ps->file);
		if (ps->slot >= 0) {
			ps->handle = gf_fdcache_handle(&f->cache, ps->slot);
			return 0;
		}
	}
	rc = gf_plan_file_path(cfg->w, cfg->plan, cfg->root, ps->file, f->path, sizeof(f->path));
	if (rc) {
		snprintf(f->errmsg, sizeof(f->errmsg), "file name too long under %s", cfg->root);
		return f->error = rc;
	}
	t0 = gf_now_ns();
	f->io->detail[0] = '\0';
	rc = f->io->ops->open(f->io, f->path, flags, &ps->handle);
	if (rc) {
		/* The library's words (HDF5's "truncated file: ..."), unless they only repeat
		 * the path and errno as posix's do. */
		const char *d = f->io->detail;
		bool add = d[0] && !strstr(d, f->path);
		snprintf(f->errmsg, sizeof(f->errmsg), "cannot open %s: %s%s%s", f->path, strerror(-rc),
			 add ? " - " : "", add ? d : "");
		return f->error = rc;
	}
	ps->open_ns = gf_now_ns() - t0;
	f->opens++;
	if (cfg->open_files) {
		int slot = gf_fdcache_put(&f->cache, ps->file, ps->handle);
		/* -EBUSY (every file pinned) cannot happen with the cache larger than the queue;
		 * if it did, this file is simply closed after the sample. */
		if (slot >= 0) {
			ps->slot = slot;
			f->open_ns[slot] = ps->open_ns;
		}
	}
	return 0;
}

int gf_fetch_sample(struct gf_fetch *f, const struct gf_sample *s)
{
	struct gf_fetch_sample *ps;
	struct gf_ff_reads reads;
	struct gf_span_iter it;
	struct gf_span sp;
	uint64_t roff, rlen;
	int rc;

	if (f->error)
		return f->error;
	/* Every sample held here has a request in flight, and there are at most
	 * queue_depth of those: one is always free. Draining covers a broken promise. */
	if (f->nfree_ps == 0 && gf_fetch_drain(f))
		return f->error;
	ps = f->free_ps[--f->nfree_ps];
	ps->file = s->file;
	rc = open_sample(f, ps);
	if (rc) {
		f->free_ps[f->nfree_ps++] = ps;
		return rc;
	}
	ps->outstanding = 1; /* the guard */
	ps->failed = false;
	/* The framework's reads of the sample (model/fformat.c), each aligned for O_DIRECT. */
	gf_ff_reads_begin(&reads, f->cfg->plan, s->file, s->id % f->cfg->plan->samples_per_file,
			  (f->cfg->ops->caps & GF_IO_CAP_OBJECTS) != 0);
	rc = 0;
	while (!rc && gf_ff_reads_next(&reads, &roff, &rlen)) {
		gf_span_begin(&it, roff, rlen, (size_t)f->cfg->plan->chunk, f->cfg->align);
		while (gf_span_next(&it, &sp)) {
			uint64_t before = f->eng.requests + f->eng.inflight;

			ps->outstanding++;
			rc = gf_engine_read_span(&f->eng, ps->handle, sp.offset, sp.length, sp.need, ps);
			/* Not issued at all (an earlier error): take its count back. An issued request
			 * is in flight or already completed, and the engine's totals say which. */
			if (f->eng.requests + f->eng.inflight == before)
				ps->outstanding--;
			if (rc)
				break;
		}
	}
	f->requested_bytes += s->length;
	if (--ps->outstanding == 0)
		finish(f, ps);
	if (rc && !f->error)
		set_error(f, rc, f->eng.errmsg[0] ? f->eng.errmsg : strerror(-rc), s->file);
	return f->error;
}

int gf_fetch_drain(struct gf_fetch *f)
{
	int rc = gf_engine_drain(&f->eng);

	if (rc && !f->error) {
		f->error = rc;
		snprintf(f->errmsg, sizeof(f->errmsg), "%s", f->eng.errmsg[0] ? f->eng.errmsg : strerror(-rc));
	}
	return f->error;
}

int gf_fetch_batch(struct gf_fetch *f, unsigned accel, uint64_t step, bool drain, bool preprocess)
{
	const struct gf_plan *p = f->cfg->plan;
	const struct gf_dist *pre = &f->cfg->w->reader.preprocess_time;
	uint64_t epoch = step / p->steps_per_epoch;
	uint64_t first = (step % p->steps_per_epoch) * p->batch;
	struct gf_epoch e;
	struct gf_rng rng;
	int rc;

	gf_plan_epoch(p, epoch, &e);
	gf_rng_seed(&rng, ((uint64_t)accel << 40) ^ step);
	for (uint64_t i = 0; i < p->batch; i++) {
		struct gf_sample s;

		gf_plan_sample(&e, accel, first + i, &s);
		rc = gf_fetch_sample(f, &s);
		if (rc)
			return rc;
		if (preprocess) {
			double t = gf_dist_sample(pre, &rng);
			if (t > 0) {
				/* What is queued must be on its way while this thread sleeps. */
				rc = gf_engine_flush(&f->eng);
				if (rc)
					return gf_fetch_drain(f);
				if (!gf_sleep_until_or(gf_now_ns() + gf_s_to_ns(t), f->stop, f->stop_ns))
					return gf_fetch_drain(f); /* the run stops: the batch is not needed */
			}
		}
	}
	return drain ? gf_fetch_drain(f) : 0;
}

int gf_fetch_stream_file(struct gf_fetch *f, uint64_t file,
			 int (*progress)(void *arg, uint64_t done), void *arg)
{
	const struct gf_fetch_cfg *cfg = f->cfg;
	uint64_t size = gf_plan_file_size(cfg->plan, file), handle, t0, open_ns, off;
	int rc, prc = 0;

	if (f->error)
		return f->error;
	rc = gf_plan_file_path(cfg->w, cfg->plan, cfg->root, file, f->path, sizeof(f->path));
	if (rc) {
		snprintf(f->errmsg, sizeof(f->errmsg), "file name too long under %s", cfg->root);
		return f->error = rc;
	}
	t0 = gf_now_ns();
	f->io->detail[0] = '\0';
	rc = f->io->ops->open(f->io, f->path, GF_O_READ | (cfg->direct ? GF_O_DIRECT : 0), &handle);
	if (rc) {
		snprintf(f->errmsg, sizeof(f->errmsg), "cannot open %s: %s", f->path, strerror(-rc));
		return f->error = rc;
	}
	open_ns = gf_now_ns() - t0;
	f->opens++;
	/* Front to back, one chunk at a time: TFRecordDataset's buffered reader refills its
	 * buffer_size buffer when the parser has used it up. */
	for (off = 0; off < size && !prc; ) {
		uint64_t len = size - off < cfg->plan->chunk ? size - off : cfg->plan->chunk;
		struct gf_span_iter it;
		struct gf_span sp;

		gf_span_begin(&it, off, len, (size_t)cfg->plan->chunk, cfg->align);
		while (!rc && gf_span_next(&it, &sp))
			rc = gf_engine_read_span(&f->eng, handle, sp.offset, sp.length, sp.need, NULL);
		if (!rc)
			rc = gf_engine_drain(&f->eng);
		if (rc) {
			set_error(f, rc, f->eng.errmsg[0] ? f->eng.errmsg : strerror(-rc), file);
			break;
		}
		off += len;
		f->requested_bytes += len;
		prc = progress(arg, off);
	}
	close_file(f, handle, open_ns);
	return f->error ? f->error : (prc < 0 ? prc : 0);
}
