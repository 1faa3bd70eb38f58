#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/fetch-kernel.sh - fetch a stock Debian kernel package with
# 'apt-get download' and unpack it (never install it) into the cache, outside
# the work tree.  Prints the unpacked kernel's directory on stdout.
#
# Usage: tools/fetch-kernel.sh 6.1|6.12|PACKAGE
#   6.1  -> linux-image-amd64 (bookworm's default kernel)
#   6.12 -> linux-image-6.12-amd64 (bookworm backport kernel)
# Env:   MRTRACE_CACHE   cache directory (default /var/cache/mrtrace)
#
# Layout: $MRTRACE_CACHE/kernels/<kver>/{boot/vmlinuz-<kver>,lib/modules/<kver>}
# with modules.dep generated (the .deb ships none).
set -euo pipefail
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}
case "${1:-}" in
6.1) pkg=linux-image-amd64 ;;
6.12) pkg=linux-image-6.12-amd64 ;;
linux-image-*) pkg=$1 ;;
*) echo "usage: $0 6.1|6.12|linux-image-PACKAGE" >&2; exit 2 ;;
esac
# Resolve a metapackage to the exact ABI package it depends on.
resolve() { apt-cache depends "$1" 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }
dep=$(resolve "$pkg")
if [ -z "$dep" ] && ! apt-cache show "$pkg" >/dev/null 2>&1; then
	apt-get update -q >&2 || true
	dep=$(resolve "$pkg")
fi
[ -n "$dep" ] && pkg=$dep
kver=${pkg#linux-image-}
kver=${kver%-unsigned}
kdir=$CACHE/kernels/$kver
if [ -f "$kdir/lib/modules/$kver/modules.dep" ] && [ -f "$kdir/boot/vmlinuz-$kver" ]; then
	echo "$kdir"; exit 0
fi
mkdir -p "$CACHE/debs" "$CACHE/kernels"
deb=$(ls "$CACHE"/debs/"${pkg}"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
	echo "fetch-kernel: apt-get download $pkg" >&2
	(cd "$CACHE/debs" && apt-get download "$pkg" >&2) || {
		apt-get update -q >&2 || true
		(cd "$CACHE/debs" && apt-get download "$pkg" >&2); }
	deb=$(ls "$CACHE"/debs/"${pkg}"_*.deb | head -1)
fi
echo "fetch-kernel: unpacking $(basename "$deb")" >&2
tmp=$kdir.tmp.$$
rm -rf "$tmp"; mkdir -p "$tmp"
dpkg-deb -x "$deb" "$tmp"
depmod -b "$tmp" "$kver"
rm -rf "$kdir"; mv "$tmp" "$kdir"
echo "$kdir"
