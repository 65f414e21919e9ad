/* kv: a key-value map passed through untouched (storage_options, MPI-IO hints, a
 * backend's own options). The ground floor: every floor may use it. */
#ifndef GF_KV_H
#define GF_KV_H

/* The length of a string value in the workload and its maps. */
#define GF_STR 256

struct gf_kv {
	char key[64];
	char value[GF_STR];
};
#define GF_KV_MAX 32
struct gf_kvmap {
	int n;
	struct gf_kv kv[GF_KV_MAX];
};

#endif
