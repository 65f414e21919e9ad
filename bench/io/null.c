/* null: completes every request at once without touching storage (fio's engines/null.c
 * idea). It measures gpufeed's own overhead: with it an emulated accelerator must never
 * stall, so any stall seen on a real backend belongs to the storage. */
#include <errno.h>

#include "io/io.h"

static int null_init(struct gf_io *io)
{
	(void)io;
	return 0;
}

static void null_cleanup(struct gf_io *io)
{
	(void)io;
}

static int null_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	(void)io;
	(void)path;
	(void)flags;
	*file = 0;
	return 0;
}

static int null_close(struct gf_io *io, uint64_t file)
{
	(void)io;
	(void)file;
	return 0;
}

static int null_submit(struct gf_io *io, struct gf_io_req *req)
{
	(void)io;
	req->result = (int64_t)req->length;
	return GF_IO_COMPLETED;
}

static int null_fsync(struct gf_io *io, uint64_t file)
{
	(void)io;
	(void)file;
	return 0;
}

const struct gf_io_ops gf_io_null = {
	.name = "null",
	.caps = GF_IO_CAP_NOIO | GF_IO_CAP_KERNEL_PATH,
	.help = "completes every request at once: gpufeed's own overhead floor",
	.async = false,
	.init = null_init,
	.cleanup = null_cleanup,
	.open = null_open,
	.close = null_close,
	.submit = null_submit,
	.fsync = null_fsync,
	.ns = &gf_io_posix_ns,
};
