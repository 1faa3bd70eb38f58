#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/fuzz/make_corpus.sh - (re)write the seed corpora of the libFuzzer
# harnesses in tests/fuzz/corpus/ from the recorded fixture trees, so every
# harness starts from inputs that reach deep (real reports, real /proc files,
# real conf files).  The explain harness uses tests/fixtures/trails as is,
# the logs harness tests/fixtures/field (the field corpus: real log lines
# users posted, tests/fixtures/field/README.md) as is, beside the hand-kept
# seeds of corpus/logs; the ELF harness also gets a small shared library
# that make builds (tests/fuzz/seed_libnccl.c).  Only the generated
# directories are rewritten: the hand-kept ones (logs, explain, records:
# inputs that once crashed a harness, shapes written by hand) stay.
# Run after changing the fixtures:
#   make && tests/fuzz/make_corpus.sh
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
C=$TOP/tests/fuzz/corpus
MRTRACE=${MRTRACE:-$TOP/build/mrtrace}
rm -rf "$C"/{diff,proc,conf,elf}; mkdir -p "$C"/{diff,proc,conf,elf}

for t in h100 container portdown; do
	"$MRTRACE" check --sysroot "$TOP/tests/fixtures/check/$t" --json > "$C/diff/$t.json" || true
done
"$MRTRACE" check --sysroot "$TOP/tests/fixtures/check/h100" -p 4242 --json > "$C/diff/h100-pid.json" || true
printf '%s' '{"schema":"mrtrace-check/1","host":{"hostname":""},"items":[{}],"rdma":{"devices":[{"ports":""}]}}' > "$C/diff/ports-string.json"

# /proc files of one process, in fuzz_proc.c's order, separated by 0x1e
for d in "$TOP"/tests/fixtures/proc/*/proc/[0-9]*; do
	[ -f "$d/status" ] || continue
	name=$(basename "$(dirname "$(dirname "$d")")")-$(basename "$d")
	for f in status stat limits cmdline cgroup uid_map environ maps; do
		[ -f "$d/$f" ] && cat "$d/$f"
		[ $f = maps ] || printf '\036'
	done > "$C/proc/$name"
done

find "$TOP/tests/fixtures" -name nccl.conf -o -name .nccl.conf -o -name limits.conf | sort |
	while read -r f; do cp "$f" "$C/conf/$(echo "${f#$TOP/tests/fixtures/}" | tr / _)"; done
cp "$TOP/tests/fixtures/proc/docker/proc/4242/status" "$C/conf/status"
printf 'infinity\n' > "$C/conf/limit-infinity"
printf '64K:1G\n' > "$C/conf/limit-pair"
printf '# mrtrace.conf\n[watch]\nsyscalls = auto\n[service]\nmetrics-textfile = "/var/lib/p.prom"\n[check]\nmin-memlock = 1.5G\nhealth = yes\n' > "$C/conf/mrtrace.conf"

find "$TOP/tests/fixtures" -name 'libnccl*' -type f | sort |
	while read -r f; do cp "$f" "$C/elf/$(basename "$(dirname "$f")")-$(basename "$f")"; done
echo "seeds: $(find "$C" -type f | wc -l) files in $C, $(ls "$TOP"/tests/fixtures/field/*.log | wc -l) field logs in tests/fixtures/field"
