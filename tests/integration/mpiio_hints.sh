#!/usr/bin/env bash
# Description: MPI-IO hints given in the workload reach the MPI_Info object that the mpiio
# backend builds (tests/unit/test_mpiio_hints.c, an MPI program, under mpirun -np 1).
# Expected: the program prints "all checks passed" and exits 0.
# Buggy: a hint that never reaches MPI_Info while summary.json says it was requested.
. "$(dirname "$0")/lib.sh"

prog=$(dirname "$GPUFEED")/tests/unit/test_mpiio_hints
[ -x "$prog" ] || { bad "$prog was not built (make check builds it)"; finish; }
if "$MPIRUN" -np 1 "$prog" >"$TMP/out" 2>&1; then
	ok "test_mpiio_hints: $(grep -c '^ok:' "$TMP/out") checks"
else
	bad "test_mpiio_hints failed"
	grep -v '^ok:' "$TMP/out"
fi
finish
