/* SPDX-License-Identifier: GPL-2.0-only */
/* gpu_facts.h - what decides whether a NIC can register GPU memory here: the
 * node's facts (the peer-memory API in the running kernel and the clients
 * registered with it, nvidia_peermem / nv_peer_mem, kernel dma-buf MRs, each
 * NIC driver's dma-buf support, the GPU driver and its module flavour, each
 * GPU's BAR1 and class) and the process's (the libcuda it mapped, and NCCL's
 * dma-buf probe outcome when watch saw it).  NCCL's own version and settings
 * are the process's nccl_info (nccl/nccl.h), not copied here.
 *
 * One source for `mrtrace check` (check/gpudirect.c) and for the verdicts of
 * GPU-memory registrations (verdict/, through gate_facts.gpu): the readers
 * (gpu_facts.c, nvml.c) fill the struct from a root ("/" live, a recorded
 * tree in tests), the judges (gpu_state.c) are pure functions of it, so a
 * verdict replayed from its recorded evidence is judged the same way.
 * docs/causes.md (pin_device_memory, dmabuf_*, gpu_bar1_exhausted) and
 * docs/check.md (gpudirect) say what each fact decides.
 */
#ifndef MRTRACE_PROC_GPU_FACTS_H
#define MRTRACE_PROC_GPU_FACTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrtrace.h"

struct nccl_info;

/* yes / no / could not be told */
enum gpu_tri { GPU_UNKNOWN = -1, GPU_NO = 0, GPU_YES = 1 };

#define GPU_FACTS_NICS 8
#define GPU_FACTS_GPUS 16
#define GPU_FACTS_PEERS 4

struct gpu_nic {
	char name[32];              /* mlx5_0, rxe0 */
	char driver[32];            /* mlx5_core, rdma_rxe, ... ("" unknown) */
	enum gpu_tri dmabuf;        /* the driver implements reg_user_mr_dmabuf */
};

struct gpu_dev {
	char bdf[16];               /* 0000:18:00.0 */
	char device_id[8];          /* "2330" */
	char model[64];             /* /proc/driver/nvidia/gpus/BDF/information, or NVML */
	bool consumer;              /* GeForce / TITAN: no GPUDirect RDMA */
	uint64_t bar1_bytes;        /* the PCI BAR1 aperture (sysfs resource, line 1); 0 unknown */
	bool have_nvml;             /* the numbers below came from libnvidia-ml */
	uint64_t nvml_bar1_total, nvml_bar1_used, nvml_memory_total;
};

/* NCCL's dma-buf capability probe seen failing in this process (watch's
 * correlator keeps it per process: docs/causes.md, "The harmless NCCL
 * probe"). */
struct gpu_probe {
	bool seen;
	int err;                    /* EBADF: the NIC takes dma-buf; EOPNOTSUPP / EPROTONOSUPPORT: not */
	uint64_t ts_ns;             /* the probe's ts_ns (CLOCK_MONOTONIC) */
};

struct gpu_facts {
	bool have;                  /* the node was read (or a record carried the facts) */

	/* peer memory (MLNX_OFED/DOCA-OFED only: no inbox kernel has the API) */
	enum gpu_tri peer_api;      /* ib_register_peer_memory_client in /proc/kallsyms */
	bool memory_peers_dir;      /* /sys/kernel/mm/memory_peers exists (that ib_core's) */
	int n_peers;                /* clients registered there */
	char peers[GPU_FACTS_PEERS][32]; /* "nv_mem", ... */
	bool nvidia_peermem;        /* /sys/module/nvidia_peermem */
	char peermem_version[32];
	bool nv_peer_mem;           /* the older Mellanox module */

	/* dma-buf MRs */
	char kernel[64];            /* uname -r */
	enum gpu_tri kernel_dmabuf; /* ib_umem_dmabuf_get, or the release (5.12+) */
	char kernel_dmabuf_how[96];
	int n_nics;
	struct gpu_nic nics[GPU_FACTS_NICS];

	/* the GPU driver */
	bool nvidia_driver;         /* /proc/driver/nvidia/version or /sys/module/nvidia */
	char driver_version[32];    /* "550.90.07" */
	enum gpu_tri open_module;   /* "Open Kernel Module" in /proc/driver/nvidia/version */
	int n_gpus;                 /* NVIDIA GPUs on PCI (all of them) */
	int n_gpus_kept;            /* of which in gpus[] */
	struct gpu_dev gpus[GPU_FACTS_GPUS];

	/* the process */
	char libcuda[256];          /* the libcuda.so it maps, "" none seen */
	char cuda_driver[32];       /* the driver release in its file name (libcuda.so.550.90.07) */
	/* the dma-buf fd the registration named, from /proc/PID/fdinfo/FD (a
	 * dma-buf's shows size: and exp_name:); 0 / "" unknown or not a dma-buf */
	unsigned long long dmabuf_fd_size;
	char dmabuf_exporter[32];
	struct gpu_probe probe;
};

/* ---- readers (gpu_facts.c, nvml.c): never fail; what cannot be read stays unknown ---- */

/* The node's facts under root ("/" live, or a recorded tree: every path
 * resolved inside it, core/sysroot.h).  kernel: uname -r when the caller
 * has it, else NULL (read from root's /proc/sys/kernel/osrelease).  NVML
 * is asked only on the live root. */
void gpu_facts_read_node(const char *root, const char *kernel, struct gpu_facts *f);
/* The size and exporter of the process's dma-buf fd (its fdinfo). */
void gpu_facts_read_dmabuf_fd(const char *root, int pid, int fd, struct gpu_facts *f);
/* The NVIDIA GPU functions under root/sys/bus/pci/devices (3D and VGA
 * controllers, vendor 0x10de), in PCI order: their names in *bdfs (free with
 * sr_free_names(*bdfs, n)), n >= 0, or -errno.  Shared with check's
 * inventory, so both count the same GPUs. */
int gpu_pci_list(const char *root, char ***bdfs);
/* The process's own facts: the libcuda it maps (root/proc/PID/maps). */
void gpu_facts_read_process(const char *root, int pid, struct gpu_facts *f);

/* libnvidia-ml through dlopen (nvml.c), never required: BAR1 total/used and
 * memory total of the GPU at bdf, the model name.  0, or -1 (no library, no
 * such GPU, not NVIDIA's). */
int gpu_nvml_query(const char *bdf, struct gpu_dev *out);

/* Whether a failed registration can be about GPU memory, so that its facts
 * are worth reading at the failure (a kallsyms scan, NVML): a dma-buf
 * registration, device memory at the pin (VM_IO|VM_PFNMAP, or flags not
 * readable), a peer-memory client step, or a libibverbs dma-buf / EFAULT
 * call; never NCCL's harmless probe (fd -1, length 0).  Pure. */
bool gpu_record_wants_facts(const struct mrt_event *ev);

/* ---- judges (gpu_state.c): pure ---------------------------------------------- */

/* docs/json.md evidence.peer_memory */
enum gpu_peer {
	GPU_PEER_UNKNOWN = 0,
	GPU_PEER_UNSUPPORTED,       /* the running kernel has no peer-memory API */
	GPU_PEER_NO_CLIENT,         /* the API exists, no client registered */
	GPU_PEER_REGISTERED,        /* a client is registered (memory_peers/<name>, or
				     * nvidia_peermem / nv_peer_mem loaded: their load
				     * fails unless they registered) */
};
enum gpu_peer gpu_peer_state(const struct gpu_facts *f);
/* the registered client's name: memory_peers/<name>, else the module's */
const char *gpu_peer_client(const struct gpu_facts *f);
const char *gpu_peer_name(enum gpu_peer p);          /* "unsupported", ... */

/* What blocks the dma-buf path (docs/json.md evidence.dmabuf), as flags:
 * several can hold at once; the first set, in this order, is the one named. */
enum gpu_dmabuf_block {
	GPU_DMABUF_KERNEL = 1 << 0,        /* kernel before 5.12: no dma-buf MRs */
	GPU_DMABUF_NIC_DRIVER = 1 << 1,    /* a NIC driver without reg_user_mr_dmabuf (or NCCL's probe said so) */
	GPU_DMABUF_GPU_DRIVER = 1 << 2,    /* no NVIDIA driver, or one before R515 (no dma-buf export) */
	GPU_DMABUF_CUDA_DRIVER = 1 << 3,   /* the process's libcuda before 11.7 (R515) */
	GPU_DMABUF_NCCL_VERSION = 1 << 4,  /* NCCL before 2.13 */
	GPU_DMABUF_NCCL_DISABLED = 1 << 5, /* NCCL_DMABUF_ENABLE=0 */
};
#define GPU_DMABUF_BLOCKS 6
struct gpu_dmabuf_state {
	unsigned blocked;           /* GPU_DMABUF_* */
	bool unknown;               /* nothing blocks, but some fact is unknown */
	char nics[128];             /* the NICs without dma-buf: "rxe0 (rdma_rxe)" */
};
/* nccl may be NULL (no NCCL mapped, or check without -p). */
void gpu_dmabuf_judge(const struct gpu_facts *f, const struct nccl_info *nccl,
		      struct gpu_dmabuf_state *out);
/* "available", "unknown", or the first blocker's id ("kernel", "nic_driver",
 * "gpu_driver", "cuda_driver", "nccl_version", "nccl_disabled") */
const char *gpu_dmabuf_name(const struct gpu_dmabuf_state *s);
/* the id of one blocker flag */
const char *gpu_dmabuf_block_name(unsigned flag);
/* One sentence per blocker into buf ("the kernel 5.10.0-46-amd64 has no
 * dma-buf MRs (5.12+); ..."), "" when none. */
const char *gpu_dmabuf_missing(const struct gpu_facts *f, const struct nccl_info *nccl,
			       const struct gpu_dmabuf_state *s, char *buf, size_t len);

/* A driver release "550.90.07" as its major number (550), 0 unknown. */
int gpu_driver_major(const char *version);
/* The GPU whose BAR1 has the least room left by NVML (used / total), or -1
 * without NVML numbers. */
int gpu_fullest_bar1(const struct gpu_facts *f);
/* Model names GPUDirect RDMA does not support (GeForce, TITAN). */
bool gpu_model_consumer(const char *model);

#endif
