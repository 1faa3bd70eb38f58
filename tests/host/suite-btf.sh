#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-btf.sh - where the tracer looks for the external BTF of a
# kernel whose modules have none (btf/<kernel release>.btf, user/tracer/
# facts.c), checked on this host through the facts recorder
# (build/tests/test_plan --record): $MRTRACE_BTF_DIR first, then next to the
# program (../btf in the source tree, ../share/mrtrace/btf installed); the
# file's structures are what the planner sees as typed by it; an unreadable
# file types nothing.  The kernel is this host's, so the file is a copy of a
# committed one renamed to this release: only the lookup is under test.
# Needs root (BPF). Ends with "host-btf: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
REC=$TOP/build/tests/test_plan
OUT=$TOP/build/host-btf
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"

[ "$(id -u)" = 0 ] || host_abort host-btf "host-btf tests need root"
[ -x "$REC" ] || make -C "$TOP" --no-print-directory -s build/tests/test_plan >/dev/null ||
	host_abort host-btf "cannot build $REC"
REL=$(uname -r)
SRC=$(ls "$TOP"/btf/*.btf | head -n 1)
[ -n "$SRC" ] || host_abort host-btf "no btf/*.btf in the tree"
# record NAME [ENV...] -- BINARY: the facts, into $OUT/NAME.facts
record() {
	local name=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env -u MRTRACE_BTF_DIR "${envs[@]}" "$1" --record "$OUT/$name.facts" > "$OUT/$name.err" 2>&1
}
has() { grep -qxF -- "$2" "$OUT/$1.facts"; }

# nowhere: no file (unless this host's release has one committed)
if [ ! -e "$TOP/btf/$REL.btf" ]; then
	check none_recorded record none -- "$REC"
	check none_no_file has none "btf-file -"
	check none_types_untyped has none "type ib_umem - -"
fi

# $MRTRACE_BTF_DIR
mkdir -p "$OUT/dir"
cp "$SRC" "$OUT/dir/$REL.btf"
check env_recorded record env "MRTRACE_BTF_DIR=$OUT/dir" -- "$REC"
check env_file_found has env "btf-file dir/$REL.btf"
# the file has the module structures the sites read (bpftool dump: STRUCT)
check env_types_from_file has env "type ib_umem - file"
check env_bundle_from_file has env "type uverbs_attr_bundle - file"

# installed: <prefix>/sbin/PROG finds <prefix>/share/mrtrace/btf/<release>.btf
mkdir -p "$OUT/usr/sbin" "$OUT/usr/share/mrtrace/btf"
cp "$REC" "$OUT/usr/sbin/test_plan"
cp "$SRC" "$OUT/usr/share/mrtrace/btf/$REL.btf"
check installed_recorded record installed -- "$OUT/usr/sbin/test_plan"
check installed_file_found has installed "btf-file btf/$REL.btf"
check installed_types_from_file has installed "type ib_umem - file"
# the environment comes first
check env_first_recorded record envfirst "MRTRACE_BTF_DIR=$OUT/dir" -- "$OUT/usr/sbin/test_plan"
check env_first has envfirst "btf-file dir/$REL.btf"

# an unreadable file types nothing
printf 'not BTF' > "$OUT/dir/$REL.btf"
check bad_recorded record bad "MRTRACE_BTF_DIR=$OUT/dir" -- "$REC"
check bad_types_untyped has bad "type ib_umem - -"

echo "host-btf: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
