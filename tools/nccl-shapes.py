#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/nccl-shapes.py GITDIR [OUT] - the table of NCCL's failure lines, per release.

Reads NVIDIA/nccl's sources at every release tag from v2.4 on (a git
directory: `git --git-dir=GITDIR show TAG:src/...`), takes the WARN and INFO
format strings mrtrace reads after the fact (issue 32: `Call to ibv_* failed`,
ibv_modify_qp, completion errors, async events, shared memory, UDS, CUDA,
GPU Direct RDMA off, no device), and writes user/logs/nccl_shapes.tsv: one row
per distinct (level, format) with the first and last tag that print it, the
call and mrtrace op, how the line carries the errno, and what each
conversion of the format names.  A new NCCL release: rerun, commit the rows;
no code changes (user/logs/shapes.c compiles the table in at build time).

The `Call to <name> failed...` lines come from macros in misc/ibvwrap.cc:
the format is the macro's, the call is the name each use passes, so each
call gets the shape of the macro it used in that release (ibv_create_qp
printed no errno before 2.14, ibv_open_device never does)."""
import hashlib
import re
import subprocess
import sys

GIT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/NVIDIA+nccl/repo"
OUT = sys.argv[2] if len(sys.argv) > 2 else "user/logs/nccl_shapes.tsv"

# mrtrace op of each call (docs/json.md, refusal records' op; reg_mr for registrations)
OPS = {
    "ibv_reg_mr": "reg_mr", "ibv_reg_mr_iova2": "reg_mr", "ibv_reg_dmabuf_mr": "reg_mr",
    "ibv_create_qp": "create_qp", "ibv_create_cq": "create_cq", "ibv_modify_qp": "modify_qp",
    "ibv_open_device": "open_device", "ibv_alloc_pd": "alloc_pd", "ibv_create_ah": "create_ah",
    "posix_fallocate": "shm_alloc", "shm": "shm_alloc", "uds_bind": "fd_import",
}

# the lines of interest: (regex over the format, family, kind, nocall, call or None)
INTEREST = [
    (r"^on dev %s:%d, curr state", "qp_detail", "detail", "none", "ibv_modify_qp"),
    (r"^Call to (\w+)", "call", "failure_call", "none", None),
    (r"Got completion|completion error|Work completion error", "completion", "failure_nocall", "completion", None),
    (r"[Aa]sync (fatal |error |non-fatal )?event|async event", "async", "failure_nocall", "async", None),
    (r"posix_fallocate", "shm", "failure_call", "none", "posix_fallocate"),
    (r"[Ff]ailed to extend", "shm", "failure_call", "none", "posix_fallocate"),
    (r"shared memory segment|create shared memory file", "shm", "failure_call", "none", "shm"),
    (r"^UDS: Binding to socket", "uds", "failure_call", "none", "uds_bind"),
    (r"Cuda failure", "cuda", "failure_nocall", "cuda", None),
    (r"GPU Direct RDMA (Disabled|%s) for HCA", "gdr", "failure_nocall", "gdr_disabled", None),
    (r"^NET/IB : Unable to open device", "opendev", "failure_call", "none", "ibv_open_device"),
    (r"^NET/IB : No device found", "nodev", "failure_call", "none", "ibv_open_device"),
]
SKIP = re.compile(r"skipped|lib wrapper|retrying|Failed to handle")


def git(*args):
    return subprocess.run(["git", "--git-dir=" + GIT] + list(args), check=True,
                          capture_output=True, text=True, errors="replace").stdout


def tags():
    out = []
    for t in git("tag").split():
        m = re.fullmatch(r"v2\.(\d+)\.(\d+)-(\d+)", t)
        if m and int(m.group(1)) >= 4:
            out.append((tuple(int(x) for x in m.groups()), t))
    return [t for _, t in sorted(out)]


LIT = r'"(?:[^"\\\n]|\\.)*"'


def literals(s):
    """the C string literals at the start of s, concatenated"""
    m = re.match(r'\s*((?:' + LIT + r'\s*)+)', s)
    if not m:
        return None
    return "".join(bytes(x[1:-1], "utf-8").decode("unicode_escape") for x in re.findall(LIT, m.group(1)))


def macros_of(src, macros):
    """the macros that print "Call to " name " failed...": ibvwrap.cc's, checks.h's SYSCHECK"""
    for m in re.finditer(r'#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)', src):
        for c in re.finditer(r'\b(WARN|INFO)\s*\(\s*(?:[A-Z_|\s]+,\s*)?"Call to "\s*name\s*"((?:[^"\\]|\\.)*)"', m.group(3)):
            macros.setdefault(m.group(1), []).append((c.group(1), c.group(2)))


def formats(src, macros):
    """(level, format) of every WARN/INFO in a source file, the macros expanded at their uses"""
    out = []
    for name, fmts in macros.items():
        for u in re.finditer(r'\b' + name + r'\s*\(([^;]*)\)\s*;', src):
            calls = [c for c in re.findall(r'"(\w+)"', u.group(1)) if c in OPS]
            if calls:
                for lvl, rest in fmts:
                    out.append((lvl, "Call to " + calls[-1] + rest))
    # ibv_modify_qp's detail (2.24+) is written by snprintf, then printed with %s
    for m in re.finditer(r'\bsnprintf\s*\(\s*\w+\s*,\s*\w+\s*,\s*(?="on dev)', src):
        out.append(("DETAIL", literals(src[m.end():])))
    for m in re.finditer(r'\b(WARN|INFO)\s*\(\s*(?:[A-Z_][A-Z_|\s]*,\s*)?', src):
        f = literals(src[m.end():])
        if f is not None:
            out.append((m.group(1), f))
    return out


def fields(fmt):
    """what each conversion of fmt names, from the literal text before it"""
    names = []
    convs = list(re.finditer(r'%[-#0 +]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXspc%]', fmt))
    for i, c in enumerate(convs):
        if c.group() == "%%":
            continue
        before = fmt[convs[i - 1].end() if i else 0:c.start()]
        low = fmt[:c.start()].lower()
        conv = c.group()[-1]
        nxt = fmt[c.end():c.end() + 1]
        f = "-"
        b = before.lower()
        if low.startswith("call to ") and (b.endswith("failed with error ") or b.endswith("failed : ")
                                           or b.endswith("failed: ")) and conv == "s":
            f = "err_text"
        elif b.endswith("errno ") or (b.endswith("failed with ") and conv == "d"):
            f = "err"
        elif b.endswith(" ") and conv == "s" and names and names[-1] == "err" and "failed with %d %s" in fmt:
            f = "err_text"
        elif b.endswith(", ") and conv == "s" and "failed with %d %s, %s" in fmt:
            f = "qp_detail"
        elif b in (" (", "(") and names and names[-1] == "err_text":
            f = "err"
        elif b.endswith("failed : ") and conv == "d":
            f = "err"
        elif "gpu direct rdma" in low and conv == "s" and b.endswith("rdma "):
            f = "gdr_state"
        elif "gpu direct rdma" in low and b.endswith("'"):
            f = "device"
        elif b.endswith("status=(") or b.endswith("opcode=("):
            f = "wc_status_name" if "status" in b else "wc_opcode_name"
        elif b == ")" and names and names[-1] in ("wc_status_name", "wc_opcode_name"):
            f = "wc_status" if names[-1] == "wc_status_name" else "wc_opcode"
        elif "async" in low and conv == "s" and b.endswith(": "):
            f = "async_event"
        elif re.search(r"(error: |error |: )$", b) and conv == "s" and "(%d)" in fmt[c.end():c.end() + 5] and not re.search("event", b):
            f = "err_text"
        elif b.startswith("(") and b.endswith("(") is False and False:
            f = "-"
        elif re.search(r"on dev $", b) or b.endswith("byte_len=") and False or (b.endswith("net/ib : ") and conv == "s") or b.endswith("open device ") or b.endswith("hca ") and conv == "s":
            f = "device"
        elif b == ":" and names and names[-1] == "device":
            f = "port"
        elif b.endswith("curr state "):
            f = "cur_state"
        elif b.endswith("next state "):
            f = "next_state"
        elif b.endswith("local gid index "):
            f = "gid_index"
        elif b.endswith("local gid "):
            f = "local_gid"
        elif b.endswith("remote gid "):
            f = "remote_gid"
        elif "completion" in low and (b.endswith("with error ") or b.endswith("status=") or b.endswith("status ")):
            f = "wc_status_name" if conv == "s" else "wc_status"
        elif b == "(" and names and names[-1] in ("wc_status_name", "wc_opcode_name", "async_event"):
            f = {"wc_status_name": "wc_status", "wc_opcode_name": "wc_opcode", "async_event": "async_code"}[names[-1]]
        elif "completion" in low and (b.endswith("opcode ") or b.endswith("opcode=")):
            f = "wc_opcode_name" if conv == "s" else "wc_opcode"
        elif "completion" in low and (b.endswith("len ") or b.endswith("len=") or b.endswith("reqsize=")):
            f = "wc_len"
        elif "completion" in low and (b.endswith("vendor err ") or b.endswith("vendor_err=") or b.endswith("vendor err=")):
            f = "wc_vendor_err"
        elif "completion" in low and (b.endswith("peer ") or b.endswith("peer=")):
            f = "wc_peer"
        elif "completion" in low and (b.endswith("hca ") or b.endswith("hca=")):
            f = "wc_hca"
        elif "completion" in low and (b.endswith("req type ") or b.endswith("req_type=")):
            f = "wc_req_type"
        elif "event" in b and conv == "s":
            f = "async_event"
        elif b.endswith("segment ") or b.endswith("extend ") or b.endswith("socket ") or b.endswith("file "):
            f = "shm_path"
        elif b.endswith("(size ") or b.endswith(" to "):
            f = "shm_size"
        elif "cuda failure" in low and conv == "s":
            f = "cuda_error"
        elif "cuda failure" in low and conv == "d":
            f = "result_code"
        names.append(f)
    return ",".join(names) if names else "-"


def how(fmt, flds):
    f = flds.split(",")
    if "err_text" in f:
        return "strerror"
    if "err" in f:
        return "number"
    return "none"


def main():
    rows = {}  # (level, fmt) -> [first, last, family, kind, nocall, call]
    order = []
    for tag in tags():
        files = git("grep", "-l", "-E", r"WARN\(|INFO\(", tag, "--", "src").split()
        seen = set()
        srcs = []
        for path in git("ls-tree", "-r", "--name-only", tag, "--", "src").split():
            if path.endswith((".cc", ".h", ".cu", ".c")) and (tag + ":" + path) in files_set(files):
                srcs.append(git("show", tag + ":" + path))
        macros = {}
        bodies = {}
        for src in srcs:
            macros_of(src, macros)
            for m in re.finditer(r'#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)', src):
                bodies[m.group(1)] = m.group(3)
        # a macro that calls one of these (SYSCHECK -> SYSCHECKVAL) prints its lines
        for _ in range(3):
            for name, body in bodies.items():
                for inner in list(macros):
                    if inner != name and re.search(r'\b' + inner + r'\s*\(', body):
                        for x in macros[inner]:
                            if x not in macros.setdefault(name, []):
                                macros[name].append(x)
        for src in srcs:
            for lvl, fmt in formats(src, macros):
                if SKIP.search(fmt) or (lvl, fmt) in seen:
                    continue
                for rx, fam, kind, nocall, call in INTEREST:
                    m = re.search(rx, fmt)
                    if not m:
                        continue
                    if fam == "gdr" and lvl != "INFO":
                        continue
                    c = call or (m.group(1) if fam == "call" else None)
                    if fam == "call" and c == "ibv_modify_qp":
                        fam = "modify_qp"
                    if fam == "call" and c not in OPS:
                        break  # a call mrtrace does not explain (query_*, dereg, post_*)
                    seen.add((lvl, fmt))
                    key = (lvl, fmt)
                    if key not in rows:
                        rows[key] = [tag, tag, fam, kind, nocall, c or "-"]
                        order.append(key)
                    rows[key][1] = tag
                    break
    with open(OUT, "w") as out:
        out.write("# user/logs/nccl_shapes.tsv - written by tools/nccl-shapes.py from NVIDIA/nccl's\n"
                  "# sources per release tag; do not edit by hand (rerun it: a new release is new rows).\n"
                  "# id\tlevel\tfirst_tag\tlast_tag\tkind\tnocall\tcall\top\terrno\tfields\tformat\n")
        for key in sorted(order, key=lambda k: (rows[k][2], rows[k][5], vkey(rows[k][0]), k[1])):
            lvl, fmt = key
            first, last, fam, kind, nocall, call = rows[key]
            fl = fields(fmt)
            sid = fam + "." + (call + "." if call != "-" else "") + hashlib.sha1((lvl + fmt).encode()).hexdigest()[:6]
            esc = fmt.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            out.write("\t".join([sid, lvl, first, last, kind, nocall, call, OPS.get(call, "-"),
                                 how(fmt, fl), fl, esc]) + "\n")
    print("%s: %d shapes" % (OUT, len(order)), file=sys.stderr)


def files_set(files, cache={}):
    key = id(files)
    if key not in cache:
        cache.clear()
        cache[key] = set(files)
    return cache[key]


def vkey(tag):
    return tuple(int(x) for x in re.findall(r"\d+", tag))


if __name__ == "__main__":
    main()
