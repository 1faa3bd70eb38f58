# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/offpath.sh - nothing of watch runs for work that registers
# nothing (issue 20, item 2; docs/design.md section 5): with watch armed
# system-wide in its default, the kernel's own run count of every program
# watch loaded does not move while the guest does
#   - O_DIRECT reads of a null_blk device (pin_user_pages_fast on each)
#   - privilege checks (setpriv changing uid and groups, nice raising a
#     priority: capable() on each)
#   - mlock/munlock within the limit
#   - fork+exec
# and it does move for one registration (the counts are live).
#
# How the counts are read: kernel.bpf_stats_enabled=1 makes the kernel
# count each program's runs (run_cnt); `bpftool prog show --json` is taken
# once before each workload and once after it, so the only work inside an
# interval is the workload and one bpftool, and an interval with nothing
# in it but that bpftool is checked too ("nothing").  watch's programs are
# those that were not loaded before watch started.  null_blk is loaded
# before watch, whose module watch would otherwise run for that load.
# vm-timeout: 300
. "$TOP/tests/vm/mrt-lib.sh"
LOOP=$TOP/build/tests/helpers/bench_loop

check stats_on sysctl -qw kernel.bpf_stats_enabled=1
check null_blk modprobe null_blk nr_devices=1
bpftool prog show --json > "$CASE_OUT/before-watch.json"
check watch_starts mrt_start watch
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
# what the verdicts need is read at ib_umem_get itself
jq_true cap_from_umem_get "$start" '.sites[] | select(.site=="cap_ipc_lock") | .armed and (.note|test("credentials"))'
jq_true pin_from_umem_get "$start" '.sites[] | select(.site=="pin") | .armed and (.note|test("VMAs"))'
# the hot functions are not probed unless asked (--hot-sites)
for site in migrate dma_map iova dmabuf_attach dmabuf_pin dmabuf_map sg_alloc; do
	jq_true "${site}_off" "$start" ".sites[] | select(.site==\"$site\") | (.armed|not)"
done
# the default arms no syscall tracepoint where registration sites are armed
jq_true no_syscalls "$start" '[.sites[] | select(.site|startswith("sys_")) | select(.armed)] | length == 0'

snap() { bpftool prog show --json > "$CASE_OUT/$1.json"; }
# runs FROM TO: the run_cnt watch's programs gained from snapshot FROM to
# TO, and which moved
runs() {
	jq -r -n --slurpfile w "$CASE_OUT/before-watch.json" --slurpfile a "$CASE_OUT/$1.json" \
		--slurpfile b "$CASE_OUT/$2.json" '
		($w[0] | map(.id)) as $old
		| ($a[0] | map({key: (.id|tostring), value: (.run_cnt // 0)}) | from_entries) as $from
		| [$b[0][] | select(.id as $i | $old | index($i) | not)
		   | {name, d: ((.run_cnt // 0) - ($from[.id|tostring] // 0))} | select(.d != 0)]
		| "\([.[].d] | add // 0)\(if length > 0 then " (" + ([.[] | "\(.name) \(.d)"] | join(", ")) + ")" else "" end)"'
}
no_runs() { # FROM TO
	local r
	r=$(runs "$1" "$2")
	echo "runs of watch's programs: $r"
	[ "${r%% *}" = 0 ]
}
watch_progs() {
	jq -r -n --slurpfile w "$CASE_OUT/before-watch.json" --slurpfile a "$CASE_OUT/s0.json" \
		'($w[0] | map(.id)) as $old | [$a[0][] | select(.id as $i | $old | index($i) | not)] | length'
}

snap s0
check watch_has_programs test "$(watch_progs)" -gt 0
note "watch's programs: $(watch_progs)"
sleep 1
snap s1
check nothing no_runs s0 s1

if [ -b /dev/nullb0 ]; then
	"$LOOP" odirect /dev/nullb0 2000
	snap s2
	check odirect_reads no_runs s1 s2
else
	skip_check odirect_reads "no /dev/nullb0 (null_blk) on $(uname -r)"
	snap s2
fi

privileged() {
	for _ in $(seq 25); do
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- true || return 1
		nice -n -5 true || return 1
	done
}
check privilege_checks_ran privileged
snap s3
check privilege_checks no_runs s2 s3

"$LOOP" mlock 3000
snap s4
check mlock_within_limit no_runs s3 s4

"$LOOP" forkexec 50
snap s5
check fork_exec no_runs s4 s5

# a registration (as root, 64 KiB): watch's programs do run for that
probe reg -- --size 64K
check registration_ok test "$PROBE_RC" = 0
snap s6
moved() { local r; r=$(runs s5 s6); echo "runs: $r"; [ "${r%% *}" -gt 0 ]; }
check registration_runs moved
# what one successful registration and its deregistration cost (issue 20, item 3)
note "program runs for one 64 KiB registration, start to exit: $(runs s5 s6)"

check watch_stops mrt_stop
sysctl -qw kernel.bpf_stats_enabled=0
