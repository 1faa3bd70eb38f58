/* SPDX-License-Identifier: GPL-2.0-only */
/* kenv.h - the kernel's copy of what places a process (MRT_EV_ENVIRON,
 * bpf/environ.bpf.h), as the correlator keeps it per process: the
 * allow-listed environment (never the block), the executable's identity and
 * the ancestors.  Used for a record only when it is the same process. */
#ifndef MRTRACE_WATCH_KENV_H
#define MRTRACE_WATCH_KENV_H

#include <stdbool.h>
#include <stddef.h>

#include "mrtrace.h"
#include "proc/context.h"
#include "nccl/nccl.h"

struct corr_kenv {
	unsigned int pid, uid;
	unsigned long long start_ns, exe_ino, exe_dev;
	char exe_name[MRT_FILE_NAME];
	int nanc; /* parent first */
	struct mrt_ancestor anc[MRT_ENV_ANCESTORS];
	struct ctx_env env; /* allowed names only */
};

/* Parses e's block (len bytes of it were sent) into k at once. */
void corr_kenv_take(struct corr_kenv *k, const struct mrt_environ *e, size_t len);
/* Whether ev is the process k was copied from: same start time, executable
 * and uid (an exec or a reused pid is another program). */
bool corr_kenv_same(const struct corr_kenv *k, const struct mrt_event *ev);
/* Into ctx: the environment, and the launchers when /proc had none. */
void corr_kenv_graft(const struct corr_kenv *k, struct proc_context *ctx);
/* NCCL as far as the copy names it (rank; no library, no settings file). */
void corr_kenv_nccl(const struct corr_kenv *k, const struct proc_context *ctx,
		    struct nccl_info *out);

#endif
