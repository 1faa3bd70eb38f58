#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm-arm64/run.sh - run a script as root inside an arm64 QEMU guest
# (qemu-system-aarch64, TCG) booted from a stock Debian arm64 kernel, with an
# arm64 Debian root and soft-RoCE (rxe0), and exit with the script's status.
# The arm64 sibling of tests/vm/run.sh: same exit codes, same out-dir files.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: tests/vm-arm64/run.sh [--kernel 6.1|6.12|6.12-16k] [--build DIR] [--out HOSTDIR]
                             [--env NAME[=VALUE]]... SCRIPT [ARGS...]

Boots a stock Debian arm64 kernel (default 6.12) under qemu-system-aarch64
(-M virt -cpu max, TCG) and runs SCRIPT with ARGS as root inside it.

The guest:
  - runs an arm64 Debian root (tests/vm-arm64/make-root.sh, cached), read-only
    over 9p with a tmpfs overlay: writes vanish with the VM, except in $VM_OUT
  - sees this work tree at its host path (read-only, tmpfs overlay) with
    DIR (default build-arm64, the cross build: make cross-arm64) mounted
    as build/, so tests/vm's cases find $TOP/build/mrtrace as usual
  - has rdma_rxe and ib_uverbs loaded, dummy0 up, rxe0 on it (port ACTIVE,
    GID 0), tracefs, debugfs, bpffs and cgroup2 mounted
  - runs SCRIPT in the caller's cwd (the work tree if that is outside it),
    stdin /dev/null, environment: VM_OUT VM_KERNEL (the version: 6.12 for
    6.12-16k) VM_ARCH=arm64 TOP PATH HOME TERM and each --env
SCRIPT must be a path inside the work tree (only the work tree is shared);
executable files run directly, others with bash.

Options:
  --kernel K     6.1, 6.12 (default), 6.12-16k (16K pages) or a
                 linux-image-*-arm64 package name
  --build DIR    the arm64 build dir, relative to the work tree (build-arm64)
  --out HOSTDIR  where $VM_OUT's files land (default: a fresh temp dir)
  --env NAME=VALUE / --env NAME   forward a variable. Repeatable.

Exit status: SCRIPT's; 124 = the VM hung (no console output for STALL s or
over TIMEOUT s), 125 = the VM failed without a status, 2 = usage. A boot that
never reached SCRIPT is retried VM_RETRIES (1) times.

Environment: MEM=2048 SMP=2 STALL=300 TIMEOUT=1200 VM_WATCHDOG VM_RETRIES=1
VM_QUIET=1 VM_INTERACTIVE=1 VM_APPEND, MRTRACE_CACHE (default
/var/cache/mrtrace: kernels, the arm64 root, initramfs images).
EOF
}

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
HERE=$TOP/tests/vm-arm64
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}
MEM=${MEM:-2048}
SMP=${SMP:-2}
# arm64 under TCG is slower than x86 under TCG: longer limits than tests/vm.
STALL=${STALL:-300}
TIMEOUT=${TIMEOUT:-1200}
RETRIES=${VM_RETRIES:-1}
QUIET=${VM_QUIET:-}
[ "$QUIET" = 0 ] && QUIET=
INTERACTIVE=${VM_INTERACTIVE:-}
[ "$INTERACTIVE" = 0 ] && INTERACTIVE=
WATCHDOG=${VM_WATCHDOG:-$(( STALL / 2 < 120 ? STALL / 2 : 120 ))}
[ "$WATCHDOG" -ge 10 ] || WATCHDOG=10

say() { [ -n "$QUIET" ] || echo "vm-arm64: $*"; }
warn() { echo "vm-arm64: $*" >&2; }
usage_error() { warn "$*"; warn "try --help"; exit 2; }

KERNEL=6.12
BUILD=build-arm64
OUT=
ENV_ARGS=()
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--kernel) [ $# -ge 2 ] || usage_error "--kernel needs a value"; KERNEL=$2; shift 2 ;;
	--kernel=*) KERNEL=${1#*=}; shift ;;
	--build) [ $# -ge 2 ] || usage_error "--build needs a value"; BUILD=$2; shift 2 ;;
	--build=*) BUILD=${1#*=}; shift ;;
	--out) [ $# -ge 2 ] || usage_error "--out needs a value"; OUT=$2; shift 2 ;;
	--out=*) OUT=${1#*=}; shift ;;
	--env) [ $# -ge 2 ] || usage_error "--env needs a value"; ENV_ARGS+=("$2"); shift 2 ;;
	--env=*) ENV_ARGS+=("${1#*=}"); shift ;;
	--) shift; break ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage_error "no SCRIPT given"
SCRIPT=$1; shift
for n in MEM SMP STALL TIMEOUT RETRIES WATCHDOG; do
	[[ ${!n} =~ ^[0-9]+$ ]] || usage_error "$n must be a number, not '${!n}'"
done
[[ $BUILD != /* && $BUILD != *..* ]] || usage_error "--build must be relative to the work tree"
[ -x "$TOP/$BUILD/mrtrace" ] || warn "no $BUILD/mrtrace yet (make cross-arm64)"
[ -f "$SCRIPT" ] || usage_error "SCRIPT '$SCRIPT' is not a file"
SCRIPT=$(realpath -- "$SCRIPT")
case $SCRIPT in "$TOP"/*) ;; *) usage_error "SCRIPT must be inside $TOP (the guest sees only the work tree)" ;; esac
if [ -x "$SCRIPT" ]; then ARGV=("$SCRIPT" "$@"); else ARGV=(/bin/bash "$SCRIPT" "$@"); fi
CWD=$(pwd -P)

declare -A GENV=(
	[PATH]=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	[HOME]=/root [TERM]=${TERM:-dumb} [TOP]=$TOP [VM_ARCH]=arm64)
# VM_KERNEL is the kernel's version, as tests/vm's cases expect it ("6.12"
# for 6.12-16k too; a package name passes as is); the page size is the
# guest's to ask (getconf PAGESIZE).
case $KERNEL in [0-9]*) GENV[VM_KERNEL]=${KERNEL%%-*} ;; *) GENV[VM_KERNEL]=$KERNEL ;; esac
for e in "${ENV_ARGS[@]}"; do
	n=${e%%=*}
	[[ $n =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || usage_error "--env: bad name '$n'"
	if [[ $e == *=* ]]; then GENV[$n]=${e#*=}; else GENV[$n]=${!n-}; fi
done

command -v qemu-system-aarch64 >/dev/null ||
	{ warn "qemu-system-aarch64 missing (tools/deps.sh arm64)"; exit 125; }
KDIR=$("$HERE/fetch-kernel.sh" "$KERNEL") || { warn "cannot fetch kernel $KERNEL"; exit 125; }
KVER=$(basename "$KDIR")
ROOT=$("$HERE/make-root.sh") || { warn "cannot make the arm64 root"; exit 125; }

OUT_IS_TEMP=
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/mrtrace-vm-arm64.XXXXXX")
	OUT_IS_TEMP=1
else
	mkdir -p -- "$OUT"
	OUT=$(cd -- "$OUT" && pwd -P)
fi
for p in "$OUT" "$CWD" "$TOP"; do
	[[ $p != *$'\n'* && $p != *,* ]] || usage_error "paths with newlines or commas are not supported: $p"
done
rm -f -- "$OUT"/.vm-* "$OUT"/serial.log "$OUT"/serial.try*.log
: > "$OUT/script.log"

# ---- initramfs: the root's static busybox, init, the modules that reach
# the shares (9p, overlay; virtio-pci is built in). Cached by a hash of its
# inputs, never in the work tree.
build_initramfs() {
	local bb=$ROOT/bin/busybox mods key dir img tmp ko rel
	mods=$(for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$KDIR" -S "$KVER" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }') || return 1
	key=$( { cat "$HERE/init" "$bb"; echo "$KVER"; echo "$mods"; } | sha256sum | cut -c1-16)
	dir=$CACHE/initramfs
	img=$dir/arm64-$KVER-$key.cpio.gz
	mkdir -p "$dir"
	if [ ! -s "$img" ]; then
		tmp=$(mktemp -d "$dir/.build.XXXXXX")
		mkdir -p "$tmp/root/bin" "$tmp/root/modules" "$tmp/root/dev" "$tmp/root/proc" "$tmp/root/sys"
		cp "$bb" "$tmp/root/bin/busybox"
		install -m 755 "$HERE/init" "$tmp/root/init"
		: > "$tmp/root/modules.list"
		for ko in $mods; do
			rel=${ko#"$KDIR/lib/modules/$KVER/"}
			mkdir -p "$tmp/root/modules/$(dirname "$rel")"
			case $ko in   # busybox insmod cannot decompress
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
	touch "$img"
	find "$dir" -maxdepth 1 -name 'arm64-*.cpio.gz' -mtime +1 -delete 2>/dev/null || true
	INITRD=$img
}
build_initramfs || { warn "cannot build the initramfs"; exit 125; }

{
	printf 'VM_OUT=%q\n' "$OUT"
	printf 'VM_CWD=%q\n' "$CWD"
	printf 'VM_TOP=%q\n' "$TOP"
	printf 'VM_BUILD=%q\n' "$BUILD"
	printf 'VM_WATCHDOG=%q\n' "$WATCHDOG"
	printf 'VM_INTERACTIVE=%q\n' "$INTERACTIVE"
	printf 'VM_ARGV=('; printf '%q ' "${ARGV[@]}"; printf ')\n'
	printf 'VM_ENV=('
	printf '%q ' "VM_OUT=$OUT"
	for n in "${!GENV[@]}"; do printf '%q ' "$n=${GENV[$n]}"; done
	printf ')\n'
} > "$OUT/.vm-job"

RUN=$(mktemp -d "${TMPDIR:-/tmp}/mrtrace-vm-arm64.XXXXXX")
QPID='' TAIL_PID=''
# shellcheck source=tests/vm/boot-lib.sh
. "$TOP/tests/vm/boot-lib.sh"
trap vm_cleanup EXIT
trap 'warn "interrupted"; exit 130' INT TERM HUP

# -cpu max: every granule (4K, 16K, 64K) and the newest ISA; pauth-impdef
# replaces the architected QARMA pointer-auth hash, which costs TCG dearly,
# by QEMU's cheap one (the guest cannot tell).  oops=panic panic=-1 with
# -no-reboot: a crash ends qemu at once instead of waiting for STALL.
APPEND="console=ttyAMA0 loglevel=4 panic=-1 oops=panic ${VM_APPEND:-}"
share() { echo "local,path=$1,mount_tag=$2,security_model=none,multidevs=remap${3:+,$3}"; }
# shellcheck disable=SC2054  # commas inside option values
QEMU=(qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu max,pauth-impdef=on
	-m "$MEM" -smp "$SMP" -nodefaults -no-reboot -display none -nic none
	-kernel "$KDIR/boot/Image" -initrd "$INITRD" -append "$APPEND"
	-virtfs "$(share "$ROOT" a64root readonly=on)"
	-virtfs "$(share "$TOP" repo readonly=on)"
	-virtfs "$(share "$KDIR/lib/modules/$KVER" modules readonly=on)"
	-virtfs "$(share "$OUT" vmout)"
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
