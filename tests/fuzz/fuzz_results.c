/* fuzz_results: libFuzzer target for the results loader that `gpufeed report` and
 * `gpufeed compare` use on folders users hand them. Each input becomes summary.json in a
 * scratch folder and is loaded; the first bytes also become a CSV whose columns are looked
 * up and split as the report does. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static int put(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(data, 1, size, f);
	return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *root = NULL;
	char err[1024], path[128], line[512], *fields[16];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/gf-fuzz-results.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	if (put("summary.json", data, size))
		return 0;
	if (!gf_load_summary(dir, &root, err, sizeof(err))) {
		double v;
		(void)gf_json_num(root, "/train/au_percent/mean", &v);
		(void)gf_json_str(root, "/status", "");
		(void)gf_json_bool(root, "/train/passed", false);
		json_object_put(root);
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	(void)gf_csv_column(path, "au_percent");
	snprintf(line, sizeof(line), "%.*s", (int)(size < sizeof(line) - 1 ? size : sizeof(line) - 1),
		 (const char *)data);
	(void)gf_csv_split(line, fields, 16);
	return 0;
}
