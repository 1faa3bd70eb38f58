#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm-arm64/fetch-kernel.sh - fetch a stock Debian arm64 kernel package
# with 'apt-get download' (needs 'dpkg --add-architecture arm64', see
# tools/deps.sh arm64), unpack it into the cache (never install it) and print
# the unpacked kernel's directory.  The arm64 twin of tools/fetch-kernel.sh.
#
# Usage: tests/vm-arm64/fetch-kernel.sh 6.1|6.12|6.12-16k|PACKAGE
#   6.1       linux-image-arm64           (bookworm's default kernel, 4K pages)
#   6.12      linux-image-6.12-arm64      (4K pages)
#   6.12-16k  linux-image-6.12-arm64-16k  (16K pages: page arithmetic on a
#                                          non-4K kernel)
# Env:   MRTRACE_CACHE   cache directory (default /var/cache/mrtrace)
#
# Layout: $MRTRACE_CACHE/kernels/<kver>/ with boot/vmlinuz-<kver> (as
# shipped), boot/Image (decompressed: what qemu -kernel and vmlinux/generate.sh
# read) and lib/modules/<kver> with modules.dep.  arm64 kvers end in -arm64 or
# -arm64-16k, so they never collide with the amd64 kernels in the same cache.
set -euo pipefail
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}
case "${1:-}" in
6.1) pkg=linux-image-arm64 ;;
6.12) pkg=linux-image-6.12-arm64 ;;
6.12-16k) pkg=linux-image-6.12-arm64-16k ;;
linux-image-*) pkg=${1%:arm64} ;;
*) echo "usage: $0 6.1|6.12|6.12-16k|linux-image-PACKAGE" >&2; exit 2 ;;
esac
dpkg --print-foreign-architectures | grep -qx arm64 || {
	echo "fetch-kernel: arm64 is not a dpkg architecture here; run tools/deps.sh arm64" >&2
	exit 1; }
# Resolve a metapackage to the exact ABI package it depends on.
resolve() {
	apt-cache depends "$1:arm64" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { sub(/:arm64$/, "", $2); print $2; exit }'
}
dep=$(resolve "$pkg")
if [ -z "$dep" ] && ! apt-cache show "$pkg:arm64" >/dev/null 2>&1; then
	apt-get update -q >&2 || true
	dep=$(resolve "$pkg")
fi
[ -n "$dep" ] && pkg=$dep
kver=${pkg#linux-image-}
kver=${kver%-unsigned}
kdir=$CACHE/kernels/$kver
if [ -f "$kdir/lib/modules/$kver/modules.dep" ] && [ -s "$kdir/boot/Image" ]; then
	echo "$kdir"; exit 0
fi
mkdir -p "$CACHE/debs" "$CACHE/kernels"
deb=$(ls "$CACHE"/debs/"${pkg}"_*_arm64.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
	echo "fetch-kernel: apt-get download $pkg:arm64" >&2
	(cd "$CACHE/debs" && apt-get download "$pkg:arm64" >&2) || {
		apt-get update -q >&2 || true
		(cd "$CACHE/debs" && apt-get download "$pkg:arm64" >&2); }
	deb=$(ls "$CACHE"/debs/"${pkg}"_*_arm64.deb | head -1)
fi
echo "fetch-kernel: unpacking $(basename "$deb")" >&2
tmp=$kdir.tmp.$$
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
# Debian's arm64 vmlinuz is a gzip'd Image; qemu 7.2 would inflate it
# itself, but generate.sh needs the raw Image too, so inflate it once here.
# (An EFI zboot image, "MZ" + "zimg", would need firmware: say so.)
vmlinuz=$tmp/boot/vmlinuz-$kver
case "$(head -c 2 "$vmlinuz" | od -An -tx1 | tr -d ' ')" in
1f8b) gzip -dc "$vmlinuz" > "$tmp/boot/Image" ;;
*) if [ "$(dd if="$vmlinuz" bs=1 skip=4 count=4 2>/dev/null)" = zimg ]; then
	echo "fetch-kernel: $vmlinuz is an EFI zboot image; not supported" >&2; exit 1
   fi
   cp "$vmlinuz" "$tmp/boot/Image" ;;
esac
# ARM64 Image header: "ARM\x64" at offset 56.
[ "$(dd if="$tmp/boot/Image" bs=1 skip=56 count=3 2>/dev/null)" = ARM ] || {
	echo "fetch-kernel: $vmlinuz did not give an arm64 Image" >&2; exit 1; }
depmod -b "$tmp" "$kver"
rm -rf "$kdir"; mv "$tmp" "$kdir"
trap - EXIT
echo "$kdir"
