# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm/cases/modload.sh - sites follow the kernel: `mrtrace watch` is
# started before the RDMA modules load (as a boot-time service is), then
# ib_uverbs and rdma_rxe are loaded and rxe0 created. Their sites must be
# armed within seconds, said on stderr and in a modules_changed record, and
# a registration that fails afterwards must get its kernel diagnosis
# (memlock_limit with the kernel's page count, which only umem_get gives).
# Then rdma_rxe is unloaded: where its sites are armed by kprobes its going
# is noticed and they are detached; where a trampoline holds it (6.4+) the
# kernel refuses the unload while watched, which is checked as such. Watch
# keeps running and stops cleanly; afterwards nothing holds the modules.
# The guest is left as it was found: rdma_rxe, ib_uverbs, rxe0 ACTIVE.
# vm-timeout: 900
. "$TOP/tests/vm/mrt-lib.sh"

port=/sys/class/infiniband/rxe0/ports/1
rxe0_ready() {
	local _ state gid0
	for _ in $(seq 1 300); do
		state=$(cat $port/state 2>/dev/null)
		gid0=$(cat $port/gids/0 2>/dev/null)
		[[ $state == *ACTIVE* && -n $gid0 && $gid0 != 0000:0000:0000:0000:0000:0000:0000:0000 ]] &&
			ls /dev/infiniband/uverbs* > /dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "rxe0 not ready: state '$state', gid0 '$gid0'"
	return 1
}
# the RDMA modules as the case found them (mlx5_ib, loaded by an earlier
# case, also uses ib_uverbs): restored at the end
RDMA_BEFORE=$(awk '$1 ~ /^(ib_|rdma_|mlx5_)/ { print $1 }' /proc/modules)
rxe_up() {
	modprobe -a ib_uverbs rdma_rxe $RDMA_BEFORE || return 1
	[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev dummy0 || return 1
	rxe0_ready
}
# users_of MODULE: the modules that hold it (/proc/modules' fourth field)
users_of() { awk -v m="$1" '$1 == m && $4 != "-" { gsub(",", " ", $4); print $4 }' /proc/modules; }
rxe_down() {
	local _
	if [ -e /sys/class/infiniband/rxe0 ]; then rdma link del rxe0 || return 1; fi
	# a released BPF program drops its module reference after an RCU grace period
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		modprobe -r rdma_rxe $(users_of ib_uverbs) ib_uverbs 2> /dev/null && return 0
		sleep 1
	done
	modprobe -r rdma_rxe $(users_of ib_uverbs) ib_uverbs
}
# wait_count FILE REGEX N SECONDS: until N lines of FILE match
wait_count() {
	local _
	for _ in $(seq 1 $(( $4 * 5 ))); do
		[ "$(grep -Ec -- "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.2
	done
	echo "fewer than $3 lines match /$2/ in $1"
	return 1
}
loaded() { grep -q "^$1 " /proc/modules; }
# whatever happens, the next case finds soft-RoCE as the init left it
trap 'rxe_up > /dev/null 2>&1 || true' EXIT

check rxe_down_first rxe_down
check_fails uverbs_gone loaded ib_uverbs
check_fails rxe_gone loaded rdma_rxe

ts=${EPOCHREALTIME/./}
check watch_starts mrt_start watch
note "watch took $(( (${EPOCHREALTIME/./} - ts) / 1000 )) ms to start (for scale: a re-arm does the same work)"
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
jq_true reg_mr_not_armed_at_start "$start" '.sites[] | select(.site=="reg_mr") | .armed==false'
jq_true modules_site_armed "$start" '.sites[] | select(.site=="modules") | .armed and .mechanism=="tracepoint"'

# load, as `modprobe` in a late unit would; the time is from here to the line
t0=${EPOCHREALTIME/./}
check modules_load modprobe -a ib_uverbs rdma_rxe
t1=${EPOCHREALTIME/./}
check armed_line wait_for_line "$MRT_OUT.err" 'module.* loaded: armed .*reg_mr \((fentry|kprobe)\)' 120
t2=${EPOCHREALTIME/./}
note "modprobe took $(( (t1 - t0) / 1000 )) ms; reg_mr armed $(( (t2 - t1) / 1000 )) ms after it returned ($(( (t2 - t0) / 1000 )) ms after it began); lines: $(grep 'loaded:' "$MRT_OUT.err" | tr '\n' '|')"
# rdma_rxe: in the same change when it was live before the kernel was looked at, else its own
check rxe_loaded_record wait_for_line "$MRT_OUT" '"event":"modules_changed","loaded":\[[^]]*"rdma_rxe"' 120
changes=$(jq -c -s '[.[] | select(.event=="modules_changed")]' "$MRT_OUT")
jq_true record_says_uverbs_loaded "$changes" '[.[].loaded[]] | index("ib_uverbs") != null'
jq_true record_arms_rxe_reg "$changes" '[.[].armed[] | select(.site=="rxe_reg")] | length==1 and .[0].module=="rdma_rxe"'
if [ "$(echo "$start" | jq -r '.sites[] | select(.site=="umem_get") | .armed')" = true ]; then
	# 7.x: the pinning entry lives in ib_core, which stayed loaded: armed
	# from the start, so no syscall tracepoint was needed and none goes
	jq_true umem_get_armed_from_start "$start" '.sites[] | select(.site=="umem_get") | .module=="ib_core"'
	jq_true record_keeps_umem_get "$changes" '[.[].armed[], .[].detached[] | select(.site=="umem_get")] | length==0'
	jq_true start_without_syscalls "$start" '.sites[] | select(.site=="sys_mlock") | .armed==false'
else
	jq_true record_arms_umem_get "$changes" '[.[].armed[] | select(.site=="umem_get")] | length==1 and .[0].module=="ib_uverbs" and .[0].mechanism!="none"'
	# --syscalls=auto armed the syscall tracepoints for want of a registration site: now they go
	jq_true start_had_syscalls "$start" '.sites[] | select(.site=="sys_mlock") | .armed'
	jq_true record_detaches_syscalls "$changes" '[.[].detached[] | select(.site=="sys_mlock" and .mechanism=="tracepoint")] | length==1'
fi
jq_true record_detaches_only_syscalls "$changes" '[.[].detached[] | select(.site|startswith("sys_")|not)] | length==0'
note "changes: $(echo "$changes" | jq -c '[.[] | {loaded, armed: (.armed|length), armed_sites, rearm_s, facts_s}]')"
check rxe0_up sh -c 'rdma link add rxe0 type rxe netdev dummy0'
check rxe0_active rxe0_ready

# a registration refused after the load: the kernel's own evidence
M16=$((16 << 20))
P16=$((M16 / $(getconf PAGESIZE)))
probe late64k with_memlock 65536 as_nobody -- --size 16M --mem malloc
check late64k_probe_failed test "$PROBE_RC" = 1
check late64k_reported mrt_wait_event "$PROBE_PID" 60
ev=$(mrt_event "$PROBE_PID")
jq_true late64k_cause "$ev" '.cause=="memlock_limit" and .errno==12'
jq_true late64k_kernel_numbers "$ev" ".evidence.memlock_limit_bytes==65536 and .evidence.requested_pages==$((P16 + 1))"

# unload rdma_rxe while watched
check rxe0_del rdma link del rxe0
if modprobe -r rdma_rxe 2> "$CASE_OUT/unload.err"; then
	check unload_line wait_for_line "$MRT_OUT.err" 'module.*rdma_rxe.* unloaded: detached .*rxe_reg' 60
	# modprobe -r also removes what only rdma_rxe used (ib_uverbs on 5.10)
	check unload_record wait_for_line "$MRT_OUT" '"event":"modules_changed".*"unloaded":\[[^]]*"rdma_rxe".*"site":"rxe_reg"' 30
	gone=$(jq -r -s '[.[] | select(.event=="modules_changed") | .unloaded[]] | join(" ")' "$MRT_OUT")
	unloaded_really() { for m in $gone; do grep -q "^$m " /proc/modules && return 1; done; [ -n "$gone" ]; }
	check unloaded_are_gone unloaded_really
	check reload_rearms modprobe rdma_rxe
	check reload_line wait_count "$MRT_OUT.err" 'module.*rdma_rxe.* loaded: armed .*rxe_reg' 2 120
else
	# 6.4+: a trampoline takes a reference on the module it is attached to
	held() {
		[ "$(cat /sys/module/rdma_rxe/refcnt)" -gt 0 ] &&
			jq -e -s '[.[] | select(.event=="modules_changed") | .armed[] | select(.site=="rxe_reg" and .mechanism=="fentry")] | length==1' "$MRT_OUT" > /dev/null
	}
	check unload_refused_by_trampoline held
	skip_check unload_detaches "rxe_reg is armed by fexit, which holds rdma_rxe while watched (kernel 6.4+): $(head -c 120 "$CASE_OUT/unload.err")"
fi
check watch_still_running _vm_alive "$MRT_PID"

check watch_stops mrt_stop
stop=$(grep -m1 '"event":"stop"' "$MRT_OUT")
jq_true stop_counts "$stop" '.drops==0 and .reported>=1 and .failures_seen>=1'
# the links are gone with watch: nothing holds the modules any more
check unload_after_stop rxe_down
check restore rxe_up
