# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm/cases/aftermath.sh - the after-the-fact path (README "The job
# already died") against the kernel's own answer: a real client nobody here
# wrote fails a registration while `mrtrace watch` runs; afterwards
# `mrtrace explain` reads only what a user would have (the client's output)
# and infers a cause; given the watch records too, it must name the same
# cause and say that the two agree.
#   client: UCX's ucx_perftest (ucx-utils) over rc_verbs on rxe0, as nobody
#   with RLIMIT_MEMLOCK 64 KiB: its memory pools' ibv_reg_mr fails and UCX
#   prints "[time] [host:pid:tid] ... UCX ERROR ibv_reg_mr(address=...,
#   length=..., access=0x...) failed: Cannot allocate memory" (its pid is how
#   explain finds the watch record of the same process).
#   The same client rootless (root of a user namespace: CAP_IPC_LOCK there
#   does not count) and with the kernel log beside its output: the same
#   verdict, agreed with watch's record of that process.
# vm-timeout: 240
. "$TOP/tests/vm/mrt-lib.sh"

if ! command -v ucx_perftest > /dev/null; then
	skip "ucx_perftest not installed (tools/deps.sh all installs ucx-utils)"
	return 0
fi

check watch_starts mrt_start aftermath
port=$((19500 + RANDOM % 300))
# the server side needs no failure: root, no limit; the client is the
# failing rank (nobody, 64 KiB)
UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,self timeout 30 ucx_perftest -p "$port" \
	> "$CASE_OUT/server.log" 2>&1 &
srv=$!
sleep 1
with_memlock 65536 as_nobody env UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,self \
	timeout 30 ucx_perftest -p "$port" -t tag_bw -s 1048576 -n 10 127.0.0.1 \
	> "$CASE_OUT/client.log" 2>&1
note "client exit $?: $(grep -m2 'UCX ERROR\|error' "$CASE_OUT/client.log" | tr '\n' ' ' | cut -c1-300)"
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
# rootless: the same pair again, the client root of its own user namespace
port=$((port + 1))
UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,self timeout 30 ucx_perftest -p "$port" \
	> "$CASE_OUT/server-userns.log" 2>&1 &
srv=$!
sleep 1
with_memlock 65536 as_nobody unshare --user --map-root-user env UCX_NET_DEVICES=rxe0:1 \
	UCX_TLS=rc_verbs,self timeout 30 ucx_perftest -p "$port" -t tag_bw -s 1048576 -n 10 127.0.0.1 \
	> "$CASE_OUT/client-userns.log" 2>&1
note "rootless client exit $?: $(grep -m1 'UCX ERROR' "$CASE_OUT/client-userns.log" | cut -c1-200)"
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
dmesg > "$CASE_OUT/dmesg.txt" 2>&1
# the kernel's answer: watch's record of the client's failed registration
for _ in $(seq 50); do grep -q '"event":"registration_failure"\|"cause":"memlock_limit"' "$MRT_OUT" && break; sleep 0.2; done
check watch_stops mrt_stop
rec=$(jq -c 'select(.comm=="ucx_perftest" and .cause=="memlock_limit")' "$MRT_OUT" 2>/dev/null | head -1)
jq_true watch_proves_memlock "$rec" '.certainty=="proven" and .uid==65534'
check client_logged_the_failure grep -q 'UCX  *ERROR.*ibv_reg_mr.*Cannot allocate memory' "$CASE_OUT/client.log"

# after the fact, from the log alone: inferred, never proven
"$MRTRACE" explain --json --setting shell --host "$(hostname)" "$CASE_OUT/client.log" > "$CASE_OUT/inferred.jsonl" 2> "$CASE_OUT/inferred.err"
inf=$(jq -c 'select(.event=="inferred_failure")' "$CASE_OUT/inferred.jsonl" 2>/dev/null | head -1)
jq_true log_alone_inferred "$inf" '.certainty=="inferred" and .cause=="memlock_limit" and .errno==12 and .errno_name=="ENOMEM" and (.rests_on|any(test("memlock limit was 64 KiB, and this request alone was 1 MiB")))'
# with watch's records beside it: the same process, the same cause, agreed
"$MRTRACE" explain --json --setting shell --host "$(hostname)" "$CASE_OUT/client.log" "$MRT_OUT" > "$CASE_OUT/both.jsonl" 2> "$CASE_OUT/both.err"
both=$(jq -c 'select(.event=="inferred_failure")' "$CASE_OUT/both.jsonl" 2>/dev/null | head -1)
pid=$(jq -r '.pid' <<< "$rec" 2>/dev/null)
jq_true log_and_watch_agree "$both" ".cause==\"memlock_limit\" and .pid==${pid:-0} and .watch_record.cause==\"memlock_limit\" and .watch_record.agrees==true"
"$MRTRACE" explain --setting shell --host "$(hostname)" "$CASE_OUT/client.log" "$MRT_OUT" > "$CASE_OUT/both.txt" 2>&1
check text_says_agreement grep -q "a watch record of the same process proved memlock_limit: it agrees" "$CASE_OUT/both.txt"

# rootless, with the kernel log beside the client's output: the inferred
# verdict of the client's line is the one watch proved for that process
urec=$(jq -c 'select(.comm=="ucx_perftest" and .cause=="memlock_limit" and .process.user_namespace==true)' "$MRT_OUT" 2>/dev/null | head -1)
jq_true rootless_watch_proves_memlock "$urec" '.certainty=="proven" and .evidence.cap_ipc_lock==false'
"$MRTRACE" explain --json --setting shell --host "$(hostname)" "$CASE_OUT/client-userns.log" "$CASE_OUT/dmesg.txt" "$MRT_OUT" \
	> "$CASE_OUT/rootless.jsonl" 2> "$CASE_OUT/rootless.err"
upid=$(jq -r '.pid' <<< "$urec" 2>/dev/null)
uinf=$(jq -c --arg f "$CASE_OUT/client-userns.log" 'select(.event=="inferred_failure" and .source.file==$f)' \
	"$CASE_OUT/rootless.jsonl" 2>/dev/null | head -1)
jq_true rootless_log_and_kernel_log_agree "$uinf" \
	".certainty==\"inferred\" and .cause==\"memlock_limit\" and .pid==${upid:-0} and .watch_record.agrees==true and (.rests_on|any(test(\"memlock limit was 64 KiB\")))"
