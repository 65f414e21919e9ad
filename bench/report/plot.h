/* plot: renders the plots of a results folder into <dir>/plots by running gnuplot on the
 * scripts in scripts/plot/ (PNG through pngcairo, and SVG). gnuplot is an optional tool:
 * when it or a script is missing, plotting is skipped with a note (plots/NOTE.txt) and
 * never fails a run. Reads the results folder only; never does benchmark I/O. */
#ifndef GF_PLOT_H
#define GF_PLOT_H

#include <stddef.h>

struct json_object;

/* Where the gnuplot scripts are: $GPUFEED_PLOT_DIR when it is set (and then only there),
 * else the first that holds common.gp of the source tree gpufeed was built from and the
 * installed copy (pkgdatadir/plot). Returns 0 and the folder, or -ENOENT with the places
 * that were tried in buf. */
int gf_plot_dir(char *buf, size_t len);

/* Run one script: gnuplot -e "VARS" DIR/script. vars is gnuplot code (see gf_plot_var_*);
 * script_dir is added. gnuplot's messages are appended to log (NULL: discarded). Returns
 * 0, -ENOENT when gnuplot is not installed, -ETIMEDOUT, or -EIO when gnuplot failed. */
int gf_plot_gnuplot(const char *script_dir, const char *script, const char *vars, const char *log);

/* Append name='value' (quotes doubled, line breaks dropped) or name=number to a
 * gnuplot variable list. Return 0 or -ENOSPC. */
int gf_plot_var_str(char *buf, size_t len, const char *name, const char *value);
int gf_plot_var_num(char *buf, size_t len, const char *name, double value);

/* The one-line title of a run for its plots: workload, target, accelerators. */
void gf_plot_title(struct json_object *summary, char *buf, size_t len);

struct gf_plot_report {
	int made;          /* plots rendered */
	char made_list[512];   /* "timeline latency ..." */
	char note[1024];   /* why plots were skipped, empty when none were */
};

/* Render every plot that the folder's data allows into dir/plots. Returns 0 (also when
 * plots were skipped: see rep->note, which is also written to plots/NOTE.txt) or -errno
 * when dir/plots cannot be made. */
int gf_plot_results(const char *dir, struct gf_plot_report *rep);

#endif
