#!/usr/bin/env bash
# Install the Debian packages gpufeed needs. Idempotent: packages already present are left
# alone, and apt is not touched at all when nothing is missing. Works as root on a fresh
# Debian 12 machine (or with sudo).
#   scripts/install-deps.sh          build and run gpufeed, draw its plots (scripts/quickstart.sh):
#                                    what a cluster's login or compute node needs, no servers
#   scripts/install-deps.sh --test   that and what the test suite and the benchmarks use: the
#                                    servers the tests start, a browser, fuzzers, S3 clients
#                                    (scripts/check.sh)
#   scripts/install-deps.sh --with-pytorch   adds Debian's python3-torch for
#                                    scripts/bench/vs-pytorch.sh
set -euo pipefail

usage() {
	echo "usage: scripts/install-deps.sh [--test] [--with-pytorch]" >&2
	exit 2
}
test_deps=0
pytorch=0
for arg in "$@"; do
	case $arg in
	--test) test_deps=1 ;;
	--with-pytorch) pytorch=1 ;;
	*) echo "install-deps: unknown option '$arg'" >&2; usage ;;
	esac
done

# The toolchain, MPI and the libraries configure cannot build without.
BUILD=(
	build-essential autoconf automake libtool pkg-config
	openmpi-bin libopenmpi-dev libyaml-dev libjson-c-dev libxxhash-dev
	# the dataset formats: zlib's CRC-32 (npz, png), ISA-L's CRC32C (TFRecord)
	zlib1g-dev libisal-dev
)
# The optional backends' libraries (configure builds each one it finds): io_uring, libaio,
# S3 (libcurl and OpenSSL's libcrypto), parallel HDF5, GlusterFS's gfapi (its client
# library only, no server; its glusterfs-api.pc requires uuid.pc, which libglusterfs-dev
# does not pull in: without uuid-dev a fresh Debian 12 builds no gfapi).
BACKENDS=(
	liburing-dev libaio-dev libcurl4-openssl-dev libssl-dev libhdf5-openmpi-dev libglusterfs-dev uuid-dev
)
# Running: every results folder's plots (gnuplot), and README's summary.json examples (jq).
RUN=(
	gnuplot-nox jq
)
# --test: the unit tests' framework, the tools the tests and benchmarks call, and the
# servers the tests start on one machine.
TEST=(
	libcmocka-dev hdf5-tools fio time procps python3
	# tests/integration/formats.sh reads gpufeed's npz with numpy itself
	python3-numpy
	# GlusterFS: the server and FUSE client (scripts/gluster-start.sh; no systemd needed)
	glusterfs-server glusterfs-client
	# Ceph's RADOS Gateway, the real S3 server (scripts/radosgw-start.sh: one monitor,
	# one memstore OSD)
	radosgw ceph-mon ceph-osd
	# the fuzzing targets of the workload and results loaders (scripts/fuzz.sh): libFuzzer
	clang libclang-rt-14-dev
	# report.html is rendered in headless Chromium by tests/integration/html.sh
	chromium
	# the S3 clients scripts/bench/vs-s3-clients.sh compares gpufeed with
	rclone awscli
	# Slurm on the testbed (scripts/testbed-slurm.sh, tests/testbed/slurm.sh): slurmctld,
	# slurmd and the client commands, and munge; not for the quickstart, as on a machine
	# with systemd they enable and start daemons of their own. srun --mpi=pmix loads
	# Slurm's mpi/pmix plugin, which dlopens .../pmix2/lib/libpmix.so, a file only
	# libpmix-dev ships (docs/slurm.md)
	slurm-wlm munge libpmix-dev
	# perf: tests/integration/default_engine.sh counts io_uring's hand-offs to worker
	# threads on a tracepoint; docs/performance.md's profiles and
	# scripts/bench/vs-fio-samples.sh --why use it
	linux-perf
)

PACKAGES=("${BUILD[@]}" "${BACKENDS[@]}" "${RUN[@]}")
[ "$test_deps" -eq 0 ] || PACKAGES+=("${TEST[@]}")
# --with-pytorch: Debian's PyTorch and numpy, for scripts/bench/vs-pytorch.sh only (a real
# DataLoader on gpufeed's files; about 1 GB installed, so never by default).
[ "$pytorch" -eq 0 ] || PACKAGES+=(python3-torch python3-numpy)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
# --test: Node.js and npm run the S3 test server (tests/package.json). A node that is
# already installed (from Debian or elsewhere) is kept: only a missing command is installed.
if [ "$test_deps" -eq 1 ]; then
	command -v node >/dev/null 2>&1 || missing+=(nodejs)
	command -v npm >/dev/null 2>&1 || missing+=(npm)
fi

# The S3 test server, pinned by tests/package-lock.json, into tests/node_modules.
npm_ci() {
	local tests
	[ "$test_deps" -eq 1 ] || return 0
	tests="$(cd "$(dirname "$0")/.." && pwd)/tests"
	# A link to another checkout's node_modules (a git worktree's) is that checkout's to
	# keep: npm ci through it would empty the other one's.
	if [ -L "$tests/node_modules" ]; then
		return 0
	fi
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
