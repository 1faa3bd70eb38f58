#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/call-names.py RDMA_CORE_GIT LIBFABRIC_GIT UNISTD_H [OUT] - every call
name a program may print beside an error, read from the sources, and the
work-completion status texts, into user/logs/calls.tsv.

The log reader takes a line of any program as a failure when it names one of
these calls and an error (user/logs/anycall.c).  The names are not typed from
memory: they are the function names declared in rdma-core's public headers
(libibverbs/verbs.h: ibv_*, providers/mlx5/mlx5dv.h: mlx5dv_*,
providers/efa/efadv.h: efadv_*, librdmacm's rdma_cma.h and rdma_verbs.h:
rdma_*), libfabric's include/rdma/*.h (fi_*), the kernel's uverbs write
commands (kernel-headers/rdma/ib_user_verbs.h, the kernel's uapi as rdma-core
carries it: ib_uverbs_<command>, the kernel's handler names) and the syscalls
of a kernel unistd.h that pin or import memory (pidfd_*, mlock*).  Each call
gets the operation the reader and the judge use (docs/json.md's ops) by the
rules in OPS below, "-" when it has none (read by no shape: a name the
reader knows is not a failure of an operation it can judge).

The status texts are libibverbs' ibv_wc_status_str() strings (libibverbs/enum_strs.c) with their
enum ibv_wc_status numbers (verbs.h): UCX's rc_verbs and other programs print
them ("send completion with error: local protection error").

The git directories are bare mirrors (`git --git-dir=DIR show HEAD:path`);
UNISTD_H is a file (/usr/include/asm-generic/unistd.h from linux-libc-dev, or
a kernel tree's include/uapi/asm-generic/unistd.h).  Rerun on new releases and
commit the rows; user/logs/util.c compiles them in (tools/calls-to-c.sh)."""
import re
import subprocess
import sys

RDMA_CORE = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/linux-rdma+rdma-core/repo"
LIBFABRIC = sys.argv[2] if len(sys.argv) > 2 else "/work/.mirror/ofiwg+libfabric/repo"
UNISTD = sys.argv[3] if len(sys.argv) > 3 else "/usr/include/asm-generic/unistd.h"
OUT = sys.argv[4] if len(sys.argv) > 4 else "user/logs/calls.tsv"

# the operation of a call, first rule that matches (docs/json.md's ops)
OPS = [
    (r"^(ibv_reg_mr|ibv_reg_mr_iova|ibv_reg_mr_iova2|ibv_reg_dmabuf_mr|ibv_rereg_mr|"
     r"mlx5dv_reg_dmabuf_mr|rdma_reg_msgs|rdma_reg_read|rdma_reg_write|"
     r"fi_mr_reg|fi_mr_regv|fi_mr_regattr|ib_uverbs_reg_mr|ib_uverbs_rereg_mr)$", "reg_mr"),
    (r"^(ibv_create_qp|ibv_create_qp_ex|mlx5dv_create_qp|efadv_create_qp_ex|efadv_create_driver_qp|"
     r"rdma_create_qp|rdma_create_qp_ex|ib_uverbs_create_qp|ib_uverbs_ex_create_qp)$", "create_qp"),
    (r"^(ibv_create_cq|ibv_create_cq_ex|mlx5dv_create_cq|efadv_create_cq|"
     r"ib_uverbs_create_cq|ib_uverbs_ex_create_cq)$", "create_cq"),
    (r"^(ibv_modify_qp|ibv_modify_qp_rate_limit|ib_uverbs_modify_qp|ib_uverbs_ex_modify_qp)$", "modify_qp"),
    (r"^(ibv_open_device|ibv_get_device_list|mlx5dv_open_device)$", "open_device"),
    (r"^(ibv_alloc_pd|ib_uverbs_alloc_pd)$", "alloc_pd"),
    (r"^(ibv_create_ah|ib_uverbs_create_ah)$", "create_ah"),
    (r"^(pidfd_getfd|pidfd_open)$", "fd_import"),
    (r"^(mlock|mlock2|mlockall)$", "mlock"),
]

RDMA_CORE_HEADERS = ["libibverbs/verbs.h", "providers/mlx5/mlx5dv.h", "providers/efa/efadv.h",
                     "librdmacm/rdma_cma.h", "librdmacm/rdma_verbs.h"]


def show(gitdir, path):
    return subprocess.run(["git", "--git-dir=" + gitdir, "show", "HEAD:" + path], check=True,
                          capture_output=True, text=True, errors="replace").stdout


def ls(gitdir, under):
    out = subprocess.run(["git", "--git-dir=" + gitdir, "ls-tree", "--name-only", "HEAD", under + "/"],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.split() if p.endswith(".h")]


def head(gitdir):
    return subprocess.run(["git", "--git-dir=" + gitdir, "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def functions(text, prefixes):
    """names followed by '(': declarations, static inline definitions and
    function-like macros (ibv_reg_mr is a macro over ibv_reg_mr_iova2)"""
    pat = re.compile(r"\b((?:%s)[a-z0-9_]+)\s*\(" % "|".join(prefixes))
    return set(m.group(1) for m in pat.finditer(text))


def op_of(name):
    for rule, op in OPS:
        if re.match(rule, name):
            return op
    return "-"


def main():
    calls = {}  # name -> source
    for path in RDMA_CORE_HEADERS:
        for n in functions(show(RDMA_CORE, path), ["ibv_", "mlx5dv_", "efadv_", "rdma_"]):
            calls.setdefault(n, "rdma-core:" + path)
    for path in ls(LIBFABRIC, "include/rdma"):
        for n in functions(show(LIBFABRIC, path), ["fi_"]):
            calls.setdefault(n, "libfabric:" + path)
    uverbs = show(RDMA_CORE, "kernel-headers/rdma/ib_user_verbs.h")
    for m in re.finditer(r"\bIB_USER_VERBS_(EX_)?CMD_([A-Z_]+)\s*[,=]", uverbs):
        name = "ib_uverbs_" + ("ex_" if m.group(1) else "") + m.group(2).lower()
        calls.setdefault(name, "kernel uapi:rdma/ib_user_verbs.h")
    with open(UNISTD) as f:
        for m in re.finditer(r"#define __NR_((?:pidfd_|mlock)[a-z0-9_]*)\s", f.read()):
            calls.setdefault(m.group(1), "kernel uapi:asm-generic/unistd.h")

    # libibverbs' status texts, numbered by enum ibv_wc_status's order
    verbs_h = show(RDMA_CORE, "libibverbs/verbs.h")
    enum = re.search(r"enum ibv_wc_status \{(.*?)\};", verbs_h, re.S).group(1)
    numbers = {name: i for i, name in enumerate(re.findall(r"\b(IBV_WC_[A-Z_]+)", enum))}
    verbs_c = show(RDMA_CORE, "libibverbs/enum_strs.c")
    verbs_c = verbs_c[verbs_c.index("ibv_wc_status_str("):]
    texts = re.findall(r"\[(IBV_WC_[A-Z_]+)\]\s*=\s*\"([^\"]+)\"", verbs_c)

    with open(OUT, "w") as f:
        f.write("# user/logs/calls.tsv - written by tools/call-names.py; do not edit by hand.\n")
        f.write("# rdma-core %s, libfabric %s, %s\n" % (head(RDMA_CORE), head(LIBFABRIC), UNISTD))
        f.write("# kind\tname\top (calls) or status number (wc_status)\tsource\n")
        for name in sorted(calls):
            f.write("call\t%s\t%s\t%s\n" % (name, op_of(name), calls[name]))
        for sym, text in texts:
            if sym in numbers:
                f.write("wc_status\t%s\t%d\trdma-core:libibverbs/enum_strs.c %s\n" % (text, numbers[sym], sym))
    print("%s: %d calls (%d with an op), %d status texts" %
          (OUT, len(calls), sum(op_of(n) != "-" for n in calls), len(texts)), file=sys.stderr)


if __name__ == "__main__":
    main()
