/* io: the registry of backends (one table, the only place a backend is listed) and the
 * per-thread instance life cycle. */
#include "io/io.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "model/workload.h"
#include "stats/clock.h"

/* Each backend is defined in its own file; only the registry names them. Those after
 * posix are built only when configure found their library. */
extern const struct gf_io_ops gf_io_null, gf_io_uring, gf_io_aio, gf_io_mmap, gf_io_hdf5, gf_io_gfapi,
	gf_io_s3;

/* In order of preference for a local path: the default is the first that probes well. */
static const struct gf_io_ops *const registry[] = {
#ifdef HAVE_URING
	&gf_io_uring,
#endif
#ifdef HAVE_AIO
	&gf_io_aio,
#endif
	&gf_io_posix,
	/* Read-only: never the default, chosen with --engine mmap. */
	&gf_io_mmap,
#ifdef HAVE_HDF5
	/* After posix: never the default for a local path, only for dataset.format hdf5. */
	&gf_io_hdf5,
#endif
#ifdef HAVE_GFAPI
	/* After posix: never the default for a local path, only for gluster:// targets. */
	&gf_io_gfapi,
#endif
#ifdef HAVE_CURL
	/* Only for s3:// targets, like gfapi. */
	&gf_io_s3,
#endif
	&gf_io_null,
};

#define NREG (sizeof(registry) / sizeof(registry[0]))

const struct gf_io_ops *gf_io_find(const char *name)
{
	for (size_t i = 0; i < NREG; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

/* fio's ioengine names for the same engines, so a fio user's --engine gets the name to use. */
static const struct {
	const char *fio, *ours;
} fio_names[] = {
	{ "io_uring", "uring" }, { "libaio", "aio" }, { "psync", "posix" }, { "sync", "posix" },
	{ "pvsync", "posix" }, { "pvsync2", "posix" }, { "mmap", "mmap" }, { "null", "null" },
	{ "gfapi_async", "gfapi" },
};

/* An unknown engine's message: fio's name mapped, else the nearest built-in name. */
static void unknown_engine(const char *engine, char *why, size_t len)
{
	const char *near = NULL;
	unsigned best = 3; /* more edits than two is another word */

	for (size_t i = 0; i < sizeof(fio_names) / sizeof(fio_names[0]); i++)
		if (!strcasecmp(engine, fio_names[i].fio)) {
			snprintf(why, len, "unknown engine '%s': that is fio's name; gpufeed's is '%s'%s (built-in "
				 "engines are %s)", engine, fio_names[i].ours, gf_io_find(fio_names[i].ours) ? "" :
				 ", not in this build", gf_io_names());
			return;
		}
	for (size_t i = 0; i < NREG; i++) {
		unsigned d = gf_edit_distance(engine, registry[i]->name);
		if (d < best) {
			best = d;
			near = registry[i]->name;
		}
	}
	if (near)
		snprintf(why, len, "unknown engine '%s': did you mean '%s'? (built-in engines are %s)", engine, near,
			 gf_io_names());
	else
		snprintf(why, len, "unknown engine '%s': built-in engines are %s", engine, gf_io_names());
}

const char *gf_io_names(void)
{
	static char names[256];

	if (!names[0]) {
		for (size_t i = 0; i < NREG; i++) {
			if (i)
				strncat(names, "|", sizeof(names) - strlen(names) - 1);
			strncat(names, registry[i]->name, sizeof(names) - strlen(names) - 1);
		}
	}
	return names;
}

/* The default local engine depends on the kernel and the process only: every local engine
 * is probed once. */
static pthread_once_t local_once = PTHREAD_ONCE_INIT;
static const struct gf_io_ops *local_default;
static bool local_ok[NREG];
static char local_why[512];

/* Engines of other schemes, of no bytes, or of one format only are never the default for
 * a path. */
static bool local_candidate(const struct gf_io_ops *o)
{
	return !o->scheme && !(o->caps & (GF_IO_CAP_NOIO | GF_IO_CAP_READONLY));
}

static void probe_local(void)
{
	char skipped[256] = "", reason[128];

	for (size_t i = 0; i < NREG; i++) {
		const struct gf_io_ops *o = registry[i];
		size_t l = strlen(skipped);

		if (!local_candidate(o))
			continue;
		local_ok[i] = !o->probe || o->probe(reason, sizeof(reason)) == 0;
		if (local_ok[i] && !local_default) {
			snprintf(local_why, sizeof(local_why), "default for a local path: %s is the first engine "
				 "this kernel allows%s%s", o->name, skipped[0] ? "; " : "", skipped);
			local_default = o;
		} else if (!local_ok[i] && !local_default) {
			snprintf(skipped + l, sizeof(skipped) - l, "%s%s unavailable (%s)", l ? ", " : "",
				 o->name, reason);
		}
	}
	if (!local_default)
		snprintf(local_why, sizeof(local_why), "no engine usable: %s", skipped);
}

const struct gf_io_ops *gf_io_default_local(char *why, size_t len)
{
	pthread_once(&local_once, probe_local);
	if (why && len)
		snprintf(why, len, "%s", local_why);
	return local_default;
}

const struct gf_io_ops *gf_io_default_local_read(unsigned depth, bool memory_fs, char *why, size_t len)
{
	char dummy[8];

	if (!why || !len) {
		why = dummy;
		len = sizeof(dummy);
	}
	pthread_once(&local_once, probe_local);
	if (depth <= 1) {
		snprintf(why, len, "posix, one blocking read per request: the fewest system calls with one in "
			 "flight (an asynchronous engine adds a submission and a completion)");
		return &gf_io_posix;
	}
	if (!memory_fs)
		return gf_io_default_local(why, len);
	for (size_t i = 0; i < NREG; i++)
		if (local_ok[i] && (registry[i]->caps & GF_IO_CAP_BATCH_BUFFERED)) {
			snprintf(why, len, "%s, a batch of reads from memory in one system call (tmpfs has no "
				 "non-blocking read: io_uring makes one system call per read)", registry[i]->name);
			return registry[i];
		}
	snprintf(why, len, "posix: reads from memory never wait, and tmpfs has no non-blocking read (io_uring "
		 "makes one system call per read)");
	return &gf_io_posix;
}

/* The length of uri's scheme with its "://" ("s3://" is 5), 0 for a plain path. */
static size_t scheme_len(const char *uri)
{
	size_t n = 0;

	while ((uri[n] >= 'a' && uri[n] <= 'z') || (n && ((uri[n] >= '0' && uri[n] <= '9') ||
							   uri[n] == '+' || uri[n] == '-' || uri[n] == '.')))
		n++;
	return n && !strncmp(uri + n, "://", 3) ? n + 3 : 0;
}

/* Whether ops takes names of the scheme uri[0, slen) (slen 0: the local kernel path). */
static bool takes(const struct gf_io_ops *ops, const char *uri, size_t slen)
{
	if (!slen)
		return !ops->scheme;
	return ops->scheme && strlen(ops->scheme) == slen && !strncmp(ops->scheme, uri, slen);
}

const struct gf_io_ops *gf_io_for_fs_type(const char *fs_type)
{
	for (size_t i = 0; i < NREG; i++)
		if (registry[i]->fs_type && !strcmp(registry[i]->fs_type, fs_type))
			return registry[i];
	return NULL;
}

/* Formats whose engine configure may leave out, and what to install for them. */
static const struct {
	const char *format, *missing;
} optional_formats[] = {
	{ "hdf5", "the HDF5 library, and this build of gpufeed has none (install libhdf5-openmpi-dev "
		  "and rebuild)" },
};

int gf_io_for_format(const char *format, const struct gf_io_ops **ops, char *why, size_t len)
{
	*ops = NULL;
	for (size_t i = 0; i < NREG; i++) {
		if (registry[i]->format && !strcmp(registry[i]->format, format)) {
			*ops = registry[i];
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(optional_formats) / sizeof(optional_formats[0]); i++) {
		if (!strcmp(optional_formats[i].format, format)) {
			snprintf(why, len, "dataset.format %s is read through %s", format, optional_formats[i].missing);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* Schemes whose backend configure may leave out, and what to install for them. */
static const struct {
	const char *scheme, *missing;
} optional_schemes[] = {
	{ "gluster://", "libgfapi (install libglusterfs-dev and rebuild), or give the path of the "
			"volume's FUSE mount" },
	{ "s3://", "libcurl (install libcurl4-openssl-dev and libssl-dev, and rebuild)" },
};

/* why for a scheme that no built-in backend takes. */
static void no_backend(const char *uri, size_t slen, char *why, size_t len)
{
	char known[128] = "";

	for (size_t i = 0; i < sizeof(optional_schemes) / sizeof(optional_schemes[0]); i++) {
		if (strlen(optional_schemes[i].scheme) == slen && !strncmp(optional_schemes[i].scheme, uri, slen)) {
			snprintf(why, len, "this build of gpufeed has no %s", optional_schemes[i].missing);
			return;
		}
	}
	for (size_t i = 0; i < NREG; i++) {
		size_t l = strlen(known);
		if (registry[i]->scheme && !strstr(known, registry[i]->scheme))
			snprintf(known + l, sizeof(known) - l, ", %s", registry[i]->scheme);
	}
	snprintf(why, len, "this build of gpufeed reads local and mounted paths (/path or file:///path)%s%s "
		 "URIs; other schemes are not available", known[0] ? " and " : "", known[0] ? known + 2 : "");
}

const struct gf_io_ops *gf_io_for_uri(const char *uri, const char *engine, char *why, size_t len)
{
	char dummy[8];
	size_t slen = scheme_len(uri);
	const struct gf_io_ops *ops = NULL;

	if (!why || !len) {
		why = dummy;
		len = sizeof(dummy);
	}
	if (slen == strlen("file://") && !strncmp(uri, "file://", slen))
		slen = 0;
	for (size_t i = 0; i < NREG && !ops; i++)
		if (takes(registry[i], uri, slen))
			ops = registry[i];
	if (!ops) {
		no_backend(uri, slen, why, len);
		return NULL;
	}
	if (!engine || !*engine) {
		if (slen)
			return ops; /* the first in the registry for the scheme */
		ops = gf_io_default_local(why, len);
		return ops;
	}
	const struct gf_io_ops *def = ops;
	ops = gf_io_find(engine);
	if (!ops) {
		unknown_engine(engine, why, len);
		return NULL;
	}
	/* The null engine moves no bytes: any name will do. */
	if ((ops->caps & GF_IO_CAP_NOIO) || takes(ops, uri, slen))
		return ops;
	if (slen)
		snprintf(why, len, "engine '%s' reads %s; %.*s targets are read with the %s engine", engine,
			 ops->scheme ? ops->scheme : "local paths", (int)slen, uri, def->name);
	else
		snprintf(why, len, "engine '%s' reads %s URIs; the target is a local path", engine, ops->scheme);
	return NULL;
}

int gf_io_check_ops(const struct gf_io_ops *ops)
{
	const struct gf_io_ns *ns = ops->ns;

	if (!ops->name || !ops->init || !ops->cleanup || !ops->open || !ops->close ||
	    !ops->submit || !ops->fsync || !ns)
		return -EINVAL;
	if (!ns->exists || !ns->dir_empty || !ns->mkdirs || !ns->rmdir || !ns->unlink || !ns->statvfs ||
	    !ns->read_small || !ns->write_small)
		return -EINVAL;
	/* An engine that can queue must be able to send and reap. */
	if (ops->async && (!ops->commit || !ops->reap))
		return -EINVAL;
	return 0;
}

/* --- set-up once per process --- */

int gf_io_setup(const struct gf_io_ops *ops, const struct gf_kvmap *opts, char *err, size_t len)
{
	char dummy[8];

	if (!err || !len) {
		err = dummy;
		len = sizeof(dummy);
	}
	err[0] = '\0';
	return ops->setup ? ops->setup(opts, err, len) : 0;
}

void gf_io_teardown(const struct gf_io_ops *ops)
{
	if (ops->teardown)
		ops->teardown();
}

/* The bridge (gf_io_setup_on_first_use): per backend of the registry, the options kept
 * and whether setup ran. */
static struct pending {
	struct gf_kvmap *opts; /* kept until setup runs */
	bool done;
	int rc;
	char err[512];
} pending[NREG];
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static bool pending_atexit;

static struct pending *pending_of(const struct gf_io_ops *ops)
{
	for (size_t i = 0; i < NREG; i++)
		if (registry[i] == ops)
			return &pending[i];
	return NULL;
}

static void teardown_pending(void)
{
	pthread_mutex_lock(&pending_lock);
	for (size_t i = 0; i < NREG; i++) {
		if (pending[i].done && !pending[i].rc)
			gf_io_teardown(registry[i]);
		pending[i].done = false;
		if (pending[i].opts)
			explicit_bzero(pending[i].opts, sizeof(*pending[i].opts));
		free(pending[i].opts);
		pending[i].opts = NULL;
	}
	pthread_mutex_unlock(&pending_lock);
}

int gf_io_setup_on_first_use(const struct gf_io_ops *ops, const struct gf_kvmap *opts)
{
	struct pending *p = pending_of(ops);
	struct gf_kvmap *copy;

	if (!p || !ops->setup)
		return 0;
	copy = malloc(sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	if (opts)
		*copy = *opts;
	else
		copy->n = 0;
	pthread_mutex_lock(&pending_lock);
	if (p->opts)
		explicit_bzero(p->opts, sizeof(*p->opts));
	free(p->opts);
	p->opts = copy;
	p->done = false;
	if (!pending_atexit && atexit(teardown_pending) == 0)
		pending_atexit = true;
	pthread_mutex_unlock(&pending_lock);
	return 0;
}

int gf_io_setup_pending(const struct gf_io_ops *ops, char *err, size_t len)
{
	struct pending *p = pending_of(ops);
	int rc = 0;

	if (!p)
		return 0;
	pthread_mutex_lock(&pending_lock);
	if (p->opts && !p->done) {
		p->rc = gf_io_setup(ops, p->opts, p->err, sizeof(p->err));
		p->done = true;
		/* The options may hold secrets (storage_options.secret_access_key). */
		explicit_bzero(p->opts, sizeof(*p->opts));
		free(p->opts);
		p->opts = NULL;
	}
	if (p->done && p->rc) {
		rc = p->rc;
		if (err && len)
			snprintf(err, len, "%s", p->err);
	}
	pthread_mutex_unlock(&pending_lock);
	return rc;
}

const char *gf_io_opt(const struct gf_kvmap *m, const char *key)
{
	if (!m)
		return NULL;
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].value;
	return NULL;
}

int gf_io_opt_set(struct gf_kvmap *m, const char *key, const char *value)
{
	int i;

	if (strlen(key) >= sizeof(m->kv[0].key) || strlen(value) >= sizeof(m->kv[0].value))
		return -ENAMETOOLONG;
	for (i = 0; i < m->n && strcmp(m->kv[i].key, key); i++)
		;
	if (i == GF_KV_MAX)
		return -ENOSPC;
	snprintf(m->kv[i].key, sizeof(m->kv[i].key), "%s", key);
	snprintf(m->kv[i].value, sizeof(m->kv[i].value), "%s", value);
	if (i == m->n)
		m->n++;
	return 0;
}

static volatile sig_atomic_t *cancel_flag;
static uint64_t cancel_ns;

void gf_io_cancel_on(volatile sig_atomic_t *stop)
{
	cancel_flag = stop;
}

/* Atomic: a ceiling's first reader thread sets it while the others run. */
void gf_io_cancel_deadline(uint64_t deadline_ns)
{
	__atomic_store_n(&cancel_ns, deadline_ns, __ATOMIC_RELAXED);
}

void gf_io_cancel_off(void)
{
	cancel_flag = NULL;
	gf_io_cancel_deadline(0);
}

bool gf_io_cancelled(void)
{
	uint64_t end = __atomic_load_n(&cancel_ns, __ATOMIC_RELAXED);

	return (cancel_flag && *cancel_flag) || (end && gf_now_ns() >= end);
}

const char *gf_io_notice(const struct gf_io_ops *ops)
{
	return ops->notice ? ops->notice() : NULL;
}

void gf_io_counters(const struct gf_io_ops *ops, struct gf_io *io,
		    void (*cb)(void *arg, const char *name, uint64_t value), void *arg)
{
	if (ops->counters)
		ops->counters(io, cb, arg);
}

/* --- instances --- */

int gf_io_open_backend(const struct gf_io_ops *ops, const struct gf_io_config *cfg,
		       struct gf_io **out)
{
	struct gf_io *io;
	int rc;

	rc = gf_io_check_ops(ops);
	if (rc)
		return rc;
	rc = gf_io_setup_pending(ops, NULL, 0);
	if (rc)
		return rc;
	io = calloc(1, sizeof(*io));
	if (!io)
		return -ENOMEM;
	io->ops = ops;
	io->cfg = *cfg;
	if (io->cfg.queue_depth == 0)
		io->cfg.queue_depth = 1;
	if (ops->priv_size) {
		io->priv = calloc(1, ops->priv_size);
		if (!io->priv) {
			rc = -ENOMEM;
			goto err_io;
		}
	}
	rc = ops->init(io);
	if (rc)
		goto err_priv;
	*out = io;
	return 0;
err_priv:
	free(io->priv);
err_io:
	free(io);
	return rc;
}

void gf_io_close_backend(struct gf_io *io)
{
	if (!io)
		return;
	io->ops->cleanup(io);
	free(io->priv);
	free(io);
}
