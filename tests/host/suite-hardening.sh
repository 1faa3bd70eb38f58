#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-hardening.sh - mrtrace used as a careless or hostile user
# would use it: reports that are not reports, files that are FIFOs or
# symlinks, output that cannot be written, escape sequences in names and
# settings, arguments out of range.  Each check is the regression test of a
# defect found by the hardening audit.
#
# MRTRACE=path/to/mrtrace runs it against another build (make asan), HOST_OUT=DIR
# puts its files elsewhere.
# Needs root.  Ends with "hardening: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=${MRTRACE:-$TOP/build/mrtrace}
OUT=${HOST_OUT:-$TOP/build/host-hardening}
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
# stop_bg PID: SIGINT, then SIGKILL after 15 s; returns the exit status
stop_bg() {
	kill -INT "$1" 2>/dev/null
	local i
	for i in $(seq 150); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}
# ASan reserves terabytes of address space: no RLIMIT_AS tests under it
asan() { ldd "$MRTRACE" 2>/dev/null | grep -q libasan; }

[ "$(id -u)" = 0 ] || host_abort hardening "hardening tests need root"
[ -x "$MRTRACE" ] || host_abort hardening "missing $MRTRACE: run 'make'"

FIX=$TOP/tests/fixtures/check
"$MRTRACE" check --sysroot "$FIX/h100" --json > "$OUT/a.json" 2>/dev/null
"$MRTRACE" check --sysroot "$FIX/portdown" --json > "$OUT/b.json" 2>/dev/null

# ---- 1. diff never aborts on a report ----------------------------------------
printf '%s' '{"schema":"mrtrace-check/1","host":{"hostname":""},"items":[{}],"rdma":{"devices":[{"ports":""}]}}' > "$OUT/ports.json"
expect diff_wrong_type_message 2 'ports.json: rdma.devices\[0\]\.ports is a string' "$MRTRACE" diff "$OUT/a.json" "$OUT/ports.json"
echo null > "$OUT/null.json"
expect diff_null_not_a_report 2 'null.json: not a `mrtrace check --json` report' "$MRTRACE" diff "$OUT/a.json" "$OUT/null.json"
expect diff_dev_zero_refused 2 '/dev/zero: not a regular file' "$MRTRACE" diff "$OUT/a.json" /dev/zero
expect diff_directory 2 ': is a directory' "$MRTRACE" diff "$OUT/a.json" "$OUT"
expect diff_stdin 1 'RESULT  FAIL' sh -c "'$MRTRACE' diff '$OUT/a.json' - < '$OUT/b.json'"
expect diff_same_file_twice 1 'given twice: the same report, read once' "$MRTRACE" diff "$OUT/a.json" "$OUT/a.json" "$OUT/b.json"
if ! asan; then
	python3 -c "
import json
items=[{'id':'i%d'%i,'verdict':'ok'} for i in range(300000)]
json.dump({'schema':'mrtrace-check/1','host':{'hostname':'big'},'items':items},open('$OUT/big.json','w'),separators=(',',':'))"
	expect diff_out_of_memory_said 2 'big.json: out of memory' prlimit --as=200000000 "$MRTRACE" diff "$OUT/a.json" "$OUT/big.json"
	rm -f "$OUT/big.json"
fi

# ---- 4. nothing raw reaches a terminal or a JSON reader ------------------------
# a process whose comm and cmdline carry "clear screen" and invalid UTF-8
python3 -c 'import ctypes,sys,time; ctypes.CDLL(None).prctl(15, b"\x1b[2Jx\xff", 0, 0, 0); time.sleep(30)' \
	"$(printf '\033[2J\377-evil')" &
EVIL=$!
for i in $(seq 50); do grep -q "$(printf '\033')" "/proc/$EVIL/comm" 2>/dev/null && break; sleep 0.1; done
"$MRTRACE" check -p "$EVIL" > "$OUT/evil.txt" 2>&1
check check_text_no_escape_byte sh -c "! grep -q \$(printf '\033') '$OUT/evil.txt'"
check check_text_shows_escape grep -q '\\e\[2J' "$OUT/evil.txt"
"$MRTRACE" check -p "$EVIL" --json > "$OUT/evil.json" 2>/dev/null
check check_json_valid_utf8 python3 -c "import json,sys; json.loads(open('$OUT/evil.json','rb').read().decode('utf-8'))"
kill "$EVIL" 2>/dev/null; wait "$EVIL" 2>/dev/null
printf '%s' '{"schema":"mrtrace-check/1","host":{"hostname":"x"},"items":[],"memlock":{"scope":"d","units":{"\u001b[2Jevil":5}}}' > "$OUT/esckey.json"
"$MRTRACE" diff "$OUT/a.json" "$OUT/esckey.json" > "$OUT/esckey.txt" 2>&1
check diff_message_escaped sh -c "grep -q 'units.\\\\e\\[2Jevil is a number' '$OUT/esckey.txt' && ! grep -q \$(printf '\033') '$OUT/esckey.txt'"

# ---- 5. output files ---------------------------------------------------------------
expect watch_dev_full_fails 1 'writing /dev/full: No space left on device' "$MRTRACE" watch --json -d 1 -o /dev/full
expect check_dev_full_fails 2 'writing standard output: No space left on device' sh -c "'$MRTRACE' check > /dev/full"
expect check_json_dev_full_fails 2 'No space left on device' sh -c "'$MRTRACE' check --json > /dev/full"
expect diff_dev_full_fails 2 'No space left on device' sh -c "'$MRTRACE' diff '$OUT/a.json' '$OUT/b.json' > /dev/full"
# a usage error creates nothing
rm -f "$OUT/usage.jsonl"
"$MRTRACE" watch --json -o "$OUT/usage.jsonl" -p 1 -- true > /dev/null 2>&1
check usage_error_creates_no_file test ! -e "$OUT/usage.jsonl"
# the traced command does not inherit the records' descriptor
"$MRTRACE" watch --json -o "$OUT/fd.jsonl" -- sh -c 'for fd in 3 4 5 6 7 8 9; do echo "{\"event\":\"forged\"}" >&$fd; done 2>/dev/null; ls -l /proc/self/fd' > "$OUT/fd.ls" 2>/dev/null
check command_cannot_forge_records sh -c "! grep -q forged '$OUT/fd.jsonl' && ! grep -q 'fd.jsonl' '$OUT/fd.ls'"
check records_written grep -q '"event":"stop"' "$OUT/fd.jsonl"
# symlinks another user planted in a world-writable sticky directory
STICKY=$(mktemp -d /tmp/mrt-sticky-XXXXXX); chmod 1777 "$STICKY"
touch "$OUT/victim"; ln -s "$OUT/victim" "$STICKY/planted"; chown -h nobody "$STICKY/planted"
expect sticky_symlink_refused 2 'symbolic link' "$MRTRACE" watch --json -d 1 -o "$STICKY/planted"
check sticky_symlink_target_untouched test ! -s "$OUT/victim"
su nobody -s /bin/sh -c "touch '$STICKY/theirs'"
expect sticky_foreign_file_refused 2 'belongs to uid' "$MRTRACE" watch --json -d 1 -o "$STICKY/theirs"
ln -s "$OUT" "$STICKY/dirlink"; chown -h nobody "$STICKY/dirlink"
expect sticky_symlinked_dir_refused 2 'symbolic link of uid' "$MRTRACE" watch --json -d 1 -o "$STICKY/dirlink/x.jsonl"
ln -s "$OUT/mine.jsonl" "$OUT/mylink"
expect own_symlink_followed 0 'stopped after' "$MRTRACE" watch --json -d 1 -o "$OUT/mylink"
check own_symlink_written grep -q '"event":"stop"' "$OUT/mine.jsonl"
rm -rf "$STICKY"
# appended, never truncated: copytruncate rotation leaves no hole of NULs
echo '{"event":"earlier run"}' > "$OUT/rot.jsonl"
"$MRTRACE" watch --json -o "$OUT/rot.jsonl" --syscalls=on > /dev/null 2> "$OUT/rot.err" &
WP=$!
wait_line "$OUT/rot.err" watching 30 # printed once the signal handlers are set
check earlier_records_kept grep -q 'earlier run' "$OUT/rot.jsonl"
cp "$OUT/rot.jsonl" "$OUT/rot.1"; : > "$OUT/rot.jsonl"        # logrotate copytruncate
stop_bg "$WP"
check copytruncate_no_hole sh -c "head -c1 '$OUT/rot.jsonl' | grep -q '{'"

# ---- 4+5. watch's records: a comm with ESC and a byte that is not UTF-8 ----------
MLOCKER=$TOP/build/tests/helpers/mlocker
if [ -x "$MLOCKER" ]; then
	EVILBIN="$OUT/$(printf 'ml\377\033[2Jk')"
	cp "$MLOCKER" "$EVILBIN"
	for mode in json text; do
		F=$OUT/evil-watch.$mode
		"$MRTRACE" watch $([ $mode = json ] && echo --json) -o "$F" --syscalls=on > /dev/null 2> "$F.err" &
		WP=$!
		wait_line "$F.err" watching 30 # printed once the signal handlers are set
		prlimit --memlock=65536:65536 setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$EVILBIN" 1048576 > /dev/null 2>&1
		stop_bg "$WP" # the stop drains every record the failure left
	done
	check watch_json_valid_utf8 python3 -c "
import json
recs=[json.loads(l) for l in open('$OUT/evil-watch.json','rb').read().decode('utf-8').splitlines()]
assert any(r.get('event')=='mlock_failure' and '\\\\xff' in r['comm'] for r in recs), recs"
	check watch_text_no_escape_byte sh -c "grep -q 'mlock failed' '$OUT/evil-watch.text' && ! grep -q \$(printf '\033') '$OUT/evil-watch.text'"
	rm -f "$EVILBIN"
else
	bad watch_records_tests "missing $MLOCKER: run 'make host'"
fi

# ---- 2. files a job names, read as the job would --------------------------------
mkfifo "$OUT/job.fifo"; chmod 666 "$OUT/job.fifo"
printf 'NCCL_SECRET_TOKEN=hunter2\n' > "$OUT/secret.conf"; chmod 600 "$OUT/secret.conf"
for c in fifo secret; do
	f=$OUT/job.fifo; [ $c = secret ] && f=$OUT/secret.conf
	NCCL_CONF_FILE=$f setpriv --reuid=nobody --regid=nogroup --clear-groups -- sleep 30 &
	JP=$!
	wait_exec "$JP" sleep # setpriv has dropped to nobody: the check reads as the job
	timeout 20 "$MRTRACE" check -p "$JP" --json > "$OUT/job-$c.json" 2> "$OUT/job-$c.err"
	rc=$?
	check "check_p_${c}_conf_returns" test "$rc" != 124
	check "check_p_${c}_conf_not_read" sh -c "! grep -q 'hunter2\|NCCL_SECRET' '$OUT/job-$c.json'"
	kill "$JP" 2>/dev/null; wait "$JP" 2>/dev/null
done
check check_p_says_job_cannot_read grep -q 'NCCL_CONF_FILE [^"]*secret.conf: the process cannot read it' "$OUT/job-secret.json"
rm -f "$OUT/job.fifo"

# ---- 3. --sysroot stays inside the tree ----------------------------------------------
expect sysroot_missing_usage_error 2 'sysroot /nonexistent-tree: No such file' "$MRTRACE" check --sysroot /nonexistent-tree
T=$OUT/tree; mkdir -p "$T/proc/sys/kernel" "$T/etc" "$T/sys/class"
echo rec-node > "$T/proc/sys/kernel/hostname"
printf 'NCCL_LEAK=1\n' > "$OUT/outside.conf"
ln -s "$OUT/outside.conf" "$T/etc/nccl.conf"
ln -s /sys/class/net "$T/sys/class/infiniband"
mkfifo "$T/proc/sys/kernel/osrelease"
timeout 20 "$MRTRACE" check --sysroot "$T" --json > "$OUT/tree.json" 2>&1
check sysroot_fifo_does_not_block test $? != 124
check sysroot_symlink_not_followed_out sh -c "grep -q rec-node '$OUT/tree.json' && ! grep -q NCCL_LEAK '$OUT/tree.json'"
check sysroot_dir_symlink_not_followed_out sh -c "! grep -q '\"name\":\"lo\"' '$OUT/tree.json'"

# ---- 6. arguments ------------------------------------------------------------------
expect watch_pid_out_of_range 2 "invalid PID '4294967297'" "$MRTRACE" watch -p 4294967297 -d 1
expect check_pid_out_of_range 2 "needs a process id" "$MRTRACE" check -p 4294967297
expect check_pid_negative 2 "needs a process id" "$MRTRACE" check -p -5
expect watch_duration_nan 2 "invalid duration 'nan'" "$MRTRACE" watch -d nan
expect watch_duration_inf 2 "invalid duration 'inf'" "$MRTRACE" watch -d inf
check check_kernel_thread sh -c "'$MRTRACE' check -p 2 | grep -q 'pid 2 is a kernel thread'"
python3 -c 'import os,sys,time
pid=os.fork()
if pid==0: os._exit(0)
print(pid, flush=True); time.sleep(30)' > "$OUT/zombie.pid" &
ZP=$!
for i in $(seq 50); do [ -s "$OUT/zombie.pid" ] && break; sleep 0.1; done
Z=$(cat "$OUT/zombie.pid"); wait_state "$Z" Z
check check_zombie sh -c "'$MRTRACE' check -p '$Z' | grep -q 'pid $Z is a zombie'"
kill "$ZP" 2>/dev/null; wait "$ZP" 2>/dev/null
# as non-root: what is missing, before any tracefs message
setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$MRTRACE" watch -d 1 > /dev/null 2> "$OUT/nonroot.err"
rc=$?
check watch_nonroot_exit1 test "$rc" = 1
check watch_nonroot_says_root_first sh -c "head -1 '$OUT/nonroot.err' | grep -q 'needs root: CAP_BPF and CAP_PERFMON' && ! grep -q 'mount tracefs' '$OUT/nonroot.err'"

# ---- 7. issue 24, the core rows: sizes, configuration files, -o, a full disk ----
# row 8: a size past 2^64, inf, nan or a negative one is a usage error, not "OK"
for v in 1e20 1e30 inf nan 17179869184G -1; do
	expect "min_memlock_${v}_refused" 3 "invalid --min-memlock '$v'" "$MRTRACE" check --no-config --health --min-memlock="$v"
done
# row 6: configuration files that are not files never hang or flood a command
mkfifo "$OUT/cfg.fifo"
expect config_fifo_refused 3 'cfg.fifo: not a regular file' "$MRTRACE" check --config="$OUT/cfg.fifo" --health
expect config_fifo_refused_watch 2 'cfg.fifo: not a regular file' "$MRTRACE" watch --config="$OUT/cfg.fifo" -d 1
expect config_dev_zero_refused 3 '/dev/zero: not a regular file' "$MRTRACE" check --config=/dev/zero --health
printf '[check]\nmin-memlock = 64K\n' > "$OUT/cfgd.conf"; mkdir -p "$OUT/cfgd.conf.d"
mkfifo "$OUT/cfgd.conf.d/50-fifo.conf"
expect config_dropin_fifo_refused 3 '50-fifo.conf: not a regular file' "$MRTRACE" check --config="$OUT/cfgd.conf" --health
rm -rf "$OUT/cfg.fifo" "$OUT/cfgd.conf" "$OUT/cfgd.conf.d"
# row 11: a value longer than 1,023 characters is kept whole, not cut and used
# (a 1,026-character path: four 200-character directories, then the file,
# short enough for its temporary name to stay below NAME_MAX)
C200=$(printf 'd%.0s' $(seq 200))
LONGD=$OUT/$C200/$C200/$C200/$C200
LONGP=$LONGD/$(printf 'p%.0s' $(seq $(( 1026 - ${#LONGD} - 1 ))))
if [ ${#LONGP} = 1026 ] && [ $(( 1026 - ${#LONGD} )) -gt 8 ]; then
	mkdir -p "$LONGD"
	printf '[check]\nprom = %s\n' "$LONGP" > "$OUT/long.conf"
	"$MRTRACE" check --config="$OUT/long.conf" > /dev/null 2>&1
	check config_long_value_whole sh -c "test -s '$LONGP' && [ \$(ls '$LONGD' | wc -l) = 1 ]"
	rm -rf "$OUT/long.conf" "$OUT/$C200"
else
	skip config_long_value_whole "HOST_OUT too long for a 1,026-character path"
fi
# row 6: a FIFO as -o target: refused at once, never a watch stuck in open()
STICKY=$(mktemp -d /tmp/mrt-sticky-XXXXXX); chmod 1777 "$STICKY"
su nobody -s /bin/sh -c "mkfifo '$STICKY/w.jsonl'"
expect o_planted_fifo_refused 2 'belongs to uid' "$MRTRACE" watch --json -d 1 -o "$STICKY/w.jsonl"
mkfifo "$OUT/own.fifo"
expect o_fifo_without_reader_refused 2 'a FIFO with no reader' "$MRTRACE" watch --json -d 1 -o "$OUT/own.fifo"
rm -rf "$STICKY" "$OUT/own.fifo"
# row 15: root's -o through a symlink the owner of a (non-sticky) directory planted
HOMEN=$OUT/home-nobody; mkdir -p "$HOMEN"; chown nobody "$HOMEN"
printf 'root only\n' > "$OUT/rootonly"; chmod 600 "$OUT/rootonly"
su nobody -s /bin/sh -c "ln -s '$OUT/rootonly' '$HOMEN/w.jsonl'"
expect o_foreign_link_refused 2 'symbolic link .*of uid [0-9]+, who may not write there' "$MRTRACE" watch --json -d 1 -o "$HOMEN/w.jsonl"
check o_foreign_link_target_untouched sh -c "[ \"\$(cat '$OUT/rootonly')\" = 'root only' ]"
su nobody -s /bin/sh -c "ln -s '$HOMEN/mine.jsonl' '$HOMEN/ok.jsonl'"
expect o_foreign_link_own_file_ok 0 'stopped after' "$MRTRACE" watch --json -d 1 -o "$HOMEN/ok.jsonl"
check o_foreign_link_file_is_theirs sh -c "[ \"\$(stat -c %U '$HOMEN/mine.jsonl')\" = nobody ] && grep -q '\"event\":\"stop\"' '$HOMEN/mine.jsonl'"
rm -rf "$HOMEN" "$OUT/rootonly"
# row 5: a full disk (64 KiB tmpfs): no half record left, the next run's start not glued
FULL=$OUT/full; mkdir -p "$FULL"
if mount -t tmpfs -o size=64k mrtrace-full "$FULL" 2>/dev/null; then
	dd if=/dev/zero of="$FULL/fill" bs=1k count=56 2>/dev/null # 8 KiB left; a start record is ~10 KB
	expect full_disk_fails 1 'No space left on device' "$MRTRACE" watch --json -d 1 -o "$FULL/w.jsonl"
	check full_disk_no_torn_record sh -c "[ ! -s '$FULL/w.jsonl' ] || [ \"\$(tail -c1 '$FULL/w.jsonl' | od -An -c | tr -d ' ')\" = '\n' ]"
	rm -f "$FULL/fill"
	"$MRTRACE" watch --json -d 1 -o "$FULL/w.jsonl" > /dev/null 2>&1
	check full_disk_next_run_whole python3 -c "
import json
ev=[json.loads(l)['event'] for l in open('$FULL/w.jsonl') if l.strip()]
assert ev.count('start')==1 and ev[-1]=='stop', ev"
	umount "$FULL"
else
	skip full_disk "cannot mount a tmpfs"
fi

# ---- 8. issue 24, explain/watch rows -----------------------------------------------
TR=$TOP/tests/fixtures/trails
ML=$TR/memlock_limit.cumulative.6.12.json
# row 2: a storm summary replays as the last of its failures, and explain
# keeps what the record says about itself
jq -c . "$ML" > "$OUT/storm.jsonl"
jq -c '. + {count:19999, first_ts_ns:(.ts_ns+1), last_ts_ns:(.ts_ns+2000000001),
	time:"2026-01-02T03:04:05.000006Z", host:"gpu-node-7", schema:"mrtrace-watch/1",
	mrtrace_version:"0.1.0-recorded"}' "$ML" >> "$OUT/storm.jsonl"
expect explain_storm_count_kept 0 'x19999 in 2.000 s, #20000 of this cause' "$MRTRACE" explain "$OUT/storm.jsonl"
tail -1 "$OUT/storm.jsonl" > "$OUT/storm-alone.jsonl" # its opener rotated away: shown in full
expect explain_text_says_when_where 0 'at: 2026-01-02T03:04:05.000006Z on gpu-node-7' "$MRTRACE" explain "$OUT/storm-alone.jsonl"
expect explain_lone_storm_in_full 0 'storm: x19999 identical failures in 2.000 s' "$MRTRACE" explain "$OUT/storm-alone.jsonl"
O=$("$MRTRACE" explain --json "$OUT/storm.jsonl" 2>/dev/null | tail -1)
jq_true explain_json_keeps_members "$O" '.count==19999 and .first_ts_ns==(.ts_ns+1) and
	.last_ts_ns==(.ts_ns+2000000001) and .time=="2026-01-02T03:04:05.000006Z" and
	.host=="gpu-node-7" and .schema=="mrtrace-watch/1" and .mrtrace_version=="0.1.0-recorded"'
# row 3: input bounds - devices refused, NULs are malformed, endless input ends
expect explain_dev_zero_refused 2 '/dev/zero: not a regular file' "$MRTRACE" explain /dev/zero
expect explain_stdin_dev_zero_refused 2 'standard input: not a regular file' sh -c "'$MRTRACE' explain - < /dev/zero"
expect explain_nul_bytes_malformed 2 '0 explained, 0 skipped, 1 malformed' sh -c "head -c 50M /dev/zero | '$MRTRACE' explain -"
expect explain_endless_junk_ends 2 'the rest is not read' sh -c "cat /dev/zero | '$MRTRACE' explain -"
head -1 "$OUT/storm.jsonl" | tr -d '\n' > "$OUT/one.json"
printf '%s\n' "cat '$OUT/one.json'; head -c 2G /dev/zero | tr '\\000' x" > "$OUT/longline.sh"
expect explain_record_before_long_line 2 '1 explained, 0 skipped, 2 malformed' sh -c "sh '$OUT/longline.sh' | '$MRTRACE' explain -"
if ! asan; then
	expect explain_rlimit_as_one_error 2 '0 explained, 0 skipped, 2 malformed' sh -c "cat /dev/zero | prlimit --as=1073741824 '$MRTRACE' explain -"
fi
# row 4: explain --json through the output filter: valid UTF-8 JSON per line
python3 - "$TR/hca_resource_limit.cqe.6.12.json" "$OUT/evil.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["raw"]["op_name"] = "\u00e9" * 20            # cut at 31 bytes: a lone 0xC3
r["raw"]["comm"] = "\u001b[2Jx"
line = json.dumps(r, separators=(",", ":")).encode()
line = line.replace(b"\\u001b[2Jx", b"\\u001b[2J\xff\xfe")   # bytes that are not UTF-8
open(sys.argv[2], "wb").write(line + b"\n")
PY
"$MRTRACE" explain --json "$OUT/evil.jsonl" > "$OUT/evil-explain.json" 2>/dev/null
check explain_json_valid_utf8 python3 -c "
import json
for l in open('$OUT/evil-explain.json','rb').read().decode('utf-8').splitlines(): json.loads(l)"
"$MRTRACE" explain "$OUT/evil.jsonl" > "$OUT/evil-explain.txt" 2>&1
check explain_text_no_escape_byte sh -c "grep -q 'failed: pid' '$OUT/evil-explain.txt' && ! grep -q \$(printf '\033') '$OUT/evil-explain.txt'"
# row 12: write errors are never ignored
expect explain_dev_full_fails 2 'No space left on device' sh -c "'$MRTRACE' explain '$ML' > /dev/full"
expect explain_json_dev_full_fails 2 'No space left on device' sh -c "'$MRTRACE' explain --json '$ML' > /dev/full"
expect check_prom_dev_full_fails 2 'No space left on device' sh -c "'$MRTRACE' check --no-config --prom > /dev/full"
expect check_health_dev_full_fails 3 'No space left on device' sh -c "'$MRTRACE' check --no-config --health > /dev/full"
expect list_probes_dev_full_fails 1 'No space left on device' sh -c "'$MRTRACE' watch --list-probes > /dev/full"
# row 14: numbers no kernel records are refused with the reason
jq -c '.raw.pid = -5' "$ML" > "$OUT/negpid.jsonl"
expect explain_negative_pid_refused 2 'raw.pid: -5 is out of range' "$MRTRACE" explain "$OUT/negpid.jsonl"
jq -c '.raw.tid = 1099511627776' "$ML" > "$OUT/bigtid.jsonl"
expect explain_huge_tid_refused 2 'raw.tid: 1099511627776 is out of range' "$MRTRACE" explain "$OUT/bigtid.jsonl"
jq -c '.raw.page_shift = 16 | .raw.ml.requested_pages = 1152921504606846976' "$ML" > "$OUT/bigpages.jsonl"
expect explain_pages_overflow_refused 2 'raw.ml.requested_pages: .* out of range' "$MRTRACE" explain "$OUT/bigpages.jsonl"
# row 9: a metrics interval that is not a finite number of seconds (inf
# never wrote the textfile), or longer than the minute the docs promise
for v in nan inf -inf 1e400 61; do
	expect "metrics_interval_${v}_refused" 2 "invalid --metrics-interval '$v'" "$MRTRACE" watch --metrics-interval="$v" -d 1
done
MLOCKER=$TOP/build/tests/helpers/mlocker
# row 1: a journal socket that stops reading costs its entries (counted),
# never a frozen watch: every record still reaches the JSONL, SIGTERM and -d
# are honoured (with a blocking send: 11 records, SIGTERM ignored, -d 50 at 60 s)
if [ -x "$MLOCKER" ] && command -v python3 > /dev/null; then
	JS=$OUT/stalled.sock
	python3 -c "import socket,sys,time
s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(600)" "$JS" &
	JP=$!
	for i in $(seq 50); do [ -S "$JS" ] && break; sleep 0.1; done
	stalled_watch() { # NAME ARGS...: watch with the stalled journal, 40 failing mlocks
		local n=$1; shift
		"$MRTRACE" watch --json -o "$OUT/$n.jsonl" --syscalls=on --journal=yes --journal-socket="$JS" \
			--metrics-textfile="$OUT/$n.prom" --metrics-interval=0.2 "$@" > /dev/null 2> "$OUT/$n.err" &
		WP=$!
		wait_line "$OUT/$n.err" watching 60
		for i in $(seq 40); do
			prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > /dev/null 2>&1
		done
	}
	stalled_watch stall-term
	for i in $(seq 100); do [ "$(grep -c '"event":"mlock_failure"' "$OUT/stall-term.jsonl")" -ge 40 ] && break; sleep 0.1; done
	check journal_stalled_records_reach_jsonl test "$(grep -c '"event":"mlock_failure"' "$OUT/stall-term.jsonl")" -ge 40
	# the textfile is rewritten every 0.2 s: 40 mlocks can all fail within
	# one interval (CI's host did them in 0.2 s), so its next writing says it
	check journal_stalled_counted wait_line "$OUT/stall-term.prom" '^mrtrace_watch_output_errors_total\{output="journal"\} [1-9]' 5
	check journal_stalled_said grep -q 'the journal .* is not reading' "$OUT/stall-term.err"
	kill -TERM "$WP"
	for i in $(seq 50); do kill -0 "$WP" 2>/dev/null || break; sleep 0.1; done
	check journal_stalled_sigterm_honoured sh -c "! kill -0 $WP 2>/dev/null"
	kill -KILL "$WP" 2>/dev/null; wait "$WP" 2>/dev/null
	check journal_stalled_stop_record grep -q '"event":"stop"' "$OUT/stall-term.jsonl"
	T0=$(date +%s)
	stalled_watch stall-d -d 8
	for i in $(seq 250); do kill -0 "$WP" 2>/dev/null || break; sleep 0.1; done
	check journal_stalled_duration_honoured test $(( $(date +%s) - T0 )) -lt 30
	kill -KILL "$WP" 2>/dev/null; wait "$WP" 2>/dev/null
	check journal_stalled_duration_stop_record grep -q '"event":"stop"' "$OUT/stall-d.jsonl"
	kill "$JP" 2>/dev/null; wait "$JP" 2>/dev/null
else
	skip journal_stalled "no $MLOCKER or python3"
fi

# row 13: a command that cannot be run is a request error (2), found before
# anything is armed; one whose exec fails after all ends the run at once
expect cmd_nonexistent_exit2 2 'cannot run /nonexistent/cmd: No such file or directory' "$MRTRACE" watch --json -o "$OUT/nx.jsonl" -- /nonexistent/cmd
check cmd_nonexistent_nothing_armed sh -c "! grep -q 'sites armed\|watching' '$OUT/nx.jsonl' && [ ! -s '$OUT/nx.jsonl' ]"
expect cmd_not_on_path_exit2 2 'cannot run mrtrace-no-such-cmd: No such file' "$MRTRACE" watch -- mrtrace-no-such-cmd
printf '#!/bin/sh\n' > "$OUT/noexec.sh"; chmod 644 "$OUT/noexec.sh"
expect cmd_not_executable_exit2 2 'cannot run .*noexec.sh: Permission denied' "$MRTRACE" watch -- "$OUT/noexec.sh"
printf '#!/nonexistent/interpreter\n' > "$OUT/badinterp.sh"; chmod 755 "$OUT/badinterp.sh"
expect cmd_exec_fails_late_exit2 2 'cannot run .*badinterp.sh: No such file' "$MRTRACE" watch --json -o "$OUT/late.jsonl" --syscalls=on -- "$OUT/badinterp.sh"
check cmd_exec_fails_late_stop_record grep -q '"event":"stop"' "$OUT/late.jsonl"

# signals (row 15, "signals before arming"): SIGINT, SIGTERM and SIGQUIT stop
# watch with its stop record and SIGHUP reopens -o FILE, whatever the phase:
# before the tracer opens (at tracer_open), while it attaches (in libbpf's
# skeleton load), while watching; never lost, never a kill without a word
GDB=$(command -v gdb)
# under_gdb NAME BREAK CMD...: watch's run, with CMD (gdb commands, ';'-separated) at BREAK
under_gdb() {
	local n=$1 brk=$2 cmds=$3; shift 3
	local ex=() c
	IFS=';' read -ra c <<< "$cmds"
	for x in "${c[@]}"; do ex+=(-ex "$x"); done
	timeout 120 "$GDB" -q -batch -nx -ex 'set pagination off' -ex 'set breakpoint pending on' \
		-ex "break $brk" -ex run -ex delete "${ex[@]}" \
		--args "$MRTRACE" watch --json -o "$OUT/$n.jsonl" --syscalls=on "$@" > "$OUT/$n.gdb" 2>&1
}
# stopped NAME: the breakpoint was reached, watch exited 0 with a stop record, soon
stopped() {
	check "$1_reached_phase" grep -q '^Breakpoint 1,' "$OUT/$1.gdb"
	check "$1_exit_0" grep -q 'exited normally' "$OUT/$1.gdb"
	check "$1_stop_record" python3 -c "
import json
ev=[json.loads(l) for l in open('$OUT/$1.jsonl') if l.strip()]
assert ev and ev[-1]['event']=='stop' and ev[-1]['duration_s'] < 20, ev[-1:]"
}
if [ -n "$GDB" ] && ! asan; then
	for sig in INT TERM QUIT; do
		under_gdb "sig-$sig-before" tracer_open "signal SIG$sig" -d 30
		stopped "sig-$sig-before"
		under_gdb "sig-$sig-attach" bpf_object__load_skeleton "signal SIG$sig" -d 30
		stopped "sig-$sig-attach"
	done
	for ph in tracer_open bpf_object__load_skeleton; do
		under_gdb "hup-$ph" "$ph" "shell mv '$OUT/hup-$ph.jsonl' '$OUT/hup-$ph.1';signal SIGHUP" -d 3
		check "hup_${ph}_reopened" grep -q '"event":"stop"' "$OUT/hup-$ph.jsonl"
	done
else
	skip signals_at_phases "no gdb (or an ASan build)"
fi
for sig in INT TERM QUIT; do
	"$MRTRACE" watch --json -o "$OUT/sig-$sig-watching.jsonl" --syscalls=on > /dev/null 2> "$OUT/sig-$sig.err" &
	WP=$!
	wait_line "$OUT/sig-$sig.err" watching 60
	kill -"$sig" "$WP"
	for i in $(seq 100); do kill -0 "$WP" 2>/dev/null || break; sleep 0.1; done
	check "sig_${sig}_watching_stops" sh -c "! kill -0 $WP 2>/dev/null"
	kill -KILL "$WP" 2>/dev/null; wait "$WP"; rc=$?
	check "sig_${sig}_watching_exit_0" test "$rc" = 0
	check "sig_${sig}_watching_stop_record" grep -q '"event":"stop"' "$OUT/sig-$sig-watching.jsonl"
done
"$MRTRACE" watch --json -o "$OUT/hup-w.jsonl" --syscalls=on > /dev/null 2> "$OUT/hup-w.err" &
WP=$!
wait_line "$OUT/hup-w.err" watching 60
mv "$OUT/hup-w.jsonl" "$OUT/hup-w.1"; kill -HUP "$WP"
for i in $(seq 50); do [ -e "$OUT/hup-w.jsonl" ] && break; sleep 0.1; done
stop_bg "$WP"
check hup_watching_reopened sh -c "grep -q '\"event\":\"start\"' '$OUT/hup-w.1' && grep -q '\"event\":\"stop\"' '$OUT/hup-w.jsonl'"
# a `watch &` from a script inherits SIGINT ignored: it obeys SIGINT all the same
sh -c "trap '' INT; exec '$MRTRACE' watch --json -o '$OUT/ign.jsonl' --syscalls=on" > /dev/null 2> "$OUT/ign.err" &
WP=$!
wait_line "$OUT/ign.err" watching 60
kill -INT "$WP"
for i in $(seq 100); do kill -0 "$WP" 2>/dev/null || break; sleep 0.1; done
check sigint_inherited_ignored_obeyed sh -c "! kill -0 $WP 2>/dev/null"
kill -KILL "$WP" 2>/dev/null; wait "$WP" 2>/dev/null
check sigint_inherited_ignored_stop_record grep -q '"event":"stop"' "$OUT/ign.jsonl"
# ... and the command gets the dispositions watch was given, not watch's own
# (SigIgn bit 1: SIGINT, bit 12: SIGPIPE; this runner may itself run with
# them ignored, as a background job: env gives the second watch defaults)
sigign() { printf '%d' "0x$(sed -n 's/^SigIgn:[[:space:]]*//p' "$1")"; }
sh -c "trap '' INT; exec '$MRTRACE' watch --json -o '$OUT/ign-cmd.jsonl' --syscalls=on -- sh -c 'cat /proc/self/status > \"$OUT/ign-cmd.status\"'" > /dev/null 2>&1
env --default-signal=INT,QUIT,PIPE "$MRTRACE" watch --json -o "$OUT/dfl-cmd.jsonl" --syscalls=on -- sh -c "cat /proc/self/status > '$OUT/dfl-cmd.status'" > /dev/null 2>&1
check command_keeps_inherited_ignore sh -c "[ \$(( $(sigign "$OUT/ign-cmd.status") & 2 )) = 2 ]"
check command_gets_default_int_pipe sh -c "[ \$(( $(sigign "$OUT/dfl-cmd.status") & 0x1002 )) = 0 ]"

# issue 34 item 7: a hard link (another name of someone's file) is not
# appended to by -o
echo keep > "$OUT/precious"; ln "$OUT/precious" "$OUT/hard.jsonl"
expect hardlink_output_refused 2 'hard link' "$MRTRACE" watch --json -d 1 -o "$OUT/hard.jsonl"
check hardlink_target_untouched sh -c "[ \"\$(cat '$OUT/precious')\" = keep ]"
# issue 34 item 13: a value of tiny objects is refused before json-c builds
# it (1 MiB of {} took ~270 MB)
python3 -c 'import sys; sys.stdout.write("{\"event\":\"x\",\"a\":[" + "{},"*350000 + "{}]}\n")' > "$OUT/tiny.jsonl"
expect explain_tiny_objects_refused 2 'objects, arrays or elements' "$MRTRACE" explain "$OUT/tiny.jsonl"

echo "hardening: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
