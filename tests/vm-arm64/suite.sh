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
# "vm-arm64-<kernel>: N passed, M failed"; the exit status is non-zero if
# anything failed, the VM hung or crashed, or no check ran.
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
OUT=$TOP/$BUILD/vm-$KERNEL
mkdir -p "$TOP/$BUILD"
exec 9>"$OUT.lock"
if ! flock -n 9; then
	echo "suite: another $NAME run holds $OUT.lock; waiting for it" >&2
	flock 9
fi
rm -rf -- "$OUT"
mkdir -p "$OUT"
CASE_TIMEOUT=${CASE_TIMEOUT:-180}
export CASE_TIMEOUT
# The VM must outlive all of its cases' timeouts (the cases' own
# "# vm-timeout" lines, read by the guest runner as on x86).
if [ -z "${TIMEOUT:-}" ]; then
	TIMEOUT=300
	for c in "${CASES[@]}"; do
		t=$(sed -n 's/^#[[:space:]]*vm-timeout:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$c" | head -n 1)
		TIMEOUT=$(( TIMEOUT + ${t:-$CASE_TIMEOUT} + 10 ))
	done
	[ $TIMEOUT -ge 1200 ] || TIMEOUT=1200
fi
export TIMEOUT
export VM_QUIET=${VM_QUIET-1}

T0=${EPOCHREALTIME/./}
"$TOP/tests/vm-arm64/run.sh" --kernel "$KERNEL" --build "$BUILD" --out "$OUT" --env CASE_TIMEOUT \
	"$TOP/tests/vm/suite.sh" --in-guest "${CASES[@]}"
vm_rc=$?
wall=$(( (${EPOCHREALTIME/./} - T0) / 10000 ))

checks=$OUT/checks.txt
touch "$checks"
if [ $vm_rc != 0 ]; then
	case $vm_rc in
	124) why="hung (no console output for ${STALL:-300}s or over ${TIMEOUT}s)" ;;
	125) why="crashed or failed to set up" ;;
	*) why="runner exit $vm_rc" ;;
	esac
	echo "FAIL $NAME:vm $why; see $OUT/serial.log" >> "$checks"
fi
for c in "${CASES[@]}"; do
	name=$(basename "$c" .sh)
	grep -q "^$name rc=" "$OUT/cases-done.txt" 2>/dev/null ||
		echo "FAIL $name:not-finished (the VM ended first)" >> "$checks"
done
grep -qE '^(ok|FAIL) ' "$checks" || echo "FAIL $NAME:no-checks no check ran" >> "$checks"

pass=$(grep -c '^ok ' "$checks")
fail=$(grep -c '^FAIL ' "$checks")
echo "--- $NAME results ($OUT/checks.txt), wall $((wall / 100)).$(printf %02d $((wall % 100)))s"
grep -E '^(ok|FAIL|note) ' "$checks"
echo "$NAME: $pass passed, $fail failed"
[ "$fail" = 0 ]
