# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/container.sh - a process in its own mount namespace maps
# its own copy of libibverbs (as a container image does): the host's
# libibverbs inode, where mrtrace attached first, never sees its calls.
# mrtrace must find the copy through /proc/PID/root and attach to it, so the
# registration is still reported with the API the application called.
# vm-timeout: 180
. "$TOP/tests/vm/mrt-lib.sh"
JOB=$TOP/build/tests/helpers/nccl_job
LIBNCCL=$TOP/build/tests/helpers/libnccl_standin
REAL=$(readlink -f /usr/lib/"$(uname -m)"-linux-gnu/libibverbs.so.1)
IMG=/run/mrt-container-img
mkdir -p $IMG && cp "$REAL" $IMG/libibverbs.so.1

check watch_starts mrt_start watch
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
jq_true host_lib_attached "$start" '.sites[] | select(.site=="libibverbs") | .armed'

# the "container": a private mount namespace whose libibverbs is the copy
in_container() {
	unshare --mount --propagation private -- sh -c "mount --bind $IMG/libibverbs.so.1 $REAL && exec \"\$@\"" container "$@"
}
export -f in_container; export IMG REAL
# the point of the case: the process really maps another inode
other_inode() { [ "$(stat -L -c %i "$REAL")" != "$(in_container stat -L -c %i "$REAL")" ]; }
check container_has_own_copy other_inode
with_memlock 65536 in_container env NCCL_JOB_DELAY=5 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$JOB" "$LIBNCCL" rxe0 16777216 > "$CASE_OUT/job.txt" 2>&1
cat "$CASE_OUT/job.txt"
pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$CASE_OUT/job.txt")
check job_failed grep -q 'result=FAIL errno=12' "$CASE_OUT/job.txt"
check reported mrt_wait_event "$pid"
ev=$(mrt_event "$pid" | head -1)
# the stack the kernel took (raw before 5.17, scanned in user space), named
# through the container's own copy (/proc/PID/root): ibv_reg_mr tail-calls
# ibv_reg_mr_iova2, which is the libibverbs frame left on the stack
# (docs/json.md, user_call)
jq_true api_from_kernel_stack "$ev" '.user_call.api=="ibv_reg_mr_iova2" and .api=="ibv_reg_mr_iova2" and .user_call.reached_kernel and .user_call.via_nccl and .user_call.stack_frames>0'
jq_true cause "$ev" '.cause=="memlock_limit"'

# issue 34 item 1: a user's private copy of libibverbs, deleted and replaced
# by FIFOs (under its name and under "NAME (deleted)", as maps then shows
# it) while the process maps it; a failed registration must still be
# reported at once - watch never opens a FIFO its maps name (it would wait
# forever in open(2), one loop for every process)
PRIV=/run/mrt-private-lib
# what each thread of a stalled watch waits in (fifo_open: a FIFO's open)
watch_blocked_on() {
	for t in /proc/"$MRT_PID"/task/*; do
		echo "watch thread ${t##*/}: wchan $(cat "$t"/wchan 2>/dev/null); stack:"
		sed 's/^/    /' "$t"/stack 2>/dev/null | head -8
	done
}
rm -rf $PRIV && mkdir -p $PRIV && cp "$REAL" $PRIV/libibverbs.so.1 && chmod -R a+rX $PRIV
with_memlock 65536 env LD_LIBRARY_PATH=$PRIV NCCL_JOB_DELAY=4 setpriv --reuid=nobody --regid=nogroup \
	--clear-groups -- "$JOB" "$LIBNCCL" rxe0 16777216 > "$CASE_OUT/job-fifo.txt" 2>&1 &
jobpid=$!
sleep 2
priv_mapped() { grep -qs "$PRIV/libibverbs.so.1" /proc/[0-9]*/maps; }
check private_copy_mapped priv_mapped
rm -f $PRIV/libibverbs.so.1 && mkfifo $PRIV/libibverbs.so.1 "$PRIV/libibverbs.so.1 (deleted)"
wait $jobpid
cat "$CASE_OUT/job-fifo.txt"
fpid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$CASE_OUT/job-fifo.txt")
check fifo_job_failed grep -q 'result=FAIL errno=12' "$CASE_OUT/job-fifo.txt"
check fifo_lib_not_stalled mrt_wait_event "$fpid" 10 || watch_blocked_on
rm -rf $PRIV
check watch_stops mrt_stop
check copy_attached grep -q "/proc/[0-9]*/root$REAL" "$MRT_OUT.err"

# The same by the path the maps give (docs/design.md section 9 lists the
# ways a frame reaches that lookup): the mapping watch kept no longer
# exists as it was.  NCCL's dma-buf probe, a reported call, makes watch
# read and keep the job's maps; the job then splits libibverbs' text in two
# mappings (the LO-HI kept opens no /proc/PID/map_files link) and the
# library, not deleted when the maps were read, is replaced by a FIFO.  The
# failed registration's frames (the stack scan: in the kernel on 5.17+, of
# the raw copy in user space before) are then looked up
# by that path; watch must refuse the FIFO and report at once.
check watch_restarts mrt_start watch-stale-maps
PRIV=/run/mrt-stale-lib
rm -rf $PRIV && mkdir -p $PRIV/turn && cp "$REAL" $PRIV/libibverbs.so.1 && chmod -R a+rX $PRIV
with_memlock 65536 env LD_LIBRARY_PATH=$PRIV NCCL_JOB_DELAY=4 NCCL_JOB_STALE_MAPS=$PRIV/turn \
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$JOB" "$LIBNCCL" rxe0 16777216 \
	> "$CASE_OUT/job-stale.txt" 2>&1 &
jobpid=$!
check stale_probed wait_for_line "$CASE_OUT/job-stale.txt" '^probed$' 30
spid=$(grep -l "$PRIV/libibverbs.so.1" /proc/[0-9]*/maps 2>/dev/null | head -1 | cut -d/ -f3)
# its record written: the maps were read and kept before the split
check stale_probe_reported wait_for_line "$MRT_OUT" "\"event\":\"nccl_probe\",[^}]*\"pid\":$spid," 15
touch $PRIV/turn/split
check stale_text_split wait_for_line "$CASE_OUT/job-stale.txt" '^split$' 30
rm -f $PRIV/libibverbs.so.1 && mkfifo $PRIV/libibverbs.so.1 && touch $PRIV/turn/go
wait $jobpid
cat "$CASE_OUT/job-stale.txt"
check stale_job_failed grep -q "^pid=$spid .*result=FAIL errno=12" "$CASE_OUT/job-stale.txt"
check stale_maps_not_stalled wait_for_line "$MRT_OUT" "\"event\":\"reg_failure\",[^}]*\"pid\":$spid," 10 ||
	watch_blocked_on
jq_true stale_cause "$(jq -c "select(.event==\"reg_failure\" and .pid==$spid)" "$MRT_OUT")" '.cause=="memlock_limit"'
rm -rf $PRIV
check watch_stale_maps_stops mrt_stop
