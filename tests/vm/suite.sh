#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/suite.sh - run the VM test cases for one kernel in ONE VM boot.
#
# Usage: tests/vm/suite.sh 5.10|6.1|6.12|newest [CASE...]
#   CASE: a name in tests/vm/cases or tests/vm/systemd (hello or hello.sh)
#   or a path to a case file; default every tests/vm/cases/*.sh, in name
#   order, and on the kernels of VM_SYSTEMD_KERNELS (default "6.12 5.10":
#   the newest stable and the oldest of the matrix; 2026-12-04 the 5.10
#   boot with the service case took 5.7 min beside another guest, 6.12's
#   case 81 s) every tests/vm/systemd/*.sh.
#   The cases of tests/vm/systemd/ run in a boot of their own after the
#   others, with the host's systemd as pid 1 (run.sh VM_INIT=systemd); they
#   install the package, so build/deb/mrtrace_*.deb is made first (`make
#   deb`) when it is missing or older than build/mrtrace.
# Env:   CASE_TIMEOUT=180  seconds per case (a case may ask for more with a
#                          line "# vm-timeout: SECONDS" in its file)
#        VM_QUIET=1        default here: case output live, console only in
#                          serial.log (VM_QUIET=0 streams the console)
#        TIMEOUT           whole VM; default: enough for every case's timeout
#        and everything tests/vm/run.sh --help lists (MEM, SMP, STALL, ...)
#
# Each case runs in its own bash, own session, with guest-lib.sh sourced and
#   CASE=<name> TOP=<repo> MRTRACE=$TOP/build/mrtrace MRPROBE=$TOP/build/mrprobe
#   CASE_OUT=$VM_OUT/cases/<name> (its own results dir) VM_OUT VM_KERNEL ...
# A case that exits non-zero without having recorded a FAIL gets
# "FAIL <case>:exit"; one that outlives its timeout gets "FAIL <case>:timeout"
# (stacks of its processes go to its log, then they are killed). Processes a
# case leaves behind are killed when it ends.
#
# A case that cannot hold on this kernel (a missing feature, not a wrong
# verdict) calls `skip "reason"` or `skip_check NAME "reason"` (guest-lib.sh):
# "SKIP ..." lines, counted apart.
#
# Results: build/vm-<kernel>/ (wiped first): checks.txt (every result line),
# cases/<name>/log.txt, script.log (all case output), serial.log. The last
# line printed is exactly "vm-<kernel>: N passed, M failed, K skipped"; the
# exit status is non-zero if anything failed, the VM hung or crashed, or no
# check ran. No death is forgiven: the guests run under single-threaded
# TCG, where the emulator's text-patching race ("Oops: int3",
# tests/vm/README.md) cannot happen, so a guest that dies fails, its FAIL
# line quoting the kernel. A kernel the Debian archive no longer serves is not booted: one
# loud "SKIP vm-<kernel>: kernel not available from the archive (...)" line,
# "vm-<kernel>: 0 passed, 0 failed, 1 skipped", exit 0.
#
# (Inside the VM this same file is the case runner: run.sh starts it as
# `suite.sh --in-guest CASEPATH...`.)
set -uo pipefail

# ============================ inside the VM ============================
if [ "${1:-}" = --in-guest ]; then
	shift
	export MRTRACE=$TOP/build/mrtrace MRPROBE=$TOP/build/mrprobe
	# shellcheck disable=SC2034  # read by guest-lib.sh: the runner's own heartbeats
	CASE=suite
	# shellcheck source=tests/vm/guest-lib.sh
	. "$TOP/tests/vm/guest-lib.sh"
	: > "$VM_OUT/cases-done.txt"
	# session_pids SID: every process of a case's session.
	session_pids() { ps -e -o pid=,sid= | awk -v s="$1" '$2 == s && $1 != s { print $1 }'; }
	for path in "$@"; do
		name=$(basename "$path" .sh)
		limit=$(sed -n 's/^#[[:space:]]*vm-timeout:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$path" | head -n 1)
		limit=${limit:-${CASE_TIMEOUT:-180}}
		# a longer run asked for (make vm-stress): no case cut shorter
		[ "$limit" -ge "${CASE_TIMEOUT_MIN:-0}" ] || limit=$CASE_TIMEOUT_MIN
		dir=$VM_OUT/cases/$name
		mkdir -p "$dir"
		echo "=== case $name (timeout ${limit}s)"
		CASE=$name heartbeat "start"
		t0=${EPOCHREALTIME/./}
		# Output: the case's log and our stdout (console, script.log), via a
		# tee that we start here so that we know its pid and can wait for
		# it to drain.
		exec 3> >(tee -a "$dir/log.txt")
		tee_pid=$!
		# setsid: a session of its own, so that every process the case
		# starts (even in other process groups) can be found and killed.
		# env --default-signal: a background job would otherwise start with
		# SIGINT ignored, and pass that on to everything it runs.
		CASE=$name CASE_OUT=$dir setsid env --default-signal=INT,QUIT \
			bash -c '. "$TOP/tests/vm/guest-lib.sh" && . "$0"' "$path" </dev/null >&3 2>&1 &
		pid=$!
		exec 3>&-
		_vm_deadline "$limit"
		timed_out=
		while _vm_alive "$pid"; do
			if (( ${EPOCHREALTIME/./} >= _VM_DEADLINE )); then
				timed_out=1
				{
					echo "suite: case $name still running after ${limit}s; its processes:"
					dump_stacks "$pid" $(session_pids "$pid")
				} >> "$dir/log.txt" 2>&1
				_vm_line "FAIL $name:timeout after ${limit}s (stacks in cases/$name/log.txt)"
				kill -TERM "$pid" $(session_pids "$pid") 2>/dev/null
				sleep 2
				kill -KILL "$pid" $(session_pids "$pid") 2>/dev/null
				break
			fi
			sleep 0.5
		done
		wait "$pid"
		rc=$?
		left=$(session_pids "$pid")
		if [ -n "$left" ]; then
			echo "suite: case $name left processes behind, killing: $(ps -o pid=,comm= -p "$(echo $left | tr ' ' ,)" | tr -s ' \n' ' ')"
			kill -KILL $left 2>/dev/null
		fi
		wait "$tee_pid" 2>/dev/null
		if [ $rc != 0 ] && [ -z "$timed_out" ] &&
			! grep -q "^FAIL $name:" "$VM_CHECKS" 2>/dev/null; then
			_vm_line "FAIL $name:exit status $rc without a recorded FAIL"
		fi
		secs=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
		printf '%s rc=%s %d.%03ds\n' "$name" "$rc" $((secs / 1000)) $((secs % 1000)) >> "$VM_OUT/cases-done.txt"
		echo "=== case $name done: exit $rc in $((secs / 1000)).$(printf %03d $((secs % 1000)))s"
	done
	exit 0
fi

# ============================ on the host ============================
help() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; }
[ $# -ge 1 ] || { help >&2; exit 2; }
case $1 in -h|--help) help; exit 0 ;; esac
KERNEL=$1; shift
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
SELF=$TOP/tests/vm/suite.sh
CASES=()
if [ $# = 0 ]; then
	LC_COLLATE=C   # glob order = byte order, whatever the caller's locale
	for f in "$TOP"/tests/vm/cases/*.sh; do
		[ -f "$f" ] && CASES+=("$f")
	done
	if [[ " ${VM_SYSTEMD_KERNELS-6.12 5.10} " == *" $KERNEL "* ]]; then
		for f in "$TOP"/tests/vm/systemd/*.sh; do
			[ -f "$f" ] && CASES+=("$f")
		done
	fi
else
	for c in "$@"; do
		if [ -f "$c" ]; then CASES+=("$(realpath -s "$c")")
		elif [ -f "$TOP/tests/vm/cases/$c" ]; then CASES+=("$TOP/tests/vm/cases/$c")
		elif [ -f "$TOP/tests/vm/cases/$c.sh" ]; then CASES+=("$TOP/tests/vm/cases/$c.sh")
		elif [ -f "$TOP/tests/vm/systemd/$c" ]; then CASES+=("$TOP/tests/vm/systemd/$c")
		elif [ -f "$TOP/tests/vm/systemd/$c.sh" ]; then CASES+=("$TOP/tests/vm/systemd/$c.sh")
		else echo "suite: no case '$c' (looked in tests/vm/cases)" >&2; exit 2
		fi
	done
fi
# shellcheck source=tests/vm/suite-lib.sh
. "$TOP/tests/vm/suite-lib.sh"
OUT=$TOP/build/vm-$KERNEL
suite_claim "$OUT" "vm-$KERNEL"
CASE_TIMEOUT=${CASE_TIMEOUT:-180}
export CASE_TIMEOUT
suite_vm_timeout 900 "${CASES[@]}"
export VM_QUIET=${VM_QUIET-1}

checks=$OUT/checks.txt
touch "$checks"
# The kernel first, apart from the VM: a kernel the archive no longer serves
# (fetch-kernel.sh status 3) is a SKIP, not a failure; any other fetch
# error fails.
frc=0
"$TOP/tools/fetch-kernel.sh" "$KERNEL" > "$OUT/fetch.out" 2> "$OUT/fetch.log" || frc=$?
cat "$OUT/fetch.log" >&2
case $frc in
0) ;;
3)
	why=$(sed -n 's/^fetch-kernel: KERNEL NOT AVAILABLE FROM THE ARCHIVE: //p' "$OUT/fetch.log" | head -n 1)
	line="SKIP vm-$KERNEL: kernel not available from the archive (${why:-see $OUT/fetch.log})"
	echo "$line" >> "$checks"
	echo "################################################################################"
	echo "$line"
	echo "################################################################################"
	echo "vm-$KERNEL: 0 passed, 0 failed, 1 skipped"
	exit 0 ;;
*)
	echo "FAIL vm-$KERNEL:fetch tools/fetch-kernel.sh $KERNEL exited $frc (see $OUT/fetch.log)" | tee -a "$checks"
	echo "vm-$KERNEL: 0 passed, 1 failed, 0 skipped"
	exit 1 ;;
esac

T0=${EPOCHREALTIME/./}
# the knobs a case reads (sigstress: STRESS_ROUNDS; kretmiss: KRETMISS_ALL), when set
GUEST_ENV=(--env CASE_TIMEOUT)
for v in STRESS_ROUNDS CASE_TIMEOUT_MIN KRETMISS_ALL; do [ -z "${!v:-}" ] || GUEST_ENV+=(--env "$v"); done
# 64 MiB of the guest's RAM at 1.5 GiB as legacy persistent memory (the
# kernel's memmap=nn!ss, driver nd_e820): the sites case's fs-dax check.
# Only where the guest has that RAM (run.sh's MEM, default 2048): a region
# past the end of RAM would be a pmem device over nothing.
PMEM_APPEND=''
[ "${MEM:-2048}" -ge 2048 ] && PMEM_APPEND='memmap=64M!1536M'
boot() {
	VM_APPEND="${VM_APPEND:-}${VM_APPEND:+ }$PMEM_APPEND" \
		"$TOP/tests/vm/run.sh" --kernel "$KERNEL" --out "$OUT" "${GUEST_ENV[@]}" "$SELF" --in-guest "$@"
}
# the cases of the ordinary boot, and those of the systemd boot
PLAIN=() SYSD=()
for c in "${CASES[@]}"; do
	if [[ $c == "$TOP/tests/vm/systemd/"* ]]; then SYSD+=("$c"); else PLAIN+=("$c"); fi
done
CASES=("${PLAIN[@]}")
vm_rc=0
[ ${#CASES[@]} = 0 ] || { boot "${CASES[@]}"; vm_rc=$?; }
# ---- the systemd boot (tests/vm/systemd/), after the others ----
if [ ${#SYSD[@]} -gt 0 ]; then
	# MRTRACE_DEB: the package to install (make test's lane builds one
	# first: the host's package suite runs beside the VMs and rebuilds its
	# own); else the newest of make deb's and that suite's
	if [ -n "${MRTRACE_DEB:-}" ] && [ -f "$MRTRACE_DEB" ]; then
		deb=$MRTRACE_DEB
	else
		deb=$(ls -t "$TOP"/build/deb/mrtrace_*.deb "$TOP"/build/host-package/deb/mrtrace_*.deb 2>/dev/null | head -n 1)
	fi
	if [ -z "$deb" ] || [ -n "$(find "$TOP/build/mrtrace" "$TOP/contrib" "$TOP/debian" -newer "$deb" -type f 2>/dev/null | head -n 1)" ]; then
		t=${EPOCHREALTIME/./}
		make -s -C "$TOP" --no-print-directory deb > "$OUT/deb.log" 2>&1 ||
			echo "FAIL vm-$KERNEL:deb make deb failed (see $OUT/deb.log)" | tee -a "$checks"
		echo "suite: make deb for the systemd boot: $(( (${EPOCHREALTIME/./} - t) / 1000000 )) s" >&2
		deb=$(ls -t "$TOP"/build/deb/mrtrace_*.deb 2>/dev/null | head -n 1)
	fi
	export MRTRACE_DEB=$deb
	GUEST_ENV+=(--env MRTRACE_DEB)
	# the ordinary boot's console and case list stay, as *.main.*
	for f in serial.log script.log cases-done.txt; do
		[ -e "$OUT/$f" ] && mv -f "$OUT/$f" "$OUT/${f%.*}.main.${f##*.}"
	done
	VM_INIT=systemd boot "${SYSD[@]}"
	sys_rc=$?
	[ "$vm_rc" != 0 ] || vm_rc=$sys_rc
	cat "$OUT/cases-done.main.txt" "$OUT/cases-done.txt" > "$OUT/cases-done.txt.new" 2>/dev/null
	mv -f "$OUT/cases-done.txt.new" "$OUT/cases-done.txt"
	CASES+=("${SYSD[@]}")
fi
wall=$(( (${EPOCHREALTIME/./} - T0) / 10000 ))

suite_results "vm-$KERNEL" "$OUT" "$vm_rc" "$wall" 240 \
	"kernel $(basename "$(cat "$OUT/fetch.out")")" "${CASES[@]}"
