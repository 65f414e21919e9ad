/* s3ns: the namespace of s3:// names (the s3 backend's ops->ns): the dataset guards,
 * the marker and the manifest on S3. A prefix is gpufeed's when it holds the marker
 * object (prefix/GF_MARKER); the manifest is a small JSON object beside it. Folders do
 * not exist in S3: a "folder" is a key prefix, empty when no key starts with "name/",
 * and there is no free-space figure (buckets have no size limit a client can ask for).
 * Only rank 0 calls these (the driver decides about the dataset on rank 0 and
 * broadcasts), so a 512-rank job lists the bucket once, not 512 times (which draws 503
 * SlowDown from real endpoints).
 *
 * Built only with libcurl (HAVE_CURL). */
#ifndef GF_S3NS_H
#define GF_S3NS_H

#include "io/io.h"

extern const struct gf_io_ns gf_s3_ns;

#endif
