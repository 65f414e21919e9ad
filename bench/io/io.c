/* io: the registry of backends (one table, the only place a backend is listed) and the
 * per-thread instance life cycle. */
#include "io/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* In order of preference for a local path: the default is the first that probes well. */
static const struct gf_io_ops *const registry[] = {
#ifdef HAVE_URING
	&gf_io_uring,
#endif
#ifdef HAVE_AIO
	&gf_io_aio,
#endif
	&gf_io_posix,
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

const struct gf_io_ops *gf_io_default_local(char *why, size_t len)
{
	char skipped[256] = "", reason[128];

	for (size_t i = 0; i < NREG; i++) {
		const struct gf_io_ops *o = registry[i];
		size_t l = strlen(skipped);

		if (!strcmp(o->name, "null"))
			continue;
		if (!o->probe || o->probe(reason, sizeof(reason)) == 0) {
			snprintf(why, len, "default for a local path: %s is the first engine this kernel "
				 "allows%s%s", o->name, skipped[0] ? "; " : "", skipped);
			return o;
		}
		snprintf(skipped + l, sizeof(skipped) - l, "%s%s unavailable (%s)", l ? ", " : "",
			 o->name, reason);
	}
	snprintf(why, len, "no engine usable: %s", skipped);
	return NULL;
}

int gf_io_check_ops(const struct gf_io_ops *ops)
{
	if (!ops->name || !ops->init || !ops->cleanup || !ops->open || !ops->close ||
	    !ops->submit || !ops->fsync || !ops->mkdirs || !ops->size || !ops->unlink)
		return -EINVAL;
	/* An engine that can queue must be able to send and reap. */
	if (ops->async && (!ops->commit || !ops->reap))
		return -EINVAL;
	return 0;
}

int gf_io_open_backend(const struct gf_io_ops *ops, const struct gf_io_config *cfg,
		       struct gf_io **out)
{
	struct gf_io *io;
	int rc;

	rc = gf_io_check_ops(ops);
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
