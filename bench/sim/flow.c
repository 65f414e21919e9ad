/* flow: see flow.h. */
#include "sim/flow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance for "full" and "at its cap": rates are sums of many products, and
 * a resource that is full up to rounding must freeze its flows, or the solver would take
 * a useless extra round with a step of 1e-16. */
#define REL_EPS 1e-12

void gf_flow_init(struct gf_flow_net *n)
{
	memset(n, 0, sizeof(*n));
}

void gf_flow_free(struct gf_flow_net *n)
{
	free(n->res);
	free(n->cls);
	free(n->uses);
	free(n->live);
	memset(n, 0, sizeof(*n));
}

void gf_flow_clear_classes(struct gf_flow_net *n)
{
	n->ncls = 0;
	n->nuses = 0;
}

/* Make room for one more element of an array that doubles. Returns 0 or -ENOMEM. */
static int grow(void **arr, uint32_t *room, uint32_t used, size_t elem)
{
	uint32_t want;
	void *p;

	if (used < *room)
		return 0;
	if (*room > UINT32_MAX / 2)
		return -ENOMEM;
	want = *room ? *room * 2 : 64;
	p = realloc(*arr, (size_t)want * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*room = want;
	return 0;
}

int64_t gf_flow_add_res(struct gf_flow_net *n, double cap, int kind)
{
	int rc;

	if (!(cap > 0) || !isfinite(cap) || kind < 0 || kind >= GF_FLOW_KINDS)
		return -EINVAL;
	rc = grow((void **)&n->res, &n->res_room, n->nres, sizeof(*n->res));
	if (rc)
		return rc;
	n->res[n->nres] = (struct gf_flow_res){ .cap = cap, .kind = kind };
	return n->nres++;
}

int64_t gf_flow_add_class(struct gf_flow_net *n, const struct gf_flow_class *c,
			  const struct gf_flow_use *uses, uint32_t nuse)
{
	struct gf_flow_class *k;
	int rc;

	if (!(c->mult > 0) || !(c->bytes >= 0) || !(c->cap > 0) || !(c->tail_s >= 0) ||
	    c->cap_kind < 0 || c->cap_kind >= GF_FLOW_KINDS)
		return -EINVAL;
	for (uint32_t i = 0; i < nuse; i++)
		if (uses[i].res >= n->nres || !(uses[i].coef > 0) || !isfinite(uses[i].coef))
			return -EINVAL;
	rc = grow((void **)&n->cls, &n->cls_room, n->ncls, sizeof(*n->cls));
	if (rc)
		return rc;
	while (n->nuses + nuse > n->uses_room) {
		rc = grow((void **)&n->uses, &n->uses_room, n->uses_room, sizeof(*n->uses));
		if (rc)
			return rc;
	}
	if (nuse)
		memcpy(n->uses + n->nuses, uses, nuse * sizeof(*uses));
	k = &n->cls[n->ncls];
	*k = *c;
	k->first_use = n->nuses;
	k->nuse = nuse;
	k->active = true;
	k->left = c->bytes;
	k->rate = 0;
	k->limit = GF_FLOW_CAPPED;
	k->done_s = NAN;
	k->moved = 0;
	memset(k->kind_s, 0, sizeof(k->kind_s));
	n->nuses += nuse;
	return n->ncls++;
}

static int ensure_live(struct gf_flow_net *n)
{
	uint32_t *p;

	if (n->live_room >= n->ncls)
		return 0;
	p = realloc(n->live, (size_t)n->ncls * sizeof(*p));
	if (!p)
		return -ENOMEM;
	n->live = p;
	n->live_room = n->ncls;
	return 0;
}

/* One round of progressive filling: raise the live classes from level by the largest
 * step no resource and no cap forbids. Returns the step, or INFINITY when nothing
 * bounds it. */
static double fill_step(struct gf_flow_net *n, uint32_t nlive, double level)
{
	double step = INFINITY;

	for (uint32_t r = 0; r < n->nres; r++)
		n->res[r].wsum = 0;
	for (uint32_t i = 0; i < nlive; i++) {
		const struct gf_flow_class *c = &n->cls[n->live[i]];
		for (uint32_t u = 0; u < c->nuse; u++) {
			const struct gf_flow_use *use = &n->uses[c->first_use + u];
			n->res[use->res].wsum += c->mult * use->coef;
		}
		if (c->cap - level < step)
			step = c->cap - level;
	}
	for (uint32_t r = 0; r < n->nres; r++) {
		struct gf_flow_res *res = &n->res[r];
		if (res->wsum > 0 && !res->full) {
			double s = (res->cap - res->used) / res->wsum;
			if (s < step)
				step = s > 0 ? s : 0;
		}
	}
	return step;
}

int gf_flow_solve(struct gf_flow_net *n)
{
	uint32_t nlive = 0;
	double level = 0;
	int rc = ensure_live(n);

	if (rc)
		return rc;
	n->solves++;
	for (uint32_t r = 0; r < n->nres; r++) {
		n->res[r].used = 0;
		n->res[r].full = false;
	}
	for (uint32_t i = 0; i < n->ncls; i++) {
		n->cls[i].rate = 0;
		if (n->cls[i].active)
			n->live[nlive++] = i;
	}
	while (nlive) {
		double step = fill_step(n, nlive, level);
		uint32_t keep = 0;

		if (!isfinite(step))
			return -EDOM;
		level += step;
		for (uint32_t r = 0; r < n->nres; r++) {
			struct gf_flow_res *res = &n->res[r];
			if (res->wsum > 0 && !res->full) {
				res->used += step * res->wsum;
				if (res->cap - res->used <= REL_EPS * res->cap)
					res->full = true;
			}
		}
		/* Freeze the classes at their cap or through a full resource. */
		for (uint32_t i = 0; i < nlive; i++) {
			struct gf_flow_class *c = &n->cls[n->live[i]];
			int32_t limit = -2;

			if (level >= c->cap * (1 - REL_EPS))
				limit = GF_FLOW_CAPPED;
			for (uint32_t u = 0; limit == -2 && u < c->nuse; u++) {
				uint32_t r = n->uses[c->first_use + u].res;
				if (n->res[r].full)
					limit = (int32_t)r;
			}
			c->rate = level;
			if (limit == -2)
				n->live[keep++] = n->live[i];
			else
				c->limit = limit;
		}
		nlive = keep;
	}
	return 0;
}

static int kind_of(const struct gf_flow_net *n, const struct gf_flow_class *c)
{
	return c->limit == GF_FLOW_CAPPED ? c->cap_kind : n->res[c->limit].kind;
}

/* Move every active class's bytes for dt seconds at its current rate. */
static void advance(struct gf_flow_net *n, double dt)
{
	for (uint32_t i = 0; i < n->ncls; i++) {
		struct gf_flow_class *c = &n->cls[i];
		if (!c->active)
			continue;
		c->moved += c->rate * dt;
		c->kind_s[kind_of(n, c)] += dt;
		if (isfinite(c->left))
			c->left -= c->rate * dt;
	}
}

int gf_flow_run(struct gf_flow_net *n, double t0, double *end_s, double *bytes_end_s)
{
	double t = t0, last = t0;
	int rc;

	for (uint32_t i = 0; i < n->ncls; i++) {
		struct gf_flow_class *c = &n->cls[i];
		c->left = c->bytes;
		c->moved = 0;
		c->done_s = NAN;
		memset(c->kind_s, 0, sizeof(c->kind_s));
		/* A flow with nothing to move is done at once (after its tail). */
		c->active = c->bytes > 0;
		if (!c->active) {
			c->done_s = t0 + c->tail_s;
			if (c->done_s > last)
				last = c->done_s;
		}
	}
	*bytes_end_s = t0;
	for (;;) {
		double dt = INFINITY;

		rc = gf_flow_solve(n);
		if (rc)
			return rc;
		for (uint32_t i = 0; i < n->ncls; i++) {
			const struct gf_flow_class *c = &n->cls[i];
			if (!c->active || !isfinite(c->left))
				continue;
			if (c->rate <= 0)
				return -EDEADLK;
			if (c->left / c->rate < dt)
				dt = c->left / c->rate;
		}
		if (!isfinite(dt))
			break;
		n->events++;
		advance(n, dt);
		t += dt;
		/* Every class due now (to rounding) ends in this event: one solve for all the
		 * classes that a symmetric layout makes finish together. */
		for (uint32_t i = 0; i < n->ncls; i++) {
			struct gf_flow_class *c = &n->cls[i];
			if (!c->active || !isfinite(c->left))
				continue;
			if (c->left <= c->bytes * 1e-9 || c->left / c->rate <= dt * 1e-9) {
				c->active = false;
				c->moved = c->bytes;
				c->left = 0;
				c->done_s = t + c->tail_s;
				if (c->done_s > last)
					last = c->done_s;
			}
		}
		*bytes_end_s = t;
	}
	*end_s = last > t ? last : t;
	return 0;
}

void gf_flow_coast(struct gf_flow_net *n, double dt)
{
	if (!(dt > 0) || gf_flow_solve(n))
		return;
	advance(n, dt);
}
