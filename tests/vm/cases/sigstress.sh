# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/sigstress.sh - issue 24, "an intermittent hang on 6.1": twice,
# with the host loaded, a system-wide `watch --json` printed "watching", wrote
# no record for a registration that failed after that, and did not stop on
# SIGINT for minutes (its only thread in do_epoll_wait).  Here the same cycle
# runs ROUNDS times under CPU load (2 in make test, about 25 s a kernel; the
# stress itself on every kernel: make vm-stress, 30 rounds): start watch, wait
# for its start record, fail a registration (nobody, 64 KiB limit, 1 MiB),
# require its reg_failure record within 30 s, SIGINT, require the exit within
# 30 s and the stop record.  The load is one busy loop per vCPU but one, in
# the guest, bounded in time (timeout), so watch competes for the CPU the way
# it did on the loaded host without taking the host from anyone else.
# Every round that misses a record or a stop is noted with watch's thread
# stacks (dump_stacks) in this case's log; the checks count the rounds.
# vm-timeout: 400
. "$TOP/tests/vm/mrt-lib.sh"
ROUNDS=${STRESS_ROUNDS:-2}

loaders=()
n=$(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))
for i in $(seq "$n"); do
	timeout $((ROUNDS * 120)) sh -c 'while :; do :; done' &
	loaders+=($!)
done
note "load: $n busy loop(s) on $(nproc) vCPUs, $ROUNDS rounds"

started=0 recorded=0 stopped=0 slow=""
for r in $(seq "$ROUNDS"); do
	heartbeat "round $r of $ROUNDS"
	t0=${EPOCHREALTIME/./}
	if ! mrt_start "round$r"; then
		note "round $r: watch did not start"
		stop_pid "$MRT_PID" 30
		wait "$MRT_PID" 2>/dev/null
		continue
	fi
	started=$((started + 1))
	t1=${EPOCHREALTIME/./}
	probe "round$r" with_memlock 65536 as_nobody -- --size 1M --mem malloc
	if mrt_wait_event "$PROBE_PID" 30 && mrt_event "$PROBE_PID" | grep -q '"cause":"memlock_limit"'; then
		recorded=$((recorded + 1))
	else
		note "round $r: no memlock_limit record for pid ${PROBE_PID:-?} 30 s after the failure; watch's threads:"
		dump_stacks "$MRT_PID" | head -40 | while read -r l; do note "  $l"; done
	fi
	t2=${EPOCHREALTIME/./}
	if mrt_stop; then
		stopped=$((stopped + 1))
	else
		note "round $r: watch did not stop with its stop record (see its stderr: round$r.jsonl.err)"
	fi
	t3=${EPOCHREALTIME/./}
	# seconds: to start, to the record, to stop
	slow="$slow $(( (t1 - t0) / 1000000 ))/$(( (t2 - t1) / 1000000 ))/$(( (t3 - t2) / 1000000 ))"
done
note "seconds per round (start/record/stop):$slow"
kill "${loaders[@]}" 2>/dev/null
wait "${loaders[@]}" 2>/dev/null

rounds() { echo "$1 of $ROUNDS rounds"; [ "$1" = "$ROUNDS" ]; }
check all_rounds_started rounds "$started"
check all_rounds_recorded rounds "$recorded"
check all_rounds_stopped rounds "$stopped"
