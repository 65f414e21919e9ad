/* mmap: each file mapped once when it is opened (PROT_READ, MAP_SHARED, the whole file),
 * and a read is a memcpy from the mapping, completed in submit(). Page faults, not
 * system calls, bring the data in: what a loader built on numpy.memmap sees. DLIO's
 * indexed-binary mmap reader maps the file in open() and slices the sample out of the
 * mapping in get_sample() (dlio_benchmark/reader/indexed_binary_mmap_reader.py lines
 * 78-83 and 91-97); its slice is a view that touches no page until the sample is used,
 * so this engine copies, which touches every byte once, as using the sample would.
 *
 * Read-only (datagen and checkpoints write through the default engine of the path), no
 * O_DIRECT (a mapping always goes through the page cache). The handle is the file's
 * mapping; the descriptor is closed as soon as the mapping exists. A file truncated
 * while it is mapped raises SIGBUS on the next fault: gpufeed's datasets are not
 * rewritten while a phase reads them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/beneath.h"
#include "io/io.h"

/* One open file: its mapping, on the instance's list so cleanup unmaps what the caller
 * left open. */
struct mapping {
	unsigned char *base; /* NULL for an empty file: nothing to map */
	size_t len;
	struct mapping *prev, *next;
};

struct mmap_priv {
	struct mapping *open; /* every open file of the instance */
};

static int mmap_init(struct gf_io *io)
{
	if (io->cfg.direct) {
		snprintf(io->detail, sizeof(io->detail), "the mmap engine reads through the page cache: "
			 "a mapping has no O_DIRECT");
		return -EINVAL;
	}
	return 0;
}

static void unmap(struct mmap_priv *p, struct mapping *m)
{
	if (m->prev)
		m->prev->next = m->next;
	else
		p->open = m->next;
	if (m->next)
		m->next->prev = m->prev;
	if (m->base)
		munmap(m->base, m->len);
	free(m);
}

static void mmap_cleanup(struct gf_io *io)
{
	struct mmap_priv *p = io->priv;

	while (p->open)
		unmap(p, p->open);
}

static int fail(struct gf_io *io, const char *what, const char *path)
{
	int rc = -errno;

	snprintf(io->detail, sizeof(io->detail), "%s %s: %s", what, path, strerror(errno));
	return rc;
}

static int mmap_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	struct mmap_priv *p = io->priv;
	struct mapping *m;
	struct stat st;
	int fd, rc = 0;

	if (flags & (GF_O_WRITE | GF_O_DIRECT)) {
		snprintf(io->detail, sizeof(io->detail), "the mmap engine only reads, through the page cache");
		return -EOPNOTSUPP;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* Beneath the held root, a regular file only (io/beneath.h): a FIFO never blocks. */
	fd = gf_beneath_open(path, O_RDONLY, 0);
	if (fd < 0) {
		rc = fd;
		snprintf(io->detail, sizeof(io->detail), "open %s: %s", path,
			 rc == -ENXIO ? "not a regular file (a FIFO, socket or device)" : strerror(-rc));
		goto err_m;
	}
	if (fstat(fd, &st)) {
		rc = fail(io, "fstat", path);
		goto err_fd;
	}
	m->len = (size_t)st.st_size;
	if (m->len) {
		void *a = mmap(NULL, m->len, PROT_READ, MAP_SHARED, fd, 0);
		if (a == MAP_FAILED) {
			rc = fail(io, "mmap", path);
			goto err_fd;
		}
		m->base = a;
	}
	/* The mapping keeps the file; the descriptor is not needed any more. */
	close(fd);
	m->next = p->open;
	if (p->open)
		p->open->prev = m;
	p->open = m;
	*file = (uint64_t)(uintptr_t)m;
	return 0;
err_fd:
	close(fd);
err_m:
	free(m);
	return rc;
}

static int mmap_close(struct gf_io *io, uint64_t file)
{
	unmap(io->priv, (struct mapping *)(uintptr_t)file);
	return 0;
}

static int mmap_submit(struct gf_io *io, struct gf_io_req *req)
{
	const struct mapping *m = (const struct mapping *)(uintptr_t)req->file;
	size_t n = 0;

	if (req->op != GF_IO_READ) {
		snprintf(io->detail, sizeof(io->detail), "the mmap engine only reads");
		req->result = -EOPNOTSUPP;
		return GF_IO_COMPLETED;
	}
	/* Past the end of the file a read is short, as pread's is. */
	if (req->offset < m->len)
		n = m->len - req->offset < req->length ? (size_t)(m->len - req->offset) : req->length;
	if (n)
		memcpy(req->buf, m->base + req->offset, n);
	req->result = (int64_t)n;
	return GF_IO_COMPLETED;
}

static int mmap_fsync(struct gf_io *io, uint64_t file)
{
	/* Read-only mappings: nothing to make durable. */
	(void)io;
	(void)file;
	return 0;
}

const struct gf_io_ops gf_io_mmap = {
	.name = "mmap",
	.caps = GF_IO_CAP_READONLY | GF_IO_CAP_KERNEL_PATH,
	.help = "each file mapped once, a read is a memcpy from the mapping (page faults, no system "
		"call per read; DLIO's indexed_binary mmap reader)",
	.async = false,
	.priv_size = sizeof(struct mmap_priv),
	.init = mmap_init,
	.cleanup = mmap_cleanup,
	.open = mmap_open,
	.close = mmap_close,
	.submit = mmap_submit,
	.fsync = mmap_fsync,
	.ns = &gf_io_posix_ns,
};
