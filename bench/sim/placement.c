/* placement: see placement.h. */
#include "sim/placement.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "results/load.h"
#include "sim/calibrate.h"
#include "sim/system.h"

#define LINE_MAX_CHARS 8192 /* a row: 5 numbers and one server field of a few bricks */
#define MAX_RANK 100000000u
#define NOROW UINT32_MAX      /* rank with no write burst 0 row */
#define NOSRV (UINT32_MAX - 1) /* its row names no server */
#define MAX_SERVERS 65536u
#define SHOWN 64              /* entries of a list printed before "..." */

static bool to_u32(const char *s, uint32_t max, uint32_t *v)
{
	char *end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > max)
		return false;
	*v = (uint32_t)x;
	return true;
}

struct reader {
	const char *path;
	char *err;
	size_t errlen;
	unsigned line;
	int col_burst, col_kind, col_rank, col_server, ncols;
	uint32_t *srv;   /* by rank: index into names, NOSRV or NOROW */
	uint32_t nranks; /* entries of srv in use (highest rank + 1) */
	uint32_t room;
	char **names;
	uint32_t nnames, names_room;
};

static int bad(struct reader *R, const char *what)
{
	snprintf(R->err, R->errlen, "%s: line %u: %s", R->path, R->line, what);
	return -EINVAL;
}

static int header(struct reader *R, char *line)
{
	char *f[64];
	int n = gf_csv_split(line, f, 64);

	R->col_burst = R->col_kind = R->col_rank = R->col_server = -1;
	for (int i = 0; i < n; i++) {
		if (!strcmp(f[i], "burst"))
			R->col_burst = i;
		else if (!strcmp(f[i], "kind"))
			R->col_kind = i;
		else if (!strcmp(f[i], "rank"))
			R->col_rank = i;
		else if (!strcmp(f[i], "server"))
			R->col_server = i;
	}
	R->ncols = n;
	if (n < 0 || R->col_burst < 0 || R->col_kind < 0 || R->col_rank < 0)
		return bad(R, "the header needs the columns burst, kind and rank (gpufeed writes "
			      "burst,kind,checkpoint,rank,seconds,server)");
	return 0;
}

/* The last non-empty ';'-separated part of a server field (the rank's last file: the
 * writer separates files by one ';' and never ends with one, so this is awk's
 * split()'s last part), or NULL when there is none. */
static const char *last_part(const char *s, size_t *len)
{
	const char *last = NULL;

	while (*s) {
		size_t l = strcspn(s, ";");
		if (l) {
			last = s;
			*len = l;
		}
		s += l + (s[l] == ';');
	}
	return last;
}

/* The index of server name last (len chars), added when new. */
static int server_index(struct reader *R, const char *last, size_t len, uint32_t *idx)
{
	for (uint32_t i = 0; i < R->nnames; i++)
		if (strlen(R->names[i]) == len && !strncmp(R->names[i], last, len)) {
			*idx = i;
			return 0;
		}
	if (R->nnames == MAX_SERVERS)
		return bad(R, "more than 65536 different servers named: not a file system's bricks");
	if (R->nnames == R->names_room) {
		uint32_t room = R->names_room ? R->names_room * 2 : 8;
		char **nn = realloc(R->names, room * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		R->names = nn;
		R->names_room = room;
	}
	R->names[R->nnames] = strndup(last, len);
	if (!R->names[R->nnames])
		return -ENOMEM;
	*idx = R->nnames++;
	return 0;
}

static int row(struct reader *R, char *line, struct gf_sim_placement *p)
{
	char *f[64], msg[256];
	const char *last;
	size_t len = 0;
	uint32_t burst, rank, idx = NOSRV;
	int n = gf_csv_split(line, f, 64), rc;

	if (n != R->ncols) {
		snprintf(msg, sizeof(msg), "%d fields where the header has %d (or a quote that does not close)", n,
			 R->ncols);
		return bad(R, msg);
	}
	if (!to_u32(f[R->col_burst], UINT32_MAX, &burst))
		return bad(R, "burst is not a burst number (0, 1, ...)");
	if (strcmp(f[R->col_kind], "write") && strcmp(f[R->col_kind], "restore"))
		return bad(R, "kind is neither write nor restore");
	if (!to_u32(f[R->col_rank], MAX_RANK - 1, &rank))
		return bad(R, "rank is not a rank number (0 to 99999999)");
	if (burst != 0 || strcmp(f[R->col_kind], "write"))
		return 0;
	if (rank >= R->room) {
		uint32_t room = R->room ? R->room : 64;
		while (room <= rank)
			room *= 2;
		uint32_t *ns = realloc(R->srv, room * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		for (uint32_t r = R->room; r < room; r++)
			ns[r] = NOROW;
		R->srv = ns;
		R->room = room;
	}
	if (R->srv[rank] != NOROW) {
		snprintf(msg, sizeof(msg), "rank %u twice in write burst 0", rank);
		return bad(R, msg);
	}
	if (R->col_server >= 0 && (last = last_part(f[R->col_server], &len)) && (rc = server_index(R, last, len, &idx)))
		return rc;
	R->srv[rank] = idx;
	R->nranks = rank + 1 > R->nranks ? rank + 1 : R->nranks;
	p->rows++;
	p->filled += idx != NOSRV;
	return 0;
}

struct sorted_name {
	const char *name;
	uint32_t index;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sorted_name *)a)->name, ((const struct sorted_name *)b)->name);
}

/* Every rank of write burst 0 names a server: number them in the order of their names. */
static int number(struct reader *R, struct gf_sim_placement *p)
{
	struct sorted_name *s = malloc(R->nnames * sizeof(*s));
	uint32_t *pos = malloc(R->nnames * sizeof(*pos));
	int rc = -ENOMEM;

	if (!s || !pos)
		goto out;
	for (uint32_t i = 0; i < R->nnames; i++)
		s[i] = (struct sorted_name){ R->names[i], i };
	qsort(s, R->nnames, sizeof(*s), by_name);
	for (uint32_t i = 0; i < R->nnames; i++)
		pos[s[i].index] = i;
	p->server = malloc(R->nranks * sizeof(*p->server));
	if (!p->server)
		goto out;
	for (uint32_t r = 0; r < R->nranks; r++)
		p->server[r] = pos[R->srv[r]];
	p->n = R->nranks;
	p->nservers = R->nnames;
	rc = 0;
out:
	free(pos);
	free(s);
	return rc;
}

int gf_sim_placement_read(FILE *f, const char *path, struct gf_sim_placement *p, char *err, size_t errlen)
{
	struct reader R = { .path = path, .err = err, .errlen = errlen };
	char line[LINE_MAX_CHARS];
	int rc = 0;

	memset(p, 0, sizeof(*p));
	while (!rc && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		R.line++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			rc = bad(&R, "longer than 8191 characters: not a checkpoint_ranks.csv row");
			break;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (R.line == 1)
			rc = header(&R, line);
		else if (line[0])
			rc = row(&R, line, p);
	}
	if (!rc && ferror(f))
		rc = errno ? -errno : -EIO;
	if (!rc && R.line == 0) {
		R.line = 1;
		rc = bad(&R, "empty: no header");
	}
	/* A rank without a row counts as one without a server: no placement then. */
	if (!rc && p->filled && p->filled == p->rows && p->rows == R.nranks)
		rc = number(&R, p);
	else if (!rc)
		p->rows = R.nranks > p->rows ? R.nranks : p->rows;
	free(R.srv);
	for (uint32_t i = 0; i < R.nnames; i++)
		free(R.names[i]);
	free(R.names);
	if (rc && rc != -EINVAL)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	if (rc)
		gf_sim_placement_free(p);
	return rc;
}

int gf_sim_placement_load(const char *dir, struct gf_sim_placement *p, char *err, size_t errlen)
{
	char path[1200];
	size_t n = strlen(dir);
	FILE *f;
	int rc;

	memset(p, 0, sizeof(*p));
	while (n > 1 && dir[n - 1] == '/')
		n--;
	snprintf(path, sizeof(path), "%.*s/checkpoint_ranks.csv", (int)n, dir);
	f = gf_load_fopen(path, GF_LOAD_CSV_MAX);
	if (!f) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		/* gf_load_fopen's bound: never a FIFO or a device, never read without end */
		snprintf(err, errlen, "%s: %s", path, rc == -EINVAL ? "not a regular file"
						      : rc == -EFBIG ? "larger than 1 GiB: not a run's"
								     : strerror(-rc));
		return rc == -EINVAL || rc == -EFBIG ? -EINVAL : rc;
	}
	rc = gf_sim_placement_read(f, path, p, err, errlen);
	fclose(f);
	return rc;
}

void gf_sim_placement_free(struct gf_sim_placement *p)
{
	free(p->server);
	memset(p, 0, sizeof(*p));
}

static bool same(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

/* "[1, 0, ...]" as the system file writes it; a long list ends "..., (N ranks)]". */
static void put_list(FILE *out, const uint32_t *v, uint32_t n)
{
	fputc('[', out);
	for (uint32_t r = 0; r < n && r < SHOWN; r++)
		fprintf(out, "%s%u", r ? ", " : "", v[r]);
	if (n > SHOWN)
		fprintf(out, ", ... (%u ranks)", n);
	fputc(']', out);
}

static void put_run(FILE *out, const char *dir, const struct gf_sim_placement *p)
{
	fprintf(out, "%s/checkpoint_ranks.csv ", dir);
	put_list(out, p->server, p->n);
}

/* The runs in ps (those that record a placement) whose list is not (v, n) (v NULL:
 * every one), to out and pick->differ (out NULL: counted only); returns how many. */
static int differing(const struct gf_calib_run *runs, const struct gf_sim_placement *ps, int n, const uint32_t *v,
		     uint32_t nv, struct gf_sim_place_pick *pick, FILE *out)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		if (!ps[i].n || (v && same(ps[i].server, ps[i].n, v, nv)))
			continue;
		if (out) {
			fputs(k ? "; " : "", out);
			put_run(out, runs[i].dir, &ps[i]);
			if (!pick->differ)
				pick->differ = json_object_new_array();
			if (pick->differ)
				json_object_array_add(pick->differ, json_object_new_string(runs[i].dir));
		}
		k++;
	}
	return k;
}

/* The runs' lists (ps, first: the first run that records one) against the base: which to
 * use, said on out. Never chosen silently: a list not used is named in a note. */
static void choose(const struct gf_calib_run *runs, struct gf_sim_placement *ps, int n, int first,
		   struct gf_system *base, struct gf_sim_place_pick *pick, FILE *out)
{
	const uint32_t *bv = base->servers.shard_placement;
	uint32_t bn = base->servers.shard_placement_n;

	if (bn) {
		pick->source = GF_PLACE_BASE;
		bool differ = differing(runs, ps, n, bv, bn, pick, NULL) > 0;
		fputs(differ ? "note: servers.shard_placement: the base system's " : "servers.shard_placement: the base "
										      "system's ", out);
		put_list(out, bv, bn);
		if (differ) {
			fputs(" kept; the runs record another: ", out);
			differing(runs, ps, n, bv, bn, pick, out);
		} else {
			fputs(" (the runs' checkpoint_ranks.csv record the same)", out);
		}
		fputc('\n', out);
		return;
	}
	if (differing(runs, ps, n, ps[first].server, ps[first].n, pick, NULL)) {
		fputs("note: servers.shard_placement not taken from the runs, which differ: ", out);
		differing(runs, ps, n, NULL, 0, pick, out);
		fputs(" (shards striped, with servers.burst_placement_skew; set servers.shard_placement in the "
		      "system file to choose)\n", out);
		return;
	}
	if (ps[first].nservers > (uint64_t)base->servers.count) {
		fputs("note: servers.shard_placement not taken from ", out);
		differing(runs, ps, n, NULL, 0, pick, out);
		fprintf(out, ": it names %u servers, servers.count is %lld (shards striped, with "
			"servers.burst_placement_skew)\n", ps[first].nservers, (long long)base->servers.count);
		return;
	}
	pick->source = GF_PLACE_RUN;
	pick->p = ps[first];
	memset(&ps[first], 0, sizeof(ps[first]));
	snprintf(pick->file, sizeof(pick->file), "%s/checkpoint_ranks.csv", runs[first].dir);
	base->servers.shard_placement = pick->p.server;
	base->servers.shard_placement_n = pick->p.n;
	fprintf(out, "servers.shard_placement from %s: ", pick->file);
	put_list(out, pick->p.server, pick->p.n);
	fputc('\n', out);
}

int gf_sim_place_pick(const struct gf_calib_run *runs, int n, struct gf_system *base, struct gf_sim_place_pick *pick,
		      FILE *out, char *err, size_t errlen)
{
	struct gf_sim_placement *ps = calloc((size_t)n, sizeof(*ps));
	int rc = 0, first = -1;

	memset(pick, 0, sizeof(*pick));
	if (!ps) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; !rc && i < n; i++) {
		rc = gf_sim_placement_load(runs[i].dir, &ps[i], err, errlen);
		if (!rc && !ps[i].n && ps[i].filled)
			fprintf(out, "note: %s/checkpoint_ranks.csv names the server of %u of write burst 0's %u ranks: "
				"no servers.shard_placement from it\n", runs[i].dir, ps[i].filled, ps[i].rows);
		if (!rc && ps[i].n && ps[i].n != runs[i].ranks) {
			fprintf(out, "note: %s/checkpoint_ranks.csv names the servers of %u ranks, its run had %u: "
				"no servers.shard_placement from it\n", runs[i].dir, ps[i].n, runs[i].ranks);
			gf_sim_placement_free(&ps[i]);
		}
		if (!rc && ps[i].n && first < 0)
			first = i;
	}
	if (!rc && first >= 0)
		choose(runs, ps, n, first, base, pick, out);
	else if (!rc && base->servers.shard_placement_n)
		pick->source = GF_PLACE_BASE;
	for (int i = 0; i < n; i++)
		gf_sim_placement_free(&ps[i]);
	free(ps);
	if (rc)
		gf_sim_place_pick_free(pick);
	return rc;
}

void gf_sim_place_pick_free(struct gf_sim_place_pick *pick)
{
	gf_sim_placement_free(&pick->p);
	json_object_put(pick->differ);
	pick->differ = NULL;
}

struct json_object *gf_sim_place_pick_json(const struct gf_sim_place_pick *pick, const struct gf_system *fitted)
{
	static const char *const sources[] = { "none", "base system", "runs" };
	struct json_object *o = json_object_new_object(), *v = NULL;

	if (!o)
		return NULL;
	/* null: striped over the servers (with servers.burst_placement_skew) */
	if (fitted->servers.shard_placement_n) {
		v = json_object_new_array_ext((int)fitted->servers.shard_placement_n);
		for (uint32_t r = 0; v && r < fitted->servers.shard_placement_n; r++)
			json_object_array_add(v, json_object_new_int64(fitted->servers.shard_placement[r]));
	}
	json_object_object_add(o, "servers", v);
	json_object_object_add(o, "source", json_object_new_string(sources[pick->source]));
	json_object_object_add(o, "file", pick->source == GF_PLACE_RUN ? json_object_new_string(pick->file) : NULL);
	/* the runs whose checkpoint_ranks.csv recorded a placement that was not used */
	json_object_object_add(o, "runs_not_used", pick->differ ? json_object_get(pick->differ) : NULL);
	return o;
}
