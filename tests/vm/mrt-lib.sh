# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/mrt-lib.sh - mrtrace-specific helpers for VM cases; source it
# after guest-lib.sh (suite.sh sources only guest-lib.sh: a case sources
# this file itself).
#
#   mrt_start NAME [WATCH-ARGS...]   mrtrace watch --json in the background,
#                                    output $CASE_OUT/NAME.jsonl, waits for
#                                    its "start" record
#   mrt_stop                         SIGINT, wait, require a clean exit and
#                                    the "stop" record
#   probe NAME [WRAPPERS...] -- [MRPROBE-ARGS...]
#                                    run mrprobe --json (through wrappers such
#                                    as with_memlock/as_nobody), output
#                                    $CASE_OUT/NAME.probe.jsonl; sets PROBE_PID
#                                    and PROBE_RC
#   mrt_wait_event PID [SECONDS]     wait until mrtrace reported on PID
#   mrt_event PID                    the reg_failure record(s) for PID
#   jq_true NAME JSON EXPR           check NAME: EXPR is true for JSON
#
# Every assertion goes to mrtrace's own JSON, not to mrprobe's exit code.

: "${MRTRACE:?}" "${MRPROBE:?}" "${CASE_OUT:?}"

mrt_start() {
	local name=$1
	shift
	MRT_OUT=$CASE_OUT/$name.jsonl
	spawn "$MRTRACE" watch --json "$@" > "$MRT_OUT" 2> "$MRT_OUT.err"
	MRT_PID=$!
	if ! wait_for_line "$MRT_OUT" '"event":"start"' 120; then
		echo "mrtrace did not start; its stderr:" >&2
		cat "$MRT_OUT.err" >&2
		return 1
	fi
}

mrt_stop() {
	local rc
	stop_pid "$MRT_PID" 30
	rc=$?
	wait "$MRT_PID"
	local st=$?
	[ $rc = 0 ] || { echo "mrtrace did not stop on SIGINT" >&2; return 1; }
	[ $st = 0 ] || { echo "mrtrace exited $st; stderr:" >&2; tail -5 "$MRT_OUT.err" >&2; return 1; }
	grep -q '"event":"stop"' "$MRT_OUT" || { echo "no stop record" >&2; return 1; }
}

probe() {
	local name=$1 wrappers=() out
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do wrappers+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	out=$CASE_OUT/$name.probe.jsonl
	"${wrappers[@]}" "$MRPROBE" -d rxe0 --json "$@" > "$out" 2> "$out.err"
	PROBE_RC=$?
	PROBE_PID=$(jq -r 'select(.event=="setup") | .pid' "$out" 2>/dev/null | head -1)
	note "probe $name: rc=$PROBE_RC pid=${PROBE_PID:-?} $(jq -r 'select(.event=="mr") | "\(.result)/\(.errno_name // "")"' "$out" 2>/dev/null | tr '\n' ' ')"
}

mrt_wait_event() {
	local pid=$1 secs=${2:-15}
	[ -n "$pid" ] || { echo "no pid (mrprobe did not start?)" >&2; return 1; }
	wait_for_line "$MRT_OUT" "\"event\":\"(reg_failure|nccl_probe|mlock_failure)\",[^}]*\"pid\":$pid," "$secs"
}

mrt_event() {
	jq -c "select((.event==\"reg_failure\" or .event==\"nccl_probe\") and .pid==$1)" "$MRT_OUT"
}

jq_true() {
	local name=$1 json=$2 expr=$3
	check "$name" _jq_true "$json" "$expr"
}
_jq_true() {
	[ -n "$1" ] || { echo "no record"; return 1; }
	if ! printf '%s\n' "$1" | jq -e "$2" > /dev/null; then
		echo "false: $2"
		printf '%s\n' "$1" | jq -c '{event,cause,errno_name,evidence,summary}' | cut -c1-600
		return 1
	fi
}
