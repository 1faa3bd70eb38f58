#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/deps.sh - install, with apt-get, the Debian packages mrtrace needs to
# build, test and run its demo.  Idempotent: installs only what is missing,
# and runs 'apt-get update' only when a package cannot be found.
#
# Usage: tools/deps.sh [build|test|vm|all]   (default: all)
#   build  compiler, libbpf, bpftool, json-c, libibverbs headers
#   test   build + cmocka, python3, libFuzzer
#   vm     test + QEMU, busybox, rdma-core tools (the soft-RoCE VM test bed)
set -euo pipefail

BUILD_PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
	libjson-c-dev libibverbs-dev"
# libclang-rt-dev: libFuzzer (make fuzz-smoke); gcc brings ASan/UBSan itself
TEST_PKGS="libcmocka-dev util-linux procps jq python3 libclang-rt-dev"
VM_PKGS="bc qemu-system-x86 busybox-static kmod cpio xz-utils zstd rdma-core ibverbs-utils
	ibverbs-providers iproute2 coreutils"

want=$BUILD_PKGS
case "${1:-all}" in
build) ;;
test) want="$want $TEST_PKGS" ;;
vm|all) want="$want $TEST_PKGS $VM_PKGS" ;;
*) echo "usage: $0 [build|test|vm|all]" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root (or install them yourself): apt-get install$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
inst() { apt-get install -y -q --no-install-recommends $missing; }
# A fresh machine may have stale or no package lists: update once and retry.
if ! inst >/tmp/mrtrace-deps.log 2>&1; then
	apt-get update -q >>/tmp/mrtrace-deps.log 2>&1 || true
	inst >>/tmp/mrtrace-deps.log 2>&1 || { tail -20 /tmp/mrtrace-deps.log >&2; exit 1; }
fi
echo "deps: done"
