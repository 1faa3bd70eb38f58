#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# deploy/k8s/build-image.sh - build the mrtrace OCI image here, from Debian
# packages, with no registry: mmdebstrap makes the root filesystem from the
# archive named by this machine's apt sources, buildah builds the
# Containerfile FROM scratch with chroot isolation (no daemon, no nested
# namespaces needed).  `make image` runs it.
#
# Usage: build-image.sh MRTRACE_BINARY [TAG] [OCI_ARCHIVE]
#        build-image.sh --tags MRTRACE_BINARY [TAG]   (the tags it would make)
#   TAG          default localhost/mrtrace:<version>; the image is also
#                tagged <name>:latest, the tag deploy/k8s/daemonset.yaml names
#   OCI_ARCHIVE  also export the image there (oci-archive), for
#                `ctr -n k8s.io images import` or `podman load` on nodes
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TAGS_ONLY=0
[ "${1:-}" = --tags ] && { TAGS_ONLY=1; shift; }
BIN=${1:?usage: build-image.sh MRTRACE_BINARY [TAG] [OCI_ARCHIVE]}
VERSION=$("$BIN" --version | awk '{print $2}')
TAG=${2:-localhost/mrtrace:${VERSION//+/_}}
LATEST=${TAG%:*}:latest
ARCHIVE=${3:-}
if [ "$TAGS_ONLY" = 1 ]; then
	echo "$TAG"; echo "$LATEST"
	exit 0
fi
for t in mmdebstrap buildah; do
	command -v "$t" >/dev/null || { echo "build-image: $t is not installed (tools/deps.sh image)" >&2; exit 3; }
done
CTX=$(mktemp -d /var/tmp/mrtrace-image.XXXXXX)
trap 'rm -rf "$CTX"' EXIT

# The suite and sources of this machine (deb822 or one-line format).
SRC=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)
[ -n "$SRC" ] || SRC=/etc/apt/sources.list
SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$SUITE" ] || { echo "build-image: no VERSION_CODENAME in /etc/os-release" >&2; exit 3; }
# Runtime libraries of the binary, as Debian packages.
PKGS=$(ldd "$BIN" | awk '/=> \//{print $3}' | xargs -r realpath | xargs -r dpkg -S 2>/dev/null |
	cut -d: -f1 | sort -u | grep -v "^libc6$" | paste -sd, - || true)
echo "build-image: $SUITE root with ${PKGS:-no extra libraries}, prometheus-node-exporter"
mmdebstrap --quiet --variant=essential --format=tar \
	--include="${PKGS:+$PKGS,}findutils,prometheus-node-exporter" \
	--dpkgopt='path-exclude=/usr/share/{doc,man,locale,info}/*' \
	--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
	"$SUITE" "$CTX/rootfs.tar" "$SRC"
cp "$BIN" "$CTX/mrtrace"
cp "$HERE/../../contrib/mrtrace.conf" "$CTX/mrtrace.conf"
cp "$HERE/seccomp/mrtrace-watch.json" "$CTX/mrtrace-watch.json"
buildah build --quiet --isolation chroot --layers=false -f "$HERE/Containerfile" -t "$TAG" "$CTX"
[ "$LATEST" = "$TAG" ] || buildah tag "$TAG" "$LATEST"
[ -z "$ARCHIVE" ] || buildah push --quiet "$TAG" "oci-archive:$ARCHIVE:$TAG"
echo "build-image: $TAG ($LATEST)"
