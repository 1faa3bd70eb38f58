#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/record-probe-fixtures.sh [KERNEL...] - re-record, one VM boot per
# kernel, what tests/unit/test_plan.c compares: `mrtrace watch --list-probes`
# (text and --json, tests/fixtures/list-probes/<kernel>.{txt,json}) and the
# kernel facts of the same boot (tests/fixtures/plan/debian-<ver>-rxe-mlx5.facts,
# its comment header kept). Default: 5.10 6.1 6.12 newest. Run after adding or
# changing a site (user/tracer/sites.c, or a driver's table in user/drivers/);
# boots go through $VMSLOT when set (the shared host's queue, e.g.
# VMSLOT=/work/bin/vmslot).
# The recipe is tests/fixtures/list-probes/README.md's.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
[ $# -gt 0 ] || set -- 5.10 6.1 6.12 newest
make -s all build/tests/test_plan
facts_name() {
	case $1 in
	5.10) echo debian-5.10-rxe-mlx5.facts ;;
	6.1) echo debian-6.1-rxe-mlx5.facts ;;
	6.12) echo debian-6.12-rxe-mlx5.facts ;;
	newest) echo debian-7.2-rxe-mlx5.facts ;;
	*) echo "record-probe-fixtures: no facts file known for kernel $1" >&2; return 1 ;;
	esac
}
rc=0
for k in "$@"; do
	facts=tests/fixtures/plan/$(facts_name "$k")
	o=$(mktemp -d)
	# shellcheck disable=SC2016 # expanded in the guest
	if ! VM_QUIET=1 ${VMSLOT:-} tests/vm/run.sh --kernel "$k" --out "$o" sh -c \
		'modprobe mlx5_ib; cd "$TOP"; export MRTRACE_BTF_DIR=$TOP/btf;
		 build/tests/test_plan --record "$VM_OUT/facts";
		 build/mrtrace watch --list-probes > "$VM_OUT/p.txt" 2>&1;
		 build/mrtrace watch --list-probes --json > "$VM_OUT/p.json" 2>/dev/null; true' ||
		[ ! -s "$o/facts" ] || [ ! -s "$o/p.txt" ]; then
		echo "record-probe-fixtures: $k: the boot left no facts or listing ($o)" >&2
		rc=1
		continue
	fi
	sed "s|$TOP/||g" "$o/p.txt" > "tests/fixtures/list-probes/$k.txt"
	sed "s|$TOP/||g" "$o/p.json" > "tests/fixtures/list-probes/$k.json"
	# the header (comment lines) stays; the body is this boot's
	{ grep '^#' "$facts" || true; grep -v '^#' "$o/facts"; } > "$facts.new"
	mv "$facts.new" "$facts"
	echo "record-probe-fixtures: $k: $(grep -c . "tests/fixtures/list-probes/$k.txt") listing lines, $(grep -vc '^#' "$facts") facts"
	rm -rf "$o"
done
exit $rc
