/* SPDX-License-Identifier: GPL-2.0-only */
/* context.h - who asked for the registration: the process, its limits, its
 * container / unit / job, its launchers and an allow-listed environment.
 *
 * Everything here is plain data read from /proc (or from a fixture tree that
 * looks like one), so the explanation engine and `mrtrace check` can use it
 * without BPF.  A field is meaningful only when its CTX_HAVE_* bit is set in
 * proc_context.have: data we could not read is marked missing, never guessed.
 *
 * Paths: `root` is "/" on a live system, or a fixture directory in tests; the
 * reader opens <root>/proc/<pid>/..., <root>/proc/1/ns/user and, for files
 * inside the process's own filesystem, <root>/proc/<pid>/root/...
 */
#ifndef MRTRACE_CONTEXT_H
#define MRTRACE_CONTEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/launcher.h"

/* ---- bits of proc_context.have --------------------------------------- */
#define CTX_HAVE_EXE        (1u << 0)
#define CTX_HAVE_CMDLINE    (1u << 1)
#define CTX_HAVE_COMM       (1u << 2)
#define CTX_HAVE_UID        (1u << 3)  /* uid, euid */
#define CTX_HAVE_MEMLOCK    (1u << 4)  /* memlock_soft (the enforced one) */
#define CTX_HAVE_MEMLOCK_HARD (1u << 5)
#define CTX_HAVE_VMPIN      (1u << 6)
#define CTX_HAVE_VMLCK      (1u << 7)
#define CTX_HAVE_CAPS       (1u << 8)  /* cap_eff, cap_ipc_lock */
#define CTX_HAVE_USERNS     (1u << 9)  /* in_userns, uid_map_identity */
#define CTX_HAVE_CGROUP     (1u << 10) /* cgroup_path and what it implies */
#define CTX_HAVE_CGROUP_ID  (1u << 11)
#define CTX_HAVE_PPID       (1u << 12)
#define CTX_HAVE_LAUNCHERS  (1u << 13) /* the ancestor walk ran */
#define CTX_HAVE_ENV        (1u << 14) /* /proc/PID/environ was readable */
#define CTX_HAVE_NSPID      (1u << 15)
#define CTX_HAVE_NS_UID     (1u << 16) /* ns_uid (from uid_map) */
#define CTX_HAVE_STATE      (1u << 17) /* state, kernel_thread (from stat) */
#define CTX_HAVE_START      (1u << 18) /* start_ticks (from stat) */
#define CTX_HAVE_EXE_INO    (1u << 19) /* exe_ino (stat of /proc/PID/exe) */

/* The memlock value meaning "no limit" (RLIM_INFINITY), as in /proc/PID/limits. */
#define CTX_UNLIMITED UINT64_MAX

#define CTX_CAP_IPC_LOCK 14

enum ctx_runtime {
	CTX_RT_NONE = 0,     /* no container found in the cgroup path */
	CTX_RT_DOCKER,
	CTX_RT_CONTAINERD,   /* cri-containerd-*.scope, nerdctl, or a containerd-shim parent */
	CTX_RT_CRIO,
	CTX_RT_PODMAN,
	CTX_RT_UNKNOWN,      /* a container id without a runtime prefix (cgroupfs driver) */
};


/* Where the process runs, which decides which fix applies.  Derived from the
 * fields above by proc_context_setting(); most specific first. */
enum ctx_setting {
	CTX_SET_UNKNOWN = 0,     /* not enough data */
	CTX_SET_USERNS,          /* rootless container / non-initial user namespace */
	CTX_SET_KUBERNETES,
	CTX_SET_DOCKER,
	CTX_SET_CONTAINERD,
	CTX_SET_CRIO,
	CTX_SET_PODMAN,          /* rootful podman */
	CTX_SET_CONTAINER,       /* container of unknown runtime */
	CTX_SET_SLURM,
	CTX_SET_MPI_REMOTE,      /* under orted/prted started over ssh */
	CTX_SET_MPI_LOCAL,       /* under mpirun on this node */
	CTX_SET_SYSTEMD_SERVICE, /* a system unit */
	CTX_SET_SYSTEMD_USER,    /* a unit of the user's systemd --user */
	CTX_SET_SHELL,           /* a login session (ssh, console) */
};


/* Why a report's context is only what the kernel recorded (the identity
 * check, proc_context_identity): /proc/PID was not that process. */
enum ctx_unavailable {
	CTX_AVAILABLE = 0,       /* read from /proc, and it was the process */
	CTX_GONE,                /* the process had exited */
	CTX_PID_REUSED,          /* another process has the pid now */
	CTX_EXECED,              /* the process ran another program since */
};

/* Allow-listed environment: NCCL_* and the rank/launcher variables listed in
 * docs/context.md, nothing else (see proc_env_allowed()). */
#define CTX_ENV_MAX      256     /* NCCL reads fewer than 300 variables */
#define CTX_ENV_NAME_MAX 64
#define CTX_ENV_VALUE_MAX 256
struct ctx_env_var {
	char name[CTX_ENV_NAME_MAX];
	char value[CTX_ENV_VALUE_MAX];
	bool cut;                /* the value was longer and is cut here */
};
struct ctx_env {
	int n;
	bool truncated;          /* more allowed variables than CTX_ENV_MAX, or a value cut */
	int dropped;             /* allowed variables beyond CTX_ENV_MAX: not kept (said by the
				    NCCL lint) */
	int cut_entries;         /* entries of a kernel copy lost where it was cut
				    (its bound, an unreadable chunk): any name */
	bool kernel_cut;         /* the kernel's copy was cut (proc_env_from_kernel) */
	struct ctx_env_var vars[CTX_ENV_MAX];
};

#define CTX_CMDLINE_MAX   256

struct proc_context {
	int pid;
	uint32_t have;               /* CTX_HAVE_* */

	char exe[256];
	char cmdline[CTX_CMDLINE_MAX]; /* NULs turned into spaces, cut at 255 bytes */
	char comm[16];
	int ppid;
	char state;                  /* 'R', 'S', 'Z' (zombie), ... from /proc/PID/stat */
	bool kernel_thread;          /* PF_KTHREAD: no user memory, no registrations */
	unsigned long long start_ticks; /* its start: clock ticks after boot */
	uint64_t exe_ino;            /* inode number of its executable */
	enum ctx_unavailable unavailable; /* why only the record's fields are known */
	int ns_pid;                  /* pid inside its pid namespace (what NCCL logs print) */
	uint32_t uid, euid;          /* as the host sees them */
	uint32_t ns_uid;             /* real uid inside its user namespace (what
				        getuid() returns there, e.g. 0 in rootless podman) */

	uint64_t memlock_soft;       /* bytes; CTX_UNLIMITED = unlimited */
	uint64_t memlock_hard;
	uint64_t vm_pin;             /* bytes (pinned_vm: what ib_umem_get counts) */
	uint64_t vm_lck;             /* bytes (locked_vm: mlock) */
	uint64_t cap_eff;
	bool cap_ipc_lock;           /* CAP_IPC_LOCK in CapEff; counts only if !in_userns */

	bool in_userns;              /* non-initial user namespace */
	bool uid_map_identity;       /* uid_map is "0 0 4294967295" */

	char cgroup_path[512];       /* v2 path, or the v1 name=systemd/memory path */
	uint64_t cgroup_id;
	enum ctx_runtime runtime;
	char container_id[65];
	char pod_uid[37];            /* Kubernetes pod uid with '-' */
	char systemd_unit[128];      /* outside containers only */
	bool systemd_user_unit;      /* unit belongs to a user@UID.service manager */
	long slurm_job;              /* -1 when not in a Slurm step */
	char slurm_step[24];         /* "0", "batch", "extern", ... */

	int n_launchers;             /* ancestors, parent first, up to pid 1 */
	bool launchers_truncated;
	struct ctx_launcher launchers[CTX_MAX_LAUNCHERS];

	struct ctx_env env;
};

/* Reads everything it can about <root>/proc/<pid>.  Returns 0 when the
 * process directory exists (some fields may still be missing: check `have`),
 * -ESRCH when it does not (the process has exited), -EINVAL on bad args. */
int proc_context_read(const char *root, int pid, struct proc_context *out);

/* What a BPF event carries about a process that may have exited already. */
struct proc_context_event {
	int pid;
	uint32_t have;               /* CTX_HAVE_UID / _MEMLOCK / _CGROUP_ID / _COMM */
	uint32_t uid;
	uint64_t memlock_cur;        /* rlim_cur in bytes */
	uint64_t cgroup_id;
	char comm[16];
	/* the identity the kernel read at the failure; 0: not known */
	uint64_t start_ns;           /* the process's start, ns after boot */
	uint64_t exe_ino;
	int ppid;                    /* its parent, and the parent's start: */
	uint64_t pstart_ns;          /* the launcher walk starts there */
};

/* Whether the context read from /proc is the process the event is about:
 * its start time (pid reuse), its executable's inode (an exec since) and
 * its uid, each compared where both sides know it.  CTX_AVAILABLE when
 * nothing contradicts it. */
enum ctx_unavailable proc_context_identity(const struct proc_context *ctx,
					   const struct proc_context_event *ev);
/* Kernel nanoseconds after boot as /proc/PID/stat's clock ticks. */
unsigned long long proc_ns_to_ticks(uint64_t ns);
/* Field 22 of <root>/proc/<pid>/stat (clock ticks after boot); 0 when the
 * process is gone. */
unsigned long long proc_start_ticks(const char *root, int pid);
/* "the process is gone", "another process has the pid now", ...; NULL for
 * CTX_AVAILABLE. */
const char *ctx_unavailable_text(enum ctx_unavailable u);
/* "process_gone", "pid_reused", "exec" for JSON; NULL for CTX_AVAILABLE. */
const char *ctx_unavailable_name(enum ctx_unavailable u);
/* Its inverse: CTX_AVAILABLE for a name it does not know. */
enum ctx_unavailable ctx_unavailable_from_name(const char *name);

/* Lightweight variant: fills `out` only from `ev`; every other field stays
 * missing.  If `root` is not NULL and the event has a cgroup id, the cgroup
 * path (and runtime / unit / pod / job derived from it) is looked up under
 * <root>/sys/fs/cgroup (cgroup v2: the directory's inode number is the id). */
void proc_context_from_event(const char *root, const struct proc_context_event *ev,
			     struct proc_context *out);

/* Fills `out` with an empty context for pid: have = 0, slurm_job = -1. */
void proc_context_init(struct proc_context *out, int pid);
/* A context is large (about 84 KB, most of it the environment): it lives on
 * the heap and is passed by pointer, never copied or put on a stack.  An
 * empty one for pid, as proc_context_init(); NULL when out of memory.
 * Release with free(). */
struct proc_context *proc_context_alloc(int pid);

/* Parses one /proc/PID/cgroup text into cgroup_path, runtime, container_id,
 * pod_uid, systemd_unit, slurm_job/step (sets CTX_HAVE_CGROUP).  Exposed for
 * tests and for callers that got the text elsewhere. */
void proc_context_parse_cgroup(const char *text, struct proc_context *out);
/* /proc/PID/cgroup under root, parsed into out (cgroup.c, as the two
 * around it). */
void proc_context_read_cgroup(const char *root, int pid, struct proc_context *out);

/* Reads <root>/proc/<pid>/environ keeping only allowed variables.  The
 * read buffers are zeroed before returning.  0, or -errno. */
int proc_env_read(const char *root, int pid, struct ctx_env *out);
/* Whether a variable name is on the allow-list. */
bool proc_env_allowed(const char *name);

/* An environment block in memory ("NAME=value\0..."), through the same
 * allow-list, appended to *out.  HEAD_CUT: the block starts inside an
 * entry; TAIL_CUT: it ends inside one (a last entry without its NUL is
 * then dropped; without the flag it is taken, as /proc's).  Returns the
 * entries dropped as partial (also added to out->cut_entries). */
#define ENV_BLOCK_HEAD_CUT 1u
#define ENV_BLOCK_TAIL_CUT 2u
int proc_env_parse(struct ctx_env *out, const char *block, size_t len, unsigned int flags);
/* The kernel's copy (struct mrt_environ): len bytes of a block of total,
 * read in `chunk`-byte pieces, bit i of holes set for a piece that could
 * not be read.  *out is reset.  Returns the entries dropped as partial, -1
 * for a bad chunk size. */
int proc_env_from_kernel(struct ctx_env *out, const char *block, size_t len, size_t total,
			 unsigned int holes, size_t chunk);
/* Value of an allowed variable, or NULL when absent. */
const char *proc_env_get(const struct ctx_env *env, const char *name);

enum ctx_setting proc_context_setting(const struct proc_context *ctx);

/* The cgroup v2 directory (relative to the v2 hierarchy, sys/fs/cgroup or
 * on a hybrid host sys/fs/cgroup/unified: "/...", as "0::" reads) whose
 * inode number is `id` (bpf_get_current_cgroup_id()): how a process that
 * has exited is still placed.  0, or -errno. */
int proc_cgroup_path_by_id(const char *root, uint64_t id, char *rel, size_t len);

/* Nearest ancestor of that kind, or NULL. */
const struct ctx_launcher *proc_context_launcher(const struct proc_context *ctx,
						 enum ctx_launcher_kind kind);
/* "torchrun(812) <- srun(790) <- slurmstepd(777) <- systemd(1)": recognized
 * launchers only.  Returns buf. */
const char *proc_context_launcher_chain(const struct proc_context *ctx, char *buf, size_t len);


/* Stable lower_snake names for output and JSON. */
const char *ctx_runtime_name(enum ctx_runtime rt);
/* The other way: the value, or -1 for a name it never returns (one table
 * for both directions). */
int ctx_runtime_from_name(const char *name);
const char *ctx_setting_name(enum ctx_setting s);

#endif
