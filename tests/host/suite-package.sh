#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-package.sh - the Debian package (`make deb`, debian/):
# the version the binaries carry agrees with debian/changelog (and with a
# release tag, tried in a throwaway clone), the package builds with
# debhelper and Debian's build flags, lintian finds no error, the binaries
# pass hardening-check (PIE, stack protector, fortify, RELRO, BIND_NOW),
# and it installs (dpkg -i), runs from the installed paths, and purges
# leaving nothing behind.
#
# It installs on this machine, so it runs only where mrtrace is neither
# installed nor configured (a skip with the reason otherwise), and it runs
# the package's own build: under `make asan` (MRTRACE set) it is skipped, a
# package is never built with the sanitizers.  Needs root.  Ends with
# "host-package: N passed, M failed, K skipped".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${HOST_OUT:-$TOP/build/host-package}
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
T0=$(date +%s)
have() { command -v "$1" >/dev/null 2>&1; }
finish() {
	echo "host-package: $PASS passed, $FAIL failed, $SKIP skipped ($(( $(date +%s) - T0 )) s)"
	[ "$FAIL" = 0 ]
	exit
}
[ "$(id -u)" = 0 ] || { echo "host-package needs root"; echo "host-package: 0 passed, 1 failed, 0 skipped"; exit 1; }
if [ -n "${MRTRACE:-}" ]; then
	skip package "MRTRACE=$MRTRACE: the package is built with Debian's flags, not this build's"
	finish
fi
for t in dpkg-buildpackage dh; do
	have "$t" || { skip package "$t missing (tools/deps.sh deb)"; finish; }
done

# ---- 1. one version: the tree, debian/changelog, a release tag ----------------
ver=$(make -s -C "$TOP" --no-print-directory version)
deb_ver=$(cd "$TOP" && dpkg-parsechangelog -S Version)
file_ver=$(cat "$TOP/VERSION")
check changelog_is_version_file test "$deb_ver" = "$file_ver"
check tree_version_from_changelog_release sh -c "case '$ver' in '$deb_ver'|'$deb_ver'[+-]*) exit 0;; esac; exit 1"
# a release: the tag v<VERSION> names the version exactly.  Tried in a
# throwaway repository holding what `make version` and the check in
# tools/build-deb.sh read (a tag here would be the whole repository's).
C=$OUT/tagged
if have git; then
	mkdir -p "$C/tools" && cp -r "$TOP/Makefile" "$TOP/VERSION" "$TOP/debian" "$C/" &&
		cp "$TOP/tools/build-deb.sh" "$C/tools/"
	git -C "$C" init -q && git -C "$C" add -A &&
		git -C "$C" -c user.name=t -c user.email=t@t commit -q -m t && git -C "$C" tag "v$file_ver"
	check tag_gives_version test "$(make -s -C "$C" --no-print-directory version)" = "$file_ver"
	git -C "$C" tag -d "v$file_ver" >/dev/null && git -C "$C" tag v9.9.9
	check tag_disagreeing_with_changelog_refused sh -c \
		"! '$C/tools/build-deb.sh' '$OUT/wrong' 2>'$OUT/wrong.err' && grep -q 'tree is 9.9.9 but debian/changelog says $deb_ver' '$OUT/wrong.err'"
	rm -rf "$C" "$OUT/wrong"
else
	skip tag_gives_version "no git"
fi

# ---- 2. build: debhelper, lintian, hardening-check ---------------------------------
t=$(date +%s)
if make -s -C "$TOP" --no-print-directory deb DEB_OUT="$OUT/deb" > "$OUT/deb.log" 2>&1; then
	ok package_builds
else
	bad package_builds "$(tail -5 "$OUT/deb.log" | tr '\n' ' ')"
	finish
fi
echo "  make deb: $(( $(date +%s) - t )) s"
DEB=$(ls "$OUT"/deb/mrtrace_*.deb)
if [ -s "$OUT/deb/lintian.txt" ] || have lintian; then
	check lintian_no_errors sh -c "! grep '^E: ' '$OUT/deb/lintian.txt'"
	grep -E '^[WE]: ' "$OUT/deb/lintian.txt" | sed 's/^/  /' | head -20
else
	skip lintian "not installed (tools/deps.sh deb)"
fi
check package_version test "$(dpkg-deb -f "$DEB" Version)" = "$deb_ver"
X=$OUT/x
dpkg-deb -x "$DEB" "$X"
if have hardening-check; then
	# control-flow protection is not asked: Debian 12's toolchain has no
	# CET-marked start files, so no binary of it passes that one
	for b in usr/sbin/mrtrace usr/bin/mrprobe; do
		check "hardening_$(basename $b)" hardening-check --nocfprotection "$X/$b"
	done
else
	skip hardening "hardening-check missing (devscripts)"
fi
check package_ships_everything sh -c "cd '$X' && ls usr/sbin/mrtrace usr/bin/mrtrace usr/bin/mrprobe \
	usr/share/man/man8/mrtrace.8.gz usr/share/man/man1/mrprobe.1.gz \
	lib/systemd/system/mrtrace.service lib/systemd/system/mrtrace-check.timer \
	usr/lib/tmpfiles.d/mrtrace.conf usr/share/bash-completion/completions/mrtrace \
	usr/libexec/mrtrace/slurm-prolog usr/libexec/mrtrace/slurm-epilog \
	usr/share/mrtrace/nhc/mrtrace.nhc usr/share/mrtrace/prometheus/mrtrace.rules.yml \
	usr/share/mrtrace/prometheus/mrtrace.rules.test.yml usr/libexec/mrtrace/slurm-healthcheck \
	etc/logrotate.d/mrtrace etc/mrtrace/mrtrace.conf usr/share/doc/mrtrace/copyright >/dev/null"
check package_slurm_files_name_installed_paths sh -c "grep -q 'Prolog=/usr/libexec/mrtrace/slurm-prolog' '$X/usr/libexec/mrtrace/slurm-prolog' && \
	grep -q '^exec /usr/libexec/mrtrace/slurm-prolog --healthcheck' '$X/usr/libexec/mrtrace/slurm-healthcheck' && \
	! grep -q /usr/local '$X/usr/share/mrtrace/nhc/mrtrace.nhc' '$X/usr/libexec/mrtrace/slurm-healthcheck'"
if have logrotate; then
	# a forced rotation of a copy: renamed, a new file created in its place
	# (the service reopens it on SIGHUP: suite-rotate.sh), no copytruncate
	L=$OUT/logrotate; mkdir -p "$L"
	sed "s|/var/log/mrtrace/events.jsonl|$L/events.jsonl|" "$X/etc/logrotate.d/mrtrace" > "$L/conf"
	echo '{"event":"start"}' > "$L/events.jsonl"; ino=$(stat -c %i "$L/events.jsonl")
	logrotate -f -s "$L/state" "$L/conf" > "$L/out" 2>&1
	check logrotate_create_and_sighup sh -c "[ \$(stat -c %i '$L/events.jsonl.1') = $ino ] && [ \$(stat -c %i%s '$L/events.jsonl') != ${ino}0 ] && [ ! -s '$L/events.jsonl' ] && grep -q start '$L/events.jsonl.1' && grep -q 'kill --signal=HUP' '$L/conf' && ! grep -Eq '^[[:space:]]*copytruncate' '$L/conf'"
else
	skip logrotate "logrotate not installed"
fi

# ---- 3. install, run from the installed paths, purge --------------------------------
if dpkg-query -W -f='${Status}' mrtrace 2>/dev/null | grep -q 'installed' || [ -e /etc/mrtrace ]; then
	skip package_install "mrtrace is installed or configured on this machine: not touched"
	finish
fi
pre_log=0; [ -e /var/log/mrtrace ] && pre_log=1
if dpkg -i "$DEB" > "$OUT/dpkg-i.log" 2>&1; then
	ok package_installs
	check installed_mrtrace_version test "$(/usr/sbin/mrtrace --version)" = "mrtrace $ver"
	check installed_mrprobe_version test "$(/usr/bin/mrprobe --version)" = "mrprobe $ver"
	check installed_user_path_runs sh -c "[ \"$(readlink /usr/bin/mrtrace)\" = ../sbin/mrtrace ] && [ \"$(/usr/bin/mrtrace --version)\" = \"mrtrace $ver\" ]"
	check installed_check_runs sh -c "/usr/sbin/mrtrace check --json | jq -e '.schema==\"mrtrace-check/1\"' >/dev/null"
	check installed_man_sections sh -c "[ \"\$(man -w mrprobe)\" = /usr/share/man/man1/mrprobe.1.gz ] && [ \"\$(man -w mrtrace)\" = /usr/share/man/man8/mrtrace.8.gz ]"
	# the docs the outputs point to, at the path the installed binary and man page name
	check installed_docs sh -c "cd /usr/share/doc/mrtrace && ls causes.md json.md check.md context.md deploy.md mrprobe.md logs.md >/dev/null"
	check installed_help_names_installed_doc sh -c "/usr/sbin/mrtrace watch --help | grep -q '/usr/share/doc/mrtrace/json.md' && /usr/sbin/mrtrace check --help | grep -q '/usr/share/doc/mrtrace/check.md'"
	check installed_man_names_installed_doc sh -c "zcat /usr/share/man/man8/mrtrace.8.gz | grep -q '^.I /usr/share/doc/mrtrace/causes.md'"
	check installed_conffiles sh -c "dpkg-query -W -f='\${Conffiles}' mrtrace | grep -q /etc/mrtrace/mrtrace.conf && dpkg-query -W -f='\${Conffiles}' mrtrace | grep -q /etc/logrotate.d/mrtrace"
	# tmpfiles made the log directory: the records root's, the job reports reachable
	check installed_log_dirs sh -c "[ \$(stat -c %a /var/log/mrtrace) = 751 ] && [ \$(stat -c %a /var/log/mrtrace/jobs) = 711 ]"
	if dpkg --purge mrtrace > "$OUT/dpkg-purge.log" 2>&1; then
		ok package_purges
	else
		bad package_purges "$(tail -3 "$OUT/dpkg-purge.log" | tr '\n' ' ')"
	fi
	left=
	for f in /usr/sbin/mrtrace /usr/bin/mrprobe /etc/mrtrace /etc/logrotate.d/mrtrace \
		/lib/systemd/system/mrtrace.service /usr/libexec/mrtrace /usr/share/mrtrace \
		/usr/share/doc/mrtrace /var/cache/mrtrace/facts; do
		[ -e "$f" ] && left="$left $f"
	done
	[ "$pre_log" = 0 ] && [ -e /var/log/mrtrace ] && left="$left /var/log/mrtrace"
	left="$left $(find /etc/systemd/system -name 'mrtrace*' 2>/dev/null | tr '\n' ' ')"
	check purge_leaves_nothing test -z "${left// /}"
	[ -z "${left// /}" ] || echo "  left:$left"
	check purge_forgets_package sh -c "! dpkg-query -W -f='\${Status}' mrtrace 2>/dev/null | grep -q installed"
else
	bad package_installs "$(tail -3 "$OUT/dpkg-i.log" | tr '\n' ' ')"
	dpkg --purge mrtrace > /dev/null 2>&1
fi
finish
