#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/fetch-kernel.sh - fetch a stock Debian kernel with a PRIVATE apt
# configuration and unpack it (never install it) into the cache, outside the
# work tree.  Prints the unpacked kernel's directory on stdout.
#
# Usage: tools/fetch-kernel.sh [--refresh] NAME
#        tools/fetch-kernel.sh --info NAME        print the pin (key=value)
#        tools/fetch-kernel.sh --dbg NAME         download NAME's -dbg package,
#                                                 print the .deb's path
#        tools/fetch-kernel.sh --apt NAME apt-cache|apt-get ARGS...
#                                                 run apt in NAME's private config
# NAME:
#   5.10    linux-image-amd64 of bullseye (+ bullseye-security)
#   6.1     linux-image-amd64 of bookworm (+ bookworm-updates, -security)
#   6.12    linux-image-6.12-amd64 (bookworm-security), else bookworm-backports'
#           linux-image-amd64
#   newest  linux-image-amd64 of sid (unstable)
#   linux-image-PACKAGE   that package, from the first suite set that has it
#                         (bookworm, bullseye, sid)
#
# Exit status: 0 ok; 2 usage; 3 the archive does not serve this kernel (any
# more): the suite or package is gone from the mirror, or the pinned version
# cannot be downloaded; 1 anything else (network down, disk full, ...).
#
# Private apt: nothing of the system's apt state or configuration is read or
# written except /etc/apt/apt.conf.d (proxy and validity settings of this
# machine) and the mirror URL, taken from the system's sources (sources.list,
# sources.list.d/*.list and deb822 *.sources). Per suite set S:
#   $CACHE/apt/S/sources.list   written here, signed-by the Debian keyring
#   $CACHE/apt/S/{apt.conf,late.conf,state/,cache/}
# Signatures are checked by apt against /usr/share/keyrings/
# debian-archive-keyring.gpg (bullseye, bookworm, trixie keys; sid is signed
# with the current ones).
#
# Pins: $CACHE/kernels/resolved-NAME holds what NAME resolved to (package,
# version, kver, suite set, date). A pinned NAME never changes by itself: a
# run is repeatable, offline once the kernel is unpacked. --refresh
# re-resolves. "newest" re-resolves by itself when its pin is a day old (at
# most once a day; if that fails, the old pin is used, with a warning).
#
# Env:   MRTRACE_CACHE     cache directory (default /var/cache/mrtrace)
#        MRTRACE_MIRROR    Debian archive URL (default: from the system's
#                          sources, else http://deb.debian.org/debian)
#        MRTRACE_SECURITY_MIRROR  likewise for debian-security
#
# Layout: $CACHE/kernels/<kver>/{boot/vmlinuz-<kver>,lib/modules/<kver>}
# whatever the package's layout (merged-/usr usr/lib/modules, sid's split
# linux-binary + linux-modules + linux-base packages), with modules.dep
# generated (the packages ship none). Downloaded .debs stay in $CACHE/debs.
set -euo pipefail
CACHE=${MRTRACE_CACHE:-/var/cache/mrtrace}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
ME=fetch-kernel

say() { echo "$ME: $*" >&2; }
die() { say "$*"; exit 1; }
# The archive does not have it: callers (suite.sh) SKIP on 3, they do not fail.
unavailable() {
	{
		echo "$ME: ################################################################"
		echo "$ME: KERNEL NOT AVAILABLE FROM THE ARCHIVE: $*"
		echo "$ME: ################################################################"
	} >&2
	exit 3
}
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

MODE=fetch REFRESH=
while [ $# -gt 0 ]; do
	case $1 in
	--refresh) REFRESH=1; shift ;;
	--info) MODE=info; shift ;;
	--dbg) MODE=dbg; shift ;;
	--apt) MODE=apt; shift; break ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { usage >&2; exit 2; }
NAME=$1; shift
case $NAME in
5.10|6.1|6.12|newest|linux-image-*) ;;
*) say "unknown kernel '$NAME' (5.10, 6.1, 6.12, newest or linux-image-PACKAGE)"; exit 2 ;;
esac
[[ $NAME =~ ^[A-Za-z0-9.+~_-]+$ ]] || { say "bad kernel name '$NAME'"; exit 2; }
if [ $MODE = apt ]; then
	[ $# -ge 1 ] || { say "--apt NAME apt-cache|apt-get ARGS..."; exit 2; }
	case $1 in apt-cache|apt-get) ;; *) say "--apt runs apt-cache or apt-get only"; exit 2 ;; esac
fi

# ---------------------------------------------------------------- mirrors
# The first enabled Debian archive URI in the system's sources (one-line and
# deb822), and the security archive's. Only URIs are taken from there.
system_uris() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [opts] URI SUITE COMPONENTS...
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk '$1 == "deb" && NF >= 3 { print $2, $3 }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# Stanzas separated by blank lines; Types, URIs, Suites, Enabled.
		awk 'function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled !~ /^(no|false)/)
					for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
				types = ""; enabled = ""; nu = 0; ns = 0
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			{ line = $0; sub(/^[^:]*:[ \t]*/, "", line) }
			tolower($1) == "types:" { types = line }
			tolower($1) == "enabled:" { enabled = tolower(line) }
			tolower($1) == "uris:" { nu = split(line, u, /[ \t]+/) }
			tolower($1) == "suites:" { ns = split(line, s, /[ \t]+/) }
			END { flush() }' "$f"
	done
}
debian_suite_re='^(buster|bullseye|bookworm|trixie|forky|duke|sid|stable|oldstable|testing|unstable|experimental)'
pick_mirrors() {
	local uri suite main='' sec=''
	while read -r uri suite; do
		[[ $uri =~ ^https?:// ]] || continue
		[[ $suite =~ $debian_suite_re ]] || continue
		if [[ $suite == *-security || $suite == */updates ]]; then
			[ -n "$sec" ] || sec=${uri%/}
		else
			[ -n "$main" ] || main=${uri%/}
		fi
	done < <(system_uris 2>/dev/null)
	MIRROR=${MRTRACE_MIRROR:-${main:-http://deb.debian.org/debian}}
	MIRROR=${MIRROR%/}
	# No security entry: the same host's debian-security.
	SECURITY=${MRTRACE_SECURITY_MIRROR:-${sec:-${MIRROR%/*}/debian-security}}
	SECURITY=${SECURITY%/}
}

# ---------------------------------------------------------------- suite sets
# set_suites SET: the sources of suite set SET, one-line format.
set_sources() {
	local o="[signed-by=$KEYRING]"
	case $1 in
	bullseye)
		echo "deb $o $MIRROR bullseye main"
		echo "deb $o $SECURITY bullseye-security main" ;;
	bookworm)
		echo "deb $o $MIRROR bookworm main"
		echo "deb $o $MIRROR bookworm-updates main"
		echo "deb $o $SECURITY bookworm-security main"
		# NotAutomatic: never a candidate unless asked for by suite
		echo "deb $o $MIRROR bookworm-backports main" ;;
	sid)
		echo "deb $o $MIRROR sid main" ;;
	esac
}

# apt_setup SET: write SET's private configuration; sets APTD.
apt_setup() {
	APTD=$CACHE/apt/$1
	mkdir -p "$APTD/state/lists/partial" "$APTD/cache/archives/partial" "$APTD/etc/preferences.d" "$APTD/etc/trusted.gpg.d"
	[ -f "$APTD/state/status" ] || : > "$APTD/state/status"
	set_sources "$1" > "$APTD/sources.list.new"
	if cmp -s "$APTD/sources.list.new" "$APTD/sources.list"; then rm -f "$APTD/sources.list.new"
	else mv -f "$APTD/sources.list.new" "$APTD/sources.list"; fi
	# APT_CONFIG is read before /etc/apt/apt.conf.d (kept: this machine's
	# proxy and Check-Valid-Until settings); Dir::Etc::main is read after it,
	# so that late.conf can clear the parts' hooks (appstream, packagekit)
	# that would touch the system's state.
	cat > "$APTD/apt.conf" <<-EOF
	Dir::Etc::main "$APTD/late.conf";
	EOF
	cat > "$APTD/late.conf" <<-EOF
	#clear APT::Update::Pre-Invoke;
	#clear APT::Update::Post-Invoke;
	#clear APT::Update::Post-Invoke-Success;
	#clear DPkg::Pre-Invoke;
	#clear DPkg::Post-Invoke;
	#clear APT::Default-Release;
	Dir::Etc::sourcelist "$APTD/sources.list";
	Dir::Etc::sourceparts "-";
	Dir::Etc::preferences "$APTD/etc/preferences";
	Dir::Etc::preferencesparts "$APTD/etc/preferences.d";
	Dir::Etc::trusted "$APTD/etc/trusted.gpg";
	Dir::Etc::trustedparts "$APTD/etc/trusted.gpg.d";
	Dir::State "$APTD/state";
	Dir::State::status "$APTD/state/status";
	Dir::Cache "$APTD/cache";
	Dir::Log "$APTD/log";
	APT::Architecture "amd64";
	APT::Architectures { "amd64"; };
	APT::Sandbox::User "root";
	APT::Get::List-Cleanup "true";
	EOF
}
apt_in() { APT_CONFIG=$APTD/apt.conf "$@"; }

# apt_update SET [force]: refresh SET's package lists when they are missing,
# a day old, or forced. A suite the mirror no longer has = unavailable.
apt_update() {
	local log=$APTD/update.log stamp=$APTD/state/updated
	if [ -z "${2:-}" ] && [ -f "$stamp" ] && [ -z "$(find "$stamp" -mmin +1440)" ]; then
		return 0
	fi
	say "apt-get update ($1: $(awk '{ print $4 "@" $3 }' "$APTD/sources.list" | tr '\n' ' '))"
	if apt_in apt-get -q update > "$log" 2>&1 && ! grep -qE '^(W|E): .*(Release|signature|NO_PUBKEY|404)' "$log"; then
		touch "$stamp"
		return 0
	fi
	sed 's/^/    /' "$log" >&2
	# The mirror answered "no such file" (a suite moved to archive.debian.org
	# answers 404; some proxies 400) rather than not answering at all.
	if grep -qE "does not have a Release file|Failed to fetch .* +(40[0-9]|410) " "$log"; then
		unavailable "the mirror no longer has (part of) suite set '$1' ($MIRROR); see above"
	fi
	grep -qE 'NO_PUBKEY|signature|not signed' "$log" &&
		die "signature check failed for suite set '$1' (keyring $KEYRING)"
	die "apt-get update failed for suite set '$1'"
}

# candidate PKG [SUITE]: the version apt would pick (from SUITE if given).
candidate() {
	if [ -n "${2:-}" ]; then
		apt_in apt-cache showpkg "$1" 2>/dev/null | awk -v s="_dists_$2_" '
			/^Versions:/ { v = 1; next } /^Reverse Depends:/ { v = 0 }
			v && index($0, s) { print $1; exit }'
	else
		apt_in apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2; exit }'
	fi
}
# abi_package PKG VERSION: the exact-ABI linux-image-<kver> a metapackage
# depends on (PKG itself if it is one).
abi_package() {
	local dep
	dep=$(apt_in apt-cache show "$1=$2" 2>/dev/null |
		awk -F': ' '$1 == "Depends" { n = split($2, d, /, /); for (i = 1; i <= n; i++) {
			split(d[i], w, / /); if (w[1] ~ /^linux-image-[0-9]/) { print w[1]; exit } } }')
	echo "${dep:-$1}"
}

# ---------------------------------------------------------------- resolve
PIN=$CACHE/kernels/resolved-$NAME
read_pin() {
	PKG='' VERSION='' KVER='' SET='' DEBS=''
	[ -f "$PIN" ] || return 1
	local k v
	while IFS='=' read -r k v; do
		case $k in
		package) PKG=$v ;; version) VERSION=$v ;; kver) KVER=$v ;; set) SET=$v ;; debs) DEBS=$v ;;
		esac
	done < "$PIN"
	[ -n "$PKG" ] && [ -n "$VERSION" ] && [ -n "$SET" ]
}

# resolve: NAME -> SET PKG VERSION DEBS (the packages to unpack, with
# versions) KVER, from fresh lists; writes the pin.
resolve() {
	local meta='' suite='' sets s v abi deps d dv
	case $NAME in
	5.10) sets=bullseye; meta=linux-image-amd64 ;;
	6.1) sets=bookworm; meta=linux-image-amd64 ;;
	6.12) sets=bookworm; meta=linux-image-6.12-amd64 ;;
	newest) sets=sid; meta=linux-image-amd64 ;;
	*) sets="bookworm bullseye sid"; meta=$NAME ;;
	esac
	SET='' v=''
	for s in $sets; do
		apt_setup "$s"
		apt_update "$s" "${REFRESH:+force}"
		v=$(candidate "$meta")
		if [ -z "$v" ] && [ "$NAME" = 6.12 ]; then
			meta=linux-image-amd64 suite=bookworm-backports
			v=$(candidate "$meta" "$suite")
			case $v in 6.12.*) ;; *) v='' ;; esac
		fi
		[ -n "$v" ] && { SET=$s; break; }
	done
	[ -n "$SET" ] || unavailable "no package $meta for '$NAME' in suite set(s) $sets of $MIRROR"
	abi=$(abi_package "$meta" "$v")
	if [ "$abi" != "$meta" ]; then
		PKG=$abi
		VERSION=$(apt_in apt-cache show "$meta=$v" | awk -F': ' '$1 == "Depends" { print $2; exit }' |
			tr ',' '\n' | sed -n "s/^ *$PKG (= \([^)]*\)).*/\1/p" | head -1)
		[ -n "$VERSION" ] || VERSION=$(candidate "$PKG" "$suite")
	else
		PKG=$meta VERSION=$v
	fi
	[ -n "$VERSION" ] || unavailable "cannot resolve a version of $PKG in suite set $SET"
	# What to unpack: the image, plus its own-ABI dependencies (sid splits a
	# kernel into linux-binary-K, linux-modules-K and linux-base-K).
	KVER=${PKG#linux-image-}; KVER=${KVER%-unsigned}
	DEBS="$PKG=$VERSION"
	deps=$(apt_in apt-cache show "$PKG=$VERSION" | awk -F': ' '$1 == "Depends" { print $2; exit }' | tr ',|' '\n\n')
	while read -r d dv; do
		[ -n "$d" ] || continue
		case $d in
		linux-binary-"$KVER"|linux-modules-"$KVER"|linux-base-"$KVER"|linux-image-"$KVER"-unsigned)
			dv=$(candidate "$d" "$suite")
			[ -n "$dv" ] || unavailable "$PKG needs $d, which suite set $SET does not have"
			DEBS="$DEBS $d=$dv" ;;
		esac
	done <<< "$deps"
	mkdir -p "$CACHE/kernels"
	{
		echo "name=$NAME"
		echo "package=$PKG"
		echo "version=$VERSION"
		echo "kver=$KVER"
		echo "set=$SET"
		echo "debs=$DEBS"
		echo "resolved=$(date -u +%Y-%m-%dT%H:%M:%SZ) via $meta${suite:+/$suite} from $MIRROR"
	} > "$PIN.tmp.$$"
	mv -f "$PIN.tmp.$$" "$PIN"
	say "$NAME -> $PKG $VERSION (kernel $KVER, suite set $SET)"
}

# download PKG=VERSION into $CACHE/debs (kept: a pinned kernel is
# re-unpacked from here without the network). Prints the .deb's path.
download() {
	local p=${1%%=*} v=${1#*=} f log
	f=$(ls "$CACHE/debs/${p}_${v//:/%3a}"_*.deb 2>/dev/null | head -1 || true)
	if [ -n "$f" ]; then echo "$f"; return 0; fi
	mkdir -p "$CACHE/debs"
	log=$APTD/download.log
	say "apt-get download $p=$v ($(apt_in apt-cache show "$p=$v" 2>/dev/null | awk '$1 == "Size:" { printf "%.0f MB", $2 / 1e6; exit }'))"
	if ! (cd "$CACHE/debs" && apt_in apt-get -q download "$p=$v") > "$log" 2>&1; then
		# The lists may predate the pin's removal or a newer upload: once more
		# with fresh lists before judging.
		apt_update "$SET" force
		if ! (cd "$CACHE/debs" && apt_in apt-get -q download "$p=$v") > "$log" 2>&1; then
			sed 's/^/    /' "$log" >&2
			if grep -qE "404 +Not Found|Unable to locate|Can't find a source|not found|has no installation candidate" "$log"; then
				unavailable "$p $v can no longer be downloaded from $MIRROR (pinned in $PIN; --refresh re-resolves)"
			fi
			die "apt-get download $p=$v failed"
		fi
	fi
	f=$(ls "$CACHE/debs/${p}_${v//:/%3a}"_*.deb 2>/dev/null | head -1 || true)
	[ -n "$f" ] || die "apt-get download $p=$v left no .deb in $CACHE/debs"
	echo "$f"
}

# unpack: the .debs of the pin -> $CACHE/kernels/<kver>, normalised.
unpack() {
	local kdir=$CACHE/kernels/$KVER tmp d deb mods
	tmp=$kdir.tmp.$$
	UNPACK_TMP=$tmp
	rm -rf "$tmp"; mkdir -p "$tmp"
	trap 'rm -rf "${UNPACK_TMP:-/nonexistent}"' EXIT
	for d in $DEBS; do
		deb=$(download "$d")
		say "unpacking $(basename "$deb")"
		dpkg-deb -x "$deb" "$tmp"
	done
	# merged-/usr packages (sid) put modules under usr/lib/modules
	if [ -d "$tmp/usr/lib/modules/$KVER" ]; then
		mkdir -p "$tmp/lib/modules"
		if [ -d "$tmp/lib/modules/$KVER" ]; then
			cp -a "$tmp/usr/lib/modules/$KVER/." "$tmp/lib/modules/$KVER/"
			rm -rf "$tmp/usr/lib/modules/$KVER"
		else
			mv "$tmp/usr/lib/modules/$KVER" "$tmp/lib/modules/$KVER"
		fi
	fi
	mods=$tmp/lib/modules/$KVER
	[ -d "$mods" ] || die "no lib/modules/$KVER in $DEBS (kver from the package name is wrong?)"
	# sid's linux-binary ships the image as usr/lib/modules/K/vmlinuz
	mkdir -p "$tmp/boot"
	if [ ! -f "$tmp/boot/vmlinuz-$KVER" ]; then
		[ -f "$mods/vmlinuz" ] || die "no kernel image (boot/vmlinuz-$KVER or modules/$KVER/vmlinuz) in $DEBS"
		mv "$mods/vmlinuz" "$tmp/boot/vmlinuz-$KVER"
	fi
	depmod -b "$tmp" "$KVER"
	# dmesg-level sanity: the modules the VM needs exist in some form
	for m in rdma_rxe ib_uverbs; do
		grep -qE "/$m\\.ko(\\.(xz|zst|gz))?:" "$mods/modules.dep" ||
			grep -qE "/$m\\.ko" "$mods/modules.builtin" 2>/dev/null ||
			say "warning: $KVER has no $m module"
	done
	rm -rf "$kdir"; mv "$tmp" "$kdir"
	trap - EXIT
}

kernel_ready() { [ -n "$KVER" ] && [ -f "$CACHE/kernels/$KVER/lib/modules/$KVER/modules.dep" ] &&
	[ -f "$CACHE/kernels/$KVER/boot/vmlinuz-$KVER" ]; }

# ---------------------------------------------------------------- main
pick_mirrors
mkdir -p "$CACHE/kernels"
# One fetcher per NAME at a time (several developers share the cache).
exec 8>"$CACHE/kernels/.lock-$NAME"
flock 8

if [ $MODE = apt ]; then
	if read_pin; then apt_setup "$SET"
	else case $NAME in 5.10) apt_setup bullseye ;; newest) apt_setup sid ;; *) apt_setup bookworm ;; esac; fi
	apt_update "$(basename "$APTD")"
	APT_CONFIG=$APTD/apt.conf exec "$@"
fi

stale=
if read_pin && [ "$NAME" = newest ] && [ -n "$(find "$PIN" -mmin +1440)" ]; then stale=1; fi
if [ -n "$REFRESH" ] || ! read_pin; then
	resolve
elif [ -n "$stale" ]; then
	old=$(cat "$PIN")
	# A day old: look again, but a failure here keeps the old pin.
	if ! (resolve) ; then
		say "warning: could not re-resolve 'newest'; keeping $(grep '^package=' <<< "$old")"
		touch "$PIN"
	fi
	read_pin
fi
apt_setup "$SET"

case $MODE in
info) cat "$PIN"; exit 0 ;;
dbg)
	dbgpkg=linux-image-$KVER-dbg
	dv=$(candidate "$dbgpkg")
	if [ -z "$dv" ]; then apt_update "$SET" force; dv=$(candidate "$dbgpkg"); fi
	[ -n "$dv" ] || unavailable "no $dbgpkg in suite set $SET"
	download "$dbgpkg=$dv"
	exit 0 ;;
esac

if ! kernel_ready; then
	unpack
fi
echo "$CACHE/kernels/$KVER"
