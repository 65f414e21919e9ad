/* mix: the mix file through libyaml's document API (every node has its line, so errors
 * point at it), each job's workload through model/yaml.c. */
#include "model/mix.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "model/plan.h"
#include "model/units.h"
#include "model/yaml.h"

static const struct gf_yaml_bounds mix_bounds = {
	1u << 20, 16, "mix", "workloads/mix_two_train_70b.yaml",
	"a mix has jobs:, a list of maps {name, workload, ranks, set, start}",
};

#define JOB_KEYS "name, workload, ranks, folder, set, start"

struct parse {
	yaml_document_t *doc;
	struct gf_mix *m;
	const char *file;
	char *err;
	size_t errlen;
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

static int fail(struct parse *P, const yaml_node_t *n, const char *fmt, const char *a, const char *b)
{
	char what[1024];

	snprintf(what, sizeof(what), fmt, a, b ? b : "");
	snprintf(P->err, P->errlen, "%s:%u: %s", P->file, line_of(n), what);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A job's name is its folder's and its results subfolder's name: 1 to 64 of [A-Za-z0-9._-],
 * not starting with '.'. */
static bool good_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= GF_MIX_NAME || s[0] == '.')
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

/* A folder under the target: relative, no "." or ".." component. */
static bool good_folder(const char *s)
{
	char buf[256], *save = NULL, *c;

	if (!*s || s[0] == '/' || strlen(s) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", s);
	for (c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save))
		if (!strcmp(c, ".") || !strcmp(c, ".."))
			return false;
	return true;
}

/* set: {KEY: VALUE}: a scalar value as it is, a map of scalars as flow YAML (a
 * distribution: {mean: 0.3, stdev: 0.01}), each as --set takes it. */
static int load_sets(struct parse *P, struct gf_mix_job *j, yaml_node_t *map)
{
	yaml_node_pair_t *p;

	if (map->type != YAML_MAPPING_NODE)
		return fail(P, map, "set: is a map of workload keys and values, e.g. set: {train.epochs: 2}%s%s", "", NULL);
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(P->doc, p->key), *v = yaml_document_get_node(P->doc, p->value);
		char val[512] = "";

		if (!scalar(k))
			return fail(P, k, "set: a key is a name such as train.epochs%s%s", "", NULL);
		if (j->nsets >= GF_MIX_MAX_SETS)
			return fail(P, k, "set: at most 64 keys per job%s%s", "", NULL);
		if (v->type == YAML_MAPPING_NODE) {
			yaml_node_pair_t *q;
			size_t at = 0;
			for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
				const char *a = scalar(yaml_document_get_node(P->doc, q->key));
				const char *b = scalar(yaml_document_get_node(P->doc, q->value));
				if (!a || !b)
					return fail(P, v, "set: %s: a map of scalars ({mean: 0.3, stdev: 0.01})%s", scalar(k), NULL);
				at += (size_t)snprintf(val + at, at < sizeof(val) ? sizeof(val) - at : 0, "%s%s: %s",
						       q == v->data.mapping.pairs.start ? "{" : ", ", a, b);
			}
			if (at + 2 >= sizeof(val))
				return fail(P, v, "set: %s: the value is too long%s", scalar(k), NULL);
			strcat(val, at ? "}" : "{}");
		} else if (scalar(v)) {
			snprintf(val, sizeof(val), "%s", scalar(v));
		} else {
			return fail(P, v, "set: %s: a value is a scalar or a map of scalars%s", scalar(k), NULL);
		}
		if (asprintf(&j->sets[j->nsets], "%s=%s", scalar(k), val) < 0) {
			j->sets[j->nsets] = NULL;
			snprintf(P->err, P->errlen, "%s: out of memory", P->file);
			return -ENOMEM;
		}
		j->nsets++;
	}
	return 0;
}

/* start: now | after DELAY | after JOB end | after JOB checkpoint N. The job is found once
 * every name is known, N checked once its workload is. */
static int load_start(struct parse *P, struct gf_mix_job *j, yaml_node_t *n, char *after, size_t alen)
{
	const char *s = scalar(n);
	char a[128], b[128], c[16], extra[8];
	int k;

	if (!s)
		goto bad;
	if (!strcmp(s, "now")) {
		j->start = GF_MIX_NOW;
		return 0;
	}
	k = sscanf(s, "after %127s %127s %15s %7s", a, b, c, extra);
	if (k == 1 && !gf_parse_time(a, &j->delay_s) && j->delay_s >= 0) {
		j->start = GF_MIX_DELAY;
		return 0;
	}
	if ((k == 2 && !strcmp(b, "end")) || (k == 3 && !strcmp(b, "checkpoint"))) {
		char *end;
		long nth = k == 3 ? strtol(c, &end, 10) : 0;
		if (k == 3 && (*end || nth < 1 || nth > 1 << 20))
			return fail(P, n, "start: '%s': after JOB checkpoint N takes N from 1 (the JOB's first "
				    "checkpoint write)%s", s, NULL);
		j->start = k == 3 ? GF_MIX_AFTER_CKPT : GF_MIX_AFTER_END;
		j->after_n = (unsigned)nth;
		snprintf(after, alen, "%s", a);
		return 0;
	}
bad:
	return fail(P, n, "start: '%s': allowed: now, after DELAY (after 30s), after JOB end, after JOB checkpoint N "
		    "(JOB another job of the mix, N from 1)%s", s ? s : "(not a scalar)", NULL);
}

static int load_job(struct parse *P, struct gf_mix_job *j, yaml_node_t *map, char *after, size_t alen)
{
	yaml_node_pair_t *p;
	bool named = false, ranked = false, wl = false;

	if (map->type != YAML_MAPPING_NODE)
		return fail(P, map, "a job is a map with keys " JOB_KEYS "%s%s", "", NULL);
	j->line = line_of(map);
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(P->doc, p->key), *v = yaml_document_get_node(P->doc, p->value);
		const char *key = scalar(k), *val = scalar(v);
		int rc = 0;

		if (!key)
			return fail(P, k, "a job's keys are " JOB_KEYS "%s%s", "", NULL);
		if (strcmp(key, "set") && strcmp(key, "start") && !val)
			return fail(P, v, "%s: a scalar value%s", key, NULL);
		if (!strcmp(key, "name")) {
			if (!good_name(val))
				return fail(P, v, "name: '%s': 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'%s", val, NULL);
			snprintf(j->name, sizeof(j->name), "%s", val);
			named = true;
		} else if (!strcmp(key, "workload")) {
			snprintf(j->workload, sizeof(j->workload), "%s", val);
			wl = true;
		} else if (!strcmp(key, "ranks")) {
			char *end;
			long r = strtol(val, &end, 10);
			if (*end || r < 1 || r > 1 << 20)
				return fail(P, v, "ranks: '%s': a whole number of ranks, at least 1%s", val, NULL);
			j->ranks = (unsigned)r;
			ranked = true;
		} else if (!strcmp(key, "folder")) {
			if (!good_folder(val))
				return fail(P, v, "folder: '%s': a folder under the target (relative, no . or ..)%s", val, NULL);
			snprintf(j->folder, sizeof(j->folder), "%s", val);
		} else if (!strcmp(key, "set")) {
			rc = load_sets(P, j, v);
		} else if (!strcmp(key, "start")) {
			rc = load_start(P, j, v, after, alen);
		} else {
			return fail(P, k, "unknown job key '%s'; a job has " JOB_KEYS "%s", key, NULL);
		}
		if (rc)
			return rc;
	}
	if (!named || !wl || !ranked)
		return fail(P, map, "a job needs %s (it has " JOB_KEYS ")%s",
			    !named ? "name" : !wl ? "workload" : "ranks", NULL);
	if (!j->folder[0])
		snprintf(j->folder, sizeof(j->folder), "%s", j->name);
	return 0;
}

static bool waits(const struct gf_mix_job *j)
{
	return j->start == GF_MIX_AFTER_END || j->start == GF_MIX_AFTER_CKPT;
}

/* Names unique, folders unique, every `after` a job of the mix, and no cycle of starts. */
static int check_jobs(struct parse *P, char (*after)[128])
{
	struct gf_mix *m = P->m;

	for (size_t i = 0; i < m->njobs; i++) {
		struct gf_mix_job *a = &m->jobs[i];
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(a->name, m->jobs[k].name)) {
				snprintf(P->err, P->errlen, "%s:%u: two jobs named %s (lines %u and %u): names are unique",
					 P->file, a->line, a->name, m->jobs[k].line, a->line);
				return -EINVAL;
			}
			if (!strcmp(a->folder, m->jobs[k].folder)) {
				snprintf(P->err, P->errlen, "%s:%u: jobs %s and %s both use the target subfolder %s: "
					 "each job needs its own (folder: NAME)", P->file, a->line, m->jobs[k].name,
					 a->name, a->folder);
				return -EINVAL;
			}
		}
	}
	for (size_t i = 0; i < m->njobs; i++) {
		struct gf_mix_job *a = &m->jobs[i];
		if (!waits(a))
			continue;
		a->after = -1;
		for (size_t k = 0; k < m->njobs; k++)
			if (!strcmp(after[i], m->jobs[k].name))
				a->after = (int)k;
		if (a->after < 0 || a->after == (int)i) {
			snprintf(P->err, P->errlen, "%s:%u: job %s starts after '%s', %s; the jobs are:", P->file,
				 a->line, a->name, after[i], a->after < 0 ? "no job of this mix" : "itself");
			for (size_t k = 0; k < m->njobs; k++)
				snprintf(P->err + strlen(P->err), P->errlen - strlen(P->err), " %s", m->jobs[k].name);
			return -EINVAL;
		}
	}
	/* Each job waits for at most one other: following the chain njobs steps from any job
	 * either reaches a job that starts on its own or goes round a cycle. */
	for (size_t i = 0; i < m->njobs; i++) {
		int at = (int)i;
		for (size_t s = 0; s < m->njobs && at >= 0; s++)
			at = waits(&m->jobs[at]) ? m->jobs[at].after : -1;
		if (at < 0)
			continue;
		snprintf(P->err, P->errlen, "%s: a cycle of starts, no job of it can begin:", P->file);
		int c = at;
		do {
			char how[160];
			gf_mix_start_text(m, &m->jobs[c], how, sizeof(how));
			snprintf(P->err + strlen(P->err), P->errlen - strlen(P->err), " %s %s%s", m->jobs[c].name, how,
				 m->jobs[c].after == at ? "" : ",");
			c = m->jobs[c].after;
		} while (c != at);
		return -EINVAL;
	}
	return 0;
}

static int load_top(struct parse *P, yaml_node_t *root, char (**after)[128])
{
	yaml_node_pair_t *p;
	yaml_node_t *jobs = NULL;
	struct gf_mix *m = P->m;
	int rc;

	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(P->doc, p->key), *v = yaml_document_get_node(P->doc, p->value);
		const char *key = scalar(k);
		if (key && !strcmp(key, "jobs")) {
			jobs = v;
		} else if (key && !strcmp(key, "mix") && scalar(v) && good_name(scalar(v))) {
			snprintf(m->name, sizeof(m->name), "%s", scalar(v));
		} else if (key && !strcmp(key, "target") && scalar(v) && *scalar(v)) {
			snprintf(m->target, sizeof(m->target), "%s", scalar(v));
		} else {
			return fail(P, k, "'%s': a mix has jobs: (a list), mix: NAME (A-Z a-z 0-9 . _ -) and "
				    "target: PATH%s", key ? key : "?", NULL);
		}
	}
	if (!jobs || jobs->type != YAML_SEQUENCE_NODE || jobs->data.sequence.items.top == jobs->data.sequence.items.start)
		return fail(P, jobs ? jobs : root, "jobs: a list of at least one job {" JOB_KEYS "}%s%s", "", NULL);
	m->njobs = (size_t)(jobs->data.sequence.items.top - jobs->data.sequence.items.start);
	if (m->njobs > GF_MIX_MAX_JOBS)
		return fail(P, jobs, "jobs: at most 32 jobs%s%s", "", NULL);
	m->jobs = calloc(m->njobs, sizeof(*m->jobs));
	*after = calloc(m->njobs, sizeof(**after));
	if (!m->jobs || !*after) {
		snprintf(P->err, P->errlen, "%s: out of memory", P->file);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->njobs; i++) {
		yaml_node_t *jn = yaml_document_get_node(P->doc, jobs->data.sequence.items.start[i]);
		rc = load_job(P, &m->jobs[i], jn, (*after)[i], sizeof((*after)[i]));
		if (rc)
			return rc;
		m->jobs[i].first_rank = i ? m->jobs[i - 1].first_rank + m->jobs[i - 1].ranks : 0;
	}
	return check_jobs(P, *after);
}

/* The document, or NULL with P->err. */
static int parse_file(const char *file, yaml_document_t *doc, char *err, size_t errlen)
{
	yaml_parser_t parser;
	unsigned char *text = NULL;
	size_t len = 0;
	int rc = gf_yaml_read(file, &mix_bounds, &text, &len, err, errlen);

	if (rc)
		return rc;
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, text, len);
	rc = 0;
	if (!yaml_parser_load(&parser, doc)) {
		snprintf(err, errlen, "%s:%zu: YAML syntax error: %s", file, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "unknown");
		rc = -EINVAL;
	}
	yaml_parser_delete(&parser);
	free(text);
	return rc;
}

int gf_mix_is_mix(const char *file)
{
	yaml_document_t doc;
	yaml_node_t *root;
	char err[512];
	int rc = parse_file(file, &doc, err, sizeof(err));

	if (rc)
		return rc == -EINVAL ? 0 : rc; /* a workload's loader says what is wrong */
	root = yaml_document_get_root_node(&doc);
	rc = 0;
	if (root && root->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
			const char *k = scalar(yaml_document_get_node(&doc, p->key));
			if (k && !strcmp(k, "jobs"))
				rc = 1;
		}
	yaml_document_delete(&doc);
	return rc;
}

/* Each job's workload, its sets applied, validated. */
static int load_workloads(struct gf_mix *m, const char *(*resolve)(const char *, char *, size_t), char *err,
			  size_t errlen)
{
	char path[4608], why[2048];

	for (size_t i = 0; i < m->njobs; i++) {
		struct gf_mix_job *j = &m->jobs[i];
		const char *p = resolve ? resolve(j->workload, path, sizeof(path)) : j->workload;
		int rc;

		gf_workload_defaults(&j->w);
		rc = gf_yaml_load(p, &j->w, why, sizeof(why));
		for (int k = 0; !rc && k < j->nsets; k++)
			rc = gf_yaml_override(&j->w, j->sets[k], why, sizeof(why));
		if (!rc)
			rc = gf_workload_validate(&j->w, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "%s:%u: job %s: %s", m->source, j->line, j->name, why);
			return rc == -ENOENT || rc == -EACCES ? rc : -EINVAL;
		}
	}
	return 0;
}

unsigned gf_mix_job_writes(const struct gf_mix_job *j)
{
	const struct gf_workload *w = &j->w;
	struct gf_plan p;
	char err[512];

	if (!w->workflow.checkpoint)
		return 0;
	if (w->workflow.train)
		return gf_plan_build(w, j->ranks, &p, err, sizeof(err)) ? 0 : (unsigned)gf_plan_checkpoints(w, &p);
	return w->checkpoint.num_checkpoints_write > 0 ? (unsigned)w->checkpoint.num_checkpoints_write : 0;
}

/* after JOB checkpoint N: JOB writes N checkpoints at least, or the job would never start. */
static int check_ckpt_starts(const struct gf_mix *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->njobs; i++) {
		const struct gf_mix_job *a = &m->jobs[i], *b;
		unsigned n;
		if (a->start != GF_MIX_AFTER_CKPT)
			continue;
		b = &m->jobs[a->after];
		n = gf_mix_job_writes(b);
		if (a->after_n <= n)
			continue;
		if (n)
			snprintf(err, errlen, "%s:%u: job %s starts after %s checkpoint %u, but %s writes %u checkpoint(s): "
				 "N is 1 to %u", m->source, a->line, a->name, b->name, a->after_n, b->name, n, n);
		else
			snprintf(err, errlen, "%s:%u: job %s starts after %s checkpoint %u, but %s writes no checkpoint: "
				 "start after %s end, or after a job that checkpoints", m->source, a->line, a->name,
				 b->name, a->after_n, b->name, b->name);
		return -EINVAL;
	}
	return 0;
}

int gf_mix_load(const char *file, const char *(*resolve)(const char *, char *, size_t), struct gf_mix *m,
		char *err, size_t errlen)
{
	struct parse P = { .m = m, .file = file, .err = err, .errlen = errlen };
	char (*after)[128] = NULL;
	yaml_document_t doc;
	yaml_node_t *root;
	int rc;

	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof(m->source), "%s", file);
	rc = parse_file(file, &doc, err, errlen);
	if (rc)
		return rc;
	P.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "%s: a mix is a map with jobs: (a list of {" JOB_KEYS "})", file);
		rc = -EINVAL;
	} else {
		rc = load_top(&P, root, &after);
	}
	yaml_document_delete(&doc);
	free(after);
	if (!rc && !m->name[0]) {
		const char *base = strrchr(file, '/');
		snprintf(m->name, sizeof(m->name), "%s", base ? base + 1 : file);
		m->name[strcspn(m->name, ".")] = '\0';
		if (!good_name(m->name))
			snprintf(m->name, sizeof(m->name), "mix");
	}
	if (!rc)
		rc = load_workloads(m, resolve, err, errlen);
	if (!rc)
		rc = check_ckpt_starts(m, err, errlen);
	if (rc)
		gf_mix_free(m);
	return rc;
}

int gf_mix_check_ranks(const struct gf_mix *m, unsigned world, char *err, size_t errlen)
{
	unsigned sum = 0;
	size_t at;

	for (size_t i = 0; i < m->njobs; i++)
		sum += m->jobs[i].ranks;
	if (sum == world)
		return 0;
	at = (size_t)snprintf(err, errlen, "%s: the jobs take %u rank(s) (", m->source, sum);
	for (size_t i = 0; i < m->njobs && at < errlen; i++)
		at += (size_t)snprintf(err + at, errlen - at, "%s%s %u", i ? ", " : "", m->jobs[i].name, m->jobs[i].ranks);
	if (at < errlen)
		snprintf(err + at, errlen - at, "), mpirun started %u: run it with mpirun -np %u, or change the jobs' "
			 "ranks", world, sum);
	return -EINVAL;
}

void gf_mix_free(struct gf_mix *m)
{
	for (size_t i = 0; m->jobs && i < m->njobs; i++)
		for (int k = 0; k < m->jobs[i].nsets; k++)
			free(m->jobs[i].sets[k]);
	free(m->jobs);
	m->jobs = NULL;
	m->njobs = 0;
}

int gf_mix_job_of(const struct gf_mix *m, unsigned rank)
{
	for (size_t i = 0; i < m->njobs; i++)
		if (rank >= m->jobs[i].first_rank && rank < m->jobs[i].first_rank + m->jobs[i].ranks)
			return (int)i;
	return -1;
}

void gf_mix_start_text(const struct gf_mix *m, const struct gf_mix_job *j, char *buf, size_t len)
{
	switch (j->start) {
	case GF_MIX_DELAY: snprintf(buf, len, "after %g s", j->delay_s); break;
	case GF_MIX_AFTER_END: snprintf(buf, len, "after %s end", m->jobs[j->after].name); break;
	case GF_MIX_AFTER_CKPT:
		snprintf(buf, len, "after %s checkpoint %u", m->jobs[j->after].name, j->after_n);
		break;
	default: snprintf(buf, len, "now"); break;
	}
}
