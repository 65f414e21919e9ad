/* out: see out.h. */
#include "sim/out.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/plot.h"

int gf_sim_out_json(const char *dir, const char *name, struct json_object *j)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return json_object_to_file_ext(path, j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)
		       ? -EIO : 0;
}

static int note(const char *plots, const char *what)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/NOTE.txt", plots);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", what);
	return fclose(f) ? -errno : 0;
}

int gf_sim_out_note(const char *dir, const char *why)
{
	char plots[4200];

	snprintf(plots, sizeof(plots), "%s/plots", dir);
	if (mkdir(plots, 0755) && errno != EEXIST)
		return -errno;
	return note(plots, why);
}

int gf_sim_out_plot(const char *dir, const char *script, const char *data, const char *out,
		    const char *title, const char *what)
{
	char plots[4200], sdir[1024], datap[4300], outp[4300], log[4300];
	struct gf_plot_args args = { .data = datap, .out = outp, .title = title, .formats = "png svg",
				     .extra = { what, NULL } };
	struct stat st;
	int rc;

	snprintf(plots, sizeof(plots), "%s/plots", dir);
	if (mkdir(plots, 0755) && errno != EEXIST)
		return -errno;
	if (gf_plot_dir(sdir, sizeof(sdir))) {
		char why[1200];
		snprintf(why, sizeof(why), "no plot: %s", sdir);
		note(plots, why);
		return -ENOENT;
	}
	snprintf(datap, sizeof(datap), "%s/%s", dir, data);
	snprintf(outp, sizeof(outp), "%s/%s", plots, out);
	snprintf(log, sizeof(log), "%s/gnuplot.log", plots);
	rc = gf_plot_gnuplot(sdir, script, NULL, &args, log);
	if (rc == -ENOENT) {
		note(plots, "no plot: gnuplot is not installed (apt-get install gnuplot-nox)");
		unlink(log);
		return rc;
	}
	if (rc) {
		note(plots, "no plot: gnuplot failed, see gnuplot.log");
		return -EIO;
	}
	/* An empty log says nothing: leave no file behind. */
	if (stat(log, &st) == 0 && st.st_size == 0)
		unlink(log);
	return 0;
}
