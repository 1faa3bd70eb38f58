#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/call-names.py RDMA_CORE_GIT LIBFABRIC_GIT UNISTD_H [OUT [CUDA_INCLUDE]] - every call
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
a kernel tree's include/uapi/asm-generic/unistd.h).

CUDA_INCLUDE is a CUDA toolkit's include directory (NVIDIA's own cuda.h,
cuda_runtime_api.h and driver_types.h, unmodified: /usr/local/cuda/include,
or a public copy of them).  From it come the driver and runtime calls that
allocate, register, export, import, map or query memory for RDMA and IPC
(cuMem*, cuPointer*, cuIpc*, cudaIpc*, cudaMalloc*, cudaHost*,
cudaPointer*; not the copies, sets and prefetches), as `cuda_call` rows with
what each does to memory (CUDA_WHAT below: dmabuf_export, handle_export,
handle_import, host_register, alloc, map, query, "-"), and the CUresult and
cudaError_t names with their numbers as `cuda_error` rows.  A CUDA call's
failure is the CUDA driver's error, never a kernel errno: the reader takes
it as a context line of the job (user/logs/cudacall.c), never as an errno.  Rerun on new releases and
commit the rows; user/logs/util.c compiles them in (tools/calls-to-c.sh)."""
import hashlib
import re
import subprocess
import sys

RDMA_CORE = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/linux-rdma+rdma-core/repo"
LIBFABRIC = sys.argv[2] if len(sys.argv) > 2 else "/work/.mirror/ofiwg+libfabric/repo"
UNISTD = sys.argv[3] if len(sys.argv) > 3 else "/usr/include/asm-generic/unistd.h"
OUT = sys.argv[4] if len(sys.argv) > 4 else "user/logs/calls.tsv"
CUDA = sys.argv[5] if len(sys.argv) > 5 else "/usr/local/cuda/include"

# what a CUDA call does to memory, first rule that matches (the reader's
# words: a dma-buf export that fails says the GPU memory cannot go the
# dma-buf way, so NCCL, UCX and libfabric fall back to peer memory)
CUDA_WHAT = [
    (r"^cuMemGetHandleForAddressRange$", "dmabuf_export"),
    (r"^(cuMem(Pool)?ExportToShareableHandle|cuMemPoolExportPointer|cuIpcGet\w+|cudaIpcGet\w+)$", "handle_export"),
    (r"^(cuMem(Pool)?ImportFromShareableHandle|cuMemPoolImportPointer|cuIpcOpen\w+|cudaIpcOpen\w+)$", "handle_import"),
    (r"^(cuMemHostRegister|cudaHostRegister)(_v\d)?$", "host_register"),
    (r"^(cuMemAlloc\w*|cuMemCreate|cuMemHostAlloc|cudaMalloc\w*|cudaHostAlloc)$", "alloc"),
    (r"^(cuMemMap\w*|cuMemUnmap|cuMemSetAccess|cuMemAddressReserve|cuMemAddressFree|cuMemRelease)$", "map"),
    (r"^(cuPointer\w+|cudaPointerGetAttributes|cuMemGetAddressRange\w*|cuMemGetAccess|cuMemRangeGet\w+|"
     r"cuMemGetAllocation\w+|cuMemRetainAllocationHandle|cuMemHostGetDevicePointer\w*|cudaHostGetDevicePointer)$", "query"),
]
# the memory calls read; copies, sets, prefetches and the like are not
CUDA_CALLS = re.compile(r"\b((?:cuMem|cuPointer|cuIpc|cudaIpc|cudaMalloc|cudaHost|cudaPointer)[A-Za-z0-9_]*)\s*\(")
CUDA_NOT = re.compile(r"^cuMem(cpy|set|Prefetch|Discard|BatchDecompress|Advise)|_ptsz$|_ptds$")

# the operation of a call, first rule that matches (docs/json.md's ops)
OPS = [
    (r"^(ibv_reg_mr|ibv_reg_mr_iova|ibv_reg_mr_iova2|ibv_reg_dmabuf_mr|ibv_rereg_mr|"
     r"mlx5dv_reg_dmabuf_mr|rdma_reg_msgs|rdma_reg_read|rdma_reg_write|"
     r"fi_mr_reg|fi_mr_regv|fi_mr_regattr|ib_uverbs_reg_mr|ib_uverbs_rereg_mr|"
     # a DEVX umem pins user memory through ib_umem_get as an MR does
     # (UCX's "mlx5dv_devx_umem_reg(size=%zu access=0x%x) failed: %m")
     r"mlx5dv_devx_umem_reg|mlx5dv_devx_umem_reg_ex)$", "reg_mr"),
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


def cuda_what(name):
    for rule, what in CUDA_WHAT:
        if re.match(rule, name):
            return what
    return "-"


def cuda():
    """the CUDA memory calls (name -> header) and error names (name -> (number, header))"""
    calls, errors = {}, {}
    texts = {}
    for h in ("cuda.h", "cuda_runtime_api.h", "driver_types.h"):
        with open(CUDA + "/" + h, errors="replace") as f:
            texts[h] = f.read()
    for h in ("cuda.h", "cuda_runtime_api.h"):
        for m in CUDA_CALLS.finditer(texts[h]):
            if not CUDA_NOT.search(m.group(1)):
                calls.setdefault(m.group(1), h)
        # cuda.h's versioned names (#define cuMemAlloc cuMemAlloc_v2): a
        # program may print either
        for m in re.finditer(r"#define\s+(cu\w+)\s+(cu\w+_v\d)\b", texts[h]):
            if m.group(1) in calls:
                calls.setdefault(m.group(2), h)
    enum = re.search(r"typedef enum cudaError_enum \{(.*?)\}", texts["cuda.h"], re.S).group(1)
    for m in re.finditer(r"\b(CUDA_ERROR_[A-Z0-9_]+)\s*=\s*(\d+)", enum):
        errors.setdefault(m.group(1), (int(m.group(2)), "cuda.h"))
    enum = re.search(r"enum __device_builtin__ cudaError\s*\{(.*?)\}", texts["driver_types.h"], re.S).group(1)
    for m in re.finditer(r"\b(cudaError\w+)\s*=\s*(\d+)", enum):
        errors.setdefault(m.group(1), (int(m.group(2)), "driver_types.h"))
    version = re.search(r"#define CUDA_VERSION (\d+)", texts["cuda.h"]).group(1)
    # the headers as read: a rerun from another copy shows whether they differ
    sums = " ".join("%s sha256:%s" % (h, hashlib.sha256(texts[h].encode("utf-8", "surrogateescape")).hexdigest()[:16])
                    for h in ("cuda.h", "cuda_runtime_api.h", "driver_types.h"))
    return calls, errors, version + ", " + sums


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

    cuda_calls, cuda_errors, cuda_version = cuda()

    with open(OUT, "w") as f:
        f.write("# user/logs/calls.tsv - written by tools/call-names.py; do not edit by hand.\n")
        f.write("# rdma-core %s, libfabric %s, %s\n" % (head(RDMA_CORE), head(LIBFABRIC), UNISTD))
        f.write("# cuda %s (CUDA_VERSION %s)\n" % (CUDA, cuda_version))
        f.write("# kind\tname\top (calls), status number (wc_status), what it does to memory (cuda_call)"
                " or number (cuda_error)\tsource\n")
        for name in sorted(calls):
            f.write("call\t%s\t%s\t%s\n" % (name, op_of(name), calls[name]))
        for sym, text in texts:
            if sym in numbers:
                f.write("wc_status\t%s\t%d\trdma-core:libibverbs/enum_strs.c %s\n" % (text, numbers[sym], sym))
        for name in sorted(cuda_calls):
            f.write("cuda_call\t%s\t%s\tcuda:%s\n" % (name, cuda_what(name), cuda_calls[name]))
        for name in sorted(cuda_errors):
            f.write("cuda_error\t%s\t%d\tcuda:%s\n" % (name, cuda_errors[name][0], cuda_errors[name][1]))
    print("%s: %d calls (%d with an op), %d status texts, %d CUDA calls (%d with a use), %d CUDA errors" %
          (OUT, len(calls), sum(op_of(n) != "-" for n in calls), len(texts), len(cuda_calls),
           sum(cuda_what(n) != "-" for n in cuda_calls), len(cuda_errors)), file=sys.stderr)


if __name__ == "__main__":
    main()
