# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/systemd/service.sh - the package as an operator installs it, under
# a real systemd (issue 31): boots in tests/vm/init's systemd mode (the host's
# systemd as pid 1, journald beside it; tests/vm/suite.sh picks the mode for
# the cases of tests/vm/systemd/). The .deb is `make deb`'s, built on the host
# before the boot (suite.sh); `dpkg -i` installs it into the guest's overlay,
# and its postinst enables and starts mrtrace.service and mrtrace-check.timer.
# Every assertion is about what the SHIPPED unit does:
#   - it arms the same sites as a plain `watch` on this boot: its start
#     record's `sites` (the array `--list-probes --json` prints) against the
#     plain `--list-probes --json`; rtnetlink and kprobes included
#   - a failed registration (64 KiB memlock, nobody) is a record in
#     events.jsonl, a journald entry with MRTRACE_CAUSE, a count in the
#     metrics textfile
#   - a port that goes down and up is two port_change records
#   - `rmmod rdma_rxe` succeeds while the service watches
#   - `systemctl stop` leaves no BPF link or perf-event program behind
#   - kill -9 is restarted by systemd (Restart=on-failure), a stopped event
#     loop by the watchdog (WatchdogSec)
#   - mrtrace-check.timer starts, its service runs once in its sandbox and
#     writes the same metrics as a plain `check --prom`
# The restart and watchdog checks shorten RestartSec and WatchdogSec with a
# drop-in (30 s and 90 s shipped): what is tested is that systemd restarts
# and that the watch's WATCHDOG=1 keeps it alive, not the periods.
# vm-timeout: 900
. "$TOP/tests/vm/mrt-lib.sh"

EV=/var/log/mrtrace/events.jsonl
PROM=/var/lib/prometheus/node-exporter/mrtrace.prom
CPROM=/var/lib/prometheus/node-exporter/mrtrace-check.prom
PORT=/sys/class/infiniband/rxe0/ports/1

[ -d /run/systemd/system ] || skip "not booted with systemd (VM_INIT=systemd, tests/vm/suite.sh)"
DEB=${MRTRACE_DEB:-}
[ -f "$DEB" ] || { _vm_line "FAIL $CASE:deb no package (suite.sh names it in MRTRACE_DEB)"; exit 1; }
note "package $(basename "$DEB")"

# wait_until SECS CMD...: poll CMD every 0.2 s
wait_until() {
	local secs=$1 i
	shift
	for i in $(seq $((secs * 5))); do "$@" && return 0; sleep 0.2; done
	"$@"
}
active() { [ "$(systemctl is-active "$1")" = active ]; }
main_pid() { systemctl show -p MainPID --value mrtrace.service; }
# the armed sites' names of a start record or of --list-probes's array
armed() { jq -c '(if type == "array" then . else .sites end) | [.[] | select(.armed) | .site] | sort'; }
# the newest record of EV matching JQ, waiting up to SECS
record() {
	local jqsel=$1 secs=${2:-20} i r
	for i in $(seq $((secs * 5))); do
		r=$(jq -c "select($jqsel)" "$EV" 2>/dev/null | tail -1)
		[ -n "$r" ] && { echo "$r"; return 0; }
		sleep 0.2
	done
	return 1
}
# BPF attachments that are not systemd's own (cgroup programs of its
# IPAddressDeny= and DevicePolicy=): links (5.15+) and perf-event programs
# (kprobes, tracepoints, uprobes through a perf event, any kernel)
bpf_attached() {
	echo $(( $(bpftool -j link list 2>/dev/null | jq '[.[] | select(.type != "cgroup")] | length') +
		$(bpftool -j perf list 2>/dev/null | jq 'length') ))
}

# ---- install ------------------------------------------------------------------
# node_exporter's textfile directory exists where node_exporter is installed
mkdir -p /var/lib/prometheus/node-exporter
# man-db's trigger would index every manual page of the host over 9p (two
# minutes under TCG); the guest's overlay turns that off (as Debian's
# container images do)
rm -f /var/lib/man-db/auto-update
# the host's root is a container image's, whose policy-rc.d (exit 101) keeps
# postinst from starting services; a node has none
rm -f /usr/sbin/policy-rc.d
check dpkg_install timeout 420 dpkg -i "$DEB"
check service_active wait_until 120 active mrtrace.service ||
	{ systemctl status --no-pager mrtrace.service; journalctl --no-pager -b -n 40; } > "$CASE_OUT/diag.txt" 2>&1
check service_notified_ready sh -c "systemctl show -p StatusText --value mrtrace.service | grep -i armed"
check check_timer_active active mrtrace-check.timer
check service_enabled sh -c '[ "$(systemctl is-enabled mrtrace.service)" = enabled ]'

# ---- the same sites as a plain watch ------------------------------------------
check plain_list_probes sh -c "'$MRTRACE' watch --no-config --list-probes --json > '$CASE_OUT/plain.json'"
start=$(record '.event=="start"' 60)
printf '%s\n' "$start" > "$CASE_OUT/service-start.json"
plain=$(armed < "$CASE_OUT/plain.json")
note "plain watch armed $(jq length <<< "$plain"): $plain"
check service_same_sites test "$(armed <<< "$start")" = "$plain"
jq_true service_port_events "$start" '.sites[] | select(.site=="port_events") | .armed and .mechanism=="netlink"'
jq_true service_registration_path "$start" '.registration_path_armed == true'
# every kprobe site's function is looked up in /proc/kallsyms
jq_true service_kprobes "$start" '[.sites[] | select(.armed and .mechanism == "kprobe")] | length > 0'

# ---- a failed registration: record, journal, metrics ---------------------------
with_memlock 65536 as_nobody "$MRPROBE" -d rxe0 --json --size 16M --mem malloc > "$CASE_OUT/probe.jsonl" 2>&1
pid=$(jq -r 'select(.event=="setup") | .pid' "$CASE_OUT/probe.jsonl" 2>/dev/null | head -1)
note "mrprobe pid ${pid:-?}"
ev=$(record ".event==\"reg_failure\" and .pid==${pid:-0}" 30)
jq_true failure_record "$ev" '.cause=="memlock_limit" and .uid==65534'
jent=$(for _ in $(seq 50); do
	j=$(timeout 20 journalctl -o json --no-pager -u mrtrace.service MRTRACE_PID="${pid:-0}" 2>/dev/null | tail -1)
	[ -n "$j" ] && { echo "$j"; break; }
	sleep 0.2
done)
printf '%s\n' "$jent" > "$CASE_OUT/journal.json"
jq_true journal_entry "$jent" '.MRTRACE_CAUSE=="memlock_limit" and .MRTRACE_EVENT=="reg_failure" and ._SYSTEMD_UNIT=="mrtrace.service"'
prom_counts() { grep -E '^mrtrace_watch_failures_total\{[^}]*cause="memlock_limit"[^}]*\} [1-9]' "$PROM"; }
check metrics_textfile wait_until 20 prom_counts

# ---- port events ----------------------------------------------------------------
ip link set dummy0 down
check port_down_record record '.event=="port_change" and .state=="DOWN"' 20
ip link set dummy0 up
check port_back_record record '.event=="port_change" and .state=="ACTIVE"' 30
gid_back() { [[ $(cat $PORT/state) == *ACTIVE* ]]; }
wait_until 30 gid_back

# ---- rmmod under the service ------------------------------------------------------
rdma link del rxe0
check rmmod_rxe rmmod rdma_rxe
check rmmod_seen record '.event=="modules_changed"' 30
check service_survives_rmmod active mrtrace.service

# ---- kill -9 and the watchdog ---------------------------------------------------------
mkdir -p /run/systemd/system/mrtrace.service.d
printf '[Service]\nRestartSec=1s\nWatchdogSec=8s\n' > /run/systemd/system/mrtrace.service.d/vm-test.conf
systemctl daemon-reload
old=$(main_pid)
kill -9 "$old"
new_pid() { active mrtrace.service && [ "$(main_pid)" != "$old" ] && [ "$(main_pid)" != 0 ]; }
check kill9_restarted wait_until 120 new_pid
old=$(main_pid)
sleep 12   # longer than WatchdogSec: the watch's WATCHDOG=1 keeps it alive
check watchdog_pings_keep_alive test "$(main_pid)" = "$old"
kill -STOP "$old"
check watchdog_restarted wait_until 120 new_pid
check watchdog_logged sh -c "journalctl --no-pager -u mrtrace.service | grep -i 'watchdog timeout'"
check restarted_active wait_until 120 active mrtrace.service

# ---- stop: nothing left attached ----------------------------------------------------
n=$(bpf_attached)
note "BPF attachments while running: $n"
check attached_while_running test "$n" -gt 0
check systemctl_stop timeout 60 systemctl stop mrtrace.service
check stop_result sh -c '[ "$(systemctl show -p Result --value mrtrace.service)" = success ]'
check stop_record record '.event=="stop"' 5
check no_links_left sh -c "n=\$(bpftool -j link list | jq '[.[] | select(.type != \"cgroup\")] | length'); p=\$(bpftool -j perf list | jq length); echo \"links \$n perf \$p\"; [ \$n = 0 ] && [ \$p = 0 ]"

rm -f /run/systemd/system/mrtrace.service.d/vm-test.conf
systemctl daemon-reload

# ---- the check timer's service, once ----------------------------------------------------
rm -f "$CPROM"
timeout 120 systemctl start mrtrace-check.service
st=$(systemctl show -p ExecMainStatus --value mrtrace-check.service)
"$MRTRACE" check --prom="$CASE_OUT/plain-check.prom" > /dev/null 2>&1
pst=$?
note "mrtrace-check.service exit $st, plain check --prom exit $pst"
check check_service_status test "$st" = "$pst"
# (build_info names the binary's version: the package's and build/'s differ)
series() { grep -v -e '^#' -e '^mrtrace_build_info' "$1" | grep -v -E 'timestamp|duration|seconds' | sort; }
check check_service_prom sh -c "[ -s '$CPROM' ] && grep -q '^mrtrace_check_' '$CPROM'"
check check_service_same_metrics diff <(series "$CPROM") <(series "$CASE_OUT/plain-check.prom")
exit 0
