# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm-arm64/cases/arm64.sh - what is arm64's own, before the shared
# cases run: the binaries under test are arm64 ones, the kernel's page size
# is the one its flavour promises, the committed CO-RE header is what this
# kernel serves, and the unit tests pass when built for arm64.
# Sourced by tests/vm/suite.sh --in-guest (tests/vm-arm64/suite.sh).
# The 25 unit tests alone take minutes under TCG (11 of them in 230 s of a
# 16K run on a busy host): more time than the harness default.
# vm-timeout: 720

note "kernel $(uname -r), $(uname -m), page size $(getconf PAGESIZE), $(nproc) vCPUs"

is_aarch64() { [ "$(uname -m)" = aarch64 ] || { echo "uname -m: $(uname -m)"; return 1; }; }
check machine_aarch64 is_aarch64
# The ELF header's e_machine, 0xb7 = EM_AARCH64, at offset 18 (little-endian).
elf_aarch64() {
	local f m
	for f in "$MRTRACE" "$MRPROBE"; do
		m=$(od -An -tx2 -j 18 -N 2 "$f" | tr -d ' ')
		[ "$m" = 00b7 ] || { echo "$f: e_machine 0x$m"; return 1; }
	done
}
check binaries_aarch64 elf_aarch64

# Debian's -16k flavour runs 16 KiB pages, every other arm64 flavour 4 KiB.
page_as_flavour() {
	local want=4096 got
	case $(uname -r) in *-16k) want=16384 ;; *-64k) want=65536 ;; esac
	got=$(getconf PAGESIZE)
	echo "getconf PAGESIZE $got, flavour says $want"
	[ "$got" = "$want" ]
}
check page_size_of_flavour page_as_flavour

# vmlinux/arm64/vmlinux.h was made on the host from BTF cut out of this
# kernel's Image (vmlinux/generate.sh arm64), and records the cut's sha256.
# On the same kernel, the cut must be byte for byte what the kernel serves.
# (Comparing the dumped C instead takes bpftool minutes under TCG.)
hdr=$TOP/vmlinux/arm64/vmlinux.h
hdr_kver=$(sed -n '1s/.*linux-image \([^:]*\):.*/\1/p' "$hdr")
hdr_sum=$(sed -n '1,4s/.*sha256 of the vmlinux BTF: \([0-9a-f]\{64\}\).*/\1/p' "$hdr")
btf_is_the_cut() {
	local sum
	sum=$(sha256sum < /sys/kernel/btf/vmlinux | cut -c1-64)
	echo "/sys/kernel/btf/vmlinux sha256 $sum, vmlinux.h records ${hdr_sum:-nothing}"
	[ "$sum" = "$hdr_sum" ]
}
if [ "$(uname -r)" = "$hdr_kver" ]; then
	check btf_is_the_cut_in_vmlinux_h btf_is_the_cut
else
	note "vmlinux.h is from $hdr_kver, this is $(uname -r): BTF not compared"
fi

# The unit tests, cross-built (make cross-arm64), run here on arm64.
units=("$TOP"/build/tests/test_*)
if [ -x "${units[0]}" ]; then
	# A line per binary on the console (fd 4, the case's own output) as
	# it ends: the whole run is minutes under TCG, and a guest silent for
	# 300 s is killed as hung, while check's own output waits for the end.
	# The check's detail is then the failures and the count line.
	exec 4>&1
	run_units() {
		UNIT_PROGRESS=1 "$TOP/tests/unit/run.sh" "$@" 2>&1 | tee "$CASE_OUT/unit.txt" >&4
		local rc=${PIPESTATUS[0]}
		grep -v '^  test_[a-z0-9_]* ([0-9]* s): [0-9]* passed, [0-9]* failed$' "$CASE_OUT/unit.txt"
		return "$rc"
	}
	check unit_tests run_units "${units[@]}"
	note "arm64 $(grep -h '^unit: ' "$CASE_OUT/unit.txt" | tail -1)"
else
	check unit_tests_built false
fi
