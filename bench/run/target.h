/* target: where the data lives. Resolves the target (command line, workload target.path,
 * or DLIO's storage_root/data_folder) to a path, tells its kind and filesystem type, and
 * guards user data: gpufeed writes and deletes only inside folders it created and
 * marked, and checks free space before writing. */
#ifndef GF_TARGET_H
#define GF_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "io/ns.h" /* GF_MARKER, GF_MANIFEST */
#include "model/workload.h"

struct gf_target {
	char uri[GF_STR];    /* as given */
	char root[4096];     /* the data folder: a local path, or a gluster:// URI */
	char kind[16];       /* "local", "gluster", "null" (results folder names and summary) */
	char engine[32];     /* resolved engine name: the one that reads */
	char engine_reason[256];
	const struct gf_io_ops *ops;   /* the engine that reads samples (engine[] is its name) */
	const struct gf_io_ops *writer; /* the engine that writes (datagen, checkpoints): ops,
					 * unless ops reads only or was chosen for the reads */
	bool by_reads;                 /* no engine given: ops is the local default for the reads
					* in flight (gf_target_reader) */
	const struct gf_io_ops *store; /* the backend of the target's scheme: its namespace and
					* its setup (differs from ops for null and hdf5) */
};

/* Resolve from the command line (may be NULL) and the workload: the root, the backend of
 * its scheme and the engine. Reads no credentials and opens nothing (gpufeed plan calls
 * it): the backends are set up by gf_io_setup, or at their first use until the driver
 * calls it. Returns 0 or -EINVAL with a message (unsupported scheme, unknown engine). */
int gf_target_resolve(const struct gf_workload *w, const char *cli_target, const char *cli_engine,
		      struct gf_target *t, char *err, size_t errlen);

/* The engine that reads w's samples from t: the one given (or the format's, or the
 * scheme's), else, for a local path, the default for w's reads in flight per reader thread
 * and t's filesystem (gf_io_default_local_read: posix for one, aio from tmpfs, uring).
 * why (may be NULL) gets the reason summary.json shows. A sweep varying
 * target.queue_depth asks again for each point. */
const struct gf_io_ops *gf_target_reader(const struct gf_target *t, const struct gf_workload *w, char *why,
					 size_t len);

/* The options of the target's backends for their setup (gf_io_setup, io.h):
 * storage.storage_options as given, and what the workload says elsewhere that only a
 * backend reads: the target root ("root"), target.prefix_spread ("prefix_spread") and
 * target.sqpoll ("sqpoll"). Returns 0, or -ENOSPC / -ENAMETOOLONG with a message. The
 * map may hold secrets: wipe it (explicit_bzero) after use. */
int gf_target_backend_opts(const struct gf_workload *w, const struct gf_target *t, struct gf_kvmap *opts,
			   char *err, size_t errlen);

/* The filesystem type of path or its nearest existing parent ("ext4", "tmpfs", "xfs",
 * "nfs", "lustre", "gpfs", "overlay", a FUSE mount's type from the mount table such as
 * "fuse.glusterfs", "glusterfs" for a gluster:// URI, or "0x<magic>"). */
void gf_target_fs_type(const char *path, char *buf, size_t len);

/* Whether a client caches what it read from a filesystem of this type (fs_type as
 * gf_target_fs_type gives it): the page cache of local disks, NFS, Lustre, GPFS and FUSE
 * mounts does; O_DIRECT and libgfapi do not. why says which cache, or why none. */
bool gf_target_client_cached(const char *fs_type, bool direct, char *why, size_t len);

/* 1 if path is a folder gpufeed marked, 0 if it does not exist or is empty, -ENOTEMPTY
 * if it holds something and no marker, other -errno if it cannot be read. */
int gf_target_check_owned(const char *path);

/* Create path (and parents) and write the marker. */
int gf_target_mark(const char *path);

/* Bytes free for an unprivileged writer at path or its nearest existing parent. */
int gf_target_free_bytes(const char *path, uint64_t *bytes);

/* What the storage said about the last failed check on path ("" when nothing more is
 * known than the errno): for s3:// the S3 error code and message. */
const char *gf_target_detail(const char *path);

#endif
