# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/job.sh - who failed, not only why: a stand-in NCCL job
# (a process mapping a library with NCCL's version string, NCCL_* settings
# in its environment, a launcher parent named torchrun, RANK=3) registers from
# a second thread through that library under a 64 KiB limit; mrtrace must name
# NCCL's version, the rank, the settings (and the variable that no NCCL
# reads), the thread, the launcher, and must not leak other variables.  Then
# a rootless-container-style registration: root inside a user namespace holds
# CAP_IPC_LOCK there, which the kernel does not count.  And ranks that exit
# the instant their registration fails (issue 31 item 2), 20 in a row, in a
# cgroup of their own: each record placed all the same (launcher, unit, NCCL
# version and rank from the snapshot taken at the rank's device open).
# vm-timeout: 240
. "$TOP/tests/vm/mrt-lib.sh"
JOB=$TOP/build/tests/helpers/nccl_job
LIBNCCL=$TOP/build/tests/helpers/libnccl_standin

check watch_starts mrt_start watch
ln -sf /usr/bin/bash /tmp/torchrun
# the launcher stays the parent (a second command keeps bash from exec'ing)
run_job() {
	with_memlock 65536 as_nobody env -i PATH=/usr/bin:/bin RANK=3 LOCAL_RANK=3 WORLD_SIZE=8 \
		NCCL_DEBUG=INFO NCCL_BUFFSIZE=8388608 NCCL_IB_DISABLE_GDR=1 \
		MRT_TEST_SECRET=hunter2-do-not-print \
		/tmp/torchrun -c "$JOB $LIBNCCL rxe0 16777216; exit \$?" > "$CASE_OUT/job.txt" 2>&1
}
run_job
cat "$CASE_OUT/job.txt"
pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$CASE_OUT/job.txt")
tid=$(sed -n 's/.* tid=\([0-9]*\) .*/\1/p' "$CASE_OUT/job.txt")
check job_failed grep -q 'result=FAIL errno=12' "$CASE_OUT/job.txt"
check job_reported mrt_wait_event "$pid"
ev=$(mrt_event "$pid" | head -1)
jq_true job_cause "$ev" '.cause=="memlock_limit" and (.api=="ibv_reg_mr_iova2" or .api=="ibv_reg_mr")'
jq_true job_proxy_thread "$ev" ".tid==$tid and .tid!=.pid"
jq_true job_nccl_version "$ev" '.nccl.version|startswith("2.21.5")'
jq_true job_nccl_rank "$ev" '.nccl.rank==3'
jq_true job_nccl_settings "$ev" '.nccl.settings.NCCL_BUFFSIZE=="8388608" and .nccl.settings.NCCL_DEBUG=="INFO"'
jq_true job_nccl_lint "$ev" '[.nccl.lint[] | select(.name=="NCCL_IB_DISABLE_GDR")] | length==1 and (.[0].message|test("NCCL_NET_GDR_LEVEL"))'
jq_true job_nccl_estimate "$ev" '.nccl.estimated_pinned_host_max_bytes > 65536'
jq_true job_via_nccl "$ev" '.user_call.via_nccl==true and (.user_call.caller|test("libnccl"))'
jq_true job_launcher "$ev" '.process.launchers|test("torchrun")'
jq_true job_fixes "$ev" '(.fixes|length)>0'
check job_no_secret sh -c "! grep -q hunter2 '$MRT_OUT'"

# ranks that exit at once, under the launcher, in a named cgroup (a unit)
mkdir -p /sys/fs/cgroup/mrt-ranks.service
fast_pids=
for i in $(seq 0 19); do
	# into the cgroup as root, then the launcher as nobody; NCCL_JOB_DELAY:
	# NCCL's init between the device open and the first registration
	sh -c 'echo $$ > /sys/fs/cgroup/mrt-ranks.service/cgroup.procs && exec "$@"' sh \
		prlimit --memlock=65536:65536 -- setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		env -i PATH=/usr/bin:/bin RANK=$i LOCAL_RANK=$i WORLD_SIZE=20 NCCL_JOB_EXIT_AT_ONCE=1 NCCL_JOB_DELAY=0.3 NCCL_DEBUG=INFO \
		/tmp/torchrun -c "$JOB $LIBNCCL rxe0 16777216; rc=\$?; sleep 0.5; exit \$rc" \
		> "$CASE_OUT/fast.txt" 2>&1
	fast_pids="$fast_pids${fast_pids:+,}$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$CASE_OUT/fast.txt")"
done
last=${fast_pids##*,}
check fast_last_reported mrt_wait_event "$last"
fast=$(jq -sc --argjson p "[$fast_pids]" '[.[] | select(.event=="reg_failure" and (.pid as $x | $p | index($x)))]' "$MRT_OUT")
note "fast exit: $(printf '%s' "$fast" | jq -r 'length') records of 20; launcher $(printf '%s' "$fast" | jq '[.[] | select(.process.launchers // "" | test("torchrun"))] | length'), unit $(printf '%s' "$fast" | jq '[.[] | select(.process.systemd_unit=="mrt-ranks.service")] | length'), nccl version $(printf '%s' "$fast" | jq '[.[] | select(.nccl.version // "" | startswith("2.21.5"))] | length'), rank $(printf '%s' "$fast" | jq '[.[] | select(.nccl.rank != null)] | length'), gone before /proc $(printf '%s' "$fast" | jq '[.[] | select(.process.context_unavailable)] | length')"
jq_true fast_every_rank_reported "$fast" 'length==20'
jq_true fast_every_launcher "$fast" 'all(.[]; .process.launchers // "" | test("torchrun"))'
jq_true fast_every_unit "$fast" 'all(.[]; .process.systemd_unit=="mrt-ranks.service" and .process.setting=="systemd_service")'
jq_true fast_every_nccl_version "$fast" 'all(.[]; .nccl.version // "" | startswith("2.21.5"))'
jq_true fast_every_rank "$fast" '[.[] | .nccl.rank] | sort == [range(20)]'
jq_true fast_never_another_context "$fast" 'all(.[]; (.process.context_unavailable // "process_gone")=="process_gone")'
rmdir /sys/fs/cgroup/mrt-ranks.service 2>/dev/null

# text output of the same event, as a person sees it
spawn "$MRTRACE" watch > "$CASE_OUT/text.txt" 2>&1
textpid=$!
check text_watch_starts wait_for_line "$CASE_OUT/text.txt" 'watching' 120
run_job
check text_reported wait_for_line "$CASE_OUT/text.txt" 'NCCL: ' 20
check text_watch_stops stop_pid "$textpid" 30
check text_names_nccl grep -q 'NCCL: 2.21.5' "$CASE_OUT/text.txt"
check text_names_rank grep -q 'rank 3' "$CASE_OUT/text.txt"
check text_warns_nonexistent_var grep -q 'NCCL_IB_DISABLE_GDR' "$CASE_OUT/text.txt"

# rootless: root in a user namespace, CAP_IPC_LOCK there, 64 KiB limit
probe userns with_memlock 65536 as_nobody unshare --user --map-root-user -- --size 16M
check userns_reported mrt_wait_event "$PROBE_PID"
ev=$(mrt_event "$PROBE_PID" | head -1)
jq_true userns_cause "$ev" '.cause=="memlock_limit" and .evidence.cap_ipc_lock==false'
jq_true userns_context "$ev" '.process.user_namespace==true and .evidence.userns_level>=1'
jq_true userns_fix_says_namespace "$ev" '.fixes|tostring|test("namespace")'

check watch_stops mrt_stop
