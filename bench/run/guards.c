/* guards: see guards.h. */
#include "run/guards.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "io/ns.h"
#include "model/units.h"
#include "mpi/world.h"
#include "phase/ckpt.h"
#include "phase/datagen.h"
#include "run/owned.h"

/* What DLIO and MLPerf Storage refuse too. */
static int dlio_refuses(const struct gf_workload *w, char *err, size_t errlen)
{
	const char *src = w->source;

	if (w->workflow.checkpoint && !w->workflow.train && w->checkpoint.num_checkpoints_write <= 0 &&
	    w->checkpoint.num_checkpoints_read <= 0) {
		snprintf(err, errlen, "%s: a checkpoint-only workflow with checkpoint.num_checkpoints_write and "
			 "num_checkpoints_read unset (-1) or 0 writes and reads nothing (as in DLIO); set them", src);
		return -EINVAL;
	}
	/* config.py validate (mlperf_storage_v2.0): no more reads than writes. */
	if (w->workflow.checkpoint && w->checkpoint.num_checkpoints_write > 0 &&
	    w->checkpoint.num_checkpoints_read > w->checkpoint.num_checkpoints_write) {
		snprintf(err, errlen, "%s: checkpoint.num_checkpoints_read (%lld) is more than num_checkpoints_write "
			 "(%lld); DLIO refuses it too", src, (long long)w->checkpoint.num_checkpoints_read,
			 (long long)w->checkpoint.num_checkpoints_write);
		return -EINVAL;
	}
	/* config.py validate (mlperf_storage_v2.0): a framework's loader only, and no tfrecord
	 * through PyTorch (DLIO's TFReader reads nothing there). */
	if (w->workflow.train && ((!strcmp(w->framework, "tensorflow") && !strcmp(w->reader.data_loader, "pytorch")) ||
				  (!strcmp(w->framework, "pytorch") && !strcmp(w->reader.data_loader, "tensorflow")))) {
		snprintf(err, errlen, "%s: framework %s with reader.data_loader %s: DLIO refuses the pair; set "
			 "framework=%s", src, w->framework, w->reader.data_loader, w->reader.data_loader);
		return -EINVAL;
	}
	if (w->workflow.train && w->dataset.format == GF_FMT_TFRECORD && !strcmp(w->reader.data_loader, "pytorch")) {
		snprintf(err, errlen, "%s: dataset.format tfrecord with reader.data_loader pytorch: DLIO refuses it "
			 "(tfrecord is read by tf.data); set framework=tensorflow and reader.data_loader=tensorflow",
			 src);
		return -EINVAL;
	}
	return 0;
}

/* Whether the command writes checkpoints during training: datagen, ceiling and sweep
 * (whose points drop the checkpoints) train with none, whatever the workflow says. */
static bool ckpt_in_training(const struct gf_cli *c, const struct gf_workload *w)
{
	return w->workflow.checkpoint && w->workflow.train && c->cmd != GF_CMD_DATAGEN &&
	       c->cmd != GF_CMD_CEILING && c->cmd != GF_CMD_SWEEP;
}

int gf_guard_workload(const struct gf_cli *c, const struct gf_workload *w,
		      const struct gf_world *world, char *err, size_t errlen)
{
	const char *src = w->source;

	/* A burst inside training is a collective on the accelerator's thread: every rank must
	 * reach the same step, which a duration limit or several accelerators per rank break. */
	if (ckpt_in_training(c, w) && (w->accelerator.per_rank != 1 || w->run.duration > 0)) {
		snprintf(err, errlen, "%s: checkpoints during training need accelerator.per_rank = 1 and "
			 "no run.duration (every rank must reach the same step)", src);
		return -EINVAL;
	}
	if (w->workflow.checkpoint && w->checkpoint.mode == GF_CKPT_MODE_ASYNC) {
		/* Async means written while training goes on: without training there is nothing
		 * to overlap, and the checkpoint-only figures would be the default mode's. */
		if (!w->workflow.train) {
			snprintf(err, errlen, "%s: checkpoint.mode async writes bursts while training goes on, and "
				 "workflow.train is false; set workflow.train=true or checkpoint.mode=default", src);
			return -EINVAL;
		}
		/* The Debian parallel HDF5 is not thread-safe: the checkpoint thread may be its only
		 * user during training, and HDF5 training reads would be a second one. */
		if (w->checkpoint.layout == GF_CKPT_HDF5 && w->dataset.format == GF_FMT_HDF5) {
			snprintf(err, errlen, "%s: checkpoint.mode async with checkpoint.layout hdf5 cannot be "
				 "combined with dataset.format hdf5 (HDF5 would be called from the checkpoint thread "
				 "and the reader threads at once, and this HDF5 is not thread-safe); use "
				 "checkpoint.layout shared_file or file_per_rank", src);
			return -EINVAL;
		}
		if (world && !world->thread_multiple) {
			snprintf(err, errlen, "%s: checkpoint.mode async runs MPI from a checkpoint thread while "
				 "the main thread uses it too, and this MPI (%s) does not provide "
				 "MPI_THREAD_MULTIPLE; use checkpoint.mode=default or an MPI built with thread "
				 "support", src, world->mpi_version);
			return -EINVAL;
		}
	}
	if (ckpt_in_training(c, w) && c->duration_s > 0) {
		snprintf(err, errlen, "--duration cannot be combined with checkpoints during training "
			 "(every rank must reach the same step)");
		return -EINVAL;
	}
	if (dlio_refuses(w, err, errlen))
		return -EINVAL;
	if (w->workflow.evaluation) {
		snprintf(err, errlen, "%s: workflow.evaluation is true, but this version of gpufeed "
			 "does not emulate evaluation yet; set workflow.evaluation=false", src);
		return -EINVAL;
	}
	return 0;
}

int gf_guard_ckpt_layout(const struct gf_workload *w, const struct gf_target *t, enum gf_ckpt_layout *layout,
			 char *err, size_t errlen)
{
	unsigned caps = t->store->caps, missing;
	bool objects = caps & GF_IO_CAP_OBJECTS;
	const struct gf_ckpt_layout_def *def;

	*layout = w->checkpoint.layout;
	if (!w->workflow.checkpoint)
		return 0;
	if (objects && *layout == GF_CKPT_FILE_PER_RANK)
		*layout = GF_CKPT_OBJECT_PER_RANK;
	def = gf_ckpt_layout_def(*layout);
	missing = def->needs & ~caps;
	if (!def->per_rank && !def->shared_ops) {
		snprintf(err, errlen, "%s: checkpoint.layout %s: %s", w->source, gf_ckpt_layout_name(def->layout),
			 def->missing);
		return -EINVAL;
	}
	if (missing & GF_IO_CAP_OBJECTS) {
		snprintf(err, errlen, "target %s: checkpoint.layout %s writes one object per rank and needs an "
			 "object store (an s3:// target); use file_per_rank", t->root, gf_ckpt_layout_name(def->layout));
		return -EINVAL;
	}
	/* MPI-IO and HDF5 open paths through the kernel, never a URI a library reaches. */
	if (missing & GF_IO_CAP_KERNEL_PATH) {
		snprintf(err, errlen, "target %s: checkpoint.layout %s writes one shared file through %s, which "
			 "opens paths through the kernel only and cannot reach this target; use %s, or the "
			 "filesystem's mount path", t->root, gf_ckpt_layout_name(def->layout),
			 def->layout == GF_CKPT_HDF5 ? "parallel HDF5 (MPI-IO)" : "MPI-IO",
			 objects ? "object_per_rank (the default there)" : "file_per_rank");
		return -EINVAL;
	}
	if (objects && w->checkpoint.checkpoint_folder[0] == '/') {
		snprintf(err, errlen, "target %s: checkpoint.checkpoint_folder %s is a local path; on an s3:// "
			 "target give a relative folder (under the prefix) or an s3:// one", t->root,
			 w->checkpoint.checkpoint_folder);
		return -EINVAL;
	}
	return 0;
}

int gf_guard_object_count(const struct gf_workload *w, const struct gf_plan *p, const struct gf_target *t,
			  char *msg, size_t len)
{
	/* A listing returns 1,000 keys a request (ListObjectsV2's limit), and the writes and
	 * deletes go one object (or 1,000 names) a request: past a billion objects one
	 * listing is a million requests, and writing them at 10,000 PUTs a second (a fast
	 * store) takes more than a day. */
	const double refuse = 1e9, warn = 1e7;
	double n = (double)p->files;

	if (!(t->store->caps & GF_IO_CAP_OBJECTS) || !(w->workflow.train || w->workflow.generate_data) || n <= warn)
		return 0;
	snprintf(msg, len, "%s: dataset.num_files_train %llu on the object store %s: a listing of them is %.0f "
		 "requests of 1,000 keys, and writing them at 10,000 PUTs a second takes %.1f hours%s",
		 w->source, (unsigned long long)p->files, t->root, ceil(n / 1000), n / 1e4 / 3600,
		 n > refuse ? "; gpufeed takes at most 1,000,000,000 objects: give fewer, larger files "
		 "(dataset.num_samples_per_file)" : "");
	return n > refuse ? -E2BIG : 1;
}

int gf_guard_direct_mode(const struct gf_workload *w)
{
	return w->reader.odirect ? GF_DIRECT_ON : (int)w->target.direct;
}

/* Why an engine without GF_IO_CAP_DIRECT reads buffered (hdf5: its library's sec2 driver). */
static void no_direct(const struct gf_io_ops *ops, char *buf, size_t len)
{
	snprintf(buf, len, "the %s engine has no O_DIRECT", ops->name);
}

int gf_guard_read_path(const struct gf_workload *w, const struct gf_target *t, const struct gf_io_ops *ops,
		       char *err, size_t errlen)
{
	struct gf_dio_decision d;
	char fs[32], why[256];

	if (w->target.sqpoll && !(ops->caps & GF_IO_CAP_SQPOLL)) {
		snprintf(err, errlen, "%s: target.sqpoll is an io_uring feature, and the engine is %s",
			 w->source, ops->name);
		return -EINVAL;
	}
	if (ops->caps & GF_IO_CAP_NOIO)
		return 0;
	if (!(ops->caps & GF_IO_CAP_DIRECT) && gf_guard_direct_mode(w) == GF_DIRECT_ON) {
		no_direct(ops, why, sizeof(why));
		snprintf(err, errlen, "%s: O_DIRECT was asked for (reader.odirect or target.direct true), but %s; "
			 "set target.direct to false or auto", w->source, why);
		return -EINVAL;
	}
	gf_target_fs_type(t->root, fs, sizeof(fs));
	gf_dio_decide(gf_guard_direct_mode(w), NULL, fs, &d);
	if (d.status)
		snprintf(err, errlen, "%s: %s", t->root, d.reason);
	return d.status;
}

void gf_guard_decide_read_path(const struct gf_workload *w, const struct gf_plan *p,
			       const struct gf_target *t, const struct gf_io_ops *ops, const char *fs,
			       bool root, struct gf_dio_decision *d)
{
	char path[4200], why[256];

	if (root) {
		if (ops->caps & GF_IO_CAP_NOIO) {
			gf_dio_decide(GF_DIRECT_OFF, NULL, fs, d);
			snprintf(d->reason, sizeof(d->reason), "the %s engine reads nothing", ops->name);
		} else if (!(ops->caps & GF_IO_CAP_DIRECT)) {
			gf_dio_decide(GF_DIRECT_OFF, NULL, fs, d);
			d->requested = gf_guard_direct_mode(w) != GF_DIRECT_OFF;
			no_direct(ops, why, sizeof(why));
			snprintf(d->reason, sizeof(d->reason), "buffered: %s", why);
		} else if (gf_plan_file_path(w, p, t->root, 0, path, sizeof(path))) {
			gf_dio_decide(GF_DIRECT_OFF, NULL, fs, d);
		} else {
			gf_dio_decide(gf_guard_direct_mode(w), path, fs, d);
		}
	}
	gf_world_bcast(d, sizeof(*d), 0);
}

/* What the dataset's files take on a file system of block size bs: each file rounded up
 * to whole blocks (80,000 files of 1 KiB take 312 MiB on 4 KiB blocks, not 78 MiB). Exact
 * up to a few million samples; past them the mean file rounded up, plus half a block per
 * file when sizes vary. */
static double dataset_alloc(const struct gf_plan *p, uint64_t bs)
{
	double sum = 0, mean = p->files ? p->dataset_bytes / (double)p->files : 0;

	if (bs <= 1)
		return p->dataset_bytes;
	if (p->samples > ((uint64_t)1 << 22)) {
		sum = (double)p->files * ceil(mean / (double)bs) * (double)bs;
		/* HDF5 rows are as wide as the file's largest sample, at most 2 x mean. */
		if (p->stdev_bytes)
			sum += (double)p->files * (double)bs / 2 + (p->layout == GF_LAYOUT_ROWS ? p->dataset_bytes : 0);
		return sum;
	}
	for (uint64_t i = 0; i < p->files; i++)
		sum += (double)((gf_plan_file_size(p, i) + bs - 1) / bs * bs);
	return sum;
}

/* statvfs of path, or of the nearest folder above it that exists (the target may not
 * exist yet). Returns 0 or -errno. */
static int space_of(const char *path, struct statvfs *sv)
{
	char buf[4096];
	char *slash;
	int rc;

	snprintf(buf, sizeof(buf), "%s", path);
	while ((rc = gf_ns_statvfs(buf, sv)) == -ENOENT && (slash = strrchr(buf, '/')) && slash > buf)
		*slash = '\0';
	return rc;
}

/* Room for a new dataset: its files rounded up to the file system's blocks, 2% for
 * metadata and a margin so the filesystem never fills; and an inode for each file. */
static void dataset_space(const struct gf_plan *p, const struct gf_target *t, struct gf_dataset_decision *d)
{
	struct statvfs sv;
	uint64_t avail;
	double need;
	char a[64], b[64];

	if (space_of(t->root, &sv))
		return;
	need = dataset_alloc(p, sv.f_bsize) * 1.02 + 64.0 * 1048576;
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if ((double)avail < need) {
		d->status = -ENOSPC;
		d->exit_code = GF_EXIT_USAGE;
		snprintf(d->msg, sizeof(d->msg), "%s has %s free, the dataset needs about %s (%llu files, each "
			 "rounded up to the file system's %llu-byte blocks): choose another --target or a smaller "
			 "dataset.num_files_train", t->root, gf_format_size(avail, a, sizeof(a)),
			 gf_format_size((uint64_t)need, b, sizeof(b)), (unsigned long long)p->files,
			 (unsigned long long)sv.f_bsize);
	} else if (sv.f_files && sv.f_favail < p->files + 1024) {
		d->status = -ENOSPC;
		d->exit_code = GF_EXIT_USAGE;
		snprintf(d->msg, sizeof(d->msg), "%s has %llu free inodes, the dataset has %llu files: choose "
			 "another --target or a smaller dataset.num_files_train", t->root,
			 (unsigned long long)sv.f_favail, (unsigned long long)p->files);
	}
}

/* A dataset is to be generated into a folder that cannot be used. */
static void dataset_refused(const struct gf_target *t, const struct gf_io_ops *ops, int owned,
			    struct gf_dataset_decision *d)
{
	bool objects = ops->caps & GF_IO_CAP_OBJECTS;

	d->status = owned;
	/* An object store that answers with an error (bad credentials, SlowDown to the last
	 * attempt) fails the run; a local folder that cannot be used is a usage error. */
	d->exit_code = owned != -ENOTEMPTY && objects ? GF_EXIT_FAILED : GF_EXIT_USAGE;
	if (owned == -ENOTEMPTY)
		snprintf(d->msg, sizeof(d->msg), "%s is not empty and was not created by gpufeed (no %s "
			 "in it): gpufeed writes only into empty or gpufeed-made folders; choose another "
			 "--target", t->root, GF_MARKER);
	else
		/* An object store's answer (credentials, TLS, SlowDown) says what to fix itself. */
		snprintf(d->msg, sizeof(d->msg), "the target %s cannot be used: %s%s%s%s", t->root,
			 strerror(-owned), gf_target_detail(t->root)[0] ? " - " : "", gf_target_detail(t->root),
			 objects ? "" : "; give --target a folder that exists or can be created");
}

void gf_guard_dataset(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *p,
		      const struct gf_target *t, const struct gf_io_ops *ops, struct gf_dataset_decision *d)
{
	char why[1024] = "";
	int owned;
	enum gf_dataset_state st;

	memset(d, 0, sizeof(*d));
	/* Checkpoint-only runs read no dataset. */
	if (c->cmd == GF_CMD_RUN && !w->workflow.train && !w->workflow.generate_data)
		return;
	if (ops->caps & GF_IO_CAP_NOIO) {
		if (c->cmd == GF_CMD_DATAGEN) {
			d->status = -EINVAL;
			d->exit_code = GF_EXIT_USAGE;
			snprintf(d->msg, sizeof(d->msg), "the %s engine stores nothing: datagen needs a real engine",
				 ops->name);
		}
		return; /* nothing to read or write */
	}
	owned = gf_target_check_owned(t->root);
	st = owned == 1 ? gf_dataset_check(w, p, t->root, why, sizeof(why)) : GF_DATASET_MISSING;
	if (owned == 0)
		snprintf(why, sizeof(why), "%s holds no dataset yet", t->root);
	else if (owned < 0 && owned != -ENOTEMPTY)
		snprintf(why, sizeof(why), "%s cannot be read (%s%s%s)", t->root, strerror(-owned),
			 gf_target_detail(t->root)[0] ? " - " : "", gf_target_detail(t->root));
	if (c->cmd == GF_CMD_TRAIN || c->cmd == GF_CMD_CEILING) {
		/* A target that answers with an error (403, 503, TLS) is not a missing dataset:
		 * its own cause, and exit 1 on an object store as for run. */
		if (owned < 0 && owned != -ENOTEMPTY)
			dataset_refused(t, ops, owned, d);
		else if (st != GF_DATASET_OK) {
			d->status = -ENOENT;
			d->exit_code = GF_EXIT_USAGE;
			snprintf(d->msg, sizeof(d->msg), "%s: run 'gpufeed datagen' first, or 'gpufeed run', "
				 "which generates it", why);
		}
		return;
	}
	if (c->cmd == GF_CMD_DATAGEN) {
		d->generate = 1;
		snprintf(d->reason, sizeof(d->reason), "gpufeed datagen");
	} else if (st != GF_DATASET_OK || w->workflow.generate_data) {
		d->generate = 1;
		snprintf(d->reason, sizeof(d->reason), "%s", st != GF_DATASET_OK ? why : "workflow.generate_data is true");
	}
	if (!d->generate)
		return;
	if (owned < 0)
		dataset_refused(t, ops, owned, d);
	else
		dataset_space(p, t, d);
}

void gf_guard_ckpt_folder_path(const struct gf_workload *w, const struct gf_target *t, char *buf,
			       size_t len)
{
	const char *f = w->checkpoint.checkpoint_folder;

	/* DLIO puts it under storage_root the same way. */
	while (f[0] == '.' && f[1] == '/')
		f += 2;
	if (f[0] == '/' || gf_ns_remote(f))
		snprintf(buf, len, "%s", f);
	else
		snprintf(buf, len, "%s/%s", t->root, f[0] ? f : "checkpoints");
	for (size_t l = strlen(buf); l > 1 && buf[l - 1] == '/'; l--)
		buf[l - 1] = '\0';
}

/* What keep checkpoints of bytes need: 2% for the filesystem's blocks and metadata, and
 * 64 MiB for the index and results beside them. */
static bool ckpt_fits(uint64_t avail, uint64_t bytes, unsigned keep)
{
	return (double)avail >= (double)bytes * keep * 1.02 + 64.0 * 1048576;
}

unsigned gf_guard_ckpt_at_once(const struct gf_workload *w, const struct gf_plan *p)
{
	uint64_t n;

	if (!w->workflow.checkpoint)
		return 0;
	/* Checkpoint-only: every write stays until the reads. */
	if (!w->workflow.train)
		return w->checkpoint.num_checkpoints_write > 0 ? (unsigned)w->checkpoint.num_checkpoints_write : 0;
	/* Training: all of them when kept; else the new one is written before the one before
	 * it goes (phases.c train_checkpoint), so two at once. */
	n = gf_plan_checkpoints(w, p);
	if (!w->checkpoint.keep && n > 2)
		n = 2;
	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

int gf_guard_ckpt_space(const struct gf_workload *w, const struct gf_target *t, const struct gf_model_layout *m,
			const struct gf_plan *p, int ranks, char *err, size_t errlen)
{
	char folder[4096], a[64], b[64], c[64];
	struct statvfs sv;
	unsigned keep = gf_guard_ckpt_at_once(w, p);
	uint64_t bytes, avail;

	if (!w->workflow.checkpoint || !keep || (t->ops->caps & GF_IO_CAP_NOIO))
		return 0;
	gf_guard_ckpt_folder_path(w, t, folder, sizeof(folder));
	if (gf_ns_remote(folder))
		return 0;
	/* The folder may not exist yet: its nearest parent that does holds it. */
	while (statvfs(folder, &sv)) {
		char *slash = strrchr(folder, '/');
		if (errno != ENOENT)
			return 0;
		if (!slash)
			snprintf(folder, sizeof(folder), ".");
		else if (slash == folder)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	bytes = gf_model_written_bytes(w, m, ranks);
	if (ckpt_fits(avail, bytes, keep))
		return 0;
	snprintf(err, errlen, "%s has %s free, %u checkpoint(s) of %s need about %s%s: set checkpoint.scale "
		 "(e.g. 1/1000)%s or choose another target", folder, gf_format_size(avail, a, sizeof(a)), keep,
		 gf_format_size(bytes, b, sizeof(b)), gf_format_size((uint64_t)((double)bytes * keep * 1.02), c, sizeof(c)),
		 !w->workflow.train ? "" : w->checkpoint.keep ? " (checkpoint.keep: every one stays)"
		 : " (the next is written before the last goes)",
		 w->workflow.train ? (w->checkpoint.keep ? ", checkpoint.keep false" : "")
		 : ", fewer checkpoint.num_checkpoints_write");
	return -ENOSPC;
}

int gf_guard_ckpt_folder(bool root, const char *owner, const char *folder, unsigned keep,
			 uint64_t bytes, uint64_t overwritten, char *msg, size_t msglen)
{
	uint64_t avail;
	int owned, rc;
	const char *guard = owner[0] ? owner : folder;

	if (!root)
		return 0;
	owned = gf_target_check_owned(guard);
	if (owned < 0) {
		snprintf(msg, msglen, "%s %s; gpufeed writes checkpoints only into empty or gpufeed-made "
			 "folders", guard, owned == -ENOTEMPTY ? "is not empty and was not created by gpufeed"
			 : strerror(-owned));
		return owned;
	}
	rc = gf_target_mark(guard);
	if (!rc)
		rc = gf_ns_mkdirs(folder);
	if (rc) {
		snprintf(msg, msglen, "cannot create %s: %s", folder, strerror(-rc));
		return rc;
	}
	if (!gf_target_free_bytes(folder, &avail) && !ckpt_fits(avail + overwritten, bytes, keep)) {
		char a[64], b[64], d[64];
		snprintf(msg, msglen, "%s has %s free%s%s, %u checkpoint(s) need about %s and 64 MiB beside them: set "
			 "checkpoint.scale (e.g. 1/1000) or fewer checkpoint.num_checkpoints_write", folder,
			 gf_format_size(avail, a, sizeof(a)), overwritten ? " and the earlier repeat's checkpoints, written "
			 "over, hold " : "", overwritten ? gf_format_size(overwritten, d, sizeof(d)) : "", keep,
			 gf_format_size((uint64_t)((double)bytes * keep * 1.02), b, sizeof(b)));
		return -ENOSPC;
	}
	return 0;
}

/* A refusal: local folders that cannot be used are a usage error, an object store's
 * failing answer fails the run (as dataset_refused). */
static void folders_refused(struct gf_folders_decision *d, const char *path, int rc)
{
	d->status = rc;
	d->exit_code = rc != -ENOTEMPTY && gf_ns_remote(path) && rc != -EINVAL && rc != -EXDEV &&
		       rc != -ELOOP && rc != -EEXIST ? GF_EXIT_FAILED : GF_EXIT_USAGE;
}

/* train/ and its subfolders (bounded by the files: workload.c) lie in the target, through
 * no link, and no data file to be written is a link: one lstat a file, next to nothing
 * beside writing it (and the engines open them with O_NOFOLLOW too, io/posix.c). */
static int dataset_folders(const struct gf_workload *w, const struct gf_plan *p, const struct gf_target *t,
			   char *why, size_t len)
{
	char path[4200];
	int64_t nsub = w->dataset.num_subfolders_train;
	struct stat st;
	int rc = 0;

	for (int64_t i = -1; i < nsub && !rc; i++) {
		if (i < 0)
			snprintf(path, sizeof(path), "%s/train", t->root);
		else
			snprintf(path, sizeof(path), "%s/train/%lld", t->root, (long long)i);
		rc = gf_owned_check(t->root, path, why, len);
	}
	/* A new or empty target holds no link; a marked one may (a user's, or planted). */
	if (gf_ns_remote(t->root) || gf_target_check_owned(t->root) != 1)
		return rc;
	for (uint64_t f = 0; f < p->files && !rc; f++) {
		rc = gf_plan_file_path(w, p, t->root, f, path, sizeof(path));
		if (!rc && !lstat(path, &st) && S_ISLNK(st.st_mode)) {
			snprintf(why, len, "%s is a symbolic link inside gpufeed's folder %s: gpufeed does not "
				 "write through links there (it would overwrite where the link leads); remove the "
				 "link or choose another --target", path, t->root);
			rc = -ELOOP;
		}
	}
	return rc;
}

/* Checkpoint folders a run may check one by one before writing (DLIO-named folders of a
 * very long training run past it are covered by their parent's check). */
#define CKPT_DIRS_CHECKED 65536u

static int ckpt_folders(const struct gf_target *t, const struct gf_ckpt_cfg *ck, unsigned nwrite,
			struct gf_folders_decision *d)
{
	const struct gf_ckpt_layout_def *def = gf_ckpt_layout_def(ck->layout);
	const char *folder = ck->root, *owner;
	char path[4300], dir[4200];
	int rc = 0, owned;

	/* Named inside the target: no link on the way (checkpoints -> /elsewhere would
	 * otherwise make /elsewhere a root of its own). */
	if (gf_owned_within(t->root, folder))
		rc = gf_owned_links(t->root, folder, d->msg, sizeof(d->msg));
	if (rc)
		return rc;
	rc = gf_owned_contains(t->root, folder);
	if (rc < 0)
		return gf_owned_check(folder, folder, d->msg, sizeof(d->msg));
	/* Inside the target it is the target's; anywhere else a root of its own. */
	owner = rc ? t->root : folder;
	rc = gf_owned_check(owner, folder, d->msg, sizeof(d->msg));
	/* From here on both by their resolved names: "tgt/../ck" is ck, whether tgt exists
	 * or not, and the kernel would write there. */
	if (!rc)
		rc = gf_owned_resolve(owner, d->ckpt_owner, sizeof(d->ckpt_owner));
	if (!rc)
		rc = gf_owned_resolve(folder, d->ckpt_folder, sizeof(d->ckpt_folder));
	if (rc) {
		if (!d->msg[0])
			snprintf(d->msg, sizeof(d->msg), "checkpoint.checkpoint_folder %s: %s", folder, strerror(-rc));
		return rc;
	}
	owned = gf_target_check_owned(d->ckpt_owner);
	if (owned < 0) {
		snprintf(d->msg, sizeof(d->msg), "checkpoint.checkpoint_folder %s: %s %s; gpufeed writes "
			 "checkpoints only into empty or gpufeed-made folders (no %s in it): choose another "
			 "checkpoint.checkpoint_folder", folder, d->ckpt_owner, owned == -ENOTEMPTY
			 ? "is not empty and was not created by gpufeed" : strerror(-owned), GF_MARKER);
		return owned;
	}
	d->ckpt_created = owned == 0 && owner != t->root;
	if (!nwrite)
		return 0;
	/* Checkpoints an earlier run kept stay until the user deletes them: a run writes
	 * only where it cannot overwrite them, and deletes only what it wrote. */
	snprintf(path, sizeof(path), "%s/%s", folder, GF_CKPT_INDEX);
	if (gf_ns_exists(path) == 1) {
		snprintf(d->msg, sizeof(d->msg), "%s holds checkpoints that an earlier run kept "
			 "(checkpoint.keep: true; listed in %s), and this run writes checkpoints there: "
			 "restore them with checkpoint.num_checkpoints_write=0, give another "
			 "checkpoint.checkpoint_folder, or delete them first", folder, GF_CKPT_INDEX);
		return -EEXIST;
	}
	for (unsigned i = 0; i < nwrite && i < CKPT_DIRS_CHECKED && !rc; i++) {
		gf_ckpt_dir(ck, i, dir, sizeof(dir));
		rc = gf_owned_check(owner, dir, d->msg, sizeof(d->msg));
		if (!rc && !def->per_rank && def->file) {
			snprintf(path, sizeof(path), "%s/%s", dir, def->file);
			rc = gf_owned_check(owner, path, d->msg, sizeof(d->msg));
		}
	}
	return rc;
}

void gf_guard_folders(const struct gf_workload *w, const struct gf_plan *p, const struct gf_target *t,
		      bool datagen, const struct gf_ckpt_cfg *ck, unsigned nwrite, struct gf_folders_decision *d)
{
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->target_created = gf_target_check_owned(t->root) == 0;
	if (datagen) {
		rc = dataset_folders(w, p, t, d->msg, sizeof(d->msg));
		if (rc) {
			folders_refused(d, t->root, rc);
			return;
		}
	}
	if (ck) {
		rc = ckpt_folders(t, ck, nwrite, d);
		if (rc)
			folders_refused(d, ck->root, rc);
	}
}
