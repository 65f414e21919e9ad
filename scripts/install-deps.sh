#!/usr/bin/env bash
# Install every Debian package that gpufeed's build, tests, plots and benchmarks need.
# Idempotent: packages already present are left alone, and apt is not touched at all when
# nothing is missing. Works as root on a fresh Debian 12 machine (or with sudo).
set -euo pipefail

PACKAGES=(
	# build
	build-essential autoconf automake libtool pkg-config
	# MPI and the required libraries
	openmpi-bin libopenmpi-dev libyaml-dev libjson-c-dev libxxhash-dev
	# optional backends
	liburing-dev libaio-dev libcurl4-openssl-dev libssl-dev libhdf5-openmpi-dev
	# tests, plots, benchmarks
	libcmocka-dev hdf5-tools gnuplot-nox fio jq time procps
)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
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
