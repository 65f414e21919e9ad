/* simulated (report): renders a gpufeed simulate folder ("gpufeed.simulate/1",
 * results/simulated.h reads one as runs): the table gpufeed simulate prints (one
 * implementation, used by both), the plot and a page. Reads JSON and the folder only;
 * knows nothing of the simulator's code. */
#ifndef GF_SIMULATED_H
#define GF_SIMULATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gf_doc;

/* The words scripts/plot/simulate.gp takes for simulate summary s: "checkpoint" and/or
 * "train" for what was simulated, "standin" when some point's AU is the steady state's
 * standing in for a run that counts no step. */
void gf_simulated_plot_what(struct gf_doc *s, char *buf, size_t len);

/* The sweep table of simulate summary s, as gpufeed simulate prints it. Returns 0 or -EIO. */
int gf_simulated_text(FILE *o, struct gf_doc *s);

/* gpufeed report on a simulate folder: report.txt (the table), report.html (the table
 * and the plot), plots/simulate.png and .svg again from sweep.csv. msgs: what was
 * written, or NULL. Returns 0 or -errno with err. */
int gf_simulated_report(const char *dir, struct gf_doc *s, bool plots, FILE *msgs, char *err, size_t errlen);

#endif
