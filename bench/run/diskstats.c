/* diskstats: see diskstats.h. */
#include "run/diskstats.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int gf_diskstats_parse(const char *line, char *name, size_t len, struct gf_diskstats *d)
{
	unsigned maj, mnr;
	char dev[64];
	/* iostats.rst fields 1-11 after the name: reads, merged, sectors, ms reading,
	 * writes, merged, sectors, ms writing, in flight, ms doing I/O, weighted ms. */
	uint64_t f[11];
	int n = sscanf(line, " %u %u %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		       " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &maj, &mnr, dev, &f[0], &f[1],
		       &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10]);

	if (n != 14)
		return -EINVAL;
	snprintf(name, len, "%s", dev);
	*d = (struct gf_diskstats){
		.rd_ios = f[0], .rd_sectors = f[2], .rd_ms = f[3], .wr_ios = f[4], .wr_sectors = f[6],
		.wr_ms = f[7], .busy_ms = f[9], .queue_ms = f[10],
	};
	return 0;
}

int gf_diskstats_read(const char *file, const char *name, struct gf_diskstats *d)
{
	FILE *f = fopen(file ? file : "/proc/diskstats", "r");
	char line[512], dev[64];
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!gf_diskstats_parse(line, dev, sizeof(dev), d) && !strcmp(dev, name)) {
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

/* The nearest existing path at or above path (a target's data folder may not exist
 * before datagen). */
static int existing(const char *path, struct stat *st)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	while (stat(buf, st)) {
		char *slash = strrchr(buf, '/');
		if (errno != ENOENT || !slash)
			return -errno;
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (!strcmp(buf, "/"))
			return stat(buf, st) ? -errno : 0;
	}
	return 0;
}

int gf_diskstats_device(const char *path, char *name, size_t len)
{
	char sys[128], real[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;
	int rc = existing(path, &st);

	if (rc)
		return rc;
	if (major(st.st_dev) == 0) /* tmpfs, NFS, overlay, FUSE: anonymous devices */
		return -ENODEV;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(sys, real))
		return errno == ENOENT ? -ENODEV : -errno;
	/* A partition's sysfs folder holds a "partition" file and sits in its disk's. */
	snprintf(part, sizeof(part), "%s/partition", real);
	if (!access(part, F_OK))
		*strrchr(real, '/') = '\0';
	snprintf(name, len, "%s", basename(real));
	return 0;
}

static uint64_t since(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void gf_diskstats_delta(const struct gf_diskstats *a, const struct gf_diskstats *b, struct gf_fig_device *f)
{
	uint64_t busy = since(a->busy_ms, b->busy_ms);

	f->read_requests += since(a->rd_ios, b->rd_ios);
	f->write_requests += since(a->wr_ios, b->wr_ios);
	f->read_bytes += 512 * since(a->rd_sectors, b->rd_sectors);
	f->write_bytes += 512 * since(a->wr_sectors, b->wr_sectors);
	f->read_ms += since(a->rd_ms, b->rd_ms);
	f->write_ms += since(a->wr_ms, b->wr_ms);
	f->busy_ms += busy;
	f->queue_ms += since(a->queue_ms, b->queue_ms);
	if (busy > f->busy_ms_max)
		f->busy_ms_max = busy;
	f->devices++;
	f->known = true;
}
