/* Description: servers.shard_placement from a run's checkpoint_ranks.csv (bench/sim/
 * placement): write burst 0's server column, servers numbered in the order of their names
 * (not of their first appearance), a rank with two files placed with its last, quoted
 * fields as report/ckpt_csv.c writes them, no placement from an empty or partly filled
 * column, errors naming the file and line; and --calibrate's choice between the runs and
 * the base system (the runs agree: theirs; they differ, or the base sets one: the base's,
 * with a note naming the runs). Buggy: the first file's server, numbering by appearance,
 * a comma inside quotes splitting a field, a list taken from disagreeing runs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/calibrate.h"
#include "sim/placement.h"
#include "sim/system.h"

#define HEAD "burst,kind,checkpoint,rank,seconds,server\n"

/* Read text as checkpoint_ranks.csv; returns what gf_sim_placement_read returns. */
static int parse(const char *text, struct gf_sim_placement *p, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	err[0] = '\0';
	rc = gf_sim_placement_read(f, "run/checkpoint_ranks.csv", p, err, errlen);
	fclose(f);
	return rc;
}

static void expect_list(const struct gf_sim_placement *p, const uint32_t *v, uint32_t n, uint32_t nservers)
{
	assert_int_equal(p->n, n);
	assert_int_equal(p->nservers, nservers);
	for (uint32_t r = 0; r < n; r++)
		if (p->server[r] != v[r])
			fail_msg("rank %u on server %u, expected %u", r, p->server[r], v[r]);
}

static void test_derive(void **state)
{
	(void)state;
	struct gf_sim_placement p;
	char err[512];
	/* Rank 0 writes its model states to zeta, then its optimizer states to alpha: placed
	 * with alpha (its last file). alpha sorts first, so it is server 0 although zeta is
	 * named first. Restores and later bursts name other servers: not read. Rows out of
	 * rank order, a CRLF line end. */
	const char *csv = HEAD "0,write,0,1,1.0,h:/zeta\n"
			       "0,write,0,0,1.0,h:/zeta;h:/alpha\r\n"
			       "0,write,0,2,1.0,h:/alpha;h:/zeta\n"
			       "1,restore,0,0,1.0,h:/other\n"
			       "2,write,1,1,1.0,h:/other;h:/alpha\n";
	static const uint32_t want[] = { 0, 1, 1 };

	assert_int_equal(parse(csv, &p, err, sizeof(err)), 0);
	expect_list(&p, want, 3, 2);
	gf_sim_placement_free(&p);
	/* The testbed's names (tests/testbed/simulate.sh placement(): [1, 1, 1, 0, ...]). */
	const char *tb = HEAD "0,write,0,0,3.07,vm:/t/gft-s1/b1;vm:/t/gft-s2/b1\n"
			      "0,write,0,1,1.16,vm:/t/gft-s2/b1;vm:/t/gft-s1/b1\n";
	static const uint32_t want_tb[] = { 1, 0 };
	assert_int_equal(parse(tb, &p, err, sizeof(err)), 0);
	expect_list(&p, want_tb, 2, 2);
	gf_sim_placement_free(&p);
}

static void test_quoted(void **state)
{
	(void)state;
	struct gf_sim_placement p;
	char err[512];
	/* A server name with a comma or a quote is quoted, a quote doubled; the ';' between
	 * a rank's files stays inside the quotes. */
	const char *csv = HEAD "0,write,0,0,1.0,\"b,2:/x;a,1:/x\"\n"
			       "0,write,0,1,1.0,\"say \"\"b\"\":/x\"\n"
			       "0,write,0,2,1.0,\"a,1:/x\"\n";
	static const uint32_t want[] = { 0, 1, 0 };

	assert_int_equal(parse(csv, &p, err, sizeof(err)), 0);
	/* Rank 0's last file "a,1:/x" (server 0) < "say \"b\":/x" (1); "b,2:/x" holds no
	 * rank's last file. */
	expect_list(&p, want, 3, 2);
	gf_sim_placement_free(&p);
}

static void test_none(void **state)
{
	(void)state;
	struct gf_sim_placement p;
	char err[512];

	/* Local disk, S3: the column is empty. */
	assert_int_equal(parse(HEAD "0,write,0,0,1.0,\n0,write,0,1,1.0,\n", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	assert_null(p.server);
	assert_int_equal(p.filled, 0);
	/* A run from before the column. */
	assert_int_equal(parse("burst,kind,checkpoint,rank,seconds\n0,write,0,0,1.0\n", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	/* One rank of two names its server, or rank 1 has no row: no placement (rank 1's
	 * shard would have no server), the counts say why. */
	assert_int_equal(parse(HEAD "0,write,0,0,1.0,h:/a\n0,write,0,1,1.0,\n", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.filled, 1);
	assert_int_equal(p.rows, 2);
	assert_int_equal(parse(HEAD "0,write,0,0,1.0,h:/a\n0,write,0,2,1.0,h:/a\n", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.rows, 3);
}

static void expect_error(const char *csv, const char *where, const char *what)
{
	struct gf_sim_placement p;
	char err[512];

	assert_int_equal(parse(csv, &p, err, sizeof(err)), -EINVAL);
	assert_null(p.server);
	if (!strstr(err, where) || !strstr(err, what))
		fail_msg("'%s' does not say '%s' and '%s'", err, where, what);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "run/checkpoint_ranks.csv: line 1", "empty");
	expect_error("burst,kind,seconds,server\n0,write,1.0,h:/a\n", "run/checkpoint_ranks.csv: line 1",
		     "burst, kind and rank");
	expect_error(HEAD "0,write,0,0,1.0,h:/a\n0,write,0,x,1.0,h:/a\n", "run/checkpoint_ranks.csv: line 3",
		     "rank is not");
	expect_error(HEAD "0,write,0,-1,1.0,h:/a\n", "line 2", "rank is not");
	expect_error(HEAD "zero,write,0,0,1.0,h:/a\n", "line 2", "burst is not");
	expect_error(HEAD "0,wrote,0,0,1.0,h:/a\n", "line 2", "neither write nor restore");
	expect_error(HEAD "0,write,0,0,1.0\n", "line 2", "5 fields where the header has 6");
	expect_error(HEAD "0,write,0,0,1.0,h:/a,extra\n", "line 2", "7 fields");
	expect_error(HEAD "0,write,0,0,1.0,\"h:/a\n", "line 2", "quote");
	expect_error(HEAD "0,write,0,0,1.0,\"h\"x\n", "line 2", "quote");
	expect_error(HEAD "0,write,0,0,1.0,h:/a\n0,write,0,0,1.0,h:/b\n", "line 3", "rank 0 twice");
	expect_error(HEAD "\x01\x02garbage\n", "line 2", "fields");
}

/* A results folder under a fresh temporary directory holding checkpoint_ranks.csv text
 * (NULL: none). */
static void folder(char *dir, size_t len, const char *tmp, const char *name, const char *csv)
{
	char path[1200];
	FILE *f;

	snprintf(dir, len, "%s/%s", tmp, name);
	assert_int_equal(mkdir(dir, 0700), 0);
	if (!csv)
		return;
	snprintf(path, sizeof(path), "%s/checkpoint_ranks.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(csv, f);
	assert_int_equal(fclose(f), 0);
}

struct picked {
	int rc;
	char out[4096];
	struct gf_system base;
	struct gf_sim_place_pick pick;
};

static void run_pick(struct gf_calib_run *runs, int n, struct gf_system *base, struct picked *r)
{
	char err[512] = "";
	FILE *o = fmemopen(r->out, sizeof(r->out) - 1, "w");

	assert_non_null(o);
	memset(r->out, 0, sizeof(r->out));
	r->rc = gf_sim_place_pick(runs, n, base, &r->pick, o, err, sizeof(err));
	fclose(o);
	r->base = *base;
}

static void test_pick(void **state)
{
	(void)state;
	char tmp[] = "/tmp/gpufeed-placement.XXXXXX", want[1400], cmd[1200];
	struct gf_calib_run runs[4];
	struct gf_system base;
	struct picked r;
	static const uint32_t two[] = { 1, 0 };
	const char *ab = HEAD "0,write,0,0,1.0,h:/a;h:/b\n0,write,0,1,1.0,h:/a\n";
	const char *ba = HEAD "0,write,0,0,1.0,h:/a\n0,write,0,1,1.0,h:/b\n";

	assert_non_null(mkdtemp(tmp));
	memset(runs, 0, sizeof(runs));
	folder(runs[0].dir, sizeof(runs[0].dir), tmp, "a", ab);
	folder(runs[1].dir, sizeof(runs[1].dir), tmp, "a4", ab);
	folder(runs[2].dir, sizeof(runs[2].dir), tmp, "train", NULL);
	folder(runs[3].dir, sizeof(runs[3].dir), tmp, "other", ba);
	for (int i = 0; i < 4; i++)
		runs[i].ranks = 2;
	gf_system_defaults(&base);
	base.servers.count = 2;

	/* Two runs agree, a training run has no file: theirs, said once, in the base. */
	run_pick(runs, 3, &base, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.pick.source, GF_PLACE_RUN);
	snprintf(want, sizeof(want), "servers.shard_placement from %s/checkpoint_ranks.csv: [1, 0]\n", runs[0].dir);
	assert_string_equal(r.out, want);
	assert_int_equal(base.servers.shard_placement_n, 2);
	assert_memory_equal(base.servers.shard_placement, two, sizeof(two));
	gf_sim_place_pick_free(&r.pick);
	base.servers.shard_placement = NULL;
	base.servers.shard_placement_n = 0;

	/* They differ: none, and a note naming both lists. */
	run_pick(runs, 4, &base, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.pick.source, GF_PLACE_NONE);
	assert_int_equal(base.servers.shard_placement_n, 0);
	assert_non_null(strstr(r.out, "note: servers.shard_placement not taken from the runs, which differ"));
	snprintf(want, sizeof(want), "%s/checkpoint_ranks.csv [0, 1]", runs[3].dir);
	assert_non_null(strstr(r.out, want));
	assert_non_null(r.pick.differ);
	gf_sim_place_pick_free(&r.pick);

	/* More servers than servers.count: none, with a note. */
	base.servers.count = 1;
	run_pick(runs, 2, &base, &r);
	assert_int_equal(r.pick.source, GF_PLACE_NONE);
	assert_int_equal(base.servers.shard_placement_n, 0);
	assert_non_null(strstr(r.out, "names 2 servers, servers.count is 1"));
	gf_sim_place_pick_free(&r.pick);
	base.servers.count = 2;

	/* A list of 2 ranks for a run of 4: noted, not used. */
	runs[1].ranks = 4;
	run_pick(runs + 1, 1, &base, &r);
	assert_int_equal(r.pick.source, GF_PLACE_NONE);
	assert_non_null(strstr(r.out, "names the servers of 2 ranks, its run had 4"));
	gf_sim_place_pick_free(&r.pick);
	runs[1].ranks = 2;

	/* The base sets one: it stays, and the run that records another is named. */
	assert_int_equal(gf_system_set(&base, "servers.shard_placement", "1,0", "base.yaml", 1, want, sizeof(want)), 0);
	run_pick(runs, 4, &base, &r);
	assert_int_equal(r.pick.source, GF_PLACE_BASE);
	assert_memory_equal(base.servers.shard_placement, two, sizeof(two));
	assert_non_null(strstr(r.out, "note: servers.shard_placement: the base system's [1, 0] kept"));
	snprintf(want, sizeof(want), "%s/checkpoint_ranks.csv [0, 1]", runs[3].dir);
	assert_non_null(strstr(r.out, want));
	assert_null(strstr(r.out, "a/checkpoint_ranks.csv"));
	gf_sim_place_pick_free(&r.pick);
	gf_system_free(&base);

	/* A bad file: the error names it and its line. */
	{
		char bad[1200], err[512] = "";
		struct gf_sim_place_pick pick;
		FILE *o = fopen("/dev/null", "w");
		folder(bad, sizeof(bad), tmp, "bad", HEAD "0,write,0,0\n");
		struct gf_calib_run b = { .ranks = 1 };
		snprintf(b.dir, sizeof(b.dir), "%s", bad);
		gf_system_defaults(&base);
		base.servers.count = 2;
		assert_int_equal(gf_sim_place_pick(&b, 1, &base, &pick, o, err, sizeof(err)), -EINVAL);
		fclose(o);
		snprintf(want, sizeof(want), "%s/checkpoint_ranks.csv: line 2: 4 fields", bad);
		if (!strstr(err, want))
			fail_msg("'%s' does not say '%s'", err, want);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_quoted),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
