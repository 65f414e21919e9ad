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

/* The worse of two exit codes, for a command of several parts (a mix's jobs, compare of
 * two mixes job by job): a failure (1) or a refusal (2) outweighs a check that did not
 * hold (3), which outweighs success. */
static inline int gf_exit_worse(int a, int b)
{
	static const int weight[] = { [GF_EXIT_OK] = 0, [GF_EXIT_CHECK] = 1, [GF_EXIT_USAGE] = 2, [GF_EXIT_FAILED] = 3 };
	int wa = a >= 0 && a <= GF_EXIT_CHECK ? weight[a] : 3, wb = b >= 0 && b <= GF_EXIT_CHECK ? weight[b] : 3;

	return wb > wa ? b : a;
}

#endif
