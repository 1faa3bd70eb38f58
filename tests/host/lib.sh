# SPDX-License-Identifier: GPL-2.0-only
# tests/host/lib.sh - what every live host runner shares: the counters and
# the ok/bad/skip/check/jq_true helpers, sourced (not run) by run.sh and
# each suite-*.sh.  A runner ends with its own count line, "NAME: N passed,
# M failed" (make test and CI read those lines).
PASS=0 FAIL=0 SKIP=0
ok() { PASS=$((PASS + 1)); echo "ok $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
skip() { SKIP=$((SKIP + 1)); echo "skip $1: $2"; }
check() { # check NAME CMD...: ok when CMD exits 0, else its last lines
	local n=$1; shift
	local o; o=$("$@" 2>&1) && ok "$n" || bad "$n" "$(printf '%s' "$o" | tail -3 | tr '\n' ' ')"
}
jq_true() { # jq_true NAME JSON EXPR
	if [ -n "$2" ] && printf '%s\n' "$2" | jq -e "$3" >/dev/null 2>&1; then ok "$1"
	else bad "$1" "false: $3 on $(printf '%s' "$2" | cut -c1-300)"; fi
}
# expect NAME RC REGEX CMD...: exit status RC and stderr+stdout matching REGEX
# (CMD bounded to 20 s)
expect() {
	local n=$1 rc=$2 re=$3; shift 3
	local o r
	o=$(timeout 20 "$@" 2>&1); r=$?
	if [ "$r" = "$rc" ] && printf '%s' "$o" | grep -Eq -- "$re"; then ok "$n"
	else bad "$n" "exit $r, wanted $rc and /$re/: $(printf '%s' "$o" | tail -2 | tr '\n' ' ' | cut -c1-300)"; fi
}
# kernel_at_least MAJOR.MINOR: the running kernel is that release or newer
# (e.g. 6.6, where uprobes become uprobe_multi links: user/tracer/umulti.c)
kernel_at_least() { local v; v=$(uname -r); v=${v%%-*}; [ "$(printf '%s\n%s\n' "$v" "$1" | sort -V | head -1)" = "$1" ]; }
# host_abort NAME WHY: the runner cannot run at all; one failure, counted
host_abort() { echo "$2"; echo "$1: 0 passed, 1 failed"; exit 1; }
# as user nobody, no groups: NOBODY CMD...
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
wait_line() { # FILE REGEX SECONDS: until a line of FILE matches, or fail
	local i
	for i in $(seq $(( $3 * 10 ))); do grep -Eq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
# wait_exec PID COMM: until PID has exec'd COMM (prlimit and setpriv exec in
# turn: until then the process has neither the limit nor the uid to check)
wait_exec() {
	local i
	for i in $(seq 100); do [ "$(cat /proc/$1/comm 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done
	return 1
}
# wait_state PID STATE: until /proc/PID/stat says STATE (Z: a zombie)
wait_state() {
	local i
	for i in $(seq 100); do [ "$(sed 's/.*) \(.\).*/\1/' /proc/$1/stat 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done
	return 1
}
