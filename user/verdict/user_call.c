// SPDX-License-Identifier: GPL-2.0-only
/* user_call.c - a failed libibverbs call seen by the uprobes with no kernel
 * trail to join: refused inside libibverbs (proven), or judged from the
 * errno and the process's /proc numbers (inferred; the memlock rules are
 * memlock.c's). */
#include "verdict/explain.h"
#include "verdict/gpu_memory.h"
#include "verdict/memlock.h"

#include <errno.h>

/* The cause, its numbers and texts; the fixes follow from them. */
static void judge_user_call(const struct mrt_event *uev, const struct proc_context *ctx,
			    struct verdict *v)
{
	bool dmabuf = uev->opener == MRT_API_REG_DMABUF_MR;

	if (!uev->cmd_reached) {
		/* libibverbs returned NULL without issuing the command */
		v->certainty = CERT_PROVEN;
		if (dmabuf) {
			v->err = EOPNOTSUPP;
			v->cause = CAUSE_DMABUF_UNSUPPORTED;
			v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
			verdict_say(v->summary,
			    "libibverbs refused %s before the kernel (EOPNOTSUPP; fd %d, length "
			    "%llu): the device's provider library has no dma-buf support",
			    api_name(uev->opener), uev->dmabuf_fd,
			    (unsigned long long)uev->cmd_length);
			verdict_say(v->explanation,
			    "The verbs provider for this device does not implement reg_dmabuf_mr, so "
			    "libibverbs fails the call itself and the kernel is never asked.");
			return;
		}
		verdict_say(v->summary, "%s failed inside libibverbs before the kernel was asked",
		    api_name(uev->opener));
		verdict_say(v->explanation,
		    "No registration command reached the kernel; libibverbs' own checks (for "
		    "instance madvise(MADV_DONTFORK) when fork support is enabled) failed.");
		return;
	}

	v->certainty = CERT_INFERRED;
	if (memlock_infer(ctx, uev->err, uev->cmd_start, uev->cmd_length, event_page_size(uev), v))
		return;
	if (dmabuf && (uev->err == EOPNOTSUPP || uev->err == EPROTONOSUPPORT)) {
		v->cause = CAUSE_DMABUF_UNSUPPORTED;
		v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
		verdict_say(v->summary, "the kernel refused the dma-buf MR with %s (fd %d, length %llu)",
		    errno_name(uev->err), uev->dmabuf_fd, (unsigned long long)uev->cmd_length);
		verdict_say(v->explanation, "The RDMA driver does not support dma-buf MRs (inferred from "
				    "the errno; no kernel site was observed).");
		return;
	}
	if (dmabuf && uev->err == EBADF) {
		v->cause = CAUSE_DMABUF_BAD_FD;
		v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
		verdict_say(v->summary, "dma-buf fd %d is not an open dma-buf (EBADF)", uev->dmabuf_fd);
		verdict_say(v->explanation, "The kernel could not resolve the fd (inferred from the errno).");
		return;
	}
	verdict_say(v->summary, "%s failed with %s; no kernel site was armed to say why",
	    api_name(uev->opener), errno_name(uev->err));
	verdict_say(v->explanation, "mrtrace does not guess: arm the kernel sites (a kernel that allows "
			    "fentry or kprobes, with the RDMA modules loaded) to get the cause.");
}

enum cause explain_user_call(const struct mrt_event *uev, const struct proc_context *ctx,
			     const struct nccl_info *nccl, const struct gate_facts *gates,
			     struct verdict *v)
{
	verdict_init(v, uev->err, CERT_PROVEN);
	judge_user_call(uev, ctx, v);
	gpu_verdict_facts(uev, gates, nccl, v);
	fixes_for_verdict(uev, ctx, nccl, gates, v);
	return v->cause;
}
