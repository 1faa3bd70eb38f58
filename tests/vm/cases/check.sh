# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/check.sh - `mrtrace check` and `diff` on real sysfs: the VM's
# soft-RoCE rxe0 on dummy0.  The port verdict must follow the link: ACTIVE,
# then DOWN (and a FAIL classed as a fabric problem) after `ip link set dummy0
# down`; -p must judge a process's own limit and capabilities, including
# CAP_IPC_LOCK held only inside a user namespace; the GID NCCL will use, before
# and after dummy0 gets an IPv4 address (section 5).  dummy0 is brought back up
# at the end whatever happens: the cases after this one need rxe0 ACTIVE.
# Sourced by the suite runner: tests/vm/suite.sh 6.12 check
# vm-timeout: 300

: "${MRTRACE:?}" "${CASE_OUT:?}"

restore_link() {
	ip link set dummy0 up 2>/dev/null
	wait_port ACTIVE 20 >/dev/null 2>&1
}
trap restore_link EXIT

PORT=/sys/class/infiniband/rxe0/ports/1/state

# wait_port WORD SECS: until rxe0 port 1's sysfs state says WORD.
wait_port() {
	local want=$1 secs=$2 s
	_vm_deadline "$secs"
	while :; do
		read -r s < "$PORT"
		[[ $s == *"$want"* ]] && return 0
		if (( ${EPOCHREALTIME/./} >= _VM_DEADLINE )); then
			echo "rxe0 port 1 is '$s', not $want after ${secs}s"
			return 1
		fi
		sleep 0.2
	done
}

# jqc NAME FILE EXPR: check NAME: jq EXPR is true for the report in FILE.
jqc() { check "$1" _jqc "$2" "$3"; }
_jqc() {
	[ -s "$1" ] || { echo "no report in $1"; return 1; }
	jq -e "$2" "$1" > /dev/null && return 0
	echo "false: $2"
	jq -c '{summary, rxe0: [.rdma.devices[]? | select(.name=="rxe0")], memlock: .memlock.process,
		items: [.items[] | select(.verdict!="ok") | {id, verdict, value}]}' "$1" | cut -c1-800
	return 1
}

# run_check NAME ARGS...: mrtrace check --json ARGS into $CASE_OUT/NAME.json,
# its text form into NAME.txt; sets RC to the JSON run's exit status.
run_check() {
	local name=$1 t0=${EPOCHREALTIME/./}
	shift
	"$MRTRACE" check --json "$@" > "$CASE_OUT/$name.json" 2> "$CASE_OUT/$name.err"
	RC=$?
	"$MRTRACE" check "$@" > "$CASE_OUT/$name.txt" 2>&1
	echo "check $*: exit $RC ($(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms for both runs)"
}

# ---- 1. the port up ----------------------------------------------------------
check rxe0_active_before wait_port ACTIVE 20
run_check up
check up_exit_not_usage test "$RC" -le 1
R=$CASE_OUT/up.json
jqc up_schema "$R" '.schema=="mrtrace-check/1"'
jqc up_host "$R" ".host.kernel==\"$(uname -r)\" and (.host.hostname|length>0)"
jqc up_rxe0_found "$R" '[.rdma.devices[] | select(.name=="rxe0")] | length==1'
jqc up_port_active "$R" '.rdma.devices[] | select(.name=="rxe0") | .ports[0] |
	.state=="ACTIVE" and .state_num==4 and .phys_state=="LinkUp" and .link_layer=="Ethernet"'
jqc up_port_netdev "$R" '.rdma.devices[] | select(.name=="rxe0") | .driver=="rdma_rxe" and
	.ports[0].netdev=="dummy0" and .ports[0].gid_count>=1 and .ports[0].active_mtu>=256'
jqc up_uverbs_opens "$R" '.rdma.devices[] | select(.name=="rxe0") | .uverbs!=null and .dev_node.open=="ok"'
jqc up_port_ok "$R" '.items[] | select(.id=="rdma.rxe0.port1") | .verdict=="ok"'
# rxe has no reg_user_mr_dmabuf; the kernel's ib_uverbs has dma-buf support
if kernel_older_than 5.12; then
	skip_check up_dmabuf "no dma-buf MRs before 5.12 (UVERBS_METHOD_REG_DMABUF_MR): kernel_dmabuf cannot be true on $(uname -r)"
else
	jqc up_dmabuf "$R" '.gpudirect.nic_dmabuf.rxe0==false and .gpudirect.kernel_dmabuf==true'
fi
jqc up_no_gpu "$R" '.topology.gpus==[] and .gpudirect.gpus==0'
jqc up_memlock_defaults "$R" '.memlock.scope=="defaults" and (.memlock.this_shell.soft_bytes!=null)'
check up_text_port_ok grep -Eq '^  OK +rxe0 port 1 +ACTIVE LinkUp' "$CASE_OUT/up.txt"

# ---- 2. the port down ----------------------------------------------------------
check dummy0_down ip link set dummy0 down
check rxe0_down wait_port DOWN 20
run_check down
check down_exit_1 test "$RC" = 1
R=$CASE_OUT/down.json
jqc down_port_state "$R" '.rdma.devices[] | select(.name=="rxe0") | .ports[0] |
	.state=="DOWN" and .state_num==1 and .phys_state!="LinkUp"'
jqc down_port_fail "$R" '.items[] | select(.id=="rdma.rxe0.port1") |
	.verdict=="fail" and .class=="infiniband" and (.fix|test("dummy0"))'
jqc down_summary "$R" '.summary.verdict=="fail" and .summary.class=="infiniband"'
check down_text_verdict grep -Eq '^RESULT  FAIL  InfiniBand resource problem' "$CASE_OUT/down.txt"
check down_text_port grep -Eq '^  FAIL +rxe0 port 1 +DOWN' "$CASE_OUT/down.txt"

# diff names the change and exits 1; identical reports exit 0
"$MRTRACE" diff "$CASE_OUT/up.json" "$CASE_OUT/down.json" > "$CASE_OUT/diff.txt" 2>&1
check diff_exit_1 test $? = 1
check diff_names_port grep -q '^  rxe0 port 1 state$' "$CASE_OUT/diff.txt"
"$MRTRACE" diff "$CASE_OUT/up.json" "$CASE_OUT/up.json" > "$CASE_OUT/diff-same.txt" 2>&1
check diff_same_exit_0 test $? = 0

# ---- 3. back up ----------------------------------------------------------------
check dummy0_up ip link set dummy0 up
check rxe0_active_again wait_port ACTIVE 20
run_check again
jqc again_port_ok "$CASE_OUT/again.json" '.items[] | select(.id=="rdma.rxe0.port1") | .verdict=="ok"'

# ---- 4. -p: a process's own limit and capabilities -------------------------------
# start_target NAME WRAPPERS...: a sleeping target under the wrappers.  They
# exec (prlimit, setpriv, unshare), but each function wrapper runs in a
# `bash guest-lib.sh` of its own, so the sleep may sit a few generations
# below $!: TPID is the first descendant named sleep.
start_target() {
	local name=$1 i p c gen
	shift
	spawn "$@" sleep 600 > "$CASE_OUT/$name.target.log" 2>&1
	for i in $(seq 50); do
		gen=$!
		while [ -n "$gen" ]; do
			for p in $gen; do
				read -r c < "/proc/$p/comm" 2>/dev/null || continue
				[ "$c" = sleep ] && { TPID=$p; return 0; }
			done
			gen=$(pgrep -d ' ' -P "${gen// /,}")
		done
		sleep 0.1
	done
	echo "target $name did not reach sleep"
	cat "$CASE_OUT/$name.target.log"
	return 1
}

# root without CAP_IPC_LOCK and a 64 KiB limit: the limit applies
check target_nocap start_target nocap with_memlock 65536 no_ipc_lock
run_check pid_nocap -p "$TPID"
check pid_nocap_exit_1 test "$RC" = 1
R=$CASE_OUT/pid_nocap.json
jqc pid_nocap_limit "$R" ".target.pid==$TPID and .memlock.process.soft_bytes==65536 and
	.memlock.process.cap_ipc_lock==false"
jqc pid_nocap_fail "$R" '.items[] | select(.id=="memlock.limit") | .verdict=="fail" and .class=="environment"'
jqc pid_nocap_devnode "$R" ".rdma.dev_dir==\"/proc/$TPID/root/dev/infiniband\" and
	(.rdma.devices[] | select(.name==\"rxe0\") | .dev_node.open==\"ok\")"
stop_pid "$TPID" 5

# root with CAP_IPC_LOCK and the same limit: not enforced
check target_cap start_target cap with_memlock 65536
run_check pid_cap -p "$TPID"
jqc pid_cap_ok "$CASE_OUT/pid_cap.json" '.memlock.process.cap_ipc_lock_effective==true and
	(.items[] | select(.id=="memlock.limit") | .verdict=="ok")'
stop_pid "$TPID" 5

# "root" of a user namespace: CAP_IPC_LOCK there does not lift the limit
if unshare --user --map-root-user true 2>/dev/null; then
	check target_userns start_target userns with_memlock 65536 unshare --user --map-root-user
	run_check pid_userns -p "$TPID"
	jqc pid_userns_cap "$CASE_OUT/pid_userns.json" '.memlock.process.cap_ipc_lock==true and
		.memlock.process.in_userns==true and .memlock.process.cap_ipc_lock_effective==false'
	jqc pid_userns_fail "$CASE_OUT/pid_userns.json" '.items[] | select(.id=="memlock.limit") | .verdict=="fail"'
	jqc pid_userns_warn "$CASE_OUT/pid_userns.json" '.items[] | select(.id=="memlock.cap_ipc_lock") | .verdict=="warn"'
	stop_pid "$TPID" 5
else
	note "unshare --user not allowed here: user-namespace target skipped"
fi

# a pid that does not exist: a usage error as for watch -p (exit 2, what is
# missing on stderr), no report a caller could take for the process's
run_check pid_gone -p 999999
check pid_gone_exit test "$RC" = 2
check pid_gone_said grep -q '^mrtrace check: no process 999999$' "$CASE_OUT/pid_gone.err"
check pid_gone_no_report test ! -s "$CASE_OUT/pid_gone.json"

# ---- 5. the GID NCCL will use: an IPv4 RoCE v2 entry beside the link-local one ----
# rxe0 on dummy0 holds only the link-local GID until dummy0 has an address;
# NCCL's own selection (2.21+: the newest rules without a mapped libnccl)
# then takes the IPv4 entry, and a job pinned to index 0 is warned.
GIDS=/sys/class/infiniband/rxe0/ports/1/gids
# gid_of_v4 ADDR: the index whose GID is ::ffff:ADDR, when it appears
gid_of_v4() {
	local hex i
	hex=$(printf '%02x%02x:%02x%02x' ${1//./ })
	for i in $(seq 0 63); do
		[ "$(cat "$GIDS/$i" 2>/dev/null)" = "0000:0000:0000:0000:0000:ffff:$hex" ] && { echo "$i"; return 0; }
	done
	return 1
}
V4=10.55.0.1
restore_addr() { ip addr del "$V4/24" dev dummy0 2>/dev/null; restore_link; }
trap restore_addr EXIT
run_check gid_before
jqc gid_before_linklocal "$CASE_OUT/gid_before.json" '.fabric.ports[] | select(.device=="rxe0") |
	.nccl.how=="selected" and .nccl.index==0 and (.nccl.gid|startswith("fe80"))'
jqc gid_before_warn "$CASE_OUT/gid_before.json" '.items[] | select(.id=="fabric.rxe0.port1.gid") |
	.verdict=="warn" and (.fix|test("dummy0"))'
check gid_addr_added ip addr add "$V4/24" dev dummy0
V4IDX=
for i in $(seq 50); do V4IDX=$(gid_of_v4 "$V4") && break; sleep 0.1; done
check gid_v4_entry test -n "$V4IDX"
note "::ffff:$V4 is GID index ${V4IDX:-none}"
run_check gid_v4
jqc gid_v4_selected "$CASE_OUT/gid_v4.json" ".fabric.ports[] | select(.device==\"rxe0\") |
	.nccl.how==\"selected\" and .nccl.index==${V4IDX:-0} and .nccl.gid==\"::ffff:$V4\" and
	.nccl.type==\"RoCE v2\" and .nccl.netdev==\"dummy0\" and (.gids|map(select(.index==0 and .routable==false))|length==1)"
jqc gid_v4_ok "$CASE_OUT/gid_v4.json" ".items[] | select(.id==\"fabric.rxe0.port1.gid\") |
	.verdict==\"ok\" and (.value|test(\"index ${V4IDX:-0} ::ffff:$V4\"))"
# a job pinned to the link-local entry, with NCCL_IB_MTU above the port's MTU
check target_pinned start_target pinned env NCCL_IB_GID_INDEX=0 NCCL_IB_MTU=65536
run_check gid_pinned -p "$TPID"
jqc gid_pinned_warn "$CASE_OUT/gid_pinned.json" ".items[] | select(.id==\"fabric.rxe0.port1.gid\") |
	.verdict==\"warn\" and (.value|test(\"pinned by NCCL_IB_GID_INDEX\")) and (.value|test(\"link-local\")) and
	(.fix|test(\"NCCL_IB_GID_INDEX=${V4IDX:-0}\"))"
jqc gid_pinned_attrs "$CASE_OUT/gid_pinned.json" '.items[] | select(.id=="fabric.rxe0.port1.gid_attrs") | .verdict=="ok"'
jqc gid_pinned_mtu "$CASE_OUT/gid_pinned.json" '.items[] | select(.id=="fabric.rxe0.port1.mtu") | .verdict=="warn"'
check gid_pinned_text grep -Eq '^  WARN +rxe0 port 1 GID ' "$CASE_OUT/gid_pinned.txt"
stop_pid "$TPID" 5
ip addr del "$V4/24" dev dummy0
