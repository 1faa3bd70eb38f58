# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm/cases/hello.sh - sanity of the VM itself, before any mrtrace case
# depends on it: the kernel asked for, the host root at the same paths and
# writable, results reaching the host, soft-RoCE usable from user space, and
# the guest-lib wrappers doing what they claim. Sourced by the suite runner
# with guest-lib.sh loaded: tests/vm/suite.sh 6.12 hello

note "kernel $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB, up $(cut -d' ' -f1 /proc/uptime)s"

# VM_KERNEL is what was asked for (6.12, newest, a package), VM_KVER what
# tools/fetch-kernel.sh resolved it to.
kernel_is_requested() {
	local r
	r=$(uname -r)
	[ "$r" = "${VM_KVER:-$r}" ] || { echo "uname -r $r, fetched $VM_KVER"; return 1; }
	case $VM_KERNEL in
	[0-9]*) case $r in "$VM_KERNEL".*) ;; *) echo "uname -r $r, wanted $VM_KERNEL"; return 1 ;; esac ;;
	esac
}
check kernel "kernel_is_requested"

# Same paths as the host: this very file, read through the 9p root.
check host_root_same_paths test -f "$TOP/tests/vm/cases/hello.sh"
root_writable() { echo x > /etc/vm-hello-probe && rm /etc/vm-hello-probe; }
check root_writable_overlay root_writable
out_reaches_host() { echo "written in the guest by $CASE" > "$CASE_OUT/probe.txt"; }
check out_writable out_reaches_host

# Soft-RoCE as run.sh promises it, and usable through libibverbs.
check rxe0_active sh -c 'rdma link show rxe0/1 | grep -q "state ACTIVE"'
check uverbs_device test -c /dev/infiniband/uverbs0
check ibv_devinfo sh -c 'ibv_devinfo -d rxe0 | grep -q PORT_ACTIVE'
# 'dummy' was never modprobed: loaded means request_module works after
# switch_root.
check module_autoload grep -q '^dummy ' /proc/modules
check lo_up sh -c 'ip -o link show lo | grep -q "[<,]UP[,>]"'
check tracefs test -e /sys/kernel/tracing/available_events
check bpffs sh -c 'mount | grep -q " /sys/fs/bpf type bpf"'
# switch_root, not chroot: the kernel gives chrooted processes no new user
# namespace, and rootless containers are among the scenarios.
check user_namespace unshare --user --map-root-user true

# The privilege wrappers.
is_nobody() { [ "$(as_nobody id -un)" = nobody ]; }
check as_nobody is_nobody
capeff_has_ipc_lock() { local eff; eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status); (( (0x$eff >> 14) & 1 )); }
export -f capeff_has_ipc_lock
check root_has_ipc_lock capeff_has_ipc_lock
check_fails no_ipc_lock_drops_it no_ipc_lock capeff_has_ipc_lock
memlock_is_64k() { [ "$(with_memlock 65536 sh -c 'ulimit -l')" = 64 ]; }
check with_memlock memlock_is_64k
# The order that works: raise the limit as root, then drop to nobody.
nobody_with_128k() { [ "$(with_memlock 131072 as_nobody sh -c 'id -un; ulimit -l' | tr '\n' ' ')" = "nobody 128 " ]; }
check with_memlock_as_nobody nobody_with_128k

# wait_for_line + stop_pid on a background program without a SIGINT
# handler of its own: spawn must have given SIGINT back its default.
log=$(mktemp)
spawn sh -c 'echo ready; exec sleep 600' > "$log" 2>&1
pid=$!
check wait_for_line wait_for_line "$log" '^ready$' 30
check stop_pid_sigint stop_pid "$pid" 10
rm -f "$log"
