#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/bench.sh - the whole cost story of mrtrace, side by side in one run:
# every case alternates runs without and with `mrtrace watch` attached and
# reports the medians and their ratio (ratios are what travels between
# machines; nothing here is a gate, and `make test` never runs it).
#
# Usage: tools/bench.sh [--host | --vm]     (make bench: both)
#        tools/bench.sh --in-guest          the VM part, inside the guest
# Env:   RUNS=5                     runs per side and case
#        KERNEL=6.12                the guest kernel (tests/vm/run.sh)
#
# This machine (no RDMA, no kprobes here: docs/design.md section 5):
#   getppid, --syscalls=on   what every syscall pays while the syscall
#                            tracepoints are armed (~40 ns)
#   getppid, --syscalls=off  the default where registration sites exist: 1.0
#   mlock+munlock            the path the tracepoints watch
#   ibv_reg_mr_iova2         through a stand-in libibverbs: the uprobes' cost
#   mlock storm              20,000 failing mlock() from one process: folded
#                            in the kernel (bpf/mrtrace.h, "storms")
#   consumer                 records/s user space explains (no BPF)
#   log reader               a 64-rank merged job log (LOG_MB=200 MB,
#                            tools/gen-merged-log.py) read line by line by
#                            mrtrace's log reader (tools/bench-logread.c),
#                            side by side with `grep -c 'NCCL WARN'` over the
#                            same file (what a user does today) and `mrtrace
#                            explain` end to end; the peak RSS of each; the
#                            reader once more with one CPU allowed (no
#                            second thread: user/logs/twin.c)
#   SIGINT during attach     a stop request one second into a cold start:
#                            time to exit, stop record, links left
# The 6.12 guest (soft-RoCE, every registration site armed), under QEMU/TCG
# (emulation: BPF, trampolines and uprobe traps cost relatively more there
# than on hardware):
#   reg+dereg 64 KiB, 4 MiB  ibv_reg_mr_iova2 + ibv_dereg_mr, succeeding
#     probes alone           each loop under the same kprobes and
#                            kretprobes as tracefs events, tracing off: the
#                            machinery's cost without any BPF, and mrtrace
#                            above it, the three interleaved run by run
#                            (floor(); RUNS>=5 for a spread worth reading)
#   getppid                  a syscall-heavy loop: no site on its path
#   O_DIRECT 64 KiB read     /dev/nullb0: the kernel pins the user pages of
#                            every read (pin_user_pages_fast is armed)
#   storm                    20,000 failing registrations as nobody under a
#                            64 KiB limit (tests/vm/cases/storm.sh asserts it)
#   off the registration path  O_DIRECT reads, getppid, mlock within the
#                            limit, fork+exec: how often watch's programs ran
#                            (the kernel's run_cnt; the goal is 0)
#   unload/reload            rdma_rxe under watch: the unload, the time until
#                            its sites are armed again, the re-arm
# On the host first: attach time (start to "watching"), cold (--no-cache:
# the kernel facts gathered) and warm (read from their cache), side by side.
# For each side: attach time (start to "watching"), peak RSS of watch, and
# per-program BPF run time from the kernel's own statistics
# (kernel.bpf_stats_enabled: run_cnt, run_time_ns), taken in one extra run
# per case so that they do not weigh on the ratios, with every program's
# runs per operation summed (reg+dereg: the runs per registration); the
# detach time (SIGINT to exit) of every stop.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MRTRACE=$TOP/build/mrtrace
LOOP=$TOP/build/tests/helpers/bench_loop
STORM=$TOP/build/tests/helpers/storm
MODE=${1:---all}
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --"

case $MODE in
--all | --host | --vm | --in-guest) ;;
*) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
esac

if [ "$MODE" = --in-guest ]; then
	OUT=$VM_OUT
	RUNS=${RUNS:-5}
else
	OUT=$TOP/build/bench
	RUNS=${RUNS:-5}
	mkdir -p "$OUT"
fi
command -v bc >/dev/null || { echo "bench: needs bc (apt-get install bc)"; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# ns per operation from a helper's line ("getppid 41.2" or "... ns_per_op=41.2")
ns_of() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ns_per_op=/) { sub(/^ns_per_op=/, "", $i); print $i; exit } print $2 }'; }

WPID= WSTART= WREADY= ATTACH_MS=() HWM_KB=()
watch_start() { # WATCH-ARGS...: mrtrace watch --json in the background, until it watches
	local t0 i
	rm -f "$OUT/watch.err" # or the wait below may read the last start's line
	t0=${EPOCHREALTIME/./}
	WSTART=${EPOCHREALTIME%.*}
	"$MRTRACE" watch --json -o "$OUT/watch.jsonl" "$@" 2> "$OUT/watch.err" &
	WPID=$!
	# polled every 10 ms: attach takes ~0.1-0.3 s on a host
	for i in $(seq 6000); do grep -q watching "$OUT/watch.err" && break; sleep 0.01; done
	WREADY=$(( ${EPOCHREALTIME%.*} + 1 ))
	ATTACH_MS+=($(( (${EPOCHREALTIME/./} - t0) / 1000 )))
}
DETACH_MS=()
watch_stop() { # SIGINT to exit: the detach of every link (user/tracer/detach.c)
	local t0
	HWM_KB+=($(awk '/^VmHWM:/ {print $2}' "/proc/$WPID/status" 2>/dev/null || echo 0))
	t0=${EPOCHREALTIME/./}
	kill -INT "$WPID"
	wait "$WPID"
	DETACH_MS+=($(( (${EPOCHREALTIME/./} - t0) / 1000 )))
}

# watch_runs CMD...: how many times this watch's programs ran while CMD
# ran (the kernel's run_cnt, kernel.bpf_stats_enabled, before and after),
# and which ran: "0" is the goal for work that registers nothing.
watch_runs() {
	local was
	was=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) || { echo "?"; return; }
	sysctl -qw kernel.bpf_stats_enabled=1
	bpftool prog show --json > "$OUT/runs-before.json" 2>/dev/null
	"$@" > /dev/null
	bpftool prog show --json > "$OUT/runs-after.json" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$was"
	jq -r -n --slurpfile b "$OUT/runs-before.json" --slurpfile a "$OUT/runs-after.json" \
		--argjson t "$WSTART" --argjson r "$WREADY" '
		($b[0] | map({key: (.id|tostring), value: (.run_cnt // 0)}) | from_entries) as $before
		| [$a[0][] | select(.loaded_at >= $t and .loaded_at <= $r and
			(.name|test("^(fentry|fexit|kprobe|kretprobe|tp|up|uret)_")))
		   | {name, d: ((.run_cnt // 0) - ($before[.id|tostring] // 0))} | select(.d > 0)]
		| "\([.[].d] | add // 0)\(if length > 0 then " (" + ([.[] | "\(.name) \(.d)"] | join(", ")) + ")" else "" end)"'
}

# bench NAME "WATCH ARGS" CMD...: CMD prints ns per operation.  RUNS runs
# without, then one watch and RUNS runs with it (a start per run would
# dominate under emulation: attaching every site takes seconds there), then
# one more with the kernel's BPF statistics on.
bench() {
	local name=$1 args=$2 base=() traced=() b t
	shift 2
	for _ in $(seq "$RUNS"); do base+=("$("$@" | ns_of)"); done
	watch_start $args
	for _ in $(seq "$RUNS"); do traced+=("$("$@" | ns_of)"); done
	bpf_stats "$name" "$@"
	watch_stop
	b=$(printf '%s\n' "${base[@]}" | median)
	t=$(printf '%s\n' "${traced[@]}" | median)
	printf '%-34s %12.1f ns %12.1f ns   x%.2f\n' "$name" "$b" "$t" "$(echo "$t / $b" | bc -l)"
	echo "    each run, ns: without ${base[*]}; with ${traced[*]}"
}

# spread: "min-max (±P%)" of a list of numbers, P the half range over the
# median: how far apart the runs of one side lie, to read a ratio against
spread() {
	printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {
		m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2
		printf "%.0f-%.0f (±%.1f%%)", a[1], a[NR], m ? (a[NR]-a[1])/2/m*100 : 0 }'
}

# floor NAME CMD...: the cost of the probe machinery alone, and mrtrace's
# above it.  While a watch is armed, the kernel's list of kprobes (debugfs
# kprobes/list: every kprobe and kretprobe it registered, whatever the BPF
# program) is read; after its stop, the same probes are made tracefs kprobe
# events with tracing off (each hit runs the kprobe and kretprobe machinery
# and finds no buffer to write to: no BPF at all).  Then RUNS rounds, each
# one run of CMD without anything, one under the probes alone and one under
# a watch of its own (started and stopped around the run): interleaved, so
# that the machine's drift weighs on the three alike.  What separates "with
# mrtrace" from "probes alone" is the BPF programs' own work; the goal is
# x1.05 (issue 50), and the line says where it stands.
floor() {
	local name=$1 base=() probed=() traced=() b f t n=0 line addr kind sym ev tr=/sys/kernel/tracing on
	shift
	[ -r /sys/kernel/debug/kprobes/list ] && [ -w $tr/kprobe_events ] ||
		{ printf '%-34s no debugfs kprobes list or tracefs here; skipped\n' "$name"; return; }
	watch_start
	cp /sys/kernel/debug/kprobes/list "$OUT/kprobes.list"
	watch_stop
	on=$(cat $tr/tracing_on)
	echo 0 > $tr/tracing_on
	# "ffffffffc0a1b2c0  k  ib_uverbs_reg_mr+0x0    [ib_uverbs] [FTRACE]"
	while read -r addr kind sym _; do
		case $kind in
		k) ev="p:mrtfloor/p$n $sym" ;;
		r) ev="r:mrtfloor/r$n ${sym%+0x0}" ;;
		*) continue ;;
		esac
		echo "$ev" >> $tr/kprobe_events 2>/dev/null && n=$((n + 1))
	done < "$OUT/kprobes.list"
	[ -d $tr/events/mrtfloor ] || { printf '%-34s no probe could be made again; skipped\n' "$name"; return; }
	# interleaved: nothing, the probes armed alone, then mrtrace alone
	for _ in $(seq "$RUNS"); do
		base+=("$("$@" | ns_of)")
		echo 1 > $tr/events/mrtfloor/enable
		probed+=("$("$@" | ns_of)")
		echo 0 > $tr/events/mrtfloor/enable
		watch_start
		traced+=("$("$@" | ns_of)")
		watch_stop
	done
	grep -o '^[pr]:mrtfloor/[a-z0-9]*' $tr/kprobe_events | sed 's/^[pr]:/-:/' |
		while read -r line; do echo "$line" >> $tr/kprobe_events; done
	echo "$on" > $tr/tracing_on
	b=$(printf '%s\n' "${base[@]}" | median)
	f=$(printf '%s\n' "${probed[@]}" | median)
	t=$(printf '%s\n' "${traced[@]}" | median)
	printf '%-34s %12.1f ns %12.1f ns   x%.2f   (%d of %d probes of watch, no BPF)\n' "$name" "$b" "$f" \
		"$(echo "$f / $b" | bc -l)" "$n" "$(grep -c ' [kr]  ' "$OUT/kprobes.list")"
	printf '%-34s %12.1f ns %12.1f ns   x%.2f   (mrtrace above the probes alone; goal x1.05)\n' \
		"  mrtrace vs probes alone" "$f" "$t" "$(echo "$t / $f" | bc -l)"
	echo "    each round, ns: without ${base[*]}; probes alone ${probed[*]}; mrtrace ${traced[*]}"
	echo "    spread: without $(spread "${base[@]}"); probes alone $(spread "${probed[@]}"); mrtrace $(spread "${traced[@]}")"
}

# One more run with the kernel's BPF statistics on (they cost a little
# themselves): per program of this watch, its runs per operation and ns.
STATS=$OUT/bpf-stats.txt
: > "$STATS"
bpf_stats() {
	local name=$1 was n
	shift
	command -v bpftool >/dev/null || return 0
	was=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) || return 0
	sysctl -qw kernel.bpf_stats_enabled=1
	n=$("$@" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^n=/) { sub(/^n=/, "", $i); print $i; exit } }')
	bpftool prog show --json > "$OUT/progs.json" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$was"
	n=${n:-$(printf '%s\n' "$@" | tail -1)}
	# this watch's programs: loaded while it started (other tracers on this
	# machine may run programs of the same names; one that starts within
	# the same seconds would be counted too)
	jq -r --arg c "$name" --argjson n "$n" --argjson t "$WSTART" --argjson r "$WREADY" '
		[.[] | select(.run_cnt? and .run_cnt > 0 and .loaded_at >= $t and .loaded_at <= $r and
			(.name|test("^(fentry|fexit|kprobe|kretprobe|tp|up|uret)_")))]
		| sort_by(-.run_time_ns) | (.[] | select(.run_cnt / $n >= 0.01)
		| "  \($c): \(.name): \(.run_cnt / $n * 100 | round / 100) runs/op, \(.run_time_ns / .run_cnt | round) ns/run, \(.run_time_ns / $n | round) ns/op"),
		  "  \($c): every program: \([.[].run_cnt] | add // 0 | . / $n * 100 | round / 100) runs/op"' \
		"$OUT/progs.json" >> "$STATS" 2>/dev/null
}

# storm NAME "WATCH ARGS" CMD...: CMD fails N times and prints "... n=N ...
# secs=S"; the time ratio, and what watch made of the last one.
storm() {
	local name=$1 args=$2 base=() traced=() b t recs sum line pid drops
	shift 2
	for _ in $(seq "$RUNS"); do base+=("$("$@" | sed -n 's/.* secs=\([0-9.]*\) .*/\1/p')"); done
	watch_start $args
	for _ in $(seq "$RUNS"); do
		line=$("$@")
		traced+=("$(echo "$line" | sed -n 's/.* secs=\([0-9.]*\) .*/\1/p')")
	done
	sleep 2.5 # the last summaries
	bpf_stats "$name" "$@"
	watch_stop
	b=$(printf '%s\n' "${base[@]}" | median)
	t=$(printf '%s\n' "${traced[@]}" | median)
	pid=$(echo "$line" | sed -n 's/^pid=\([0-9]*\) .*/\1/p')
	recs=$(jq -c "select(.pid==$pid and (.event|test(\"failure\")))" "$OUT/watch.jsonl" | wc -l)
	sum=$(jq -s "[.[] | select(.pid==$pid and (.event|test(\"failure\"))) | (.count // 1)] | add" "$OUT/watch.jsonl")
	drops=$(jq -s '[.[] | select(.event=="stop")][0].drops' "$OUT/watch.jsonl")
	printf '%-34s %12.3f s  %12.3f s    x%.2f  (%s records for %s failures, drops %s)\n' \
		"$name" "$b" "$t" "$(echo "$t / $b" | bc -l)" "$recs" "$sum" "$drops"
	echo "    each run, s: without ${base[*]}; with ${traced[*]}"
}

# attach: start to "watching" with the kernel facts gathered afresh (cold,
# --no-cache) and read from their cache (warm: a cache directory of its
# own, filled by one start first), alternated RUNS times so that the
# host's load weighs on both.  Numbers only, no gate.
attach_times() {
	local cold=() warm=() c w
	export MRTRACE_CACHE_DIR=$OUT/facts-cache
	rm -rf "$MRTRACE_CACHE_DIR"
	watch_start && watch_stop
	ATTACH_MS=() HWM_KB=()
	for _ in $(seq "$RUNS"); do
		watch_start --no-cache && watch_stop
		watch_start && watch_stop
	done
	for i in "${!ATTACH_MS[@]}"; do
		if [ $((i % 2)) = 0 ]; then cold+=("${ATTACH_MS[$i]}"); else warm+=("${ATTACH_MS[$i]}"); fi
	done
	ATTACH_MS=() HWM_KB=()
	unset MRTRACE_CACHE_DIR
	c=$(printf '%s\n' "${cold[@]}" | median)
	w=$(printf '%s\n' "${warm[@]}" | median)
	printf '%-34s %12s ms %12s ms   x%.2f   (cold: --no-cache; warm: facts cached)\n' \
		"attach, cold vs warm facts" "$c" "$w" "$(echo "$w / $c" | bc -l)"
	echo "    each start, ms: cold ${cold[*]}; warm ${warm[*]}"
}

# logs: the log reader against grep over the same file, and explain end to
# end; medians of RUNS, ratios against grep, peak RSS from /usr/bin/time.
# grep's count goes to a file: GNU grep writing to /dev/null stops at the
# first match (it needs only the exit status), a baseline of 2 ms for 200 MB
logs() {
	local f=$OUT/merged.log i t g=() r=() r1=() e=() rss_r rss_e
	python3 "$TOP/tools/gen-merged-log.py" "${LOG_MB:-200}" "$f" || return 1
	for i in $(seq "$RUNS"); do
		t=$(date +%s%N); grep -c 'NCCL WARN' "$f" > "$OUT/grep.txt"; g+=($(( ($(date +%s%N) - t) / 1000000 )))
		t=$(date +%s%N); "$TOP/build/bench-logread" "$f" > "$OUT/logread.txt"; r+=($(( ($(date +%s%N) - t) / 1000000 )))
		# one CPU allowed: the reader starts no second thread (twin.c)
		t=$(date +%s%N); taskset -c 0 "$TOP/build/bench-logread" "$f" > /dev/null; r1+=($(( ($(date +%s%N) - t) / 1000000 )))
		t=$(date +%s%N); "$TOP/build/mrtrace" explain --setting shell "$f" > /dev/null 2>&1; e+=($(( ($(date +%s%N) - t) / 1000000 )))
	done
	rss_r=$(/usr/bin/time -f %M "$TOP/build/bench-logread" "$f" 2>&1 > /dev/null | tail -1)
	rss_e=$(/usr/bin/time -f %M "$TOP/build/mrtrace" explain --setting shell "$f" 2>&1 > /dev/null | tail -1)
	local gm rm r1m em mb
	gm=$(printf '%s\n' "${g[@]}" | median); rm=$(printf '%s\n' "${r[@]}" | median)
	r1m=$(printf '%s\n' "${r1[@]}" | median)
	em=$(printf '%s\n' "${e[@]}" | median); mb=$(( $(stat -c %s "$f") / 1000000 ))
	printf '%-34s %8s ms  %8s ms  x%-6s  %s MB, %s MB/s\n' "log reader vs grep -c" "$gm" "$rm" \
		"$(echo "scale=2; $rm / ($gm + 0.001)" | bc)" "$mb" "$(echo "scale=1; $mb * 1000 / ($rm + 0.001)" | bc)"
	printf '%-34s %8s ms  %8s ms  x%-6s  one CPU allowed: no second thread\n' "log reader (one thread) vs grep -c" \
		"$gm" "$r1m" "$(echo "scale=2; $r1m / ($gm + 0.001)" | bc)"
	printf '%-34s %8s ms  %8s ms  x%-6s  peak RSS reader %s KiB, explain %s KiB\n' "explain (end to end) vs grep -c" \
		"$gm" "$em" "$(echo "scale=2; $em / ($gm + 0.001)" | bc)" "$rss_r" "$rss_e"
	rm -f "$f"
}

footer() {
	local a r
	a=$(printf '%s\n' "${ATTACH_MS[@]}" | median)
	r=$(printf '%s\n' "${HWM_KB[@]}" | sort -n | tail -1)
	printf '%-34s %s ms (median of %d starts)\n' "attach (start to watching)" "$a" "${#ATTACH_MS[@]}"
	printf '%-34s %.1f MiB (VmHWM, the largest)\n' "watch peak RSS" "$(echo "$r / 1024" | bc -l)"
	printf '%-34s %s ms (median of %d stops)\n' "detach (SIGINT to exit)" \
		"$(printf '%s\n' "${DETACH_MS[@]}" | median)" "${#DETACH_MS[@]}"
	echo "BPF run time (kernel.bpf_stats_enabled, one extra run per case):"
	cat "$STATS"
}

header() {
	echo "$1: kernel $(uname -r), $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(date -u +%Y-%m-%d); medians of $RUNS runs per side"
	printf '%-34s %15s %15s   %s\n' "operation" "without" "with mrtrace" "ratio"
}

# offpath: work that registers nothing, with watch armed system-wide: how
# many times its programs ran (the goal is 0: docs/design.md section 5).
offpath() {
	local odirect=
	watch_start
	[ -b /dev/nullb0 ] && odirect=$(watch_runs "$LOOP" odirect /dev/nullb0 10000)
	echo "off the registration path (runs of watch's programs, kernel run_cnt):"
	# the measurement's own (bpftool's privilege checks run capable())
	echo "    nothing (true), the measurement's own: $(watch_runs true)"
	echo "    O_DIRECT 10,000 reads of 64 KiB: ${odirect:-no null_blk}"
	echo "    getppid 300,000: $(watch_runs "$LOOP" getppid 300000)"
	echo "    mlock+munlock 30,000 within the limit: $(watch_runs "$LOOP" mlock 30000)"
	echo "    fork+exec 300: $(watch_runs "$LOOP" forkexec 300)"
	watch_stop
}

# sigint_during_attach: SIGINT one second into a cold start (the facts
# gathered, every site loaded and attached: seconds here): how long until
# watch is gone, whether it wrote its stop record, and what it left in the
# kernel (links and programs of its names).
sigint_during_attach() {
	local t0 ms pid links0 links1
	links0=$(bpftool link show --json 2>/dev/null | jq length)
	"$MRTRACE" watch --json --no-cache -o "$OUT/sigint.jsonl" 2> "$OUT/sigint.err" &
	pid=$!
	sleep 1
	t0=${EPOCHREALTIME/./}
	kill -INT "$pid"
	# a background job of a script starts with SIGINT ignored: until watch
	# installs its handlers the request is lost (issue 20: handlers before
	# anything slow); then it is ended here, and said so
	for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	if kill -0 "$pid" 2>/dev/null; then
		ms="lost (still running after 30 s: SIGTERM)"
		kill -TERM "$pid"
	fi
	wait "$pid"
	links1=$(bpftool link show --json 2>/dev/null | jq length)
	printf '%-34s %s ms to exit; stop record: %s; links left: %s\n' "SIGINT 1 s into a cold start" \
		"$ms" "$(grep -q '"event":"stop"' "$OUT/sigint.jsonl" 2>/dev/null && echo yes || echo no)" \
		"$((links1 - links0))"
}

# unload_reload: rdma_rxe unloaded and loaded again under watch: the unload
# (never refused), the time until its sites are armed again, the re-arm.
unload_reload() {
	local t0 t1 t2 i ok=no rearm
	watch_start
	t0=${EPOCHREALTIME/./}
	rdma link del rxe0 && modprobe -r rdma_rxe && ok=yes
	t1=${EPOCHREALTIME/./}
	modprobe rdma_rxe
	for i in $(seq 1200); do grep -q 'rdma_rxe.* loaded: armed' "$OUT/watch.err" && break; sleep 0.05; done
	t2=${EPOCHREALTIME/./}
	rdma link add rxe0 type rxe netdev dummy0 2>/dev/null
	rearm=$(jq -r 'select(.event=="modules_changed" and (.loaded|length) > 0) | .rearm_s' "$OUT/watch.jsonl" | tail -1)
	watch_stop
	printf '%-34s unload %s (%s ms); armed again %s ms after modprobe; re-arm %.2f s; watch start %s ms\n' \
		"rdma_rxe unload/reload, watched" "$ok" "$(( (t1 - t0) / 1000 ))" "$(( (t2 - t1) / 1000 ))" \
		"${rearm:-0}" "${ATTACH_MS[-1]}"
}

# ============================ inside the VM ============================
if [ "$MODE" = --in-guest ]; then
	. "$TOP/tests/vm/guest-lib.sh"
	header "guest"
	bench "reg+dereg 64 KiB" "" "$STORM" reg rxe0 65536 3000
	floor "  the same, probes alone" "$STORM" reg rxe0 65536 3000
	bench "reg+dereg 4 MiB" "" "$STORM" reg rxe0 4194304 1000
	floor "  the same, probes alone" "$STORM" reg rxe0 4194304 1000
	bench "getppid (no site on its path)" "" "$LOOP" getppid 300000
	if modprobe null_blk nr_devices=1 2>/dev/null && [ -b /dev/nullb0 ]; then
		bench "O_DIRECT 64 KiB read (pins pages)" "" "$LOOP" odirect /dev/nullb0 10000
	else
		echo "O_DIRECT: no null_blk here; skipped"
	fi
	storm "storm: 20,000 failed registrations" "" \
		prlimit --memlock=65536:65536 $NOBODY "$STORM" reg rxe0 1048576 20000
	offpath
	sigint_during_attach
	unload_reload
	footer
	exit 0
fi

# ============================ on the host ============================
make -s -C "$TOP" all build/tests/helpers/bench_loop build/tests/helpers/libibverbs_fake \
	build/tests/helpers/storm build/bench-consumer build/bench-logread >/dev/null || exit 1
cp "$TOP/build/tests/helpers/libibverbs_fake" "$OUT/libibverbs.so.1"
rc=0
if [ "$MODE" != --vm ]; then
	header "host"
	attach_times
	bench "getppid, --syscalls=on" "--syscalls=on" "$LOOP" getppid 3000000
	bench "getppid, --syscalls=off" "--syscalls=off" "$LOOP" getppid 3000000
	bench "mlock+munlock, --syscalls=on" "--syscalls=on" "$LOOP" mlock 300000
	# mrtrace finds a library a process loaded by rescanning every 2 s
	BENCH_DELAY=3 bench "ibv_reg_mr_iova2 (uprobe)" "--syscalls=off" "$LOOP" reg "$OUT/libibverbs.so.1" 300000
	storm "storm: 20,000 failed mlock" "--syscalls=on" \
		prlimit --memlock=65536:65536 $NOBODY "$STORM" mlock 1048576 20000
	sigint_during_attach
	footer
	# the consumer: synthetic records (a trail fixture and its libibverbs
	# call) through the correlator, the explanation engine and the output,
	# to /dev/null; /proc read once (tools/bench-consumer.c).  No BPF.
	echo
	"$TOP/build/bench-consumer" "${CONSUMER_RECORDS:-20000}" || rc=1
	echo
	logs || rc=1
fi
if [ "$MODE" != --host ]; then
	echo
	make -s -C "$TOP" build/tests/helpers/bench_loop build/tests/helpers/storm >/dev/null
	VM_QUIET=1 "$TOP/tests/vm/run.sh" --kernel "${KERNEL:-6.12}" --out "$OUT/vm" \
		--env "RUNS=$RUNS" "$TOP/tools/bench.sh" --in-guest || rc=1
fi
exit $rc
