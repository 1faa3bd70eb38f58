# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/mrprobe.sh - mrprobe against soft-RoCE rxe0: every failure
# path it exists to reproduce must come back with the errno docs/design.md
# section 2 predicts, read from mrprobe's JSON, not from its text.
# Sourced by tests/vm/suite.sh with guest-lib.sh loaded:
#     tests/vm/suite.sh 6.12 mrprobe
# vm-timeout: 420

P=${MRPROBE:-$TOP/build/mrprobe}
D=${CASE_OUT:-$VM_OUT/mrprobe}
mkdir -p "$D"
M="$P -d rxe0 --json"   # word-split on purpose below
# The guest's page size (4 KiB on x86, 16 KiB on arm64's -16k kernels): the
# page counts below are computed from it, as $page and p16 in jq.
PAGE=$(getconf PAGESIZE)
P16=$(((16 << 20) / PAGE))

# jq helpers over the slurped JSON lines of one run; p16: pages in 16 MiB.
JQDEFS='def mr($i): map(select(.event == "mr" and .index == $i))[0];
	def ev($e): map(select(.event == $e))[0];
	def p16: 16777216 / $page;'

# expect NAME RC JQ CMD...: run CMD; pass if it exits RC and the jq
# expression JQ (with mr(i) and ev(name)) holds for its output. The output
# is printed, so a failed check shows what mrprobe said.
expect() {
	local name=$1 want=$2 expr=$3 rc
	shift 3
	"$@" > "$D/$name.json" 2> "$D/$name.err"
	rc=$?
	cat "$D/$name.err" "$D/$name.json"
	if [ "$rc" != "$want" ]; then
		echo "exit status $rc, expected $want"
		return 1
	fi
	jq -e -s --argjson page "$PAGE" "$JQDEFS $expr" "$D/$name.json" > /dev/null || {
		echo "not true of the output: $expr"
		return 1
	}
}


# ---- success as root, with NCCL's call and flags ---------------------------
check root_registers expect root_registers 0 \
	'mr(0).result == "OK" and mr(0).pages == p16 and mr(0).api == "ibv_reg_mr_iova2"
	 and mr(0).access == 7 and mr(0).cumulative_bytes == 16777216
	 and ev("summary").ok == 1' \
	$M
check reg_mr_api expect reg_mr_api 0 'mr(0).api == "ibv_reg_mr" and mr(0).result == "OK"' \
	$M --api reg_mr
check remote_atomic expect remote_atomic 0 'mr(0).access == 15 and mr(0).result == "OK"' \
	$M --remote-atomic
check thread_registers expect thread_registers 0 \
	'ev("setup").thread and mr(0).result == "OK" and mr(0).tid != mr(0).pid' \
	$M --thread

# ---- memlock: ENOMEM, EPERM, the CAP_IPC_LOCK bypass ------------------------
# The harness's wrappers (prlimit + setpriv) and mrprobe's own flags must
# agree.
check nobody_64k_ENOMEM expect nobody_64k_ENOMEM 1 \
	'mr(0).errno_name == "ENOMEM" and mr(0).errno == 12 and mr(0).result == "FAIL"
	 and ev("setup").uid != 0 and ev("setup").memlock_limit_bytes == 65536
	 and ev("summary").exit_status == 1' \
	with_memlock 65536 as_nobody $M --size 16M
check own_flags_nobody_64k_ENOMEM expect own_flags_nobody_64k_ENOMEM 1 \
	'mr(0).errno_name == "ENOMEM" and ev("setup").uid == 65534
	 and ev("setup").memlock_limit_bytes == 65536 and (ev("setup").cap_ipc_lock | not)' \
	$M --memlock 64K --as-nobody
check root_cap_ipc_lock_bypasses_limit expect root_cap_ipc_lock_bypasses_limit 0 \
	'mr(0).result == "OK" and ev("setup").cap_ipc_lock and ev("setup").memlock_limit_bytes == 65536' \
	$M --memlock 64K
check drop_ipc_lock_ENOMEM expect drop_ipc_lock_ENOMEM 1 \
	'mr(0).errno_name == "ENOMEM" and ev("setup").uid == 0 and (ev("setup").cap_ipc_lock | not)' \
	$M --memlock 64K --drop-ipc-lock
check limit_0_EPERM expect limit_0_EPERM 1 'mr(0).errno_name == "EPERM"' \
	$M --memlock 0 --as-nobody
# A rootless container: CAP_IPC_LOCK held in a user namespace does not
# count, capable() asks the initial namespace.
check userns_cap_ipc_lock_ENOMEM expect userns_cap_ipc_lock_ENOMEM 1 \
	'mr(0).errno_name == "ENOMEM" and ev("setup").cap_ipc_lock and ev("setup").user_namespace' \
	unshare --user --map-root-user $M --memlock 64K
# 3 x 16 MiB under 40 MiB: pinned_vm accumulates over live MRs.
check cumulative_third_ENOMEM expect cumulative_third_ENOMEM 1 \
	'mr(0).result == "OK" and mr(1).result == "OK" and mr(1).cumulative_bytes == 33554432
	 and mr(1).vmpin_bytes == 33554432 and mr(2).errno_name == "ENOMEM"
	 and ev("summary").first_fail_index == 2' \
	$M --memlock 40M --as-nobody --count 3
# malloc's unaligned start costs a page: 4097 pages (p16 + 1) do not fit in 16 MiB.
check malloc_pins_4097_pages expect malloc_pins_4097_pages 0 \
	'mr(0).pages == p16 + 1 and (mr(0).addr % $page) != 0 and mr(0).result == "OK"' \
	$M --mem malloc --size 16M
check malloc_16m_over_16m_ENOMEM expect malloc_16m_over_16m_ENOMEM 1 \
	'mr(0).pages == p16 + 1 and mr(0).errno_name == "ENOMEM"' \
	$M --mem malloc --size 16M --memlock 16M --as-nobody
check anon_16m_fits_16m expect anon_16m_fits_16m 0 'mr(0).pages == p16 and mr(0).result == "OK"' \
	$M --size 16M --memlock 16M --as-nobody

# --find-max under 40 MiB: the answer plus what was already pinned must be
# 40 MiB to the page.
check find_max_40m expect find_max_40m 0 \
	'ev("find_max") as $f | $f.fail_errno_name == "ENOMEM" and ($f.hit_cap | not)
	 and (41943040 - $f.max_bytes - $f.pinned_before_bytes) >= 0
	 and (41943040 - $f.max_bytes - $f.pinned_before_bytes) < $page' \
	with_memlock 41943040 as_nobody $M --find-max
note "find-max under 40 MiB: $(jq -r 'select(.event == "find_max") |
	"max \(.max_bytes) B (\(.max_pages) pages) + \(.pinned_before_bytes) B already pinned = \(.total_bytes) B of \(.memlock_limit_bytes) B, next fails \(.fail_errno_name), \(.trials) trials"' \
	"$D/find_max_40m.json" 2>/dev/null)"

# ---- NCCL's layout ------------------------------------------------------------
# 2 channels x (send + recv) x (512 KiB + 4,915,200 B + 4 MiB) = 38,535,168 B.
check nccl_2ch_fits_64m expect nccl_2ch_fits_64m 0 \
	'ev("summary").ok == 12 and ev("summary").cumulative_bytes == 38535168
	 and mr(0).label == "ch0 peer0 send LL" and mr(1).len == 4915200' \
	with_memlock 67108864 as_nobody $M --nccl-channels 2
# Under 16 MiB the second connection's Simple buffer is the one that fails.
check nccl_2ch_over_16m_ENOMEM expect nccl_2ch_over_16m_ENOMEM 1 \
	'ev("summary").first_fail_index == 5 and mr(4).cumulative_bytes == 15073280
	 and mr(5).errno_name == "ENOMEM" and ev("summary").stopped_early' \
	with_memlock 16777216 as_nobody $M --nccl-channels 2

# ---- page pinning: EFAULT -----------------------------------------------------
check vvar_EFAULT expect vvar_EFAULT 1 'mr(0).errno_name == "EFAULT" and mr(0).len <= 65536' \
	$M --mem vvar
check unmapped_EFAULT expect unmapped_EFAULT 1 'mr(0).errno_name == "EFAULT"' $M --mem unmapped
check prot_none_EFAULT expect prot_none_EFAULT 1 'mr(0).errno_name == "EFAULT"' $M --mem prot-none
check readonly_EFAULT expect readonly_EFAULT 1 'mr(0).errno_name == "EFAULT"' $M --mem readonly
# An empty hugetlb pool: mmap itself would fail, so mrprobe maps with
# MAP_NORESERVE (and says so) and the fault fails inside pin_user_pages.
echo 0 > /proc/sys/vm/nr_hugepages
check hugetlb_empty_pool_EFAULT expect hugetlb_empty_pool_EFAULT 1 \
	'(ev("note").text | test("MAP_NORESERVE")) and mr(0).errno_name == "EFAULT"' \
	$M --mem hugetlb --size 4M
if echo 4 > /proc/sys/vm/nr_hugepages && [ "$(cat /proc/sys/vm/nr_hugepages)" = 4 ]; then
	check hugetlb_pool_registers expect hugetlb_pool_registers 0 \
		'mr(0).result == "OK" and ev("note") == null' $M --mem hugetlb --size 8M
	echo 0 > /proc/sys/vm/nr_hugepages
else
	note "could not reserve 4 huge pages: hugetlb success path not checked"
fi

# ---- bad arguments the kernel refuses: EINVAL ---------------------------------
check remote_write_alone_EINVAL expect remote_write_alone_EINVAL 1 \
	'mr(0).errno_name == "EINVAL" and mr(0).access == 2' $M --access remote-write
check iova_page_offset_EINVAL expect iova_page_offset_EINVAL 1 \
	'mr(0).errno_name == "EINVAL" and (mr(0).iova - mr(0).addr) == 16' $M --iova-offset 16
check iova_whole_page_shift_ok expect iova_whole_page_shift_ok 0 'mr(0).result == "OK"' \
	$M --iova-offset "$PAGE"

# ---- dma-buf: rxe has no reg_user_mr_dmabuf ----------------------------------
# NCCL's init probe ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0); NCCL takes
# EOPNOTSUPP as "no dma-buf here".
check dmabuf_probe_EOPNOTSUPP expect dmabuf_probe_EOPNOTSUPP 1 \
	'mr(0).api == "ibv_reg_dmabuf_mr" and mr(0).len == 0 and mr(0).access == 0
	 and mr(0).dmabuf_fd == -1 and mr(0).errno_name == "EOPNOTSUPP"' \
	$M --dmabuf-fd -1
modprobe udmabuf 2>/dev/null
if [ -c /dev/udmabuf ]; then
	check udmabuf_EOPNOTSUPP expect udmabuf_EOPNOTSUPP 1 \
		'mr(0).dmabuf_fd >= 0 and mr(0).errno_name == "EOPNOTSUPP"' $M --mem udmabuf
else
	skip_check udmabuf_EOPNOTSUPP "no /dev/udmabuf on $(uname -r) (CONFIG_UDMABUF off)"
fi

# ---- setup failures: exit 2 with one sentence ---------------------------------
check no_such_device_exit_2 expect no_such_device_exit_2 2 \
	'ev("error").stage == "device" and (ev("error").message | test("rxe0"))' $P -d nosuch --json
gpu_without_driver() {
	expect gpu_without_driver 2 'ev("error").stage == "gpu"' $M --gpu &&
		grep -q 'libcuda.so.1' "$D/gpu_without_driver.err"
}
check gpu_without_driver gpu_without_driver

# ---- text output and --hold as an outside observer sees them ------------------
text_output() {
	with_memlock 65536 as_nobody $P -d rxe0 > "$D/text.txt" 2>&1
	local rc=$?
	cat "$D/text.txt"
	[ $rc = 1 ] &&
		grep -q "^#0 .*($P16 pages).*FAIL ENOMEM (12) Cannot allocate memory" "$D/text.txt" &&
		grep -q '^summary: 0 of 1 registrations OK, 1 failed (first: #0 ENOMEM)' "$D/text.txt"
}
check text_output text_output
text_cumulative() {
	$P -d rxe0 --memlock 40M --as-nobody --count 3 > "$D/text-cumulative.txt" 2>&1
	local rc=$?
	cat "$D/text-cumulative.txt"
	[ $rc = 1 ] &&
		grep -q '^#1 .*cumulative 32 MiB .*OK' "$D/text-cumulative.txt" &&
		grep -q '^#2 .*FAIL ENOMEM (12)' "$D/text-cumulative.txt" &&
		grep -q '^summary: 2 of 3 registrations OK, 1 failed (first: #2 ENOMEM)' "$D/text-cumulative.txt"
}
check text_cumulative text_cumulative
hold_visible() {
	local log=$D/hold.json pid rc vmpin
	spawn $M --count 2 --hold 120 > "$log" 2>&1
	pid=$!
	wait_for_line "$log" '"event":"hold"' 60 || { kill -KILL $pid; return 1; }
	vmpin=$(awk '/^VmPin:/ { print $2 }' "/proc/$pid/status")
	echo "VmPin of $pid while it holds 2 x 16 MiB: $vmpin kB"
	stop_pid "$pid" 10 || return 1
	wait "$pid"
	rc=$?
	echo "exit status after SIGINT: $rc"
	[ "$vmpin" = 32768 ] && [ $rc = 0 ]
}
check hold_pins_visible_from_outside hold_visible
