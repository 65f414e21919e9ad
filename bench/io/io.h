/* io: the one interface every storage backend implements (the shape of fio's
 * ioengine_ops). A request is {op, file, offset, length, buffer} and its result is bytes
 * moved or -errno. submit() either completes a request at once (GF_IO_COMPLETED: sync
 * backends such as posix) or queues it (GF_IO_QUEUED: uring, aio, s3); commit() sends
 * what was queued; reap() returns completions. Backends move bytes and know nothing of
 * workloads, ranks, batches or statistics. They never exit the process: library errors
 * are translated to -errno here, with a detail string for the message.
 *
 * One struct gf_io is used by one thread. Open files are identified by a 64-bit handle
 * that only the backend interprets. */
#ifndef GF_IO_H
#define GF_IO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/statvfs.h>

#include "kv.h"

/* GF_IO_OTHER: a request a backend made on its own (a listing, a multipart completion),
 * never submitted; it only appears in gf_engine_report (engine.h). */
enum gf_io_op { GF_IO_READ = 0, GF_IO_WRITE, GF_IO_OTHER, GF_IO_OPS };

struct gf_io_req {
	enum gf_io_op op;
	uint64_t file;   /* handle from open() */
	uint64_t offset;
	size_t length;
	void *buf;
	int64_t result;  /* bytes moved, or -errno */
	uint64_t start_ns; /* set by the engine at submission */
	void *owner;     /* for the caller: maps a completion back to its work */
	size_t need;     /* the engine's: the least result that is not a short read
			  * (below length when O_DIRECT rounding reads past the data) */
	/* Network timing, set by a backend that talks to a server (s3, from libcurl's
	 * timers) with net true, and recorded by the engine like every other latency. In
	 * nanoseconds, 0 when not applicable: connect (name lookup included) and TLS only
	 * for a request that opened a connection, the first byte of the answer only for a
	 * request that was answered. */
	bool net;
	uint64_t connect_ns, tls_ns, ttfb_ns;
};

enum { GF_IO_COMPLETED = 0, GF_IO_QUEUED = 1 };

/* open() flags */
#define GF_O_READ   0x1u
#define GF_O_WRITE  0x2u /* create or truncate */
#define GF_O_DIRECT 0x4u
/* close() of a file written whole may return with the data still on its way (an object's
 * one PUT on the wire), at most queue_depth such closes at once, so one thread writing
 * many small files keeps requests in flight (datagen); flush() waits for them. Without
 * it close() returns when the file is stored (checkpoints time writes to durable).
 * Backends that store at close anyway ignore it. */
#define GF_O_ASYNC_CLOSE 0x8u

struct gf_io_config {
	unsigned queue_depth; /* the most requests the caller keeps in flight */
	bool direct;          /* O_DIRECT or the backend's equivalent */
	/* Files the caller keeps open at once (its open-file cache), 0 when it opens and
	 * closes a file per sample. Backends may register that many files (uring fixed
	 * files): worth it only when a file serves many requests. */
	unsigned max_open;
	/* This instance's own backend options, read by init (may be NULL; keys a backend does
	 * not know are ignored). s3: "part_size", the multipart part size of objects opened
	 * for writing (checkpoints size parts to their shards), the process-wide one when absent. */
	const struct gf_kvmap *opts;
};

struct gf_io;

/* What a backend can do: the driver and the phases decide by capability, never by a
 * backend's name. */
enum gf_io_cap {
	GF_IO_CAP_ASYNC = 1u << 0,       /* submit() may return GF_IO_QUEUED */
	GF_IO_CAP_DIRECT = 1u << 1,      /* honours GF_O_DIRECT (or its own equivalent) */
	GF_IO_CAP_NOIO = 1u << 2,        /* moves no bytes (null): no dataset to make or check */
	GF_IO_CAP_READONLY = 1u << 3,    /* reads a dataset only: datagen and checkpoints use the
					  * default engine of the same path */
	GF_IO_CAP_KERNEL_PATH = 1u << 4, /* its paths are the kernel's: MPI-IO and HDF5 open them too */
	GF_IO_CAP_SQPOLL = 1u << 5,      /* target.sqpoll applies */
	GF_IO_CAP_OBJECTS = 1u << 6,     /* an object store: keys, no folders, no free space */
	GF_IO_CAP_BATCH_BUFFERED = 1u << 7, /* a batch of buffered requests is made inside the one
					     * system call that submits it (Linux AIO): on a memory
					     * filesystem the cheapest way to keep several in flight */
};

/* Namespace operations: what gpufeed does to a target besides moving bytes (the data
 * folder's marker, the dataset manifest, folders, free space, removing checkpoints). They
 * take a whole name (a path, or a URI of the backend's scheme), need no per-thread
 * instance and may be called from any thread. Each returns 0 (or what it says) or -errno;
 * on failure detail (may be NULL) gets the backend's own words (the library's message,
 * the S3 error code), never a secret. io/ns.h is how callers reach them. */
struct gf_io_ns {
	/* 1 if name exists, 0 if not. */
	int (*exists)(const char *name, char *detail, size_t dlen);
	/* 1 if the folder name is empty or missing, 0 if it holds something. */
	int (*dir_empty)(const char *name, char *detail, size_t dlen);
	/* name and every missing parent; folders that exist are no error. */
	int (*mkdirs)(const char *name, char *detail, size_t dlen);
	/* A missing folder or file is no error. */
	int (*rmdir)(const char *name, char *detail, size_t dlen);
	int (*unlink)(const char *name, char *detail, size_t dlen);
	/* The free space of the storage that holds name (or would: its nearest existing
	 * parent). -EOPNOTSUPP where there is no such figure (a bucket). */
	int (*statvfs)(const char *name, struct statvfs *sv, char *detail, size_t dlen);
	/* A small file whole, at most max bytes, NUL-terminated in a new *buf (the caller
	 * frees it) with its length in *len; -EFBIG when it is larger. */
	int (*read_small)(const char *name, size_t max, char **buf, size_t *len, char *detail, size_t dlen);
	/* Create or replace a small file whole: a reader sees the old content or the new,
	 * never half of it. */
	int (*write_small)(const char *name, const void *buf, size_t len, char *detail, size_t dlen);
	/* Optional (object stores, where one request deletes many): delete the n names, all
	 * in one namespace (one bucket); a missing one is no error. Cleanup names what a run
	 * wrote, never "everything under a prefix" (run/owned.h). */
	int (*unlink_many)(const char *const *names, size_t n, char *detail, size_t dlen);
	/* Optional: where the file name is stored, as the file system says it (GlusterFS's
	 * virtual xattr trusted.glusterfs.pathinfo: "(<DISTRIBUTE:v-dht> <POSIX(/b):host:/b/f>)"),
	 * NUL-terminated in buf. -ENODATA or -EOPNOTSUPP where the file system does not say. */
	int (*pathinfo)(const char *name, char *buf, size_t len, char *detail, size_t dlen);
};

struct gf_io_ops {
	const char *name;
	const char *help;
	unsigned caps; /* enum gf_io_cap bits */
	/* The URI scheme of the names it takes ("s3://", "gluster://"), or NULL for the local
	 * kernel path (a plain path or file://). An engine with GF_IO_CAP_NOIO takes any. */
	const char *scheme;
	/* The namespace of those names (the local kernel path's: gf_io_posix_ns). */
	const struct gf_io_ns *ns;
	/* Optional, pure: whether name has the form this backend takes
	 * ("gluster://host[:port]/volume/path"). Returns 0 or -EINVAL with why. */
	int (*check_name)(const char *name, char *why, size_t len);
	/* The one dataset.format this engine reads (hdf5: rows of an HDF5 dataset), which no
	 * other engine can; NULL for an engine of plain bytes, which reads every other format. */
	const char *format;
	/* For a backend that does not go through the kernel: what summary.json calls the
	 * storage behind it ("glusterfs"), and why a client keeps none of what it reads. NULL
	 * for kernel paths, where the filesystem of the path tells both. */
	const char *fs_type;
	const char *uncached;
	bool async;   /* submit() may return GF_IO_QUEUED */
	size_t priv_size;

	/* Optional. Once per process, before any instance or namespace call (gf_io_setup): the
	 * backend's own options. The driver passes storage.storage_options as given, with the
	 * target root as "root", target.prefix_spread as "prefix_spread" and target.sqpoll as
	 * "sqpoll"; a backend ignores keys it does not know. Returns 0 or -errno with why in
	 * err, never a secret. */
	int (*setup)(const struct gf_kvmap *opts, char *err, size_t len);
	/* Optional. Once per process, after the last instance closed: releases what setup
	 * took and wipes secrets (credentials) from memory. */
	void (*teardown)(void);

	/* Per-thread set-up and teardown. */
	int (*init)(struct gf_io *io);
	void (*cleanup)(struct gf_io *io);

	int (*open)(struct gf_io *io, const char *path, unsigned flags, uint64_t *file);
	int (*close)(struct gf_io *io, uint64_t file);
	/* GF_IO_COMPLETED (req->result is set), GF_IO_QUEUED, or -errno if the request could
	 * not be issued at all. */
	int (*submit)(struct gf_io *io, struct gf_io_req *req);
	/* Send what was queued; may be NULL for sync backends. */
	int (*commit)(struct gf_io *io);
	/* Wait for at least min completions, return up to max in done[]. Returns the count or
	 * -errno. May be NULL for sync backends. */
	int (*reap)(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **done);
	/* Make a file's written data durable. */
	int (*fsync)(struct gf_io *io, uint64_t file);

	/* Deprecated, set on gf_io_posix only: report/results.c creates the results folder
	 * with it. A thin wrapper over gf_io_posix_ns.mkdirs; use gf_ns_mkdirs (io/ns.h). */
	int (*mkdirs)(struct gf_io *io, const char *path);

	/* Optional. The caller's n request buffers of size bytes each, back to back from
	 * base, for the life of the instance (uring registers them: no page pinning per
	 * request). Returns 0 or -errno; on failure the backend works unregistered. */
	int (*register_buffers)(struct gf_io *io, void *base, size_t size, unsigned n);
	/* Optional. Whether this kernel and process can use the backend at all (io_uring
	 * may be disabled by sysctl or seccomp). Returns 0 or -errno with the reason in why. */
	int (*probe)(char *why, size_t len);
	/* Optional. Wait for what close() left on the wire (GF_O_ASYNC_CLOSE). Returns 0 or
	 * the first error of any of them, with the object named in detail. */
	int (*flush)(struct gf_io *io);
	/* Optional. The backend's counters, each as cb(arg, name, value): of the instance io,
	 * or of the whole process when io is NULL (s3: "requests", "retries.slowdown_503",
	 * "errors.client_4xx", ...; dotted names nest in summary.json). Any caller can print
	 * any backend's counters this way without knowing the backend. */
	void (*counters)(struct gf_io *io, void (*cb)(void *arg, const char *name, uint64_t value), void *arg);
	/* Optional. What the user must be told about how setup() configured the backend (s3:
	 * TLS certificates not verified), or NULL. Backends never print: the driver does. */
	const char *(*notice)(void);
};

struct gf_io {
	const struct gf_io_ops *ops;
	struct gf_io_config cfg;
	void *priv;
	char detail[256]; /* what the library said about the last error */
	struct gf_engine *engine; /* the engine driving this instance, if any (engine.h) */
};

/* The registry: every backend built in, in order of preference. */
const struct gf_io_ops *gf_io_find(const char *name);
/* Writes the names of built-in backends, separated by '|'. */
const char *gf_io_names(void);
/* The engine for a local path: the first in the registry (uring, aio, posix) whose probe
 * passes on this kernel. why says which ran and why the others did not. */
const struct gf_io_ops *gf_io_default_local(char *why, size_t len);
/* The engine that reads a local path with depth requests in flight per thread, buffered
 * from a memory filesystem (tmpfs, ramfs) when memory_fs: never the slow choice. One in
 * flight: posix (a blocking read costs one system call; an asynchronous engine adds a
 * submission and a completion). More, from memory: the first engine with
 * GF_IO_CAP_BATCH_BUFFERED that this kernel allows, else posix (tmpfs has no non-blocking
 * read: io_uring makes each inline, one system call per read, uring.c). Else gf_io_default_local,
 * with its why; in the other cases why says which and why. */
const struct gf_io_ops *gf_io_default_local_read(unsigned depth, bool memory_fs, char *why, size_t len);
/* The backend for uri: by its scheme through the registry (a plain path or file:// is the
 * local kernel path's, whose default is gf_io_default_local), or engine when it is given
 * (not NULL or "") and can take that scheme. NULL with why (may be NULL) saying what is
 * wrong: an unknown engine, an engine for another scheme, a scheme this build has no
 * backend for. Pure but for the default local engine's probe, done once per process. */
const struct gf_io_ops *gf_io_for_uri(const char *uri, const char *engine, char *why, size_t len);
/* The backend whose fs_type is fs_type, or NULL (a kernel filesystem). */
const struct gf_io_ops *gf_io_for_fs_type(const char *fs_type);
/* The engine that reads dataset.format format when only one can (hdf5). Returns 0 with
 * *ops NULL for a format of plain bytes, which every engine reads; -ENOTSUP with why when
 * this build lacks that format's engine. */
int gf_io_for_format(const char *format, const struct gf_io_ops **ops, char *why, size_t len);
/* Checks that an ops table has every mandatory entry (fio's check_engine_ops). */
int gf_io_check_ops(const struct gf_io_ops *ops);

/* Once per process, before any thread opens ops (the driver calls it): ops->setup(opts),
 * if it has one. Returns 0 or -errno with why in err. gf_io_teardown undoes it (ops->teardown,
 * which wipes secrets); both do nothing for a backend without them. */
int gf_io_setup(const struct gf_io_ops *ops, const struct gf_kvmap *opts, char *err, size_t len);
void gf_io_teardown(const struct gf_io_ops *ops);
/* A bridge until the driver calls gf_io_setup itself: keep opts for ops and set it up at
 * the first instance or namespace call that needs it (gf_io_setup_pending), so that
 * resolving a target reads no credentials and opens nothing; what was set up this way is
 * torn down at exit. Returns 0 or -ENOMEM. */
int gf_io_setup_on_first_use(const struct gf_io_ops *ops, const struct gf_kvmap *opts);
/* Set ops up now if gf_io_setup_on_first_use left it pending. Returns 0 (nothing pending,
 * set up now or before) or the setup's error, with its words in err (may be NULL). */
int gf_io_setup_pending(const struct gf_io_ops *ops, char *err, size_t len);

/* Options (struct gf_kvmap) for setup and for an instance: the value of key in m (may be
 * NULL), or NULL; set key to value, replacing it (0, -ENOSPC when m is full, or
 * -ENAMETOOLONG). */
const char *gf_io_opt(const struct gf_kvmap *m, const char *key);
int gf_io_opt_set(struct gf_kvmap *m, const char *key, const char *value);

/* ops->notice(), or NULL. */
const char *gf_io_notice(const struct gf_io_ops *ops);

/* Cancelling what a backend waits on. While a phase runs the driver points the backends at
 * the run's stop flag (a signal), and a phase with a duration gives its end (gf_now_ns()
 * clock, 0 = none). A backend that waits on a network (s3) checks gf_io_cancelled() during
 * each request and ends it with -ECANCELED, which the phases take as a stop, not an error:
 * a request that trickles at 2 KiB/s must not hold the run past its bound. Outside the
 * phases (the cleanup after a signal) nothing is cancelled. Set before a phase's threads
 * start and cleared after they end. */
void gf_io_cancel_on(volatile sig_atomic_t *stop);
void gf_io_cancel_deadline(uint64_t deadline_ns);
void gf_io_cancel_off(void);
bool gf_io_cancelled(void);

/* A write that the kernel completed short (asynchronous backends: the device filled, or a
 * signal) is finished here with pwrite on fd: r->result becomes r->length, or the -errno
 * the rest failed with (ENOSPC, EDQUOT), which is what the message must name. Reads and
 * complete or failed writes are left as they are. */
void gf_io_finish_short_write(int fd, struct gf_io_req *r);
/* ops->counters, or nothing when the backend has none. */
void gf_io_counters(const struct gf_io_ops *ops, struct gf_io *io,
		    void (*cb)(void *arg, const char *name, uint64_t value), void *arg);

/* Create and destroy one thread's backend instance. Returns 0 or -errno. */
int gf_io_open_backend(const struct gf_io_ops *ops, const struct gf_io_config *cfg,
		       struct gf_io **out);
void gf_io_close_backend(struct gf_io *io);

/* The backends are listed in the registry (io.c) and reached through it. posix is named
 * here because the engines of local paths build on it (open flags, fsync, namespace). */
extern const struct gf_io_ops gf_io_posix;
/* The local kernel path's namespace: posix, uring, aio, null and hdf5 share it. */
extern const struct gf_io_ns gf_io_posix_ns;

#endif
