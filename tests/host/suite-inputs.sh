#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-inputs.sh - the files a user of the node names to the
# commands root runs for them (explain, diff, explain --facts) and what those
# commands print back (issue 48): a symbolic link to a FIFO or a device is
# never opened, a FIFO never waited on, compressed records read as records,
# escape sequences read from a file never reach the terminal raw, usage
# errors have their own exit status.  Each check failed before its fix.
#
# MRTRACE=path/to/mrtrace runs it against another build (make asan), HOST_OUT=DIR
# puts its files elsewhere.
# Needs root (what it guards against is root opening a user's file).
# Ends with "inputs: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=${MRTRACE:-$TOP/build/mrtrace}
OUT=${HOST_OUT:-$TOP/build/host-inputs}
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
# fifo_writer FIFO MARK: a writer waiting for the FIFO's first reader; MARK
# appears once something opened the FIFO for reading
fifo_writer() { sh -c 'exec 3>"$1"; echo opened > "$2"' sh "$1" "$2" & }

[ "$(id -u)" = 0 ] || host_abort inputs "input tests need root"
[ -x "$MRTRACE" ] || host_abort inputs "missing $MRTRACE: run 'make'"

# ---- A. explain opens a name only after its checks ----------------------------
# job.log, a user's symbolic link to a FIFO whose writer waits for a reader:
# refused, and the FIFO never opened (explain opened the name to look at its
# first bytes before the checks)
mkfifo "$OUT/fifo"; ln -s fifo "$OUT/job.log"
fifo_writer "$OUT/fifo" "$OUT/fifo-opened"; W=$!
expect explain_symlink_fifo_refused 2 'job.log: a named FIFO' "$MRTRACE" explain "$OUT/job.log"
sleep 0.3
check explain_symlink_fifo_not_opened test ! -e "$OUT/fifo-opened"
kill "$W" 2>/dev/null; wait "$W" 2>/dev/null
# ... and a link to a device: no open(2) of it at all (strace)
ln -s /dev/null "$OUT/dev.log"
if command -v strace > /dev/null; then
	strace -f -e trace=open,openat -o "$OUT/dev.strace" "$MRTRACE" explain "$OUT/dev.log" > "$OUT/dev.out" 2>&1
	check explain_symlink_device_refused grep -q 'dev.log: not a regular file (a device)' "$OUT/dev.out"
	check explain_symlink_device_only_o_path sh -c "! grep 'dev.log' '$OUT/dev.strace' | grep -v O_PATH | grep -q ."
else
	skip explain_symlink_device_only_o_path "no strace"
fi

# ---- B. diff and explain --facts: a FIFO refused, not waited on ----------------
FIX=$TOP/tests/fixtures/check
"$MRTRACE" check --sysroot "$FIX/h100" --json > "$OUT/a.json" 2>/dev/null
"$MRTRACE" check --sysroot "$FIX/portdown" --json > "$OUT/b.json" 2>/dev/null
mkfifo "$OUT/f.json"
expect diff_fifo_refused 2 'f.json: a named FIFO' "$MRTRACE" diff "$OUT/a.json" "$OUT/f.json"
expect facts_fifo_refused 2 'f.json: a named FIFO' "$MRTRACE" explain --setting slurm --facts "$OUT/f.json" "$TOP/tests/fixtures/logs/slurm-8ranks.out"
# a FIFO's waiting writer is not released by a look at it either
fifo_writer "$OUT/f.json" "$OUT/f-opened"; W=$!
expect diff_fifo_writer_refused 2 'f.json: a named FIFO' "$MRTRACE" diff "$OUT/a.json" "$OUT/f.json"
sleep 0.3
check diff_fifo_not_opened test ! -e "$OUT/f-opened"
kill "$W" 2>/dev/null; wait "$W" 2>/dev/null
# what the operator gives is still read: a pipe by its /dev/fd name, and
# standard input
expect diff_anonymous_pipe_read 1 'RESULT  FAIL' bash -c "'$MRTRACE' diff '$OUT/a.json' <(cat '$OUT/b.json')"
expect diff_stdin_fifo_read 1 'RESULT  FAIL' sh -c "cat '$OUT/b.json' | '$MRTRACE' diff '$OUT/a.json' -"
ln -s a.json "$OUT/a-link.json"
expect diff_same_inode_once 0 'the same report, read once' "$MRTRACE" diff "$OUT/a.json" "$OUT/a-link.json"

# ---- C. records in a rotated .gz read as records, however long -------------
# one failure record of 12 KB (a start record is 15 KB): the log reader cut
# it at 8 KiB into an unrecognised line, 0 explained, exit 0
jq -c '. + {pad: ("x" * 10000)}' "$TOP/tests/fixtures/trails/memlock_limit.mlock.host-6.18.json" > "$OUT/big.jsonl"
gzip -c "$OUT/big.jsonl" > "$OUT/big.jsonl.1.gz"
expect explain_gz_long_record 0 '1 explained, 0 skipped, 0 malformed' "$MRTRACE" explain "$OUT/big.jsonl.1.gz"
expect explain_gz_long_record_said 0 'ulimit -l' "$MRTRACE" explain "$OUT/big.jsonl.1.gz"
# ... after a short one, and a compressed log is still a log
{ jq -c . "$TOP/tests/fixtures/trails/memlock_limit.mlock.host-6.18.json"; cat "$OUT/big.jsonl"; } | gzip -c > "$OUT/two.jsonl.1.gz"
expect explain_gz_two_records 0 '2 explained, 0 skipped, 0 malformed' "$MRTRACE" explain "$OUT/two.jsonl.1.gz"
gzip -c "$TOP/tests/fixtures/logs/nccl-2.21-memlock.log" > "$OUT/nccl.log.gz"
expect explain_gz_log_still_log 0 'log lines: [0-9]+ read: [1-9]' "$MRTRACE" explain "$OUT/nccl.log.gz"

# ---- D. explain's summary on stderr: a log line's escapes never raw ----------
# a wrapper line (the summary explain quotes on stderr) with a title change,
# a bell and a screen clear in it
printf 'RuntimeError: NCCL error in: x, ncclSystemError: \033]0;owned\007\033[2J\n' > "$OUT/esc.log"
"$MRTRACE" explain "$OUT/esc.log" > "$OUT/esc.out" 2> "$OUT/esc.err"
check explain_summary_quoted grep -q 'wrapper line: RuntimeError' "$OUT/esc.err"
check explain_summary_no_escape_byte sh -c "! grep -q \$(printf '\033') '$OUT/esc.err' && ! grep -q \$(printf '\007') '$OUT/esc.err'"
# ... nor a file's name in an error (a user's file, met by a glob)
"$MRTRACE" explain "$OUT/$(printf 'x\033[2Jy')" > /dev/null 2> "$OUT/esc-name.err"
check explain_error_name_escaped sh -c "grep -q 'x.*2Jy' '$OUT/esc-name.err' && ! grep -q \$(printf '\033') '$OUT/esc-name.err'"

# ---- G. conflicting flags refused; usage errors apart from verdicts ------------
H100=$TOP/tests/fixtures/check/h100
expect check_health_json_conflict 3 '--json and --health exclude each other' "$MRTRACE" check --sysroot "$H100" --health --json
expect check_json_prom_conflict 2 '--json and --prom exclude each other' "$MRTRACE" check --sysroot "$H100" --json --prom
expect check_health_prom_conflict 3 '--health and --prom exclude each other' "$MRTRACE" check --sysroot "$H100" --health --prom
# under --health, 2 is FAIL (drain): a typo is 3 (UNKNOWN), whatever its place
expect check_health_typo_unknown 3 "unrecognized option '--min-memlok=1G'" "$MRTRACE" check --health --min-memlok=1G
expect check_typo_before_health_unknown 3 'unrecognized option' "$MRTRACE" check --bogus --health
expect check_health_bad_value_unknown 3 'invalid --min-memlock' "$MRTRACE" check --health --min-memlock=lots
expect check_health_no_process_unknown 3 'no process 4194303' "$MRTRACE" check --health -p 4194303
expect check_health_verdict_kept 0 '^mrtrace: OK' "$MRTRACE" check --sysroot "$H100" --health
expect check_typo_usage 2 'unrecognized option' "$MRTRACE" check --bogus
# watch -c: a cgroup that is not there is a request error, said as watch's
expect watch_cgroup_missing 2 '^mrtrace watch: cgroup .*nosuch.slice: No such file' "$MRTRACE" watch -c nosuch.slice -d 1

echo "inputs: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
