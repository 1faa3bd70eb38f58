#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/run.sh - live tests on the development kernel itself.
#
# This host is a realistic restricted kernel (docs/design.md section 5): no
# CONFIG_INFINIBAND, no kprobes, fentry/fexit refused; tracepoints work.
# mrtrace must start, say plainly what it cannot see, and still explain
# what it can: failing mlock() calls, which are held to the same
# RLIMIT_MEMLOCK as MR registration.  Needs root.
# Ends with "host: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=${MRTRACE:-$TOP/build/mrtrace}   # make asan runs it against build-asan/
MLOCKER=$TOP/build/tests/helpers/mlocker
OUT=${HOST_OUT:-$TOP/build/host-tests}
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
# start_watch NAME ARGS...: mrtrace watch --json in the background
start_watch() {
	local name=$1; shift
	W=$OUT/$name.jsonl
	"$MRTRACE" watch --json "$@" > "$W" 2> "$W.err" &
	WPID=$!
	wait_line "$W" '"event":"start"' 30 || { cat "$W.err"; return 1; }
}
# pid_of FILE: the pid a helper printed ("pid=N ...")
pid_of() { sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$1"; }
# event_of KIND PID: wait for mrtrace's KIND record about PID, print it
event_of() {
	wait_line "$W" "\"event\":\"$1\",[^}]*\"pid\":$2," 10
	jq -c "select(.event==\"$1\" and .pid==$2)" "$W"
}
stop_watch() {
	kill -INT "$WPID" 2>/dev/null
	local i
	for i in $(seq 100); do kill -0 "$WPID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$WPID" 2>/dev/null && { kill -KILL "$WPID"; return 1; }
	wait "$WPID"
}

[ "$(id -u)" = 0 ] || host_abort host "host tests need root"
for b in "$MRTRACE" "$MLOCKER" "$TOP/build/tests/helpers/verbs_user" "$TOP/build/tests/helpers/libibverbs_fake"; do
	[ -x "$b" ] || [ -f "$b" ] || host_abort host "missing $b: run 'make host'"
done
# our programs by name, to prove they are gone after each run (other
# mrtrace instances on this machine would be counted too: compare counts)
our_progs() { bpftool prog show 2>/dev/null | grep -c -E 'tp_exit_mlock|up_reg_mr_iova2'; }
PROGS_BEFORE=$(our_progs)

# ---- the command line teaches --------------------------------------------
check help_main "$MRTRACE" --help
for c in watch check diff; do
	check "help_$c" sh -c "'$MRTRACE' $c --help | grep -q Usage"
done
# --syscalls=auto on a kernel without RDMA arms nothing per syscall (issue 31)
check help_syscalls_auto_says_waits sh -c "'$MRTRACE' watch --help | tr '\n' ' ' | tr -s ' ' | grep -q 'without RDMA nothing is armed per syscall'"
check help_syscalls_auto_not_when_none sh -c "! '$MRTRACE' watch --help | tr '\n' ' ' | tr -s ' ' | grep -q 'only when no registration site can be armed'"
check unknown_command_exit2 sh -c "'$MRTRACE' frobnicate; [ \$? = 2 ]"
check bad_option_exit sh -c "'$MRTRACE' watch --syscalls=maybe; [ \$? != 0 ]"
# a pid in range that no process has
NOPID=$(( $(cat /proc/sys/kernel/pid_max) - 1 )); while [ -e /proc/$NOPID ]; do NOPID=$((NOPID - 1)); done
check check_pid_not_found_exit2 sh -c "'$MRTRACE' check -p $NOPID > '$OUT/check-nopid.out' 2>&1; [ \$? = 2 ] && grep -q 'no process $NOPID' '$OUT/check-nopid.out' && ! grep -q RESULT '$OUT/check-nopid.out'"
check pid_not_found_clear sh -c "'$MRTRACE' watch -p $NOPID 2>&1 | grep -q 'no process'"
check pid_out_of_range_refused sh -c "'$MRTRACE' watch -p 999999999 2>&1 | grep -q 'invalid PID'"

# ---- startup on this restricted kernel ------------------------------------
"$MRTRACE" watch --list-probes > "$OUT/list.txt" 2>&1; rc=$?
check list_probes_exit0 test "$rc" = 0
check list_probes_says_unavailable grep -Eq '^umem_get +no ' "$OUT/list.txt"
check list_probes_gives_reason grep -Eq '^(cap_ipc_lock|pin) +no .*(refused|not supported|not in)' "$OUT/list.txt"
check list_probes_consequence grep -q 'will NOT be seen from the kernel' "$OUT/list.txt"
# what cannot attach here is said in the table, not as libbpf's raw errors
# (the module tracepoints leaked three lines once)
check list_probes_no_libbpf_noise sh -c "! grep '^libbpf:' '$OUT/list.txt'"
check list_probes_modules_why grep -Eq '^modules +no .*no loadable modules' "$OUT/list.txt"
sites=$("$MRTRACE" watch --list-probes --json 2>/dev/null)
# no RDMA here: by default nothing is armed per syscall (issue 23), and the
# note says why and how to have it
jq_true list_json_sys_mlock_off_without_rdma "$sites" '.[] | select(.site=="sys_mlock") | (.armed|not) and (.note|test("no RDMA on this kernel yet.*--syscalls=on"))'
sites=$("$MRTRACE" watch --list-probes --json --syscalls=on 2>/dev/null)
jq_true list_json_sys_mlock_tracepoint "$sites" '.[] | select(.site=="sys_mlock") | .armed and .mechanism=="tracepoint"'
jq_true list_json_umem_get_unarmed_with_note "$sites" '.[] | select(.site=="umem_get") | (.armed|not) and (.note|length>0)'
# ports and GIDs are watched from user space, said as a row of its own
jq_true list_json_port_events "$sites" '.[] | select(.site=="port_events") | .armed and (.mechanism=="netlink" or .mechanism=="sysfs") and .module=="user" and (.note|test("0.1 s"))'
check list_probes_port_events grep -Eq '^port_events +(netlink|sysfs) +user ' "$OUT/list.txt"

# ---- the default without RDMA: waiting, nothing per syscall ---------------
if start_watch waiting --metrics-textfile="$OUT/waiting.prom"; then
	start=$(grep -m1 '"event":"start"' "$W")
	jq_true waiting_start_record "$start" '.waiting_for_rdma==true and .registration_path_armed==false and ([.sites[] | select(.site|startswith("sys_")) | select(.armed)] | length == 0)'
	check waiting_start_line grep -q 'no RDMA on this kernel yet: nothing is armed per syscall' "$W.err"
	# this host loads no modules: nothing will come, and watch says so
	# (it runs on, idle, rather than failing a service)
	check waiting_says_no_modules grep -q 'this kernel loads no modules, so none will come' "$W.err"
	check waiting_metrics grep -qx 'mrtrace_watch_waiting_for_rdma 1' "$OUT/waiting.prom"
	# a failing mlock() is not seen: nothing watches syscalls
	prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > "$OUT/mw.txt" 2>&1
	wpid=$(pid_of "$OUT/mw.txt")
	stop_watch && ok waiting_watch_stops || bad waiting_watch_stops "exit status or hang"
	check waiting_no_syscall_record sh -c "[ -n '$wpid' ] && ! grep -q '\"pid\":$wpid,' '$W'"
else
	bad waiting_watch_starts "$(tail -3 "$W.err")"
fi

# ---- a failing mlock() as an unprivileged process (--syscalls=on) ----------
if start_watch mlock --syscalls=on; then
	ok watch_starts
	start=$(grep -m1 '"event":"start"' "$W")
	jq_true start_record_honest "$start" '.registration_path_armed==false and .armed_sites>=1 and .waiting_for_rdma==true'
	prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > "$OUT/m1.txt" 2>&1
	pid=$(pid_of "$OUT/m1.txt")
	check mlock_really_failed grep -q 'result=FAIL errno=12' "$OUT/m1.txt"
	ev=$(event_of mlock_failure "$pid")
	jq_true mlock_cause "$ev" '.cause=="memlock_limit" and .errno==12 and .uid==65534 and .api=="mlock"'
	jq_true mlock_numbers "$ev" '.evidence.memlock_limit_bytes==65536 and .evidence.requested_pages==256 and .evidence.locked_bytes==0 and .len==1048576'
	jq_true mlock_fix "$ev" '(.fixes|length)>0 and (.summary|test("limit 64 KiB"))'
	jq_true mlock_no_environment_dump "$ev" '(.process|has("environ")|not) and (tostring|test("PATH=")|not)'
	# limit 0: EPERM
	prlimit --memlock=0:0 $NOBODY "$MLOCKER" 4096 > "$OUT/m0.txt" 2>&1
	pid=$(pid_of "$OUT/m0.txt")
	ev=$(event_of mlock_failure "$pid")
	jq_true mlock_zero_cause "$ev" '.cause=="memlock_zero" and .errno==1'
	# a successful mlock is not reported
	prlimit --memlock=1048576:1048576 $NOBODY "$MLOCKER" 65536 > "$OUT/mok.txt" 2>&1
	okpid=$(pid_of "$OUT/mok.txt")
	# the limit change that prlimit made is recorded
	check rlimit_change_seen grep -q '"event":"memlock_limit_set".*"soft_bytes":65536' "$W"
	stop_watch && ok watch_stops_on_sigint || bad watch_stops_on_sigint "exit status or hang"
	# after the stop, which drains every record: the successful mlock left none
	check mlock_ok_not_reported sh -c "[ -n '$okpid' ] && ! grep -q '\"event\":\"mlock_failure\",[^}]*\"pid\":$okpid,' '$W'"
	stop=$(grep '"event":"stop"' "$W")
	jq_true stop_record "$stop" '.drops==0 and .reported>=2'
else
	bad watch_starts "$(tail -3 "$W.err")"
fi

# ---- -- CMD: only the command's process tree, its exit status -------------
W=$OUT/cmd.jsonl
prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > /dev/null &   # not ours
"$MRTRACE" watch --json --syscalls=on -o "$W" -- prlimit --memlock=65536:65536 $NOBODY sh -c "sleep 0.5; '$MLOCKER' 2097152; exit 7" > "$OUT/cmd.stdout" 2> "$W.err"
rc=$?
wait
check cmd_exit_status_propagated test "$rc" = 7
n=$(jq -c 'select(.event=="mlock_failure")' "$W" | wc -l)
check cmd_only_its_tree test "$n" = 1
ev=$(jq -c 'select(.event=="mlock_failure")' "$W")
jq_true cmd_event_is_child "$ev" '.len==2097152 and .comm=="mlocker"'
# the syscall tracepoints' misses: this kernel (6.7+) counts them, so the
# stop record says 0 missed with none uncounted, and nothing on stderr
# (issue 48: a probe that missed is no longer invisible; kretmiss.sh in the
# VM makes kretprobes miss)
kv=$(uname -r); kmaj=${kv%%.*}; kmin=${kv#*.}; kmin=${kmin%%.*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 7 ]; }; then
	jq_true probe_misses_counted_here "$(grep '"event":"stop"' "$W")" \
		'.probes_missed==0 and .probes_miss_uncounted==0 and (has("probes_missed_by")|not)'
	check no_miss_sentence sh -c "! grep -q 'missed\|count the misses' '$W.err'"
else
	jq_true probe_misses_uncounted_here "$(grep '"event":"stop"' "$W")" '.probes_miss_uncounted > 0'
fi

# ---- text: every record that has a text, the limit change included ----------
"$MRTRACE" watch --syscalls=on -d 5 > "$OUT/text.txt" 2> "$OUT/text.err" &
tpid=$!
if wait_line "$OUT/text.err" 'watching' 30; then
	prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > /dev/null 2>&1
fi
wait "$tpid"
# issue 31: no site table without -v; the start line counts what the table lists
check start_no_table_without_v sh -c "! grep -Eq '^(umem_get|sys_mlock|port_events) ' '$OUT/text.err'"
nrows=$("$MRTRACE" watch --list-probes --json 2>/dev/null | jq length)
check start_count_is_table_rows_exact grep -q " of $nrows sites armed" "$OUT/text.err"
check text_mlock_failure grep -q '^mlock failed: pid [0-9]* (mlocker)' "$OUT/text.txt"
check text_rlimit_line grep -Eq '^memlock limit set: pid [0-9]+ \(prlimit\)( for pid [0-9]+)?: soft 64 KiB, hard 64 KiB, at [0-9T:.-]+Z on ' "$OUT/text.txt"

# ---- -d SECONDS, SIGTERM --------------------------------------------------
t0=$(date +%s)
"$MRTRACE" watch --json -d 2 > "$OUT/d.jsonl" 2>/dev/null
rc=$?; t1=$(date +%s)
check duration_ends_run test "$rc" = 0 -a $((t1 - t0)) -le 10
check duration_stop_record grep -q '"event":"stop"' "$OUT/d.jsonl"
if start_watch term; then
	kill -TERM "$WPID"; wait "$WPID"; rc=$?
	check sigterm_clean_exit test "$rc" = 0
	check sigterm_stop_record grep -q '"event":"stop"' "$W"
fi
# after detaching, nothing of ours stays attached: a leaked link holds its
# program for good, while the kernel may free a released one a moment after
# the exit (CI's 6.18 host: listed right after watch was reaped)
progs_gone() {
	local i
	for i in $(seq 50); do [ "$(our_progs)" -le "$PROGS_BEFORE" ] && return 0; sleep 0.1; done
	echo "still loaded 5 s after the exit: $(our_progs), $PROGS_BEFORE before"
	return 1
}
check no_leftover_programs progs_gone

# ---- -p PID --------------------------------------------------------------
# the target fails only once watch is watching (a fixed sleep lost the
# race on a loaded host)
rm -f "$OUT/p.go"
prlimit --memlock=65536:65536 $NOBODY sh -c "while [ ! -e '$OUT/p.go' ]; do sleep 0.05; done; exec '$MLOCKER' 3145728" > "$OUT/p.txt" 2>&1 &
target=$!
if start_watch pid -p "$target" --syscalls=on; then
	touch "$OUT/p.go"
	prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > /dev/null 2>&1 # other process
	wait "$target"
	sleep 0.5
	stop_watch
	n=$(jq -c 'select(.event=="mlock_failure")' "$W" | wc -l)
	check pid_filter_one_event test "$n" = 1
	jq_true pid_filter_right_one "$(jq -c 'select(.event=="mlock_failure")' "$W")" ".len==3145728 and .pid==$target"
fi
touch "$OUT/p.go"; wait "$target" 2>/dev/null # a watch that did not start leaves no waiter

# ---- -c CGROUP: only processes in that cgroup v2 subtree ----------------
CG2=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts)
if [ -n "$CG2" ] && mkdir -p "$CG2/mrt-host-test" 2>/dev/null; then
	if start_watch cgroup -c mrt-host-test --syscalls=on; then
		prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > /dev/null 2>&1 # outside
		sh -c "echo \$\$ > '$CG2/mrt-host-test/cgroup.procs' && exec prlimit --memlock=65536:65536 $NOBODY '$MLOCKER' 2097152" > /dev/null 2>&1
		sleep 0.5
		stop_watch
		n=$(jq -c 'select(.event=="mlock_failure")' "$W" | wc -l)
		check cgroup_filter_one_event test "$n" = 1
		jq_true cgroup_filter_right_one "$(jq -c 'select(.event=="mlock_failure")' "$W")" '.len==2097152'
	else
		bad cgroup_watch_starts "$(tail -2 "$W.err")"
	fi
	rmdir "$CG2/mrt-host-test" 2>/dev/null
else
	echo "note: no writable cgroup v2 here; -c not tested"
fi
check cgroup_missing_clear_error sh -c "'$MRTRACE' watch -c no-such-cgroup-here -d 1 2>&1 | grep -q 'no-such-cgroup-here'"

# ---- libibverbs uprobes: a process that starts after mrtrace and loads a
# libibverbs (a stand-in: this kernel has no RDMA) is found by mrtrace's scan,
# and its failed registration is explained from user-level evidence and
# /proc, marked as inferred (no kernel site can be armed here).
FAKEDIR=$OUT/fakelib
mkdir -p "$FAKEDIR"
cp "$TOP/build/tests/helpers/libibverbs_fake" "$FAKEDIR/libibverbs.so.1"
VU=$TOP/build/tests/helpers/verbs_user
if start_watch uprobe; then
	# it registers once watch's scan has found it and attached (no fixed delay)
	prlimit --memlock=65536:65536 $NOBODY "$VU" "$FAKEDIR/libibverbs.so.1" "@$OUT/vu.go" 16777216 > "$OUT/vu.txt" 2>&1 &
	VUP=$!
	check uprobe_library_found wait_line "$W" '"event":"library_attached".*fakelib' 30
	touch "$OUT/vu.go"; wait "$VUP"
	pid=$(pid_of "$OUT/vu.txt")
	check uprobe_call_failed grep -q 'result=FAIL errno=12' "$OUT/vu.txt"
	ev=$(event_of reg_failure "$pid")
	jq_true uprobe_api "$ev" '.api=="ibv_reg_mr_iova2" and .user_call.reached_kernel==true and .user_call.length==16777216'
	jq_true uprobe_inferred_memlock "$ev" '.cause=="memlock_limit" and .certainty=="inferred" and .errno_name=="ENOMEM"'
	jq_true uprobe_numbers_from_proc "$ev" '.summary|test("limit 64 KiB")'
	# NCCL's dma-buf probe, refused inside the library
	# (the same file: its uprobes hold for every process that maps it)
	"$VU" -d "$FAKEDIR/libibverbs.so.1" 0 > "$OUT/vud.txt" 2>&1
	pid=$(pid_of "$OUT/vud.txt")
	ev=$(event_of nccl_probe "$pid")
	jq_true uprobe_dmabuf_probe_harmless "$ev" '.event=="nccl_probe" and .cause=="dmabuf_unsupported" and .harmless==true and .user_call.reached_kernel==false'
	start=$(grep -m1 '"event":"start"' "$W")
	stop_watch
else
	bad uprobe_watch_starts
fi

echo "host: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
