#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/tmp-checkout.sh - the systemd boot from a checkout under /tmp.
#
# Usage: tests/vm/tmp-checkout.sh [KERNEL]      (default 6.12; make vm-harness)
#
# Copies the harness (tests/vm, tools/fetch-kernel.sh) into a directory under
# /tmp whose name has a space, puts 20,000 files of clutter beside it in the
# host's /tmp, and boots KERNEL in systemd mode (VM_INIT=systemd) from the
# copy, with the out dir under /var/tmp (also with a space). The guest checks
# that its script ran from the copy, that /tmp and /var/tmp are its own tmpfs
# holding only the run's paths (no clutter), that systemd-tmpfiles-setup ran
# and left them alone, and that the out share is writable; the host checks
# that the copy and the clutter are whole afterwards and that the boot did
# not take longer than a boot takes. A second boot runs from a copy under
# /var/lib, where the run names nothing under /tmp or /var/tmp. Ends with
# 'vm-tmp-checkout: N passed, N failed'.
set -uo pipefail

if [ "${1:-}" = --in-guest ]; then
	# ---- in the guest, as vm-script.service of the guest's systemd ----
	res=$VM_OUT/guest-checks.txt
	: > "$res"
	chk() { local n=$1; shift; if "$@" >/dev/null 2>&1; then echo "ok $n" >> "$res"; else echo "FAIL $n: $*" >> "$res"; fi; }
	here=$(cd "$(dirname "$0")/../.." && pwd -P)
	chk ran_from_the_tmp_checkout test "$here" = "$TOP"
	chk checkout_readable test -r "$TOP/tests/vm/run.sh"
	chk tmp_is_a_tmpfs test "$(stat -f -c %T /tmp)" = tmpfs
	chk var_tmp_is_a_tmpfs test "$(stat -f -c %T /var/tmp)" = tmpfs
	chk no_clutter_seen test ! -e "/tmp/$CLUTTER_NAME"
	chk checkout_is_a_kept_mount mountpoint -q "$TOP"
	chk tmpfiles_setup_ran test "$(systemctl show -p Result --value systemd-tmpfiles-setup.service)" = success
	chk checkout_survived_tmpfiles test -r "$TOP/tests/vm/tmp-checkout.sh"
	t0=$(systemctl show -p ExecMainStartTimestampMonotonic --value systemd-tmpfiles-setup.service)
	t1=$(systemctl show -p ExecMainExitTimestampMonotonic --value systemd-tmpfiles-setup.service)
	echo "note tmpfiles-setup: $(( (t1 - t0) / 1000 )) ms" >> "$res"
	chk out_share_writable sh -c 'echo x > "$VM_OUT/written" && test -s "$VM_OUT/written"'
	exit 0
fi

KERNEL=${1:-6.12}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok tmp-checkout:$1"; }
bad() { fail=$((fail + 1)); echo "FAIL tmp-checkout:$1${2:+: $2}"; }
ck=$(mktemp -d "/tmp/mrtrace checkout.XXXXXX")
clutter=$(mktemp -d /tmp/mrtrace-clutter.XXXXXX)
out=$(mktemp -d "/var/tmp/mrtrace out.XXXXXX")
trap 'rm -rf -- "$ck" "$clutter" "$out" "$out.log"' EXIT
mkdir -p "$ck/tests" "$ck/tools"
cp -a "$TOP/tests/vm" "$ck/tests/" && cp -a "$TOP/tools/fetch-kernel.sh" "$ck/tools/" || { bad copy; exit 1; }
rm -rf "$ck/tests/vm/cases" "$ck/tests/vm/systemd"
# clutter: what other clones and builds leave in /tmp
(cd "$clutter" && seq -f 'f%g' 1 20000 | xargs touch && mkdir d && seq -f 'd/g%g' 1 100 | xargs touch)
nclutter=$(find "$clutter" | wc -l)

t0=$SECONDS
VM_INIT=systemd VM_QUIET=1 "$ck/tests/vm/run.sh" --kernel "$KERNEL" --out "$out" \
	--env CLUTTER_NAME="$(basename "$clutter")" "$ck/tests/vm/tmp-checkout.sh" --in-guest > "$out.log" 2>&1
rc=$?
wall=$((SECONDS - t0))
[ "$rc" = 123 ] && { echo "SKIP tmp-checkout: kernel $KERNEL not available"; echo "vm-tmp-checkout: 0 passed, 0 failed, 1 skipped"; exit 0; }
[ "$rc" = 0 ] && ok boot_finished || bad boot_finished "run.sh exit $rc: $(tail -n 3 "$out.log" | tr '\n' ' ')"
if [ -f "$out/guest-checks.txt" ]; then
	while read -r verdict name rest; do
		case $verdict in
		ok) ok "$name" ;;
		FAIL) bad "${name%:}" "$rest" ;;
		note) echo "note tmp-checkout:$name $rest" ;;
		esac
	done < "$out/guest-checks.txt"
else
	bad guest_checks "no guest-checks.txt (the script never ran)"
fi
[ "$(find "$clutter" | wc -l)" = "$nclutter" ] && ok host_clutter_whole || bad host_clutter_whole
[ -r "$ck/tests/vm/run.sh" ] && [ -r "$ck/tools/fetch-kernel.sh" ] && ok host_checkout_whole || bad host_checkout_whole
# boot-to-script from run.sh's console stamps: tmpfiles walking 20,000 files
# over 9p under TCG would take minutes
boot=$(grep -a -m1 'vm-init\[.*\]: running ' "$out/serial.log" 2>/dev/null | sed -E 's/^\[\+ *([0-9]+)\..*/\1/')
echo "note tmp-checkout:times boot-to-script ${boot:-?} s, wall $wall s"
[ -n "$boot" ] && [ "$boot" -lt 180 ] && ok boot_not_slowed_by_host_tmp || bad boot_not_slowed_by_host_tmp "boot-to-script ${boot:-?} s"
# and from a checkout outside /tmp and /var/tmp, where the run names nothing
# under either: the private /tmp keeps no path (a boot that died before its
# script here once: an empty list read as one empty path)
elsewhere=$(mktemp -d "/var/lib/mrtrace harness.XXXXXX")
trap 'rm -rf -- "$ck" "$clutter" "$out" "$out.log" "$elsewhere"' EXIT
cp -a "$ck/tests" "$ck/tools" "$elsewhere/"
VM_INIT=systemd VM_QUIET=1 "$elsewhere/tests/vm/run.sh" --kernel "$KERNEL" --out "$elsewhere/out" \
	/bin/true > "$elsewhere/log" 2>&1
rc=$?
[ "$rc" = 0 ] && ok boot_from_outside_tmp || bad boot_from_outside_tmp "run.sh exit $rc: $(tail -n 2 "$elsewhere/log" | tr '\n' ' ')"
if [ "$fail" != 0 ]; then
	mkdir -p "$TOP/build"
	cp -f "$out/serial.log" "$TOP/build/tmp-checkout.serial.log" 2>/dev/null
	cp -f "$out.log" "$TOP/build/tmp-checkout.log" 2>/dev/null
	echo "tmp-checkout: console and output kept in build/tmp-checkout.serial.log, build/tmp-checkout.log"
fi
echo "vm-tmp-checkout: $pass passed, $fail failed"
[ "$fail" = 0 ]
