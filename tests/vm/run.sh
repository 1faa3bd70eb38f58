#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/run.sh - run a script as root inside a QEMU guest booted from a
# stock Debian kernel with soft-RoCE (rxe0), and exit with its status.
# Run with --help for the contract; tests/vm/README.md has the background.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: tests/vm/run.sh [--kernel 5.10|6.1|6.12|newest] [--out HOSTDIR]
                       [--env NAME[=VALUE]]... SCRIPT [ARGS...]

Boots a stock Debian kernel (default 6.12) under QEMU/TCG and runs SCRIPT with
ARGS as root inside it. Exits with SCRIPT's exit status.

The guest:
  - sees the host's root at the same paths: read-only 9p with a tmpfs overlay,
    so it can write anywhere, but writes vanish with the VM, except in $VM_OUT
  - has rdma_rxe and ib_uverbs loaded, dummy0 up, soft-RoCE rxe0 on it (port
    ACTIVE, GID 0 present), lo up, tracefs, debugfs, bpffs and cgroup2 mounted
  - runs SCRIPT in the caller's cwd, stdin /dev/null, environment cleared
    except: VM_OUT VM_KERNEL (the --kernel value) VM_KVER (the kernel's
    uname -r) TOP PATH HOME TERM and each --env
SCRIPT is any host path (relative ones are resolved here, before boot) or a
command name found in PATH. Executable files are run directly, others with
bash.

Options:
  --kernel K       5.10 (bullseye), 6.1 (bookworm), 6.12 (default; bookworm
                   security/backports), newest (sid) or a linux-image-*
                   package name; see tools/fetch-kernel.sh --help (pins)
  --out HOSTDIR    where $VM_OUT's files land (created if missing). Default: a
                   fresh temp dir, printed at the end (in quiet mode it is
                   deleted after a success)
  --env NAME=VALUE forward a variable into the guest; --env NAME forwards the
                   caller's value. Repeatable.
  -h, --help       this text

HOSTDIR afterwards holds, besides what the script wrote to $VM_OUT:
  serial.log       the timestamped serial console (kernel, init, script)
  serial.tryN.log  the console of an early-boot failure that was retried
  script.log       SCRIPT's own stdout+stderr (merged)
  .vm-status       SCRIPT's exit status, written by the guest

Exit status: SCRIPT's status when it finished; otherwise 124 = the VM hung
(no serial output for STALL s, or TIMEOUT s overall), 125 = the VM failed
(crash, setup error, qemu error, kernel fetch error), 123 = the Debian
archive does not serve that kernel (any more; nothing booted), 2 = usage.
A boot that fails before SCRIPT starts is retried VM_RETRIES times; once
SCRIPT has started it never is.

Environment:
  MEM=2048 SMP=2       guest MiB and vCPUs
  VM_TCG_THREAD=single TCG's threading: single (default; the vCPUs take turns
                       in one host thread) or multi (a host thread per vCPU,
                       which races the kernel's text patching: "Oops: int3",
                       tests/vm/README.md). For measurements only.
  STALL=240            kill the VM after this many seconds without serial output
  TIMEOUT=900          kill the VM after this many seconds in all (per boot)
  VM_WATCHDOG          seconds without guest progress (guest-lib heartbeat or
                       script output) before the guest dumps its stacks to the
                       console, once; default min(120, STALL/2)
  VM_RETRIES=1         retries of a boot that never reached SCRIPT
  VM_QUIET=1           keep the console off the terminal (only in serial.log);
                       print only SCRIPT's output, live; harness messages go to
                       stderr and only on failure
  VM_INTERACTIVE=1     console on this terminal, SCRIPT on it with a tty (for
                       SCRIPT=bash); no stall watchdog; Ctrl-A X quits
  VM_APPEND            extra kernel command-line words
  VM_INIT=systemd      after the set-up, pid 1 execs the host's systemd and
                       SCRIPT runs as a unit of it (vm-script.service, with
                       journald; udev and timers masked): for tests of the
                       package's units (tests/vm/init, "systemd mode")
  MRTRACE_CACHE        cache dir (default /var/cache/mrtrace): kernels,
                       initramfs images. Nothing is written to the work tree.
EOF
}

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
HERE=$TOP/tests/vm
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}
MEM=${MEM:-2048}
SMP=${SMP:-2}
STALL=${STALL:-240}
TIMEOUT=${TIMEOUT:-900}
RETRIES=${VM_RETRIES:-1}
TCG_THREAD=${VM_TCG_THREAD:-single}
QUIET=${VM_QUIET:-}
[ "$QUIET" = 0 ] && QUIET=
INTERACTIVE=${VM_INTERACTIVE:-}
[ "$INTERACTIVE" = 0 ] && INTERACTIVE=
WATCHDOG=${VM_WATCHDOG:-$(( STALL / 2 < 120 ? STALL / 2 : 120 ))}
[ "$WATCHDOG" -ge 10 ] || WATCHDOG=10

# Harness messages: on stdout with the serial stream, except in quiet mode
# where stdout belongs to the script's output alone.
say() { [ -n "$QUIET" ] || echo "vm: $*"; }
warn() { echo "vm: $*" >&2; }
usage_error() { warn "$*"; warn "try --help"; exit 2; }

# ---- arguments ----
KERNEL=6.12
OUT=
ENV_ARGS=()
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--kernel) [ $# -ge 2 ] || usage_error "--kernel needs a value"; KERNEL=$2; shift 2 ;;
	--kernel=*) KERNEL=${1#*=}; shift ;;
	--out) [ $# -ge 2 ] || usage_error "--out needs a value"; OUT=$2; shift 2 ;;
	--out=*) OUT=${1#*=}; shift ;;
	--env) [ $# -ge 2 ] || usage_error "--env needs a value"; ENV_ARGS+=("$2"); shift 2 ;;
	--env=*) ENV_ARGS+=("${1#*=}"); shift ;;
	--) shift; break ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;   # SCRIPT: everything after it belongs to it
	esac
done
[ $# -ge 1 ] || usage_error "no SCRIPT given"
case $TCG_THREAD in single|multi) ;; *) usage_error "VM_TCG_THREAD must be single or multi, not '$TCG_THREAD'" ;; esac
SCRIPT=$1; shift
for n in MEM SMP STALL TIMEOUT RETRIES WATCHDOG; do
	[[ ${!n} =~ ^[0-9]+$ ]] || usage_error "$n must be a number, not '${!n}'"
done

# Resolve SCRIPT here: the guest sees the same paths, but not our cwd's
# meaning of a relative path, nor our PATH lookups.
if [[ $SCRIPT != */* && ! -e $SCRIPT ]]; then
	found=$(type -P -- "$SCRIPT") || usage_error "SCRIPT '$SCRIPT' not found (not a file, not in PATH)"
	SCRIPT=$found
fi
[ -f "$SCRIPT" ] || usage_error "SCRIPT '$SCRIPT' is not a file"
SCRIPT=$(realpath -s -- "$SCRIPT")
if [ -x "$SCRIPT" ]; then ARGV=("$SCRIPT" "$@"); else ARGV=(/bin/bash "$SCRIPT" "$@"); fi
CWD=$(pwd)

# ---- the guest's environment: a small, explicit set ----
declare -A GENV=()
GENV[PATH]=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
# modprobe, ip, rdma live in sbin: make sure a user's PATH still finds them.
for d in /usr/local/sbin /usr/sbin /sbin; do
	case ":${GENV[PATH]}:" in *":$d:"*) ;; *) GENV[PATH]+=":$d" ;; esac
done
GENV[HOME]=${HOME:-/root}
GENV[TERM]=${TERM:-dumb}
GENV[TOP]=$TOP
GENV[VM_KERNEL]=$KERNEL
for e in "${ENV_ARGS[@]}"; do
	name=${e%%=*}
	[[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || usage_error "--env '$e': bad variable name"
	[ "$name" != VM_OUT ] || usage_error "--env VM_OUT: use --out"
	if [[ $e == *=* ]]; then GENV[$name]=${e#*=}
	elif [ -n "${!name+set}" ]; then GENV[$name]=${!name}
	else usage_error "--env $name: not set in this environment"; fi
done

# ---- kernel ----
FETCH_ERR=$(mktemp)
frc=0
KDIR=$("$TOP/tools/fetch-kernel.sh" "$KERNEL" 2>"$FETCH_ERR") || frc=$?
if [ $frc != 0 ]; then
	cat "$FETCH_ERR" >&2; rm -f "$FETCH_ERR"
	[ $frc = 2 ] && usage_error "--kernel $KERNEL: not a kernel tools/fetch-kernel.sh knows"
	if [ $frc = 3 ]; then warn "kernel $KERNEL is not available from the archive; nothing booted"; exit 123; fi
	warn "cannot fetch kernel $KERNEL"; exit 125
fi
# What was fetched (apt, download, unpack) is worth a line; a cached kernel
# says nothing.
[ -s "$FETCH_ERR" ] && { [ -n "$QUIET" ] && cat "$FETCH_ERR" >&2 || cat "$FETCH_ERR"; }
rm -f "$FETCH_ERR"
KVER=$(basename "$KDIR")
GENV[VM_KVER]=$KVER
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
[ -f "$VMLINUZ" ] || { warn "no $VMLINUZ"; exit 125; }

# ---- out dir ----
OUT_IS_TEMP=
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/mrtrace-vm.XXXXXX")
	OUT_IS_TEMP=1
else
	mkdir -p -- "$OUT"
	OUT=$(cd -- "$OUT" && pwd -P)
fi
# The guest reads these paths from files line by line or as bash words;
# a newline in one would break that.
for p in "$OUT" "$CWD" "$KDIR"; do
	[[ $p != *$'\n'* ]] || usage_error "paths with newlines are not supported: $p"
done
# Anything a previous run left here would be read as this run's result.
rm -f -- "$OUT"/.vm-* "$OUT"/serial.log "$OUT"/serial.try*.log
: > "$OUT/script.log"

# ---- initramfs (in the cache, never in the work tree) ----
# busybox-static + this directory's init + the modules that reach the host
# root (virtio-pci, 9p, overlay; which of them are built in differs between
# kernels). Named by a hash of its inputs: a changed init or busybox gives a
# new image, and concurrent runs never see a half-written one.
build_initramfs() {
	local bb=/bin/busybox mods key dir img tmp ko rel
	[ -x $bb ] && ! ldd $bb >/dev/null 2>&1 || {
		warn "$bb missing or not static (tools/deps.sh vm installs busybox-static)"; return 1; }
	mods=$(for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$KDIR" -S "$KVER" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }') || return 1
	key=$( { cat "$HERE/init" $bb; echo "$KVER"; echo "$mods"; echo format-1; } | sha256sum | cut -c1-16)
	dir=$CACHE/initramfs
	img=$dir/$KVER-$key.cpio.gz
	mkdir -p "$dir"
	if [ ! -s "$img" ]; then
		tmp=$(mktemp -d "$dir/.build.XXXXXX")
		mkdir -p "$tmp/root/bin" "$tmp/root/modules" "$tmp/root/dev" "$tmp/root/proc" "$tmp/root/sys"
		cp $bb "$tmp/root/bin/busybox"
		install -m 755 "$HERE/init" "$tmp/root/init"
		: > "$tmp/root/modules.list"
		for ko in $mods; do
			rel=${ko#"$KDIR/lib/modules/$KVER/"}
			mkdir -p "$tmp/root/modules/$(dirname "$rel")"
			# busybox insmod cannot decompress (6.12 ships .ko.xz)
			case $ko in
			*.xz) rel=${rel%.xz}; xz -dc "$ko" > "$tmp/root/modules/$rel" ;;
			*.zst) rel=${rel%.zst}; zstd -qdc "$ko" > "$tmp/root/modules/$rel" ;;
			*.gz) rel=${rel%.gz}; gzip -dc "$ko" > "$tmp/root/modules/$rel" ;;
			*) cp "$ko" "$tmp/root/modules/$rel" ;;
			esac
			echo "$rel" >> "$tmp/root/modules.list"
		done
		(cd "$tmp/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$tmp/img"
		mv -f "$tmp/img" "$img"
		rm -rf "$tmp"
	fi
	# Old images (another init version) go after a day; an image in use
	# was touched just now.
	touch "$img"
	find "$dir" -maxdepth 1 -name '*.cpio.gz' -mtime +1 -delete 2>/dev/null || true
	INITRD=$img
}
build_initramfs || { warn "cannot build the initramfs"; exit 125; }

# ---- the job, for stage 2 of init: bash assignments, %q-quoted ----
write_job() {
	local n
	{
		printf 'VM_OUT=%q\n' "$OUT"
		printf 'VM_CWD=%q\n' "$CWD"
		printf 'VM_KDIR=%q\n' "$KDIR"
		printf 'VM_WATCHDOG=%q\n' "$WATCHDOG"
		printf 'VM_INTERACTIVE=%q\n' "$INTERACTIVE"
		printf 'VM_INIT=%q\n' "${VM_INIT:-}"
		printf 'VM_ARGV=('; printf '%q ' "${ARGV[@]}"; printf ')\n'
		printf 'VM_ENV=('
		printf '%q ' "VM_OUT=$OUT"
		for n in "${!GENV[@]}"; do printf '%q ' "$n=${GENV[$n]}"; done
		printf ')\n'
	} > "$OUT/.vm-job"
}
write_job

# ---- boot ----
RUN=$(mktemp -d "${TMPDIR:-/tmp}/mrtrace-vm-run.XXXXXX")   # pid file, fifo
QPID='' TAIL_PID=''
# shellcheck source=tests/vm/boot-lib.sh
. "$TOP/tests/vm/boot-lib.sh"
trap vm_cleanup EXIT
trap 'warn "interrupted"; exit 130' INT TERM HUP

# Stock kernels do not boot under this host's KVM (see README): TCG.
# thread=single: the vCPUs take turns in one host thread. Under
# thread=multi a vCPU can still execute, as an int3, a byte the kernel's
# text patching (static keys, kprobes, ftrace, module loading) has already
# put back, and the guest dies "Oops: int3" (tests/vm/README.md, "The
# emulator's text-patching race"): round-robin TCG never runs one vCPU while
# another writes code, so the race cannot happen, and two suites side by
# side (tests/all.sh's lanes) use the two host cores without
# oversubscribing them.
# oops=panic: any oops then ends the VM at once instead of leaving it to
# the stall timer; panic=-1 + -no-reboot turn the panic into qemu's exit.
# no_timer_check: when the host is busy, the emulated timer can be too slow
# for the kernel's IO-APIC timer check, and 6.1 then panics at boot ("IO-APIC
# + timer doesn't work!"; seen here with two other VMs running).
APPEND="console=ttyS0 loglevel=4 panic=-1 oops=panic no_timer_check ${VM_APPEND:-}"
QEMU=(qemu-system-x86_64 -accel "tcg,thread=$TCG_THREAD" -cpu max -m "$MEM" -smp "$SMP"
	-nodefaults -no-reboot -display none -nic none
	-kernel "$VMLINUZ" -initrd "$INITRD" -append "$APPEND"
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=${OUT//,/,,},mount_tag=vmout,security_model=none,multidevs=remap"
	-pidfile "$RUN/qemu.pid")

if [ -n "$INTERACTIVE" ]; then
	say "kernel $KVER, interactive console (Ctrl-A X quits), out $OUT"
	set +e
	"${QEMU[@]}" -serial mon:stdio
	rc=$(cat "$OUT/.vm-status" 2>/dev/null || echo 125)
	say "exit $rc; out $OUT"
	exit "$rc"
fi

# Watch the console, retry an early-boot failure, exit with the verdict
# (tests/vm/boot-lib.sh, shared with the other architecture's runner).
vm_boot
