#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/unit/run.sh - run the cmocka unit test binaries given as arguments and
# close with one count line over all of them: "unit: N passed, N failed".
# A binary that crashes or prints no cmocka summary counts as one failure.
# UNIT_PROGRESS=1: one line per binary as it ends ("  test_diff (41 s): 9
# passed, 0 failed"; indented, so that make test's summary does not take it
# for a runner's count line), for a console whose silence is watched: the
# arm64 VM runs these under TCG, minutes in all, and a guest that prints
# nothing for 300 s is killed as hung.
set -u
pass=0 fail=0
for bin in "$@"; do
	t0=$SECONDS
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^\[ *(FAILED|PASSED|  ERROR) *\]|^\[  FAILED  \] ' | sed "s|^|$(basename "$bin"): |"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	if [ -z "$p" ] && [ -z "$f" ]; then
		echo "$(basename "$bin"): no cmocka summary (exit $rc)"
		printf '%s\n' "$out" | tail -5
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	[ "${UNIT_PROGRESS:-0}" = 1 ] &&
		echo "  $(basename "$bin") ($((SECONDS - t0)) s): ${p:-0} passed, ${f:-0} failed"
	if [ "$rc" != 0 ] && [ -z "$f" ]; then
		echo "$(basename "$bin"): exit $rc"
		fail=$((fail + 1))
	fi
	[ -n "$f" ] && printf '%s\n' "$out" | grep -E 'FAILED|Failure|error' | head -20
done
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
