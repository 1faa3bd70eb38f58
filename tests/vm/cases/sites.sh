# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/sites.sh - the non-memlock failure sites on a real kernel:
# each registration below fails for a different kernel reason, and mrtrace's
# JSON must name that reason (cause) with the kernel's own evidence.
#   [vvar] page (VM_IO|VM_PFNMAP, stands in for GPU BAR memory) -> pin_device_memory
#   an address range just unmapped                               -> pin_fault
#   a PROT_NONE mapping                                          -> pin_fault
#   hugetlb mapping with an empty pool                           -> pin_hugetlb
#   REMOTE_WRITE without LOCAL_WRITE                             -> bad_access_flags
#   iova with another page offset than the address               -> iova_misaligned
#   dma-buf MR on soft-RoCE (udmabuf fd)                         -> dmabuf_unsupported
#   rdma cgroup hca_object limit                                 -> rdma_cgroup_limit
#   perftest's ib_write_bw --mmap of a file on ext4 -o dax        -> pin_fsdax
# The pinning causes are read at ib_umem_get's failed exit by default; a
# second watch with --hot-sites arms the hot functions themselves.
# vm-timeout: 300
. "$TOP/tests/vm/mrt-lib.sh"

check watch_starts mrt_start watch
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
jq_true uverbs_ioctl_armed "$start" '.sites[] | select(.site=="uverbs_ioctl") | .armed'
# by default the pinning causes are read at ib_umem_get (the VMAs of a
# failed range), not at pin_user_pages_fast, which every O_DIRECT read runs
jq_true pin_armed "$start" '.sites[] | select(.site=="pin") | .armed and (.function|test("umem_get"))'
jq_true gup_only_when_needed "$start" '.sites[] | select(.site=="pin_gup") | (.armed|not) and (.note|test("not needed"))'
if kernel_older_than 5.12; then
	skip_check dmabuf_get_armed "no ib_umem_dmabuf_get (dma-buf MRs) before 5.12 on $(uname -r)"
else
	jq_true dmabuf_get_armed "$start" '.sites[] | select(.site=="dmabuf_get") | .armed'
fi
# the hot functions (page migration, DMA map, IOVA, the exporter's dma-buf
# calls) are off unless asked: --hot-sites below
for site in migrate iova dma_map dmabuf_attach dmabuf_pin dmabuf_map; do
	jq_true "${site}_off_by_default" "$start" ".sites[] | select(.site==\"$site\") | (.armed|not) and (.note|test(\"off by default: .*--hot-sites arms it\"))"
done

expect() { # expect NAME CAUSE ERRNO_NAME JQ-EXTRA -- MRPROBE-ARGS
	local name=$1 cause=$2 en=$3 extra=$4
	shift 4
	probe "$name" "$@"
	mrt_wait_event "$PROBE_PID" || { _vm_line "FAIL $CASE:${name}_reported (no event for pid $PROBE_PID)"; return; }
	local ev
	ev=$(mrt_event "$PROBE_PID" | head -1)
	jq_true "${name}_cause" "$ev" ".cause==\"$cause\" and .errno_name==\"$en\" and .certainty==\"proven\""
	[ -n "$extra" ] && jq_true "${name}_evidence" "$ev" "$extra"
}

# VM_IO 0x4000 | VM_PFNMAP 0x400
expect vvar pin_device_memory EFAULT \
	'(.evidence.vm_flags | . as $f | ($f % 32768) >= 16384 or ($f % 2048) >= 1024) and .evidence.decisive_site=="pin_user_pages" and (.fixes|tostring|test("peermem")) and .evidence.peer_memory=="unsupported" and (.fix_details[0].text|test("dma-buf"))' \
	-- --mem vvar
expect unmapped pin_fault EFAULT '.evidence.vma_present==false and (.summary|test("no mapping"))' \
	-- --mem unmapped --size 64K
expect protnone pin_fault EFAULT '.evidence.vma_present==true and (.summary|test("PROT_NONE"))' \
	-- --mem prot-none --size 64K
echo 0 > /proc/sys/vm/nr_hugepages
expect hugetlb pin_hugetlb EFAULT '(.evidence.vm_flags / 4194304 | floor) % 2 == 1' \
	-- --mem hugetlb --size 4M
expect access bad_access_flags EINVAL '.evidence.cmd_access==2 and (.summary|test("LOCAL_WRITE"))' \
	-- --access remote-write --size 64K
expect iova iova_misaligned EINVAL '(.evidence.cmd_iova - .evidence.cmd_start) == 16' \
	-- --api iova2 --iova-offset 16 --size 64K
modprobe udmabuf 2>/dev/null
if [ -c /dev/udmabuf ]; then
	# rxe's provider has no dma-buf support: libibverbs refuses before the
	# kernel, so only the libibverbs uprobes can see this one
	expect dmabuf dmabuf_unsupported EOPNOTSUPP '.api=="ibv_reg_dmabuf_mr" and .user_call.reached_kernel==false' \
		-- --api dmabuf --mem udmabuf --size 64K
	ev=$(mrt_event "$PROBE_PID" | head -1)
	jq_true dmabuf_attrs "$ev" ".evidence.dmabuf_fd >= 0 and .evidence.dmabuf_length == 65536 and .harmless == false"
else
	skip_check dmabuf "no /dev/udmabuf on $(uname -r) (CONFIG_UDMABUF off): dma-buf on rxe checked with fd -1 only"
fi

# NCCL's init probe: ibv_reg_dmabuf_mr(pd, 0, 0, 0, fd=-1, 0).  NCCL expects
# EBADF (supported) or EOPNOTSUPP (not): mrtrace reports it as a harmless
# probe, not as a failure, and hides it from text output.
probe ncclprobe -- --api dmabuf --dmabuf-fd -1 --size 0
check ncclprobe_reported mrt_wait_event "$PROBE_PID"
ev=$(mrt_event "$PROBE_PID" | head -1)
jq_true ncclprobe_harmless "$ev" '.event=="nccl_probe" and .harmless==true and .evidence.dmabuf_fd==-1 and .evidence.dmabuf_length==0 and (.errno_name=="EOPNOTSUPP" or .errno_name=="EBADF")'

# rdma cgroup: a child cgroup allowing 1 verbs object (the PD) so the MR
# object cannot be charged.
cg=/sys/fs/cgroup/mrt-rdma
rdma_cg() {
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup || return 1
	grep -qw rdma /sys/fs/cgroup/cgroup.controllers || { echo "no rdma controller"; return 1; }
	echo +rdma > /sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p $cg && echo "rxe0 hca_handle=10 hca_object=1" > $cg/rdma.max && cat $cg/rdma.max
}
if check rdma_cgroup_setup rdma_cg; then
	in_cg() { (echo $BASHPID > $cg/cgroup.procs && exec "$@"); }
	export -f in_cg; export cg
	expect cgroup rdma_cgroup_limit EAGAIN '.evidence.decisive_site=="ib_rdmacg_try_charge" or .evidence.decisive_site=="rdma_alloc_begin_uobject"' \
		in_cg -- --size 64K
fi

# fs-dax: the boot's legacy persistent memory (memmap=, tests/vm/suite.sh)
# made an fsdax namespace (Debian's ndctl), ext4 on it mounted -o dax, and
# perftest's ib_write_bw (a real client nobody here wrote) registering a
# file mapped from there (--mmap): the kernel refuses the long-term pin of
# fs-dax pages with EOPNOTSUPP (perftest says only "Couldn't allocate MR")
fsdax_setup() {
	grep -q 'Persistent Memory (legacy)' /proc/iomem || { echo "no legacy pmem region (memmap=)"; return 1; }
	modprobe nd_e820 && modprobe nd_pmem || return 1
	for _ in $(seq 50); do [ -e /sys/bus/nd/devices/namespace0.0 ] && break; sleep 0.1; done
	ndctl create-namespace -f -e namespace0.0 -m fsdax > /dev/null || return 1
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt/dax && mount -o dax /dev/pmem0 /mnt/dax || return 1
	grep ' /mnt/dax ' /proc/self/mountinfo | grep -q 'dax' || { echo "mounted without dax"; return 1; }
	fallocate -l 16M /mnt/dax/kv.bin
}
if ! grep -q 'Persistent Memory (legacy)' /proc/iomem && [ "$(uname -m)" != x86_64 ]; then
	skip_check fsdax "no legacy pmem on $(uname -m) (memmap=nn!ss is x86's): fs-dax checked on the x86 kernels"
elif ! command -v ndctl > /dev/null || ! command -v ib_write_bw > /dev/null; then
	skip_check fsdax "ndctl or perftest not installed (tools/deps.sh all installs them)"
elif check fsdax_setup fsdax_setup; then
	timeout 60 ib_write_bw -d rxe0 --mmap=/mnt/dax/kv.bin > "$CASE_OUT/fsdax.server.txt" 2>&1 &
	srv=$!
	# its output is buffered: the listening socket (perftest's port 18515) says it waits
	for _ in $(seq 150); do ss -ltn | grep -q ':18515 ' && break; sleep 0.2; done
	timeout 30 ib_write_bw -d rxe0 127.0.0.1 > "$CASE_OUT/fsdax.client.txt" 2>&1
	wait "$srv"
	check fsdax_client_refused grep -q "Couldn't allocate MR" "$CASE_OUT/fsdax.server.txt"
	check fsdax_reported wait_for_line "$MRT_OUT" '"event":"reg_failure",.*"comm":"ib_write_bw"' 20
	ev=$(jq -c 'select(.event=="reg_failure" and .comm=="ib_write_bw")' "$MRT_OUT" | head -1)
	jq_true fsdax_cause "$ev" '.cause=="pin_fsdax" and .errno_name=="EOPNOTSUPP" and .certainty=="proven"'
	jq_true fsdax_kernel_mark "$ev" '.evidence.decisive_site=="pin_user_pages" and .evidence.vma_fsdax==true and .evidence.vma_present==true'
	# the kernel names the file (perftest exits at once: its maps are gone
	# before watch can read them, and then the path is not known)
	jq_true fsdax_file "$ev" '.raw.vma_file[2]=="kv.bin" and (.evidence.gates.vma_file | .read and .from_kernel and .name=="kv.bin" and (.path==null or .path=="/mnt/dax/kv.bin") and .mount.point=="/mnt/dax" and .mount.fstype=="ext4" and .mount.source=="/dev/pmem0" and .mount.dax)'
	jq_true fsdax_fix "$ev" '(.summary|test("kv.bin")) and (.explanation|test("ext4 mounted rw,dax")) and (.fix_details[0].text|test("devdax")) and (.fix_details[1].text|test("/mnt/dax"))'
	umount /mnt/dax
fi

check watch_stops mrt_stop

# --hot-sites: the hot functions probed themselves, as before issue 20 - the
# sites behind the replay-only causes (IOVA, DMA map, dma-buf) attach, and
# pinning is seen at pin_user_pages_fast
check hot_watch_starts mrt_start hot --hot-sites
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
jq_true hot_pin_probed "$start" '.sites[] | select(.site=="pin") | .armed and .function=="pin_user_pages_fast"'
jq_true hot_migrate_tracepoint_armed "$start" '.sites[] | select(.site=="migrate") | .armed and .mechanism=="tracepoint"'
for site in iova dma_map dmabuf_attach dmabuf_pin dmabuf_map; do
	jq_true "hot_${site}_armed" "$start" ".sites[] | select(.site==\"$site\") | .armed"
done
expect hot_vvar pin_device_memory EFAULT \
	'(.evidence.vm_flags | . as $f | ($f % 32768) >= 16384 or ($f % 2048) >= 1024) and .evidence.decisive_site=="pin_user_pages"' \
	-- --mem vvar
check hot_watch_stops mrt_stop
