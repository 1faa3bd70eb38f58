#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/ucx-shapes.py UCX_GIT [RDMA_CORE_GIT [CALLS_TSV [OUT]]] - the lines UCX
prints when a verbs, mlx5dv or librdmacm call fails, and its mlx5 CQE error
texts, per release, into user/logs/ucx_shapes.tsv.

Reads openucx/ucx's sources (a bare mirror: `git --git-dir=UCX_GIT show
TAG:path`) at every release tag vX.Y.0 from v1.6.0 on and at HEAD, every
file under src/uct/ib/:

- `fmt` rows: the format of each ucs_error/ucs_warn/ucs_diag/ucs_log/
  ucs_fatal and uct_ib_check_memlock_limit_msg (which prints "DEV: " before
  and " failed: %m" after its own) whose text names a call of ibv_*,
  mlx5dv_* or rdma_* and says it failed or returned (UCT_IB_IFACE_FMT and
  the other string macros of the tree expanded, PRIx64 and the like as
  printf prints them, %m as the %s of strerror's text); with the call, the
  mrtrace op (docs/json.md: the op of user/logs/calls.tsv, and by the rules
  of DEVX below) and the first and last tag that print it;
- `obj` rows: the object names UCX hands its mlx5dv_devx_obj_create
  wrapper ("QP", "DCT", "CQ", "MKEY_ALIAS" ...), printed as the format's
  first %s, with the op each creates (OBJ_OPS);
- `call` rows: the MLNX_OFED experimental verbs UCX names in its text
  (string literals "ibv_exp_reg_mr", "ibv_exp_modify_qp" of 1.6..1.13: its
  md prints "%s(address=%p, length=%zu, access=0x%lx) failed: %m" with
  that title), which no rdma-core header declares: each with the op of its
  rdma-core name without "exp_" (ibv_exp_reg_mr is ibv_reg_mr's), none
  written when that has none;
- `cqe` rows: uct_ib_mlx5_completion_with_err()'s text for each mlx5 CQE
  syndrome ("Transport retry count exceeded", "Local protection"), printed
  as "TEXT on DEV:PORT/LL (synd 0x.. vend 0x.. hw_synd N/N)", with the work
  completion status rdma-core's mlx5 provider gives that syndrome
  (providers/mlx5/cq.c, numbered by enum ibv_wc_status of verbs.h).

A new UCX release: rerun, commit the rows; the build compiles the table
into user/logs/ucxshapes.c (tools/ucx-shapes-to-c.sh)."""
import re
import subprocess
import sys

UCX = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/openucx+ucx/repo"
RDMA_CORE = sys.argv[2] if len(sys.argv) > 2 else "/work/.mirror/linux-rdma+rdma-core/repo"
CALLS = sys.argv[3] if len(sys.argv) > 3 else "user/logs/calls.tsv"
OUT = sys.argv[4] if len(sys.argv) > 4 else "user/logs/ucx_shapes.tsv"

CALL = re.compile(r"\b((?:ibv_|mlx5dv_|rdma_)[a-z0-9_]+)")
# the DEVX commands whose op is not the call's: a QP's modify is modify_qp;
# an object's creation is its object's (the obj rows)
DEVX_OPS = [
    (r"^mlx5dv_devx_(qp|obj)_modify$", "modify_qp"),
    (r"^mlx5dv_devx_obj_create$", "obj"),
]
OBJ_OPS = [
    (r"^(QP|DCT|DCI|RMP|XRQ|SRQ|TIS|RQ|SQ)\b", "create_qp"),
    (r"^CQ\b", "create_cq"),
    (r"MKEY", "reg_mr"),
]
PRI = {"PRIx64": "lx", "PRIu64": "lu", "PRId64": "ld", "PRIx32": "x", "PRIu32": "u", "PRId32": "d",
       "PRIi64": "li", "PRIX64": "lX"}
LOGGERS = r"\b(ucs_error|ucs_warn|ucs_diag|ucs_log|ucs_fatal|uct_ib_check_memlock_limit_msg)\s*\("
LIT = r'"(?:[^"\\\n]|\\.)*"'


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir=" + gitdir] + list(args), check=True,
                          capture_output=True, text=True, errors="replace").stdout


def tags():
    out = []
    for t in git(UCX, "tag").split():
        m = re.fullmatch(r"v1\.(\d+)\.0", t)
        if m and int(m.group(1)) >= 6:
            out.append((int(m.group(1)), t))
    return [t for _, t in sorted(out)] + ["HEAD"]


def unescape(s):
    return bytes(s, "utf-8").decode("unicode_escape")


def string_macros(sources):
    """#define NAME "literal" ... of the tree (UCT_IB_IFACE_FMT)"""
    macros = {}
    for src in sources:
        for m in re.finditer(r'#define\s+(\w+)\s+((?:' + LIT + r'\s*)+)\s*$', src, re.M):
            macros[m.group(1)] = "".join(unescape(x[1:-1]) for x in re.findall(LIT, m.group(2)))
    return macros


def format_at(s, macros):
    """the format of a call's arguments: the first run of literals, string
    macros and PRI* macros; None when it holds a name that is neither"""
    m = re.search(r'(?:' + LIT + r'|\b[A-Z][A-Z0-9_]*\b)(?:\s*(?:' + LIT + r'|\b[A-Z][A-Z0-9_]*\b))*', s)
    while m and '"' not in m.group(0):
        m = re.search(r'(?:' + LIT + r'|\b[A-Z][A-Z0-9_]*\b)(?:\s*(?:' + LIT + r'|\b[A-Z][A-Z0-9_]*\b))*',
                      s[m.end():])
    if not m:
        return None
    out = ""
    for tok in re.findall(LIT + r'|\b[A-Z][A-Z0-9_]*\b', m.group(0)):
        if tok.startswith('"'):
            out += unescape(tok[1:-1])
        elif tok in PRI:
            out += PRI[tok]
        elif tok in macros:
            out += macros[tok]
        elif out:
            return None  # an unknown name inside the format
    return out


def args_of(src, start):
    """the text of a call's arguments from start (just past its '('), bounded"""
    depth, i = 1, start
    while i < len(src) and depth and i - start < 2000:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < len(src) and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            i = j
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return src[start:i - 1]


def rule(rules, name):
    for r, op in rules:
        if re.search(r, name):
            return op
    return None


def main():
    ops = {}
    with open(CALLS) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 3 and p[0] == "call":
                ops[p[1]] = p[2]
    fmts = {}  # (level, call, op, fmt) -> [first, last]
    objs = {}  # obj -> op
    cqes = {}  # (text, syndrome) -> [first, last]
    exp = {}  # ibv_exp_* name UCX prints -> [first, last]
    for tag in tags():
        files = [p for p in git(UCX, "ls-tree", "-r", "--name-only", tag, "src/uct/ib/").split()
                 if p.endswith((".c", ".h", ".inl"))]
        sources = [git(UCX, "show", tag + ":" + p) for p in files]
        macros = string_macros(sources)
        for src in sources:
            for m in re.finditer(LOGGERS, src):
                a = args_of(src, m.end())
                fmt = format_at(a, macros)
                if not fmt:
                    continue
                fmt = fmt.rstrip("\n").split("\n")[0]  # the line the reader sees first
                if m.group(1) == "uct_ib_check_memlock_limit_msg":
                    fmt = "%s: " + fmt + " failed: %m"
                c = CALL.search(fmt)
                if not c or not re.search(r"failed|returned", fmt[c.end():]):
                    continue
                call = c.group(1)
                op = rule(DEVX_OPS, call) or ops.get(call, "-")
                level = {"ucs_error": "ERROR", "ucs_warn": "WARN", "ucs_diag": "DIAG",
                         "ucs_fatal": "FATAL"}.get(m.group(1), "LOG")
                fmt = fmt.replace("%m", "%s")
                key = (level, call, op, fmt)
                fmts.setdefault(key, [tag, tag])[1] = tag
            for m in re.finditer(r'"(ibv_exp_[a-z0-9_]+)', src):
                exp.setdefault(m.group(1), [tag, tag])[1] = tag
            for m in re.finditer(r"uct_ib_mlx5_devx_obj_create\s*\(", src):
                for lit in re.findall(LIT, args_of(src, m.end())):
                    obj = unescape(lit[1:-1])
                    op = rule(OBJ_OPS, obj)
                    if op and re.fullmatch(r"[A-Za-z_ ]+", obj):
                        objs[obj] = op
            for m in re.finditer(r"case\s+(MLX5_CQE_SYNDROME_\w+)\s*:\s*snprintf\s*\(\s*err_info\s*,"
                                 r"\s*sizeof\s*\(\s*err_info\s*\)\s*,\s*(" + LIT + r")", src):
                key = (unescape(m.group(2)[1:-1]), m.group(1))
                cqes.setdefault(key, [tag, tag])[1] = tag
    # the status of each syndrome: rdma-core's mlx5 provider
    verbs_h = git(RDMA_CORE, "show", "HEAD:libibverbs/verbs.h")
    enum = re.search(r"enum ibv_wc_status \{(.*?)\};", verbs_h, re.S).group(1)
    numbers = {n: i for i, n in enumerate(re.findall(r"\b(IBV_WC_[A-Z_]+)", enum))}
    cq_c = git(RDMA_CORE, "show", "HEAD:providers/mlx5/cq.c")
    status = {m.group(1): m.group(2) for m in
              re.finditer(r"case\s+(MLX5_CQE_SYNDROME_\w+)\s*:\s*return\s+(IBV_WC_\w+)\s*;", cq_c)}
    with open(OUT, "w") as f:
        f.write("# user/logs/ucx_shapes.tsv - written by tools/ucx-shapes.py; do not edit by hand.\n")
        f.write("# ucx %s (tags v1.6.0..%s and HEAD), rdma-core %s (providers/mlx5/cq.c)\n" %
                (git(UCX, "rev-parse", "HEAD").strip(), tags()[-2], git(RDMA_CORE, "rev-parse", "HEAD").strip()))
        f.write("# fmt\tlevel\tfirst_tag\tlast_tag\tcall\top\tformat (%m as %s)\n")
        f.write("# call\tname\top\tfirst_tag\tlast_tag\n")
        f.write("# obj\tname\top\n")
        f.write("# cqe\ttext\tfirst_tag\tlast_tag\tsyndrome\twc status number\tIBV_WC name\n")
        for (level, call, op, fmt), (a, b) in sorted(fmts.items(), key=lambda kv: (kv[0][1], kv[0][3])):
            if "\t" in fmt:
                continue
            f.write("fmt\t%s\t%s\t%s\t%s\t%s\t%s\n" % (level, a, b, call, op, fmt))
        for name, (a, b) in sorted(exp.items()):
            op = ops.get(name.replace("ibv_exp_", "ibv_", 1), "-")
            if op != "-":
                f.write("call\t%s\t%s\t%s\t%s\n" % (name, op, a, b))
        for obj in sorted(objs):
            f.write("obj\t%s\t%s\n" % (obj, objs[obj]))
        for (text, synd), (a, b) in sorted(cqes.items()):
            wc = status.get(synd)
            if wc in numbers:
                f.write("cqe\t%s\t%s\t%s\t%s\t%d\t%s\n" % (text, a, b, synd, numbers[wc], wc))
    print("%s: %d formats, %d objects, %d CQE texts" % (OUT, len(fmts), len(objs), len(cqes)), file=sys.stderr)


if __name__ == "__main__":
    main()
