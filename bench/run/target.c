/* target: see target.h. */
#include "run/target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
#include "model/plan.h"
#include "model/units.h"

/* The root: file:// taken off, no trailing slash (it makes doubled separators in file
 * names), but never the scheme's own "//" or a lone "/". */
static void set_root(struct gf_target *t)
{
	const char *path = t->uri, *sep = strstr(path, "://");
	size_t keep;

	if (!strncmp(path, "file://", 7))
		path += 7;
	snprintf(t->root, sizeof(t->root), "%s", path);
	keep = sep && path == t->uri ? (size_t)(sep - path) + 4 : 1;
	for (size_t l = strlen(t->root); l > keep && t->root[l - 1] == '/'; l--)
		t->root[l - 1] = '\0';
}

/* What the target's storage rules out, whatever the engine: a format read through a
 * library that opens kernel paths only, and object-store key spreading on a file tree.
 * Checkpoint layouts against the target are the run's guards' (run/guards.c, by the
 * layout table). */
static int check_store(const struct gf_workload *w, const struct gf_target *t, const struct gf_io_ops *fmt,
		       char *err, size_t errlen)
{
	const struct gf_io_ops *store = t->store;
	bool kernel = store->caps & GF_IO_CAP_KERNEL_PATH, objects = store->caps & GF_IO_CAP_OBJECTS;

	if (fmt && !kernel) {
		snprintf(err, errlen, "target %s: dataset.format %s is read through the %s engine, which opens "
			 "local and mounted paths only; give the filesystem's mount path", t->uri,
			 gf_format_name(w->dataset.format), fmt->name);
		return -EINVAL;
	}
	/* Request-rate limits per key prefix are an object store's: a file tree has none. */
	if (w->target.prefix_spread > 1 && !objects) {
		snprintf(err, errlen, "%s: target.prefix_spread %lld spreads S3 object keys over hashed "
			 "prefixes, and the target %s is not s3://; set it to 0", w->source,
			 (long long)w->target.prefix_spread, t->uri);
		return -EINVAL;
	}
	return 0;
}

/* The engine: --engine or target.engine when given (it must take the target's names, and
 * read dataset.format: a format that one engine alone reads, hdf5, is read by it or by
 * null), else the engine of the format, else the default of the target's scheme. */
static int pick_engine(const struct gf_workload *w, const char *engine, const char *cli_engine,
		       const struct gf_io_ops *fmt, struct gf_target *t, char *err, size_t errlen)
{
	const char *given = cli_engine && *cli_engine ? "--engine" : "target.engine in the workload";
	char why[512];

	if (!engine || !*engine) {
		t->ops = fmt ? fmt : t->store;
		if (fmt)
			snprintf(t->engine_reason, sizeof(t->engine_reason), "dataset.format %s: %s",
				 gf_format_name(w->dataset.format), fmt->help);
		else if (t->store->scheme)
			snprintf(t->engine_reason, sizeof(t->engine_reason), "default for a %s target: %s",
				 t->store->scheme, t->store->help);
		t->writer = t->ops->caps & GF_IO_CAP_READONLY ? gf_io_default_local(NULL, 0) : t->ops;
		if (!fmt && !t->store->scheme) {
			t->by_reads = true;
			t->ops = gf_target_reader(t, w, t->engine_reason, sizeof(t->engine_reason));
		}
		return 0;
	}
	t->ops = gf_io_for_uri(t->root, engine, why, sizeof(why));
	if (!t->ops) {
		snprintf(err, errlen, "target %s: %s", t->uri, why);
		return -EINVAL;
	}
	if (fmt && t->ops != fmt && !(t->ops->caps & GF_IO_CAP_NOIO)) {
		snprintf(err, errlen, "%s %s: dataset.format %s is read by the %s engine (%s); the %s engine "
			 "reads plain files. Leave the engine out (%s is chosen for this format), or pick %s "
			 "or null", given, engine, gf_format_name(w->dataset.format), fmt->name, fmt->help, engine, fmt->name,
			 fmt->name);
		return -EINVAL;
	}
	if (!fmt && t->ops->format) {
		snprintf(err, errlen, "engine %s reads %s training data (dataset.format %s); dataset.format "
			 "is %s, read with the other engines (checkpoints in HDF5: checkpoint.layout hdf5)",
			 engine, t->ops->format, t->ops->format, gf_format_name(w->dataset.format));
		return -EINVAL;
	}
	snprintf(t->engine_reason, sizeof(t->engine_reason), "%s", given);
	/* An engine that only reads (hdf5, mmap) leaves writing to the path's default. */
	t->writer = t->ops->caps & GF_IO_CAP_READONLY ? gf_io_default_local(NULL, 0) : t->ops;
	return 0;
}

/* Whether path (or its nearest existing parent) is on a filesystem in memory: there a
 * read never waits for a device. */
static bool memory_fs(const char *path)
{
	char fs[32];

	gf_target_fs_type(path, fs, sizeof(fs));
	return !strcmp(fs, "tmpfs") || !strcmp(fs, "ramfs");
}

const struct gf_io_ops *gf_target_reader(const struct gf_target *t, const struct gf_workload *w, char *why,
					 size_t len)
{
	unsigned depth = gf_plan_read_depth(w);
	const struct gf_io_ops *rd;
	char rwhy[200];
	bool mem;

	if (!t->by_reads) {
		if (why && len && why != t->engine_reason)
			snprintf(why, len, "%s", t->engine_reason);
		return t->ops;
	}
	mem = memory_fs(t->root);
	/* SQPOLL is io_uring's: asked for, the default (io_uring) reads too. */
	rd = w->target.sqpoll ? t->writer : gf_io_default_local_read(depth, mem, rwhy, sizeof(rwhy));
	if (rd == t->writer)
		gf_io_default_local(why, len);
	else if (why && len)
		snprintf(why, len, "default for a local path, %u read%s in flight per reader thread%s: %s; "
			 "%s writes", depth, depth == 1 ? "" : "s", mem ? " from memory" : "", rwhy, t->writer->name);
	return rd;
}

int gf_target_backend_opts(const struct gf_workload *w, const struct gf_target *t, struct gf_kvmap *opts,
			   char *err, size_t errlen)
{
	char n[32];
	int rc;

	*opts = w->storage.options;
	snprintf(n, sizeof(n), "%lld", (long long)w->target.prefix_spread);
	rc = gf_io_opt_set(opts, "root", t->root);
	if (!rc)
		rc = gf_io_opt_set(opts, "prefix_spread", n);
	if (!rc)
		rc = gf_io_opt_set(opts, "sqpoll", w->target.sqpoll ? "true" : "false");
	if (rc)
		snprintf(err, errlen, "target %s: %s", t->uri, rc == -ENOSPC
			 ? "storage.storage_options has too many keys to add the target's own"
			 : "the target is too long to pass to its backend");
	return rc;
}

/* target.queue_depth buys a buffer per request in flight: datagen's of
 * generation_buffer_size, and per reader thread one as large as a sample (up to
 * transfer_size). Refuse depths whose buffers would take more than half this machine's
 * memory on one rank, before anything is allocated. io_uring's own limit (32768,
 * IORING_MAX_ENTRIES) is the key's bound in the key table. */
static int check_queue_memory(const struct gf_workload *w, char *err, size_t errlen)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
	double qd = (double)w->target.queue_depth, mem, gen, rec, rd, need;
	char a[32], b[32], at[GF_STR + 16];
	const struct gf_key *k;
	unsigned line;

	if (w->target.queue_depth <= 0 || pages <= 0 || page <= 0)
		return 0;
	mem = (double)pages * (double)page;
	gen = w->dataset.generation_buffer_size ? (double)w->dataset.generation_buffer_size : 2097152.0;
	rec = (double)w->dataset.record_length_bytes * (w->dataset.record_length_bytes_stdev ? 2 : 1);
	if (w->reader.transfer_size && (double)w->reader.transfer_size < rec)
		rec = (double)w->reader.transfer_size;
	rd = rec * (double)(w->reader.read_threads > 0 ? w->reader.read_threads : 1);
	need = qd * (gen > rd ? gen : rd);
	if (need <= mem / 2)
		return 0;
	k = gf_key_find("target.queue_depth");
	line = k ? w->key_line[k - gf_keys] : 0;
	snprintf(at, sizeof(at), line ? "%s:%u" : "%s", w->source[0] ? w->source : "workload", line);
	snprintf(err, errlen, "%s: target.queue_depth %lld needs about %s of buffers per rank (a "
		 "request's buffer of %s each%s), more than half of this machine's %s; the most it "
		 "allows is %.0f", at, (long long)w->target.queue_depth,
		 gf_format_size((uint64_t)need, a, sizeof(a)),
		 gf_format_size((uint64_t)(gen > rd ? gen : rec), b, sizeof(b)),
		 gen > rd ? " of dataset.generation_buffer_size" : " per reader thread",
		 gf_format_size((uint64_t)mem, (char[32]){ 0 }, 32), floor(mem / 2 / (gen > rd ? gen : rd)));
	return -EINVAL;
}

static int resolve(const struct gf_workload *w, const char *cli_target, const char *cli_engine,
		   struct gf_target *t, char *err, size_t errlen);

/* "s3:/x" is a URI with a slash missing far more often than a local folder named "s3:":
 * taken as a path it would quietly become ./s3:/x. */
static int one_slash(const char *uri, char *err, size_t errlen)
{
	size_t n = strspn(uri, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");

	if (!n || !isalpha((unsigned char)uri[0]) || uri[n] != ':' || uri[n + 1] != '/' || uri[n + 2] == '/')
		return 0;
	snprintf(err, errlen, "target %s: did you mean %.*s://%s? A URI takes two slashes after its "
		 "scheme; for a local folder give ./%s", uri, (int)n, uri, uri + n + 2, uri);
	return -EINVAL;
}

int gf_target_resolve(const struct gf_workload *w, const char *cli_target, const char *cli_engine,
		      struct gf_target *t, char *err, size_t errlen)
{
	int rc = check_queue_memory(w, err, errlen);

	return rc ? rc : resolve(w, cli_target, cli_engine, t, err, errlen);
}

static int resolve(const struct gf_workload *w, const char *cli_target, const char *cli_engine,
		   struct gf_target *t, char *err, size_t errlen)
{
	const char *uri = cli_target && *cli_target ? cli_target : w->target.path;
	const char *engine = cli_engine && *cli_engine ? cli_engine : w->target.engine;
	const struct gf_io_ops *fmt;
	struct gf_kvmap opts;
	char why[512];
	int rc;

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
	/* No backend takes a user or password in the target's URI (credentials come from the
	 * backend's options): dropped here, so none reaches a message, the summary or a report. */
	if (gf_url_userinfo(t->uri, "", why, sizeof(why)))
		snprintf(t->uri, sizeof(t->uri), "%s", why);
	if (one_slash(t->uri, err, errlen))
		return -EINVAL;
	set_root(t);
	if (!t->root[0]) {
		snprintf(err, errlen, "no target: give --target PATH or dataset.data_folder");
		return -EINVAL;
	}
	/* The scheme picks the storage; the engine that moves the bytes may differ (null, or
	 * the engine of the format). */
	t->store = gf_io_for_uri(t->root, NULL, why, sizeof(why));
	if (!t->store || (t->store->check_name && t->store->check_name(t->root, why, sizeof(why)))) {
		snprintf(err, errlen, "target %s: %s", t->uri, why);
		return -EINVAL;
	}
	if (gf_io_for_format(gf_format_name(w->dataset.format), &fmt, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		return -EINVAL;
	}
	rc = check_store(w, t, fmt, err, errlen);
	if (!rc)
		rc = pick_engine(w, engine, cli_engine, fmt, t, err, errlen);
	if (rc)
		return rc;
	snprintf(t->engine, sizeof(t->engine), "%s", t->ops->name);
	/* Results folders and summary.json name the storage by its scheme ("s3", "gluster"). */
	if (t->ops->caps & GF_IO_CAP_NOIO)
		snprintf(t->kind, sizeof(t->kind), "null");
	else if (t->store->scheme)
		snprintf(t->kind, sizeof(t->kind), "%.*s", (int)strcspn(t->store->scheme, ":"), t->store->scheme);
	else
		snprintf(t->kind, sizeof(t->kind), "local");
	/* Until the driver sets the backends up itself (gf_io_setup), they are set up at their
	 * first use, so that resolving a target (gpufeed plan) reads no credentials. */
	rc = gf_target_backend_opts(w, t, &opts, err, errlen);
	if (!rc)
		rc = gf_io_setup_on_first_use(t->store, &opts);
	if (!rc && t->ops != t->store)
		rc = gf_io_setup_on_first_use(t->ops, &opts);
	explicit_bzero(&opts, sizeof(opts));
	return rc;
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

	const struct gf_io_ops *ops = gf_io_for_uri(path, NULL, NULL, 0);

	/* A library's own client (libgfapi, S3 over HTTP) in this process: no kernel filesystem. */
	if (ops && ops->fs_type) {
		snprintf(buf, len, "%s", ops->fs_type);
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
	const struct gf_io_ops *ops = gf_io_for_fs_type(fs_type);

	if (ops && ops->uncached) {
		snprintf(why, len, "%s", ops->uncached);
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
