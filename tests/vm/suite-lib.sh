# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm/suite-lib.sh - the host side of a suite run, shared by
# tests/vm/suite.sh (x86) and tests/vm-arm64/suite.sh: one results dir per
# kernel, a VM timeout that covers every case, and the results (checks.txt
# and the count line) from what the guest left.

# suite_claim OUT NAME: queue behind another run of the same kernel (several
# developers share a tree: a second run would wipe the first one's results
# mid-run), then start OUT afresh. Holds the lock on fd 9 until exit.
suite_claim() {
	local out=$1 name=$2
	mkdir -p "$(dirname "$out")"
	exec 9>"$out.lock"
	if ! flock -n 9; then
		echo "suite: another $name run holds $out.lock; waiting for it" >&2
		flock 9
	fi
	rm -rf -- "$out"
	mkdir -p "$out"
}

# suite_vm_timeout MIN CASEFILE...: unless the caller set TIMEOUT, the VM
# must outlive all of its cases' timeouts (each case's "# vm-timeout: S"
# line, else CASE_TIMEOUT; at least CASE_TIMEOUT_MIN) plus boot; at least
# MIN seconds. Exports TIMEOUT.
suite_vm_timeout() {
	local min=$1 c t
	shift
	if [ -z "${TIMEOUT:-}" ]; then
		TIMEOUT=300
		for c in "$@"; do
			t=$(sed -n 's/^#[[:space:]]*vm-timeout:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$c" | head -n 1)
			t=${t:-$CASE_TIMEOUT}
			[ "$t" -ge "${CASE_TIMEOUT_MIN:-0}" ] || t=$CASE_TIMEOUT_MIN
			TIMEOUT=$(( TIMEOUT + t + 10 ))
		done
		[ "$TIMEOUT" -ge "$min" ] || TIMEOUT=$min
	fi
	export TIMEOUT
}

# suite_results NAME OUT VM_RC WALL_CS STALL KERNEL_NOTE CASEFILE...: add
# what the guest could not write to OUT/checks.txt (the VM's own failure,
# cases that never finished, an empty run), print every result and last
# the count line "NAME: N passed, M failed, K skipped"; status 0 only if
# nothing failed. WALL_CS: the run's wall time in centiseconds; STALL: the
# runner's default stall limit, for the message.
suite_results() {
	local name=$1 out=$2 vm_rc=$3 wall=$4 stall=$5 knote=$6 checks=$2/checks.txt why c n pass fail skipped
	shift 6
	touch "$checks"
	if [ "$vm_rc" != 0 ]; then
		case $vm_rc in
		124) why="hung (no console output for ${STALL:-$stall}s or over ${TIMEOUT}s)" ;;
		125) why="crashed or failed to set up"
			# the kernel's own words, so that a CI log alone says what died
			c=$(grep -a -m1 -E 'Kernel panic|Oops|BUG:' "$out/serial.log" 2>/dev/null | suite_unstamp | cut -c1-160)
			[ -z "$c" ] || why="$why (kernel: $c)"
			suite_int3_oops "$out/serial.log" > /dev/null &&
				why="$why: an int3 no patch site claimed; under single-threaded TCG not the emulator's race but a text-patching fault (tests/vm/README.md)" ;;
		*) why="runner exit $vm_rc" ;;
		esac
		echo "FAIL $name:vm $why; see $out/serial.log" >> "$checks"
	fi
	for c in "$@"; do
		n=$(basename "$c" .sh)
		grep -q "^$n rc=" "$out/cases-done.txt" 2>/dev/null ||
			echo "FAIL $n:not-finished (the VM ended first)" >> "$checks"
	done
	grep -qE '^(ok|FAIL|SKIP) ' "$checks" || echo "FAIL $name:no-checks no check ran" >> "$checks"

	pass=$(grep -c '^ok ' "$checks")
	fail=$(grep -c '^FAIL ' "$checks")
	skipped=$(grep -c '^SKIP ' "$checks")
	echo "--- $name results ($checks)${knote:+, $knote}, wall $((wall / 100)).$(printf %02d $((wall % 100)))s"
	grep -E '^(ok|FAIL|SKIP|note) ' "$checks"
	echo "$name: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
}

# suite_unstamp: a serial.log line without its stamps (the runner's
# "[+  12.34]" and the kernel's "[   11.123456]").
suite_unstamp() { tr -d '\r' | sed -E 's/^(\[[^]]*\] *)+//'; }

# suite_int3_oops SERIAL_LOG: print the oops line and succeed if the guest
# died of an int3 trap that no patch site claimed. Under multi-threaded TCG
# that was the emulator's text-patching race (tests/vm/README.md); the
# runners now use single-threaded TCG, where the race cannot happen, so such
# a death is a real text-patching fault (a probe's, the kernel's) and fails
# like any other, its FAIL line saying so.
suite_int3_oops() {
	local line
	line=$(grep -a -m1 -E '(Oops: )?int3: [0-9a-f]{4} \[#[0-9]+\]' "$1" 2>/dev/null | suite_unstamp) || return 1
	[ -n "$line" ] || return 1
	echo "$line"
}
