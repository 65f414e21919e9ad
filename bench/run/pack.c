/* pack: see pack.h. */
#include "run/pack.h"

#include <string.h>

#define U64 sizeof(uint64_t)
#define DBL sizeof(double)
_Static_assert(sizeof(struct gf_pk_train) == 8 * U64 + 5 * DBL, "struct gf_pk_train is packed");
_Static_assert(sizeof(struct gf_pk_row) == 6 * U64 + 5 * DBL, "struct gf_pk_row is packed");
_Static_assert(sizeof(struct gf_pk_async) == 3 * U64 + 4 * DBL + 2 * sizeof(struct gf_moments),
	       "struct gf_pk_async is packed");
_Static_assert(sizeof(struct gf_moments) == U64 + 4 * DBL, "struct gf_moments is packed");
_Static_assert(sizeof(struct gf_pk_ceiling) == 6 * U64 + 3 * DBL, "struct gf_pk_ceiling is packed");
_Static_assert(sizeof(struct gf_pk_datagen) == 2 * U64 + DBL, "struct gf_pk_datagen is packed");
_Static_assert(sizeof(struct gf_pk_ts) == (1 + GF_TS_FIELDS) * U64,
	       "struct gf_pk_ts has a field for every series field (stats/series.h)");

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/* --- train --- */

void gf_pk_train_pack(const struct gf_train_result *tr, struct gf_pk_train *p)
{
	memset(p, 0, sizeof(*p));
	p->read_bytes = tr->read_bytes;
	p->requests = tr->requests;
	p->samples = tr->samples;
	p->steps = tr->steps;
	p->requested_bytes = tr->requested_bytes;
	p->opens = tr->opens;
	p->duration_reached = tr->duration_reached;
	p->elapsed_s = (double)(tr->end_ns - tr->start_ns) / 1e9;
	p->cpu_s = tr->cpu_s;
	p->runqueue_wait_s = tr->runqueue_wait_s;
	for (unsigned a = 0; a < tr->naccel; a++) {
		double g = gf_accel_goodput(&tr->accel[a]);
		p->halted_s += tr->accel[a].halted_ns / 1e9;
		if (g >= 0) {
			p->goodput_sum += g;
			p->goodput_n++;
		}
	}
}

void gf_pk_train_combine(void *acc, const void *in)
{
	struct gf_pk_train *a = acc;
	const struct gf_pk_train *b = in;

	a->read_bytes += b->read_bytes;
	a->requests += b->requests;
	a->samples += b->samples;
	a->steps += b->steps;
	a->requested_bytes += b->requested_bytes;
	a->opens += b->opens;
	a->duration_reached = max_u64(a->duration_reached, b->duration_reached);
	a->elapsed_s = max_d(a->elapsed_s, b->elapsed_s);
	a->cpu_s += b->cpu_s;
	a->runqueue_wait_s += b->runqueue_wait_s;
	a->halted_s += b->halted_s;
	a->goodput_sum += b->goodput_sum;
	a->goodput_n += b->goodput_n;
}

void gf_pk_train_unpack(const struct gf_pk_train *p, struct gf_run_summary *s)
{
	s->read_bytes = p->read_bytes;
	s->requests = p->requests;
	s->samples = p->samples;
	s->steps = p->steps;
	s->requested_bytes = p->requested_bytes;
	s->opens = p->opens;
	s->duration_reached = p->duration_reached != 0;
	s->elapsed_s = p->elapsed_s;
	s->cpu_s = p->cpu_s;
	s->runqueue_wait_s = p->runqueue_wait_s;
	s->checkpoint_halt_s = p->halted_s;
	s->goodput_percent = p->goodput_n ? p->goodput_sum / (double)p->goodput_n : -1;
	s->train_ran = true;
}

/* --- accelerator rows --- */

void gf_pk_row_pack(int rank, int node, const struct gf_accel *acc, struct gf_pk_row *p)
{
	memset(p, 0, sizeof(*p));
	p->rank = (uint64_t)rank;
	p->node = (uint64_t)node;
	p->accel = acc->id;
	p->steps = acc->steps;
	p->samples = acc->samples;
	p->bytes = acc->bytes;
	p->au = gf_accel_au(acc);
	p->compute_s = acc->compute_ns / 1e9;
	p->stall_s = acc->stall_ns / 1e9;
	p->barrier_s = acc->barrier_ns / 1e9;
	p->elapsed_s = gf_accel_elapsed_ns(acc) / 1e9;
}

void gf_pk_row_unpack(const struct gf_pk_row *p, struct gf_accel_row *row)
{
	row->rank = (int)p->rank;
	row->node = (int)p->node;
	row->accel = (unsigned)p->accel;
	row->steps = p->steps;
	row->samples = p->samples;
	row->bytes = p->bytes;
	row->au = p->au;
	row->compute_s = p->compute_s;
	row->stall_s = p->stall_s;
	row->barrier_s = p->barrier_s;
	row->elapsed_s = p->elapsed_s;
}

/* --- checkpoint.mode async --- */

void gf_pk_async_pack(const struct gf_train_result *tr, struct gf_pk_async *p)
{
	const struct gf_train_async *a = &tr->async;

	memset(p, 0, sizeof(*p));
	gf_moments_init(&p->au_during);
	gf_moments_init(&p->au_outside);
	p->read_bytes_during = a->read_bytes_during;
	p->read_bytes_outside = tr->read_bytes - a->read_bytes_during;
	p->bursts = a->bursts;
	p->wait_s = a->wait_s;
	p->burst_s = a->burst_s;
	p->during_s = a->during_s;
	p->outside_s = a->outside_s;
	/* AU inside and outside the burst windows, per accelerator that had time there. */
	for (unsigned i = 0; tr->async_ran && i < tr->naccel; i++) {
		const struct gf_accel *acc = &tr->accel[i];
		uint64_t el = gf_accel_elapsed_ns(acc), cin = a->compute_in_ns[i], ein = a->elapsed_in_ns[i];
		if (ein > 0)
			gf_moments_add(&p->au_during, 100.0 * (double)cin / (double)ein);
		if (el > ein)
			gf_moments_add(&p->au_outside, 100.0 * (double)(acc->compute_ns - cin) / (double)(el - ein));
	}
}

void gf_pk_async_combine(void *acc, const void *in)
{
	struct gf_pk_async *a = acc;
	const struct gf_pk_async *b = in;

	a->read_bytes_during += b->read_bytes_during;
	a->read_bytes_outside += b->read_bytes_outside;
	a->bursts = max_u64(a->bursts, b->bursts);
	a->wait_s += b->wait_s;
	a->burst_s = max_d(a->burst_s, b->burst_s);
	a->during_s = max_d(a->during_s, b->during_s);
	a->outside_s = max_d(a->outside_s, b->outside_s);
	gf_moments_merge(&a->au_during, &b->au_during);
	gf_moments_merge(&a->au_outside, &b->au_outside);
}

void gf_pk_async_unpack(const struct gf_pk_async *p, struct gf_run_summary *s)
{
	s->async_ran = true;
	s->async.bursts = (unsigned)p->bursts;
	s->async.burst_s = p->burst_s;
	s->async.wait_s = p->wait_s;
	s->async.read_bytes_per_s_during = p->during_s > 0 ? (double)p->read_bytes_during / p->during_s : 0;
	s->async.read_bytes_per_s_outside = p->outside_s > 0 ? (double)p->read_bytes_outside / p->outside_s : 0;
	s->async.au_during_percent = p->au_during.n ? p->au_during.mean : -1;
	s->async.au_outside_percent = p->au_outside.n ? p->au_outside.mean : -1;
}

/* --- ceiling --- */

void gf_pk_ceiling_pack(const struct gf_ceiling_result *cr, struct gf_pk_ceiling *p)
{
	memset(p, 0, sizeof(*p));
	p->read_bytes = cr->read_bytes;
	p->requested_bytes = cr->requested_bytes;
	p->requests = cr->requests;
	p->samples = cr->samples;
	p->opens = cr->opens;
	p->duration_reached = cr->duration_reached;
	p->elapsed_s = (double)(cr->end_ns - cr->start_ns) / 1e9;
	p->cpu_s = cr->cpu_s;
	p->reader_cpu_s = cr->reader_cpu_s;
}

void gf_pk_ceiling_combine(void *acc, const void *in)
{
	struct gf_pk_ceiling *a = acc;
	const struct gf_pk_ceiling *b = in;

	a->read_bytes += b->read_bytes;
	a->requested_bytes += b->requested_bytes;
	a->requests += b->requests;
	a->samples += b->samples;
	a->opens += b->opens;
	a->duration_reached = max_u64(a->duration_reached, b->duration_reached);
	a->elapsed_s = max_d(a->elapsed_s, b->elapsed_s);
	a->cpu_s += b->cpu_s;
	a->reader_cpu_s += b->reader_cpu_s;
}

void gf_pk_ceiling_unpack(const struct gf_pk_ceiling *p, struct gf_ceiling_figures *f)
{
	f->read_bytes = p->read_bytes;
	f->requested_bytes = p->requested_bytes;
	f->requests = p->requests;
	f->samples = p->samples;
	f->opens = p->opens;
	f->duration_reached = p->duration_reached != 0;
	f->elapsed_s = p->elapsed_s;
	f->cpu_s = p->cpu_s;
	f->reader_cpu_s = p->reader_cpu_s;
}

/* --- datagen --- */

void gf_pk_datagen_pack(const struct gf_datagen_result *dg, struct gf_pk_datagen *p)
{
	memset(p, 0, sizeof(*p));
	p->files = dg->files;
	p->bytes = dg->bytes;
	p->elapsed_s = dg->elapsed_s;
}

void gf_pk_datagen_combine(void *acc, const void *in)
{
	struct gf_pk_datagen *a = acc;
	const struct gf_pk_datagen *b = in;

	a->files += b->files;
	a->bytes += b->bytes;
	a->elapsed_s = max_d(a->elapsed_s, b->elapsed_s);
}

void gf_pk_datagen_unpack(const struct gf_pk_datagen *p, struct gf_run_summary *s)
{
	s->datagen_ran = true;
	s->datagen_files = p->files;
	s->datagen_bytes = p->bytes;
	s->datagen_s = p->elapsed_s;
}

/* --- histograms and the time series --- */

void gf_pk_hist_combine(void *acc, const void *in)
{
	gf_hist_merge(acc, in);
}

void gf_pk_ts_pack(uint64_t interval, const uint64_t v[GF_TS_FIELDS], struct gf_pk_ts *p)
{
	p->interval = interval;
	p->read_bytes = v[GF_TS_READ_BYTES];
	p->write_bytes = v[GF_TS_WRITE_BYTES];
	p->samples = v[GF_TS_SAMPLES];
	p->requests = v[GF_TS_REQUESTS];
	p->compute_ns = v[GF_TS_COMPUTE_NS];
	p->stall_ns = v[GF_TS_STALL_NS];
	p->ckpt_ns = v[GF_TS_CKPT_NS];
	p->latency_ns = v[GF_TS_LATENCY_NS];
}

void gf_pk_ts_unpack(const struct gf_pk_ts *p, int rank, struct gf_ts_row *row)
{
	row->rank = rank;
	row->interval = p->interval;
	row->v[GF_TS_READ_BYTES] = p->read_bytes;
	row->v[GF_TS_WRITE_BYTES] = p->write_bytes;
	row->v[GF_TS_SAMPLES] = p->samples;
	row->v[GF_TS_REQUESTS] = p->requests;
	row->v[GF_TS_COMPUTE_NS] = p->compute_ns;
	row->v[GF_TS_STALL_NS] = p->stall_ns;
	row->v[GF_TS_CKPT_NS] = p->ckpt_ns;
	row->v[GF_TS_LATENCY_NS] = p->latency_ns;
}
