/* datagen: see datagen.h. */
#include "datagen.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "dist.h"
#include "engine.h"
#include "io/ns.h"
#include "target.h"

struct json_object *gf_dataset_manifest(const struct gf_workload *w, const struct gf_plan *p)
{
	struct json_object *m = json_object_new_object();

	if (!m)
		return NULL;
	json_object_object_add(m, "schema", json_object_new_string("gpufeed.dataset/1"));
	json_object_object_add(m, "format", json_object_new_string(w->dataset.format));
	json_object_object_add(m, "file_prefix", json_object_new_string(w->dataset.file_prefix));
	json_object_object_add(m, "num_files_train", json_object_new_uint64(p->files));
	json_object_object_add(m, "num_samples_per_file", json_object_new_uint64(p->samples_per_file));
	json_object_object_add(m, "record_length_bytes", json_object_new_uint64(p->mean_bytes));
	json_object_object_add(m, "record_length_bytes_stdev", json_object_new_uint64(p->stdev_bytes));
	json_object_object_add(m, "num_subfolders_train",
			       json_object_new_int64(w->dataset.num_subfolders_train));
	json_object_object_add(m, "size_seed", json_object_new_uint64(p->size_seed));
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
		struct json_object *h;
		if (!json_object_object_get_ex(have, key, &h) ||
		    strcmp(json_object_get_string(h), json_object_get_string(val))) {
			snprintf(why, whylen, "the dataset in %s was generated with %s = %s, the workload "
				 "asks for %s", root, key, h ? json_object_get_string(h) : "(none)",
				 json_object_get_string(val));
			st = GF_DATASET_MISMATCH;
			break;
		}
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

int gf_datagen_run(const struct gf_workload *w, const struct gf_plan *p, const struct gf_io_ops *ops,
		   const char *root, int rank, int ranks, struct gf_series *series,
		   struct gf_datagen_result *res, char *err, size_t errlen)
{
	struct gf_io_config cfg = { .queue_depth = (unsigned)w->target.queue_depth, .direct = false };
	size_t bufsz = w->dataset.generation_buffer_size ? w->dataset.generation_buffer_size : (2u << 20);
	struct gf_io *io = NULL;
	struct gf_engine eng;
	struct gf_rng rng;
	char path[4200];
	uint64_t t0 = gf_now_ns();
	int rc;

	memset(res, 0, sizeof(*res));
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

		rc = gf_plan_file_path(w, p, root, f, path, sizeof(path));
		if (rc) {
			snprintf(err, errlen, "file name too long under %s", root);
			break;
		}
		rc = io->ops->open(io, path, GF_O_WRITE, &fh);
		if (rc) {
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(-rc));
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
			snprintf(err, errlen, "writing %s: %s", path,
				 eng.errmsg[0] ? eng.errmsg : strerror(-rc));
			break;
		}
		res->files++;
	}
	res->bytes = eng.bytes;
	res->elapsed_s = (double)(gf_now_ns() - t0) / 1e9;
	gf_engine_destroy(&eng);
out_io:
	gf_io_close_backend(io);
	return rc;
}
