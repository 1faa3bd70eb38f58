/* SPDX-License-Identifier: GPL-2.0-only */
/* inferred.h - a failure read from a log (no kernel site observed), judged:
 * the call and errno the log names, the causes (docs/causes.md) whose kernel
 * sites can refuse that call with that errno, ranked by what a node says
 * (the facts `mrtrace check` reads, reduced to struct inferred_facts), what
 * the verdict rests on, and the rerun that proves it (mrprobe under the
 * job's setting, and the watch to leave on).
 *
 * Pure: no /proc, no clock, no global state (tools/pure.py), so the unit
 * tests judge fixtures with made-up facts.  Never "proven": a log line is
 * not a kernel site (docs/causes.md, "How a cause is decided"). */
#ifndef MRTRACE_VERDICT_INFERRED_H
#define MRTRACE_VERDICT_INFERRED_H
#include <stdbool.h>
#include <stdint.h>

#include "core/ops.h"
#include "verdict/verdict.h"

/* What kind of failure the line reports. */
enum inferred_kind {
	INF_CALL = 0,   /* a call the kernel can refuse (verbs, shm, device open) */
	INF_KERNEL_LOG, /* the kernel's own line (mlx5 CREATE_MKEY status ...) */
	INF_COMPLETION, /* a work completion with an error status */
	INF_ASYNC,      /* an async event: port error, GID change, catastrophic */
	INF_GDR_OFF,    /* NCCL's INFO: GPU Direct RDMA disabled */
	INF_GID_TYPE,   /* NCCL read the RoCE GID type from sysfs and failed */
	INF_CUDA,       /* a CUDA error */
	INF_WRAPPER,    /* only the framework's wrapper: ncclSystemError, ... */
	INF__COUNT
};

/* The setting whose memlock limit judges a registration (--setting). */
enum inferred_setting {
	INF_SET_UNKNOWN = 0, INF_SET_SHELL, INF_SET_SLURM, INF_SET_DOCKER, INF_SET_K8S,
	INF_SET_SYSTEMD,
};
const char *inferred_setting_name(enum inferred_setting s);
/* INF_SET_UNKNOWN for a name it does not know ("kubernetes" reads as k8s) */
enum inferred_setting inferred_setting_from_name(const char *name);

/* One failure as the log says it. */
struct inferred_in {
	enum inferred_kind kind;
	char call[48];         /* "ibv_reg_mr_iova2", "ibv_create_qp", "shm_open", "CREATE_MKEY" */
	enum rdma_op op;       /* the reader's op of the call (core/ops.h); OP_NONE: from call's name */
	int err;               /* the errno the line carries; 0: none */
	bool release_no_errno; /* the reader knows this NCCL release prints none here */
	char nccl_version[24]; /* "2.21.5"; "" unknown */
	char releases[48];     /* the releases that print the line so ("v2.4.2-1..v2.12.12-1"); "" */
	int status;            /* completion status, mlx5 command status; -1 none */
	char detail[96];       /* the async event, the CUDA error, the syndrome */
	char host[64];         /* the host the log names; "" unknown */
	/* the job's NCCL shape from the log's settings (0: NCCL's default) */
	unsigned channels, peers;
	uint64_t buffsize;
	bool gdr;              /* the log says GPU Direct RDMA is on */
	bool mkey_failed;      /* the inputs' kernel log has an mlx5 CREATE_MKEY failure */
	/* the inputs' kernel log says the firmware refused this call's own
	 * object (CREATE_QP for ibv_create_qp) with LIM_ERR */
	bool kernel_lim_same_op;
	/* what the log itself says of the process (UCX's "(current: 64
	 * kbytes)", libibverbs' RLIMIT_MEMLOCK warning; UCX's length=) */
	bool memlock_logged;
	uint64_t memlock;      /* bytes, UINT64_MAX unlimited */
	bool has_length;
	uint64_t length;       /* the refused registration's bytes */
	/* what the proof of a QP, GID or shm failure needs (0, "": not said) */
	char device[32];       /* the device the line names ("mlx5_0") */
	int port;              /* its port; 0 unknown */
	bool has_gid_index;
	int gid_index;         /* the line's GID index, else NCCL_IB_GID_INDEX */
	unsigned qps_per_conn; /* NCCL_IB_QPS_PER_CONNECTION; 0: NCCL's default 1 */
	uint64_t shm_size;     /* the shm segment NCCL failed to make, bytes */
	bool from_nccl;        /* NCCL's own line (its GID choice applies) */
	bool roce;             /* the log says the port is RoCE (`NET/IB : Using [0]mlx5_0:1/RoCE`) */
	bool qp_to_rts;        /* modify_qp: the move was RTR -> RTS (NCCL's "next state RTS") */
	/* the line says the buffer is GPU memory (cuda, GPU memory) or host
	 * memory; both false: not said */
	bool gpu_mem, host_mem;
	/* a line before it said the CUDA driver cannot export GPU memory as
	 * dma-buf ("cuMemGetHandleForAddressRange: CUDA_ERROR_NOT_SUPPORTED");
	 * "" not said */
	char cuda_no_dmabuf[112];
};

/* One RDMA port's GID table as check's fabric area reads it, and which
 * index NCCL would take there. */
#define INFERRED_GID_PORTS 8
#define INFERRED_GID_ENTRIES 32
struct inferred_gid {
	int index;
	bool routable;         /* NCCL would accept it (not link-local, not zero) */
	char type[16];         /* "RoCE v2", "RoCE v1", "IB/RoCE v1", "" */
};
struct inferred_gid_port {
	char device[32];
	int port;
	bool roce;             /* link layer Ethernet */
	char how[12];          /* NCCL's choice: pinned, selected, ib_flid, fails, crashes; "" */
	int nccl_index;        /* the index it would take, -1 none */
	int populated;         /* populated entries in the table */
	int nentries;          /* of them kept below (at most INFERRED_GID_ENTRIES) */
	struct inferred_gid e[INFERRED_GID_ENTRIES];
	bool counters_read;    /* check read its link error counters */
	char counters[160];    /* the nonzero ones, "link_downed 3, symbol_error 120"; "" all 0 */
};

/* The rdma cgroup controller at cgroup v2's root. */
enum inferred_rdmacg { INF_RDMACG_UNKNOWN = 0, INF_RDMACG_OFF, INF_RDMACG_ON };

/* What a node says now (`mrtrace check`'s facts, explain/facts.c reads them
 * from a check document).  Each *_known false: not read, no weight. */
struct inferred_facts {
	bool have;             /* any facts at all (false: judged from the log alone) */
	char host[64];         /* the node they describe */
	bool memlock_known;
	uint64_t memlock_soft; /* bytes, UINT64_MAX unlimited */
	char memlock_of[96];   /* "slurmd's jobs", "process 4242", "docker's containers" */
	int slurm_propagates;  /* 1 yes, 0 no, -1 unknown */
	char peermem[16];      /* check's gpudirect.peer_memory.state, "" unknown */
	char dmabuf[16];       /* check's gpudirect.dmabuf.state */
	char iommu[16];        /* "translated", "passthrough", ... */
	int ports, ports_down; /* RDMA ports seen, not ACTIVE */
	int roce_ports, gids, roce_v2_gids;
	int uverbs_bad;        /* uverbs nodes that did not open */
	char uverbs_err[16];   /* the first one's errno name ("ENOENT", "EACCES") */
	bool shm_known;
	uint64_t shm_free;     /* bytes free in /dev/shm */
	int gid_ports;         /* of gid_port[] */
	struct inferred_gid_port gid_port[INFERRED_GID_PORTS];
	enum inferred_rdmacg rdmacg;
	unsigned rdmacg_limited; /* cgroups whose rdma.max limits something now */
	bool rdmacg_cut;       /* the walk was cut: the count is a lower bound */
	char rdmacg_first[256];  /* the first of them */
	char rdmacg_first_line[128]; /* its limiting rdma.max line */
};

#define INFERRED_MAX_CAND 8
#define INFERRED_MAX_RESTS 12
#define INFERRED_MAX_NEXT 4
#define INFERRED_TEXT 256

struct inferred_cand {
	enum cause cause;      /* a cause of docs/causes.md, or a no-refusal one (CAUSE__COUNT on) */
	int score;             /* higher leads; only the order is meaningful */
	char why[INFERRED_TEXT];
};

struct inferred {
	bool no_kernel_refusal; /* no refusing kernel call explains it */
	char what[INFERRED_TEXT]; /* "ibv_reg_mr_iova2 refused with ENOMEM (NCCL 2.21.5)" */
	char errno_note[INFERRED_TEXT]; /* "NCCL 2.8 prints no errno for ..."; "" */
	int ncand;
	struct inferred_cand cand[INFERRED_MAX_CAND]; /* ranked: cand[0] leads */
	int nrests;
	char rests_on[INFERRED_MAX_RESTS][INFERRED_TEXT];
	int nnext;
	char next[INFERRED_MAX_NEXT][INFERRED_TEXT]; /* what to check next */
	/* the command that proves it under the job's setting: mrprobe for a
	 * registration or a device open; ib_send_bw with NCCL's QP and CQ sizes
	 * for a QP or CQ (mrprobe makes none); the GID table NCCL read for a
	 * GID failure; fallocate in /dev/shm for shm; "" when no rerun proves
	 * it (a completion error, a CUDA error) */
	char rerun[INFERRED_TEXT * 2];
	char watch[INFERRED_TEXT * 2]; /* the watch to leave on for the next run: always */
};

/* Judges in against f (f->have false: the log alone) for the setting
 * (unit: its systemd unit, may be NULL).  Fills out completely. */
void inferred_judge(const struct inferred_in *in, const struct inferred_facts *f,
		    enum inferred_setting setting, const char *unit, struct inferred *out);

/* The operation of the call a log names (core/ops.h: "ibv_reg_mr_iova2",
 * "fi_mr_reg", "CREATE_MKEY" -> OP_REG_MR); OP_NONE for another call. */
enum rdma_op inferred_op(const char *call);
/* in->op, else the op of in->call's name */
enum rdma_op inferred_in_op(const struct inferred_in *in);
/* A queue's creation (QP, CQ, SRQ, or the PD beside them): one set of sites. */
bool inferred_queue_op(enum rdma_op op);

/* The verdict's own parts (inferred_common.c, inferred_rerun.c), for
 * inferred.c: a sentence added to what it rests on / to what to check next
 * (dropped past INFERRED_MAX_RESTS / INFERRED_MAX_NEXT); the rerun and the
 * watch of the setting (o->rerun "" when no rerun proves it, o->watch
 * always), which may add to rests_on and next. */
void inferred_rest(struct inferred *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void inferred_next(struct inferred *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void inferred_rerun(const struct inferred_in *in, const struct inferred_facts *f,
		    enum inferred_setting setting, const char *unit, struct inferred *o);

/* Moves a candidate's score by d (no candidate: nothing); whether a
 * candidate of that cause is there.  inferred_weigh_fabric
 * (inferred_fabric.c) weighs the GID tables and the rdma cgroup for the
 * candidates they bear on, saying each fact it weighs in rests_on. */
void inferred_weigh(struct inferred *o, enum cause cause, int d);
bool inferred_has(const struct inferred *o, enum cause cause);
void inferred_weigh_fabric(const struct inferred_in *in, const struct inferred_facts *f,
			   struct inferred *o);
/* The link layer, from the log or the facts (f->have false: the log
 * alone): an EINVAL at modify_qp on RoCE is the address (no GRH, a GID
 * that is not RoCE v2) before the port or the other attributes. */
void inferred_weigh_link(const struct inferred_in *in, const struct inferred_facts *f,
			 struct inferred *o);

#endif
