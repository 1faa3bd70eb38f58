# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/gpumem.sh - GPU memory registered as NCCL does when dma-buf
# is not usable: device memory (the [vvar] page, VM_IO|VM_PFNMAP, stands in
# for a GPU BAR) registered by its address, on the stock kernel and with a
# stand-in peer-memory tree; every assertion reads mrtrace's own JSON.
#   stock kernel (no peer-memory API)       -> peer_memory unsupported, a dma-buf fix
#                                              naming what is missing (rxe; before 5.12
#                                              the kernel), MLNX_OFED/DOCA only as the
#                                              alternative, never "load nvidia-peermem"
#   NCCL's dma-buf probe, then the same     -> one chain: the probe's EOPNOTSUPP and the
#   registration in the same process           fallback told in the pin_device_memory verdict
#   /sys/kernel/mm/memory_peers, empty      -> no_client: load nvidia-peermem
#   ... with memory_peers/nv_mem            -> registered: the client did not take it
# The stand-in tree is a tmpfs over /sys/kernel/mm in watch's own mount
# namespace (what MLNX_OFED's ib_core would create), filled from outside
# through /proc/PID/root.
# vm-timeout: 420
. "$TOP/tests/vm/mrt-lib.sh"

# gpu_record PID: the pin_device_memory record of PID, once it is there
gpu_record() {
	local i r
	for i in $(seq 150); do
		r=$(jq -c "select(.event==\"reg_failure\" and .pid==$1 and .cause==\"pin_device_memory\")" \
			"$MRT_OUT" 2>/dev/null | head -1)
		[ -n "$r" ] && { echo "$r"; return 0; }
		sleep 0.2
	done
	return 1
}
# expect NAME JQ -- MRPROBE-ARGS: the record's cause and its GPU facts; the
# record is kept as a replay fixture candidate
expect() {
	local name=$1 extra=$2 ev
	shift 2
	[ "${1:-}" = -- ] && shift
	probe "$name" -- "$@"
	ev=$(gpu_record "$PROBE_PID")
	jq_true "${name}_cause" "$ev" '.errno_name=="EFAULT" and .certainty=="proven" and .evidence.decisive_site=="pin_user_pages"'
	jq_true "${name}_facts" "$ev" "$extra"
	[ -n "$ev" ] && printf '%s\n' "$ev" > "$CASE_OUT/pin_device_memory.$name.json"
	return 0
}

# what blocks dma-buf on this kernel: rxe's driver everywhere, the kernel too before 5.12
if kernel_older_than 5.12; then first=kernel; else first=nic_driver; fi
# no primary fix may tell to load nvidia-peermem where the kernel cannot use
# it (a note says not to; the MLNX_OFED/DOCA alternative names it after OFED)
NO_PEERMEM='([.fix_details[] | select(.kind=="primary") | .text | test("modprobe nvidia-peermem")] | any | not) and
	([.fix_details[] | select(.kind=="note") | .text | test("Do not `modprobe nvidia-peermem`")] | any)'

check watch_starts mrt_start watch
expect stock ".evidence.peer_memory==\"unsupported\" and .evidence.dmabuf==\"$first\" and
	(.evidence.dmabuf_blocked | index(\"nic_driver\") != null) and
	(.evidence.gpu.nics[] | select(.name==\"rxe0\") | .driver==\"rdma_rxe\" and .dmabuf==false) and
	.evidence.gpu.peer_memory_api==false and .evidence.gpu.memory_peers==null and
	.fix_details[0].kind==\"primary\" and (.fix_details[0].text | test(\"dma-buf\") and test(\"rxe0\")) and
	$NO_PEERMEM and ([.fix_details[] | select(.kind==\"alternative\") | .text | test(\"MLNX_OFED or DOCA-OFED\")] | any) and
	(.explanation | test(\"no peer-memory API\"))" \
	-- --mem vvar

expect chain '.evidence.gpu.dmabuf_probe.errno_name=="EOPNOTSUPP" and
	(.explanation | test("dma-buf probe in this process failed with EOPNOTSUPP") and test("fell back")) and
	.evidence.peer_memory=="unsupported"' \
	-- --nccl-probe --mem vvar
probe_rec=$(jq -c "select(.event==\"nccl_probe\" and .pid==$PROBE_PID)" "$MRT_OUT" | head -1)
jq_true chain_probe_harmless "$probe_rec" '.harmless==true and .cause=="dmabuf_unsupported"'
check watch_stops mrt_stop

# --- a stand-in memory_peers tree --------------------------------------------------
MRT_OUT=$CASE_OUT/peers.jsonl
spawn unshare -m sh -c 'mount -t tmpfs mrt-peers /sys/kernel/mm && mkdir /sys/kernel/mm/memory_peers &&
	exec "$0" watch --json' "$MRTRACE" > "$MRT_OUT" 2> "$MRT_OUT.err"
MRT_PID=$!
check peers_watch_starts wait_for_line "$MRT_OUT" '"event":"start"' 120
expect noclient '.evidence.peer_memory=="no_client" and .evidence.gpu.memory_peers==[] and
	.fix_details[0].kind=="primary" and (.fix_details[0].text | test("modprobe nvidia-peermem"))' \
	-- --mem vvar
peers=/proc/$MRT_PID/root/sys/kernel/mm/memory_peers
mkdir "$peers/nv_mem" && echo 1.2-0 > "$peers/nv_mem/version"
expect registered '.evidence.peer_memory=="registered" and (.evidence.gpu.memory_peers | index("nv_mem") != null) and
	(.fix_details[0].text | test("nv_mem is registered but did not take this buffer"))' \
	-- --mem vvar
check peers_watch_stops mrt_stop
jq_true nothing_lost "$(grep -m1 '"event":"stop"' "$MRT_OUT")" '.drops==0'
