/* datagen: see datagen.h. */
#include "phase/datagen.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "stats/clock.h"
#include "stats/meter.h"
#include "config.h"
#include "model/dist.h"
#include "model/fformat.h"
#include "io/engine.h"
#include "io/ns.h"
#ifdef HAVE_HDF5
#include "io/h5rows.h"
#endif

struct json_object *gf_dataset_manifest(const struct gf_workload *w, const struct gf_plan *p)
{
	struct json_object *m = json_object_new_object();

	if (!m)
		return NULL;
	json_object_object_add(m, "schema", json_object_new_string("gpufeed.dataset/1"));
	json_object_object_add(m, "format", json_object_new_string(gf_format_name(w->dataset.format)));
	json_object_object_add(m, "file_prefix", json_object_new_string(w->dataset.file_prefix));
	json_object_object_add(m, "num_files_train", json_object_new_uint64(p->files));
	json_object_object_add(m, "num_samples_per_file", json_object_new_uint64(p->samples_per_file));
	json_object_object_add(m, "record_length_bytes", json_object_new_uint64(p->mean_bytes));
	json_object_object_add(m, "record_length_bytes_stdev", json_object_new_uint64(p->stdev_bytes));
	json_object_object_add(m, "num_subfolders_train",
			       json_object_new_int64(w->dataset.num_subfolders_train));
	json_object_object_add(m, "size_seed", json_object_new_uint64(p->size_seed));
	/* Files written as their framework writes them, samples sized by DLIO's dims
	 * (model/fformat.h): a dataset of raw bytes from before lacks the key and is
	 * regenerated. */
	json_object_object_add(m, "file_layout", json_object_new_string("framework/1"));
	/* Only for hdf5, so that the manifests of other formats stay as they were; a dataset
	 * of plain records named .hdf5 (before HDF5 files) lacks the key and is regenerated. */
	if (p->layout == GF_LAYOUT_ROWS) {
		json_object_object_add(m, "hdf5_layout", json_object_new_string("rows/1"));
		json_object_object_add(m, "enable_chunking", json_object_new_boolean(p->rows_chunked));
		json_object_object_add(m, "chunk_size", json_object_new_uint64(p->rows_chunk_bytes));
	}
	/* The objects' keys depend on it (s3spread.h); only when on, like hdf5_layout. */
	if (w->target.prefix_spread > 1)
		json_object_object_add(m, "prefix_spread", json_object_new_int64(w->target.prefix_spread));
	return m;
}

enum gf_dataset_state gf_dataset_check(const struct gf_workload *w, const struct gf_plan *p,
				       const char *root, char *why, size_t whylen)
{
	char path[4200];
	struct json_object *have, *want;
	enum gf_dataset_state st = GF_DATASET_OK;

	snprintf(path, sizeof(path), "%s/%s", root, GF_MANIFEST);
	if (gf_ns_exists(path) != 1) {
		snprintf(why, whylen, "%s has no gpufeed dataset (no %s)", root, GF_MANIFEST);
		return GF_DATASET_MISSING;
	}
	have = gf_ns_json_from_file(path);
	want = gf_dataset_manifest(w, p);
	if (!have || !want) {
		snprintf(why, whylen, "%s cannot be read", path);
		st = GF_DATASET_MISMATCH;
		goto out;
	}
	json_object_object_foreach(want, key, val) {
		struct json_object *h = NULL;
		/* A null (or missing) value in a hand-edited manifest is a difference, no crash. */
		const char *hs = json_object_object_get_ex(have, key, &h) ? json_object_get_string(h) : NULL;
		if (!hs || strcmp(hs, json_object_get_string(val))) {
			snprintf(why, whylen, "the dataset in %s was generated with %s = %s, the workload "
				 "asks for %s", root, key, hs ? hs : "(none)", json_object_get_string(val));
			st = GF_DATASET_MISMATCH;
			break;
		}
	}
	/* A spread dataset read without the spread would find none of its objects. */
	if (st == GF_DATASET_OK && json_object_object_get_ex(have, "prefix_spread", NULL) &&
	    !json_object_object_get_ex(want, "prefix_spread", NULL)) {
		snprintf(why, whylen, "the dataset in %s was generated with target.prefix_spread = %s, the "
			 "workload asks for none", root, json_object_to_json_string(json_object_object_get(have,
			 "prefix_spread")));
		st = GF_DATASET_MISMATCH;
	}
out:
	json_object_put(have);
	json_object_put(want);
	return st;
}

int gf_dataset_write_manifest(const struct gf_workload *w, const struct gf_plan *p,
			      const char *root)
{
	char path[4200];
	struct json_object *m = gf_dataset_manifest(w, p);
	int rc;

	if (!m)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", root, GF_MANIFEST);
	/* Written under a temporary name and renamed, locally or on a gluster:// target. */
	rc = gf_ns_json_to_file(path, m);
	json_object_put(m);
	return rc;
}

int gf_dataset_forget(const char *root)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", root, GF_MANIFEST);
	return gf_ns_unlink(path);
}

int gf_datagen_folders(const struct gf_workload *w, const char *root, char *err, size_t errlen)
{
	char path[4200];
	int64_t nsub = w->dataset.num_subfolders_train;
	int rc;

	for (int64_t i = 0; i < (nsub > 0 ? nsub : 1); i++) {
		if (nsub > 0)
			snprintf(path, sizeof(path), "%s/train/%lld", root, (long long)i);
		else
			snprintf(path, sizeof(path), "%s/train", root);
		rc = gf_ns_mkdirs(path);
		if (rc) {
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

#ifdef HAVE_HDF5
/* A class label per sample, a function of its id (as a real training set's labels are of
 * its samples). */
static uint32_t sample_label(uint64_t id)
{
	id += 0x9e3779b97f4a7c15ull;
	id = (id ^ (id >> 30)) * 0xbf58476d1ce4e5b9ull;
	id = (id ^ (id >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((id ^ (id >> 31)) % 1000);
}

/* One HDF5 file: records written a buffer of whole rows at a time (or a row in pieces
 * when a row is larger than the buffer), then lengths and labels. */
static int write_rows_file(const struct gf_plan *p, uint64_t f, const char *path, uint8_t *buf,
			   size_t bufsz, struct gf_rng *rng, struct gf_series *series, uint64_t *bytes,
			   char *detail, size_t dlen)
{
	enum { META = 4096 };
	uint64_t rows = p->samples_per_file, width = gf_plan_row_bytes(p, f);
	uint64_t per = bufsz / width, lengths[META];
	uint32_t labels[META];
	struct gf_h5_rows *h;
	int rc, crc;

	rc = gf_h5_rows_create(path, rows, width, gf_plan_chunk_rows(p, f), &h, detail, dlen);
	if (rc)
		return rc;
	for (uint64_t r = 0; r < rows && !rc;) {
		uint64_t n = per ? (rows - r < per ? rows - r : per) : 1;

		for (uint64_t col = 0; col < width && !rc;) {
			uint64_t len = per ? width : (width - col < bufsz ? width - col : bufsz);
			gf_rng_fill(rng, buf, n * len);
			rc = gf_h5_rows_write(h, r, n, col, len, buf, detail, dlen);
			if (!rc && series) {
				gf_series_add(series, gf_now_ns(), GF_TS_WRITE_BYTES, n * len);
				gf_series_add(series, gf_now_ns(), GF_TS_REQUESTS, 1);
			}
			*bytes += rc ? 0 : n * len;
			if (!rc)
				gf_meter_add(GF_METER_WRITE, n * len);
			col += len;
		}
		r += n;
	}
	for (uint64_t r = 0; r < rows && !rc; r += META) {
		uint64_t n = rows - r < META ? rows - r : META;
		for (uint64_t i = 0; i < n; i++) {
			lengths[i] = gf_plan_sample_size(p, f, r + i);
			labels[i] = sample_label(f * rows + r + i);
		}
		rc = gf_h5_rows_write_meta(h, r, n, lengths, labels, detail, dlen);
	}
	crc = gf_h5_rows_close(h, detail, dlen);
	return rc ? rc : crc;
}
#endif

/* dataset.format hdf5: files written through the HDF5 library, whatever the engine. */
/* Before each file: a signal or the deadline ends datagen there (-EINTR). */
static int stopped(volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	if (!stop || !*stop)
		return 0;
	snprintf(err, errlen, "stopped before the dataset was complete");
	return -EINTR;
}

static int datagen_rows(const struct gf_workload *w, const struct gf_plan *p, const char *root,
			int rank, int ranks, volatile sig_atomic_t *stop, struct gf_series *series,
			struct gf_datagen_result *res, char *err, size_t errlen)
{
#ifdef HAVE_HDF5
	size_t bufsz = w->dataset.generation_buffer_size ? w->dataset.generation_buffer_size : (2u << 20);
	struct gf_rng rng;
	char path[4200], detail[512];
	uint64_t t0 = gf_now_ns();
	uint8_t *buf = malloc(bufsz);
	int rc = 0;

	if (!buf) {
		snprintf(err, errlen, "out of memory for a %zu-byte write buffer", bufsz);
		return -ENOMEM;
	}
	/* The same incompressible bytes as the other formats. */
	gf_rng_seed(&rng, 0xda7a5eedull ^ (uint64_t)rank);
	for (uint64_t f = (uint64_t)rank; f < p->files; f += (uint64_t)ranks) {
		if ((rc = stopped(stop, err, errlen)))
			break;
		rc = gf_plan_file_path(w, p, root, f, path, sizeof(path));
		if (rc) {
			snprintf(err, errlen, "file name too long under %s", root);
			break;
		}
		detail[0] = '\0';
		rc = write_rows_file(p, f, path, buf, bufsz, &rng, series, &res->bytes, detail, sizeof(detail));
		if (rc) {
			snprintf(err, errlen, "writing %s: %s", path, detail[0] ? detail : strerror(-rc));
			break;
		}
		res->files++;
	}
	res->elapsed_s = (double)(gf_now_ns() - t0) / 1e9;
	free(buf);
	return rc;
#else
	(void)w;
	(void)p;
	(void)root;
	(void)rank;
	(void)ranks;
	(void)stop;
	(void)series;
	(void)res;
	snprintf(err, errlen, "dataset.format hdf5: this build of gpufeed has no HDF5 (install "
		 "libhdf5-openmpi-dev and rebuild)");
	return -EPROTONOSUPPORT;
#endif
}

/* --- files as their framework writes them (model/fformat.h) --- */

/* Bytes go out through the engine's write buffers, front to back. A dry writer goes
 * through the same buffer boundaries in a scratch buffer and writes nothing: the random
 * payload depends on them (gf_rng_fill draws whole words per call). */
struct fwriter {
	struct gf_engine *eng;
	uint8_t *scratch;       /* dry: the buffer */
	uint64_t fh, off;
	uint8_t *buf;
	size_t used, cap;
};

static int fw_flush(struct fwriter *w)
{
	int rc = 0;

	if (w->buf && w->used && !w->scratch)
		rc = gf_engine_write(w->eng, w->fh, w->off, w->used, w->buf);
	w->off += w->buf ? w->used : 0;
	w->buf = NULL;
	return rc;
}

/* Room for at least one byte; a buffer of up to want bytes at *dst, n of them. */
static int fw_room(struct fwriter *w, size_t want, uint8_t **dst, size_t *n)
{
	if (w->buf && w->used == w->cap) {
		int rc = fw_flush(w);
		if (rc)
			return rc;
	}
	if (!w->buf) {
		w->buf = w->scratch ? w->scratch : gf_engine_write_buf(w->eng);
		if (!w->buf)
			return w->eng->error ? w->eng->error : -EIO;
		w->used = 0;
	}
	*dst = w->buf + w->used;
	*n = w->cap - w->used < want ? w->cap - w->used : want;
	w->used += *n;
	return 0;
}

static int fw_put(struct fwriter *w, const uint8_t *src, size_t len)
{
	while (len) {
		uint8_t *dst;
		size_t n;
		int rc = fw_room(w, len, &dst, &n);
		if (rc)
			return rc;
		memcpy(dst, src, n);
		src += n;
		len -= n;
	}
	return 0;
}

/* len incompressible payload bytes, summed into crc (CRC-32) and crc32c as they go. */
static int fw_payload(struct fwriter *w, const struct gf_plan *p, struct gf_rng *rng, uint64_t len,
		      uint32_t *crc, uint32_t *crc32c)
{
	while (len) {
		uint8_t *dst;
		size_t n;
		int rc = fw_room(w, len, &dst, &n);
		if (rc)
			return rc;
		gf_rng_fill(rng, dst, n);
		gf_ff_payload_fix(p, dst, n);
		*crc = (uint32_t)crc32(*crc, dst, (uInt)n);
		if (p->format == GF_FMT_TFRECORD)
			*crc32c = gf_ff_crc32c(*crc32c, dst, n);
		len -= n;
	}
	return 0;
}

/* After the head: each record's framing around its payload; *crc gets the payload's
 * CRC-32. */
static int fw_records(struct fwriter *w, const struct gf_plan *p, uint64_t f, uint64_t sample,
		      struct gf_rng *rng, uint32_t *crc)
{
	uint8_t frame[GF_FF_FRAME];
	int rc = 0;

	*crc = 0;
	for (uint64_t j = 0; j < p->samples_per_file && !rc; j++) {
		uint32_t rcrc = gf_ff_rec_crc_begin(p, f);
		rc = fw_put(w, frame, gf_ff_rec_head(p, f, frame));
		if (!rc)
			rc = fw_payload(w, p, rng, sample, crc, &rcrc);
		if (!rc)
			rc = fw_put(w, frame, gf_ff_rec_tail(p, f, rcrc, frame));
	}
	return rc;
}

/* File f: head, records, tail. A head that carries the payload's CRC (npz) gets it from
 * a dry pass over a copy of rng first. */
static int write_file(const struct gf_plan *p, uint64_t f, struct gf_engine *eng, uint64_t fh,
		      struct gf_rng *rng, uint8_t *scratch, size_t bufsz)
{
	struct fwriter w = { .eng = eng, .fh = fh, .cap = bufsz };
	struct gf_ff_layout l;
	uint8_t frame[GF_FF_FRAME], *tail;
	size_t head = gf_ff_head(p, f, 0, frame);
	uint32_t crc = 0;
	int rc = 0;

	gf_ff_layout(p, f, &l);
	if (scratch) {
		struct fwriter dry = { .scratch = scratch, .cap = bufsz };
		struct gf_rng copy = *rng;
		if (fw_put(&dry, frame, head) == 0)
			fw_records(&dry, p, f, l.sample, &copy, &crc);
	}
	tail = malloc(l.tail ? l.tail : 1);
	if (!tail)
		return -ENOMEM;
	rc = fw_put(&w, frame, gf_ff_head(p, f, crc, frame));
	if (!rc)
		rc = fw_records(&w, p, f, l.sample, rng, &crc);
	if (!rc)
		rc = fw_put(&w, tail, gf_ff_tail(p, f, crc, tail));
	if (!rc)
		rc = fw_flush(&w);
	free(tail);
	return rc;
}

int gf_datagen_run(const struct gf_workload *w, const struct gf_plan *p, const struct gf_io_ops *ops,
		   const char *root, int rank, int ranks, volatile sig_atomic_t *stop, struct gf_series *series,
		   struct gf_datagen_result *res, char *err, size_t errlen)
{
	/* Object stores: queue_depth objects on the wire at once (close() returns before the
	 * PUT ends); flush() below waits for them. */
	unsigned depth = w->target.queue_depth > 0 ? (unsigned)w->target.queue_depth : GF_WRITE_DEPTH;
	struct gf_io_config cfg = { .queue_depth = depth, .direct = false };
	size_t bufsz = w->dataset.generation_buffer_size ? w->dataset.generation_buffer_size : (2u << 20);
	struct gf_io *io = NULL;
	struct gf_engine eng;
	struct gf_rng rng;
	char path[4200];
	uint64_t t0 = gf_now_ns();
	uint8_t *scratch = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	if (p->layout == GF_LAYOUT_ROWS)
		return datagen_rows(w, p, root, rank, ranks, stop, series, res, err, errlen);
	rc = gf_io_open_backend(ops, &cfg, &io);
	if (rc) {
		snprintf(err, errlen, "engine %s: cannot start: %s", ops->name, strerror(-rc));
		return rc;
	}
	rc = gf_engine_init(&eng, io, cfg.queue_depth, bufsz, 4096, NULL);
	if (rc) {
		snprintf(err, errlen, "out of memory for %zu-byte write buffers", bufsz);
		goto out_io;
	}
	eng.series = series;
	scratch = gf_ff_head_needs_crc(p) ? malloc(bufsz) : NULL;
	if (gf_ff_head_needs_crc(p) && !scratch) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for a %zu-byte buffer", bufsz);
		goto out_eng;
	}
	gf_rng_seed(&rng, 0xda7a5eedull ^ (uint64_t)rank);
	for (uint64_t f = (uint64_t)rank; f < p->files; f += (uint64_t)ranks) {
		uint64_t fh;

		if ((rc = stopped(stop, err, errlen)))
			break;
		rc = gf_plan_file_path(w, p, root, f, path, sizeof(path));
		if (rc) {
			snprintf(err, errlen, "file name too long under %s", root);
			break;
		}
		/* An object's PUT may still be on the wire when close() returns (flush waits);
		 * but a run that deletes what it stored (keep_files false) counts only objects
		 * known stored, so a failed or cancelled upload never has an earlier object of
		 * its name deleted (res->files, run/owned.h). */
		rc = io->ops->open(io, path, GF_O_WRITE | (w->dataset.keep_files ? GF_O_ASYNC_CLOSE : 0), &fh);
		if (rc) {
			snprintf(err, errlen, "cannot create %s: %s", path, rc == -ELOOP
				 ? "it is a symbolic link, and gpufeed does not write through links in its folders "
				   "(remove the link)" : rc == -ENXIO ? "not a regular file (a FIFO, socket or device): "
				   "gpufeed writes regular files only (remove it)" : strerror(-rc));
			break;
		}
		rc = write_file(p, f, &eng, fh, &rng, scratch, bufsz);
		int drc = gf_engine_drain(&eng);
		if (!rc)
			rc = drc;
		int crc = io->ops->close(io, fh);
		if (!rc)
			rc = crc;
		if (rc) {
			/* A deferred close reports an earlier object's failure: detail names it. */
			snprintf(err, errlen, "writing %s: %s", path,
				 eng.errmsg[0] ? eng.errmsg : io->detail[0] ? io->detail : strerror(-rc));
			break;
		}
		res->files++;
	}
	/* Stored before the time is taken and before rank 0 writes the manifest. */
	if (io->ops->flush) {
		int frc = io->ops->flush(io);
		if (frc && !rc) {
			rc = frc;
			snprintf(err, errlen, "writing under %s: %s", root, io->detail[0] ? io->detail : strerror(-frc));
		}
	}
	res->bytes = eng.bytes;
	res->elapsed_s = (double)(gf_now_ns() - t0) / 1e9;
	free(scratch);
out_eng:
	gf_engine_destroy(&eng);
out_io:
	gf_io_close_backend(io);
	return rc;
}
