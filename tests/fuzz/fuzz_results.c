/* fuzz_results: libFuzzer target for the typed results loader that `gpufeed report`,
 * `compare`, `table` and `simulate --calibrate` use on folders users hand them. Each input
 * becomes summary.json in a scratch folder, is loaded and checked against the schema
 * table, and a loaded one is rendered as report.txt is (the verdict and diagnosis read
 * back, every page row); the first bytes also become a CSV whose columns are looked up
 * and split as the report does. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/simulated.h"
#include "results/doc.h"
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
	struct gf_doc *d = NULL;
	char err[1024], path[128], line[512], *fields[16];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/gf-fuzz-results.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	if (put("summary.json", data, size))
		return 0;
	if (!gf_load_any(dir, &d, err, sizeof(err))) {
		FILE *null = fopen("/dev/null", "w");
		if (null && d->simulate)
			(void)gf_simulated_text(null, d);
		else if (null)
			(void)gf_report_text(null, dir, d, NULL);
		if (null)
			fclose(null);
		gf_doc_free(d);
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	(void)gf_csv_column(path, "au_percent");
	snprintf(line, sizeof(line), "%.*s", (int)(size < sizeof(line) - 1 ? size : sizeof(line) - 1),
		 (const char *)data);
	(void)gf_csv_split(line, fields, 16);
	return 0;
}
