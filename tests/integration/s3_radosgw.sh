#!/usr/bin/env bash
# Description: every check of s3.sh (datagen, whole and ranged reads, checkpoints on 2 and
# 4 ranks, keep_files cleanup, aborted uploads, wrong secret, missing bucket, 503 retries)
# against the real Ceph RADOS Gateway: a one-machine cluster (one monitor, one memstore
# OSD, beast on 127.0.0.1 with tcp_nodelay=1) started and stopped by scripts/radosgw-*.sh.
# Expected: as s3.sh, and no multipart upload left after an aborted one.
# Buggy: anything that only s3rver accepts (signing, XML, pagination, multipart).
S3_SERVER=radosgw exec bash "$(dirname "$0")/s3.sh"
