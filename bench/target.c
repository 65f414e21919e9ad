/* target: see target.h. */
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "io/io.h"

int gf_target_resolve(const struct gf_workload *w, const char *cli_target, const char *cli_engine,
		      struct gf_target *t, char *err, size_t errlen)
{
	const char *uri = cli_target && *cli_target ? cli_target : w->target.path;
	const char *engine = cli_engine && *cli_engine ? cli_engine : w->target.engine;
	const char *path;

	memset(t, 0, sizeof(*t));
	if (!uri || !*uri) {
		/* DLIO's way: storage_root joined with data_folder. */
		if (w->storage.storage_root[0] && w->dataset.data_folder[0] != '/')
			snprintf(t->uri, sizeof(t->uri), "%s/%s", w->storage.storage_root, w->dataset.data_folder);
		else
			snprintf(t->uri, sizeof(t->uri), "%s", w->dataset.data_folder);
	} else {
		snprintf(t->uri, sizeof(t->uri), "%s", uri);
	}
	path = t->uri;
	if (!strncmp(path, "file://", 7)) {
		path += 7;
	} else if (strstr(path, "://")) {
		snprintf(err, errlen, "target %s: this build of gpufeed reads local and mounted paths "
			 "(/path or file:///path); other schemes (s3://, gluster://) are not available",
			 t->uri);
		return -EINVAL;
	}
	if (!*path) {
		snprintf(err, errlen, "no target: give --target PATH or dataset.data_folder");
		return -EINVAL;
	}
	snprintf(t->root, sizeof(t->root), "%s", path);
	/* Trailing slashes make doubled separators in file names. */
	for (size_t l = strlen(t->root); l > 1 && t->root[l - 1] == '/'; l--)
		t->root[l - 1] = '\0';

	if (engine && *engine) {
		if (!gf_io_find(engine)) {
			snprintf(err, errlen, "unknown engine '%s': built-in engines are %s", engine,
				 gf_io_names());
			return -EINVAL;
		}
		snprintf(t->engine, sizeof(t->engine), "%s", engine);
		snprintf(t->engine_reason, sizeof(t->engine_reason), "%s",
			 cli_engine && *cli_engine ? "--engine" : "target.engine in the workload");
	} else {
		snprintf(t->engine, sizeof(t->engine), "posix");
		snprintf(t->engine_reason, sizeof(t->engine_reason), "default for a local path");
	}
	snprintf(t->kind, sizeof(t->kind), "%s", strcmp(t->engine, "null") ? "local" : "null");
	return 0;
}

static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ 0xEF53, "ext4" },        { 0x58465342, "xfs" },     { 0x01021994, "tmpfs" },
	{ 0x9123683E, "btrfs" },   { 0x6969, "nfs" },         { 0x0BD00BD0, "lustre" },
	{ 0x47504653, "gpfs" },    { 0x65735546, "fuse" },    { 0x794C7630, "overlay" },
	{ 0x2FC12FC1, "zfs" },     { 0xFF534D42, "cifs" },    { 0x00C36400, "ceph" },
	{ 0x5346414F, "afs" },     { 0x73717368, "squashfs" }, { 0x858458F6, "ramfs" },
	{ 0x4244, "hfs" },         { 0xF2F52010, "f2fs" },    { 0x19830326, "beegfs" },
};

/* Walk up to the nearest existing folder. */
static void existing_parent(const char *path, char *buf, size_t len)
{
	struct stat st;

	snprintf(buf, len, "%s", path);
	while (stat(buf, &st) != 0) {
		char *slash = strrchr(buf, '/');
		if (!slash) {
			snprintf(buf, len, ".");
			return;
		}
		if (slash == buf) {
			buf[1] = '\0';
			return;
		}
		*slash = '\0';
	}
}

void gf_target_fs_type(const char *path, char *buf, size_t len)
{
	char p[4096];
	struct statfs sf;

	existing_parent(path, p, sizeof(p));
	if (statfs(p, &sf)) {
		snprintf(buf, len, "unknown");
		return;
	}
	for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if ((unsigned long)sf.f_type == fs_names[i].magic) {
			snprintf(buf, len, "%s", fs_names[i].name);
			return;
		}
	snprintf(buf, len, "0x%lx", (unsigned long)sf.f_type);
}

int gf_target_check_owned(const char *path)
{
	char marker[4200];
	struct dirent *de;
	DIR *d;
	int empty = 1;

	snprintf(marker, sizeof(marker), "%s/%s", path, GF_MARKER);
	if (access(marker, F_OK) == 0)
		return 1;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty ? 0 : -ENOTEMPTY;
}

int gf_target_mark(const char *path)
{
	char marker[4200];
	int fd, rc;

	rc = gf_io_posix.mkdirs(NULL, path);
	if (rc)
		return rc;
	snprintf(marker, sizeof(marker), "%s/%s", path, GF_MARKER);
	fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	static const char text[] = "This folder was created by gpufeed, which may overwrite or delete "
				   "its contents.\n";
	rc = write(fd, text, sizeof(text) - 1) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

int gf_target_free_bytes(const char *path, uint64_t *bytes)
{
	char p[4096];
	struct statvfs sv;

	existing_parent(path, p, sizeof(p));
	if (statvfs(p, &sv))
		return -errno;
	*bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	return 0;
}
