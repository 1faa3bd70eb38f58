#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/unit/structure.sh - the shape of user/, checked with the unit tests:
# the verdict engine is pure (tools/pure.py: no libbpf, no /proc, no clock,
# no global state in user/verdict/), and user/ has no include loop and no
# call loop (tools/loops.py, over the objects of BUILD); the external BTF
# files in btf/ still cover what the BPF objects of BUILD relocate against
# (tools/btf-coverage.sh).  Ends with its count line.
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
pass=0 fail=0
for t in "pure:tools/pure.py --build $BUILD" "loops:tools/loops.py --build $BUILD" \
	 "btf:tools/btf-coverage.sh --build $BUILD"; do
	name=${t%%:*}
	cmd=${t#*:}
	case $cmd in *.py*) cmd="python3 $cmd" ;; esac
	if out=$(cd "$top" && $cmd 2>&1); then
		pass=$((pass + 1))
		echo "ok structure:$name: $(echo "$out" | tail -1)"
	else
		fail=$((fail + 1))
		echo "FAIL structure:$name"
		echo "$out" | sed 's/^/    /'
	fi
done
echo "structure: $pass passed, $fail failed"
[ "$fail" = 0 ]
