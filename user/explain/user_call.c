// SPDX-License-Identifier: GPL-2.0-only
/* user_call.c - a failed libibverbs call seen by the uprobes with no kernel
 * trail to join: refused inside libibverbs (proven), or judged from the
 * errno and the process's /proc numbers (inferred). */
#include "explain/explain.h"
#include "explain/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/pages.h"
#include "core/units.h"
#include "nccl/nccl.h"
#include "proc/context.h"

static uint64_t range_pages(uint64_t addr, uint64_t len, uint64_t page)
{
	return pages_spanned(addr, len, page);
}

enum cause explain_user_call(const struct mrt_event *uev, const struct proc_context *ctx,
			     const struct nccl_info *nccl, struct verdict *v)
{
	bool dmabuf = uev->opener == MRT_API_REG_DMABUF_MR;
	char l[32], p[32], r[32], n[32];

	memset(v, 0, sizeof(*v));
	v->decisive_step = -1;
	v->cause = CAUSE_UNKNOWN;
	v->err = uev->err;

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
			verdict_fix(v, FIX_PRIMARY,
			    "Use a NIC whose provider supports dma-buf (mlx5 with rdma-core >= 34 on "
			    "kernel >= 5.12), or NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU "
			    "memory.");
			return v->cause;
		}
		verdict_say(v->summary, "%s failed inside libibverbs before the kernel was asked",
		    api_name(uev->opener));
		verdict_say(v->explanation,
		    "No registration command reached the kernel; libibverbs' own checks (for "
		    "instance madvise(MADV_DONTFORK) when fork support is enabled) failed.");
		return v->cause;
	}

	v->certainty = CERT_INFERRED;
	uint64_t pages = range_pages(uev->cmd_start, uev->cmd_length, event_page_size(uev));
	bool have_ml = ctx && (ctx->have & CTX_HAVE_MEMLOCK) && (ctx->have & CTX_HAVE_VMPIN);
	bool cap = ctx && (ctx->have & CTX_HAVE_CAPS) && ctx->cap_ipc_lock && !ctx->in_userns;

	if (uev->err == EPERM && have_ml && ctx->memlock_soft == 0 && !cap) {
		v->cause = CAUSE_MEMLOCK_ZERO;
	} else if (uev->err == ENOMEM && have_ml && !cap && ctx->memlock_soft != UINT64_MAX &&
		   ctx->vm_pin + pages * event_page_size(uev) > ctx->memlock_soft) {
		v->cause = CAUSE_MEMLOCK_LIMIT;
	} else if (dmabuf && (uev->err == EOPNOTSUPP || uev->err == EPROTONOSUPPORT)) {
		v->cause = CAUSE_DMABUF_UNSUPPORTED;
		v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
		verdict_say(v->summary, "the kernel refused the dma-buf MR with %s (fd %d, length %llu)",
		    errno_name(uev->err), uev->dmabuf_fd, (unsigned long long)uev->cmd_length);
		verdict_say(v->explanation, "The RDMA driver does not support dma-buf MRs (inferred from "
				    "the errno; no kernel site was observed).");
		verdict_fix(v, FIX_PRIMARY, "Use a NIC/driver with dma-buf support, or "
				    "NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU memory.");
		return v->cause;
	} else if (dmabuf && uev->err == EBADF) {
		v->cause = CAUSE_DMABUF_BAD_FD;
		v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
		verdict_say(v->summary, "dma-buf fd %d is not an open dma-buf (EBADF)", uev->dmabuf_fd);
		verdict_say(v->explanation, "The kernel could not resolve the fd (inferred from the errno).");
		return v->cause;
	}
	if (v->cause == CAUSE_MEMLOCK_LIMIT || v->cause == CAUSE_MEMLOCK_ZERO) {
		v->has_memlock = true;
		v->limit_bytes = ctx->memlock_soft;
		v->pinned_before_bytes = ctx->vm_pin;
		v->request_bytes = pages * event_page_size(uev);
		v->need_bytes = v->pinned_before_bytes + v->request_bytes;
		if (v->cause == CAUSE_MEMLOCK_ZERO)
			verdict_say(v->summary, "RLIMIT_MEMLOCK is 0 and CAP_IPC_LOCK does not apply "
					"(from /proc; ib_umem_get not observed)");
		else
			verdict_say(v->summary,
			    "limit %s, pinned now %s (VmPin), this request %llu pages (%s): needs "
			    "%s (from /proc; ib_umem_get not observed)",
			    verdict_bytes(v->limit_bytes, l), verdict_bytes(v->pinned_before_bytes, p),
			    (unsigned long long)pages, verdict_bytes(v->request_bytes, r), verdict_bytes(v->need_bytes, n));
		verdict_say(v->explanation,
		    "The kernel answered %s, and the process's own numbers explain it: ib_umem_get "
		    "refuses when pinned_vm plus the request exceeds RLIMIT_MEMLOCK without "
		    "CAP_IPC_LOCK. Inferred, not observed: this kernel does not let mrtrace probe "
		    "ib_umem_get (see --list-probes).",
		    errno_name(uev->err));
		memlock_fixes(ctx, nccl, v, true);
		return v->cause;
	}
	verdict_say(v->summary, "%s failed with %s; no kernel site was armed to say why",
	    api_name(uev->opener), errno_name(uev->err));
	verdict_say(v->explanation, "mrtrace does not guess: arm the kernel sites (a kernel that allows "
			    "fentry or kprobes, with the RDMA modules loaded) to get the cause.");
	return v->cause;
}
