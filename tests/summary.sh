#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/summary.sh LOG - the closing block of make test: every runner's count
# line and every failure line found in LOG (the whole run's output), so the
# last screen of a long run - often all a CI log keeps - says what failed and
# where, not only that make stopped with an error.
# Exit 0 when LOG holds count lines and no failure, 1 otherwise.
set -u
log=${1:?usage: tests/summary.sh LOG}
[ -r "$log" ] || { echo "summary: cannot read $log"; exit 1; }

# "unit: 323 passed, 0 failed", "vm-6.12: 378 passed, 0 failed, 0 skipped"
counts=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' "$log")
# a runner's FAIL line; a cmocka failure as tests/unit/run.sh prefixes it; a
# binary with no summary; a sanitizer's report; a VM's second boot
fails=$(grep -E '^FAIL |^[a-z0-9_]+: \[  FAILED  \] [a-z]|: no cmocka summary|^==[0-9]+==ERROR|runtime error:|^note vm-[^:]*: boot 1 died' "$log")
nfail=$(printf '%s' "$fails" | grep -c . || true)
nbad=$(printf '%s\n' "$counts" | grep -cvE ': [0-9]+ passed, 0 failed' || true)
# tests/all.sh's "time: STEP N s" lines as one, their sum, and its "wall: N s"
# (the lanes overlap, so the sum is more than the wall time):
# "time: unit 95 s, ..., steps 4100 s, wall 2600 s"
wall=$(sed -n 's/^wall: \([0-9]*\) s$/\1/p' "$log" | tail -n 1)
times=$(sed -n 's/^time: \([A-Za-z0-9_.-]*\) \([0-9]*\) s$/\1 \2/p' "$log" |
	awk -v wall="$wall" '{ printf "%s%s %d s", (n++ ? ", " : "time: "), $1, $2; all += $2 }
	     END { if (n) printf ", steps %d s%s\n", all, (wall != "" ? ", wall " wall " s" : "") }')

echo "=== make test: summary ==="
printf '%s\n' "$counts" | grep . || echo "(no count line: no runner finished)"
[ -n "$times" ] && echo "$times"
if [ "$nfail" -gt 0 ]; then
	echo "--- failures ($nfail) ---"
	printf '%s\n' "$fails" | head -60
	[ "$nfail" -gt 60 ] && echo "... and $((nfail - 60)) more in $log"
fi
[ -n "$counts" ] && [ "$nbad" = 0 ] && ! printf '%s\n' "$fails" | grep -qv '^note '
