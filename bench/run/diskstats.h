/* diskstats: the block device a local target lives on, and what it did during a phase,
 * from /proc/diskstats (Documentation/admin-guide/iostats.rst): requests, bytes, time
 * reading and writing, time busy (io_ticks) and the time-weighted queue (time_in_queue),
 * the figures iostat derives %util, aqu-sz and r_await/w_await from.
 *
 * The device is found from stat(target).st_dev through /sys/dev/block/MAJ:MIN; a
 * partition counts as its parent disk (whose queue it shares); loop and md devices count
 * as they are. A target on no block device (tmpfs, NFS, overlay, FUSE: major 0) has none.
 *
 * The counters are the whole device's, every process's: a run on a shared disk sees the
 * others' I/O too. One rank per node samples (the driver's node rank 0): every rank of a
 * node would read the same counters, and summing them would count the device as many
 * times as the node has ranks; a local path names each node's own device. */
#ifndef GF_RUN_DISKSTATS_H
#define GF_RUN_DISKSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "results/figures.h"

/* One line of /proc/diskstats: the fields gpufeed uses (sectors are 512 bytes there
 * whatever the device's block size). */
struct gf_diskstats {
	uint64_t rd_ios, rd_sectors, rd_ms, wr_ios, wr_sectors, wr_ms, busy_ms, queue_ms;
};

/* Parse one line of /proc/diskstats ("   7  1 loop1 131 2 63578 3000 ..."): the device
 * name into name (len bytes) and the counters into d. Returns 0 or -EINVAL. */
int gf_diskstats_parse(const char *line, char *name, size_t len, struct gf_diskstats *d);

/* The counters of device name, read from file (NULL: /proc/diskstats). Returns 0,
 * -ENOENT when the device has no line, or -errno. */
int gf_diskstats_read(const char *file, const char *name, struct gf_diskstats *d);

/* The whole-disk name of the block device holding path (or, when path does not exist yet,
 * its nearest existing parent). Returns 0, -ENODEV when it lives on no block device, or
 * -errno. */
int gf_diskstats_device(const char *path, char *name, size_t len);

/* What the device did between a and b (b later), added into f (rank 0's phase figures
 * and the merge add the nodes' devices). Counters that went backwards (a device
 * re-created) count as 0. */
void gf_diskstats_delta(const struct gf_diskstats *a, const struct gf_diskstats *b, struct gf_fig_device *f);

/* The derived figures (%util, aqu-sz, await) are report/device.h's. */

#endif
