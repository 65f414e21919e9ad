/* uring: io_uring through liburing, one ring per instance (per reader thread).
 *
 * submit() only fills a submission queue entry; commit() hands every queued entry to the
 * kernel with one system call; reap() takes completions from the shared completion ring
 * and enters the kernel only when fewer than asked for are there. The caller's request
 * buffers are registered once (register_buffers), so reads use READ_FIXED and the kernel
 * does not pin and unpin pages per request. When the caller keeps files open
 * (cfg.max_open > 0) they are registered in a sparse fixed-file table, which saves a file
 * reference per request; per-sample open and close would pay a registration system
 * call per file for nothing, so then plain descriptors are used.
 *
 * Files on a memory filesystem (tmpfs, ramfs) are the exception: the kernel has no
 * non-blocking read or write for them, so io_uring cannot make one in the submitting
 * thread and hands each to an io-wq worker thread. There requests are made inline with
 * pread/pwrite, which is cheaper (measured, docs/performance.md) and loses nothing: a
 * read from memory never waits for a device.
 *
 * Ring flags: SQPOLL when asked (setup option "sqpoll", from target.sqpoll); otherwise SINGLE_ISSUER | DEFER_TASKRUN,
 * because one thread owns the ring and completion work then runs only when we reap,
 * with fallbacks for kernels that lack them. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "io/io.h"

/* A handle is the descriptor in the low 32 bits, and the fixed-file slot + 1 above. */
#define FD_OF(h) ((int)((h) & 0xffffffffu))
#define SLOT_OF(h) ((int)((h) >> 32) - 1)

/* Idle time before an SQPOLL thread sleeps; long enough to stay awake between batches. */
#define SQPOLL_IDLE_MS 50

struct uring_priv {
	struct io_uring ring;
	bool ring_ok;
	/* registered buffers */
	char *buf_base;
	size_t buf_size;
	unsigned nbufs;
	/* sparse fixed-file table: free slots on a stack */
	int *free_slots;
	unsigned nfree_slots, nslots;
	/* The files of this instance live in memory (tmpfs, ramfs): -1 until its first open
	 * tells. The kernel cannot read or write them without blocking (no FMODE_NOWAIT), so
	 * io_uring would hand every request to an io-wq worker thread: a wake-up and two
	 * context switches per request. They are made in this thread instead (pread/pwrite,
	 * as Linux AIO does for buffered files), where nothing waits for a device. */
	int memfs;
};

static int ring_init(struct io_uring *ring, unsigned entries, bool sqpoll, char *detail,
		     size_t dlen)
{
	static const unsigned tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	struct io_uring_params p;
	int rc = -EINVAL;

	if (sqpoll) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = SQPOLL_IDLE_MS;
		rc = io_uring_queue_init_params(entries, ring, &p);
		if (rc)
			snprintf(detail, dlen, "io_uring with SQPOLL: %s", strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		rc = io_uring_queue_init_params(entries, ring, &p);
		/* EINVAL: a flag this kernel does not know; anything else is final. */
		if (rc != -EINVAL)
			break;
	}
	if (rc)
		snprintf(detail, dlen, "io_uring_queue_init: %s", strerror(-rc));
	return rc;
}

/* setup's "sqpoll": every ring of the process gets a kernel submission thread. */
static bool sqpoll;

static int uring_setup(const struct gf_kvmap *opts, char *err, size_t len)
{
	const char *v = gf_io_opt(opts, "sqpoll");

	(void)err;
	(void)len;
	sqpoll = v && (!strcmp(v, "true") || !strcmp(v, "1"));
	return 0;
}

static void uring_teardown(void)
{
	sqpoll = false;
}

static int uring_init(struct gf_io *io)
{
	struct uring_priv *u = io->priv;
	unsigned entries = io->cfg.queue_depth;
	int rc;

	rc = ring_init(&u->ring, entries, sqpoll, io->detail, sizeof(io->detail));
	if (rc)
		return rc;
	u->ring_ok = true;
	u->memfs = -1;
	/* Saves a descriptor lookup on every io_uring_enter; optional (kernel 5.18). */
	(void)io_uring_register_ring_fd(&u->ring);
	if (io->cfg.max_open) {
		u->nslots = io->cfg.max_open;
		u->free_slots = malloc(u->nslots * sizeof(*u->free_slots));
		if (!u->free_slots) {
			rc = -ENOMEM;
			goto err_ring;
		}
		/* Without the table (old kernel, limits) files simply stay unregistered. */
		if (io_uring_register_files_sparse(&u->ring, u->nslots) == 0) {
			for (unsigned i = 0; i < u->nslots; i++)
				u->free_slots[i] = (int)(u->nslots - 1 - i);
			u->nfree_slots = u->nslots;
		}
	}
	return 0;
err_ring:
	io_uring_queue_exit(&u->ring);
	u->ring_ok = false;
	return rc;
}

static void uring_cleanup(struct gf_io *io)
{
	struct uring_priv *u = io->priv;

	/* Exiting the ring drops registered buffers and files with it. */
	if (u->ring_ok)
		io_uring_queue_exit(&u->ring);
	free(u->free_slots);
	memset(u, 0, sizeof(*u));
}

static int uring_register_buffers(struct gf_io *io, void *base, size_t size, unsigned n)
{
	struct uring_priv *u = io->priv;
	struct iovec *iov;
	int rc;

	if (n == 0 || size == 0)
		return -EINVAL;
	iov = calloc(n, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		iov[i].iov_base = (char *)base + (size_t)i * size;
		iov[i].iov_len = size;
	}
	rc = io_uring_register_buffers(&u->ring, iov, n);
	free(iov);
	if (rc) {
		/* Usually RLIMIT_MEMLOCK: plain reads work as well, a little slower. */
		snprintf(io->detail, sizeof(io->detail), "io_uring_register_buffers: %s", strerror(-rc));
		return rc;
	}
	u->buf_base = base;
	u->buf_size = size;
	u->nbufs = n;
	return 0;
}

static int uring_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	struct uring_priv *u = io->priv;
	uint64_t h;
	int fd, rc;

	/* The same open(2) flags as posix and aio; only the registration below is uring's. */
	rc = gf_io_posix.open(io, path, flags, &h);
	if (rc)
		return rc;
	fd = (int)h;
	h = (uint32_t)fd;
	if (u->memfs < 0) {
		/* An instance reads one dataset or writes one folder: its first file tells. */
		struct statfs sf;
		u->memfs = !fstatfs(fd, &sf) && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
	}
	/* A request made inline needs no fixed file. */
	if (u->nfree_slots && !u->memfs) {
		int slot = u->free_slots[u->nfree_slots - 1];
		if (io_uring_register_files_update(&u->ring, (unsigned)slot, &fd, 1) == 1) {
			u->nfree_slots--;
			h |= (uint64_t)(slot + 1) << 32;
		}
	}
	*file = h;
	return 0;
}

static int uring_close(struct gf_io *io, uint64_t file)
{
	struct uring_priv *u = io->priv;
	int slot = SLOT_OF(file), none = -1;

	if (slot >= 0) {
		/* The slot is free again only once the kernel dropped its reference. */
		if (io_uring_register_files_update(&u->ring, (unsigned)slot, &none, 1) == 1)
			u->free_slots[u->nfree_slots++] = slot;
	}
	if (close(FD_OF(file))) {
		snprintf(io->detail, sizeof(io->detail), "close: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int uring_submit(struct gf_io *io, struct gf_io_req *req)
{
	struct uring_priv *u = io->priv;
	struct io_uring_sqe *sqe;
	char *buf = req->buf;
	int slot = SLOT_OF(req->file);
	int fd = slot >= 0 ? slot : FD_OF(req->file);

	if (u->memfs > 0) {
		uint64_t h = req->file;
		int rc;

		req->file = (uint64_t)FD_OF(h);
		rc = gf_io_posix.submit(io, req);
		req->file = h;
		return rc;
	}
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		/* The queue holds more than the caller's depth: send it and retry once. */
		int rc = io_uring_submit(&u->ring);
		if (rc < 0)
			return rc;
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	if (u->nbufs && buf >= u->buf_base && buf + req->length <= u->buf_base + (size_t)u->nbufs * u->buf_size &&
	    (size_t)(buf - u->buf_base) / u->buf_size == (size_t)(buf + req->length - 1 - u->buf_base) / u->buf_size) {
		int idx = (int)((size_t)(buf - u->buf_base) / u->buf_size);
		if (req->op == GF_IO_READ)
			io_uring_prep_read_fixed(sqe, fd, buf, (unsigned)req->length, req->offset, idx);
		else
			io_uring_prep_write_fixed(sqe, fd, buf, (unsigned)req->length, req->offset, idx);
	} else if (req->op == GF_IO_READ) {
		io_uring_prep_read(sqe, fd, buf, (unsigned)req->length, req->offset);
	} else {
		io_uring_prep_write(sqe, fd, buf, (unsigned)req->length, req->offset);
	}
	if (slot >= 0)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, req);
	return GF_IO_QUEUED;
}

static int uring_commit(struct gf_io *io)
{
	struct uring_priv *u = io->priv;
	int rc;

	do
		rc = io_uring_submit(&u->ring);
	while (rc == -EINTR);
	if (rc < 0) {
		snprintf(io->detail, sizeof(io->detail), "io_uring_submit: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

static int uring_reap(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **done)
{
	struct uring_priv *u = io->priv;
	struct io_uring_cqe *cqes[64];
	unsigned n = 0;

	while (n < max) {
		unsigned want = max - n < 64 ? max - n : 64;
		unsigned got = io_uring_peek_batch_cqe(&u->ring, cqes, want);

		if (got == 0) {
			int rc;

			if (n >= min)
				break;
			/* Also sends anything still queued, in the same system call. */
			rc = io_uring_submit_and_wait(&u->ring, min - n);
			if (rc == -EINTR || rc == -EAGAIN || rc == -EBUSY)
				continue;
			if (rc < 0) {
				snprintf(io->detail, sizeof(io->detail), "io_uring_submit_and_wait: %s",
					 strerror(-rc));
				return rc;
			}
			continue;
		}
		for (unsigned i = 0; i < got; i++) {
			struct gf_io_req *r = io_uring_cqe_get_data(cqes[i]);
			r->result = cqes[i]->res;
			if (r->op == GF_IO_WRITE && r->result >= 0 && (size_t)r->result < r->length)
				gf_io_finish_short_write(FD_OF(r->file), r);
			done[n++] = r;
		}
		io_uring_cq_advance(&u->ring, got);
	}
	return (int)n;
}

static int uring_fsync(struct gf_io *io, uint64_t file)
{
	return gf_io_posix.fsync(io, (uint64_t)FD_OF(file));
}

static int uring_probe(char *why, size_t len)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(2, &ring, 0);

	if (rc) {
		/* ENOSYS: kernel without io_uring; EPERM: disabled by sysctl or seccomp. */
		snprintf(why, len, "io_uring_setup: %s", strerror(-rc));
		return rc;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

const struct gf_io_ops gf_io_uring = {
	.name = "uring",
	.caps = GF_IO_CAP_ASYNC | GF_IO_CAP_DIRECT | GF_IO_CAP_KERNEL_PATH | GF_IO_CAP_SQPOLL,
	.help = "io_uring: batched submission, registered buffers and files, queue_depth per thread "
		"(on tmpfs each request inline: io_uring would need a worker thread per request)",
	.async = true,
	.priv_size = sizeof(struct uring_priv),
	.setup = uring_setup,
	.teardown = uring_teardown,
	.init = uring_init,
	.cleanup = uring_cleanup,
	.open = uring_open,
	.close = uring_close,
	.submit = uring_submit,
	.commit = uring_commit,
	.reap = uring_reap,
	.fsync = uring_fsync,
	.ns = &gf_io_posix_ns,
	.register_buffers = uring_register_buffers,
	.probe = uring_probe,
};
