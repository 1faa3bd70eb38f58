#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm-arm64/suite.sh - the VM cases on an arm64 guest, in ONE VM boot.
#
# Usage: tests/vm-arm64/suite.sh 6.12|6.1|6.12-16k [CASE...]
#   CASE: a name in tests/vm-arm64/cases or tests/vm/cases (that order), or a
#   path to a case file.  Default: arm64 hello memlock sites mrprobe.
# Env:   BUILD=build-arm64   the cross build (make cross-arm64) the guest sees
#                            as build/
#        VM_QUIET=1, CASE_TIMEOUT, TIMEOUT and everything
#        tests/vm-arm64/run.sh --help lists (MEM, SMP, STALL, ...)
#
# The cases are tests/vm's, unchanged: inside the guest this runs
# tests/vm/suite.sh --in-guest, the x86 suite's own case runner, with the
# arm64 binaries at $TOP/build (see run.sh).  tests/vm-arm64/cases/ holds
# only what is arm64's own (arm64.sh: page size, BTF, the arm64 unit tests).
#
# Results: $BUILD/vm-<kernel>/ (wiped first): checks.txt, cases/<name>/,
# script.log, serial.log.  The last line printed is exactly
# "vm-arm64-<kernel>: N passed, M failed, K skipped" (SKIP lines as on
# x86: a check that cannot hold on this kernel, with the reason); the exit
# status is non-zero if anything failed, the VM hung or crashed, or no check
# ran.
set -uo pipefail

help() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; }
[ $# -ge 1 ] || { help >&2; exit 2; }
case $1 in -h|--help) help; exit 0 ;; esac
KERNEL=$1; shift
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BUILD=${BUILD:-build-arm64}
[ $# -gt 0 ] || set -- arm64 hello memlock sites mrprobe
CASES=()
for c in "$@"; do
	if [ -f "$c" ]; then CASES+=("$(realpath "$c")")
	elif [ -f "$TOP/tests/vm-arm64/cases/${c%.sh}.sh" ]; then CASES+=("$TOP/tests/vm-arm64/cases/${c%.sh}.sh")
	elif [ -f "$TOP/tests/vm/cases/${c%.sh}.sh" ]; then CASES+=("$TOP/tests/vm/cases/${c%.sh}.sh")
	else echo "suite: no case '$c' (looked in tests/vm-arm64/cases, tests/vm/cases)" >&2; exit 2
	fi
done
NAME=vm-arm64-$KERNEL
# shellcheck source=tests/vm/suite-lib.sh
. "$TOP/tests/vm/suite-lib.sh"
OUT=$TOP/$BUILD/vm-$KERNEL
suite_claim "$OUT" "$NAME"
CASE_TIMEOUT=${CASE_TIMEOUT:-180}
export CASE_TIMEOUT
# The cases' own "# vm-timeout" lines count as on x86 (the guest runner is
# tests/vm/suite.sh's).
suite_vm_timeout 1200 "${CASES[@]}"
export VM_QUIET=${VM_QUIET-1}

T0=${EPOCHREALTIME/./}
"$TOP/tests/vm-arm64/run.sh" --kernel "$KERNEL" --build "$BUILD" --out "$OUT" --env CASE_TIMEOUT \
	"$TOP/tests/vm/suite.sh" --in-guest "${CASES[@]}"
vm_rc=$?
wall=$(( (${EPOCHREALTIME/./} - T0) / 10000 ))

suite_results "$NAME" "$OUT" "$vm_rc" "$wall" 300 "" "${CASES[@]}"
