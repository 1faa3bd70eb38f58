#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/vm-int3-loop.sh - count the guest deaths of the emulator's
# text-patching race ("Oops: int3", tests/vm/README.md) over BOOTS boots of
# KERNEL, each running one round of text patching heavier than the VM suite's
# patching cases together. A measurement, not a test: make test never runs it.
#
# Usage: tools/vm-int3-loop.sh KERNEL BOOTS [OUTDIR]
#        VM_TCG_THREAD=multi tools/vm-int3-loop.sh 6.12 10   # the old setting
#
# Each boot, in the guest (while a pipe ping-pong keeps both vCPUs
# switching tasks, so that __schedule's static-key sites are being executed
# while they are patched, where CI's guests died):
#   - the sched_switch/sched_wakeup tracepoints on and off PATCH_ROUNDS times
#     (each flip patches the static-key sites in __schedule and try_to_wake_up)
#   - `mrtrace watch` started and stopped WATCH_ROUNDS times (every kprobe and
#     trampoline of the tracer armed and disarmed)
#   - mlx5_ib loaded and unloaded (module text, jump labels, alternatives)
# Prints one line per boot and a closing line
#   int3-loop KERNEL thread=MODE: B boots, D int3 deaths, O other failures
# and exits 1 if any boot died of the race or failed otherwise.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
KERNEL=$1 BOOTS=$2
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
OUT=${3:-$TOP/build/int3-loop-$KERNEL-${VM_TCG_THREAD:-single}}
mkdir -p "$OUT"
. "$TOP/tests/vm/suite-lib.sh"

if [ "${INT3_GUEST:-}" = 1 ]; then
	# ---- in the guest ----
	T=/sys/kernel/tracing/events/sched
	# two tasks handing a byte back and forth: context switches on both vCPUs
	( while :; do echo x; done | while read -r _; do :; done ) &
	pp=$!
	for _ in $(seq 1 "${PATCH_ROUNDS:-50}"); do
		echo 1 > $T/sched_switch/enable; echo 1 > $T/sched_wakeup/enable
		echo 0 > $T/sched_switch/enable; echo 0 > $T/sched_wakeup/enable
	done
	echo "guest: tracepoints flipped ${PATCH_ROUNDS:-50} times"
	for i in $(seq 1 "${WATCH_ROUNDS:-2}"); do
		"$TOP/build/mrtrace" watch --json > "$VM_OUT/watch.$i.jsonl" 2> "$VM_OUT/watch.$i.err" &
		w=$!
		for _ in $(seq 1 600); do grep -q '"event":"start"' "$VM_OUT/watch.$i.jsonl" 2>/dev/null && break; sleep 0.2; done
		kill -INT $w; wait $w
		echo "guest: watch round $i exit $?"
	done
	modprobe mlx5_ib && echo "guest: mlx5_ib loaded" && modprobe -r mlx5_ib mlx5_core && echo "guest: mlx5_ib unloaded"
	kill $pp 2>/dev/null
	exit 0
fi

MODE=${VM_TCG_THREAD:-single}
deaths=0 other=0
for b in $(seq 1 "$BOOTS"); do
	d=$OUT/boot$b
	rm -rf "$d"
	t0=$SECONDS
	VM_QUIET=1 VM_RETRIES=0 "$TOP/tests/vm/run.sh" --kernel "$KERNEL" --out "$d" \
		--env INT3_GUEST=1 --env PATCH_ROUNDS="${PATCH_ROUNDS:-50}" --env WATCH_ROUNDS="${WATCH_ROUNDS:-2}" \
		"$0" "$KERNEL" 1 > "$d.log" 2>&1
	rc=$?
	if oops=$(suite_int3_oops "$d/serial.log"); then
		deaths=$((deaths + 1)); what="INT3 DEATH: $oops ($(grep -a -m1 'RIP:' "$d/serial.log" | suite_unstamp))"
	elif [ $rc != 0 ]; then
		other=$((other + 1)); what="FAILED rc=$rc: $(tail -n 2 "$d.log" | tr '\n' ' ')"
	else
		what=ok
	fi
	echo "boot $b/$BOOTS ($((SECONDS - t0)) s): $what"
done
echo "int3-loop $KERNEL thread=$MODE: $BOOTS boots, $deaths int3 deaths, $other other failures"
[ $deaths = 0 ] && [ $other = 0 ]
