#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/all.sh - the runners of make test, in order, their output kept in
# $BUILD/test-output.log and closed by tests/summary.sh's block: the count
# line of every runner and every failure line, at the end where a truncated
# CI log still shows them.  The exit status is make's: 1 when any runner
# failed.  The arm64 VM comes after the x86 ones (never two VMs at once) and
# runs even if they failed.
set -u -o pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
log=$BUILD/test-output.log
mkdir -p "$BUILD"
: > "$log"
rc=0
$MAKE --no-print-directory -k unit host asan fuzz-smoke vm 2>&1 | tee -a "$log" || rc=1
$MAKE --no-print-directory vm-arm64-test 2>&1 | tee -a "$log" || rc=1
tests/summary.sh "$log" || true
echo "make test: $([ "$rc" = 0 ] && echo passed || echo FAILED) (output: $log)"
exit $rc
