#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/deps.sh - install, with apt-get, the Debian packages mrtrace needs to
# build, test and run its demo.  Idempotent: installs only what is missing,
# and runs 'apt-get update' only when a package cannot be found.
#
# Usage: tools/deps.sh [build|test|vm|fleet|image|all]   (default: all)
#   build  compiler, libbpf, bpftool, json-c, libibverbs headers
#   test   build + cmocka
#   vm     test + QEMU, busybox, rdma-core tools (the soft-RoCE VM test bed)
#   fleet  the node-service tests' tools (systemd-analyze, journald, promtool,
#          node_exporter, slurmctld/slurmd/munge, python3-kubernetes): each
#          installed if it can be, a missing one is a skip in the tests, never
#          a failure here
#   image  mmdebstrap and buildah for `make image` (optional the same way)
set -euo pipefail

BUILD_PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
	libjson-c-dev libibverbs-dev"
TEST_PKGS="libcmocka-dev util-linux procps jq"
VM_PKGS="bc qemu-system-x86 busybox-static kmod cpio xz-utils zstd rdma-core ibverbs-utils
	ibverbs-providers iproute2 coreutils"
FLEET_PKGS="systemd man-db groff-base bash-completion prometheus prometheus-node-exporter
	slurmctld slurmd slurm-client munge python3 python3-kubernetes python3-yaml"
IMAGE_PKGS="mmdebstrap buildah"

# Optional packages: try all at once, then one by one; report what is not
# to be had and go on (the tests that need it are skipped with the reason).
optional() {
	local miss= p s
	for p in "$@"; do
		s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		case "$s" in *" installed") ;; *) miss="$miss $p" ;; esac
	done
	[ -z "$miss" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "deps: optional packages missing (tests will skip):$miss" >&2
		return 0
	fi
	export DEBIAN_FRONTEND=noninteractive
	echo "deps: installing (optional)$miss"
	# services in these packages must not start on the build machine
	local prc=/usr/sbin/policy-rc.d made=
	if [ ! -e $prc ]; then printf '#!/bin/sh\nexit 101\n' > $prc && chmod +x $prc && made=1; fi
	if ! apt-get install -y -q --no-install-recommends $miss >>/tmp/mrtrace-deps.log 2>&1; then
		apt-get update -q >>/tmp/mrtrace-deps.log 2>&1 || true
		for p in $miss; do
			apt-get install -y -q --no-install-recommends "$p" >>/tmp/mrtrace-deps.log 2>&1 ||
				echo "deps: $p cannot be installed here: the tests that need it are skipped" >&2
		done
	fi
	[ -z "$made" ] || rm -f $prc
	return 0
}

want=$BUILD_PKGS
case "${1:-all}" in
build) ;;
test) want="$want $TEST_PKGS" ;;
vm) want="$want $TEST_PKGS $VM_PKGS" ;;
all) want="$want $TEST_PKGS $VM_PKGS"; trap 'optional $FLEET_PKGS' EXIT ;;
fleet) optional $FLEET_PKGS; exit 0 ;;
image) optional $IMAGE_PKGS; exit 0 ;;
*) echo "usage: $0 [build|test|vm|fleet|image|all]" >&2; exit 2 ;;
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
