/* merge: the cross-rank merges of a run's figures. Every rank calls each one in the same
 * order (they are collectives); rank 0 receives the result in the run summary. */
#include "run/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/world.h"

#define ROW_FIELDS 10

void gf_merge_hist(struct gf_hist *h)
{
	uint64_t sums[2] = { h->count, h->sum_ns };

	gf_world_sum_u64(h->bucket, GF_HIST_BUCKETS);
	gf_world_sum_u64(sums, 2);
	gf_world_min_u64(&h->min_ns, 1);
	gf_world_max_u64(&h->max_ns, 1);
	h->count = sums[0];
	h->sum_ns = sums[1];
}

/* checkpoint.mode async: the interference figures, merged like the train figures: bytes
 * summed, times of the phase max over ranks (all ranks burst together after one barrier),
 * AU per accelerator then the mean over accelerators. Called on every rank. */
static void merge_async(const struct gf_world *world, const struct gf_train_result *tr,
			struct gf_run_summary *s)
{
	const struct gf_train_async *a = &tr->async;
	/* wait, bytes during, bytes outside, sum AU during, accelerators, sum AU outside, accelerators */
	double sum[7] = { a->wait_s, (double)a->read_bytes_during,
			  (double)(tr->read_bytes - a->read_bytes_during), 0, 0, 0, 0 };
	double max[4] = { a->bursts, a->burst_s, a->during_s, a->outside_s };

	for (unsigned i = 0; tr->async_ran && i < tr->naccel; i++) {
		const struct gf_accel *acc = &tr->accel[i];
		uint64_t el = gf_accel_elapsed_ns(acc), cin = a->compute_in_ns[i], ein = a->elapsed_in_ns[i];
		if (ein > 0) {
			sum[3] += 100.0 * (double)cin / (double)ein;
			sum[4]++;
		}
		if (el > ein) {
			sum[5] += 100.0 * (double)(acc->compute_ns - cin) / (double)(el - ein);
			sum[6]++;
		}
	}
	gf_world_sum_double(sum, 7);
	gf_world_max_double(max, 4);
	if (world->rank != 0)
		return;
	s->async_ran = true;
	s->async.bursts = (unsigned)max[0];
	s->async.burst_s = max[1];
	s->async.wait_s = sum[0];
	s->async.read_bytes_per_s_during = max[2] > 0 ? sum[1] / max[2] : 0;
	s->async.read_bytes_per_s_outside = max[3] > 0 ? sum[2] / max[3] : 0;
	s->async.au_during_percent = sum[4] > 0 ? sum[3] / sum[4] : -1;
	s->async.au_outside_percent = sum[6] > 0 ? sum[5] / sum[6] : -1;
}

/* The per-rank time series, gathered on rank 0 into rows of (rank, interval, fields).
 * Called on every rank; *rows and *n are set on rank 0 only. Returns 0 or -errno, the
 * same on every rank. */
static int gather_series(const struct gf_world *world, const struct gf_series *series,
			 struct gf_ts_row **rows, size_t *n)
{
	size_t cnt = series->n, rowlen = 1 + GF_TS_FIELDS, rowbytes = rowlen * sizeof(uint64_t), total = 0;
	uint64_t *packed = calloc(cnt ? cnt * rowlen : 1, sizeof(uint64_t));
	size_t *counts = world->rank == 0 ? calloc((size_t)world->size, sizeof(size_t)) : NULL;
	void *buf = NULL;
	int rc = packed && (world->rank != 0 || counts) ? 0 : -ENOMEM;

	if (gf_world_agree(rc, "out of memory packing the time series", NULL, 0)) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < cnt; i++) {
		packed[i * rowlen] = i;
		memcpy(&packed[i * rowlen + 1], series->v[i], GF_TS_FIELDS * sizeof(uint64_t));
	}
	rc = gf_world_gatherv(packed, cnt * rowbytes, &buf, counts);
	if (rc || world->rank != 0)
		goto out;
	for (int r = 0; r < world->size; r++)
		total += counts[r] / rowbytes;
	*rows = calloc(total ? total : 1, sizeof(**rows));
	if (!*rows) {
		rc = -ENOMEM;
		goto out;
	}
	*n = 0;
	{
		const uint64_t *p = buf;
		for (int r = 0; r < world->size; r++)
			for (size_t i = 0; i < counts[r] / rowbytes; i++, p += rowlen) {
				struct gf_ts_row *row = &(*rows)[(*n)++];
				row->rank = r;
				row->interval = p[0];
				memcpy(row->v, p + 1, sizeof(row->v));
			}
	}
out:
	free(buf);
	free(counts);
	free(packed);
	return rc;
}

int gf_merge_train(const struct gf_world *world, struct gf_train_result *tr,
		       struct gf_run_summary *s)
{
	unsigned per = tr->naccel;
	double *mine, *all = NULL;
	uint64_t tot[6] = { tr->read_bytes, tr->requests, tr->samples, tr->steps, tr->requested_bytes,
			    tr->opens };
	double el = (double)(tr->end_ns - tr->start_ns) / 1e9, cpu = tr->cpu_s;
	uint64_t dur = tr->duration_reached;
	int rc = 0;

	mine = calloc((size_t)per * ROW_FIELDS, sizeof(double));
	if (world->rank == 0) {
		all = calloc((size_t)per * ROW_FIELDS * world->size, sizeof(double));
		s->rows = calloc((size_t)per * world->size, sizeof(*s->rows));
	}
	if (!mine || (world->rank == 0 && (!all || !s->rows)))
		rc = -ENOMEM;
	if (gf_world_agree(rc, "out of memory merging results", NULL, 0)) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned a = 0; a < per; a++) {
		const struct gf_accel *acc = &tr->accel[a];
		double *r = mine + (size_t)a * ROW_FIELDS;
		r[0] = world->rank;
		r[1] = world->node_id;
		r[2] = acc->id;
		r[3] = gf_accel_au(acc);
		r[4] = acc->compute_ns / 1e9;
		r[5] = acc->stall_ns / 1e9;
		r[6] = gf_accel_elapsed_ns(acc) / 1e9;
		r[7] = (double)acc->steps;
		r[8] = (double)acc->samples;
		r[9] = (double)acc->bytes;
	}
	gf_world_gather_double(mine, (size_t)per * ROW_FIELDS, all);
	gf_merge_hist(&tr->latency);
	gf_merge_hist(&tr->open_latency);
	gf_world_sum_u64(tot, 6);
	/* Elapsed: every rank started right after the same barrier, so the phase lasted as
	 * long as the slowest rank (IOR's earliest start, latest stop). */
	gf_world_max_double(&el, 1);
	gf_world_sum_double(&cpu, 1);
	gf_world_max_u64(&dur, 1);
	{
		/* halted (all accelerators), goodput summed over the accelerators that have one */
		double h[3] = { 0, 0, 0 };
		for (unsigned a = 0; a < per; a++) {
			double g = gf_accel_goodput(&tr->accel[a]);
			h[0] += tr->accel[a].halted_ns / 1e9;
			if (g >= 0) {
				h[1] += g;
				h[2]++;
			}
		}
		gf_world_sum_double(h, 3);
		s->checkpoint_halt_s = h[0];
		s->goodput_percent = h[2] > 0 ? h[1] / h[2] : -1;
	}
	/* The mode, not tr->async_ran: every rank must make the same calls even if one failed
	 * before its checkpoint thread started. */
	if (s->w->workflow.checkpoint && !strcmp(s->w->checkpoint.mode, "async"))
		merge_async(world, tr, s);

	rc = gather_series(world, &tr->series, &s->ts, &s->nts);
	if (rc)
		goto out;

	if (world->rank == 0) {
		s->interval_s = 1.0;
		s->nrows = per * (unsigned)world->size;
		for (unsigned i = 0; i < s->nrows; i++) {
			const double *r = all + (size_t)i * ROW_FIELDS;
			struct gf_accel_row *row = &s->rows[i];
			row->rank = (int)r[0];
			row->node = (int)r[1];
			row->accel = (unsigned)r[2];
			row->au = r[3];
			row->compute_s = r[4];
			row->stall_s = r[5];
			row->elapsed_s = r[6];
			row->steps = (uint64_t)r[7];
			row->samples = (uint64_t)r[8];
			row->bytes = (uint64_t)r[9];
		}
		s->latency = tr->latency;
		s->open_latency = tr->open_latency;
		s->read_bytes = tot[0];
		s->requests = tot[1];
		s->samples = tot[2];
		s->steps = tot[3];
		s->requested_bytes = tot[4];
		s->opens = tot[5];
		s->elapsed_s = el;
		s->cpu_s = cpu;
		s->duration_reached = dur != 0;
		s->train_ran = true;
	}
out:
	free(all);
	free(mine);
	return rc;
}

int gf_merge_ceiling(const struct gf_world *world, struct gf_ceiling_result *cr,
			 struct gf_run_summary *s)
{
	int rc;

	uint64_t tot[6] = { cr->read_bytes, cr->requested_bytes, cr->requests, cr->samples, cr->opens,
			    cr->duration_reached };
	double el = (double)(cr->end_ns - cr->start_ns) / 1e9, cpu[2] = { cr->cpu_s, cr->reader_cpu_s };

	gf_merge_hist(&cr->latency);
	gf_merge_hist(&cr->open_latency);
	gf_world_sum_u64(tot, 5);
	gf_world_max_u64(&tot[5], 1);
	/* Every rank started after the same barrier: the phase lasted as long as the slowest. */
	gf_world_max_double(&el, 1);
	gf_world_sum_double(cpu, 2);
	rc = gather_series(world, &cr->series, &s->ceiling_ts, &s->nceiling_ts);
	if (world->rank != 0)
		return rc;
	s->ceiling.latency = cr->latency;
	s->ceiling.open_latency = cr->open_latency;
	s->ceiling.read_bytes = tot[0];
	s->ceiling.requested_bytes = tot[1];
	s->ceiling.requests = tot[2];
	s->ceiling.samples = tot[3];
	s->ceiling.opens = tot[4];
	s->ceiling.duration_reached = tot[5] != 0;
	s->ceiling.elapsed_s = el;
	s->ceiling.cpu_s = cpu[0];
	s->ceiling.reader_cpu_s = cpu[1];
	s->ceiling_ran = true;
	return rc;
}

void gf_merge_datagen(const struct gf_world *world, const struct gf_datagen_result *dg,
		      struct gf_run_summary *s)
{
	uint64_t sums[2] = { dg->files, dg->bytes };
	double secs = dg->elapsed_s;

	gf_world_sum_u64(sums, 2);
	gf_world_max_double(&secs, 1);
	if (world->rank != 0)
		return;
	s->datagen_ran = true;
	s->datagen_files = sums[0];
	s->datagen_bytes = sums[1];
	s->datagen_s = secs;
}
