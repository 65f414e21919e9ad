/* out: where the simulator's results go. A results folder like a run's, made and finished
 * by report/results.c (written as "<base>/<UTC>-<name>-<kind>.partial", renamed when
 * complete, never overwritten); the plot rendered by report/plot.c's gnuplot runner from
 * a script in scripts/plot/, every path and title handed to gnuplot as an argument
 * (gnuplot -c), never pasted into gnuplot code. gnuplot is optional: without it
 * plots/NOTE.txt says why there is no plot. */
#ifndef GF_SIM_OUT_H
#define GF_SIM_OUT_H

struct json_object;

/* Write j (pretty-printed) to dir/name. Returns 0 or -EIO. */
int gf_sim_out_json(const char *dir, const char *name, struct json_object *j);

/* Render dir/plots/<out>.png and .svg with scripts/plot/<script>, passing dir/<data>, the
 * title and `what` (words the script reads, its ARG6) as arguments. Returns 0 when
 * rendered; otherwise writes plots/NOTE.txt and returns -ENOENT (no gnuplot or no
 * scripts) or -EIO (gnuplot failed: plots/gnuplot.log). */
int gf_sim_out_plot(const char *dir, const char *script, const char *data, const char *out,
		    const char *title, const char *what);

/* Write dir/plots/NOTE.txt saying why there is no plot. Returns 0 or -errno. */
int gf_sim_out_note(const char *dir, const char *why);

#endif
