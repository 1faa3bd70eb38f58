#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pure.py - is the explanation engine pure?

    tools/pure.py [--build DIR] [FOLDER...]

The engine (user/verdict/, by default) is a function of a record and a
context (docs/design.md section 1, "Verdict"): no state kept between calls,
no /proc, no libbpf.  From `nm` of DIR/user/FOLDER/*.o (default build/):

  state     an object (a variable) in a writable section (.data, .bss and
            their .local/.rel forms): a static that outlives a call.
            Read-only tables (.rodata, .data.rel.ro) are fine;
  reads     a call into a file, process or BPF API (open, read, stat,
            opendir, popen, bpf_*, libbpf_*, and mrtrace's own readers:
            procfs_*, sr_*, slurp*, jobfile_*, *_read, gates_collect).

Prints each finding and exits 1 when there is one.  Build first (`make`).
"""
import os
import re
import subprocess
import sys

WRITABLE = re.compile(r"^\.(data|bss)(\.local|\.rel\.local|\.rel)?(\..*)?$")
READONLY = re.compile(r"^\.data\.rel\.ro")
READS = re.compile(r"^(open|open64|openat|openat2|fopen|fopen64|fdopen|freopen|read|pread|pread64|"
                   r"readv|opendir|fdopendir|readdir|readdir64|scandir|stat|stat64|fstat|fstat64|"
                   r"lstat|fstatat|statx|readlink|readlinkat|access|faccessat|popen|getline|fgets|"
                   r"fread|ioctl|syscall|bpf_.*|libbpf_.*|bpf|procfs_.*|sr_.*|slurp.*|jobfile_.*|"
                   r".*_read|gates_collect)$")


def objects(build, folders):
    for folder in folders:
        d = os.path.join(build, "user", folder)
        for f in sorted(os.listdir(d)):
            if f.endswith(".o"):
                yield os.path.join(folder, f), os.path.join(d, f)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.join(root, "build")
    folders = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--build" and args:
            build = os.path.abspath(args.pop(0))
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            folders.append(a.strip("/").removeprefix("user/"))
    folders = folders or ["verdict"]
    bad = n = 0
    for rel, path in objects(build, folders):
        n += 1
        out = subprocess.run(["nm", "--format=sysv", path], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            cols = [c.strip() for c in line.split("|")]
            if len(cols) < 7 or cols[3] != "OBJECT":
                continue
            if WRITABLE.match(cols[6]) and not READONLY.match(cols[6]):
                print(f"state: {rel}: {cols[0]} in {cols[6]}")
                bad += 1
        out = subprocess.run(["nm", "-u", path], capture_output=True, text=True,
                             check=True).stdout
        for sym in sorted({l.split()[-1] for l in out.splitlines() if l.strip()}):
            if READS.match(sym):
                print(f"reads: {rel}: calls {sym}")
                bad += 1
    print(f"pure: {n} objects in {' '.join(folders)}, {bad} findings")
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
