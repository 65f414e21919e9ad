/* load: see load.h. */
#include "report/load.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summary.h"

int gf_load_summary(const char *dir, struct json_object **root, char *err, size_t errlen)
{
	char path[4200];
	struct json_object *j;
	const char *schema;
	FILE *f;

	*root = NULL;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	f = fopen(path, "r");
	if (!f) {
		int rc = -errno;
		snprintf(err, errlen, "%s: %s; give the folder of one run (it holds summary.json), "
			 "e.g. results/<time>-<workload>-<target>", path, strerror(-rc));
		return rc;
	}
	fclose(f);
	j = json_object_from_file(path);
	if (!j) {
		snprintf(err, errlen, "%s is not valid JSON (%s): was the run interrupted while writing it?",
			 path, json_util_get_last_err() ? json_util_get_last_err() : "parse error");
		return -EINVAL;
	}
	schema = gf_json_str(j, "/schema", "");
	/* The major version must match; minor additions (gpufeed.summary/1.x) are readable. */
	if (strncmp(schema, GF_SUMMARY_SCHEMA, strlen(GF_SUMMARY_SCHEMA)) ||
	    (schema[strlen(GF_SUMMARY_SCHEMA)] && schema[strlen(GF_SUMMARY_SCHEMA)] != '.')) {
		snprintf(err, errlen, "%s has schema '%s', this gpufeed reads '%s': use the gpufeed "
			 "version that made the run", path, schema, GF_SUMMARY_SCHEMA);
		json_object_put(j);
		return -EINVAL;
	}
	*root = j;
	return 0;
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
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		fields[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

int gf_csv_column(const char *path, const char *name)
{
	char line[4096], *fields[128];
	FILE *f = fopen(path, "r");
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
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	snprintf(buf, len, "%.*s", (int)(path + n - s), s);
	return buf;
}
