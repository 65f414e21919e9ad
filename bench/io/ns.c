/* ns: see ns.h. */
#include "io/ns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "io/io.h"
#ifdef HAVE_GFAPI
#include "io/gfapi.h"
#endif
#include "io/s3/s3.h"
#ifdef HAVE_CURL
#include "io/s3/ns.h"
/* s3:// names go to s3ns (built with libcurl only). */
#define S3_OR(call, none) (call)
#else
#define S3_OR(call, none) (none)
#endif

/* The manifest and the marker are a few hundred bytes; anything past this is not ours. */
#define SMALL_FILE_MAX (1u << 20)

/* What the library said about this thread's last failed remote call (gf_ns_detail). */
static _Thread_local char ns_detail[512];

const char *gf_ns_detail(void)
{
	return ns_detail;
}

bool gf_ns_remote(const char *path)
{
	return path && (!strncmp(path, "gluster://", 10) || gf_s3_is_uri(path));
}

int gf_ns_exists(const char *path)
{
	if (gf_s3_is_uri(path))
		return S3_OR(gf_s3ns_exists(path), -EPROTONOSUPPORT);
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		struct stat st;
		int rc = gf_gfapi_stat(path, &st, ns_detail, sizeof(ns_detail));
		return rc == 0 ? 1 : rc == -ENOENT ? 0 : rc;
#else
		return -EPROTONOSUPPORT;
#endif
	}
	if (access(path, F_OK) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

int gf_ns_dir_empty(const char *path)
{
	struct dirent *de;
	DIR *d;
	int empty = 1;

	if (gf_s3_is_uri(path))
		return S3_OR(gf_s3ns_dir_empty(path), -EPROTONOSUPPORT);
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		return gf_gfapi_dir_empty(path, ns_detail, sizeof(ns_detail));
#else
		return -EPROTONOSUPPORT;
#endif
	}
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 1 : -errno;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

int gf_ns_mkdirs(const char *path)
{
	if (gf_s3_is_uri(path))
		return 0; /* keys carry the whole name: no folders to make */
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		return gf_gfapi_mkdirs(path, ns_detail, sizeof(ns_detail));
#else
		return -EPROTONOSUPPORT;
#endif
	}
	return gf_io_posix.mkdirs(NULL, path);
}

int gf_ns_unlink(const char *path)
{
	if (gf_s3_is_uri(path))
		return S3_OR(gf_s3ns_unlink(path), -EPROTONOSUPPORT);
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		return gf_gfapi_unlink(path, ns_detail, sizeof(ns_detail));
#else
		return -EPROTONOSUPPORT;
#endif
	}
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

int gf_ns_rmdir(const char *path)
{
	if (gf_s3_is_uri(path))
		return 0;
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		return gf_gfapi_rmdir(path, ns_detail, sizeof(ns_detail));
#else
		return -EPROTONOSUPPORT;
#endif
	}
	return rmdir(path) && errno != ENOENT ? -errno : 0;
}

int gf_ns_statvfs(const char *path, struct statvfs *sv)
{
	if (gf_s3_is_uri(path))
		return -EOPNOTSUPP; /* a bucket has no free space to ask for */
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		return gf_gfapi_statvfs(path, sv, ns_detail, sizeof(ns_detail));
#else
		return -EPROTONOSUPPORT;
#endif
	}
	return statvfs(path, sv) ? -errno : 0;
}

int gf_ns_write_file(const char *path, const void *buf, size_t len)
{
	int fd, rc = 0;

	if (gf_s3_is_uri(path))
		return S3_OR(gf_s3ns_write_file(path, buf, len), -EPROTONOSUPPORT);
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		return gf_gfapi_write_file(path, buf, len, ns_detail, sizeof(ns_detail));
#else
		return -EPROTONOSUPPORT;
#endif
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

struct json_object *gf_ns_json_from_file(const char *path)
{
	if (gf_s3_is_uri(path))
		return S3_OR(gf_s3ns_json_from_file(path), NULL);
	if (gf_ns_remote(path)) {
#ifdef HAVE_GFAPI
		struct json_object *o;
		char *buf;
		size_t len;

		if (gf_gfapi_read_file(path, SMALL_FILE_MAX, &buf, &len, ns_detail, sizeof(ns_detail)))
			return NULL;
		o = json_tokener_parse(buf);
		free(buf);
		return o;
#else
		return NULL;
#endif
	}
	return json_object_from_file(path);
}

int gf_ns_json_to_file(const char *path, struct json_object *o)
{
	char tmp[4300];

	if (gf_ns_remote(path)) {
		const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
		/* The remote write goes through a temporary name and a rename already. */
		return text ? gf_ns_write_file(path, text, strlen(text)) : -ENOMEM;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	errno = 0;
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PRETTY) || rename(tmp, path))
		return errno ? -errno : -EIO;
	return 0;
}
