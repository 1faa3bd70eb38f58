#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/deps.sh - install, with apt-get, the Debian packages mrtrace needs to
# build, test and run its demo.  Idempotent: installs only what is missing,
# and runs 'apt-get update' only when a package cannot be found.
#
# Usage: tools/deps.sh [build|test|vm|fleet|deb|image|arm64|all]   (default: all)
#   build  compiler, libbpf, bpftool, json-c, libibverbs headers
#   test   build + cmocka, python3, libFuzzer
#   vm     test + QEMU, busybox, rdma-core tools (the soft-RoCE VM test bed;
#          `all` adds the VM cases' other failing clients: UCX's ucx-utils,
#          perftest, and ndctl for fs-dax)
#   fleet  the node-service tests' tools (systemd-analyze, journald, promtool,
#          node_exporter, slurmctld/slurmd/munge, python3-kubernetes, python3-seccomp,
#          logrotate; debhelper, lintian and devscripts' hardening-check for
#          the package test): each
#          installed if it can be, a missing one is a skip in the tests, never
#          a failure here
#   deb    build + debhelper and dpkg-dev for `make deb`; lintian and
#          devscripts (hardening-check) optional the same way as fleet's
#   image  mmdebstrap and buildah for `make image` (optional the same way)
#   arm64  build + the arm64 cross build and VM (make cross-arm64, make
#          vm-arm64): adds the arm64 dpkg architecture, Debian's cross gcc,
#          the :arm64 -dev libraries (multiarch, beside the amd64 ones),
#          qemu-system-aarch64 and mmdebstrap.  Not part of 'all'.
#
# Nothing is left to start at the next boot that was not there before: the
# services of these packages (slurmctld, slurmd, munge, prometheus,
# node_exporter, rdma-core's) are test tools, started privately by the tests
# that need them.  While installing, a policy-rc.d keeps them from starting;
# afterwards every unit the install enabled (a new link under
# /etc/systemd/system/*.wants or *.requires) is disabled again.
# Units enabled before (a real Slurm node's slurmd) are left as they were.
set -euo pipefail

SYSTEMD_ETC=${DEPS_SYSTEMD_ETC:-/etc/systemd/system}
# boot_links: the enablement links under SYSTEMD_ETC, one "dir/unit" a line
boot_links() {
	(cd "$SYSTEMD_ETC" 2>/dev/null && find . -mindepth 2 -maxdepth 2 -type l \
		\( -path './*.wants/*' -o -path './*.requires/*' \) | LC_ALL=C sort) || true
}
# disable_new BEFORE: disable each unit with a link that BEFORE (boot_links's
# earlier output) did not have
disable_new() {
	local u
	for u in $(LC_ALL=C comm -13 <(printf '%s\n' "$1") <(boot_links) | sed 's|.*/||' | sort -u); do
		echo "deps: disabling $u (enabled by this install; the tests start it themselves)"
		# systemctl disable works without a running systemd, and also
		# disables the package's SysV links; the package's next upgrade
		# keeps it so (deb-systemd-helper only re-enables a unit it has
		# never seen installed)
		if command -v systemctl >/dev/null && [ "$SYSTEMD_ETC" = /etc/systemd/system ]; then
			systemctl disable -q "$u" >/dev/null 2>&1 || true
		fi
		# (also where deb-systemd-helper is not, or did not know the unit)
		find "$SYSTEMD_ETC" -mindepth 2 -maxdepth 2 -type l -name "$u" \
			\( -path '*.wants/*' -o -path '*.requires/*' \) -delete
	done
}
# quiet_install CMD...: CMD with no service started (policy-rc.d) and no
# unit left enabled that was not before
quiet_install() {
	local prc=/usr/sbin/policy-rc.d made= before rc=0
	before=$(boot_links)
	if [ ! -e $prc ]; then printf '#!/bin/sh\nexit 101\n' > $prc && chmod +x $prc && made=1; fi
	"$@" || rc=$?
	[ -z "$made" ] || rm -f $prc
	disable_new "$before"
	return $rc
}

BUILD_PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
	libjson-c-dev libibverbs-dev"
# libclang-rt-dev: libFuzzer (make fuzz-smoke); gcc brings ASan/UBSan itself
TEST_PKGS="libcmocka-dev util-linux procps jq python3 libclang-rt-dev time"
VM_PKGS="bc qemu-system-x86 busybox-static kmod cpio xz-utils zstd rdma-core ibverbs-utils
	ibverbs-providers iproute2 coreutils"
# real failing clients of the VM cases that the demo does not use (UCX;
# perftest's ib_write_bw and ndctl for the fs-dax check of the sites case)
VM_CLIENT_PKGS="ucx-utils perftest ndctl"
FLEET_PKGS="systemd man-db groff-base bash-completion prometheus prometheus-node-exporter
	slurmctld slurmd slurm-client munge python3 python3-kubernetes python3-yaml python3-seccomp
	debhelper dpkg-dev lintian devscripts logrotate"
IMAGE_PKGS="mmdebstrap buildah"
DEB_PKGS="debhelper dpkg-dev"
# lintian and hardening-check (devscripts) judge the package
DEB_CHECK_PKGS="lintian devscripts"

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
	quiet_install optional_install $miss
	return 0
}
# services in these packages must not start on the build machine, nor at its
# next boot (quiet_install)
optional_install() {
	local p
	if ! apt-get install -y -q --no-install-recommends "$@" >>/tmp/mrtrace-deps.log 2>&1; then
		apt-get update -q >>/tmp/mrtrace-deps.log 2>&1 || true
		for p in "$@"; do
			apt-get install -y -q --no-install-recommends "$p" >>/tmp/mrtrace-deps.log 2>&1 ||
				echo "deps: $p cannot be installed here: the tests that need it are skipped" >&2
		done
	fi
	return 0
}
ARM64_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 libelf-dev:arm64
	zlib1g-dev:arm64 libjson-c-dev:arm64 libibverbs-dev:arm64 libcmocka-dev:arm64
	qemu-system-arm mmdebstrap kmod cpio xz-utils util-linux"

want=$BUILD_PKGS
case "${1:-all}" in
build) ;;
test) want="$want $TEST_PKGS" ;;
vm) want="$want $TEST_PKGS $VM_PKGS" ;;
all) want="$want $TEST_PKGS $VM_PKGS $VM_CLIENT_PKGS"; trap 'optional $FLEET_PKGS' EXIT ;;
fleet) optional $FLEET_PKGS; exit 0 ;;
image) optional $IMAGE_PKGS; exit 0 ;;
deb) want="$want $DEB_PKGS"; trap 'optional $DEB_CHECK_PKGS' EXIT ;;
arm64) want="$want $ARM64_PKGS" ;;
*) echo "usage: $0 [build|test|vm|fleet|deb|image|arm64|all]" >&2; exit 2 ;;
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
# :arm64 packages need the architecture, and package lists that know it.
case "$missing" in *:arm64*)
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		apt-get update -q >/tmp/mrtrace-deps.log 2>&1 || true
	fi ;;
esac
inst() { apt-get install -y -q --no-install-recommends $missing; }
# A fresh machine may have stale or no package lists: update once and retry.
inst_retry() {
	inst >/tmp/mrtrace-deps.log 2>&1 && return 0
	apt-get update -q >>/tmp/mrtrace-deps.log 2>&1 || true
	inst >>/tmp/mrtrace-deps.log 2>&1
}
# (rdma-core, iproute2, qemu: no daemon of theirs runs or boots because of us)
quiet_install inst_retry || { tail -20 /tmp/mrtrace-deps.log >&2; exit 1; }
echo "deps: done"
