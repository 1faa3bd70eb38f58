#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/btf-coverage.sh - does each committed external BTF (btf/<kver>.btf)
# still hold every type and member the BPF objects relocate against?
#
# Usage: tools/btf-coverage.sh [--build DIR] [--write]
#
# btf/<kver>.btf is minimised to the objects of the day it was made
# (tools/make-btf.sh).  When bpf/ starts reading a new field (a new
# BPF_CORE_READ of task_struct, say), the file lacks it, libbpf fails that
# relocation on that kernel, and every program of the object that reads it
# is refused by the verifier ("invalid CO-RE relocation"): on 5.10 that was
# every kprobe site at once, seen only in the VM.  This check runs on the
# host in a second: libbpf's own CO-RE matching, in bpftool's min_core_btf
# with debug output, against the committed file; every relocation it finds
# no target for is listed as "KIND TYPE.MEMBER" and compared with
# tests/unit/btf-unmatched/<kver>.txt, the relocations that are expected to
# have no target there (a flavour of another kernel, a member guarded by
# bpf_core_field_exists).  A relocation missing that is not in the list
# fails: run tools/make-btf.sh for that kernel (or, if the member really is
# not in that kernel and the code guards it, add the line with --write and
# say why in the commit).
#
# Exit status: 0 every file covers the objects; 1 a relocation is unmatched
# that is not expected; 2 usage or a tool missing.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=build WRITE=
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--write) WRITE=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "btf-coverage: unknown argument $1" >&2; exit 2 ;;
	esac
done
cd "$TOP"
command -v bpftool >/dev/null || { echo "btf-coverage: bpftool not found" >&2; exit 2; }
shopt -s nullglob
objs=("$BUILD"/*.bpf.o)
[ ${#objs[@]} -gt 0 ] || { echo "btf-coverage: no $BUILD/*.bpf.o (make all first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0 n=0
for f in btf/*.btf; do
	kver=$(basename "$f" .btf)
	list=tests/unit/btf-unmatched/$kver.txt
	# "relo #N: <kind> [local id] spec" then, for that relocation, "no
	# matching targets found": keep "kind spec" without the local ids and
	# offsets (they differ per object)
	bpftool -d gen min_core_btf "$f" "$tmp/out.btf" "${objs[@]}" 2>&1 |
		awk '/relo #[0-9]+: </ { r = $0; sub(/.*relo #[0-9]+: /, "", r);
			sub(/ \[[0-9]+\] /, " ", r); sub(/ \(.*$/, "", r); next }
		     /no matching targets found/ && r != "" { print r; r = "" }' |
		LC_ALL=C sort -u > "$tmp/unmatched"
	if [ -n "$WRITE" ]; then
		mkdir -p "$(dirname "$list")"
		cp "$tmp/unmatched" "$list"
		echo "btf-coverage: wrote $list ($(wc -l < "$list") expected unmatched)"
		continue
	fi
	touch "$tmp/expected"
	[ -f "$list" ] && grep -v '^#' "$list" | LC_ALL=C sort -u > "$tmp/expected"
	new=$(LC_ALL=C comm -23 "$tmp/unmatched" "$tmp/expected")
	n=$((n + 1))
	if [ -n "$new" ]; then
		rc=1
		echo "btf-coverage: $f lacks what the objects of $BUILD relocate against"
		echo "  (every program reading it fails to load on $kver; run tools/make-btf.sh):"
		echo "$new" | sed 's/^/    /'
	fi
done
[ -n "$WRITE" ] && exit 0
[ "$rc" = 0 ] && echo "btf-coverage: $n external BTF file(s) cover the objects of $BUILD"
exit $rc
