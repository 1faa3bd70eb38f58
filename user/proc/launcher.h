/* SPDX-License-Identifier: GPL-2.0-only */
/* launcher.h - the chain of processes that started one process, each
 * ancestor classified (torchrun, srun, orted, containerd-shim, ...).  The fix
 * for a limit depends on who set it, and a limit is inherited from the
 * parent, so the chain says where to change it. */
#ifndef MRTRACE_PROC_LAUNCHER_H
#define MRTRACE_PROC_LAUNCHER_H
#include <stdbool.h>
#include <stddef.h>

#define CTX_MAX_LAUNCHERS 16

enum ctx_launcher_kind {
	CTX_L_OTHER = 0,
	CTX_L_TORCHRUN,      /* torchrun, python -m torch.distributed.run/launch */
	CTX_L_DEEPSPEED,
	CTX_L_MPIRUN,        /* mpirun, mpiexec, prterun, orterun (the local head) */
	CTX_L_MPI_DAEMON,    /* orted, prted, hydra_pmi_proxy: the per-node daemon */
	CTX_L_SRUN,
	CTX_L_SLURMSTEPD,
	CTX_L_SYSTEMD,       /* pid 1 */
	CTX_L_SYSTEMD_USER,  /* systemd --user */
	CTX_L_SSHD,          /* sshd, sshd-session */
	CTX_L_CONTAINERD_SHIM,
	CTX_L_CONMON,
	CTX_L_KUBELET,
	CTX_L_SHELL,         /* bash, sh, zsh, ... */
	CTX_L_SUDO,          /* sudo, su, runuser: a fresh PAM session */
	CTX_L__COUNT
};

struct ctx_launcher {
	int pid;
	enum ctx_launcher_kind kind;
	char comm[16];
};

/* Walks ppid links from `ppid` (the process's parent; 0: read it from
 * /proc/<pid>/stat) up to pid 1, at most `max` ancestors, and classifies
 * each.  Returns how many were stored (*truncated set when the chain was
 * longer), or -ESRCH when the process is gone. */
int launchers_read(const char *root, int pid, int ppid, struct ctx_launcher *out, int max,
		   bool *truncated);
/* Classification from comm and cmdline (cmdline may be NULL). */
enum ctx_launcher_kind launcher_classify(int pid, const char *comm, const char *cmdline);
/* Stable lower_snake name for output and JSON. */
const char *ctx_launcher_name(enum ctx_launcher_kind k);

#endif
