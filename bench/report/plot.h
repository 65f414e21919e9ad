/* plot: renders the plots of a results folder into <dir>/plots by running gnuplot on the
 * scripts in scripts/plot/ (PNG through pngcairo, and SVG). gnuplot is an optional tool:
 * when it or a script is missing, plotting is skipped with a note (plots/NOTE.txt) and
 * never fails a run. Reads the results folder only; never does benchmark I/O.
 *
 * What gnuplot is given: numbers as variables (gnuplot -e "name=1.0e+00;"), and every
 * string (paths, titles, units) as a command-line argument that the script reads as
 * ARG1..ARG9 (gnuplot -c). Labels from the data (burst kinds, run names) travel in the
 * data files that plotdata.c writes. No string is ever pasted into gnuplot code, so a
 * results folder or workload named with a quote cannot run commands. */
#ifndef GF_PLOT_H
#define GF_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* Where the gnuplot scripts are: $GPUFEED_PLOT_DIR when it is set (and then only there),
 * else the plot/ folder gf_datadir_find gives ($GPUFEED_DATADIR, the installed tree next
 * to the binary, the configured pkgdatadir, the source tree). Returns 0 and the folder, or -ENOENT with the places
 * that were tried in buf. */
int gf_plot_dir(char *buf, size_t len);

/* The strings a script reads: ARG1 is the script folder, then these, in this order. */
struct gf_plot_args {
	const char *data;    /* ARG2: the main data file */
	const char *out;     /* ARG3: the output path without its extension */
	const char *title;   /* ARG4 */
	const char *formats; /* ARG5: "png svg", "png" or "svg" */
	const char *extra[4]; /* ARG6..ARG9: script-specific (units, a second data file); NULL ends */
};

/* Run one script: gnuplot -e NUMS -c SCRIPT_DIR/script SCRIPT_DIR ARGS... nums holds
 * numbers only (gf_plot_var_num), never text. The script, its folder, data and out go
 * through gf_plot_name; a path among extra must be given so by the caller. gnuplot's
 * messages go to log_fd (-1: discarded). Returns 0, -ENOENT when gnuplot is not
 * installed, -ETIMEDOUT, or -EIO when gnuplot failed. */
int gf_plot_gnuplot(const char *script_dir, const char *script, const char *nums,
		    const struct gf_plot_args *args, int log_fd);

/* Draw one plot on its own (a page of its own, not a run's plots): a->out.png and .svg
 * made anew, gnuplot's messages into gnuplot.log beside them (removed when empty).
 * Returns whether the PNG was drawn; else note says why ("no WHAT: gnuplot failed ..."). */
bool gf_plot_draw(const char *script_dir, const char *script, const char *nums, const struct gf_plot_args *a,
		  const char *what, char *note, size_t len);

/* path as gnuplot must be given a file name: gnuplot runs a name that starts with '<'
 * (read from a command) or '|' (write to one) as a shell command, and takes "-", "+" and
 * "++" as no file at all, so a relative name is led by "./" ("<touch x" is "./<touch x"),
 * an absolute one is left as it is. Returns buf (path cut to len when longer). */
const char *gf_plot_path(const char *path, char *buf, size_t len);
/* The name gnuplot gets for path: in the results folder report holds, through its
 * folder's descriptor (results/rdir.h: no link on the way is followed), then as
 * gf_plot_path. Returns buf. */
const char *gf_plot_name(const char *path, char *buf, size_t len);

/* Append name=number to a gnuplot variable list. Returns 0 or -ENOSPC. name must be a
 * constant identifier of the caller's, never data. */
int gf_plot_var_num(char *buf, size_t len, const char *name, double value);

/* The one-line title of a run for its plots: its label, workload, target, accelerators. */
struct gf_doc;
void gf_plot_title(struct gf_doc *summary, char *buf, size_t len);

/* A unit for an axis of values up to max (in the base unit): the divisor and its name.
 * Latency in microseconds: "us", "ms" or "s"; rates in bytes/s: "MB/s" or "GB/s". */
double gf_plot_latency_unit(double max_us, const char **unit);
double gf_plot_rate_unit(double max_bytes_per_s, const char **unit);

struct gf_plot_report {
	int made;              /* plots rendered */
	char made_list[512];   /* "timeline latency ..." */
	char note[2048];       /* why plots were skipped, empty when none were */
};

/* Render every plot that the folder's data allows into dir/plots. Returns 0 (also when
 * plots were skipped: see rep->note, which is also written to plots/NOTE.txt) or -errno
 * when dir/plots cannot be made. */
int gf_plot_results(const char *dir, struct gf_plot_report *rep);

#endif
