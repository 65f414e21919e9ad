#!/usr/bin/env bash
# Build gpufeed and run the default workload (workloads/quickstart.yaml) with 2 ranks on a
# folder under results/, then print the verdict and where the results are. No server needed:
# it installs what building and running need and gnuplot (scripts/install-deps.sh), not
# what the test suite starts (scripts/check.sh installs that).
# Extra arguments go to gpufeed, e.g. scripts/quickstart.sh --set train.epochs=2
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
scripts/build.sh build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Unbound: Open MPI would pin each of the two ranks to one core, shared by its reader
# threads and io_uring's workers (gpufeed notes it when that happens).
mpirun --oversubscribe --bind-to none -np 2 build/gpufeed run workloads/quickstart.yaml \
	--target results/quickstart-data --results results "$@"
