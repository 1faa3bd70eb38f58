# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/failures.sh - the refusals behind ncclSystemError that are not
# memory registrations, each reproduced on soft-RoCE while mrtrace watch runs
# system-wide; every assertion reads mrtrace's own "failure" records.
#   real clients where they can reach the refusal:
#     ibv_devinfo in a mount namespace without /dev/infiniband  -> device_missing
#     ibv_devinfo as nobody, node mode 0600                      -> device_permission
#     ibv_devinfo in a cgroup whose device program denies 231    -> device_cgroup
#     ibv_devinfo under rdma.max hca_handle=0                    -> rdma_cgroup_limit (open_device)
#     ibv_rc_pingpong under rdma.max hca_object=2                -> rdma_cgroup_limit (create_cq)
#     ibv_rc_pingpong -r 1000000 (its CQ beyond max_cqe)         -> hca_resource_limit
#     ibv_rc_pingpong server + client given an empty GID index:
#       RTR without a GRH on RoCE                                -> bad_gid_index
#     ibv_rc_pingpong client whose peer (tests/helpers/rc_peer) advertises a
#       GID the kernel cannot resolve at RTR:                    -> gid_unreachable
#       an IPv6 address with no route from dummy0 (ENETUNREACH),
#       an address on dummy0's subnet that nobody owns (ARP on: ETIMEDOUT)
#     fallocate(1) of 4 MiB on a 1 MiB /dev/shm                  -> shm_exhausted
#   tests/helpers/verbs_ops for attribute values no client lets one choose:
#     a CQ larger than max_cqe                                   -> hca_resource_limit
#     RTR with an empty source GID index                         -> bad_gid_index
#     RTR over a port whose link is down                         -> port_not_active
#     RESET -> RTS directly                                      -> qp_attr_invalid
#     pidfd_getfd on another user's process                      -> fd_import_denied
# (bad_pkey_index cannot be reproduced here: rxe accepts any P_Key index; it is
# proven by replay, tests/fixtures/trails.)
# vm-timeout: 480
. "$TOP/tests/vm/mrt-lib.sh"

OPS=$TOP/build/tests/helpers/verbs_ops
DEVCG=$TOP/build/tests/helpers/devcg_deny

# mark: remember where the record stream is, so the next expect only looks
# at records written after it
mark() { MARK=$(wc -l < "$MRT_OUT"); }
# failure_of COMM OP [SECONDS]: the newest failure record of that comm and op
# written since the last mark
failure_of() {
	local comm=$1 op=$2 secs=${3:-10} i r
	for i in $(seq $((secs * 5))); do
		r=$(tail -n +$((MARK + 1)) "$MRT_OUT" |
			jq -c "select(.event==\"failure\" and .op==\"$op\" and .comm==\"$comm\")" 2>/dev/null | tail -1)
		[ -n "$r" ] && { echo "$r"; return; }
		sleep 0.2
	done
}
# expect NAME COMM OP CAUSE JQ-EXTRA: the record's cause, and its evidence
expect() {
	local name=$1 comm=$2 op=$3 cause=$4 extra=$5 ev
	ev=$(failure_of "$comm" "$op")
	jq_true "${name}_cause" "$ev" ".cause==\"$cause\" and (.fixes|length)>0 and (.summary|length)>0"
	[ -n "$extra" ] && jq_true "${name}_evidence" "$ev" "$extra"
	# keep the record as a replay fixture candidate
	[ -n "$ev" ] && printf '%s\n' "$ev" > "$CASE_OUT/$cause.$name.json"
	return 0
}

# after_fact NAME FILE CAUSE [lead [JQ]]: README's "The job already died" on the
# same node: `explain` reads only what a user has, the client's own output
# FILE and the kernel log (dmesg), after the fact, with this node's facts
# (--host: the clients' output names no host, and is judged alone without);
# the cause watch proved must be among the candidates inferred for FILE's
# line, and with "lead" lead them (decided by the node's facts where the
# line carries no errno).  Run while the refusing state (the rdma cgroup,
# the GID table) is still in place.
after_fact() {
	local name=$1 file=$2 cause=$3 lead=$4 extra=${5:-true} inf
	dmesg > "$CASE_OUT/$name.dmesg" 2>&1
	"$MRTRACE" explain --json --setting shell --host "$(hostname)" "$file" "$CASE_OUT/$name.dmesg" \
		> "$CASE_OUT/$name.inferred.jsonl" 2> "$CASE_OUT/$name.inferred.err"
	inf=$(jq -c --arg f "$file" 'select(.event=="inferred_failure" and .source.file==$f)' \
		"$CASE_OUT/$name.inferred.jsonl" 2>/dev/null | head -1)
	if [ "$lead" = lead ]; then
		jq_true "${name}_after_the_fact_leads" "$inf" ".certainty==\"inferred\" and .cause==\"$cause\" and $extra"
	else
		jq_true "${name}_after_the_fact_candidate" "$inf" \
			".certainty==\"inferred\" and ([.candidates[].cause] | index(\"$cause\") != null)"
	fi
}

check watch_starts mrt_start watch
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
for site in modify_qp create_cq create_qp get_context shm_fallocate pidfd_getfd libibverbs; do
	jq_true "${site}_armed" "$start" ".sites[] | select(.site==\"$site\") | .armed"
done

# --- the device node ---------------------------------------------------------
mark
unshare -m sh -c 'mount -t tmpfs none /dev/infiniband && exec ibv_devinfo' > "$CASE_OUT/missing.out" 2>&1
note "missing: $(tr '\n' ' ' < "$CASE_OUT/missing.out")"
expect missing ibv_devinfo open_device device_missing \
	'.class=="environment" and .certainty=="proven" and .evidence.gates.node=="/dev/infiniband/uverbs0" and (.summary|test("listed no device"))'
after_fact missing "$CASE_OUT/missing.out" device_missing

chmod 600 /dev/infiniband/uverbs0
mark
as_nobody ibv_devinfo -d rxe0 > "$CASE_OUT/perm.out" 2>&1
# the guest's /dev has no /dev/char (no udev), as a container's: rdma-core's
# fallback turns the refusal into ENOENT, and the record says why.  (In
# this namespace, not a private one: ibv_devinfo is gone before watch reads
# the node, and a gone process's node is read only in a /dev we share.)
read -r maj min < <(stat -c '%t %T' /dev/infiniband/uverbs0)
alias=/dev/char/$((16#$maj)):$((16#$min))
if [ -e "$alias" ]; then
	ALIAS_JQ='.evidence.gates.char_alias_exists==true and (.summary|test("ENOENT")|not)'
else
	ALIAS_JQ='.evidence.gates.char_alias_exists==false and (.summary|test("tried '"$alias"', absent here, and reported ENOENT"))'
fi
note "perm: $(tr '\n' ' ' < "$CASE_OUT/perm.out")"
chmod 666 /dev/infiniband/uverbs0
expect perm ibv_devinfo open_device device_permission \
	'.evidence.gates.node_mode=="0600" and .evidence.gates.mode_allows_rw==false and .uid==65534 and '"$ALIAS_JQ"
after_fact perm "$CASE_OUT/perm.out" device_permission

mkdir -p /sys/fs/cgroup/mrt-devcg
# prlimit: before 5.11 a BPF program is charged to RLIMIT_MEMLOCK of its
# user, and root's locked_vm already holds the running watch's maps (EPERM)
if prlimit --memlock=unlimited:unlimited "$DEVCG" /sys/fs/cgroup/mrt-devcg; then
	mark
	sh -c 'echo $$ > /sys/fs/cgroup/mrt-devcg/cgroup.procs && exec ibv_devinfo -d rxe0' > "$CASE_OUT/devcg.out" 2>&1
	note "devcg: $(tr '\n' ' ' < "$CASE_OUT/devcg.out")"
	expect devcg ibv_devinfo open_device device_cgroup \
		'.evidence.gates.device_cgroup=="bpf_program" and .evidence.gates.mode_allows_rw==true'
	after_fact devcg "$CASE_OUT/devcg.out" device_cgroup
else
	_vm_line "FAIL $CASE:devcg_setup (cannot attach a device program)"
fi

# --- rdma cgroup limits on verbs objects ------------------------------------
echo "+rdma" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p /sys/fs/cgroup/mrt-rdma
echo "rxe0 hca_handle=0 hca_object=max" > /sys/fs/cgroup/mrt-rdma/rdma.max
mark
sh -c 'echo $$ > /sys/fs/cgroup/mrt-rdma/cgroup.procs && exec ibv_devinfo -d rxe0' > "$CASE_OUT/handle.out" 2>&1
note "handle: $(tr '\n' ' ' < "$CASE_OUT/handle.out")"
expect handle ibv_devinfo open_device rdma_cgroup_limit \
	'.errno_name=="EAGAIN" and (.summary|test("hca_handle")) and (.evidence.gates.rdma_max|test("hca_handle=0"))'
after_fact handle "$CASE_OUT/handle.out" rdma_cgroup_limit lead \
	'(.rests_on | any(test("1 cgroup limits RDMA objects now, the first /mrt-rdma [(].rxe0 hca_handle=0 hca_object=max.[)]$")))'
echo "rxe0 hca_handle=max hca_object=2" > /sys/fs/cgroup/mrt-rdma/rdma.max
mark
sh -c 'echo $$ > /sys/fs/cgroup/mrt-rdma/cgroup.procs && exec timeout 10 ibv_rc_pingpong -d rxe0 -g 0' > "$CASE_OUT/object.out" 2>&1
note "object: $(tr '\n' ' ' < "$CASE_OUT/object.out")"
expect object ibv_rc_pingpong create_cq rdma_cgroup_limit \
	'.errno_name=="EAGAIN" and .certainty=="proven" and (.evidence.gates.rdma_max|test("hca_object=2"))'
after_fact object "$CASE_OUT/object.out" rdma_cgroup_limit lead \
	'(.rests_on | any(test("the first /mrt-rdma [(].rxe0 hca_handle=max hca_object=2.[)]$")))'
# no limit left behind: the explains below weigh a node without one
echo "rxe0 hca_handle=max hca_object=max" > /sys/fs/cgroup/mrt-rdma/rdma.max

# --- device maxima and QP attributes ------------------------------------------
mark
"$OPS" cq 100000000 > /dev/null
expect cqe verbs_ops create_cq hca_resource_limit \
	'.class=="infiniband" and .evidence.cqe==100000000 and .evidence.max_cqe > 0 and .evidence.max_cqe < 100000000 and .evidence.gates.device_cqs >= 0 and .evidence.gates.process_cqs >= 0 and (.summary|test("the device holds"))'
# the same refusal from a real client: ibv_rc_pingpong's CQ is rx_depth + 1
mark
timeout 10 ibv_rc_pingpong -d rxe0 -g 0 -r 1000000 > "$CASE_OUT/cqeclient.out" 2>&1
note "cqeclient: $(tr '\n' ' ' < "$CASE_OUT/cqeclient.out")"
expect cqeclient ibv_rc_pingpong create_cq hca_resource_limit \
	'.evidence.cqe==1000001 and .evidence.max_cqe > 0 and .evidence.max_cqe < 1000001'
after_fact cqeclient "$CASE_OUT/cqeclient.out" hca_resource_limit lead \
	'(.rests_on | any(test("no cgroup limits RDMA objects now")))'
mark
"$OPS" rtr 9 3 > /dev/null
expect gid verbs_ops modify_qp bad_gid_index \
	'.errno_name=="ENODATA" and .evidence.sgid_index==9 and .evidence.gates.sgid_present==false and .class=="infiniband"'
# a real client given an empty GID index finds no GID (ibv_query_gid reads
# zeros), so its RTR carries no GRH: EINVAL on RoCE, a GID problem
empty=
for i in $(seq 1 64); do
	[ "$(cat /sys/class/infiniband/rxe0/ports/1/gids/$i 2>/dev/null)" = \
	  "0000:0000:0000:0000:0000:0000:0000:0000" ] && { empty=$i; break; }
done
note "nogrh: empty GID index ${empty:-none}"
mark
timeout 20 ibv_rc_pingpong -d rxe0 -g "${empty:-63}" > "$CASE_OUT/nogrh-server.out" 2>&1 &
nogrh_srv=$!
sleep 1
timeout 20 ibv_rc_pingpong -d rxe0 -g "${empty:-63}" localhost > "$CASE_OUT/nogrh-client.out" 2>&1
wait "$nogrh_srv"
note "nogrh: $(tr '\n' ' ' < "$CASE_OUT/nogrh-client.out")"
expect nogrh ibv_rc_pingpong modify_qp bad_gid_index \
	'.errno_name=="EINVAL" and .evidence.is_global==0 and .evidence.qp_state==2 and .evidence.gates.link_layer=="Ethernet" and (.evidence.gates.gids|length)>=1 and (.evidence.gates.gids[0].type|test("RoCE")) and (.summary|test("no GRH")) and (.summary|test("found no GID at the index it was given")) and .class=="infiniband"'
note "nogrh server: $(tr '\n' ' ' < "$CASE_OUT/nogrh-server.out")"
after_fact nogrh "$CASE_OUT/nogrh-server.out" bad_gid_index lead
# --- RoCE address resolution: the real client, a peer GID the kernel cannot
# turn into a route and a neighbour ----------------------------------------------
PEER=$TOP/build/tests/helpers/rc_peer
PORTDIR=/sys/class/infiniband/rxe0/ports/1
# gid_index GID TYPE: the first index of rxe0 port 1 holding GID (sysfs form) as TYPE
gid_index() {
	local f i
	for f in "$PORTDIR"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] &&
			[ "$(cat "$PORTDIR/gid_attrs/types/$i" 2>/dev/null)" = "$2" ] && { echo "$i"; return; }
	done
}
# wait_gid GID: its RoCE v2 index once the GID cache has it (up to 10 s)
wait_gid() {
	local i x
	for i in $(seq 50); do
		x=$(gid_index "$1" "RoCE v2")
		[ -n "$x" ] && { echo "$x"; return; }
		sleep 0.2
	done
}
# unreach NAME GIDX PEERGID32: ibv_rc_pingpong -g GIDX against rc_peer
# advertising PEERGID32; the record is then expected as gid_unreachable
unreach() {
	local name=$1 gidx=$2 port=$((18600 + RANDOM % 200)) pid
	mark
	"$PEER" "$port" "$3" > "$CASE_OUT/$name-peer.out" 2>&1 &
	pid=$!
	for _ in $(seq 25); do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
	timeout 20 ibv_rc_pingpong -d rxe0 -p "$port" -g "$gidx" 127.0.0.1 > "$CASE_OUT/$name-client.out" 2>&1
	wait "$pid"
	note "$name: -g $gidx, peer $3 ($(( $(date +%s) - t0 )) s in): $(tr '\n' ' ' < "$CASE_OUT/$name-client.out")"
}
t0=$(date +%s)
# every kernel: 5.10's external BTF holds net_device and ib_gid_attr since
# 2026-12-04 (tools/btf-coverage.sh keeps it so)
{
	ND_JQ='.evidence.remote.netdev=="dummy0" and .evidence.remote.netns==.evidence.gates.host_netns'
	ll=$(cat "$PORTDIR/gids/0")
	llidx=$(gid_index "$ll" "RoCE v2")
	# 2001:db8::2: dummy0 holds only its link-local IPv6 address, no route there
	unreach noroute "${llidx:-1}" 20010db8000000000000000000000002
	expect noroute ibv_rc_pingpong modify_qp gid_unreachable \
		'.errno_name=="ENETUNREACH" and .certainty=="proven" and .class=="infiniband" and
		 .evidence.remote.ip=="2001:db8::2" and .evidence.remote.route=="none" and
		 '"$ND_JQ"' and .evidence.gates.port_active==true and (.summary|test("no route to 2001:db8::2 from dummy0")) and
		 ([.fixes[]|test("ip route get 2001:db8::2")]|any) and ([.fixes[]|test("NCCL_CROSS_NIC")]|any)'
	# 10.57.0.99 on dummy0's own subnet, owned by nobody: a dummy device does not
	# ARP (IFF_NOARP), so ARP is turned on for the neighbour to go unanswered
	ip addr add 10.57.0.1/24 dev dummy0
	ip link set dummy0 arp on
	v4idx=$(wait_gid 0000:0000:0000:0000:0000:ffff:0a39:0001)
	unreach neigh "${v4idx:-2}" 00000000000000000000ffff0a390063
	expect neigh ibv_rc_pingpong modify_qp gid_unreachable \
		'.errno_name=="ETIMEDOUT" and .evidence.remote.ip=="10.57.0.99" and .evidence.remote.route=="found" and
		 .evidence.remote.neighbour=="unanswered" and '"$ND_JQ"' and
		 (.summary|test("no neighbour answered for 10.57.0.99"))'
	ip link set dummy0 arp off
	ip addr del 10.57.0.1/24 dev dummy0
	# the GID's netdev in another network namespace: a macvlan of dummy0 (an
	# upper device, so its address is a GID of rxe0) moved into ns1 keeps its
	# GID, and the kernel resolves from that netdev in ns1 (the resolver binds
	# the lookup to the GID's netdev and its namespace). ns1 has no route to
	# 10.61.0.99, but IPv4 output bound to a device takes a destination without
	# a route as on-link, so ARP goes out of mv0 and nobody answers: ETIMEDOUT,
	# with the namespace in the evidence.  (A VLAN of dummy0 moved the same way
	# loses its GID before a client can use it: 6.12, 2026-12-03.)
	netns_setup() {
		ip link add mv0 link dummy0 type macvlan mode bridge && ip netns add mrt_ns1 &&
			ip link set mv0 netns mrt_ns1 && ip -n mrt_ns1 addr add 10.58.0.1/24 dev mv0 &&
			ip -n mrt_ns1 link set mv0 up
	}
	netns_gid() {
		nsidx=$(wait_gid 0000:0000:0000:0000:0000:ffff:0a3a:0001)
		[ -n "$nsidx" ] || { echo "10.58.0.1 on mv0 in mrt_ns1 is no GID of rxe0:" \
			"$(ip -n mrt_ns1 -br addr 2>&1)"; return 1; }
	}
	nsidx=
	if check netns_setup netns_setup && check netns_gid netns_gid; then
		unreach netns "$nsidx" 00000000000000000000ffff0a3d0063
		expect netns ibv_rc_pingpong modify_qp gid_unreachable \
			'.errno_name=="ETIMEDOUT" and .certainty=="proven" and .evidence.remote.ip=="10.61.0.99" and
			 .evidence.remote.neighbour=="unanswered" and
			 .evidence.remote.netdev=="mv0" and .evidence.remote.netns!=null and
			 .evidence.remote.netns!=.evidence.gates.host_netns and
			 (.summary|test("not the host.s")) and ([.fixes[]|test("mv0 is in network namespace")]|any)'
	fi
	ip netns del mrt_ns1 2>/dev/null
	ip link del mv0 2>/dev/null
}
note "gid_unreachable: $(( $(date +%s) - t0 )) s"
mark
"$OPS" badmask > /dev/null
expect mask verbs_ops modify_qp qp_attr_invalid '.errno_name=="EINVAL" and .evidence.qp_state==3'
mark
ip link set dummy0 down
for i in $(seq 50); do grep -q DOWN /sys/class/infiniband/rxe0/ports/1/state && break; sleep 0.1; done
"$OPS" rtr 0 3 > /dev/null
# the port comes back only once the record is in: watch reads the port's
# state when the record arrives, and a loaded host may take a while
expect port verbs_ops modify_qp port_not_active \
	'.evidence.gates.port_active==false and (.evidence.gates.port_state|test("DOWN")) and .class=="infiniband"'
ip link set dummy0 up
for i in $(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && break; sleep 0.1; done

# --- /dev/shm -------------------------------------------------------------------
mark
unshare -m sh -c 'mount -t tmpfs -o size=1M tmpfs /dev/shm && exec fallocate -l 4M /dev/shm/nccl-mrtrace' 2> "$CASE_OUT/shm.out"
note "shm: $(tr '\n' ' ' < "$CASE_OUT/shm.out")"
expect shm fallocate shm_alloc shm_exhausted \
	'.evidence.length==4194304 and .evidence.tmpfs_size_pages > 0 and .class=="environment" and
	 .evidence.gates.shm_owner=="private" and .evidence.gates.shm_dev != .evidence.gates.host_shm_dev and
	 (.summary | test("not the host.s /dev/shm")) and (.fix_details[0].text | test("--shm-size") and test("emptyDir")) and
	 ([.fixes[] | test("/etc/fstab|remount")] | any | not)'
after_fact shm "$CASE_OUT/shm.out" shm_exhausted lead

# --- fd import -------------------------------------------------------------------
sleep 30 &
victim=$!
mark
as_nobody "$OPS" getfd "$victim" 0 > /dev/null
kill "$victim" 2>/dev/null
expect getfd verbs_ops fd_import fd_import_denied \
	".errno_name==\"EPERM\" and .evidence.gates.target_pid==$victim and .evidence.gates.cap_sys_ptrace==false"

check watch_stops mrt_stop
stop=$(grep -m1 '"event":"stop"' "$MRT_OUT")
jq_true nothing_lost "$stop" '.drops==0'
