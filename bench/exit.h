/* exit: the process's exit codes, as README's table gives them. The ground floor: the
 * driver, report and compare all end with one of these. */
#ifndef GF_EXIT_H
#define GF_EXIT_H

enum gf_exit {
	GF_EXIT_OK = 0,
	GF_EXIT_FAILED = 1, /* the run failed */
	GF_EXIT_USAGE = 2,  /* bad command line or workload */
	GF_EXIT_CHECK = 3,  /* a requested check did not hold */
};

#endif
