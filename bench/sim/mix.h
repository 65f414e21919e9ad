/* mix (sim): a mix (model/mix.h: several jobs under one mpirun) on the cluster model.
 * Each job gets whole client nodes of its own (clients.ranks_per_node ranks each, jobs in
 * file order), so jobs share the network's pools and the storage servers, never a node.
 * For every job that checkpoints, its write burst and its restore are run with every
 * other training job reading beside them (max-min fair, cluster.h); between the bursts
 * the training jobs read alone together. Predicted for each training job: its read rate
 * and AU between the others' bursts and during them (steady state: delivered / demand),
 * and its verdict; for each checkpointing job its bursts in the mix. Two jobs' bursts are
 * not run overlapping, and start: is not modelled (every burst meets the training reads).
 * servers.shard_placement is by each job's own rank, as its checkpoint_ranks.csv has it.
 * Pure: no I/O. */
#ifndef GF_SIM_MIX_H
#define GF_SIM_MIX_H

#include <stdbool.h>
#include <stddef.h>

#include "model/mix.h"
#include "sim/cluster.h"
#include "sim/system.h"

enum gf_sim_mix_verdict { GF_SIM_MIX_FED, GF_SIM_MIX_STARVED, GF_SIM_MIX_MEASURED };

struct gf_sim_mix_job {
	char name[GF_MIX_NAME];
	unsigned ranks, node0, nodes;
	bool reads;                 /* a training job */
	unsigned writes, restores;  /* its checkpoint bursts of each kind */
	/* training (reads): bytes/s of the whole job, percent; *_during NAN when no other
	 * job bursts */
	double demand, au_needed;
	double read_between, au_between;
	double read_during, au_during;           /* over all the others' bursts, time-weighted */
	double au_during_writes, au_during_restores;
	int limit;                               /* what holds its reads between the bursts */
	char bursts_of[256];                     /* the jobs whose bursts "during" covers */
	/* checkpoint: one burst of each kind, the training jobs reading beside it */
	double ckpt_bytes;
	struct gf_sim_burst write, restore;
	enum gf_sim_mix_verdict verdict;
	char line[512];
};

struct gf_sim_mix {
	unsigned nodes;
	size_t njobs;
	struct gf_sim_mix_job *jobs;
	double total_between; /* bytes/s the storage gives the training jobs between bursts */
	double total_during;  /* bytes/s it moves during bursts (the burst and the reads beside it),
			       * time-weighted over the bursts; NAN without any */
};

/* Simulate mix m on sys. Returns 0, or -EINVAL with the job and why in err (a job whose
 * ranks its model cannot be laid on, flows that cannot be solved) / -ENOMEM. */
int gf_sim_mix(const struct gf_mix *m, const struct gf_system *sys, struct gf_sim_mix *out, char *err,
	       size_t errlen);
void gf_sim_mix_free(struct gf_sim_mix *r);
const char *gf_sim_mix_verdict_word(enum gf_sim_mix_verdict v);
struct json_object;
/* r's figures as the simulated_mix section of root (results/schema.def's SIM_MIX rows). */
void gf_sim_mix_json(struct json_object *root, const struct gf_mix *m, const struct gf_sim_mix *r);

#endif
