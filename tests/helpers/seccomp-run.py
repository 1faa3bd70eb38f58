#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run COMMAND under an OCI seccomp profile, as a container runtime would
load it (runc: libseccomp, the profile's defaultAction and syscalls, no_new_privs
set, the filter installed last before exec), so that a test can see what the
DaemonSet's profile lets `mrtrace watch` do without a container runtime.

Usage: seccomp-run.py PROFILE.json COMMAND [ARGS...]
Exit: COMMAND's; 2 when the profile cannot be loaded (python3-seccomp missing:
the caller skips). Names this libseccomp does not know for the native
architecture are skipped, as runc skips them."""
import json
import os
import sys

try:
    import seccomp
except ImportError as e:
    print(f"seccomp-run.py: {e}", file=sys.stderr)
    sys.exit(2)

OPS = {"SCMP_CMP_NE": seccomp.NE, "SCMP_CMP_LT": seccomp.LT, "SCMP_CMP_LE": seccomp.LE,
       "SCMP_CMP_EQ": seccomp.EQ, "SCMP_CMP_GE": seccomp.GE, "SCMP_CMP_GT": seccomp.GT,
       "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ}


def action(rule, profile):
    a = rule.get("action", profile["defaultAction"])
    if a == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if a == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(rule.get("errnoRet", profile.get("defaultErrnoRet", 1)))
    raise ValueError(f"action {a} not supported here")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        profile = json.load(f)
    f = seccomp.SyscallFilter(defaction=action({}, profile))
    for rule in profile["syscalls"]:
        act = action(rule, profile)
        # valueTwo: MASKED_EQ's compared value (the first is its mask); 0 for the rest
        args = [seccomp.Arg(a["index"], OPS[a["op"]], a["value"], a.get("valueTwo", 0))
                for a in rule.get("args", [])]
        for name in rule["names"]:
            try:
                f.add_rule(act, name, *args)
            except (RuntimeError, ValueError):
                pass  # unknown on this architecture
    f.load()  # sets no_new_privs (libseccomp's default)
    os.execvp(argv[2], argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
