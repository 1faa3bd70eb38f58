#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/all.sh - the runners of make test in two lanes at once, their output
# kept in LOG and closed by tests/summary.sh's block: the count line of every
# runner and every failure line, at the end where a truncated CI log still
# shows them.  The exit status is 1 when any runner failed; every step runs
# even after another failed.
#
# Why two lanes: one after the other the steps took 68 minutes here, over
# make test's 60.  A VM under TCG does not keep both cores busy (a 6.1 run
# of job and ports: 112 s wall, 115 s of CPU), so two things at once share
# them: each step is slower beside the other lane (2026-12-06: 5.10 1737 s
# instead of 953, host 403 instead of 273), the whole shorter (3470 s wall
# against 4087).  So
#   lane A: unit, host, asan, fuzz-smoke, vm-harness (the systemd boot from
#           a checkout under /tmp), then vm-newest and vm-6.1
#   lane B: the package (make deb), then vm-5.10, vm-6.12, vm-arm64-test
# (CI's clean run of 2026-12-07 with 6.1 in lane B and arm64 in lane A: 3,605
# s, lane B the long one by about 1,000 s; 6.1's step is ~950 s, arm64's
# ~740 s, so the swap evens them.  6.1 boots no systemd case, so lane A
# needs no package: the systemd boots, 5.10's and 6.12's, stay in lane B.)
# run side by side, each lane's steps in order: at most two VMs at once, never
# two of one kernel, and the host's package suite (dpkg -i on the root the
# guests see read-only) long over before the first systemd boot (5.10's, at
# the end of its 15 minutes) installs a package of its own.
# Before the lanes, one make builds what both use (make test-prep: mrtrace,
# the helpers), so no two makes ever write the same file.
#
# Each step's output goes to STEPS/STEP.log (STEPS: LOG's folder,
# test-steps/); when the step ends, the whole of it is printed and appended to
# LOG as one block under a lock, followed by "time: STEP N s".  A line says
# when each step starts, so a console is never silent longer than one step.
# The last line before the summary is "wall: N s", make test's own time (the
# step times overlap: their sum is more).
#
# Usage: tests/all.sh LOG [MAKE [KERNELS]]
#   (make test: build/test-output.log, $(MAKE), $(VM_KERNELS)); KERNELS' last
#   kernel and (with three or more) its second run in lane A, the others in
#   lane B.
# Nothing is exported to the runners but MRTRACE_DEB (lane B's package, for
# the systemd boots): each finds its own build directory (the arm64 suite's
# is build-arm64; a BUILD in their environment would point it at the x86
# binaries).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
log=${1:?usage: tests/all.sh LOG [MAKE [KERNELS]]}
MAKE=${2:-make}
read -r -a KERNELS <<< "${3:-5.10 6.1 6.12 newest}"
steps=$(dirname "$log")/test-steps
mkdir -p "$(dirname "$log")"
rm -rf "$steps"
mkdir -p "$steps"
: > "$log"
T0=$SECONDS
# The builds inside each step (unit tests, the ASan and fuzz builds, the
# arm64 cross build) as parallel as the machine; the runners themselves are
# serial recipes.
JOBS=$(nproc 2>/dev/null || echo 1)
# Ctrl-C or a CI kill ends both lanes, VMs and all (one process group).
trap 'trap - INT TERM; kill 0' INT TERM

# step TARGET: make TARGET into its own log; then that log, whole, and its
# seconds, to stdout and LOG; a failure leaves STEPS/TARGET.failed.
step() {
	local t=$1 t0=$SECONDS
	echo "make test: $t started ($((SECONDS - T0)) s in)"
	$MAKE --no-print-directory -j"$JOBS" "$t" > "$steps/$t.log" 2>&1 || : > "$steps/$t.failed"
	(
		flock 9
		{ cat "$steps/$t.log"; echo "time: $t $((SECONDS - t0)) s"; } | tee -a "$log"
	) 9> "$steps/.lock"
}

step test-prep
if [ -e "$steps/test-prep.failed" ]; then
	tests/summary.sh "$log" || true
	echo "make test: FAILED (the build every step needs: see $log)"
	exit 1
fi

# lane A's kernels: the last, and the second where there are three or more
LANE_A_K=("${KERNELS[-1]}") LANE_B_K=()
[ ${#KERNELS[@]} -ge 3 ] && LANE_A_K+=("${KERNELS[1]}")
for k in "${KERNELS[@]}"; do
	[[ " ${LANE_A_K[*]} " == *" $k "* ]] || LANE_B_K+=("$k")
done
lane_a() {
	local t
	for t in unit host asan fuzz-smoke vm-harness; do step "$t"; done
	for t in "${LANE_A_K[@]}"; do step "vm-$t"; done
}
lane_b() {
	local k
	step deb
	MRTRACE_DEB=$(ls -t "$PWD"/build/deb/mrtrace_*.deb 2>/dev/null | head -n 1)
	export MRTRACE_DEB
	for k in "${LANE_B_K[@]}"; do step "vm-$k"; done
	step vm-arm64-test
}
lane_a &
lane_b
wait

echo "wall: $((SECONDS - T0)) s" | tee -a "$log"
rc=0
compgen -G "$steps/*.failed" > /dev/null && rc=1
tests/summary.sh "$log" || true
echo "make test: $([ "$rc" = 0 ] && echo passed || echo FAILED) (output: $log)"
exit $rc
