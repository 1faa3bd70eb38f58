#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Derive the DaemonSet's seccomp profile from the systemd unit's filter, so
that the pod and the unit allow the same system calls.

Usage: seccomp-profile.py UNIT > PROFILE.json      (exit 2: cannot run)

Reads UNIT's SystemCallFilter= lines (the first an allow list, each later
`~` list removing from it, as systemd.exec(5) merges them),
SystemCallErrorNumber= and RestrictNamespaces=, expands every @group with
`systemd-analyze syscall-filter`, and writes an OCI seccomp profile (the
format a kubelet's Localhost profile has): anything not allowed fails with
the unit's errno. RestrictNamespaces=yes becomes what systemd itself does
for it: no setns or unshare at all, clone only without CLONE_NEW* flags,
clone3 (whose flags seccomp cannot read) ENOSYS so that libc falls back to
clone. deploy/k8s/seccomp/mrtrace-watch.json is this script's output for
contrib/systemd/mrtrace.service; tests/host/suite-fleet.sh checks that it
still is, and runs watch under it."""
import errno
import json
import re
import subprocess
import sys

# CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER
# | CLONE_NEWPID | CLONE_NEWNET (include/uapi/linux/sched.h)
CLONE_NEW_MASK = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
ARCHES = ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"]


def expand(name, seen):
    """The system calls of @group NAME (or NAME itself), recursively."""
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    try:
        out = subprocess.run(["systemd-analyze", "syscall-filter", name], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"seccomp-profile.py: systemd-analyze syscall-filter {name}: {e}", file=sys.stderr)
        sys.exit(2)
    calls = set()
    for line in out.splitlines()[1:]:
        w = line.strip()
        if not w or w.startswith("#"):
            continue
        calls |= expand(w, seen)
    return calls


def unit_settings(path):
    filters, errno_name, restrict_ns = [], "EPERM", False
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(SystemCallFilter|SystemCallErrorNumber|RestrictNamespaces)=(.*)", line)
            if not m:
                continue
            key, val = m.group(1), m.group(2).strip()
            if key == "SystemCallFilter":
                filters.append(val)
            elif key == "SystemCallErrorNumber":
                errno_name = val
            else:
                restrict_ns = val == "yes"
    return filters, errno_name, restrict_ns


def main(unit):
    filters, errno_name, restrict_ns = unit_settings(unit)
    if not filters or filters[0].startswith("~"):
        print(f"seccomp-profile.py: {unit}: the first SystemCallFilter= must be an allow list", file=sys.stderr)
        return 2
    allowed = set()
    for words in filters:
        deny = words.startswith("~")
        calls = set()
        for w in words.lstrip("~").split():
            calls |= expand(w, set())
        allowed = allowed - calls if deny else allowed | calls
    if restrict_ns:
        allowed -= {"setns", "unshare", "clone", "clone3"}
    ret = getattr(errno, errno_name, None)
    if ret is None:
        print(f"seccomp-profile.py: SystemCallErrorNumber={errno_name}: not an errno name", file=sys.stderr)
        return 2
    syscalls = [{"names": sorted(allowed), "action": "SCMP_ACT_ALLOW"}]
    if restrict_ns:
        syscalls.append({"names": ["clone"], "action": "SCMP_ACT_ALLOW",
                         "args": [{"index": 0, "value": CLONE_NEW_MASK, "valueTwo": 0,
                                   "op": "SCMP_CMP_MASKED_EQ"}]})
        syscalls.append({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": errno.ENOSYS})
    profile = {"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": ret,
               "architectures": ARCHES, "syscalls": syscalls}
    json.dump(profile, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
