#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/cross-arm64.sh - build mrtrace, mrprobe, the unit tests and the test
# helpers for arm64 on this x86_64 host, into build-arm64/ (or $BUILD).
#
# User space: Debian's cross compiler (gcc-aarch64-linux-gnu) against the
# multiarch :arm64 -dev packages (tools/deps.sh arm64 installs both).  BPF:
# the same clang -target bpf, with -D__TARGET_ARCH_arm64 and the arm64 CO-RE
# header vmlinux/arm64/vmlinux.h (the Makefile picks both from ARCH=arm64);
# bpftool generates the skeletons on the host.  Nothing here runs arm64 code:
# the unit tests and helpers run in the arm64 VM (tests/vm-arm64).
#
# Usage: tools/cross-arm64.sh [MAKE-ARGS...]   (e.g. V=1, -j2)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build-arm64}
CROSS=${CROSS:-aarch64-linux-gnu-}
command -v "${CROSS}gcc" >/dev/null ||
	{ echo "cross-arm64: ${CROSS}gcc missing (tools/deps.sh arm64)" >&2; exit 1; }
for lib in bpf elf z json-c ibverbs cmocka; do
	[ -e "/usr/lib/aarch64-linux-gnu/lib$lib.so" ] ||
		{ echo "cross-arm64: lib$lib.so for arm64 is missing (tools/deps.sh arm64)" >&2; exit 1; }
done
# Everything the arm64 VM runs: the programs, each unit test, each helper.
targets=("$BUILD/mrtrace" "$BUILD/mrprobe")
for f in tests/unit/test_*.c; do targets+=("$BUILD/tests/$(basename "$f" .c)"); done
for f in tests/helpers/*.c; do targets+=("$BUILD/tests/helpers/$(basename "$f" .c)"); done
exec make --no-print-directory ARCH=arm64 CC="${CROSS}gcc" BUILD="$BUILD" "$@" "${targets[@]}"
