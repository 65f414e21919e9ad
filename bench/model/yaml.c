/* yaml: workload files and overrides through libyaml's document API, which gives every
 * node its line so that errors can point at it. */
#include "model/yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

struct loader {
	yaml_document_t *doc;
	struct gf_workload *w;
	const char *file; /* NULL for overrides */
	char *err;
	size_t errlen;
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

static int atfail(struct loader *L, const yaml_node_t *n, const char *fmt, const char *a,
		      const char *b)
{
	char what[768];

	snprintf(what, sizeof(what), fmt, a, b ? b : "");
	if (L->file)
		snprintf(L->err, L->errlen, "%s:%u: %s", L->file, line_of(n), what);
	else
		snprintf(L->err, L->errlen, "command line: %s", what);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = scalar(n);
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* Render a node as flow YAML text, for keys that are recorded but not used. */
static void render(yaml_document_t *doc, const yaml_node_t *n, char *buf, size_t len)
{
	size_t used = strlen(buf);

	if (used + 1 >= len)
		return;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		snprintf(buf + used, len - used, "%s", scalar(n));
		break;
	case YAML_SEQUENCE_NODE: {
		bool first = true;
		strncat(buf, "[", len - used - 1);
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
			if (!first)
				strncat(buf, ", ", len - strlen(buf) - 1);
			first = false;
			render(doc, yaml_document_get_node(doc, *i), buf, len);
		}
		strncat(buf, "]", len - strlen(buf) - 1);
		break;
	}
	case YAML_MAPPING_NODE: {
		bool first = true;
		strncat(buf, "{", len - used - 1);
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			if (!first)
				strncat(buf, ", ", len - strlen(buf) - 1);
			first = false;
			render(doc, yaml_document_get_node(doc, p->key), buf, len);
			strncat(buf, ": ", len - strlen(buf) - 1);
			render(doc, yaml_document_get_node(doc, p->value), buf, len);
		}
		strncat(buf, "}", len - strlen(buf) - 1);
		break;
	}
	default:
		break;
	}
}

static int load_node(struct loader *L, const char *path, yaml_node_t *n, yaml_node_t *keynode);

/* DLIO accepts data_reader as another name of the reader section. */
static const char *section_alias(const char *prefix, const char *name)
{
	return !prefix[0] && !strcmp(name, "data_reader") ? "reader" : name;
}

static int load_map(struct loader *L, const char *prefix, yaml_node_t *map)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(L->doc, p->value);
		char path[512];
		int rc;

		if (k->type != YAML_SCALAR_NODE)
			return atfail(L, k, "a key must be a plain name%s%s", "", NULL);
		/* libyaml keeps duplicate keys; a silent "last one wins" hides typos. DLIO's
		 * data_reader is the same section as reader. */
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *qk = yaml_document_get_node(L->doc, q->key);
			if (qk->type == YAML_SCALAR_NODE &&
			    !strcmp(section_alias(prefix, scalar(qk)), section_alias(prefix, scalar(k))))
				return atfail(L, k, "key '%s' is given twice (first on line %s)",
						  scalar(k), (snprintf(path, sizeof(path), "%u", line_of(qk)), path));
		}
		if (prefix[0])
			snprintf(path, sizeof(path), "%s.%s", prefix, scalar(k));
		else
			snprintf(path, sizeof(path), "%s", section_alias(prefix, scalar(k)));
		rc = load_node(L, path, v, k);
		if (rc)
			return rc;
	}
	return 0;
}

static int load_node(struct loader *L, const char *path, yaml_node_t *n, yaml_node_t *keynode)
{
	const struct gf_key *k = gf_key_find(path);
	struct gf_origin o = { L->file, line_of(n) };

	if (k && (k->type == GF_K_IGNORED || (k->type == GF_K_LIST && n->type == YAML_SEQUENCE_NODE))) {
		char text[GF_STR] = "";
		render(L->doc, n, text, sizeof(text));
		return gf_key_set(L->w, k, text, &o, L->err, L->errlen);
	}
	if (k) {
		switch (n->type) {
		case YAML_SCALAR_NODE:
			if (is_null(n) && k->type != GF_K_STR)
				return atfail(L, n, "%s has no value%s", path, NULL);
			return gf_key_set(L->w, k, is_null(n) ? "" : scalar(n), &o, L->err, L->errlen);
		case YAML_MAPPING_NODE: {
			const char *names[16], *values[16];
			int cnt = 0;

			for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
				yaml_node_t *pk = yaml_document_get_node(L->doc, p->key);
				yaml_node_t *pv = yaml_document_get_node(L->doc, p->value);
				if (pk->type != YAML_SCALAR_NODE || pv->type != YAML_SCALAR_NODE)
					return atfail(L, pk, "%s: entries must be name: value%s", path, NULL);
				if (k->type == GF_K_KV) {
					o.line = line_of(pk);
					int rc = gf_key_set_kv(L->w, k, scalar(pk), scalar(pv), &o, L->err, L->errlen);
					if (rc)
						return rc;
					continue;
				}
				if (cnt == 16)
					return atfail(L, pk, "%s: too many entries%s", path, NULL);
				names[cnt] = scalar(pk);
				values[cnt++] = scalar(pv);
			}
			if (k->type == GF_K_KV)
				return 0;
			if (k->type != GF_K_TIME)
				return atfail(L, n, "%s takes a single value, not a map%s", path, NULL);
			return gf_key_set_dist(L->w, k, names, values, cnt, &o, L->err, L->errlen);
		}
		default:
			return atfail(L, n, "%s takes a single value, not a list%s", path, NULL);
		}
	}
	/* One entry of a map key given by its full path, as Hydra takes it
	 * (++workload.storage.storage_options.endpoint_url=...). */
	if (n->type == YAML_SCALAR_NODE) {
		const char *dot = strrchr(path, '.');
		char parent[512];
		const struct gf_key *pk;

		snprintf(parent, sizeof(parent), "%.*s", dot ? (int)(dot - path) : 0, path);
		pk = dot ? gf_key_find(parent) : NULL;
		if (pk && pk->type == GF_K_KV)
			return gf_key_set_kv(L->w, pk, dot + 1, scalar(n), &o, L->err, L->errlen);
	}
	if (gf_key_is_group(path)) {
		if (is_null(n))
			return 0; /* an empty section */
		if (n->type == YAML_MAPPING_NODE)
			return load_map(L, path, n);
		/* DLIO's scalar forms of a section. */
		if (n->type == YAML_SCALAR_NODE && !strcmp(path, "model"))
			return load_node(L, "model.name", n, keynode);
		return atfail(L, n, "'%s' is a section: it takes keys such as %s", path,
				  gf_key_first_in(path));
	}
	{
		const char *near = gf_key_nearest(path);
		char hint[300] = "";

		if (near)
			snprintf(hint, sizeof(hint), " (did you mean '%s'?)", near);
		/* A top-level name is a section unless it looks like a top-level key (framework). */
		bool section = !strchr(path, '.') && !(near && gf_key_find(near) && !strchr(near, '.'));
		return atfail(L, keynode ? keynode : n,
				  section ? "unknown section '%s'%s" : "unknown key '%s'%s", path, hint);
	}
}

static int load_doc(struct loader *L, yaml_parser_t *parser, const char *name)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int rc;

	if (!yaml_parser_load(parser, &doc)) {
		snprintf(L->err, L->errlen, "%s:%zu: YAML syntax error: %s%s%s", name,
			 parser->problem_mark.line + 1, parser->problem ? parser->problem : "unknown",
			 parser->context ? " " : "", parser->context ? parser->context : "");
		return -EINVAL;
	}
	L->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		snprintf(L->err, L->errlen, "%s: the workload is empty", name);
		rc = -EINVAL;
	} else if (root->type != YAML_MAPPING_NODE) {
		rc = atfail(L, root, "a workload is a map of sections (model:, dataset:, reader:, ...)%s%s", "", NULL);
	} else {
		rc = load_map(L, "", root);
	}
	yaml_document_delete(&doc);
	if (rc)
		return rc;
	/* A second document ("---") would be silently ignored: refuse it. */
	if (!yaml_parser_load(parser, &doc)) {
		snprintf(L->err, L->errlen, "%s:%zu: YAML syntax error: %s", name,
			 parser->problem_mark.line + 1, parser->problem ? parser->problem : "unknown");
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root) {
		snprintf(L->err, L->errlen, "%s:%zu: a second YAML document: a workload file holds one "
			 "(remove the '---' and what follows, or merge it into the first)", name,
			 root->start_mark.line);
		rc = -EINVAL;
	}
	yaml_document_delete(&doc);
	return rc;
}

/* A workload (or a simulator's system file) is a page of keys: anything far larger or
 * deeper is a mistake or an attack, and libyaml's time grows faster than linearly with
 * nesting (30,000 levels took 9-17 s). Both are bounded before the document is built. */
#define GF_YAML_MAX_BYTES (1u << 20)
#define GF_YAML_MAX_DEPTH 32

/* Whether the text nests deeper than b->max_depth, found with libyaml's event parser,
 * which stops at the first level too deep instead of building the whole tree. */
static int check_depth(const unsigned char *text, size_t len, const char *file,
		       const struct gf_yaml_bounds *b, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, rc = 0;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, text, len);
	while (yaml_parser_parse(&parser, &ev)) { /* syntax errors: the loader names their line */
		yaml_event_type_t type = ev.type;
		unsigned line = (unsigned)ev.start_mark.line + 1;
		yaml_event_delete(&ev);
		if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT) {
			if (++depth > b->max_depth) {
				snprintf(err, errlen, "%s:%u: nested more than %d levels deep; %s", file, line,
					 b->max_depth, b->shape);
				rc = -EINVAL;
				break;
			}
		} else if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
			depth--;
		} else if (type == YAML_STREAM_END_EVENT) {
			break;
		}
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* The whole file, if it is a regular file of at most b->max_bytes. */
static int read_bounded(const char *file, const struct gf_yaml_bounds *b, unsigned char **text,
			size_t *len, char *err, size_t errlen)
{
	struct stat st;
	unsigned char *buf;
	size_t got;
	FILE *f;
	int fd, rc;

	/* O_NONBLOCK: a FIFO in the file's place is refused below instead of waiting in open
	 * for a writer (a regular file reads as it would without it). */
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	f = fd < 0 ? NULL : fdopen(fd, "rb");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot read the %s: %s", file, b->what, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (fstat(fileno(f), &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot read the %s: %s", file, b->what, strerror(errno));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a folder; give a %s file such as %s", file, b->what, b->example);
		rc = -EISDIR;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)b->max_bytes) {
		snprintf(err, errlen, "%s: %s; a %s file is a regular file of at most %u KiB", file,
			 S_ISREG(st.st_mode) ? "too large" : "not a regular file", b->what, b->max_bytes / 1024);
		rc = -EINVAL;
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", file);
		rc = -ENOMEM;
		goto out_close;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read the %s: %s", file, b->what, strerror(EIO));
		free(buf);
		rc = -EIO;
		goto out_close;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	rc = 0;
out_close:
	fclose(f);
	return rc;
}

int gf_yaml_read(const char *file, const struct gf_yaml_bounds *b, unsigned char **text, size_t *len,
		 char *err, size_t errlen)
{
	int rc = read_bounded(file, b, text, len, err, errlen);

	if (rc)
		return rc;
	rc = check_depth(*text, *len, file, b, err, errlen);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

static const struct gf_yaml_bounds workload_bounds = {
	GF_YAML_MAX_BYTES, GF_YAML_MAX_DEPTH, "workload", "workloads/unet3d_h100.yaml",
	"a workload has sections, keys and small maps (at most 3 or 4 levels)",
};

int gf_yaml_load(const char *file, struct gf_workload *w, char *err, size_t errlen)
{
	struct loader L = { .w = w, .file = file, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	unsigned char *text = NULL;
	size_t len = 0;
	int rc;

	rc = gf_yaml_read(file, &workload_bounds, &text, &len, err, errlen);
	if (rc)
		return rc;
	snprintf(w->source, sizeof(w->source), "%s", file);
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", file);
		rc = -ENOMEM;
		goto out_free;
	}
	yaml_parser_set_input_string(&parser, text, len);
	rc = load_doc(&L, &parser, file);
	yaml_parser_delete(&parser);
out_free:
	free(text);
	return rc;
}

int gf_yaml_override(struct gf_workload *w, const char *assignment, char *err, size_t errlen)
{
	struct loader L = { .w = w, .file = NULL, .err = err, .errlen = errlen };
	const char *a = assignment, *eq;
	char path[512], at[600];
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int rc;

	if (!strncmp(a, "++", 2))
		a += 2;
	else if (a[0] == '+')
		a += 1;
	if (!strncmp(a, "workload.", 9))
		a += 9;
	eq = strchr(a, '=');
	if (!eq || eq == a) {
		snprintf(err, errlen, "command line: '%s' is not key=value (for example "
			 "--set reader.batch_size=4)", assignment);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%.*s", (int)(eq - a), a);
	if (!strncmp(path, "data_reader.", 12)) {
		char tmp[512];
		snprintf(tmp, sizeof(tmp), "reader.%s", path + 12);
		snprintf(path, sizeof(path), "%s", tmp);
	}
	/* A value is held to what a workload file is: as deep (65,536 brackets took 20 s of
	 * libyaml's time) and as long. */
	snprintf(at, sizeof(at), "command line: --set %s", path);
	if (strlen(eq + 1) > workload_bounds.max_bytes) {
		snprintf(err, errlen, "%s: a value longer than %u KiB", at, workload_bounds.max_bytes / 1024);
		return -EINVAL;
	}
	rc = check_depth((const unsigned char *)(eq + 1), strlen(eq + 1), at, &workload_bounds, err, errlen);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* The value alone is a YAML document: a scalar, or a flow map for distributions. An
	 * empty value is an empty string. */
	yaml_parser_set_input_string(&parser, (const unsigned char *)(eq + 1), strlen(eq + 1));
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "command line: %s: the value '%s' is not valid YAML: %s", path,
			 eq + 1, parser.problem ? parser.problem : "syntax error");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	L.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		const struct gf_key *k = gf_key_find(path);
		struct gf_origin o = { NULL, 0 };
		if (k && k->type == GF_K_STR)
			rc = gf_key_set(w, k, "", &o, err, errlen);
		else
			rc = atfail(&L, NULL, "%s needs a value%s", path, NULL);
	} else {
		rc = load_node(&L, path, root, NULL);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}
