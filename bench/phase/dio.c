/* dio: see dio.h. */
#include "phase/dio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/workload.h"

size_t gf_dio_chunk(size_t chunk, unsigned align)
{
	size_t c;

	if (align <= 1)
		return chunk ? chunk : 1;
	c = (size_t)gf_align_down(chunk, align);
	return c ? c : align;
}

void gf_span_begin(struct gf_span_iter *it, uint64_t off, uint64_t len, size_t chunk,
		   unsigned align)
{
	if (align == 0)
		align = 1;
	it->data_off = off;
	it->data_end = off + len;
	it->pos = gf_align_down(off, align);
	it->end = gf_align_up(off + len, align);
	it->chunk = gf_dio_chunk(chunk, align);
}

bool gf_span_next(struct gf_span_iter *it, struct gf_span *s)
{
	uint64_t left, stop, start;

	if (it->pos >= it->end)
		return false;
	left = it->end - it->pos;
	s->offset = it->pos;
	s->length = left < it->chunk ? (size_t)left : it->chunk;
	stop = it->pos + s->length < it->data_end ? it->pos + s->length : it->data_end;
	start = it->pos > it->data_off ? it->pos : it->data_off;
	s->need = (size_t)(stop - it->pos);
	s->useful = stop > start ? (size_t)(stop - start) : 0;
	it->pos += s->length;
	return true;
}

/* The logical block size of the block device under st_dev, from sysfs: the device's own
 * queue, or its parent's for a partition. 0 when there is none (network filesystems,
 * device mapper without a queue folder, containers without /sys). */
static unsigned sysfs_block_size(dev_t dev)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/logical_block_size",
		"/sys/dev/block/%u:%u/../queue/logical_block_size",
	};
	char path[128];

	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		unsigned v = 0;
		FILE *f;

		snprintf(path, sizeof(path), fmt[i], major(dev), minor(dev));
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
		/* A power of two from 512 to 64 KiB, or not believable. */
		if (v >= 512 && v <= 65536 && !(v & (v - 1)))
			return v;
	}
	return 0;
}

/* Try reads of a bytes into a buffer aligned to a (and not to 2a), for a = 512 .. 4096:
 * the smallest that the kernel accepts is the alignment. At offset 0, because a direct
 * read at or past the end of the file returns 0 before any alignment is checked. */
static unsigned probe_align(int fd)
{
	unsigned char *buf;
	unsigned found = 0;

	if (posix_memalign((void **)&buf, 8192, 16384))
		return 0;
	for (unsigned a = 512; a <= 4096 && !found; a *= 2) {
		ssize_t n = pread(fd, buf + a, a, 0);
		if (n >= 0)
			found = a;
	}
	free(buf);
	return found;
}

int gf_dio_query(const char *file, const char *fs_type, struct gf_dio_info *info)
{
	struct statx sx;
	struct stat st;
	int fd;

	memset(info, 0, sizeof(*info));
	if (statx(AT_FDCWD, file, 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
		/* Linux 6.1+: the filesystem says it itself. */
		if (sx.stx_dio_offset_align == 0) {
			snprintf(info->why, sizeof(info->why), "the %s filesystem reports no direct I/O "
				 "support for %s", fs_type, file);
			return 0;
		}
		info->supported = true;
		info->offset_align = sx.stx_dio_offset_align;
		info->mem_align = sx.stx_dio_mem_align ? sx.stx_dio_mem_align : sx.stx_dio_offset_align;
		snprintf(info->source, sizeof(info->source), "statx");
		return 0;
	}
	/* tmpfs accepts O_DIRECT since Linux 6.6 but serves every read from memory: there is
	 * no storage beneath it for direct I/O to reach. */
	if (!strcmp(fs_type, "tmpfs") || !strcmp(fs_type, "ramfs")) {
		snprintf(info->why, sizeof(info->why), "%s keeps files in memory and has no direct "
			 "I/O: every read is served from memory", fs_type);
		return 0;
	}
	fd = open(file, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		int rc = -errno;
		if (rc == -EINVAL) {
			snprintf(info->why, sizeof(info->why), "the %s filesystem refuses O_DIRECT (open "
				 "%s: %s)", fs_type, file, strerror(EINVAL));
			return 0;
		}
		return rc;
	}
	if (fstat(fd, &st) == 0 && (info->offset_align = sysfs_block_size(st.st_dev))) {
		snprintf(info->source, sizeof(info->source), "sysfs");
	} else if ((info->offset_align = probe_align(fd))) {
		snprintf(info->source, sizeof(info->source), "probe");
	} else {
		snprintf(info->why, sizeof(info->why), "the %s filesystem accepts O_DIRECT on %s but "
			 "refuses every aligned read from 512 to 4096 bytes", fs_type, file);
		close(fd);
		return 0;
	}
	info->mem_align = info->offset_align;
	info->supported = true;
	close(fd);
	return 0;
}

void gf_dio_decide(int mode, const char *file, const char *fs_type, struct gf_dio_decision *d)
{
	struct gf_dio_info info;
	int rc;

	memset(d, 0, sizeof(*d));
	d->align = d->mem_align = 1;
	if (mode == GF_DIRECT_OFF) {
		snprintf(d->reason, sizeof(d->reason), "buffered reads (target.direct false)");
		return;
	}
	d->requested = true;
	if (!file) {
		if (strcmp(fs_type, "tmpfs") && strcmp(fs_type, "ramfs"))
			return;
		snprintf(info.why, sizeof(info.why), "%s keeps files in memory and has no direct I/O: "
			 "every read is served from memory", fs_type);
		rc = 0;
		info.supported = false;
	} else {
		rc = gf_dio_query(file, fs_type, &info);
		if (rc)
			snprintf(info.why, sizeof(info.why), "cannot examine %s: %s", file, strerror(-rc));
	}
	if (!rc && info.supported) {
		d->direct = true;
		d->align = info.offset_align;
		d->mem_align = info.mem_align > info.offset_align ? info.mem_align : info.offset_align;
		snprintf(d->source, sizeof(d->source), "%s", info.source);
		snprintf(d->reason, sizeof(d->reason), "O_DIRECT on %s, offsets and lengths aligned to %u "
			 "bytes, buffers to %u (from %s)", fs_type, d->align, d->mem_align, d->source);
		return;
	}
	if (mode == GF_DIRECT_AUTO) {
		snprintf(d->reason, sizeof(d->reason), "target.direct auto: %s; reading buffered", info.why);
		return;
	}
	d->status = -EINVAL;
	snprintf(d->reason, sizeof(d->reason), "O_DIRECT was asked for (reader.odirect or target.direct "
		 "true) but %s; set target.direct=auto to fall back to buffered reads where it is refused",
		 info.why);
}
