#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm-arm64/make-root.sh - the arm64 guest's root file system, made from
# Debian arm64 packages and cached outside the work tree.  Prints its path.
#
# Usage: tests/vm-arm64/make-root.sh
# Env:   MRTRACE_CACHE   cache directory (default /var/cache/mrtrace); the
#                        root is $MRTRACE_CACHE/arm64-root/<key>, where <key>
#                        hashes the package list and this script
#
# Why 'mmdebstrap --variant=extract': the packages are unpacked, not
# installed, so no arm64 code runs on this x86 host (no qemu-user, no
# binfmt_misc, which this machine's container does not offer).  What the
# maintainer scripts would have done, the few bits the guest relies on, is
# done here by hand (fix_root).  Dependencies are resolved by apt, so the set
# below names only what the guest runs.
#
# Package sources: the Debian repositories this host's apt already uses for
# arm64 (after 'dpkg --add-architecture arm64', see tools/deps.sh arm64).
set -euo pipefail
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}

# What the guest runs: stage 1 of init (busybox-static), stage 2 and the
# harness (bash, coreutils, util-linux's setpriv/prlimit/unshare/flock, procps,
# mawk, sed, grep, findutils, kmod, iproute2's ip and rdma), the case scripts
# (jq, ibverbs-utils), mrtrace and mrprobe's shared libraries, the unit
# tests' (cmocka, binutils' nm), and bpftool for looking at the guest's BTF
# and programs by hand.
PKGS="base-files base-passwd libc-bin dash bash coreutils util-linux mount procps mawk sed
	grep findutils diffutils gzip tar hostname kmod busybox-static iproute2 jq
	libibverbs1 ibverbs-providers ibverbs-utils libbpf1 libelf1 libjson-c5 zlib1g
	libcmocka0 bpftool binutils"
SUITE=bookworm

key=$( { cat "${BASH_SOURCE[0]}"; echo $PKGS; } | sha256sum | cut -c1-16)
dir=$CACHE/arm64-root
root=$dir/$key
if [ -f "$root/.mrtrace-root" ]; then
	touch "$root/.mrtrace-root"
	echo "$root"; exit 0
fi

command -v mmdebstrap >/dev/null || {
	echo "make-root: mmdebstrap missing (tools/deps.sh arm64 installs it)" >&2; exit 1; }
dpkg --print-foreign-architectures | grep -qx arm64 || {
	echo "make-root: arm64 is not a dpkg architecture here; run tools/deps.sh arm64" >&2; exit 1; }
# The host's Debian repositories that have arm64 indexes, as one-line
# sources for mmdebstrap's standard input.
sources() {
	apt-get indextargets --format 'deb $(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Identifier: Packages' 'Architecture: arm64' 'Origin: Debian' | sort -u
}
src=$(sources)
if [ -z "$src" ]; then
	apt-get update -q >&2 || true
	src=$(sources)
fi
[ -n "$src" ] || { echo "make-root: apt has no Debian arm64 package lists" >&2; exit 1; }

mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "make-root: mmdebstrap --variant=extract --arch=arm64 $SUITE into $root" >&2
printf '%s\n' "$src" | mmdebstrap --quiet --variant=extract --mode=root --arch=arm64 \
	--include="$(echo $PKGS | tr ' ' ,)" "$SUITE" "$tmp/root" - >&2

# fix_root R: what the skipped maintainer scripts and triggers would leave
# behind and the guest needs.
fix_root() {
	local r=$1
	# base-passwd's preinst: users and groups (setpriv --reuid=nobody).
	[ -e "$r/etc/passwd" ] || cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
	[ -e "$r/etc/group" ] || cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
	printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' > "$r/etc/nsswitch.conf"
	# dash's postinst / update-alternatives: /bin/sh, awk.
	[ -e "$r/bin/sh" ] || ln -s dash "$r/bin/sh"
	[ -e "$r/usr/bin/awk" ] || ln -s mawk "$r/usr/bin/awk"
	# What systemd's modprobe.d gives a host: dummy loads without making
	# a dummy0 of its own (init creates dummy0 with 'ip link add').
	mkdir -p "$r/etc/modprobe.d"
	echo 'options dummy numdummies=0' > "$r/etc/modprobe.d/mrtrace-vm.conf"
	# Mount points the guest's init uses; the rest is made at boot in the
	# tmpfs overlay.
	mkdir -p "$r/proc" "$r/sys" "$r/dev" "$r/run" "$r/tmp" "$r/lib/modules"
	chmod 1777 "$r/tmp"
	: > "$r/.mrtrace-root"
}
fix_root "$tmp/root"
for f in /bin/bash /bin/busybox /usr/bin/jq /usr/bin/setpriv /usr/bin/rdma /usr/sbin/bpftool; do
	[ -e "$tmp/root$f" ] || { echo "make-root: $f missing from the arm64 root" >&2; exit 1; }
done
rm -rf "$root"
mv "$tmp/root" "$root"
# Roots of another package list or script version go after a day.
find "$dir" -mindepth 2 -maxdepth 2 -name .mrtrace-root -mtime +1 -printf '%h\n' 2>/dev/null |
	while read -r old; do [ "$old" = "$root" ] || rm -rf "$old"; done
echo "$root"
