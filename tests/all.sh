#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/all.sh - the runners of make test, in order, their output kept in
# LOG and closed by tests/summary.sh's block: the count
# line of every runner and every failure line, at the end where a truncated
# CI log still shows them.  The exit status is make's: 1 when any runner
# failed.  The arm64 VM comes after the x86 ones (never two VMs at once) and
# runs even if they failed.  Each step's wall time goes to LOG as a
# "time: STEP N s" line, which the summary gathers into one line, so a CI
# log that keeps only the end still says where the hour went.
#
# Usage: tests/all.sh LOG [MAKE [KERNELS]]
#   (make test: build/test-output.log, $(MAKE), $(VM_KERNELS))
# Nothing is exported to the runners: each finds its own build directory
# (the arm64 suite's is build-arm64; a BUILD in their environment would
# point it at the x86 binaries).
set -u -o pipefail
cd "$(dirname "$0")/.."
log=${1:?usage: tests/all.sh LOG [MAKE]}
MAKE=${2:-make}
KERNELS=${3:-5.10 6.1 6.12 newest}
mkdir -p "$(dirname "$log")"
: > "$log"
rc=0
# The builds inside each step (unit tests, the ASan and fuzz builds, the
# arm64 cross build) as parallel as the machine: make test used one job on
# CI's two cores.  The tests themselves stay serial: each runner is one
# recipe, and the VMs run one at a time whatever -j says.
JOBS=$(nproc 2>/dev/null || echo 1)
# step TARGET: make TARGET, its output into LOG, its seconds after it
step() {
	local t0=$SECONDS
	$MAKE --no-print-directory -j"$JOBS" "$1" 2>&1 | tee -a "$log" || rc=1
	echo "time: $1 $((SECONDS - t0)) s" | tee -a "$log"
}
for t in unit host asan fuzz-smoke; do step "$t"; done
for k in $KERNELS; do step "vm-$k"; done
step vm-arm64-test
tests/summary.sh "$log" || true
echo "make test: $([ "$rc" = 0 ] && echo passed || echo FAILED) (output: $log)"
exit $rc
