#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/unit/harness.sh - the host side of the VM suites (tests/vm/suite-lib.sh)
# on made-up consoles, no VM: which guest death earns a second boot (only the
# "Oops: int3" of the emulation's text-patching race, in 5.10's and 6.12's
# wording), what is set aside for it, which cases count as unfinished, and a
# crashed VM's FAIL line carrying the kernel's own words; and make test's
# closing summary (tests/summary.sh).  Ends with its count line.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. "$top/tests/vm/suite-lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
t() {
	local name=$1; shift
	if out=$("$@" 2>&1); then pass=$((pass + 1)); echo "ok harness:$name"
	else fail=$((fail + 1)); echo "FAIL harness:$name"; echo "$out" | sed 's/^/    /'; fi
}
serial() { printf '[+  40.10] [   39.871234] %s\r\n' "$@" > "$tmp/serial.log"; }

int3_612() {
	serial 'Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' 'RIP: 0010:mlx5_ib_stage_init_init+0x1/0x100'
	[ "$(suite_int3_oops "$tmp/serial.log")" = "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ]
}
int3_510() { serial 'int3: 0000 [#1] SMP NOPTI'; suite_int3_oops "$tmp/serial.log" > /dev/null; }
null_deref_is_not() {
	serial 'BUG: kernel NULL pointer dereference, address: 0000000000000008' 'Oops: 0000 [#1] PREEMPT SMP NOPTI'
	! suite_int3_oops "$tmp/serial.log"
}
panic_is_not() { serial 'Kernel panic - not syncing: sysrq triggered crash'; ! suite_int3_oops "$tmp/serial.log"; }
no_console_is_not() { ! suite_int3_oops "$tmp/none.log"; }
t int3_6_12_wording int3_612
t int3_5_10_wording int3_510
t null_deref_is_no_int3 null_deref_is_not
t panic_is_no_int3 panic_is_not
t no_console_is_no_int3 no_console_is_not
# an int3 death is no longer forgiven (no second boot): it fails, and its
# FAIL line says it is not the emulator's race under single-threaded TCG
int3_fails() {
	local r=$tmp/i; mkdir -p "$r"
	printf '[+  40.10] [   39.871234] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\r\n' > "$r/serial.log"
	printf 'a rc=0 1.000s\n' > "$r/cases-done.txt"
	suite_results vm-x "$r" 125 100 240 "" "$tmp/a.sh" "$tmp/b.sh" > "$r/out" && return 1
	grep -q "^FAIL vm-x:vm crashed .*(kernel: Oops: int3: 0000 \[#1\] PREEMPT SMP NOPTI): an int3 no patch site claimed; under single-threaded TCG not the emulator's race" "$r/checks.txt" &&
		grep -qx 'FAIL b:not-finished (the VM ended first)' "$r/checks.txt" &&
		grep -qx 'vm-x: 0 passed, 2 failed, 0 skipped' "$r/out"
}
t int3_death_fails_and_says_what_it_is int3_fails
# suite.sh boots each set of cases once: no second boot is left in it
no_second_boot() { ! grep -qE 'boot_forgiving|suite_set_aside_boot|suite_unfinished' tests/vm/suite.sh tests/vm/suite-lib.sh; }
t suite_has_no_second_boot no_second_boot
# the x86 runner's TCG is single-threaded unless VM_TCG_THREAD says multi
tcg_single() {
	grep -q 'TCG_THREAD=${VM_TCG_THREAD:-single}' tests/vm/run.sh &&
		grep -q -- '-accel "tcg,thread=$TCG_THREAD"' tests/vm/run.sh &&
		VM_TCG_THREAD=bogus tests/vm/run.sh true 2>&1 | grep -q "VM_TCG_THREAD must be single or multi"
}
t x86_tcg_single_threaded tcg_single

# a crashed VM's FAIL line quotes the kernel
crash_line() {
	local r=$tmp/r; mkdir -p "$r"
	printf '[+  40.10] [   39.871234] BUG: kernel NULL pointer dereference, address: 0000000000000008\r\n' > "$r/serial.log"
	printf 'a rc=0 1.000s\n' > "$r/cases-done.txt"
	suite_results vm-x "$r" 125 100 240 "" "$tmp/a.sh" > /dev/null
	grep -qx "FAIL vm-x:vm crashed or failed to set up (kernel: BUG: kernel NULL pointer dereference, address: 0000000000000008); see $r/serial.log" "$r/checks.txt"
}
t crash_fail_line_quotes_the_kernel crash_line
# make test's closing block (tests/summary.sh): a VM's failure deep in the
# log is listed at the end with every runner's count line
summary_log() {
	printf '%s\n' 'unit: 323 passed, 0 failed' 'test_correlate: [  FAILED  ] test_kernel_calls' \
		'ok memlock:nobody64k_cause' 'FAIL memlock:nobody64k_api' 'note memlock: probe nobody64k: rc=1 FAIL/ENOMEM' \
		'note vm-6.12: boot 1 died in case job (Oops: int3)' 'vm-6.12: 377 passed, 1 failed, 0 skipped' \
		'echo "mrtrace: FAIL memlock: slurmd hard limit"' 'vm-arm64-6.12: 34 passed, 0 failed, 0 skipped' > "$tmp/test.log"
}
summary_lists() {
	summary_log
	local s; s=$(tests/summary.sh "$tmp/test.log") && return 1
	[ "$(printf '%s\n' "$s" | grep -c 'passed, ')" = 3 ] &&
		printf '%s\n' "$s" | grep -qx 'FAIL memlock:nobody64k_api' &&
		printf '%s\n' "$s" | grep -qx 'test_correlate: \[  FAILED  \] test_kernel_calls' &&
		printf '%s\n' "$s" | grep -q '^note vm-6.12: boot 1 died' &&
		printf '%s\n' "$s" | grep -q '^--- failures (3) ---$' &&
		! printf '%s\n' "$s" | grep -q 'FAIL/ENOMEM\|slurmd hard'
}
summary_clean() {
	printf '%s\n' 'unit: 3 passed, 0 failed' 'note vm-6.12: boot 1 died in case job (Oops: int3)' \
		'vm-6.12: 378 passed, 0 failed, 0 skipped' > "$tmp/ok.log"
	tests/summary.sh "$tmp/ok.log" > /dev/null && ! tests/summary.sh "$tmp/none.log" > /dev/null
}
# tests/all.sh's step times end up on one line of the summary
summary_times() {
	printf '%s\n' 'unit: 3 passed, 0 failed' 'time: unit 95 s' 'vm-6.12: 3 passed, 0 failed, 0 skipped' \
		'time: vm-6.12 560 s' 'time: the unit tests took 3 s' > "$tmp/t.log"
	tests/summary.sh "$tmp/t.log" | grep -qx 'time: unit 95 s, vm-6.12 560 s, steps 655 s' &&
		echo 'wall: 600 s' >> "$tmp/t.log" &&
		tests/summary.sh "$tmp/t.log" | grep -qx 'time: unit 95 s, vm-6.12 560 s, steps 655 s, wall 600 s'
}
t summary_lists_counts_and_failures summary_lists
t summary_gathers_step_times summary_times
t summary_passes_a_clean_run summary_clean
echo "harness: $pass passed, $fail failed"
[ "$fail" = 0 ]
