#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/fuzz/run.sh BUILD SECONDS HARNESS... - run each libFuzzer harness for
# SECONDS from its seeds (tests/fuzz/corpus/<name>, plus tests/fixtures/trails
# for explain, tests/fixtures/field (the field corpus of real log lines) for
# logs, and the built seed library for elf), new inputs kept in
# BUILD/corpus/<name>, a crashing input saved as BUILD/artifacts/<name>-*.
# Closes with "fuzz: N passed, N failed" (a harness passes when it ran its
# time without a crash, leak, timeout or sanitizer report).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=$1 T=$2; shift 2
export MRTRACE_FIXTURES=$TOP/tests/fixtures
pass=0 fail=0
for bin in "$@"; do
	name=$(basename "$bin"); name=${name#fuzz_}
	work=$B/corpus/$name
	mkdir -p "$work" "$B/artifacts"
	seeds=()
	[ -d "$TOP/tests/fuzz/corpus/$name" ] && seeds+=("$TOP/tests/fuzz/corpus/$name")
	[ "$name" = explain ] && seeds+=("$TOP/tests/fixtures/trails")
	[ "$name" = logs ] && seeds+=("$TOP/tests/fixtures/field")
	[ -d "$B/seeds/$name" ] && seeds+=("$B/seeds/$name")
	log=$B/fuzz-$name.log
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -max_total_time="$T" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/$name-" "$work" "${seeds[@]}" > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		echo "ok fuzz_$name: ${runs:-?} inputs in ${T} s"
	else
		fail=$((fail + 1))
		echo "FAIL fuzz_$name (exit $rc, ${runs:-?} inputs): see $log"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -8
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
