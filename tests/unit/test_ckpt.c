/* Description: the checkpoint module's pure parts: the layout table (what each
 * checkpoint.layout needs of the target's backend and how it is written) and the block
 * tags that restore verifies.
 * Expected: every layout has its row with the right needs; a block checks against its own
 * shard and offset only, and any flipped byte is found.
 * Buggy: a layout that writes an object store through MPI-IO, a restore that accepts
 * another rank's block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "config.h"
#include "io/io.h"
#include "io/ns.h"
#include "model/workload.h"
#include "phase/ckpt.h"

static void test_layout_table(void **state)
{
	const struct gf_ckpt_layout_def *d;

	(void)state;
	for (int l = 0; l < GF_CKPT_LAYOUT_COUNT; l++) {
		d = gf_ckpt_layout_def((enum gf_ckpt_layout)l);
		assert_non_null(d);
		/* The row found is the layout's own, whatever the table's order. */
		assert_int_equal(d->layout, l);
		/* Either each rank writes its own files through the engine, or one shared file
		 * through collective ops (or the build says why it cannot). */
		assert_true(d->per_rank != (d->shared_ops || d->missing));
		assert_non_null(gf_ckpt_layout_name((enum gf_ckpt_layout)l));
	}
	d = gf_ckpt_layout_def(GF_CKPT_OBJECT_PER_RANK);
	assert_true(d->per_rank && (d->needs & GF_IO_CAP_OBJECTS));
	d = gf_ckpt_layout_def(GF_CKPT_SHARED_FILE);
	/* MPI-IO opens kernel paths only: never an object store or a library URI. */
	assert_false(d->per_rank);
	assert_true(d->needs & GF_IO_CAP_KERNEL_PATH);
	assert_non_null(d->shared_ops);
	assert_string_equal(d->file, "checkpoint.mpiio");
	d = gf_ckpt_layout_def(GF_CKPT_HDF5);
	assert_true(d->needs & GF_IO_CAP_KERNEL_PATH);
#ifdef HAVE_HDF5
	assert_non_null(d->shared_ops);
#else
	assert_non_null(d->missing);
#endif
	d = gf_ckpt_layout_def(GF_CKPT_FILE_PER_RANK);
	assert_true(d->per_rank);
	assert_int_equal(d->needs, 0);
}

static void test_blocks(void **state)
{
	unsigned char buf[8192];

	(void)state;
	gf_ckpt_fill_block(buf, sizeof(buf), 7, 8192, 1);
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 8192), 0);
	/* Another shard or offset: the tag does not match. */
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 8, 8192), -EILSEQ);
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 0), -EILSEQ);
	/* Any flipped byte is found. */
	for (size_t i = 0; i < sizeof(buf); i += 509) {
		buf[i] ^= 0x40;
		assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 8192), -EILSEQ);
		buf[i] ^= 0x40;
	}
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 8192), 0);
}

/* checkpoint_ranks.csv's server column: the bricks GlusterFS names in
 * trusted.glusterfs.pathinfo (the text a distribute volume and a replica 2 volume answer),
 * and "" where a file system says nothing (a local file has no such attribute). */
static void test_pathinfo_bricks(void **state)
{
	char host[GF_CKPT_SERVER], small[24];

	(void)state;
	assert_int_equal(gf_ns_pathinfo_hosts("(<DISTRIBUTE:gv0-dht> <POSIX(/data/b1):srv2:/data/b1/ck/model_states-3.pt>)",
					      host, sizeof(host)), 0);
	assert_string_equal(host, "srv2:/data/b1");
	assert_int_equal(gf_ns_pathinfo_hosts("(<REPLICATE:gv0-replicate-0> <POSIX(/b):s1:/b/f> <POSIX(/b):s2:/b/f>)",
					      host, sizeof(host)), 0);
	assert_string_equal(host, "s1:/b+s2:/b");
	/* Too long for the field: the brick path's end stays, it tells bricks apart. */
	assert_int_equal(gf_ns_pathinfo_hosts("<POSIX(/var/tmp/testbed/node/gft-s1/brick):vm:/x>", small, sizeof(small)), 0);
	assert_string_equal(small, "vm:...node/gft-s1/brick");
	assert_int_equal(gf_ns_pathinfo_hosts("(<DISTRIBUTE:gv0-dht>)", host, sizeof(host)), -ENODATA);
	assert_string_equal(host, "");
	assert_true(gf_ns_server("/proc/self/status", host, sizeof(host)) < 0);
	assert_string_equal(host, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_table),
		cmocka_unit_test(test_pathinfo_bricks),
		cmocka_unit_test(test_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
