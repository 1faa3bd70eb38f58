#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/demo.sh - what `make demo` shows, run inside the soft-RoCE VM
# (tests/vm/run.sh boots a stock Debian kernel and runs this as root).
#
# The story: an NCCL-shaped job registers its network buffers as an
# unprivileged user under a 64 KiB memlock limit (the usual container
# default) and fails with ENOMEM, as NCCL's "ibv_reg_mr_iova2 failed with
# error Cannot allocate memory"; mrtrace, watching the kernel, says why with
# numbers and what to change; the limit is raised and the same layout
# registers cleanly.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
MRTRACE=$TOP/build/mrtrace
MRPROBE=$TOP/build/mrprobe
LOG=/tmp/demo-watch.txt
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
layout=(--nccl-channels 2 --nccl-peers 1)

say "kernel $(uname -r), soft-RoCE device: $(ls /sys/class/infiniband | tr '\n' ' ')"
say "1. start mrtrace watching the whole machine"
"$MRTRACE" watch > "$LOG" 2> "$LOG.err" &
WATCH=$!
for i in $(seq 300); do grep -q 'watching' "$LOG.err" && break; sleep 0.2; done
sed 's/^/   /' "$LOG.err"

say "2. an NCCL-like job (2 channels x 1 peer: LL + LL128 + Simple buffers in host memory)"
echo "   as user nobody, RLIMIT_MEMLOCK 64 KiB (docker's default), via ibv_reg_mr_iova2 like NCCL"
"$MRPROBE" -d rxe0 --api iova2 "${layout[@]}" --memlock 65536 --as-nobody | sed 's/^/   /'
sleep 1

say "3. what mrtrace explained (NCCL, like mrprobe here, stops at the first failure)"
awk 'BEGIN{RS=""} NR==1' "$LOG" | sed 's/^/   /'
echo "   ... $(grep -c '^registration failed' "$LOG") failed registrations explained in all"

say "4. apply the fix: raise the memlock limit (here with prlimit; for a container: --ulimit memlock=-1:-1)"
n_before=$(grep -c '^registration failed' "$LOG")
"$MRPROBE" -d rxe0 --api iova2 "${layout[@]}" --memlock unlimited --as-nobody | sed 's/^/   /'
rc=${PIPESTATUS[0]}
sleep 1
n_after=$(grep -c '^registration failed' "$LOG")

say "5. result"
if [ "$rc" = 0 ] && [ "$n_after" = "$n_before" ]; then
	echo "   every buffer registered; mrtrace reported no new failure"
else
	echo "   unexpected: mrprobe exit $rc, failures $n_before -> $n_after"
fi
kill -INT "$WATCH"; wait "$WATCH"
tail -1 "$LOG.err" | sed 's/^/   /'
[ "$rc" = 0 ] && [ "$n_after" = "$n_before" ] && [ "$n_before" -gt 0 ]
