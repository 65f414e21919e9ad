/* mpiio: one shared checkpoint file through MPI-IO, collective (MPI_File_write_at_all) or
 * independent (MPI_File_write_at), with the workload's MPI_Info hints passed at creation.
 * Open MPI's ompio spells some ROMIO hints differently, so the striping hints are set in
 * both spellings. */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/beneath.h"
#include "io/mpiio.h"
#include "io/shared.h"

struct gf_shared {
	MPI_File fh;
	uint64_t group_base[2];
	char detail[512];
};

static int mpi_fail(struct gf_shared *f, int rc, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0, cls = 0;

	MPI_Error_string(rc, s, &len);
	MPI_Error_class(rc, &cls);
	snprintf(f->detail, sizeof(f->detail), "%s: %s", what, s);
	switch (cls) {
	case MPI_ERR_NO_SPACE: return -ENOSPC;
	case MPI_ERR_ACCESS: return -EACCES;
	case MPI_ERR_NO_SUCH_FILE: return -ENOENT;
	case MPI_ERR_QUOTA: return -EDQUOT;
	case MPI_ERR_READ_ONLY: return -EROFS;
	default: return -EIO;
	}
}

static const char *mpiio_detail(struct gf_shared *f)
{
	return f->detail;
}

static bool named(const struct gf_kv *hints, int nhints, const char *key)
{
	for (int i = 0; i < nhints; i++)
		if (!strcmp(hints[i].key, key))
			return true;
	return false;
}

int gf_mpiio_info(const struct gf_kv *hints, int nhints, MPI_Info *info, char *why, size_t len)
{
	/* ompio reads these names for the same Lustre striping. */
	static const char *const alias[][2] = {
		{ "striping_unit", "stripe_size" },
		{ "striping_factor", "stripe_width" },
	};

	/* MPI_Info_set on a name or value too long calls the fatal error handler. */
	for (int i = 0; i < nhints; i++) {
		if (strlen(hints[i].key) >= MPI_MAX_INFO_KEY || strlen(hints[i].value) >= MPI_MAX_INFO_VAL) {
			snprintf(why, len, "MPI-IO hint %s: names may have at most %d characters and values %d",
				 hints[i].key, MPI_MAX_INFO_KEY - 1, MPI_MAX_INFO_VAL - 1);
			return -EINVAL;
		}
	}
	MPI_Info_create(info);
	for (int i = 0; i < nhints; i++) {
		MPI_Info_set(*info, hints[i].key, hints[i].value);
		for (size_t a = 0; a < sizeof(alias) / sizeof(alias[0]); a++)
			if (!strcmp(hints[i].key, alias[a][0]) && !named(hints, nhints, alias[a][1]))
				MPI_Info_set(*info, alias[a][1], hints[i].value);
	}
	return 0;
}

int gf_mpiio_lib_file(MPI_Comm comm, const char *path, bool create, char *name, size_t len, char *detail,
		      size_t dlen)
{
	int rank = 0, fd, mine, worst = 0, first = 0;

	MPI_Comm_rank(comm, &rank);
	/* One rank makes the file anew, then every other rank opens that one: the file one
	 * rank created cannot be replaced by a link for another, as each opens beneath the
	 * held root with no link followed, and only a file of one name. */
	fd = !create ? gf_beneath_lib_file(path, GF_LIB_READ, name, len)
	     : rank == 0 ? gf_beneath_lib_file(path, GF_LIB_CREATE, name, len) : 0;
	if (create) {
		first = fd < 0 ? -fd : 0;
		MPI_Bcast(&first, 1, MPI_INT, 0, comm);
		if (rank != 0)
			fd = first ? -first : gf_beneath_lib_file(path, GF_LIB_WRITE, name, len);
	}
	mine = fd < 0 ? -fd : 0;
	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
	if (!worst)
		return fd;
	if (fd >= 0)
		close(fd);
	if (!mine)
		snprintf(detail, dlen, "%s %s: another rank could not open it: %s", create ? "create" : "open", path,
			 strerror(worst));
	else if (mine == ELOOP || mine == EXDEV)
		snprintf(detail, dlen, "%s %s: refused: outside gpufeed's folder, or a symbolic link on the way "
			 "(gpufeed writes only inside its folders, through no link: remove it)",
			 create ? "create" : "open", path);
	else if (mine == ENXIO)
		snprintf(detail, dlen, "%s %s: not a regular file (a FIFO, socket or device): remove it",
			 create ? "create" : "open", path);
	else
		snprintf(detail, dlen, "%s %s: %s", create ? "create" : "open", path, strerror(mine));
	return -(mine ? mine : worst);
}

static int mpiio_open(void *comm, const char *path, bool create, const struct gf_kv *hints,
		      int nhints, const uint64_t group_bytes[2], struct gf_shared **out, char *detail,
		      size_t dlen)
{
	struct gf_shared *f = calloc(1, sizeof(*f));
	MPI_Info info;
	char name[PATH_MAX + 32];
	int rc, dfd = -1, amode = create ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;

	if (!f)
		return -ENOMEM;
	rc = gf_mpiio_info(hints, nhints, &info, detail, dlen);
	if (rc) {
		free(f);
		return rc;
	}
	/* Errors come back as codes instead of aborting the job. */
	MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
	/* MPI-IO opens by name on every rank: it is given the file gpufeed opened beneath the
	 * held root, by its descriptor's name (/proc/self/fd/N), so no link swapped in for a
	 * folder or for the file itself redirects it (io/beneath.h). */
	dfd = gf_mpiio_lib_file(*(MPI_Comm *)comm, path, create, name, sizeof(name), detail, dlen);
	if (dfd < 0) {
		MPI_Info_free(&info);
		free(f);
		return dfd;
	}
	rc = MPI_File_open(*(MPI_Comm *)comm, name, amode, info, &f->fh);
	close(dfd);
	MPI_Info_free(&info);
	if (rc != MPI_SUCCESS) {
		int err = mpi_fail(f, rc, path);
		snprintf(detail, dlen, "%s", f->detail);
		free(f);
		return err;
	}
	MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);
	f->group_base[0] = 0;
	f->group_base[1] = group_bytes[0];
	*out = f;
	return 0;
}

static int mpiio_write_at(struct gf_shared *f, int group, uint64_t off, const void *buf, size_t len,
			  bool collective)
{
	MPI_Status st;
	MPI_Offset o = (MPI_Offset)(f->group_base[group] + off);
	int rc = collective ? MPI_File_write_at_all(f->fh, o, buf, (int)len, MPI_BYTE, &st)
			    : MPI_File_write_at(f->fh, o, buf, (int)len, MPI_BYTE, &st);

	return rc == MPI_SUCCESS ? 0 : mpi_fail(f, rc, collective ? "MPI_File_write_at_all" : "MPI_File_write_at");
}

static int mpiio_read_at(struct gf_shared *f, int group, uint64_t off, void *buf, size_t len,
			 bool collective)
{
	MPI_Status st;
	MPI_Offset o = (MPI_Offset)(f->group_base[group] + off);
	int count = 0;
	int rc = collective ? MPI_File_read_at_all(f->fh, o, buf, (int)len, MPI_BYTE, &st)
			    : MPI_File_read_at(f->fh, o, buf, (int)len, MPI_BYTE, &st);

	if (rc != MPI_SUCCESS)
		return mpi_fail(f, rc, collective ? "MPI_File_read_at_all" : "MPI_File_read_at");
	MPI_Get_count(&st, MPI_BYTE, &count);
	if ((size_t)count != len) {
		snprintf(f->detail, sizeof(f->detail), "short read: %d of %zu bytes", count, len);
		return -EIO;
	}
	return 0;
}

static int mpiio_sync(struct gf_shared *f)
{
	int rc = MPI_File_sync(f->fh);

	return rc == MPI_SUCCESS ? 0 : mpi_fail(f, rc, "MPI_File_sync");
}

static int mpiio_close(struct gf_shared *f)
{
	int rc = MPI_File_close(&f->fh);
	int err = rc == MPI_SUCCESS ? 0 : mpi_fail(f, rc, "MPI_File_close");

	free(f);
	return err;
}

const struct gf_shared_ops gf_shared_mpiio = {
	.name = "mpiio",
	.open = mpiio_open,
	.write_at = mpiio_write_at,
	.read_at = mpiio_read_at,
	.sync = mpiio_sync,
	.close = mpiio_close,
	.detail = mpiio_detail,
};
