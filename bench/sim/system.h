/* system: the cluster and storage that gpufeed simulate models, read from a YAML system
 * file (libyaml) through one key table that drives the loader, the "did you mean"
 * suggestions, the writer (calibrate writes a fitted file) and the JSON in summary.json.
 * Unknown keys, wrong types and values out of range are errors naming the file, the line
 * and the key. Keys and units: docs/simulate.md. */
#ifndef GF_SYSTEM_H
#define GF_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

#define GF_SYS_STR 512

struct gf_system {
	char file[GF_SYS_STR]; /* where it was loaded from */
	char name[128];
	char description[GF_SYS_STR];
	char source[GF_SYS_STR]; /* where its numbers come from */

	struct {
		int64_t nodes;          /* default node count; 0 = the workload's ranks / ranks_per_node */
		int64_t ranks_per_node;
		double nic_bandwidth;   /* per node, each direction, bytes/s; 0 = no limit */
		double node_read_bandwidth, node_write_bandwidth; /* client ceiling per node; 0 = none */
		double rank_read_bandwidth, rank_write_bandwidth; /* per-client (rank) ceiling; 0 = none */
	} clients;

	struct {
		double link_bandwidth;      /* each server's link, each direction; 0 = no limit */
		double bisection_bandwidth; /* clients <-> servers, each direction; 0 = full */
	} network;

	struct {
		int64_t count;
		double read_bandwidth, write_bandwidth; /* per server, bytes/s */
		double request_latency;                 /* s per request */
		/* s a training read request spends besides its transfer, in series with it
		 * (a reader waits for it before its bytes move) */
		double read_request_latency;
		/* s every rank of a checkpoint burst spends besides its bytes, the same at any
		 * size (creates or opens, lookups, TCP ramp-up): write bursts, restore bursts */
		double write_burst_overhead, read_burst_overhead;
		double metadata_rate;                   /* creates/opens per second, whole system; 0 = no limit */
		double burst_placement_skew; /* busiest server's share of a burst / an even share; 1..count */
		/* The server (0..count-1) that holds each rank's checkpoint shard, by global
		 * rank, repeating when shorter than the ranks; NULL (n = 0): striped over all,
		 * with burst_placement_skew. Owned by the struct loaded (gf_system_free); a copy
		 * of the struct borrows it. */
		uint32_t *shard_placement;
		uint32_t shard_placement_n;
	} servers;

	struct {
		double prefix_request_rate; /* requests/s per prefix; 0 = not an object store */
		int64_t prefixes;
		double ttfb;                /* s to the first byte of every request */
		double request_bytes;       /* multipart part / ranged GET size */
	} object_store;

	struct {
		double accelerator_mttf; /* s, per accelerator */
		double restart_time;     /* s to restart a job, besides reading its checkpoint */
	} failures;

	unsigned key_line[48]; /* line each key was set on (0 = default, UINT_MAX = command line),
				* indexed like the table */
};

enum gf_sys_key_type { GF_SYS_STRING, GF_SYS_COUNT, GF_SYS_BANDWIDTH, GF_SYS_SECONDS, GF_SYS_RATE,
		       GF_SYS_SIZE, GF_SYS_FACTOR, GF_SYS_SERVER_LIST };

struct gf_sys_key {
	const char *path;
	enum gf_sys_key_type type;
	size_t offset, size;
	double min, max; /* inclusive; for strings unused */
	bool required;
	const char *help;
};

extern const struct gf_sys_key gf_sys_keys[];
extern const size_t gf_sys_nkeys;

void gf_system_defaults(struct gf_system *s);
/* Free what a loaded system owns (servers.shard_placement); s keeps its other values. */
void gf_system_free(struct gf_system *s);
/* Load a system file into s (which holds defaults) and check it. Returns 0, or -errno with
 * a message naming the file, line and key in err (-ENOENT when it cannot be read, -EINVAL
 * for bad content). */
int gf_system_load(const char *file, struct gf_system *s, char *err, size_t errlen);
/* Set one key from text ("servers.count", "64"), as a file line would; a list key takes
 * its values separated by commas ("0,0,1,0", brackets allowed). */
int gf_system_set(struct gf_system *s, const char *path, const char *value, const char *file,
		  unsigned line, char *err, size_t errlen);
/* Cross-key checks (required keys, servers with bandwidth). Returns 0 or -EINVAL. */
int gf_system_check(const struct gf_system *s, char *err, size_t errlen);
/* The known key nearest to path, for "did you mean" (NULL when nothing is near). */
const char *gf_system_nearest(const char *path);

/* Write s as a system file that gf_system_load reads back to the same values; header
 * lines are written first as comments. Returns 0 or -EIO. */
int gf_system_write(FILE *f, const struct gf_system *s, const char *header);
struct json_object *gf_system_to_json(const struct gf_system *s);

/* Parse a bandwidth: a size per second ("25GB/s", "1.5 GiB/s", "800MB"), bits per second
 * ("200Gbit/s", SI), or a plain number of bytes/s. Returns 0 or -EINVAL. */
int gf_parse_bandwidth(const char *text, double *bytes_per_s);

#endif
