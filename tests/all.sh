#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/all.sh - the runners of make test, in order, their output kept in
# LOG and closed by tests/summary.sh's block: the count
# line of every runner and every failure line, at the end where a truncated
# CI log still shows them.  The exit status is make's: 1 when any runner
# failed.  The arm64 VM comes after the x86 ones (never two VMs at once) and
# runs even if they failed.
#
# Usage: tests/all.sh LOG [MAKE]    (make test: build/test-output.log, $(MAKE))
# Nothing is exported to the runners: each finds its own build directory
# (the arm64 suite's is build-arm64; a BUILD in their environment would
# point it at the x86 binaries).
set -u -o pipefail
cd "$(dirname "$0")/.."
log=${1:?usage: tests/all.sh LOG [MAKE]}
MAKE=${2:-make}
mkdir -p "$(dirname "$log")"
: > "$log"
rc=0
$MAKE --no-print-directory -k unit host asan fuzz-smoke vm 2>&1 | tee -a "$log" || rc=1
$MAKE --no-print-directory vm-arm64-test 2>&1 | tee -a "$log" || rc=1
tests/summary.sh "$log" || true
echo "make test: $([ "$rc" = 0 ] && echo passed || echo FAILED) (output: $log)"
exit $rc
