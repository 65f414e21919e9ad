#!/usr/bin/env bash
# Install every Debian package that gpufeed's build, tests, plots and benchmarks need.
# Idempotent: packages already present are left alone, and apt is not touched at all when
# nothing is missing. Works as root on a fresh Debian 12 machine (or with sudo).
# --tests also installs what only the test command (scripts/check.sh) and the benchmark
# scripts use (TEST_PACKAGES); scripts/quickstart.sh leaves it out.
set -euo pipefail

PACKAGES=(
	# build
	build-essential autoconf automake libtool pkg-config
	# MPI and the required libraries
	openmpi-bin libopenmpi-dev libyaml-dev libjson-c-dev libxxhash-dev
	# optional backends
	liburing-dev libaio-dev libcurl4-openssl-dev libssl-dev libhdf5-openmpi-dev
	# GlusterFS: the gfapi backend's library, and the server and FUSE client that the
	# tests start (scripts/gluster-start.sh; no systemd needed)
	libglusterfs-dev glusterfs-server glusterfs-client
	# Ceph's RADOS Gateway, the real S3 server the tests start on one machine
	# (scripts/radosgw-start.sh: one monitor, one memstore OSD)
	radosgw ceph-mon ceph-osd
	# tests, plots, benchmarks
	libcmocka-dev hdf5-tools gnuplot-nox fio jq time procps python3
	# the fuzzing targets of the workload and results loaders (scripts/fuzz.sh): libFuzzer
	clang libclang-rt-14-dev
	# report.html is rendered in headless Chromium by tests/integration/html.sh
	chromium
	# the S3 clients scripts/bench/vs-s3-clients.sh compares gpufeed with
	rclone awscli
)
TEST_PACKAGES=(
	# perf: tests/integration/default_engine.sh counts io_uring's hand-offs to worker
	# threads on a tracepoint, and docs/performance.md profiles the engines with it
	linux-perf
)
case ${1:-} in
--tests) PACKAGES+=("${TEST_PACKAGES[@]}") ;;
"") ;;
*) echo "usage: scripts/install-deps.sh [--tests]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
# Node.js and npm run the S3 test server (tests/package.json). A node that is already
# installed (from Debian or elsewhere) is kept: only a missing command is installed.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

# The S3 test server, pinned by tests/package-lock.json, into tests/node_modules.
npm_ci() {
	local tests
	tests="$(cd "$(dirname "$0")/.." && pwd)/tests"
	if [ ! -d "$tests/node_modules/@20minutes/s3rver" ] || [ "$tests/package-lock.json" -nt "$tests/node_modules" ]; then
		echo "install-deps: npm ci in $tests (the S3 test server)" >&2
		(cd "$tests" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
		touch "$tests/node_modules"
	fi
}
if [ ${#missing[@]} -eq 0 ]; then
	npm_ci
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "install-deps: these packages are missing and I am not root (and there is no sudo):" >&2
		echo "  ${missing[*]}" >&2
		exit 1
	fi
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
npm_ci
