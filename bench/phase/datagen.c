/* datagen: see datagen.h. */
#include "phase/datagen.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/clock.h"
#include "stats/meter.h"
#include "config.h"
#include "model/dist.h"
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
	gf_rng_seed(&rng, 0xda7a5eedull ^ (uint64_t)rank);
	for (uint64_t f = (uint64_t)rank; f < p->files; f += (uint64_t)ranks) {
		uint64_t size = gf_plan_file_size(p, f), fh;

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
		for (uint64_t off = 0; off < size && !rc; off += bufsz) {
			size_t len = size - off < bufsz ? (size_t)(size - off) : bufsz;
			void *buf = gf_engine_write_buf(&eng);
			if (!buf) {
				rc = eng.error ? eng.error : -EIO;
				break;
			}
			gf_rng_fill(&rng, buf, len);
			rc = gf_engine_write(&eng, fh, off, len, buf);
		}
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
	gf_engine_destroy(&eng);
out_io:
	gf_io_close_backend(io);
	return rc;
}
