#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/build-deb.sh - `make deb`: the Debian package, built with debhelper
# from a copy of this tree, so the build leaves nothing in the tree and the
# .deb does not land in its parent directory.
#
# Usage: tools/build-deb.sh [OUTDIR]    (default build/deb)
# Leaves OUTDIR/mrtrace_<version>_<arch>.deb, the .changes and .buildinfo,
# and OUTDIR/lintian.txt.  Lintian errors fail the build; warnings are
# printed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "${1:-$TOP/build/deb}" && cd "${1:-$TOP/build/deb}" && pwd)
cd "$TOP"

# the version the binaries carry (git describe), and the release the
# package is (debian/changelog); a release's tag is v<changelog version>
ver=$(make -s --no-print-directory version)
deb_ver=$(dpkg-parsechangelog -S Version)
case "$ver" in
"$deb_ver"|"$deb_ver"[+-]*) ;;
*) echo "build-deb: the tree is $ver but debian/changelog says $deb_ver" \
	"(add a changelog entry for the release)" >&2; exit 1 ;;
esac

SRC=$OUT/src/mrtrace-$deb_ver
rm -rf "$OUT/src" "$OUT"/mrtrace[_-]*
mkdir -p "$SRC"
# tracked and untracked-but-not-ignored files: what `git status` would ship
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c \
		'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$SRC"
else
	tar --exclude=./build --exclude='./build-*' -cf - . | tar -xf - -C "$SRC"
fi

t0=$(date +%s)
(cd "$SRC" && MRTRACE_VERSION=$ver dpkg-buildpackage -b -uc -us -j"${DEB_JOBS:-2}") \
	> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log" >&2; exit 1; }
# dpkg-buildpackage writes beside the source: move the results up
mv "$OUT"/src/mrtrace[_-]* "$OUT"/
rm -rf "$OUT/src"
deb=$(ls "$OUT"/mrtrace_*.deb)
echo "  DEB     $deb ($(( $(date +%s) - t0 )) s)"

if command -v lintian >/dev/null 2>&1; then
	lintian --tag-display-limit 0 "$OUT"/mrtrace_*.changes > "$OUT/lintian.txt" 2>&1 || true
	sed 's/^/  lintian: /' "$OUT/lintian.txt"
	if grep -q '^E: ' "$OUT/lintian.txt"; then
		echo "build-deb: lintian errors (above)" >&2
		exit 1
	fi
else
	echo "  lintian not installed (tools/deps.sh deb): not checked"
fi
