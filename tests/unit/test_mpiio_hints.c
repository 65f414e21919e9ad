/* Description: the MPI-IO hints of a workload reach the MPI_Info object that the mpiio
 * backend passes to MPI_File_open. Open MPI 4.1 gives none of them back through
 * MPI_File_get_info, so this reads the info object the code builds (gf_mpiio_info) with
 * MPI_Info_get. An MPI program: tests/integration/mpiio_hints.sh runs it under mpirun -np 1.
 * Expected: every hint named in checkpoint.mpiio_hints (striping_factor, striping_unit,
 * romio_cb_write, romio_cb_read, cb_nodes, cb_buffer_size, romio_ds_write, romio_ds_read)
 * is in the info with its value; ompio's stripe_width / stripe_size are set alongside
 * unless given themselves; target.lustre.stripe_count / stripe_size become
 * striping_factor / striping_unit unless the hints name those; an over-long name is
 * refused with -EINVAL rather than handed to MPI's fatal error handler, by gf_mpiio_info
 * and by the HDF5 checkpoint layout (gf_shared_hdf5), which builds its info through it
 * and then creates no file.
 * Buggy: a hint dropped or renamed, the ompio spelling overriding an explicit one, the
 * Lustre keys silently ignored, the job killed by MPI_ERR_INFO_KEY in MPI_Info_set. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "io/mpiio.h"
#ifdef HAVE_HDF5
#include "io/h5ckpt.h"
#endif
#include "run/resolved.h"
#include "model/workload.h"
#include "model/yaml.h"

static int failures;

#define CHECK(cond, ...)                                                                    \
	do {                                                                                \
		if (cond) {                                                                 \
			printf("ok: ");                                                     \
		} else {                                                                    \
			printf("FAIL: ");                                                   \
			failures++;                                                         \
		}                                                                           \
		printf(__VA_ARGS__);                                                        \
		printf("\n");                                                               \
	} while (0)

/* The value of key in info, or NULL when it is absent. */
static const char *get(MPI_Info info, const char *key)
{
	static char value[MPI_MAX_INFO_VAL];
	int flag = 0;

	MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag);
	return flag ? value : NULL;
}

static void expect(MPI_Info info, const char *key, const char *want)
{
	const char *v = get(info, key);

	if (want)
		CHECK(v && !strcmp(v, want), "%s = %s (got %s)", key, want, v ? v : "nothing");
	else
		CHECK(!v, "%s is not set (got %s)", key, v ? v : "nothing");
}

static int apply(struct gf_workload *w, const char *assignment)
{
	char err[512];
	int rc = gf_yaml_override(w, assignment, err, sizeof(err));

	if (rc)
		printf("override %s: %s\n", assignment, err);
	return rc;
}

int main(int argc, char **argv)
{
	struct gf_workload w;
	struct gf_kvmap hints;
	MPI_Info info;
	char why[256];
	int nkeys = 0;

	MPI_Init(&argc, &argv);

	/* Every hint the issue names, through the workload's own key. */
	gf_workload_defaults(&w);
	CHECK(apply(&w, "checkpoint.mpiio_hints={striping_factor: 8, striping_unit: 1048576, "
		       "romio_cb_write: enable, romio_cb_read: disable, cb_nodes: 2, "
		       "cb_buffer_size: 16777216, romio_ds_write: disable, romio_ds_read: enable}") == 0,
	      "workload accepts the hints");
	CHECK(w.checkpoint.mpiio_hints.n == 8, "8 hints loaded (got %d)", w.checkpoint.mpiio_hints.n);
	CHECK(gf_mpiio_info(w.checkpoint.mpiio_hints.kv, w.checkpoint.mpiio_hints.n, &info, why,
			    sizeof(why)) == 0, "info built");
	expect(info, "striping_factor", "8");
	expect(info, "striping_unit", "1048576");
	expect(info, "romio_cb_write", "enable");
	expect(info, "romio_cb_read", "disable");
	expect(info, "cb_nodes", "2");
	expect(info, "cb_buffer_size", "16777216");
	expect(info, "romio_ds_write", "disable");
	expect(info, "romio_ds_read", "enable");
	expect(info, "stripe_width", "8");
	expect(info, "stripe_size", "1048576");
	MPI_Info_get_nkeys(info, &nkeys);
	CHECK(nkeys == 10, "10 keys in all: the 8 hints and 2 ompio spellings (got %d)", nkeys);
	MPI_Info_free(&info);

	/* An explicit ompio spelling wins over the alias. */
	gf_workload_defaults(&w);
	apply(&w, "checkpoint.mpiio_hints={striping_unit: 4194304, stripe_size: 65536}");
	CHECK(gf_mpiio_info(w.checkpoint.mpiio_hints.kv, w.checkpoint.mpiio_hints.n, &info, why,
			    sizeof(why)) == 0, "info built");
	expect(info, "striping_unit", "4194304");
	expect(info, "stripe_size", "65536");
	expect(info, "stripe_width", NULL);
	MPI_Info_free(&info);

	/* Lustre striping without liblustreapi: the keys become MPI-IO hints. */
	gf_workload_defaults(&w);
	CHECK(apply(&w, "target.lustre.stripe_count=4") == 0 && apply(&w, "target.lustre.stripe_size=4MiB") == 0,
	      "workload accepts target.lustre.stripe_count and stripe_size");
	gf_resolved_hints(&w, &hints);
	CHECK(w.checkpoint.mpiio_hints.n == 0, "the workload keeps its own hints (n = %d)", w.checkpoint.mpiio_hints.n);
	CHECK(gf_mpiio_info(hints.kv, hints.n, &info, why, sizeof(why)) == 0, "info built");
	expect(info, "striping_factor", "4");
	expect(info, "striping_unit", "4194304");
	expect(info, "stripe_width", "4");
	expect(info, "stripe_size", "4194304");
	MPI_Info_free(&info);

	/* ... unless the hints name the striping themselves. */
	gf_workload_defaults(&w);
	apply(&w, "checkpoint.mpiio_hints={striping_factor: 16}");
	apply(&w, "target.lustre.stripe_count=4");
	gf_resolved_hints(&w, &hints);
	CHECK(hints.n == 1, "an explicit striping_factor is kept, no duplicate (n = %d)", hints.n);
	CHECK(gf_mpiio_info(hints.kv, hints.n, &info, why, sizeof(why)) == 0, "info built");
	expect(info, "striping_factor", "16");
	MPI_Info_free(&info);

	/* A name MPI cannot hold is refused, not passed to the fatal error handler. */
	{
		struct gf_kv kv = { .value = "1" };
		memset(kv.key, 'k', sizeof(kv.key) - 1);
		kv.key[sizeof(kv.key) - 1] = '\0';
		why[0] = '\0';
		CHECK(gf_mpiio_info(&kv, 1, &info, why, sizeof(why)) == -EINVAL && strstr(why, "at most"),
		      "an over-long hint name is refused: %s", why);
#ifdef HAVE_HDF5
		/* The HDF5 layout too: before this went through gf_mpiio_info, MPI_Info_set
		 * raised MPI_ERR_INFO_KEY on MPI_COMM_WORLD's fatal handler and the job died. */
		char dir[] = "/tmp/gf-test-h5hints.XXXXXX", path[128];
		uint64_t groups[2] = { 4096, 4096 };
		struct gf_shared *f = NULL;
		MPI_Comm comm = MPI_COMM_WORLD;
		int rc;

		CHECK(mkdtemp(dir) != NULL, "temporary folder %s", dir);
		snprintf(path, sizeof(path), "%s/checkpoint.h5", dir);
		why[0] = '\0';
		rc = gf_shared_hdf5.open(&comm, path, true, &kv, 1, groups, &f, why, sizeof(why));
		CHECK(rc == -EINVAL && strstr(why, "at most") && !f,
		      "the hdf5 checkpoint layout refuses it too (rc %d): %s", rc, why);
		CHECK(access(path, F_OK) != 0, "and creates no file");
		if (f)
			gf_shared_hdf5.close(f);
		unlink(path);
		rmdir(dir);
#endif
	}

	MPI_Finalize();
	printf("%s\n", failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}
