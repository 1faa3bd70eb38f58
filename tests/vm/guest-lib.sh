# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm/guest-lib.sh - helpers for scripts that run inside the test VM
# (tests/vm/run.sh, tests/vm/suite.sh). Source it from bash:
#
#     . "$TOP/tests/vm/guest-lib.sh"
#
# Results: `check` appends one line per check to $VM_OUT/checks.txt,
#     ok CASE:NAME
#     FAIL CASE:NAME detail
# and prints it; `skip` and `skip_check` append
#     SKIP CASE: reason            (the rest of the case cannot hold here)
#     SKIP CASE:NAME: reason       (this one check cannot hold here)
# suite.sh counts those lines; nothing else is a result.
# CASE defaults to the sourcing script's name.
#
# Executed rather than sourced (`bash guest-lib.sh CMD ARGS...`) it runs CMD
# with these functions defined: that is how the wrappers below (as_nobody,
# no_ipc_lock, with_memlock, spawn), which exec a program, can also run
# another wrapper or a function of yours (export -f it first).
#
# mrtrace-specific helpers do not belong here (they go in their own file).

: "${VM_OUT:?guest-lib.sh: VM_OUT is not set (run inside tests/vm/run.sh)}"
: "${CASE:=$(basename "${0%.sh}")}"
export CASE
VM_LIB=${BASH_SOURCE[0]}
VM_HEARTBEAT=/run/vm-heartbeat
VM_CHECKS=$VM_OUT/checks.txt

# Under TCG every exec costs ~50 ms, so the helpers that run per check use
# bash builtins only (no cut/sed/tee/mktemp).

# heartbeat TEXT: tell the VM's progress watchdog we are alive and where.
# Without a heartbeat (or script output) for VM_WATCHDOG s, the guest dumps
# every task's stack to the console: the last heartbeat says what hung.
heartbeat() {
	local up _
	read -r up _ < /proc/uptime
	echo "$up $CASE: $*" 2>/dev/null > "$VM_HEARTBEAT" || true
}

# note TEXT: a remark that travels with the results (in checks.txt, not
# counted as a check).
note() {
	heartbeat "note $*"
	_vm_line "note $CASE: $*"
}

# skip REASON: this case cannot hold on this kernel (a feature it needs is
# not there: no udmabuf, no dma-buf MRs, ...). Records "SKIP CASE: REASON"
# and ends the case with status 0; the checks it recorded so far stay.
# For a missing feature only, never for a wrong verdict: that is a FAIL.
skip() {
	heartbeat "skip $*"
	_vm_line "SKIP $CASE: $*"
	exit 0
}

# skip_check NAME REASON: one check that cannot hold on this kernel; records
# "SKIP CASE:NAME: REASON" and goes on.
skip_check() {
	local name=$1
	shift
	heartbeat "skip $name"
	_vm_line "SKIP $CASE:$name: $*"
}

# kernel_older_than MAJOR.MINOR: the running kernel is older (for skips:
# `kernel_older_than 5.12 && skip "no dma-buf MRs before 5.12"`). No fork.
kernel_older_than() {
	local r want=$1 a b c d
	read -r r < /proc/sys/kernel/osrelease
	IFS=. read -r a b _ <<< "$r"
	IFS=. read -r c d <<< "$want"
	b=${b%%[!0-9]*}
	(( a < c || (a == c && b < d) ))
}

# _vm_line TEXT: append one line to checks.txt and print it.
_vm_line() {
	local line=${1//$'\n'/ }
	echo "$line" >> "$VM_CHECKS"
	echo "$line"
}

# _vm_run CMD...: run CMD in this shell (so a function's side effects
# stay), stdin /dev/null, output captured; print it indented. Sets _VM_RC
# and _VM_LAST (its last non-blank output line, at most 200 characters).
_vm_run() {
	local out=/tmp/vm-check.$BASHPID l
	"$@" >"$out" 2>&1 </dev/null
	_VM_RC=$?
	_VM_LAST=
	while IFS= read -r l || [ -n "$l" ]; do
		printf '    %s\n' "$l"
		[[ $l == *[![:space:]]* ]] && _VM_LAST=${l:0:200}
	done < "$out"
	: > "$out"
}

# check NAME CMD [ARGS...]: run CMD (a program or a function); pass if it
# exits 0. Its output is printed indented; a failure's detail is its exit
# status and last output line. Returns CMD's status.
check() {
	local name=$1
	shift
	heartbeat "check $name"
	_vm_run "$@"
	if [ $_VM_RC = 0 ]; then
		_vm_line "ok $CASE:$name"
	else
		_vm_line "FAIL $CASE:$name (exit $_VM_RC)${_VM_LAST:+: $_VM_LAST}"
	fi
	return $_VM_RC
}

# check_fails NAME CMD [ARGS...]: pass if CMD exits non-zero (an expected
# failure, e.g. a registration that must be refused).
check_fails() {
	local name=$1
	shift
	heartbeat "check_fails $name"
	_vm_run "$@"
	if [ $_VM_RC != 0 ]; then
		_vm_line "ok $CASE:$name"
		return 0
	fi
	_vm_line "FAIL $CASE:$name (exit 0, expected a failure)${_VM_LAST:+: $_VM_LAST}"
	return 1
}

# _vm_cmd CMD...: sets _VM_CMD to an argv that exec can run: functions (this
# library's or exported ones) go through `bash guest-lib.sh`.
_vm_cmd() {
	if [ "$(type -t -- "$1")" = function ]; then
		_VM_CMD=(bash "$VM_LIB" "$@")
	else
		_VM_CMD=("$@")
	fi
}

# as_nobody CMD...: run CMD as nobody:nogroup with no supplementary groups.
# Changing uid away from 0 also clears the capabilities.
as_nobody() {
	_vm_cmd "$@"
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "${_VM_CMD[@]}"
}

# no_ipc_lock CMD...: run CMD as root but without CAP_IPC_LOCK (dropped from
# the inheritable and the bounding set, so exec cannot give it back).
no_ipc_lock() {
	_vm_cmd "$@"
	setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock -- "${_VM_CMD[@]}"
}

# with_memlock BYTES CMD...: run CMD with RLIMIT_MEMLOCK soft=hard=BYTES.
# Put it OUTSIDE as_nobody (with_memlock 65536 as_nobody prog): raising a
# hard limit needs privilege that nobody does not have.
with_memlock() {
	local bytes=$1
	shift
	_vm_cmd "$@"
	prlimit --memlock="$bytes:$bytes" -- "${_VM_CMD[@]}"
}

# spawn CMD...: start CMD in the background, like `CMD &` ($! is its pid),
# but with SIGINT and SIGQUIT at their defaults. bash starts a background
# job of a non-interactive shell with both ignored, and an ignored signal
# stays ignored across exec: `sleep 100 &` would shrug off stop_pid's
# SIGINT. (Programs that install their own handler, like mrtrace, are not
# affected.) Redirect as for any command: spawn prog >log 2>&1
spawn() {
	_vm_cmd "$@"
	env --default-signal=INT,QUIT -- "${_VM_CMD[@]}" &
}

# _vm_deadline SECONDS: set _VM_DEADLINE to the ${EPOCHREALTIME/./}
# (microseconds) SECONDS from now; SECONDS may have a fraction. No fork.
_vm_deadline() {
	local i=${1%%.*} f=
	[[ $1 == *.* ]] && f=${1#*.}
	f=${f}000000
	_VM_DEADLINE=$(( ${EPOCHREALTIME/./} + ${i:-0} * 1000000 + 10#${f:0:6} ))
}

# wait_for_line FILE REGEX TIMEOUT_S: wait until a line of FILE matches the
# extended REGEX. Non-zero (and the file's tail on stderr) on timeout.
wait_for_line() {
	local file=$1 re=$2 timeout=$3
	_vm_deadline "$timeout"
	heartbeat "wait_for_line $file /$re/"
	while ! grep -Eq -- "$re" "$file" 2>/dev/null; do
		if (( ${EPOCHREALTIME/./} >= _VM_DEADLINE )); then
			echo "wait_for_line: no line matching /$re/ in $file after ${timeout}s; it ends with:" >&2
			tail -n 5 "$file" 2>&1 | sed 's/^/    /' >&2
			return 1
		fi
		sleep 0.2   # an exec each time: do not poll faster under TCG
	done
}

# dump_stacks PID...: state, wait channel and kernel stack of every thread
# of each PID (what a hung process is stuck on).
dump_stacks() {
	local pid t
	for pid in "$@"; do
		[ -d "/proc/$pid" ] || continue
		echo "--- pid $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
		for t in /proc/"$pid"/task/*; do
			echo "  tid ${t##*/} ($(cat "$t/comm" 2>/dev/null)) state $(awk '/^State:/ {print $2}' "$t/status" 2>/dev/null) wchan $(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/    /' "$t/stack" 2>/dev/null
		done
	done
}

# _vm_alive PID: the process exists and is not a zombie (a child that exited
# but was not reaped yet still answers kill -0).
_vm_alive() {
	local stat state
	read -r stat 2>/dev/null < "/proc/$1/stat" || return 1
	state=${stat##*) }     # comm, in (), may hold spaces: skip past it
	state=${state%% *}
	[ "$state" != Z ] && [ "$state" != X ]
}

# stop_pid PID TIMEOUT_S: SIGINT PID (how a user stops a tracer) and wait up
# to TIMEOUT_S for it to exit. If it does not, dump its threads' stacks and
# SIGKILL it, and return 1: not stopping on SIGINT is a bug worth a FAIL.
# It does not reap: `wait PID` afterwards gives a child's exit status.
stop_pid() {
	local pid=$1 timeout=$2 i
	heartbeat "stop_pid $pid"
	_vm_alive "$pid" || return 0
	kill -INT "$pid" 2>/dev/null || return 0
	_vm_deadline "$timeout"
	while _vm_alive "$pid"; do
		if (( ${EPOCHREALTIME/./} >= _VM_DEADLINE )); then
			echo "stop_pid: $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) still running ${timeout}s after SIGINT; stacks, then SIGKILL:" >&2
			dump_stacks "$pid" >&2
			kill -KILL "$pid" 2>/dev/null
			for i in 1 2 3 4 5 6 7 8 9 10; do _vm_alive "$pid" || break; sleep 0.5; done
			return 1
		fi
		sleep 0.2
	done
	return 0
}

# Executed (not sourced): run the command line with the functions above.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -gt 0 ] || { echo "usage: bash guest-lib.sh CMD [ARGS...]" >&2; exit 2; }
	"$@"
	exit $?
fi
