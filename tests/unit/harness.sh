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
	[ "$(suite_emulation_oops "$tmp/serial.log")" = "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ]
}
int3_510() { serial 'int3: 0000 [#1] SMP NOPTI'; suite_emulation_oops "$tmp/serial.log" > /dev/null; }
null_deref_is_not() {
	serial 'BUG: kernel NULL pointer dereference, address: 0000000000000008' 'Oops: 0000 [#1] PREEMPT SMP NOPTI'
	! suite_emulation_oops "$tmp/serial.log"
}
panic_is_not() { serial 'Kernel panic - not syncing: sysrq triggered crash'; ! suite_emulation_oops "$tmp/serial.log"; }
no_console_is_not() { ! suite_emulation_oops "$tmp/none.log"; }
t int3_6_12_wording int3_612
t int3_5_10_wording int3_510
t null_deref_gets_no_second_boot null_deref_is_not
t panic_gets_no_second_boot panic_is_not
t no_console_gets_no_second_boot no_console_is_not

# boot 1 finished a, died in b: b and c are left, b's partial lines go aside
o=$tmp/out; mkdir -p "$o/cases/b"
for c in a b c; do : > "$tmp/$c.sh"; done
printf 'a rc=0 1.000s\n' > "$o/cases-done.txt"
printf 'ok a:one\nok b:half\nnote b:said\nok bb:other\n' > "$o/checks.txt"
echo console > "$o/serial.log"; echo out > "$o/script.log"
unfinished() { [ "$(suite_unfinished "$o" "$tmp/a.sh" "$tmp/b.sh" "$tmp/c.sh" | tr '\n' ' ')" = "$tmp/b.sh $tmp/c.sh " ]; }
t unfinished_after_the_last_done unfinished
suite_set_aside_boot "$o" b
aside_checks() { [ "$(cat "$o/checks.txt")" = "$(printf 'ok a:one\nok bb:other')" ] &&
	[ "$(cat "$o/checks.boot1.txt")" = "$(printf 'ok b:half\nnote b:said')" ]; }
aside_files() { [ -f "$o/serial.boot1.log" ] && [ -f "$o/script.boot1.log" ] && [ -f "$o/cases-done.boot1.txt" ] &&
	[ -d "$o/cases/b.boot1" ] && [ ! -e "$o/serial.log" ] && [ ! -e "$o/cases/b" ]; }
t set_aside_moves_only_the_dead_cases_lines aside_checks
t set_aside_keeps_boot_1 aside_files
# the systemd boot's own second chance keeps its dead boot under its own tag,
# beside the ordinary boot's *.boot1.* and *.main.* files
s=$tmp/sys; mkdir -p "$s/cases/service"
printf 'ok service:half\nok hello:x\n' > "$s/checks.txt"
echo console > "$s/serial.log"; echo boot1 > "$s/serial.boot1.log"; : > "$s/cases-done.txt"
suite_set_aside_boot "$s" service systemd-boot1
aside_tagged() { [ "$(cat "$s/serial.systemd-boot1.log")" = console ] && [ "$(cat "$s/serial.boot1.log")" = boot1 ] &&
	[ "$(cat "$s/checks.systemd-boot1.txt")" = 'ok service:half' ] && [ "$(cat "$s/checks.txt")" = 'ok hello:x' ] &&
	[ -d "$s/cases/service.systemd-boot1" ] && [ -f "$s/cases-done.systemd-boot1.txt" ] && [ ! -e "$s/serial.log" ]; }
t set_aside_under_the_systemd_boots_tag aside_tagged

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
