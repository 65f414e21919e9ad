/* io: the registry of backends (one table, the only place a backend is listed) and the
 * per-thread instance life cycle. */
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct gf_io_ops *const registry[] = {
	&gf_io_posix,
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
