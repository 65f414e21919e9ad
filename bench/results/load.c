/* load: see load.h. */
#include "results/load.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/diagnosis.h"
#include "results/doc.h"
#include "results/rdir.h"
#include "results/simulated.h"
#include "results/text.h"
#include "results/verdict.h"

FILE *gf_load_fopen(const char *path, uint64_t max)
{
	struct stat st;
	FILE *f;
	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. Beneath
	 * the results folder report holds, never through a link (results/rdir.h). */
	int fd = gf_rdir_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0), e;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	if (fstat(fd, &st)) {
		e = errno;
		goto err;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		e = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		goto err;
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		e = errno;
		goto err;
	}
	return f;
err:
	close(fd);
	errno = e;
	return NULL;
}

static const char *file_kind(mode_t m)
{
	return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a folder" : "not a regular file";
}

/* One file of a results folder: absent, or regular and at most max bytes. */
static int check_file(const char *path, uint64_t max, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -EINVAL);
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s is a link: gpufeed reads and writes a results folder only beneath it, never "
			 "through a link (give the folder of one run, as gpufeed made it)", path);
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is %s, not a file a run wrote: only regular files are read from a results folder "
			 "(give the folder of one run, as gpufeed made it)", path, file_kind(st.st_mode));
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s holds %llu bytes, more than the %llu a run writes: not a file a run "
			 "wrote", path, (unsigned long long)st.st_size, (unsigned long long)max);
		return -EINVAL;
	}
	return 0;
}

int gf_load_check_folder(const char *dir, char *err, size_t errlen)
{
	static const char *const files[] = {
		"ranks.csv", "latency.csv", "timeseries.csv", "ceiling_timeseries.csv", "checkpoint_ranks.csv",
		"checkpoint_latency.csv", "nodes.csv", "report.txt", "report.html",
	};
	char path[4200];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	rc = check_file(path, GF_LOAD_JSON_MAX, err, errlen);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !rc; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		rc = check_file(path, GF_LOAD_CSV_MAX, err, errlen);
	}
	/* plots/ holds what report rewrites and reads back (SVG into the page): a folder of
	 * its own, not a link to one (report would write and delete in it). */
	snprintf(path, sizeof(path), "%s/plots", dir);
	if (!rc && !lstat(path, &st) && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is %s, not the folder report draws into: gpufeed reads and writes a results "
			 "folder only beneath it, never through a link", path, S_ISLNK(st.st_mode) ? "a link" : file_kind(st.st_mode));
		rc = -EINVAL;
	}
	d = rc ? NULL : opendir(path);
	while (d && !rc && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/plots/%s", dir, e->d_name);
			rc = check_file(path, GF_LOAD_CSV_MAX, err, errlen);
		}
	if (d)
		closedir(d);
	return rc;
}

/* Parse dir/summary.json into *root: bounded, JSON. */
/* dir/file (summary.json, mix.json) parsed, its strings made safe to print. */
static int parse(const char *dir, const char *file, struct json_object **root, char *path, size_t plen, char *err,
		 size_t errlen)
{
	struct json_object *j;
	FILE *f;

	*root = NULL;
	snprintf(path, plen, "%s/%s", dir, file);
	f = gf_load_fopen(path, GF_LOAD_JSON_MAX);
	if (!f) {
		int rc = -errno;
		if (rc == -EINVAL || rc == -EFBIG || rc == -ELOOP || rc == -EXDEV) {
			check_file(path, GF_LOAD_JSON_MAX, err, errlen);
			return -EINVAL;
		}
		snprintf(err, errlen, "%s: %s; give the folder of one run (it holds summary.json), "
			 "e.g. results/<time>-<workload>-<target>%s", path, strerror(-rc),
			 strcmp(file, "mix.json") ? "" : ", or of a mix (it holds mix.json)");
		return rc;
	}
	j = json_object_from_fd(fileno(f));
	fclose(f);
	if (!j) {
		snprintf(err, errlen, "%s is not valid JSON (%s): was the run interrupted while writing it?",
			 path, json_util_get_last_err() ? json_util_get_last_err() : "parse error");
		return -EINVAL;
	}
	/* Every string as text that prints safely, once, for every reader (results/text.h). */
	if (gf_text_clean_json(j)) {
		json_object_put(j);
		snprintf(err, errlen, "out of memory reading %s", path);
		return -ENOMEM;
	}
	*root = j;
	return 0;
}

/* The major version of schema s of family fam ("gpufeed.summary/"): 1, 2 ...; 0 when s
 * is not of fam. Minor additions ("/2.1") read as their major. */
static int major(const char *s, const char *fam)
{
	size_t n = strlen(fam);
	char *end;
	long v;

	if (strncmp(s, fam, n))
		return 0;
	v = strtol(s + n, &end, 10);
	return end != s + n && (!*end || *end == '.') && v > 0 && v < 1000 ? (int)v : 0;
}

static double onum(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

/* A gpufeed.summary/1 run read as /2: its training rates over the time training read
 * (halts out; the wall-time rate kept apart), its checkpoint bandwidth as the bytes over
 * the median burst, the ranks of its widest burst. The verdict and the diagnosis are
 * worked out again by the caller. */
static void upgrade_v1(struct json_object *j)
{
	struct json_object *t, *c, *b, *wide = NULL;

	if (json_object_object_get_ex(j, "train", &t) && json_object_is_type(t, json_type_object)) {
		double el = onum(t, "elapsed_s"), halt = onum(t, "checkpoint_halt_s"), acc = onum(t, "accelerators");
		double rd = acc > 0 && el - halt / acc > 0 ? el - halt / acc : el;
		json_object_object_add(t, "read_bytes_per_s_wall", json_object_new_double(onum(t, "read_bytes_per_s")));
		json_object_object_add(t, "reading_s", json_object_new_double(rd));
		if (rd > 0) {
			json_object_object_add(t, "read_bytes_per_s", json_object_new_double(onum(t, "read_bytes") / rd));
			json_object_object_add(t, "samples_per_s", json_object_new_double(onum(t, "samples") / rd));
		}
	}
	if (!json_object_object_get_ex(j, "checkpoint", &c) || !json_object_is_type(c, json_type_object))
		return;
	for (int k = 0; k < 2; k++) {
		const char *kind = k ? "restore" : "write";
		char key[64];
		double best = -1, lo = 0, hi = 0;
		size_t n = json_object_object_get_ex(c, "bursts", &b) && json_object_is_type(b, json_type_array)
				   ? json_object_array_length(b) : 0;
		wide = NULL;
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(b, i), *kv;
			double w = onum(e, "rank_max_s") - onum(e, "rank_min_s"), bs = onum(e, "burst_s");
			if (!json_object_object_get_ex(e, "kind", &kv) || strcmp(json_object_get_string(kv), kind))
				continue;
			if (w > best) {
				best = w;
				wide = e;
			}
			lo = lo == 0 || bs < lo ? bs : lo;
			hi = bs > hi ? bs : hi;
		}
		snprintf(key, sizeof(key), "%s_burst_s", kind);
		if (!wide || onum(c, key) <= 0)
			continue;
		snprintf(key, sizeof(key), "%s_bytes_per_s", kind);
		json_object_object_add(c, key, json_object_new_double(onum(c, "bytes") / onum(c, k ? "restore_burst_s"
													   : "write_burst_s")));
		{
			struct json_object *sp = json_object_new_object();
			json_object_object_add(sp, "fastest_s", json_object_new_double(onum(wide, "rank_min_s")));
			json_object_object_add(sp, "median_s", json_object_new_double(onum(wide, "rank_median_s")));
			json_object_object_add(sp, "slowest_s", json_object_new_double(onum(wide, "rank_max_s")));
			snprintf(key, sizeof(key), "%s_rank_spread", kind);
			json_object_object_add(c, key, sp);
			snprintf(key, sizeof(key), "%s_burst_drift", kind);
			json_object_object_add(c, key, lo > 0 ? json_object_new_double(hi / lo) : NULL);
		}
	}
}

/* Decide the verdict and the diagnosis of a run that carries none of this gpufeed's (a
 * /1 summary, a simulated point) and make *d anew with them. */
static int judge(struct gf_doc **d, char *err, size_t errlen)
{
	struct json_object *root = json_object_get((*d)->root);
	struct gf_diagnosis dg;
	struct gf_verdict v;
	char name[256];
	bool lenient = (*d)->lenient;
	int rc;

	snprintf(name, sizeof(name), "%s", (*d)->name);
	gf_verdict_decide(*d, &v);
	gf_verdict_put(root, &v);
	gf_diagnose(*d, &v, &dg);
	gf_diagnosis_put(root, &dg);
	gf_doc_free(*d);
	rc = gf_doc_make(root, name, false, lenient, d, err, errlen);
	json_object_put(root);
	return rc;
}

static int load(const char *dir, bool any, struct gf_doc **out, char *err, size_t errlen)
{
	char base[4200], path[4300], msg[1024];
	const char *colon = strrchr(dir, ':'), *schema = "";
	struct json_object *j = NULL, *sv, *run;
	long nodes = 0;
	struct stat st;
	int rc, v;

	*out = NULL;
	/* DIR:nodes=N names one point of a simulated sweep, unless DIR:nodes=N is a folder. */
	snprintf(base, sizeof(base), "%s", dir);
	if (!any && colon && !strncmp(colon, ":nodes=", 7) && stat(dir, &st)) {
		char *end;
		nodes = strtol(colon + 7, &end, 10);
		if (*end || nodes <= 0) {
			snprintf(err, errlen, "%s: expected DIR:nodes=N with N a node count of the simulation", dir);
			return -EINVAL;
		}
		base[colon - dir] = '\0';
	}
	rc = parse(base, "summary.json", &j, path, sizeof(path), err, errlen);
	if (rc)
		return rc;
	if (json_object_object_get_ex(j, "schema", &sv) && json_object_is_type(sv, json_type_string))
		schema = json_object_get_string(sv);
	if (major(schema, "gpufeed.simulate/") == 1) {
		struct gf_doc *sim = NULL;
		rc = gf_doc_make(j, path, true, false, &sim, err, errlen);
		if (rc || any) {
			*out = sim;
		} else if (!(rc = gf_simulated_point(sim, nodes, &run, msg, sizeof(msg)))) {
			/* A point of a simulation has the figures it predicts and the verdict they
			 * give, decided as a run's is. */
			rc = gf_doc_make(run, path, false, true, out, err, errlen);
			json_object_put(run);
			if (!rc)
				rc = judge(out, err, errlen);
		} else {
			snprintf(err, errlen, "%s: %s", base, msg);
		}
		if (!any)
			gf_doc_free(sim);
		json_object_put(j);
		return rc;
	}
	v = major(schema, "gpufeed.summary/");
	if (v < 1 || v > 2) {
		snprintf(err, errlen, "%s has schema '%s'; this gpufeed reads %s and %s (read as /2) and %s: use the "
			 "gpufeed version that made the run", path, schema, GF_SUMMARY_SCHEMA, GF_SUMMARY_SCHEMA_V1,
			 GF_SIMULATE_SCHEMA);
		json_object_put(j);
		return -EINVAL;
	}
	if (nodes) {
		snprintf(err, errlen, "%s: :nodes=N picks a point of a simulation, and %s is a measured run", dir, base);
		json_object_put(j);
		return -EINVAL;
	}
	if (v == 1)
		upgrade_v1(j);
	rc = gf_doc_make(j, path, false, false, out, err, errlen);
	json_object_put(j);
	if (!rc && v == 1) {
		rc = judge(out, err, errlen);
		if (!rc) {
			(*out)->version = 1;
			snprintf((*out)->note, sizeof((*out)->note), "%s is %s (an older gpufeed): read as %s, its "
				 "verdict and diagnosis worked out again by this gpufeed", path, GF_SUMMARY_SCHEMA_V1,
				 GF_SUMMARY_SCHEMA);
		}
	}
	return rc;
}

int gf_load_any(const char *dir, struct gf_doc **d, char *err, size_t errlen)
{
	return load(dir, true, d, err, errlen);
}

int gf_load_run(const char *dir, struct gf_doc **d, char *err, size_t errlen)
{
	return load(dir, false, d, err, errlen);
}

bool gf_load_is_mix(const char *dir)
{
	char path[4300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (!lstat(path, &st))
		return false;
	snprintf(path, sizeof(path), "%s/mix.json", dir);
	return !lstat(path, &st);
}

int gf_load_mix(const char *dir, struct gf_doc **d, char *err, size_t errlen)
{
	struct json_object *j = NULL, *sv;
	const char *schema = GF_MIX_SCHEMA;
	char path[4300];
	int rc;

	*d = NULL;
	rc = parse(dir, "mix.json", &j, path, sizeof(path), err, errlen);
	if (rc)
		return rc;
	/* The first mix.json files carried no schema: they are /1's. */
	if (json_object_object_get_ex(j, "schema", &sv))
		schema = json_object_is_type(sv, json_type_string) ? json_object_get_string(sv) : "?";
	if (major(schema, "gpufeed.mix/") != 1) {
		snprintf(err, errlen, "%s has schema '%s'; this gpufeed reads %s: use the gpufeed version that made "
			 "the mix", path, schema, GF_MIX_SCHEMA);
		rc = -EINVAL;
	} else {
		rc = gf_doc_make_mix(j, path, d, err, errlen);
	}
	json_object_put(j);
	return rc;
}

const char *gf_load_mix_folder(struct gf_doc *m, size_t k, const char *dir, char *buf, size_t len)
{
	const char *sub = gf_el_str(m, GF_F_MIX_JOB_FOLDER, k, "");

	/* One name, nothing that leads out of the mix's folder. */
	if (!sub[0] || strchr(sub, '/') || !strcmp(sub, ".") || !strcmp(sub, ".."))
		return NULL;
	snprintf(buf, len, "%s/%s", dir, sub);
	return buf;
}

void gf_load_say_problems(FILE *f, const char *cmd, const struct gf_doc *d)
{
	if (d->note[0])
		fprintf(f, "%s: note: %s\n", cmd, d->note);
	if (!d->nproblems)
		return;
	fprintf(f, "%s: %s lacks %u figure(s) of schema %s; they are shown as missing, never as 0:\n", cmd, d->name,
		d->nproblems, d->mix ? GF_MIX_SCHEMA : GF_SUMMARY_SCHEMA);
	for (unsigned i = 0; i < d->nproblems && i < GF_DOC_PROBLEMS; i++)
		fprintf(f, "  %s\n", d->problem[i]);
	if (d->nproblems > GF_DOC_PROBLEMS)
		fprintf(f, "  ... and %u more\n", d->nproblems - GF_DOC_PROBLEMS);
}

int gf_csv_split(char *line, char **fields, int max)
{
	char *r = line, *w;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		fields[n++] = w = r;
		if (*r == '"') {
			/* "" inside quotes is one quote; the field is unquoted in place. */
			for (r++; *r != '"' || r[1] == '"'; r++) {
				if (!*r)
					return -1;
				if (*r == '"')
					r++;
				*w++ = *r;
			}
			r++;
			if (*r && *r != ',')
				return -1;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (!*r) {
			*w = '\0';
			break;
		}
		*w = '\0';
		r++;
	}
	return n;
}

int gf_csv_column(const char *path, const char *name)
{
	char line[4096], *fields[128];
	FILE *f = gf_load_fopen(path, GF_LOAD_CSV_MAX);
	int n, rc = -ENOENT;

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	n = gf_csv_split(line, fields, 128);
	for (int i = 0; i < n; i++)
		if (!strcmp(fields[i], name)) {
			rc = i;
			break;
		}
	return rc;
}

const char *gf_path_base(const char *path, char *buf, size_t len)
{
	char real[PATH_MAX];
	size_t n;
	const char *s;

	/* "." or "..": the folder's own name, which realpath gives. */
	if (realpath(path, real))
		path = real;
	n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	snprintf(buf, len, "%.*s", (int)(path + n - s), s);
	return buf;
}
