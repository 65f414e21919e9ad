/* system: see system.h. */
#include "sim/system.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "model/units.h"
#include "model/workload.h"
#include "model/yaml.h"

#define KEY(p, t, f, lo, hi, req, h) \
	{ p, t, offsetof(struct gf_system, f), sizeof(((struct gf_system *)0)->f), lo, hi, req, h }
#define BW_MAX 1e18 /* 1 EB/s: anything above is a typo */

const struct gf_sys_key gf_sys_keys[] = {
	KEY("name", GF_SYS_STRING, name, 0, 0, false, "short name, used in results folder names"),
	KEY("description", GF_SYS_STRING, description, 0, 0, false, "what the system is"),
	KEY("source", GF_SYS_STRING, source, 0, 0, false, "where the numbers come from (a citation)"),
	KEY("clients.nodes", GF_SYS_COUNT, clients.nodes, 0, 1e7, false,
	    "client nodes when --nodes is not given (0: the workload's ranks / ranks_per_node)"),
	KEY("clients.ranks_per_node", GF_SYS_COUNT, clients.ranks_per_node, 1, 4096, false,
	    "MPI ranks (emulated accelerator groups) per client node"),
	KEY("clients.nic_bandwidth", GF_SYS_BANDWIDTH, clients.nic_bandwidth, 0, BW_MAX, false,
	    "network bandwidth of one client node, each direction (0: no limit)"),
	KEY("clients.node_read_bandwidth", GF_SYS_BANDWIDTH, clients.node_read_bandwidth, 0, BW_MAX, false,
	    "the file system client's read ceiling per node (0: none)"),
	KEY("clients.node_write_bandwidth", GF_SYS_BANDWIDTH, clients.node_write_bandwidth, 0, BW_MAX, false,
	    "the file system client's write ceiling per node (0: none)"),
	KEY("clients.rank_read_bandwidth", GF_SYS_BANDWIDTH, clients.rank_read_bandwidth, 0, BW_MAX, false,
	    "read ceiling of one client (rank) (0: none); calibrate fits it"),
	KEY("clients.rank_write_bandwidth", GF_SYS_BANDWIDTH, clients.rank_write_bandwidth, 0, BW_MAX, false,
	    "write ceiling of one client (rank) (0: none); calibrate fits it"),
	KEY("network.link_bandwidth", GF_SYS_BANDWIDTH, network.link_bandwidth, 0, BW_MAX, false,
	    "network link of each storage server, each direction (0: no limit)"),
	KEY("network.bisection_bandwidth", GF_SYS_BANDWIDTH, network.bisection_bandwidth, 0, BW_MAX, false,
	    "between all clients and all servers, each direction (0: full bisection)"),
	KEY("servers.count", GF_SYS_COUNT, servers.count, 1, 1e7, true, "storage servers"),
	KEY("servers.read_bandwidth", GF_SYS_BANDWIDTH, servers.read_bandwidth, 1, BW_MAX, true,
	    "what one server reads, all clients together"),
	KEY("servers.write_bandwidth", GF_SYS_BANDWIDTH, servers.write_bandwidth, 1, BW_MAX, true,
	    "what one server writes durably, all clients together"),
	KEY("servers.request_latency", GF_SYS_SECONDS, servers.request_latency, 0, 60, false,
	    "time of one request besides its transfer"),
	KEY("servers.read_request_latency", GF_SYS_SECONDS, servers.read_request_latency, 0, 60, false,
	    "a training read request's round trips besides its transfer (a sample's open, lookups, the read), "
	    "in series with it; calibrate fits it from training runs"),
	KEY("servers.write_burst_overhead", GF_SYS_SECONDS, servers.write_burst_overhead, 0, 3600, false,
	    "fixed time of every rank's checkpoint write besides its bytes (creates, lookups, TCP ramp-up); "
	    "calibrate fits it from bursts of different sizes"),
	KEY("servers.read_burst_overhead", GF_SYS_SECONDS, servers.read_burst_overhead, 0, 3600, false,
	    "fixed time of every rank's checkpoint restore besides its bytes (opens, lookups, TCP ramp-up); "
	    "calibrate fits it from bursts of different sizes"),
	KEY("servers.metadata_rate", GF_SYS_RATE, servers.metadata_rate, 0, 1e12, false,
	    "file creates and opens per second, the whole system (0: no limit)"),
	KEY("servers.burst_placement_skew", GF_SYS_FACTOR, servers.burst_placement_skew, 1, 1e7, false,
	    "the busiest server's bytes of a checkpoint burst over an even share (1: even; up to servers.count)"),
	KEY("servers.shard_placement", GF_SYS_SERVER_LIST, servers.shard_placement, 0, 1e7, false,
	    "the server (0 to servers.count - 1) that holds each rank's checkpoint shard, by global rank, "
	    "repeating for more ranks (none: striped, with burst_placement_skew); a list such as [0, 0, 1, 0]"),
	KEY("object_store.prefix_request_rate", GF_SYS_RATE, object_store.prefix_request_rate, 0, 1e12, false,
	    "requests per second per key prefix (0: not an object store)"),
	KEY("object_store.prefixes", GF_SYS_COUNT, object_store.prefixes, 1, 1e9, false,
	    "key prefixes the objects spread over"),
	KEY("object_store.ttfb", GF_SYS_SECONDS, object_store.ttfb, 0, 60, false,
	    "time to first byte of every request"),
	KEY("object_store.request_bytes", GF_SYS_SIZE, object_store.request_bytes, 4096, 5e9, false,
	    "bytes per request (multipart part, ranged GET)"),
	KEY("failures.accelerator_mttf", GF_SYS_SECONDS, failures.accelerator_mttf, 1, 1e15, false,
	    "mean time to failure of one accelerator"),
	KEY("failures.restart_time", GF_SYS_SECONDS, failures.restart_time, 0, 1e9, false,
	    "time to restart a failed job, besides reading its checkpoint"),
};
const size_t gf_sys_nkeys = sizeof(gf_sys_keys) / sizeof(gf_sys_keys[0]);

_Static_assert(sizeof(gf_sys_keys) / sizeof(gf_sys_keys[0]) <=
		       sizeof(((struct gf_system *)0)->key_line) / sizeof(unsigned),
	       "key_line must have room for every key");

void gf_system_defaults(struct gf_system *s)
{
	memset(s, 0, sizeof(*s));
	s->clients.ranks_per_node = 8;
	s->object_store.prefixes = 1;
	s->servers.burst_placement_skew = 1;
	s->object_store.request_bytes = 16.0 * 1024 * 1024;
	/* MLCommons, MLPerf Storage v2.0 announcement (2025-08-04): "if the mean time to
	 * failure for an accelerator is 50,000 hours, then a 100,000-accelerator cluster ...
	 * will likely experience a failure every half-hour". */
	s->failures.accelerator_mttf = 50000.0 * 3600.0;
}

void gf_system_free(struct gf_system *s)
{
	free(s->servers.shard_placement);
	s->servers.shard_placement = NULL;
	s->servers.shard_placement_n = 0;
}

static const struct gf_sys_key *find_key(const char *path)
{
	for (size_t i = 0; i < gf_sys_nkeys; i++)
		if (!strcmp(gf_sys_keys[i].path, path))
			return &gf_sys_keys[i];
	return NULL;
}

static bool is_group(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < gf_sys_nkeys; i++)
		if (!strncmp(gf_sys_keys[i].path, path, n) && gf_sys_keys[i].path[n] == '.')
			return true;
	return false;
}

/* The first key of a section, for messages. */
static const char *first_in(const char *section)
{
	size_t n = strlen(section);

	for (size_t i = 0; i < gf_sys_nkeys; i++)
		if (!strncmp(gf_sys_keys[i].path, section, n) && gf_sys_keys[i].path[n] == '.')
			return gf_sys_keys[i].path;
	return section;
}


static const char *system_key_at(size_t i)
{
	return gf_sys_keys[i].path;
}

const char *gf_system_nearest(const char *path)
{
	static char best[96];

	return gf_path_nearest(path, system_key_at, gf_sys_nkeys, best, sizeof(best));
}

int gf_parse_bandwidth(const char *text, double *out)
{
	char buf[64], *end;
	size_t n;
	uint64_t b;

	while (isspace((unsigned char)*text))
		text++;
	n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, n);
	buf[n] = '\0';
	/* Bits per second, as links are quoted: SI prefixes only. */
	if (n > 5 && !strcmp(buf + n - 5, "bit/s")) {
		static const char pre[] = " kMGTP";
		double v;
		buf[n - 5] = '\0';
		v = strtod(buf, &end);
		if (end == buf || !(v >= 0) || !isfinite(v))
			return -EINVAL;
		while (*end == ' ')
			end++;
		const char *p = *end ? strchr(pre + 1, *end) : pre;
		if (!p || (*end && end[1]))
			return -EINVAL;
		*out = v * pow(1000.0, (double)(p - pre)) / 8.0;
		return 0;
	}
	if (n > 2 && !strcmp(buf + n - 2, "/s"))
		buf[n - 2] = '\0';
	if (gf_parse_size(buf, &b) == 0) {
		*out = (double)b;
		return 0;
	}
	/* A plain number, also in exponent form (1.5e9). */
	double v = strtod(buf, &end);
	if (end == buf || *end || !(v >= 0) || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Operations per second: a number with an optional SI k, M or G and an optional "/s". */
static int parse_rate(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || !(v >= 0) || !isfinite(v))
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'M')
		v *= 1e6, end++;
	else if (*end == 'G')
		v *= 1e9, end++;
	if (!strcmp(end, "/s"))
		end += 2;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char *expected(enum gf_sys_key_type t)
{
	switch (t) {
	case GF_SYS_COUNT: return "a whole number";
	case GF_SYS_BANDWIDTH: return "a bandwidth such as 25GB/s, 1.5GiB/s or 200Gbit/s";
	case GF_SYS_SECONDS: return "a time such as 50us, 2ms, 30s or 50000h";
	case GF_SYS_RATE: return "a rate such as 20000 or 50k (per second)";
	case GF_SYS_SIZE: return "a size such as 16MiB";
	case GF_SYS_FACTOR: return "a number such as 1.4";
	case GF_SYS_SERVER_LIST: return "a list of server numbers such as [0, 0, 1, 0]";
	default: return "text";
	}
}

static void where(char *err, size_t errlen, const char *file, unsigned line, const char *msg)
{
	if (line)
		snprintf(err, errlen, "%s:%u: %s", file, line, msg);
	else
		snprintf(err, errlen, "%s: %s", file, msg);
}

/* "[0, 0, 1]" or "0,0,1": whole numbers from 0 to the key's max (the servers' count is
 * checked with the other keys, gf_system_check). Replaces the list set before. */
static int set_server_list(struct gf_system *s, const struct gf_sys_key *k, const char *value,
			   const char *file, unsigned line, char *err, size_t errlen)
{
	const char *p = value;
	uint32_t *v = NULL, n = 0, room = 0;
	char msg[512];

	while (isspace((unsigned char)*p))
		p++;
	bool bracket = *p == '[';
	p += bracket;
	for (;;) {
		char *end;
		while (isspace((unsigned char)*p))
			p++;
		if ((bracket && *p == ']') || (!bracket && !*p)) {
			p += bracket;
			break;
		}
		errno = 0;
		long long x = strtoll(p, &end, 10);
		if (end == p || errno || x < 0 || (double)x > k->max) {
			snprintf(msg, sizeof(msg), "%s: '%s' is not %s (from 0 to %.0f)", k->path, value,
				 expected(k->type), k->max);
			goto bad;
		}
		if (n == room) {
			uint32_t *nv = realloc(v, (room ? room * 2 : 16) * sizeof(*v));
			if (!nv) {
				free(v);
				where(err, errlen, file, line, "out of memory for servers.shard_placement");
				return -ENOMEM;
			}
			v = nv;
			room = room ? room * 2 : 16;
		}
		v[n++] = (uint32_t)x;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',')
			p++;
		else if (!((bracket && *p == ']') || (!bracket && !*p))) {
			snprintf(msg, sizeof(msg), "%s: '%s' is not %s", k->path, value, expected(k->type));
			goto bad;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p || n == 0) {
		snprintf(msg, sizeof(msg), "%s: '%s' is not %s%s", k->path, value, expected(k->type),
			 n == 0 ? " (leave the key out for striped shards)" : "");
		goto bad;
	}
	free(s->servers.shard_placement);
	s->servers.shard_placement = v;
	s->servers.shard_placement_n = n;
	return 0;
bad:
	free(v);
	where(err, errlen, file, line, msg);
	return -EINVAL;
}

int gf_system_set(struct gf_system *s, const char *path, const char *value, const char *file,
		  unsigned line, char *err, size_t errlen)
{
	const struct gf_sys_key *k = find_key(path);
	char msg[1024];
	void *field;
	double v = 0;
	int rc = 0;

	if (!k) {
		const char *near = gf_system_nearest(path);
		snprintf(msg, sizeof(msg), "unknown key '%s'%s%s%s (the keys: docs/simulate.md)", path,
			 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		where(err, errlen, file, line, msg);
		return -EINVAL;
	}
	field = (char *)s + k->offset;
	/* Set from the command line counts as set too. */
	s->key_line[k - gf_sys_keys] = line ? line : UINT_MAX;
	switch (k->type) {
	case GF_SYS_SERVER_LIST: return set_server_list(s, k, value, file, line, err, errlen);
	case GF_SYS_STRING:
		if (strlen(value) >= k->size) {
			snprintf(msg, sizeof(msg), "%s: at most %zu characters", path, k->size - 1);
			where(err, errlen, file, line, msg);
			return -EINVAL;
		}
		snprintf(field, k->size, "%s", value);
		return 0;
	case GF_SYS_COUNT: {
		char *end;
		errno = 0;
		long long n = strtoll(value, &end, 10);
		rc = end == value || *end || errno ? -EINVAL : 0;
		v = (double)n;
		break;
	}
	case GF_SYS_BANDWIDTH: rc = gf_parse_bandwidth(value, &v); break;
	case GF_SYS_SECONDS: rc = gf_parse_time(value, &v); break;
	case GF_SYS_RATE: rc = parse_rate(value, &v); break;
	case GF_SYS_FACTOR: {
		char *end;
		errno = 0;
		v = strtod(value, &end);
		rc = end == value || *end || errno || !isfinite(v) ? -EINVAL : 0;
		break;
	}
	case GF_SYS_SIZE: {
		uint64_t b;
		rc = gf_parse_size(value, &b);
		v = (double)b;
		break;
	}
	}
	if (rc || v < k->min || v > k->max) {
		/* 0 is allowed where the key says so: "0: no limit". */
		if (rc) {
			snprintf(msg, sizeof(msg), "%s: '%s' is not %s", path, value, expected(k->type));
		} else {
			char lo[64];
			snprintf(lo, sizeof(lo), "%.15g", k->min);
			snprintf(msg, sizeof(msg), "%s: %s is out of range: from %s to %.15g%s", path, value, lo,
				 k->max, k->min == 0 ? " (0: none)" : "");
		}
		where(err, errlen, file, line, msg);
		return -EINVAL;
	}
	if (k->type == GF_SYS_COUNT)
		*(int64_t *)field = (int64_t)v;
	else
		*(double *)field = v;
	return 0;
}

struct loader {
	yaml_document_t *doc;
	struct gf_system *s;
	const char *file;
	char *err;
	size_t errlen;
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

/* A YAML list of numbers, as the text gf_system_set takes ("0,0,1"). */
static int load_list(struct loader *L, const char *path, yaml_node_t *seq)
{
	size_t len = 1, o = 0;
	char *text;
	int rc;

	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *e = yaml_document_get_node(L->doc, *i);
		if (!e || e->type != YAML_SCALAR_NODE) {
			char msg[256];
			snprintf(msg, sizeof(msg), "%s: a list of numbers, not of lists or maps", path);
			where(L->err, L->errlen, L->file, e ? line_of(e) : line_of(seq), msg);
			return -EINVAL;
		}
		len += e->data.scalar.length + 1;
	}
	text = malloc(len);
	if (!text) {
		where(L->err, L->errlen, L->file, line_of(seq), "out of memory");
		return -ENOMEM;
	}
	text[0] = '\0';
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *e = yaml_document_get_node(L->doc, *i);
		o += (size_t)snprintf(text + o, len - o, "%s%s", o ? "," : "", (char *)e->data.scalar.value);
	}
	rc = gf_system_set(L->s, path, text, L->file, line_of(seq), L->err, L->errlen);
	free(text);
	return rc;
}

static int load_map(struct loader *L, const char *prefix, yaml_node_t *map)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(L->doc, p->value);
		char path[256], msg[512];
		int rc;

		if (k->type != YAML_SCALAR_NODE) {
			where(L->err, L->errlen, L->file, line_of(k), "a key must be a plain name");
			return -EINVAL;
		}
		/* libyaml keeps duplicate keys; "last one wins" would hide a typo. */
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *qk = yaml_document_get_node(L->doc, q->key);
			if (qk->type == YAML_SCALAR_NODE &&
			    !strcmp((char *)qk->data.scalar.value, (char *)k->data.scalar.value)) {
				snprintf(msg, sizeof(msg), "key '%s' is given twice (first on line %u)",
					 (char *)k->data.scalar.value, line_of(qk));
				where(L->err, L->errlen, L->file, line_of(k), msg);
				return -EINVAL;
			}
		}
		snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] ? "." : "",
			 (char *)k->data.scalar.value);
		if (find_key(path) && find_key(path)->type == GF_SYS_SERVER_LIST && v->type == YAML_SEQUENCE_NODE) {
			rc = load_list(L, path, v);
		} else if (find_key(path)) {
			if (v->type != YAML_SCALAR_NODE) {
				snprintf(msg, sizeof(msg), "%s takes a single value, not a %s", path,
					 v->type == YAML_MAPPING_NODE ? "map" : "list");
				where(L->err, L->errlen, L->file, line_of(v), msg);
				return -EINVAL;
			}
			rc = gf_system_set(L->s, path, (char *)v->data.scalar.value, L->file, line_of(v),
					   L->err, L->errlen);
		} else if (is_group(path)) {
			if (v->type == YAML_SCALAR_NODE && !v->data.scalar.value[0])
				continue; /* an empty section */
			if (v->type != YAML_MAPPING_NODE) {
				snprintf(msg, sizeof(msg), "'%s' is a section: it takes keys such as %s", path,
					 first_in(path));
				where(L->err, L->errlen, L->file, line_of(v), msg);
				return -EINVAL;
			}
			rc = load_map(L, path, v);
		} else {
			rc = gf_system_set(L->s, path, "", L->file, line_of(k), L->err, L->errlen);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int load_doc(struct loader *L, yaml_parser_t *parser)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int rc;

	if (!yaml_parser_load(parser, &doc)) {
		snprintf(L->err, L->errlen, "%s:%zu: YAML syntax error: %s", L->file,
			 parser->problem_mark.line + 1, parser->problem ? parser->problem : "unknown");
		return -EINVAL;
	}
	L->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		where(L->err, L->errlen, L->file, 0, "the system file is empty");
		rc = -EINVAL;
	} else if (root->type != YAML_MAPPING_NODE) {
		where(L->err, L->errlen, L->file, line_of(root),
		      "a system file is a map of sections (clients:, network:, servers:, ...)");
		rc = -EINVAL;
	} else {
		rc = load_map(L, "", root);
	}
	yaml_document_delete(&doc);
	return rc;
}

/* A system file is a page of keys: bounded before the document is built, as workloads are
 * (model/yaml.c). */
static const struct gf_yaml_bounds system_bounds = {
	/* servers.shard_placement may list 100,000 ranks: a few bytes each */
	8u << 20, 8, "system", "systems/local.yaml", "a system file has sections of keys (2 levels)",
};

int gf_system_load(const char *file, struct gf_system *s, char *err, size_t errlen)
{
	struct loader L = { .s = s, .file = file, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	unsigned char *text = NULL;
	size_t len = 0;
	int rc = gf_yaml_read(file, &system_bounds, &text, &len, err, errlen);

	if (rc)
		return rc;
	snprintf(s->file, sizeof(s->file), "%s", file);
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", file);
		rc = -ENOMEM;
		goto out_free;
	}
	yaml_parser_set_input_string(&parser, text, len);
	rc = load_doc(&L, &parser);
	yaml_parser_delete(&parser);
	if (!rc)
		rc = gf_system_check(s, err, errlen);
	if (!rc && !s->name[0]) {
		/* The file's base name without .yaml names the system. */
		const char *b = strrchr(file, '/');
		b = b ? b + 1 : file;
		snprintf(s->name, sizeof(s->name), "%.*s", (int)strcspn(b, "."), b);
	}
out_free:
	free(text);
	return rc;
}

int gf_system_check(const struct gf_system *s, char *err, size_t errlen)
{
	const char *file = s->file[0] ? s->file : "system";

	for (size_t i = 0; i < gf_sys_nkeys; i++) {
		const struct gf_sys_key *k = &gf_sys_keys[i];
		if (k->required && !s->key_line[i]) {
			snprintf(err, errlen, "%s: %s is required (%s)", file, k->path, k->help);
			return -EINVAL;
		}
	}
	/* The busiest of count servers holds at most all of it: count times an even share. */
	if (s->servers.burst_placement_skew > (double)s->servers.count) {
		snprintf(err, errlen, "%s: servers.burst_placement_skew %.9g is more than servers.count (%lld): "
			 "the busiest server cannot hold more than the whole burst", file,
			 s->servers.burst_placement_skew, (long long)s->servers.count);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < s->servers.shard_placement_n; i++) {
		if (s->servers.shard_placement[i] < (uint64_t)s->servers.count)
			continue;
		const struct gf_sys_key *k = find_key("servers.shard_placement");
		unsigned line = s->key_line[k - gf_sys_keys];
		char msg[256];
		snprintf(msg, sizeof(msg), "servers.shard_placement: entry %u (rank %u) is server %u, but servers are "
			 "numbered 0 to %lld (servers.count - 1)", i, i, s->servers.shard_placement[i],
			 (long long)s->servers.count - 1);
		where(err, errlen, line == UINT_MAX ? "--set-system" : file, line == UINT_MAX ? 0 : line, msg);
		return -EINVAL;
	}
	return 0;
}

/* A bandwidth in SI units that gf_parse_bandwidth reads back ("30.3GB/s"), the value
 * always >= 1 in its unit so that %g never prints an exponent. */
static void put_bandwidth(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" };
	int u = 0;

	while (u < 5 && v >= 1000.0) {
		v /= 1000.0;
		u++;
	}
	snprintf(buf, len, "%.6g%s", v, v == 0 ? "" : unit[u]);
}

/* s as one double-quoted YAML scalar on one line, by libyaml's emitter: a control
 * character, a line break or any other character YAML does not allow raw is escaped
 * ("\x01", "\n"), so that the file reads back to the same string. 0 or -EIO. */
static int quoted(const char *s, char *out, size_t len)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	size_t n = 0;
	bool ok;

	if (!yaml_emitter_initialize(&e))
		return -EIO;
	yaml_emitter_set_output_string(&e, (unsigned char *)out, len - 1, &n);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&e, &ev) &&
	     yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&e, &ev) &&
	     yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, -1, 1, 1,
					  YAML_DOUBLE_QUOTED_SCALAR_STYLE) && yaml_emitter_emit(&e, &ev) &&
	     yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&e, &ev) &&
	     yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev);
	yaml_emitter_delete(&e);
	if (!ok)
		return -EIO;
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		n--;
	out[n] = '\0';
	return 0;
}

int gf_system_write(FILE *f, const struct gf_system *s, const char *header)
{
	char section[64] = "";

	/* Comments, one a line; a control character (a folder's name can hold one) would
	 * make the file unreadable to YAML, so it is written as '?'. */
	for (const char *p = header; p && *p; p++) {
		if (p == header || p[-1] == '\n')
			fputs("# ", f);
		fputc(*p != '\n' && *p != '\t' && ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p, f);
		if (!p[1] && *p != '\n')
			fputc('\n', f);
	}
	for (size_t i = 0; i < gf_sys_nkeys; i++) {
		const struct gf_sys_key *k = &gf_sys_keys[i];
		const char *dot = strchr(k->path, '.');
		const void *field = (const char *)s + k->offset;
		char val[GF_SYS_STR * 4 + 8]; /* every byte escaped as \xNN at most */

		if (dot && strncmp(section, k->path, (size_t)(dot - k->path) + 1)) {
			snprintf(section, sizeof(section), "%.*s", (int)(dot - k->path) + 1, k->path);
			fprintf(f, "\n%.*s:\n", (int)(dot - k->path), k->path);
		}
		switch (k->type) {
		case GF_SYS_STRING:
			if (!((const char *)field)[0])
				continue;
			if (quoted(field, val, sizeof(val)))
				return -EIO;
			break;
		case GF_SYS_COUNT: snprintf(val, sizeof(val), "%lld", (long long)*(const int64_t *)field); break;
		case GF_SYS_BANDWIDTH: put_bandwidth(val, sizeof(val), *(const double *)field); break;
		case GF_SYS_SECONDS:
		case GF_SYS_FACTOR:
		case GF_SYS_RATE: snprintf(val, sizeof(val), "%.9g", *(const double *)field); break;
		case GF_SYS_SIZE: snprintf(val, sizeof(val), "%.0f", *(const double *)field); break;
		case GF_SYS_SERVER_LIST:
			/* Written only when given: without it the shards are striped. */
			if (s->servers.shard_placement_n) {
				fprintf(f, "  %s: [", dot + 1);
				for (uint32_t r = 0; r < s->servers.shard_placement_n; r++)
					fprintf(f, "%s%u", r ? ", " : "", s->servers.shard_placement[r]);
				fprintf(f, "]\n");
			}
			continue;
		}
		fprintf(f, "%s%s: %s\n", dot ? "  " : "", dot ? dot + 1 : k->path, val);
	}
	return ferror(f) ? -EIO : 0;
}

struct json_object *gf_system_to_json(const struct gf_system *s)
{
	struct json_object *root = json_object_new_object();

	if (!root)
		return NULL;
	json_object_object_add(root, "file", json_object_new_string(s->file));
	for (size_t i = 0; i < gf_sys_nkeys; i++) {
		const struct gf_sys_key *k = &gf_sys_keys[i];
		const void *field = (const char *)s + k->offset;
		const char *dot = strchr(k->path, '.');
		struct json_object *sec = root, *v;
		char name[64];

		if (dot) {
			snprintf(name, sizeof(name), "%.*s", (int)(dot - k->path), k->path);
			if (!json_object_object_get_ex(root, name, &sec)) {
				sec = json_object_new_object();
				json_object_object_add(root, name, sec);
			}
		}
		switch (k->type) {
		case GF_SYS_STRING: v = json_object_new_string(field); break;
		case GF_SYS_COUNT: v = json_object_new_int64(*(const int64_t *)field); break;
		case GF_SYS_SERVER_LIST:
			/* null: striped (no placement given) */
			v = NULL;
			if (s->servers.shard_placement_n) {
				v = json_object_new_array_ext((int)s->servers.shard_placement_n);
				for (uint32_t r = 0; v && r < s->servers.shard_placement_n; r++)
					json_object_array_add(v, json_object_new_int64(s->servers.shard_placement[r]));
			}
			break;
		default: v = json_object_new_double(*(const double *)field); break;
		}
		/* Units in the key names, as everywhere in summary.json. */
		snprintf(name, sizeof(name), "%s%s", dot ? dot + 1 : k->path,
			 k->type == GF_SYS_BANDWIDTH ? "_bytes_per_s" : k->type == GF_SYS_SECONDS ? "_s" :
			 k->type == GF_SYS_RATE ? "_per_s" : "");
		json_object_object_add(sec, name, v);
	}
	return root;
}
