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

#include "results/simulated.h"
#include "results/summary.h"

FILE *gf_load_fopen(const char *path, uint64_t max)
{
	struct stat st;
	FILE *f;
	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), e;

	if (fd < 0)
		return NULL;
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

	if (stat(path, &st))
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -EINVAL);
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
	DIR *d;
	int rc;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	rc = check_file(path, GF_LOAD_JSON_MAX, err, errlen);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !rc; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		rc = check_file(path, GF_LOAD_CSV_MAX, err, errlen);
	}
	/* plots/ holds what report rewrites and reads back (SVG into the page). */
	snprintf(path, sizeof(path), "%s/plots", dir);
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

/* Parse dir/summary.json, a run's or a simulation's. */
static int parse(const char *dir, struct json_object **root, char *err, size_t errlen)
{
	char path[4200];
	struct json_object *j;
	const char *schema;
	FILE *f;

	*root = NULL;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	f = gf_load_fopen(path, GF_LOAD_JSON_MAX);
	if (!f) {
		int rc = -errno;
		if (rc == -EINVAL || rc == -EFBIG) {
			check_file(path, GF_LOAD_JSON_MAX, err, errlen);
			return -EINVAL;
		}
		snprintf(err, errlen, "%s: %s; give the folder of one run (it holds summary.json), "
			 "e.g. results/<time>-<workload>-<target>", path, strerror(-rc));
		return rc;
	}
	j = json_object_from_fd(fileno(f));
	fclose(f);
	if (!j) {
		snprintf(err, errlen, "%s is not valid JSON (%s): was the run interrupted while writing it?",
			 path, json_util_get_last_err() ? json_util_get_last_err() : "parse error");
		return -EINVAL;
	}
	schema = gf_json_str(j, "/schema", "");
	/* The major version must match; minor additions (gpufeed.summary/1.x) are readable. */
	if ((strncmp(schema, GF_SUMMARY_SCHEMA, strlen(GF_SUMMARY_SCHEMA)) ||
	     (schema[strlen(GF_SUMMARY_SCHEMA)] && schema[strlen(GF_SUMMARY_SCHEMA)] != '.')) &&
	    !gf_simulated_is(j)) {
		snprintf(err, errlen, "%s has schema '%s', this gpufeed reads '%s' (and '%s'): use the gpufeed "
			 "version that made the run", path, schema, GF_SUMMARY_SCHEMA, GF_SIMULATE_SCHEMA);
		json_object_put(j);
		return -EINVAL;
	}
	*root = j;
	return 0;
}

int gf_load_any(const char *dir, struct json_object **root, char *err, size_t errlen)
{
	return parse(dir, root, err, errlen);
}

int gf_load_summary(const char *dir, struct json_object **root, char *err, size_t errlen)
{
	char base[4200], msg[1024];
	const char *colon = strrchr(dir, ':');
	long nodes = 0;
	struct json_object *j;
	struct stat st;
	int rc;

	/* DIR:nodes=N names one point of a simulated sweep, unless DIR:nodes=N is a folder. */
	snprintf(base, sizeof(base), "%s", dir);
	if (colon && !strncmp(colon, ":nodes=", 7) && stat(dir, &st)) {
		char *end;
		nodes = strtol(colon + 7, &end, 10);
		if (*end || nodes <= 0) {
			snprintf(err, errlen, "%s: expected DIR:nodes=N with N a node count of the simulation", dir);
			return -EINVAL;
		}
		base[colon - dir] = '\0';
	}
	rc = parse(base, &j, err, errlen);
	if (rc)
		return rc;
	if (!gf_simulated_is(j)) {
		if (nodes) {
			snprintf(err, errlen, "%s: :nodes=N picks a point of a simulation, and %s is a measured run",
				 dir, base);
			json_object_put(j);
			return -EINVAL;
		}
		*root = j;
		return 0;
	}
	rc = gf_simulated_point(j, nodes, root, msg, sizeof(msg));
	json_object_put(j);
	if (rc)
		snprintf(err, errlen, "%s: %s", base, msg);
	return rc;
}

static struct json_object *at(struct json_object *root, const char *ptr)
{
	struct json_object *v = NULL;

	if (!root || json_pointer_get(root, ptr, &v))
		return NULL;
	return v;
}

bool gf_json_num(struct json_object *root, const char *ptr, double *v)
{
	struct json_object *o = at(root, ptr);

	if (!o || !(json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int)))
		return false;
	*v = json_object_get_double(o);
	return true;
}

const char *gf_json_str(struct json_object *root, const char *ptr, const char *fallback)
{
	struct json_object *o = at(root, ptr);

	return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : fallback;
}

bool gf_json_bool(struct json_object *root, const char *ptr, bool fallback)
{
	struct json_object *o = at(root, ptr);

	return o && json_object_is_type(o, json_type_boolean) ? json_object_get_boolean(o) : fallback;
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
