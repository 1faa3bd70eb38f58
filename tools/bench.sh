#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/bench.sh - what mrtrace costs the machine it watches, as ratios
# measured side by side in one run (never absolute gates; never part of
# `make test`).  Each case alternates runs without and with mrtrace
# attached and reports the median ns per operation and the ratio.
#
#   getppid, --syscalls=on   the cost every process pays while the syscall
#                            tracepoints are armed (docs/design.md section 5: ~40 ns)
#   getppid, default         the default on a kernel with registration sites:
#                            no syscall tracepoint, so ~1.0
#   reg (uprobe)             ibv_reg_mr_iova2 through a stand-in libibverbs
#                            with mrtrace's uprobes attached
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MRTRACE=$TOP/build/mrtrace
LOOP=$TOP/build/tests/helpers/bench_loop
OUT=$TOP/build/bench
RUNS=${RUNS:-5}
mkdir -p "$OUT"
make -s -C "$TOP" build/tests/helpers/bench_loop build/tests/helpers/libibverbs_fake >/dev/null
cp "$TOP/build/tests/helpers/libibverbs_fake" "$OUT/libibverbs.so.1"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
with_mrtrace() { # with_mrtrace "WATCH ARGS" CMD...: run CMD while mrtrace watches
	local args=$1; shift
	"$MRTRACE" watch $args > /dev/null 2> "$OUT/watch.err" &
	local w=$!
	for _ in $(seq 100); do grep -q watching "$OUT/watch.err" && break; sleep 0.1; done
	"$@"
	kill -INT $w; wait $w
}
bench() { # bench NAME "WATCH ARGS" LOOP-ARGS...
	local name=$1 args=$2; shift 2
	local base=() traced=()
	export BENCH_DELAY=${BENCH_DELAY:-}
	[ -n "$BENCH_DELAY" ] || unset BENCH_DELAY
	for _ in $(seq "$RUNS"); do
		base+=("$("$LOOP" "$@" | awk '{print $2}')")
		traced+=("$(with_mrtrace "$args" "$LOOP" "$@" | awk '{print $2}')")
	done
	local b t
	b=$(printf '%s\n' "${base[@]}" | median)
	t=$(printf '%s\n' "${traced[@]}" | median)
	printf '%-34s %10.1f ns %10.1f ns   x%.2f  (+%.1f ns)\n' "$name" "$b" "$t" \
		"$(echo "$t / $b" | bc -l)" "$(echo "$t - $b" | bc -l)"
}
command -v bc >/dev/null || { echo "bench: needs bc (apt-get install bc)"; exit 1; }
echo "kernel $(uname -r), median of $RUNS alternating runs"
printf '%-34s %13s %13s   %s\n' "operation" "without" "with mrtrace" "ratio"
bench "getppid, --syscalls=on" "--syscalls=on" getppid 3000000
bench "getppid, --syscalls=off" "--syscalls=off" getppid 3000000
bench "mlock+munlock, --syscalls=on" "--syscalls=on" mlock 300000
BENCH_DELAY=3 bench "ibv_reg_mr_iova2 (uprobe)" "--syscalls=off" reg "$OUT/libibverbs.so.1" 300000

# ---- the consumer: what user space explains per second ---------------------
# Synthetic records (a trail fixture and its libibverbs call) through the
# correlator, the explanation engine and the output, to /dev/null; /proc of
# this process read once (tools/bench-consumer.c).  No BPF.
make -s -C "$TOP" build/bench-consumer >/dev/null
echo
"$TOP/build/bench-consumer" "${CONSUMER_RECORDS:-20000}"
