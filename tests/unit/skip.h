/* skip: a unit test that cannot run here (no tmpfs, a filesystem without O_DIRECT) says so
 * to automake. cmocka's skip() counts the test as passed, so the program would exit 0 and
 * automake would report PASS, which hides the gap from CI's "a skip is a failure". Call
 * gf_skip(why) instead of skip(), and return gf_skip_status(cmocka_run_group_tests(...))
 * from main: a program that failed nothing but skipped something exits 77, automake's
 * SKIP. Include after cmocka.h. */
#ifndef GF_TEST_SKIP_H
#define GF_TEST_SKIP_H

static int gf_skipped;

#define gf_skip(why)                                            \
	do {                                                    \
		gf_skipped++;                                   \
		print_message("[  SKIP    ] %s\n", (why));     \
		skip();                                         \
	} while (0)

static inline int gf_skip_status(int failed)
{
	return failed ? failed : gf_skipped ? 77 : 0;
}

#endif
