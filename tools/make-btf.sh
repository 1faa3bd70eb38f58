#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/make-btf.sh - external BTF for a kernel whose modules have none
# (Debian's 5.10: CONFIG_DEBUG_INFO_BTF_MODULES came in 5.11), minimised to
# what mrtrace's BPF objects relocate against.
#
# Usage: tools/make-btf.sh [--keep-deb] KERNEL [OBJ.bpf.o...]
#   KERNEL  a tools/fetch-kernel.sh name (5.10, 6.1, 6.12, newest,
#           linux-image-PACKAGE); its pin decides the exact kernel
#   OBJ     the BPF objects to minimise for (default: build/*.bpf.o; run
#           `make all` first)
# Writes btf/<kver>.btf (a few KiB; the only file meant for git).
#
#   1. tools/fetch-kernel.sh --dbg KERNEL: the kernel's -dbg package through
#      the same private apt configuration (about 800 MB for 5.10; refused
#      above MAKE_BTF_MAX_MB, default 1500). Only vmlinux and the RDMA
#      modules' .ko are extracted, into $MRTRACE_CACHE/dbg/<kver>/; the .deb
#      is deleted afterwards unless --keep-deb.
#   2. pahole -J (package dwarves) over vmlinux AND the modules ib_core,
#      ib_uverbs, rdma_rxe, mlx5_ib, mlx5_core in one run: one BTF holding
#      the kernel's and the modules' types ($MRTRACE_CACHE/dbg/<kver>/
#      full.btf, several MiB, never committed). One file because libbpf's
#      btf_custom_path takes one BTF and then looks at no module BTF.
#      (pahole takes FUNC records from the first file only, so the
#      modules' functions have no FUNC entry: CO-RE needs types, not those.)
#   3. bpftool gen min_core_btf full.btf btf/<kver>.btf OBJ...: only the
#      types and members the objects' CO-RE relocations touch.
#
# The result is tied to the objects: when bpf/ changes what it reads from
# kernel structures, run this again (seconds once steps 1 and 2 are
# cached in $MRTRACE_CACHE/dbg/<kver>/).
#
# Exit status: 0 ok; 2 usage; 3 the archive does not serve the kernel or its
# -dbg package; 4 the -dbg package is larger than MAKE_BTF_MAX_MB;
# 1 anything else.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}
MAX_MB=${MAKE_BTF_MAX_MB:-1500}
FETCH=$TOP/tools/fetch-kernel.sh
MODULES="ib_core ib_uverbs rdma_rxe mlx5_ib mlx5_core"
say() { echo "make-btf: $*" >&2; }
die() { say "$*"; exit 1; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--keep-deb) KEEP=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { usage >&2; exit 2; }
KERNEL=$1; shift
OBJS=("$@")
if [ ${#OBJS[@]} = 0 ]; then
	shopt -s nullglob
	OBJS=("$TOP"/build/*.bpf.o)
	shopt -u nullglob
	[ ${#OBJS[@]} -gt 0 ] || die "no build/*.bpf.o: run 'make all' first (or name the objects)"
fi
for o in "${OBJS[@]}"; do [ -f "$o" ] || die "no such object: $o"; done

# Tools: pahole from dwarves (installed like tools/deps.sh does), bpftool.
if ! command -v pahole >/dev/null; then
	[ "$(id -u)" = 0 ] || die "pahole missing: apt-get install dwarves"
	say "installing dwarves (pahole)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dwarves >&2 ||
		die "apt-get install dwarves failed"
fi
command -v bpftool >/dev/null || die "bpftool missing (tools/deps.sh build)"

# ---- which kernel (the pin) ----
rc=0
info=$("$FETCH" --info "$KERNEL") || rc=$?
[ $rc = 0 ] || exit $rc
KVER=$(sed -n 's/^kver=//p' <<< "$info")
[ -n "$KVER" ] || die "no kver in the pin of $KERNEL"
DBG=$CACHE/dbg/$KVER
FULL=$DBG/full.btf
OUT=$TOP/btf/$KVER.btf

have_debug_files() {
	[ -n "$(find "$DBG/root" -name "vmlinux-$KVER" -type f 2>/dev/null | head -n 1)" ] &&
		[ -n "$(find "$DBG/root" -name 'ib_uverbs.ko' -type f 2>/dev/null | head -n 1)" ]
}

# ---- 1. the debug files ----
if [ ! -s "$FULL" ] && ! have_debug_files; then
	pkg=linux-image-$KVER-dbg
	size=$("$FETCH" --apt "$KERNEL" apt-cache show "$pkg" 2>/dev/null | awk '$1 == "Size:" { print $2; exit }') || true
	[ -n "$size" ] || { say "no $pkg in the archive"; exit 3; }
	mb=$(( size / 1000000 ))
	if [ "$mb" -gt "$MAX_MB" ]; then
		say "$pkg is $mb MB, more than MAKE_BTF_MAX_MB=$MAX_MB: not fetched"
		exit 4
	fi
	say "$pkg: $mb MB to download (once; only vmlinux and $MODULES are kept)"
	rc=0
	deb=$("$FETCH" --dbg "$KERNEL") || rc=$?
	[ $rc = 0 ] || exit $rc
	rm -rf "$DBG/root.tmp"; mkdir -p "$DBG/root.tmp"
	pats=("*/vmlinux-$KVER")
	for m in $MODULES; do pats+=("*/$m.ko" "*/$m.ko.xz" "*/$m.ko.zst"); done
	say "extracting vmlinux-$KVER and $MODULES from $(basename "$deb")"
	# Wildcards that match nothing (.ko.xz on 5.10) are not errors here.
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$DBG/root.tmp" --wildcards "${pats[@]}" 2>/dev/null || true
	rm -rf "$DBG/root"; mv "$DBG/root.tmp" "$DBG/root"
	have_debug_files || die "$(basename "$deb") has no vmlinux-$KVER or ib_uverbs.ko"
	if [ -z "$KEEP" ]; then
		rm -f "$deb"
		say "deleted $deb (--keep-deb keeps it)"
	fi
fi

# ---- 2. vmlinux + modules -> one BTF ----
if [ ! -s "$FULL" ]; then
	files=("$(find "$DBG/root" -name "vmlinux-$KVER" -type f | head -n 1)")
	for m in $MODULES; do
		f=$(find "$DBG/root" -regex ".*/$m\\.ko\\(\\.xz\\|\\.zst\\)?" -type f | head -n 1)
		if [ -z "$f" ]; then say "warning: no $m module in the -dbg package"; continue; fi
		case $f in
		*.xz) xz -dc "$f" > "${f%.xz}"; f=${f%.xz} ;;
		*.zst) zstd -qdcf "$f" > "${f%.zst}"; f=${f%.zst} ;;
		esac
		files+=("$f")
	done
	say "pahole -J: ${files[*]##*/} (a minute or two)"
	pahole --btf_encode_detached="$FULL.tmp" "${files[@]}" >&2 || die "pahole failed"
	mv -f "$FULL.tmp" "$FULL"
fi

# ---- 3. minimise for the objects ----
mkdir -p "$TOP/btf"
bpftool gen min_core_btf "$FULL" "$OUT.tmp" "${OBJS[@]}" >&2 || { rm -f "$OUT.tmp"; die "bpftool gen min_core_btf failed"; }
chmod 644 "$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
types=$(bpftool btf dump file "$OUT" | grep -c '^\[')
say "$OUT: $(stat -c %s "$OUT") bytes, $types types, for ${OBJS[*]##*/} (from $(stat -c %s "$FULL") bytes of full BTF)"
echo "$OUT"
