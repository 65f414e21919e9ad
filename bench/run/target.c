/* target: see target.h. */
#include "run/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "config.h"
#include "io/io.h"
#include "io/ns.h"
#ifdef HAVE_GFAPI
#include "io/gfapi.h"
#endif
#include "io/s3/s3.h"
#ifdef HAVE_CURL
#include "io/s3/conf.h"
#include "io/s3/spread.h"
#endif

/* A gluster:// target: the data folder stays a URI (every file name is joined to it and
 * the gfapi backend and io/ns resolve it), read and written through libgfapi. */
static int resolve_remote(const struct gf_workload *w, const char *engine, const char *cli_engine,
			  struct gf_target *t, char *err, size_t errlen)
{
#ifdef HAVE_GFAPI
	if (gf_gfapi_check_uri(t->uri, err, errlen))
		return -EINVAL;
	snprintf(t->root, sizeof(t->root), "%s", t->uri);
	for (size_t l = strlen(t->root); l > 1 && t->root[l - 1] == '/'; l--)
		t->root[l - 1] = '\0';
	if (engine && *engine && strcmp(engine, "gfapi") && strcmp(engine, "null")) {
		snprintf(err, errlen, "target %s: engine '%s' reads local paths; a gluster:// target is read "
			 "with the gfapi engine, or give the FUSE mount's path to use %s", t->uri, engine, engine);
		return -EINVAL;
	}
	/* MPI-IO and HDF5 open paths through the kernel: they need the FUSE mount. */
	if (w->workflow.checkpoint && strcmp(w->checkpoint.layout, "file_per_rank") &&
	    strcmp(w->checkpoint.layout, "object_per_rank")) {
		snprintf(err, errlen, "target %s: checkpoint.layout %s goes through MPI-IO, which cannot open "
			 "gluster:// URIs; use file_per_rank, or the FUSE mount's path", t->uri,
			 w->checkpoint.layout);
		return -EINVAL;
	}
	snprintf(t->engine, sizeof(t->engine), "%s", engine && *engine ? engine : "gfapi");
	snprintf(t->engine_reason, sizeof(t->engine_reason), "%s", !engine || !*engine
		 ? "default for a gluster:// target (libgfapi, no FUSE)"
		 : cli_engine && *cli_engine ? "--engine" : "target.engine in the workload");
	snprintf(t->kind, sizeof(t->kind), "%s", strcmp(t->engine, "null") ? "gluster" : "null");
	return 0;
#else
	(void)w;
	(void)engine;
	(void)cli_engine;
	snprintf(err, errlen, "target %s: this build of gpufeed has no libgfapi (install libglusterfs-dev "
		 "and rebuild), or give the path of the volume's FUSE mount", t->uri);
	return -EINVAL;
#endif
}

#ifdef HAVE_CURL
/* An s3:// target: resolve the endpoint and credentials (s3conf), set up the s3 engine,
 * pick the engine, and refuse what S3 targets cannot do (shared-file checkpoint layouts).
 * Returns 0 or -EINVAL with a message (never a secret in it). */
static int resolve_s3(const struct gf_workload *w, const char *engine, const char *cli_engine,
		      struct gf_target *t, char *err, size_t errlen)
{
	struct gf_s3conf c;
	char bucket[256];
	const char *key;
	int rc;

	snprintf(t->root, sizeof(t->root), "%s", t->uri);
	for (size_t l = strlen(t->root); l > 5 && t->root[l - 1] == '/'; l--)
		t->root[l - 1] = '\0';
	if (gf_s3_split(t->root, bucket, sizeof(bucket), &key)) {
		snprintf(err, errlen, "target %s: expected s3://bucket/prefix", t->uri);
		return -EINVAL;
	}
	if (engine && *engine && strcmp(engine, "s3") && strcmp(engine, "null")) {
		snprintf(err, errlen, "target %s: engine '%s' reads local paths; an s3:// target is read "
			 "with the s3 engine", t->uri, engine);
		return -EINVAL;
	}
	/* MPI-IO and HDF5 open paths through the kernel, never s3://. */
	if (w->workflow.checkpoint && strcmp(w->checkpoint.layout, "file_per_rank") &&
	    strcmp(w->checkpoint.layout, "object_per_rank")) {
		snprintf(err, errlen, "target %s: checkpoint.layout %s writes one shared file through MPI-IO, "
			 "which cannot reach s3://; use object_per_rank (the default on s3://)", t->uri,
			 w->checkpoint.layout);
		return -EINVAL;
	}
	rc = gf_s3conf_resolve(&w->storage.options, &c, err, errlen);
	if (rc)
		return rc;
	/* s3_insecure (--insecure) is warned about by rank 0 (run.c), not by every rank. */
	rc = gf_s3_setup(&c);
	gf_s3conf_clear(&c);
	if (rc) {
		snprintf(err, errlen, "cannot set up the s3 engine: %s", strerror(-rc));
		return rc;
	}
	if (gf_s3_spread_setup(t->root, (unsigned)w->target.prefix_spread)) {
		snprintf(err, errlen, "target %s: target.prefix_spread %lld: expected 0 to %u", t->uri,
			 (long long)w->target.prefix_spread, GF_S3SPREAD_MAX);
		return -EINVAL;
	}
	snprintf(t->engine, sizeof(t->engine), "%s", engine && *engine ? engine : "s3");
	snprintf(t->engine_reason, sizeof(t->engine_reason), "%s", !engine || !*engine
		 ? "default for an s3:// target (libcurl multi)"
		 : cli_engine && *cli_engine ? "--engine" : "target.engine in the workload");
	snprintf(t->kind, sizeof(t->kind), "%s", strcmp(t->engine, "null") ? "s3" : "null");
	return 0;
}
#endif

/* dataset.format hdf5 is read with hyperslabs through the HDF5 library: the hdf5 engine
 * is chosen for it (null still reads nothing); an engine that reads plain bytes would
 * read HDF5 metadata as samples, so asking for one is an error. Checkpoints written
 * with file_per_rank go through the default local engine (run.c). */
static int hdf5_engine(const char *engine, const char *cli_engine, struct gf_target *t, char *err,
		       size_t errlen)
{
	const char *given = cli_engine && *cli_engine ? "--engine" : "target.engine in the workload";

	if (!gf_io_find("hdf5")) {
		snprintf(err, errlen, "dataset.format hdf5 is read through the HDF5 library, and this build "
			 "of gpufeed has none (install libhdf5-openmpi-dev and rebuild)");
		return -EINVAL;
	}
	if (engine && *engine && !gf_io_find(engine)) {
		snprintf(err, errlen, "unknown engine '%s': built-in engines are %s", engine, gf_io_names());
		return -EINVAL;
	}
	if (engine && *engine && strcmp(engine, "hdf5") && strcmp(engine, "null")) {
		snprintf(err, errlen, "%s %s: dataset.format hdf5 stores samples as rows of an HDF5 dataset, "
			 "read with hyperslabs by the hdf5 engine; the %s engine reads plain files. Leave the "
			 "engine out (hdf5 is chosen for this format), or pick hdf5 or null", given, engine, engine);
		return -EINVAL;
	}
	snprintf(t->engine, sizeof(t->engine), "%s", engine && *engine ? engine : "hdf5");
	if (engine && *engine)
		snprintf(t->engine_reason, sizeof(t->engine_reason), "%s", given);
	else
		snprintf(t->engine_reason, sizeof(t->engine_reason), "dataset.format hdf5: each sample is one "
			 "hyperslab (a row) of the records dataset, read with H5Dread (sec2 driver, independent "
			 "per rank)");
	snprintf(t->kind, sizeof(t->kind), "%s", strcmp(t->engine, "null") ? "local" : "null");
	return 0;
}

int gf_target_resolve(const struct gf_workload *w, const char *cli_target, const char *cli_engine,
		      struct gf_target *t, char *err, size_t errlen)
{
	const char *uri = cli_target && *cli_target ? cli_target : w->target.path;
	const char *engine = cli_engine && *cli_engine ? cli_engine : w->target.engine;
	const char *path;

	memset(t, 0, sizeof(*t));
	if (!uri || !*uri) {
		/* DLIO's way: storage_root joined with data_folder, unless data_folder is a URI
		 * already: MLPerf's unet3d_h100_s3 names the bucket in both, and DLIO's S3 storage
		 * uses the data folder as the URI (storage/s3_torch_storage.py:78-79 get_uri returns it as is). */
		if (w->storage.storage_root[0] && w->dataset.data_folder[0] != '/' &&
		    !strstr(w->dataset.data_folder, "://"))
			snprintf(t->uri, sizeof(t->uri), "%s/%s", w->storage.storage_root, w->dataset.data_folder);
		else
			snprintf(t->uri, sizeof(t->uri), "%s", w->dataset.data_folder);
	} else {
		snprintf(t->uri, sizeof(t->uri), "%s", uri);
	}
	path = t->uri;
	/* HDF5 opens files through the kernel: no URI it could not open gets this far. */
	if (!strcmp(w->dataset.format, "hdf5") && (gf_s3_is_uri(path) || gf_ns_remote(path))) {
		snprintf(err, errlen, "target %s: dataset.format hdf5 is read through the HDF5 library, "
			 "which opens local and mounted paths only; give the filesystem's mount path", t->uri);
		return -EINVAL;
	}
	/* Request-rate limits per key prefix are an object store's: a file tree has none. */
	if (w->target.prefix_spread > 1 && !gf_s3_is_uri(path)) {
		snprintf(err, errlen, "%s: target.prefix_spread %lld spreads S3 object keys over hashed "
			 "prefixes, and the target %s is not s3://; set it to 0", w->source,
			 (long long)w->target.prefix_spread, t->uri);
		return -EINVAL;
	}
	if (!strncmp(path, "file://", 7)) {
		path += 7;
	} else if (gf_s3_is_uri(path)) {
#ifdef HAVE_CURL
		return resolve_s3(w, engine, cli_engine, t, err, errlen);
#else
		snprintf(err, errlen, "target %s: this build of gpufeed has no libcurl (install "
			 "libcurl4-openssl-dev and libssl-dev, and rebuild)", t->uri);
		return -EINVAL;
#endif
	} else if (!strncmp(path, "gluster://", 10)) {
		return resolve_remote(w, engine, cli_engine, t, err, errlen);
	} else if (strstr(path, "://")) {
		snprintf(err, errlen, "target %s: this build of gpufeed reads local and mounted paths "
			 "(/path or file:///path), gluster:// and s3:// URIs; other schemes are not available",
			 t->uri);
		return -EINVAL;
	}
	if (!*path) {
		snprintf(err, errlen, "no target: give --target PATH or dataset.data_folder");
		return -EINVAL;
	}
	snprintf(t->root, sizeof(t->root), "%s", path);
	/* Trailing slashes make doubled separators in file names. */
	for (size_t l = strlen(t->root); l > 1 && t->root[l - 1] == '/'; l--)
		t->root[l - 1] = '\0';

	if (!strcmp(w->dataset.format, "hdf5"))
		return hdf5_engine(engine, cli_engine, t, err, errlen);
	if (engine && *engine) {
		if (!gf_io_find(engine)) {
			snprintf(err, errlen, "unknown engine '%s': built-in engines are %s", engine,
				 gf_io_names());
			return -EINVAL;
		}
		if (!strcmp(engine, "hdf5")) {
			snprintf(err, errlen, "engine hdf5 reads HDF5 training data (dataset.format hdf5); "
				 "dataset.format is %s, read with the other engines (checkpoints in HDF5: "
				 "checkpoint.layout hdf5)", w->dataset.format);
			return -EINVAL;
		}
		snprintf(t->engine, sizeof(t->engine), "%s", engine);
		snprintf(t->engine_reason, sizeof(t->engine_reason), "%s",
			 cli_engine && *cli_engine ? "--engine" : "target.engine in the workload");
	} else {
		/* uring, then aio, then posix: the first this kernel and process allow. */
		const struct gf_io_ops *def = gf_io_default_local(t->engine_reason, sizeof(t->engine_reason));
		snprintf(t->engine, sizeof(t->engine), "%s", def ? def->name : "posix");
	}
	snprintf(t->kind, sizeof(t->kind), "%s", strcmp(t->engine, "null") ? "local" : "null");
	return 0;
}

static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ 0xEF53, "ext4" },        { 0x58465342, "xfs" },     { 0x01021994, "tmpfs" },
	{ 0x9123683E, "btrfs" },   { 0x6969, "nfs" },         { 0x0BD00BD0, "lustre" },
	{ 0x47504653, "gpfs" },    { 0x65735546, "fuse" },    { 0x794C7630, "overlay" },
	{ 0x2FC12FC1, "zfs" },     { 0xFF534D42, "cifs" },    { 0x00C36400, "ceph" },
	{ 0x5346414F, "afs" },     { 0x73717368, "squashfs" }, { 0x858458F6, "ramfs" },
	{ 0x4244, "hfs" },         { 0xF2F52010, "f2fs" },    { 0x19830326, "beegfs" },
};

/* Walk up to the nearest existing folder. */
static void existing_parent(const char *path, char *buf, size_t len)
{
	struct stat st;

	snprintf(buf, len, "%s", path);
	while (stat(buf, &st) != 0) {
		char *slash = strrchr(buf, '/');
		if (!slash) {
			snprintf(buf, len, ".");
			return;
		}
		if (slash == buf) {
			buf[1] = '\0';
			return;
		}
		*slash = '\0';
	}
}

/* FUSE has one magic for every filesystem behind it: the mount table names the one
 * ("fuse.glusterfs", "fuse.sshfs"). The longest mount point that holds path wins. */
static int fuse_subtype(const char *path, char *buf, size_t len)
{
	char real[4096], line[8192], best[4096] = "";
	size_t bestlen = 0;
	FILE *f;

	if (!realpath(path, real))
		return -errno;
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char dev[4096], mnt[4096], type[256];
		size_t l;
		if (sscanf(line, "%4095s %4095s %255s", dev, mnt, type) != 3)
			continue;
		l = strlen(mnt);
		if (strncmp(real, mnt, l) || (real[l] != '/' && real[l] != '\0' && strcmp(mnt, "/")))
			continue;
		if (l >= bestlen) {
			bestlen = l;
			snprintf(best, sizeof(best), "%s", type);
		}
	}
	fclose(f);
	if (strncmp(best, "fuse", 4))
		return -ENOENT;
	snprintf(buf, len, "%s", best);
	return 0;
}

void gf_target_fs_type(const char *path, char *buf, size_t len)
{
	char p[4096];
	struct statfs sf;

	if (gf_s3_is_uri(path)) {
		snprintf(buf, len, "s3");
		return;
	}
	/* libgfapi is GlusterFS's own client, in this process: no kernel filesystem. */
	if (gf_ns_remote(path)) {
		snprintf(buf, len, "glusterfs");
		return;
	}
	existing_parent(path, p, sizeof(p));
	if (statfs(p, &sf)) {
		snprintf(buf, len, "unknown");
		return;
	}
	if ((unsigned long)sf.f_type == 0x65735546 && fuse_subtype(p, buf, len) == 0)
		return;
	for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if ((unsigned long)sf.f_type == fs_names[i].magic) {
			snprintf(buf, len, "%s", fs_names[i].name);
			return;
		}
	snprintf(buf, len, "0x%lx", (unsigned long)sf.f_type);
}

int gf_target_check_owned(const char *path)
{
	char marker[4200];
	int rc;

	snprintf(marker, sizeof(marker), "%s/%s", path, GF_MARKER);
	rc = gf_ns_exists(marker);
	if (rc)
		return rc;
	rc = gf_ns_dir_empty(path);
	return rc < 0 ? rc : rc ? 0 : -ENOTEMPTY;
}

int gf_target_mark(const char *path)
{
	static const char text[] = "This folder was created by gpufeed, which may overwrite or delete "
				   "its contents.\n";
	char marker[4200];
	int rc;

	rc = gf_ns_mkdirs(path);
	if (rc)
		return rc;
	snprintf(marker, sizeof(marker), "%s/%s", path, GF_MARKER);
	return gf_ns_write_file(marker, text, sizeof(text) - 1);
}

int gf_target_free_bytes(const char *path, uint64_t *bytes)
{
	struct statvfs sv;
	int rc = gf_ns_statvfs(path, &sv);

	if (rc)
		return rc;
	*bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	return 0;
}

const char *gf_target_detail(const char *path)
{
	/* What the storage said about the last failed gf_ns_* call of this thread: libgfapi's
	 * words, an S3 error code. */
	(void)path;
	return gf_ns_detail();
}

bool gf_target_client_cached(const char *fs_type, bool direct, char *why, size_t len)
{
	if (direct) {
		snprintf(why, len, "O_DIRECT reads bypass the client's page cache");
		return false;
	}
	if (!strcmp(fs_type, "glusterfs")) {
		snprintf(why, len, "libgfapi reads bypass the kernel page cache; GlusterFS's own client "
			 "caches (io-cache, quick-read) hold at most performance.cache-size, 32 MiB by default");
		return false;
	}
	if (!strcmp(fs_type, "s3")) {
		snprintf(why, len, "every S3 read is an HTTP GET to the server: no client cache");
		return false;
	}
	if (!strcmp(fs_type, "tmpfs") || !strcmp(fs_type, "ramfs")) {
		snprintf(why, len, "%s keeps every file in memory: reads never reach a storage device", fs_type);
		return true;
	}
	if (!strncmp(fs_type, "fuse", 4)) {
		snprintf(why, len, "%s: the FUSE client keeps what it read in the kernel page cache", fs_type);
		return true;
	}
	snprintf(why, len, "%s: the client's page cache keeps what it read", fs_type);
	return true;
}

/* Appends key=value to the hints unless the workload already names key: its own hint wins. */
static void add_hint(struct gf_kvmap *m, const char *key, unsigned long long value)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return;
	if (m->n >= GF_KV_MAX)
		return;
	snprintf(m->kv[m->n].key, sizeof(m->kv[0].key), "%s", key);
	snprintf(m->kv[m->n].value, sizeof(m->kv[0].value), "%llu", value);
	m->n++;
}

void gf_target_lustre_hints(struct gf_workload *w)
{
	if (w->target.lustre_stripe_count > 0)
		add_hint(&w->checkpoint.mpiio_hints, "striping_factor",
			 (unsigned long long)w->target.lustre_stripe_count);
	if (w->target.lustre_stripe_size > 0)
		add_hint(&w->checkpoint.mpiio_hints, "striping_unit",
			 (unsigned long long)w->target.lustre_stripe_size);
}
