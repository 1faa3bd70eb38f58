/* SPDX-License-Identifier: GPL-2.0-only */
/* mrtrace.h - what the BPF programs hand to user space.
 *
 * Shared by the BPF objects and user/: fixed-size types only.  One registration
 * attempt in the kernel is followed per thread: every nested site it passes
 * through appends a step to its trail, and when the outermost site returns
 * an error the whole record is sent as one event.
 */
#ifndef MRTRACE_H
#define MRTRACE_H

#define MRT_COMM_LEN 16
#define MRT_USTACK_MAX 16 /* user stack frames kept for a libibverbs call */
#define MRT_TRAIL_MAX 32 /* a power of two: the BPF side masks indexes with it */

/* Event kinds in the ring buffer. */
enum mrt_kind {
	MRT_EV_REG_FAILURE = 1, /* a failed MR registration (kernel path) */
	MRT_EV_MLOCK_FAILURE = 2, /* mlock()/mlock2()/mlockall() failed */
	MRT_EV_RLIMIT_SET = 3, /* setrlimit/prlimit64 on RLIMIT_MEMLOCK */
	MRT_EV_USER_CALL = 4, /* a libibverbs call that failed (uprobe) */
	MRT_EV_FAILURE = 5, /* another refusal behind ncclSystemError: a verbs
			     * command, a device open, /dev/shm, fd import (op) */
	MRT_EV_CONTACT = 6, /* a process's first device context (GET_CONTEXT
			     * succeeded): not a failure; user space reads its
			     * context now, while it lives (issue 31 item 2) */
	MRT_EV_ASYNC = 7, /* an asynchronous device or port event the kernel
			   * dispatched to the device's clients: struct
			   * mrt_async_event, not struct mrt_event */
	MRT_EV_ENVIRON = 8, /* what places a process, copied from its own memory
			     * at its first contact or first failure: struct
			     * mrt_environ, not struct mrt_event (issue 47) */
	MRT_EV_USTACK_RAW = 9, /* the raw top of a failed REG_MR's user stack,
				* sent just before its record where the kernel
				* cannot scan it (before 5.17): struct
				* mrt_ustack_raw, not struct mrt_event (issue 50) */
};

/* MRT_EV_USTACK_RAW: the words above the user stack pointer of the thread
 * whose REG_MR failed, copied in one read (bpf/ustack_raw.bpf.h).  User
 * space keeps those that lie in the process's executable file mappings as
 * its return addresses (user/proc/ustack_raw.c) and hands them to the
 * record that follows from the same thread, as if the kernel had found
 * them (the 5.17+ scan, kernel_ustack). */
#define MRT_USTACK_RAW_WORDS 256 /* 2 KiB: ibv_reg_mr* -> provider -> ibv_cmd_* -> write() */
#define MRT_USTACK_RAW_VMAS 1024 /* the VMAs walked for libibverbs' code, at most */
struct mrt_ustack_raw {
	unsigned int kind; /* MRT_EV_USTACK_RAW: first, as in struct mrt_event */
	unsigned int pid; /* tgid */
	unsigned int tid;
	unsigned int words; /* copied: MRT_USTACK_RAW_WORDS, fewer near the stack's top */
	unsigned long long sp; /* the user stack pointer the words start at */
	/* libibverbs' code as the process mapped it at the failure (its first
	 * executable VMA of a file named libibverbs*, found on the mm's VMA
	 * list by the kernel, MRT_USTACK_RAW_VMAS at most): its return
	 * addresses are placed even when the process exits before user space
	 * reads its maps.  lib_hi 0: not found (none mapped, or beyond the
	 * walk's bound). */
	unsigned long long lib_lo, lib_hi, lib_off, lib_ino;
	unsigned long long w[MRT_USTACK_RAW_WORDS];
};

/* MRT_EV_ENVIRON: sent once per process (tgid + start time), before the
 * record that caused it, from the process's own context: its environment
 * block (mm->env_start..env_end, copied in MRT_ENV_CHUNK pieces, at most
 * MRT_ENV_BYTES), its executable's identity and its ancestors.  A rank may
 * exit the instant its call fails; user space parses the block at once
 * through the allow-list (user/proc/env.c) and keeps nothing else.
 * Variable length: the ring gets the header and env_len bytes of env. */
#define MRT_ENV_BYTES 16384 /* a Slurm step's environment is several KiB; at
			    * most MRT_ENV_BYTES - 1 are copied (environ.bpf.h) */
#define MRT_ENV_CHUNK 1024 /* a piece that faults is lost alone: env_holes */
#define MRT_ENV_ANCESTORS 4 /* the launcher chain: slurmstepd, bash, python... */
#define MRT_FILE_NAME 32
struct mrt_file_id {
	unsigned long long dev; /* s_dev: major << 20 | minor; 0: not read */
	unsigned long long ino;
	char name[MRT_FILE_NAME]; /* its dentry's name (the last path component) */
};
struct mrt_ancestor {
	unsigned int tgid;
	unsigned int pad;
	unsigned long long start_ns; /* its leader's start_boottime */
	char comm[MRT_COMM_LEN];
};
struct mrt_environ {
	unsigned int kind; /* MRT_EV_ENVIRON: first, as in struct mrt_event */
	unsigned int pid; /* tgid */
	unsigned int uid;
	unsigned int trigger; /* enum mrt_kind of the record that caused it
			       * (CONTACT, MLOCK_FAILURE, FAILURE) */
	unsigned long long ts_ns;
	unsigned long long start_ns; /* as struct mrt_event's */
	unsigned long long cgroup_id;
	char comm[MRT_COMM_LEN];
	struct mrt_file_id exe; /* mm->exe_file */
	unsigned int nancestors; /* parent first; stops at pid 1 */
	unsigned int env_total; /* env_end - env_start: the whole block's bytes */
	struct mrt_ancestor anc[MRT_ENV_ANCESTORS];
	unsigned int env_len; /* bytes of env[] sent (min(env_total, MRT_ENV_BYTES - 1)) */
	unsigned int env_holes; /* bit i: chunk i could not be read (zeroes) */
	char env[MRT_ENV_BYTES];
};
#define MRT_ENVIRON_HDR (sizeof(struct mrt_environ) - MRT_ENV_BYTES)

/* MRT_EV_ASYNC: what ib_dispatch_event_clients() hands to every client of a
 * device (NCCL's async thread reads the same through its uverbs file): the
 * device, the port (0 for a device event) and the kernel's enum
 * ib_event_type (the device and port events below; append-only numbers,
 * the same in every kernel since 2.6; the others are a QP's, CQ's or SRQ's
 * and go to that object's own handler, never through this function).  It
 * runs in a kworker: no process to stamp. */
enum mrt_ib_event {
	MRT_IBEV_DEVICE_FATAL = 8,
	MRT_IBEV_PORT_ACTIVE = 9,
	MRT_IBEV_PORT_ERR = 10,
	MRT_IBEV_LID_CHANGE = 11,
	MRT_IBEV_PKEY_CHANGE = 12,
	MRT_IBEV_SM_CHANGE = 13,
	MRT_IBEV_CLIENT_REREGISTER = 17,
	MRT_IBEV_GID_CHANGE = 18,
};
#define MRT_IBDEV_NAME 64
struct mrt_async_event {
	unsigned int kind; /* MRT_EV_ASYNC: first, as in struct mrt_event */
	unsigned int event; /* enum ib_event_type */
	unsigned int port;
	unsigned int pad;
	unsigned long long ts_ns; /* bpf_ktime_get_ns */
	char device[MRT_IBDEV_NAME];
};

/* What the cmd_* fields of a record hold (ev.cmd_valid).  Stable numbers:
 * recorded records carry them in "raw". */
enum mrt_cmd {
	MRT_CMD_NONE = 0, /* nothing was read (or RLIMIT_SET: see sys_len) */
	MRT_CMD_REG_MR = 1, /* the REG_MR command: start, length, hca_va (cmd_iova), access */
	MRT_CMD_DMABUF = 2, /* dma-buf attributes: cmd_start = offset, length, iova,
			     * access, dmabuf_fd */
	MRT_CMD_USER_CALL = 3, /* a libibverbs call's arguments (uprobe) */
};

/* What a MRT_EV_FAILURE record failed to do (ev.op).  Stable numbers, append
 * only: they are the JSON "op" names of docs/json.md. */
enum mrt_op {
	MRT_OP_NONE = 0,
	MRT_OP_OPEN_DEVICE = 1, /* open the uverbs node / get a device context */
	MRT_OP_ALLOC_PD = 2,
	MRT_OP_CREATE_CQ = 3,
	MRT_OP_CREATE_QP = 4,
	MRT_OP_CREATE_AH = 5,
	MRT_OP_MODIFY_QP = 6,
	MRT_OP_SHM_ALLOC = 7, /* fallocate on a tmpfs (/dev/shm segments) */
	MRT_OP_FD_IMPORT = 8, /* pidfd_getfd */
	MRT_OP_MAX
};

/* Sites a registration can pass through.  Stable numbers: recorded trails
 * (tests/fixtures/trails) use them. */
enum mrt_site {
	MRT_SITE_NONE = 0,
	MRT_SITE_UVERBS_REG_MR = 1, /* ib_uverbs_reg_mr: the REG_MR command */
	MRT_SITE_UVERBS_REG_DMABUF = 2, /* UVERBS_METHOD_REG_DMABUF_MR handler */
	MRT_SITE_UVERBS_REREG_MR = 3, /* ib_uverbs_rereg_mr */
	MRT_SITE_DRIVER_REG = 4, /* driver reg_user_mr (rxe, mlx5, ...) */
	MRT_SITE_UMEM_GET = 5, /* ib_umem_get */
	MRT_SITE_CAP_IPC_LOCK = 6, /* capable(CAP_IPC_LOCK) */
	MRT_SITE_PIN = 7, /* pin_user_pages_fast / get_user_pages */
	MRT_SITE_SG_ALLOC = 8, /* sg_alloc_append_table_from_pages */
	MRT_SITE_DMA_MAP = 9, /* dma_map_sgtable */
	MRT_SITE_IOVA_ALLOC = 10, /* alloc_iova_fast */
	MRT_SITE_DMABUF_GET = 11, /* ib_umem_dmabuf_get* */
	MRT_SITE_DMABUF_ATTACH = 12, /* dma_buf_dynamic_attach */
	MRT_SITE_DMABUF_PIN = 13, /* dma_buf_pin */
	MRT_SITE_DMABUF_MAP = 14, /* dma_buf_map_attachment */
	MRT_SITE_MLX5_REG = 15, /* mlx5 create_real_mr / reg_create */
	MRT_SITE_MLX5_CMD = 16, /* mlx5 firmware command */
	MRT_SITE_PEER_GET = 17, /* MOFED ib_peer_umem_get */
	MRT_SITE_RDMACG_CHARGE = 18, /* ib_rdmacg_try_charge */
	MRT_SITE_MIGRATE = 19, /* migrate_pages for a long-term pin */
	MRT_SITE_UOBJ_ALLOC = 20, /* rdma_alloc_begin_uobject */
	MRT_SITE_UVERBS_CMD = 21, /* a uverbs command handler (alloc_pd, create_cq, ...) */
	MRT_SITE_UVERBS_METHOD = 22, /* ib_uverbs_cmd_verbs: an ioctl() method */
	MRT_SITE_SHM_FALLOCATE = 23, /* shmem_fallocate */
	MRT_SITE_PIDFD_GETFD = 24, /* the pidfd_getfd syscall */
	MRT_SITE_OPEN_DEVICE = 25, /* libibverbs ibv_open_device (uprobe) */
	/* rdma_addr_find_l2_eth_by_grh: a RoCE address vector's remote GID
	 * resolved to a route and a neighbour (modify_qp to RTR, create_ah);
	 * a0/a1 the remote GID's bytes 0-7/8-15 as stored, a2 the source GID's
	 * netdev: netns inode << 32 | ifindex; its name in op_limits[1..2] */
	MRT_SITE_ADDR_RESOLVE = 26,
	MRT_SITE_MAX
};

/* One step of a trail.  a0..a2 are site-specific:
 *   UMEM_GET:    a0 addr, a1 size, a2 access
 *   CAP_IPC_LOCK: ret 1/0 (capable result)
 *   PIN:         a0 start addr, a1 pages requested, a2 vm_flags of the VMA
 *                at start (MRT_VMA_UNKNOWN when it could not be read), with
 *                MRT_VMA_FSDAX added when that VMA is a file on a DAX file
 *                system
 *   DMA_MAP:     a0 nents
 *   IOVA_ALLOC:  a0 size (pages), a1 limit pfn, a2 flush_rcache
 *   MLX5_CMD:    a0 opcode, a1 status, a2 syndrome
 *   RDMACG_CHARGE: a0 resource index
 *   DRIVER_REG:  a0 start, a1 length, a2 iova
 */
struct mrt_step {
	unsigned short site;
	unsigned short flags; /* MRT_STEP_* */
	int ret; /* return value, errno negative */
	unsigned long long a0, a1, a2;
};

#define MRT_STEP_EXITED 0x1 /* ret is valid (the site returned) */
#define MRT_VMA_UNKNOWN 0xffffffffffffffffULL
#define MRT_VMA_NONE 0xfffffffffffffffeULL /* no VMA at that address */
/* mrtrace's mark in a PIN step's vm_flags: the VMA maps a file on a DAX file
 * system (the kernel's vma_is_fsdax: a vm_file whose inode has S_DAX and is
 * not a character device, which is device DAX), where a long-term pin is
 * refused with EOPNOTSUPP.  The kernel's VM_* flags stay below bit 48; the
 * two values above are compared whole, never tested by bit. */
#define MRT_VMA_FSDAX (1ULL << 62)

/* What the kernel said about memlock at the moment of ib_umem_get entry. */
struct mrt_memlock {
	unsigned long long limit_cur; /* RLIMIT_MEMLOCK soft, bytes */
	unsigned long long limit_max; /* RLIMIT_MEMLOCK hard, bytes */
	/* mm->pinned_vm before the request: read at the failure, whose error
	 * path has given back what the request added */
	unsigned long long pinned_pages_before;
	unsigned long long locked_pages; /* mm->locked_vm */
	unsigned long long requested_pages; /* pages this umem needs */
	unsigned long long addr, len; /* of this umem */
	unsigned int access;
	unsigned char valid; /* ib_umem_get was reached */
	unsigned char cap_checked; /* capable(CAP_IPC_LOCK) was called */
	unsigned char cap_result; /* ...and its result */
	unsigned char pad;
	/* MRs of this process that mrtrace saw pinned and not yet released,
	 * and their pages: only those registered since mrtrace started. */
	unsigned int live_mrs;
	unsigned int live_pad;
	unsigned long long live_pages;
};

/* Per process: umems seen pinned (ib_umem_get ok) minus released. */
struct mrt_live {
	unsigned long long mrs;
	unsigned long long pages;
};

struct mrt_event {
	unsigned int kind; /* enum mrt_kind */
	unsigned int pid; /* tgid */
	unsigned int tid;
	unsigned int uid;
	unsigned long long ts_ns; /* bpf_ktime_get_ns */
	unsigned long long cgroup_id;
	unsigned int userns_inum; /* task's user namespace */
	unsigned int userns_level; /* 0 = initial */
	char comm[MRT_COMM_LEN];
	int err; /* positive errno */
	unsigned int opener; /* enum mrt_site that opened the trail */
	/* the command as the application sent it (REG_MR), when readable */
	unsigned long long cmd_start, cmd_length, cmd_iova;
	unsigned int cmd_access;
	unsigned int cmd_valid; /* enum mrt_cmd: what cmd_* hold */
	int dmabuf_fd;
	/* MRT_EV_FAILURE: the operation, its arguments as the application gave
	 * them, and the limits the refusing side applies (read at the failure):
	 *   OPEN_DEVICE: name = uverbs node ("uverbs0")
	 *   ALLOC_PD:    lim0 device max_pd; name = device
	 *   CREATE_CQ:   arg0 cqe; lim0 max_cqe, lim1 max_cq; name = device
	 *   CREATE_QP:   arg0 max_send_wr, arg1 max_recv_wr, arg2 max_send_sge,
	 *                arg3 max_recv_sge, arg4 qp_type; lim0 max_qp_wr,
	 *                lim1 max_qp, lim2 max_send_sge; name = device
	 *   CREATE_AH:   arg0 0x80 (as an AV mask), arg2 port, arg3 sgid_index,
 *                arg6 is_global; name = device
	 *   MODIFY_QP:   arg0 attr_mask, arg1 target state, arg2 port (0: not
	 *                set), arg3 sgid_index, arg4 pkey_index, arg5 path_mtu,
	 *                arg6 is_global, arg7 current state; lim3 ports; name = device
	 *   SHM_ALLOC:   arg0 offset, arg1 length, arg2 mode; lim0 size limit in
	 *                pages (0: none), lim1 pages in use, lim2 inode number
	 *   FD_IMPORT:   arg0 pidfd, arg1 fd in the target */
	unsigned int op; /* enum mrt_op */
	unsigned int op_cmd; /* the uverbs write command or (object << 16 | method) */
	unsigned long long op_args[8];
	unsigned long long op_limits[4];
	char op_name[32];
	unsigned int mntns_inum; /* FAILURE: the task's mount namespace (which /dev it saw) */
	unsigned int op_pad;
	unsigned int nsteps; /* may exceed MRT_TRAIL_MAX: the rest were lost */
	struct mrt_memlock ml;
	/* MLOCK_FAILURE: sys_len the length asked (mlockall: its flags).
	 * RLIMIT_SET: sys_len the new soft limit, sys_arg the new hard limit
	 * (bytes, ~0 = RLIM_INFINITY), and cmd_start the pid prlimit64 named
	 * (0: itself); the other cmd_* are 0 (user/record/rlimit.c reads this
	 * kind through its own view, struct rlimit_change). */
	unsigned long long sys_len;
	unsigned long long sys_arg;
	int syscall; /* enum mrt_syscall: which call (JSON raw "sysno") */
	/* USER_CALL: whether libibverbs reached its ibv_cmd_* (the kernel), and
	 * the user stack at the call (NCCL attribution) */
	int cmd_reached;
	unsigned int nustack;
	unsigned int page_shift; /* log2 of the recording kernel's page size */
	unsigned long long ustack[MRT_USTACK_MAX];
	struct mrt_step steps[MRT_TRAIL_MAX];
	/* Appended (older readers stop before these). */
	unsigned int ns_pid; /* pid and tid as the process's own pid namespace */
	unsigned int ns_tid; /* numbers them (a container's); 0: not read */
	unsigned long long storm_shape; /* non-zero: this record opened a storm
					 * run (struct mrt_storm_key.shape) */
	/* REG_FAILURE whose stack the kernel took: the file (inode number) each
	 * ustack frame lies in and its offset there, found at the failure -
	 * the process may be gone before user space can read its maps */
	unsigned long long uino[MRT_USTACK_MAX];
	unsigned long long uoff[MRT_USTACK_MAX];
	/* Who the process was at the failure (fill_owner, sent records only):
	 * user space checks what /proc/PID says against it (the pid reused by
	 * another process, an exec since) and places a process gone before
	 * /proc was read by its parent, which usually lingers (a launcher).
	 * 0: not read (an older kernel, a replayed record). */
	unsigned long long start_ns; /* the process's start (its leader's
				      * start_boottime): /proc/PID/stat field 22 in ns */
	unsigned long long exe_ino; /* inode number of its executable (mm->exe_file) */
	unsigned int ppid; /* its parent's tgid (real_parent of the leader) */
	unsigned int lineage_pad;
	unsigned long long pstart_ns; /* the parent's start, as start_ns */
	/* REG_FAILURE whose long-term pin was refused in fs-dax memory
	 * (MRT_VMA_FSDAX): the mapped file's device (s_dev: major << 20 |
	 * minor), inode number and name (its dentry's, the last path
	 * component), read with the VMA - the process may be gone before user
	 * space can read its maps.  0 and "": none. */
	unsigned long long vma_dev;
	unsigned long long vma_ino;
	char vma_name[32];
};

/* libibverbs entry points seen by uprobes (USER_CALL events: ev.opener). */
enum mrt_api {
	MRT_API_NONE = 0,
	MRT_API_REG_MR = 1, /* ibv_reg_mr */
	MRT_API_REG_MR_IOVA = 2, /* ibv_reg_mr_iova */
	MRT_API_REG_MR_IOVA2 = 3, /* ibv_reg_mr_iova2 (NCCL with relaxed ordering) */
	MRT_API_REG_DMABUF_MR = 4, /* ibv_reg_dmabuf_mr (NCCL's GPU buffers) */
	MRT_API_MAX
};

/* The system call behind an MLOCK_FAILURE or RLIMIT_SET event: mrtrace's own
 * numbers, set by the program that knows which tracepoint fired (syscall
 * numbers differ between architectures). */
enum mrt_syscall {
	MRT_SYS_NONE = 0,
	MRT_SYS_MLOCK = 1,
	MRT_SYS_MLOCK2 = 2,
	MRT_SYS_MLOCKALL = 3,
	MRT_SYS_SETRLIMIT = 4,
	MRT_SYS_PRLIMIT64 = 5,
};

/* The sites whose kprobe entry keeps arguments for their kretprobe: one
 * slot each, not one per site, for the whole context is copied into the
 * trail map whenever a registration opens one (every byte of it costs every
 * registration; 624 bytes of pend were 192). */
enum mrt_pend {
	MRT_PEND_CAP_IPC_LOCK,
	MRT_PEND_DMABUF_GET,
	MRT_PEND_IOVA_ALLOC,
	MRT_PEND_MLX5_CMD,
	MRT_PEND_PIN,
	MRT_PEND_UVERBS_CMD,
	MRT_PEND_UVERBS_METHOD,
	MRT_PEND_UVERBS_REG_DMABUF,
	MRT_PEND_MAX
};

/* The per-thread registration context (bpf/trail.bpf.h), here because user
 * space reads the ones left open at stop (user/tracer/tracer.c). */
struct mrt_ctx {
	int depth; /* nesting of opener sites */
	/* the outermost opener's stack pointer at entry (kprobe flavours; 0
	 * unknown): an opener entered at or above it is a new call, not a
	 * nested one, so this context's exit was missed (trail.bpf.h) */
	unsigned long long open_sp;
	int umem_depth; /* inside ib_umem_get */
	int ml_read; /* ev.ml's limits and counters were read (memlock_snapshot) */
	unsigned long long pend[MRT_PEND_MAX][3]; /* kprobe entry args, for kretprobes */
	struct mrt_event ev;
};

/* A context older than this at the next opener is stale: nested openers
 * (method, command, ib_umem_get) open within microseconds of the outer one,
 * before any pinning, so only a context whose exit was lost gets this old. */
#define MRT_CTX_STALE_NS (10ULL * 1000000000ULL)

/* Counters (one per-CPU array, indexed by these). */
enum mrt_counter {
	MRT_CNT_EVENTS = 0, /* events emitted */
	MRT_CNT_DROPS = 1, /* ring buffer full: event lost */
	MRT_CNT_TRAIL_OVERFLOW = 2, /* steps beyond MRT_TRAIL_MAX */
	MRT_CNT_CTX_FULL = 3, /* per-thread context map full */
	MRT_CNT_REGS = 4, /* registrations seen (ok or failed) */
	MRT_CNT_OPS = 5, /* other verbs commands seen (ok or failed) */
	MRT_CNT_FAILURES = 6, /* failed registrations the kernel trail saw (sent or folded) */
	MRT_CNT_FOLDED = 7, /* records folded into a storm instead of sent */
	MRT_CNT_STORMS_FULL = 8, /* records sent unfolded: the storm table was full */
	MRT_CNT_WATCHED_FULL = 9, /* processes of a watched tree not followed: watched_tgids full */
	MRT_CNT_CTX_STALE = 10, /* trail contexts dropped as stale (a missed kretprobe) */
	MRT_CNT_RET_MISSED = 11, /* opener returns that never came, found at a stale drop */
	MRT_CNT_ASYNC = 12, /* async device and port events sent (MRT_EV_ASYNC) */
	MRT_CNT_ENVIRON = 13, /* environment copies sent (MRT_EV_ENVIRON) */
	MRT_CNT_ENV_CUT = 14, /* of those, cut at MRT_ENV_BYTES or with a hole */
	MRT_CNT_MAX
};

/* ---- storms: identical failures folded in the kernel --------------------
 * A failure is identified by its key: the process, the record kind, the
 * errno, the opener (site or libibverbs API) and the shape (a hash of the
 * trail's (site, ret) steps and of what tells a harmless probe apart).
 * The first failure of a key is sent in full at once and opens a run; the
 * identical ones after it are only counted (folded) while the run lasts:
 * as long as they come less than MRT_STORM_WINDOW_NS apart, and until user
 * space has reported every folded one (struct mrt_storm_ack).  User
 * space reads the table and writes the folded ones out as summary records
 * with a count (docs/json.md, "Storms"); a failure after a quiet window
 * opens a new run and is sent in full again. */
#define MRT_STORM_WINDOW_NS 1000000000ULL

struct mrt_storm_key {
	unsigned int pid; /* tgid */
	unsigned int kind; /* enum mrt_kind */
	int err;
	unsigned int opener;
	unsigned long long shape;
};

/* Written by the BPF programs only. */
struct mrt_storm {
	unsigned long long first_ts; /* the run's first failure (sent in full) */
	unsigned long long last_ts; /* its last failure (sent or folded) */
	unsigned long long fold_first_ts; /* the first fold user space had not seen */
	unsigned long long folded; /* folded since the key appeared: only grows */
	unsigned long long sent; /* runs opened (records sent in full): only grows */
};

/* Written by user space only: how many of `folded` it has reported, and
 * when (bpf_ktime_get_ns clock), and the last failure's time then. */
struct mrt_storm_ack {
	unsigned long long folded;
	unsigned long long at_ns;
	unsigned long long last_ts;
};

#endif
