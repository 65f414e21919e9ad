/* ckpt: see ckpt.h. */
#include "phase/ckpt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "stats/clock.h"
#include "stats/meter.h"
#include "config.h"
#include "model/dist.h"
#include "io/engine.h"
#include "io/ns.h"
#include "io/shared.h"
#include "phase/ckpt_index.h"
#ifdef HAVE_HDF5
#include "io/h5ckpt.h"
#endif
#ifdef HAVE_CURL
#endif
#include "mpi/world.h"
#include "phase/progress.h"

#define MIN_BLOCK (1u << 20)

/* --- blocks --- */

static uint64_t block_tag(uint64_t shard, uint64_t offset)
{
	return XXH64(&shard, sizeof(shard), 0x9e3779b97f4a7c15ull) ^ offset;
}

void gf_ckpt_fill_block(void *buf, size_t len, uint64_t shard, uint64_t offset, uint64_t seed)
{
	struct gf_rng rng;
	uint64_t tag = block_tag(shard, offset), sum;

	gf_rng_seed(&rng, seed ^ tag);
	gf_rng_fill(&rng, (char *)buf + 8, len - 16);
	memcpy(buf, &tag, 8);
	sum = XXH3_64bits(buf, len - 8);
	memcpy((char *)buf + len - 8, &sum, 8);
}

int gf_ckpt_check_block(const void *buf, size_t len, uint64_t shard, uint64_t offset)
{
	uint64_t tag, sum;

	if (len < 16)
		return -EILSEQ;
	memcpy(&tag, buf, 8);
	memcpy(&sum, (const char *)buf + len - 8, 8);
	if (tag != block_tag(shard, offset) || sum != XXH3_64bits(buf, len - 8))
		return -EILSEQ;
	return 0;
}

/* Shard ids: one per (checkpoint, rank, file) so that a block restored from the wrong
 * file, rank or checkpoint fails its tag. */
static uint64_t shard_id(unsigned index, int rank, int group)
{
	return ((uint64_t)index << 44) | ((uint64_t)rank << 22) | (uint64_t)group;
}

/* File i of a rank's share, in DLIO's order (base_checkpointing.py:391-415 on
 * mlperf_storage_v2.0): model_states, the model (one file, or one per layer), the
 * optimizer. group: GROUP_MODEL, GROUP_OPTIM, GROUP_FLAT, or GROUP_LAYER + layer. */
enum { GROUP_MODEL = 0, GROUP_OPTIM = 1, GROUP_FLAT = 2, GROUP_LAYER = 3 };

static bool shard_file(const struct gf_ckpt_cfg *c, const struct gf_model_share *s, unsigned i,
		       int *group, uint64_t *bytes)
{
	unsigned k = 0;

	if (s->flat_bytes && i == k++) {
		*group = GROUP_FLAT;
		*bytes = s->flat_bytes;
		return true;
	}
	if (s->model_bytes && s->per_layer) {
		unsigned n = (unsigned)(s->last_layer - s->first_layer + 1);
		if (i < k + n) {
			*group = GROUP_LAYER + s->first_layer + (int)(i - k);
			*bytes = gf_model_layer_bytes(c->w, c->m, s, *group - GROUP_LAYER);
			return true;
		}
		k += n;
	} else if (s->model_bytes && i == k++) {
		*group = GROUP_MODEL;
		*bytes = s->model_bytes;
		return true;
	}
	if (s->optim_bytes && i == k) {
		*group = GROUP_OPTIM;
		*bytes = s->optim_bytes;
		return true;
	}
	return false;
}

/* Block size and how many are in flight: together they stay within buffer_size. */
static void block_geometry(const struct gf_workload *w, size_t *block, unsigned *qd)
{
	uint64_t buf = w->checkpoint.buffer_size ? w->checkpoint.buffer_size : (64u << 20);
	unsigned q = w->target.queue_depth > 0 ? (unsigned)w->target.queue_depth : GF_WRITE_DEPTH;

	if (q < 1)
		q = 1;
	while (q > 1 && buf / q < MIN_BLOCK)
		q--;
	uint64_t b = buf / q / 4096 * 4096;
	*block = b < 4096 ? 4096 : (size_t)b;
	*qd = q;
}

/* The checkpoint layouts: what each needs of the target's backend, and how it writes. */
static const struct gf_ckpt_layout_def layouts[] = {
	{ GF_CKPT_FILE_PER_RANK, 0, true, NULL, NULL, NULL },
	{ GF_CKPT_SHARED_FILE, GF_IO_CAP_KERNEL_PATH, false, &gf_shared_mpiio, "checkpoint.mpiio", NULL },
#ifdef HAVE_HDF5
	{ GF_CKPT_HDF5, GF_IO_CAP_KERNEL_PATH, false, &gf_shared_hdf5, "checkpoint.h5", NULL },
#else
	{ GF_CKPT_HDF5, GF_IO_CAP_KERNEL_PATH, false, NULL, "checkpoint.h5",
	  "this gpufeed was built without parallel HDF5 (install libhdf5-openmpi-dev and rebuild)" },
#endif
	{ GF_CKPT_OBJECT_PER_RANK, GF_IO_CAP_OBJECTS, true, NULL, NULL, NULL },
};
_Static_assert(sizeof(layouts) / sizeof(layouts[0]) == GF_CKPT_LAYOUT_COUNT,
	       "every checkpoint.layout has a row in the layout table");

const struct gf_ckpt_layout_def *gf_ckpt_layout_def(enum gf_ckpt_layout l)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].layout == l)
			return &layouts[i];
	return &layouts[0];
}

void gf_ckpt_dir(const struct gf_ckpt_cfg *c, unsigned index, char *buf, size_t len)
{
	uint64_t epoch, step;

	if (c->names && index < c->nnames) {
		snprintf(buf, len, "%s/%s", c->root, c->names[index]);
		return;
	}
	/* base_checkpointing.py:389: global_epoch{epoch}_step{step}, as DLIO numbers them. */
	gf_plan_checkpoint_id(c->w, c->plan, index, &epoch, &step);
	snprintf(buf, len, "%s/global_epoch%llu_step%llu", c->root, (unsigned long long)epoch,
		 (unsigned long long)step);
}

static void shard_path(const struct gf_ckpt_cfg *c, unsigned index, int rank, int group, char *buf,
		       size_t len)
{
	struct gf_model_share s;
	char dir[4200];

	gf_model_share(c->w, c->m, rank, &s);
	gf_ckpt_dir(c, index, dir, sizeof(dir));
	/* DLIO's names (base_checkpointing.py:393-415), so a listing reads like its checkpoint. */
	if (group == GROUP_FLAT)
		snprintf(buf, len, "%s/model_states-%d.pt", dir, rank);
	else if (group >= GROUP_LAYER)
		snprintf(buf, len, "%s/layer_%d-model_%d_model_states.pt", dir, group - GROUP_LAYER, s.mp_rank);
	else if (group == GROUP_MODEL && s.model_by_mp)
		snprintf(buf, len, "%s/model_%d_model_states.pt", dir, s.mp_rank);
	else
		snprintf(buf, len, "%s/zero_pp_rank_%d_mp_rank_%d_%s_states.pt", dir, s.dp_rank, s.mp_rank,
			 group == GROUP_OPTIM ? "optim" : "model");
}

/* --- file per rank, through the engine --- */

struct verify_ctx {
	uint64_t shard;
	uint64_t blocks;
	const char *path;
	int writer;
	char *msg;
	size_t msglen;
};

static int verify_read(void *arg, const struct gf_io_req *r)
{
	struct verify_ctx *v = arg;

	if (gf_ckpt_check_block(r->buf, (size_t)r->result, v->shard, r->offset)) {
		snprintf(v->msg, v->msglen, "checksum mismatch in %s at offset %llu (block %llu), written "
			 "by rank %d", v->path, (unsigned long long)r->offset,
			 (unsigned long long)(r->offset / r->length), v->writer);
		return -EILSEQ;
	}
	v->blocks++;
	return 0;
}

static int fpr_one(const struct gf_ckpt_cfg *c, struct gf_engine *eng, unsigned index, int owner,
		   int group, uint64_t bytes, bool restore, struct gf_ckpt_rank_times *t, char *msg,
		   size_t msglen)
{
	char path[4300];
	struct gf_io *io = eng->io;
	uint64_t fh, t0, uid = shard_id(index, owner, group);
	size_t block = eng->buf_size;
	struct verify_ctx vctx = { .shard = uid, .writer = owner, .msg = msg, .msglen = msglen };
	int rc = 0, crc;

	shard_path(c, index, owner, group, path, sizeof(path));
	vctx.path = path;
	t0 = gf_now_ns();
	rc = io->ops->open(io, path, (restore ? GF_O_READ : GF_O_WRITE) | (c->direct ? GF_O_DIRECT : 0), &fh);
	t->open_s += (gf_now_ns() - t0) / 1e9;
	if (rc) {
		snprintf(msg, msglen, "cannot %s %s: %s", restore ? "open" : "create", path, rc == -ELOOP && !restore
			 ? "it is a symbolic link, and gpufeed does not write through links in its folders "
			   "(remove the link)" : rc == -ENXIO ? "not a regular file (a FIFO, socket or device): remove it"
			 : strerror(-rc));
		return rc;
	}
	t0 = gf_now_ns();
	if (restore && c->w->checkpoint.verify) {
		eng->on_read = verify_read;
		eng->on_read_arg = &vctx;
	}
	for (uint64_t off = 0; off < bytes && !rc; off += block) {
		size_t len = bytes - off < block ? (size_t)(bytes - off) : block;
		/* A signal stops a burst between blocks: a shard may take minutes, and mpirun
		 * kills the ranks about a second after forwarding the signal. */
		if (c->stop && *c->stop) {
			rc = -EINTR;
			snprintf(msg, msglen, "%s: stopped by a signal", path);
			break;
		}
		if (restore) {
			rc = gf_engine_read(eng, fh, off, len);
		} else {
			void *buf = gf_engine_write_buf(eng);
			if (!buf) {
				rc = eng->error ? eng->error : -EIO;
				break;
			}
			gf_ckpt_fill_block(buf, len, uid, off, (uint64_t)c->w->train.seed);
			rc = gf_engine_write(eng, fh, off, len, buf);
		}
	}
	crc = gf_engine_drain(eng);
	if (!rc)
		rc = crc;
	/* A request a signal cancelled (io.h) stops the burst as the flag does. */
	if (rc == -ECANCELED) {
		rc = -EINTR;
		snprintf(msg, msglen, "%s: stopped by a signal", path);
	}
	eng->on_read = NULL;
	t->write_s += (gf_now_ns() - t0) / 1e9;
	t->blocks_verified += vctx.blocks;
	if (!rc && !restore && c->w->checkpoint.fsync) {
		t0 = gf_now_ns();
		rc = io->ops->fsync(io, fh);
		t->sync_s += (gf_now_ns() - t0) / 1e9;
		if (rc)
			snprintf(msg, msglen, "fsync %s: %s", path, strerror(-rc));
	} else if (rc == -EINTR) {
		/* msg says so already */
	} else if (rc && rc != -EILSEQ) {
		snprintf(msg, msglen, "%s: %s", path, eng->errmsg[0] ? eng->errmsg : strerror(-rc));
	} else if (rc == -EILSEQ && !msg[0]) {
		snprintf(msg, msglen, "%s: %s", path, eng->errmsg);
	}
	t0 = gf_now_ns();
	crc = io->ops->close(io, fh);
	t->close_s += (gf_now_ns() - t0) / 1e9;
	if (!rc && crc == -ECANCELED) {
		/* On S3 the last parts are on the wire when close waits for them. */
		rc = -EINTR;
		snprintf(msg, msglen, "%s: stopped by a signal", path);
	} else if (!rc && crc) {
		rc = crc;
		/* On S3 close is where the upload ends: the detail has the S3 error code. */
		snprintf(msg, msglen, "close %s: %s", path, io->detail[0] ? io->detail : strerror(-crc));
	}
	if (!rc)
		t->bytes += bytes;
	return rc;
}

static int file_per_rank(const struct gf_ckpt_cfg *c, unsigned index, int owner, bool restore,
			 struct gf_ckpt_rank_times *t, char *msg, size_t msglen)
{
	struct gf_model_share s;
	struct gf_io_config iocfg = { .direct = c->direct };
	struct gf_kvmap opts = { 0 };
	struct gf_io *io = NULL;
	struct gf_engine eng;
	size_t block;
	unsigned qd;
	int rc;

	gf_model_share(c->w, c->m, owner, &s);
	if (!gf_model_share_bytes(&s))
		return 0;
	block_geometry(c->w, &block, &qd);
	iocfg.queue_depth = qd;
	if (!restore && c->layout == GF_CKPT_OBJECT_PER_RANK) {
		/* Each shard is one object: the store sizes its parts (multipart) for the larger
		 * of the two shards, from checkpoint.part_size or its own default. */
		uint64_t most = s.flat_bytes > s.model_bytes ? s.flat_bytes : s.model_bytes;
		char v[32];
		if (c->w->checkpoint.part_size) {
			snprintf(v, sizeof(v), "%llu", (unsigned long long)c->w->checkpoint.part_size);
			gf_io_opt_set(&opts, "part_size", v);
		}
		snprintf(v, sizeof(v), "%llu", (unsigned long long)(most > s.optim_bytes ? most : s.optim_bytes));
		gf_io_opt_set(&opts, "object_bytes", v);
		iocfg.opts = &opts;
	}
	rc = gf_io_open_backend(c->ops, &iocfg, &io);
	if (rc) {
		snprintf(msg, msglen, "engine %s: cannot start: %s", c->ops->name, strerror(-rc));
		return rc;
	}
	rc = gf_engine_init(&eng, io, qd, block, 4096, NULL);
	if (rc) {
		snprintf(msg, msglen, "out of memory for %u x %zu-byte checkpoint buffers", qd, block);
		goto out_io;
	}
	{
		int group;
		uint64_t bytes;
		for (unsigned i = 0; !rc && shard_file(c, &s, i, &group, &bytes); i++)
			rc = fpr_one(c, &eng, index, owner, group, bytes, restore, t, msg, msglen);
	}
	gf_engine_destroy(&eng);
out_io:
	gf_io_close_backend(io);
	return rc;
}

/* --- one shared file (MPI-IO or HDF5) --- */

/* A restored block of group g at off (base: the group's region of owner in the file). 0,
 * or -EILSEQ with the place named in msg (when msg is not NULL). */
static int verify_shared(const void *buf, size_t len, uint64_t uid, uint64_t off, uint64_t base,
			 const char *path, int g, int owner, char *msg, size_t msglen)
{
	if (!gf_ckpt_check_block(buf, len, uid, off))
		return 0;
	if (msg)
		snprintf(msg, msglen, "checksum mismatch in %s, %s of rank %d at offset %llu (file offset %llu)",
			 path, g ? "optimizer state" : "model state", owner, (unsigned long long)off,
			 (unsigned long long)(base + off));
	return -EILSEQ;
}

/* A signal stops a shared file's burst between blocks, as it stops file_per_rank's: a
 * collective burst of hundreds of MiB outlasted mpirun's second of grace and left no
 * summary (issue 28 item 6). Collective calls go on until every rank agrees to stop at
 * the same block (one reduction a block); independent ones stop where each rank is. Sets
 * *rc to -EINTR once. */
static bool stopped_shared(const struct gf_ckpt_cfg *c, bool coll, int *rc, const char *path, char *msg,
			   size_t msglen)
{
	double s[1] = { c->stop && *c->stop };

	if (*rc == -EINTR)
		return true;
	if (coll)
		gf_world_allmax_double_on(GF_COMM_CKPT, s, 1);
	if (!s[0] || (*rc && !coll))
		return false;
	if (!*rc) {
		*rc = -EINTR;
		snprintf(msg, msglen, "%s: stopped by a signal", path);
	}
	return true;
}

static int shared_file(const struct gf_ckpt_cfg *c, unsigned index, int owner, bool restore,
		       struct gf_ckpt_rank_times *t, char *msg, size_t msglen)
{
	const struct gf_ckpt_layout_def *def = gf_ckpt_layout_def(c->layout);
	const struct gf_shared_ops *ops = def->shared_ops;
	struct gf_model_share s;
	struct gf_shared *f = NULL;
	uint64_t mine[2], base[2] = { 0, 0 }, total[2] = { 0, 0 }, t0;
	size_t block;
	unsigned qd;
	void *buf = NULL;
	char dir[4200], path[4300];
	bool coll = c->w->checkpoint.collective;
	int rc;

	if (!ops) {
		/* The run's guards refuse it before any burst; every rank returns alike. */
		snprintf(msg, msglen, "checkpoint.layout %s: %s", gf_ckpt_layout_name(def->layout), def->missing);
		return gf_world_agree_on(GF_COMM_CKPT, -ENOTSUP, msg, msg, msglen);
	}
	block_geometry(c->w, &block, &qd);
	if (posix_memalign(&buf, 4096, block))
		buf = NULL;
	rc = buf ? 0 : -ENOMEM;
	/* Each rank's region starts after the regions of the ranks before it, per group. The
	 * shares are a pure function of the rank, so no exchange is needed. */
	for (int r = 0; r < c->world; r++) {
		gf_model_share(c->w, c->m, r, &s);
		/* One model region per rank: its model_states and layers together. */
		if (r < owner) {
			base[0] += s.flat_bytes + s.model_bytes;
			base[1] += s.optim_bytes;
		}
		total[0] += s.flat_bytes + s.model_bytes;
		total[1] += s.optim_bytes;
	}
	gf_model_share(c->w, c->m, owner, &s);
	mine[0] = s.flat_bytes + s.model_bytes;
	mine[1] = s.optim_bytes;
	rc = gf_world_agree_on(GF_COMM_CKPT, rc, "out of memory for the checkpoint buffer", msg, msglen);
	if (rc)
		goto out;
	gf_ckpt_dir(c, index, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, def->file);
	t0 = gf_now_ns();
	rc = ops->open(gf_world_comm_on(GF_COMM_CKPT), path, !restore, c->hints->kv, c->hints->n, total, &f,
		       msg, msglen);
	t->open_s += (gf_now_ns() - t0) / 1e9;
	if (rc)
		goto out;
	t0 = gf_now_ns();
	{
		/* Collective calls, group by group: every rank makes as many calls on a group as
		 * the rank with the most blocks there, with nothing when it has no more. HDF5 keeps
		 * each group in its own dataset, and a collective H5Dwrite must name the same
		 * dataset on every rank. */
		double nb[2] = { (double)((mine[0] + block - 1) / block), (double)((mine[1] + block - 1) / block) };

		gf_world_allmax_double_on(GF_COMM_CKPT, nb, 2);
		for (int g = 0; g < 2 && !(rc && !coll); g++) {
			uint64_t uid = shard_id(index, owner, g), off = 0;

			for (uint64_t i = 0; i < (uint64_t)nb[g] && !stopped_shared(c, coll, &rc, path, msg, msglen); i++) {
				size_t len = off < mine[g] ? (size_t)(mine[g] - off < block ? mine[g] - off : block) : 0;
				int lrc;

				if (restore) {
					lrc = ops->read_at(f, g, base[g] + off, buf, len, coll);
					if (!lrc && len && c->w->checkpoint.verify) {
						lrc = verify_shared(buf, len, uid, off, base[g], path, g, owner,
								    rc ? NULL : msg, msglen);
						t->blocks_verified += !lrc;
					}
				} else {
					if (len)
						gf_ckpt_fill_block(buf, len, uid, off, (uint64_t)c->w->train.seed);
					lrc = ops->write_at(f, g, base[g] + off, buf, len, coll);
				}
				if (!lrc)
					gf_meter_add(restore ? GF_METER_READ : GF_METER_WRITE, len);
				if (lrc && !rc) {
					rc = lrc;
					if (lrc != -EILSEQ)
						snprintf(msg, msglen, "%s: %s", path, ops->detail(f));
				}
				/* A failing rank keeps making the collective calls, or the others hang. */
				if (rc && !coll)
					break;
				off += len;
			}
		}
	}
	t->write_s += (gf_now_ns() - t0) / 1e9;
	if (!restore && c->w->checkpoint.fsync) {
		t0 = gf_now_ns();
		int src = ops->sync(f);
		t->sync_s += (gf_now_ns() - t0) / 1e9;
		if (src && !rc) {
			rc = src;
			snprintf(msg, msglen, "%s: %s", path, ops->detail(f));
		}
	}
	t0 = gf_now_ns();
	{
		int crc = ops->close(f);
		if (crc && !rc) {
			rc = crc;
			snprintf(msg, msglen, "closing %s: %s", path, strerror(-crc));
		}
	}
	t->close_s += (gf_now_ns() - t0) / 1e9;
	if (!rc)
		t->bytes = mine[0] + mine[1];
out:
	free(buf);
	return rc;
}

/* --- bursts --- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

_Static_assert(sizeof(struct gf_ckpt_rank_times) == 5 * sizeof(double) + 2 * sizeof(uint64_t),
	       "struct gf_ckpt_rank_times is gathered as it is: no padding");

/* checkpoint_latency.csv's row of one rank: its times by name into rank_detail. */
static void rank_detail(const struct gf_ckpt_rank_times *a, double *d)
{
	d[GF_CKPT_R_TOTAL_S] = a->total_s;
	d[GF_CKPT_R_BYTES] = (double)a->bytes;
	d[GF_CKPT_R_OPEN_S] = a->open_s;
	d[GF_CKPT_R_WRITE_S] = a->write_s;
	d[GF_CKPT_R_SYNC_S] = a->sync_s;
	d[GF_CKPT_R_BLOCKS] = (double)a->blocks_verified;
	d[GF_CKPT_R_CLOSE_S] = a->close_s;
}
_Static_assert(GF_CKPT_RANK_FIELDS == 7, "a new rank field needs its line in rank_detail()");

int gf_ckpt_burst_merge(const struct gf_ckpt_rank_times *all, int n, struct gf_ckpt_burst *out)
{
	double *movers = calloc((size_t)n + 1, sizeof(double));
	int m = 0;

	out->rank_s = calloc((size_t)n + 1, sizeof(double));
	out->rank_detail = calloc((size_t)n * GF_CKPT_RANK_FIELDS + 1, sizeof(double));
	for (int r = 0; r < n; r++) {
		const struct gf_ckpt_rank_times *a = &all[r];
		if (out->rank_s)
			out->rank_s[r] = a->total_s;
		if (out->rank_detail)
			rank_detail(a, out->rank_detail + (size_t)r * GF_CKPT_RANK_FIELDS);
		out->bytes += a->bytes;
		out->blocks_verified += a->blocks_verified;
		if (a->total_s > out->burst_s)
			out->burst_s = a->total_s;
		if (a->open_s > out->open_max_s)
			out->open_max_s = a->open_s;
		if (a->write_s > out->write_max_s)
			out->write_max_s = a->write_s;
		if (a->sync_s > out->sync_max_s)
			out->sync_max_s = a->sync_s;
		/* The spread is over the ranks that moved data (rank_zero: one writer). */
		if (a->bytes > 0 && movers)
			movers[m++] = a->total_s;
	}
	out->writers = m;
	if (movers && m) {
		qsort(movers, (size_t)m, sizeof(double), cmp_double);
		out->rank_min_s = movers[0];
		out->rank_max_s = movers[m - 1];
		out->rank_median_s = m % 2 ? movers[m / 2] : (movers[m / 2 - 1] + movers[m / 2]) / 2;
	}
	out->bytes_per_s = out->burst_s > 0 ? out->bytes / out->burst_s : 0;
	free(movers);
	return movers && out->rank_s && out->rank_detail ? 0 : -ENOMEM;
}

/* The servers that hold owner's shard files of checkpoint index (GlusterFS names them;
 * elsewhere ""), one per file in the order the rank writes them (shard_file's), joined by
 * ';'. One request per file, outside the timing. */
static void shard_servers(const struct gf_ckpt_cfg *c, unsigned index, int owner, char *out, size_t len)
{
	struct gf_model_share s;
	char path[4300], host[GF_CKPT_SERVER];
	uint64_t bytes;
	size_t o = 0;
	int g;

	out[0] = '\0';
	gf_model_share(c->w, c->m, owner, &s);
	for (unsigned i = 0; shard_file(c, &s, i, &g, &bytes); i++) {
		shard_path(c, index, owner, g, path, sizeof(path));
		if (gf_ns_server(path, host, sizeof(host)))
			return; /* the file system does not say: every file alike */
		size_t n = strlen(host);
		if (o + n + 2 > len)
			return; /* the files that fit */
		o += (size_t)snprintf(out + o, len - o, "%s%s", o ? ";" : "", host);
	}
}

int gf_ckpt_burst(const struct gf_ckpt_cfg *c, unsigned index, bool restore,
		  struct gf_ckpt_burst *out, char *err, size_t errlen)
{
	char server[GF_CKPT_SERVER] = "";
	char (*servers)[GF_CKPT_SERVER] = NULL;
	struct gf_ckpt_rank_times t;
	char msg[1024] = "", dir[4200];
	int owner = restore && c->restore_from ? c->restore_from[c->rank] : c->rank;
	bool shared = !gf_ckpt_layout_def(c->layout)->per_rank;
	struct gf_ckpt_rank_times *all = NULL;
	uint64_t t0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	out->restore = restore;
	out->index = index;
	/* The folder first, by one rank, before anyone writes. */
	if (!restore && c->rank == 0) {
		gf_ckpt_dir(c, index, dir, sizeof(dir));
		rc = gf_ns_mkdirs(dir);
		if (rc)
			snprintf(msg, sizeof(msg), "cannot create %s: %s", dir, strerror(-rc));
	}
	/* Rank 0's buffers for the gathers after the burst, taken before it: a failed
	 * allocation is agreed on here, never a NULL receive buffer in MPI_Gather there. */
	if (c->rank == 0) {
		all = calloc((size_t)c->world, sizeof(*all));
		servers = calloc((size_t)c->world, sizeof(*servers));
		if (!rc && (!all || !servers)) {
			rc = -ENOMEM;
			snprintf(msg, sizeof(msg), "out of memory for the burst's figures of %d ranks", c->world);
		}
	}
	rc = gf_world_agree_on(GF_COMM_CKPT, rc, msg, err, errlen);
	if (rc) {
		free(servers);
		free(all);
		return rc;
	}
	msg[0] = '\0';
	/* Every writer starts together; the burst lasts until the slowest is durable. */
	gf_world_barrier_on(GF_COMM_CKPT);
	t0 = gf_now_ns();
	out->start_s = t0 > c->origin_ns ? (t0 - c->origin_ns) / 1e9 : 0;
	gf_progress_burst_begin(c->progress, restore);
	if (shared)
		rc = shared_file(c, index, owner, restore, &t, msg, sizeof(msg));
	else
		rc = file_per_rank(c, index, owner, restore, &t, msg, sizeof(msg));
	t.total_s = (gf_now_ns() - t0) / 1e9;
	/* After the timing: which server holds the shard ("which server held the slowest
	 * shard", and the placement gpufeed simulate models). Before the ranks agree: no rank
	 * leaves that agreement before every rank asked, so none deletes its shard (keep
	 * false) while another still asks where it lies; the gather below is no such bound,
	 * its non-root ranks may leave early (a CI run lost a restore row's server so). */
	if (!rc && !shared)
		shard_servers(c, index, owner, server, sizeof(server));
	rc = gf_world_agree_on(GF_COMM_CKPT, rc, msg, err, errlen);
	gf_progress_burst_end(c->progress);
	if (!rc && !restore && c->hook && c->rank == 0)
		c->hook->written(c->hook->arg);
	if (rc)
		server[0] = '\0'; /* another rank failed: no placement for a burst that failed */

	gf_world_gather_bytes_on(GF_COMM_CKPT, &t, sizeof(t), all);
	gf_world_gather_bytes_on(GF_COMM_CKPT, server, sizeof(server), servers);
	if (c->rank == 0)
		gf_ckpt_burst_merge(all, c->world, out);
	free(all);
	out->rank_server = servers;
	if (c->w->checkpoint.rank_sync)
		gf_world_barrier_on(GF_COMM_CKPT);
	return rc;
}

void gf_ckpt_burst_free(struct gf_ckpt_burst *b)
{
	free(b->rank_s);
	b->rank_s = NULL;
	free(b->rank_detail);
	b->rank_detail = NULL;
	free(b->rank_server);
	b->rank_server = NULL;
}

/* One delete of gf_ckpt_remove: a failure is counted in cnt (count, bytes) and the first
 * named in where. ENOENT is no failure: a burst stopped early never made the file. */
static int remove_one(int rc, const char *path, uint64_t bytes, uint64_t cnt[2], char *where, size_t len)
{
	if (!rc || rc == -ENOENT)
		return 0;
	cnt[0]++;
	cnt[1] += bytes;
	if (!where[0])
		snprintf(where, len, "%s: %s%s%s", path, strerror(-rc), gf_ns_detail()[0] ? " - " : "",
			 gf_ns_detail());
	return rc;
}

int gf_ckpt_remove(const struct gf_ckpt_cfg *c, unsigned index, struct gf_ckpt_cleanup *cl)
{
	const struct gf_ckpt_layout_def *def = gf_ckpt_layout_def(c->layout);
	char path[4300], mine[1024] = "", first[1024];
	uint64_t cnt[2] = { 0, 0 };
	int rc = 0, urc;

	if (def->per_rank) {
		struct gf_model_share s;
		uint64_t bytes;
		int g;
		gf_model_share(c->w, c->m, c->rank, &s);
		for (unsigned i = 0; shard_file(c, &s, i, &g, &bytes); i++) {
			shard_path(c, index, c->rank, g, path, sizeof(path));
			urc = remove_one(gf_ns_unlink(path), path, bytes, cnt, mine, sizeof(mine)); /* local, gluster://, s3:// */
			if (urc && !rc)
				rc = urc;
		}
	}
	/* Every rank's files are gone (or counted) before rank 0 removes the folder. */
	gf_world_agree_on(GF_COMM_CKPT, cnt[0] ? -EIO : 0, mine, first, sizeof(first));
	if (c->rank == 0) {
		char dir[4200];
		gf_ckpt_dir(c, index, dir, sizeof(dir));
		/* Only the shared layouts make one (on S3 it would cost a DELETE). */
		if (!def->per_rank) {
			snprintf(path, sizeof(path), "%s/%s", dir, def->file);
			urc = remove_one(gf_ns_unlink(path), path, 0, cnt, mine, sizeof(mine));
			if (urc && !rc)
				rc = urc;
		}
		/* A folder that stays because its files did is counted with them. */
		urc = gf_ns_rmdir(dir);
		if (!(urc == -ENOTEMPTY && cnt[0]))
			urc = remove_one(urc, dir, 0, cnt, mine, sizeof(mine));
		if (urc && !rc)
			rc = urc;
	}
	gf_world_allsum_u64_on(GF_COMM_CKPT, cnt, 2);
	if (cl && cnt[0]) {
		cl->failed += cnt[0];
		cl->bytes_left += cnt[1];
		if (!cl->where[0])
			snprintf(cl->where, sizeof(cl->where), "%s", first[0] ? first : mine);
	}
	return rc;
}

void gf_ckpt_remove_deferred(const struct gf_ckpt_cfg *c, struct gf_ckpt_phase *ph)
{
	for (unsigned i = 0; i < ph->remove_n; i++)
		gf_ckpt_remove(c, ph->remove_from + i, &ph->cleanup);
	ph->remove_n = 0;
}

int gf_ckpt_phase_add(struct gf_ckpt_phase *ph, struct gf_ckpt_burst *b)
{
	if (ph->nbursts == ph->cap) {
		unsigned cap = ph->cap ? ph->cap * 2 : 8;
		void *p = realloc(ph->bursts, cap * sizeof(*ph->bursts));
		if (!p) {
			gf_ckpt_burst_free(b);
			return -ENOMEM;
		}
		ph->bursts = p;
		ph->cap = cap;
	}
	ph->bursts[ph->nbursts++] = *b;
	b->rank_s = NULL;
	b->rank_detail = NULL;
	b->rank_server = NULL;
	return 0;
}

void gf_ckpt_phase_free(struct gf_ckpt_phase *ph)
{
	for (unsigned i = 0; i < ph->nbursts; i++)
		gf_ckpt_burst_free(&ph->bursts[i]);
	free(ph->bursts);
	memset(ph, 0, sizeof(*ph));
}

/* Restore-only: how many kept checkpoints there are, named by the index a keeping run
 * wrote, else probed under the checkpoint-only names. */
static unsigned find_existing(struct gf_ckpt_cfg *k, char (*names)[GF_CKPT_NAME])
{
	unsigned existing = gf_ckpt_read_index(k, names);

	if (existing) {
		k->names = (const char (*)[GF_CKPT_NAME])names;
		k->nnames = existing;
		return existing;
	}
	if (k->rank == 0) {
		char dir[4200];
		for (;; existing++) {
			gf_ckpt_dir(k, existing, dir, sizeof(dir));
			/* S3 has no folders: a checkpoint there is keys under the prefix. */
			if (gf_ns_exists(dir) != 1 && gf_ns_dir_empty(dir) != 0)
				break;
		}
	}
	gf_world_bcast_on(GF_COMM_CKPT, &existing, sizeof(existing), 0);
	return existing;
}

/* Emulated compute before a burst; every rank leaves it and agrees whether to stop. */
static int wait_between(const struct gf_ckpt_cfg *c, double between_s, volatile sig_atomic_t *stop)
{
	double stopped[1];

	gf_progress_pause(c->progress, between_s > 0);
	/* A signal ends the wait at once: time_between_checkpoints may be hours. */
	if (between_s > 0)
		gf_sleep_until_or(gf_now_ns() + gf_s_to_ns(between_s), stop, 0);
	gf_progress_pause(c->progress, false);
	stopped[0] = stop && *stop;
	gf_world_allmax_double_on(GF_COMM_CKPT, stopped, 1);
	return stopped[0] > 0 ? -EINTR : 0;
}

int gf_ckpt_run(const struct gf_ckpt_cfg *c, unsigned nwrite, unsigned nread, double between_s,
		volatile sig_atomic_t *stop, struct gf_ckpt_phase *ph, char *err, size_t errlen)
{
	struct gf_ckpt_cfg k = *c;
	struct gf_ckpt_burst b;
	char (*names)[GF_CKPT_NAME] = NULL;
	unsigned written = 0, existing = 0;
	int rc = 0;

	ph->bytes_per_checkpoint = gf_model_written_bytes(c->w, c->m, c->world);
	ph->verified = nread > 0 && c->w->checkpoint.verify;
	/* Restore-only (num_checkpoints_write: 0) reads what an earlier run kept, the way MLPerf
	 * Storage runs its read phase separately. */
	if (nwrite == 0) {
		names = calloc(GF_CKPT_INDEX_MAX, GF_CKPT_NAME);
		rc = gf_world_agree_on(GF_COMM_CKPT, names ? 0 : -ENOMEM, "out of memory", err, errlen);
		if (rc) {
			free(names);
			return rc;
		}
		existing = find_existing(&k, names);
		if (!existing && nread) {
			snprintf(err, errlen, "no checkpoint to restore in %s: write some first "
				 "(checkpoint.num_checkpoints_write > 0 with checkpoint.keep: true)", c->root);
			free(names);
			return -ENOENT;
		}
	}
	/* DLIO (mlperf_storage_v2.0 main.py:278-282) computes time_between_checkpoints before
	 * every write, the first too; the burst's barrier lines the ranks up. */
	for (unsigned i = 0; i < nwrite && !rc; i++) {
		rc = wait_between(c, between_s, stop);
		if (rc)
			break;
		rc = gf_ckpt_burst(&k, i, false, &b, err, errlen);
		/* Even a failed burst made its folder; count it so it is removed below. */
		written++;
		/* A burst a signal cut short measured nothing. */
		if (rc == -EINTR)
			gf_ckpt_burst_free(&b);
		else if (gf_ckpt_phase_add(ph, &b) && !rc)
			rc = -ENOMEM;
	}
	/* main.py:299-303: and before every read, checkpoints read in the order written. */
	for (unsigned i = 0; i < nread && (written || existing) && !rc; i++) {
		rc = wait_between(c, between_s, stop);
		if (rc)
			break;
		rc = gf_ckpt_burst(&k, i % (written ? written : existing), true, &b, err, errlen);
		if (rc == -EINTR)
			gf_ckpt_burst_free(&b);
		else if (gf_ckpt_phase_add(ph, &b) && !rc)
			rc = -ENOMEM;
	}
	if (rc)
		ph->verified = false;
	/* Leave nothing behind unless asked: only what this run wrote, inside gpufeed's folder.
	 * Stopped by a signal, the summary goes first and the driver removes them after. */
	if (rc == -EINTR && !c->w->checkpoint.keep) {
		ph->remove_from = 0;
		ph->remove_n = written;
	}
	for (unsigned i = 0; i < written && !c->w->checkpoint.keep && rc != -EINTR; i++)
		gf_ckpt_remove(&k, i, &ph->cleanup);
	if (written && c->w->checkpoint.keep && c->rank == 0)
		gf_ckpt_write_index(&k, written);
	free(names);
	return rc;
}
