// SPDX-License-Identifier: GPL-2.0-only
/* memlock.c - the RLIMIT_MEMLOCK rules (memlock.h): ib_umem_get's refusal
 * seen in a trail, the same check judged from /proc where ib_umem_get was
 * not observed, and a failed mlock(), mlock2() or mlockall() (explain.h). */
#include "verdict/memlock.h"
#include "verdict/explain.h"

#include <errno.h>
#include <stdio.h>

#include "core/pages.h"
#include "core/units.h"
#include "proc/context.h"

/* the page size of the kernel that recorded the event in scope */
#define PAGE_SZ event_page_size(ev)

static void memlock_numbers(const struct mrt_event *ev, struct verdict *v)
{
	const struct mrt_memlock *m = &ev->ml;

	v->has_memlock = true;
	v->limit_bytes = m->limit_cur;
	v->pinned_before_bytes = m->pinned_pages_before * PAGE_SZ;
	v->request_bytes = m->requested_pages * PAGE_SZ;
	v->need_bytes = v->pinned_before_bytes + v->request_bytes;
}

static const char *pinned_by(const struct mrt_event *ev, char *buf, size_t len)
{
	char b[32];

	if (ev->ml.live_mrs)
		snprintf(buf, len, " by %u MR%s (%s seen registered since mrtrace started)",
			 ev->ml.live_mrs, ev->ml.live_mrs == 1 ? "" : "s",
			 verdict_bytes(ev->ml.live_pages * PAGE_SZ, b));
	else
		buf[0] = 0;
	return buf;
}

/* ---- ib_umem_get, observed ------------------------------------------------- */

bool explain_memlock(const struct mrt_event *ev, struct verdict *v, int umem_step)
{
	const struct mrt_memlock *m = &ev->ml;
	char l[32], p[32], r[32], n[32], by[160], pg[64];
	uint64_t limit_pages = m->limit_cur == UINT64_MAX ? UINT64_MAX : m->limit_cur / PAGE_SZ;
	int cap = trail_find(ev, MRT_SITE_CAP_IPC_LOCK);

	if (!m->valid || umem_step < 0)
		return false;
	int err = -ev->steps[umem_step].ret;

	/* can_do_mlock(): RLIMIT_MEMLOCK == 0 and no CAP_IPC_LOCK -> EPERM, before
	 * anything is pinned. */
	if (err == EPERM && m->limit_cur == 0 && trail_first_failed(ev, MRT_SITE_PIN) < 0) {
		v->cause = CAUSE_MEMLOCK_ZERO;
		v->decisive_step = cap >= 0 ? cap : umem_step;
		memlock_numbers(ev, v);
		verdict_say(v->summary, "RLIMIT_MEMLOCK is 0 and CAP_IPC_LOCK does not apply: "
				"this request %s",
		    fmt_pages(m->requested_pages, PAGE_SZ, pg, sizeof(pg)));
		verdict_say(v->explanation,
		    "ib_umem_get refused before pinning anything (can_do_mlock() is false): "
		    "a memlock limit of 0 forbids every RDMA registration unless the process "
		    "holds CAP_IPC_LOCK in the initial user namespace%s.",
		    m->cap_checked ? " (capable() was asked and returned false)" : "");
		return true;
	}
	/* new_pinned = pinned_vm + npages > limit and !capable(CAP_IPC_LOCK) -> ENOMEM */
	if (err == ENOMEM && trail_first_failed(ev, MRT_SITE_PIN) < 0 &&
	    (m->cap_checked ? !m->cap_result : true) &&
	    limit_pages != UINT64_MAX && m->pinned_pages_before + m->requested_pages > limit_pages) {
		v->cause = CAUSE_MEMLOCK_LIMIT;
		v->decisive_step = cap >= 0 ? cap : umem_step;
		memlock_numbers(ev, v);
		verdict_say(v->summary,
		    "limit %s, already pinned %s%s, this request %s: needs %s, over by %s",
		    verdict_bytes(m->limit_cur, l), verdict_bytes(v->pinned_before_bytes, p),
		    pinned_by(ev, by, sizeof(by)), fmt_pages(m->requested_pages, PAGE_SZ, pg, sizeof(pg)),
		    verdict_bytes(v->need_bytes, n), verdict_bytes(v->need_bytes - m->limit_cur, r));
		verdict_say(v->explanation,
		    "ib_umem_get adds the request to the process's pinned_vm (%llu + %llu = %llu "
		    "pages) and refuses when that exceeds RLIMIT_MEMLOCK (%llu pages)%s. Free "
		    "memory does not matter: the per-process memlock limit does, and it counts "
		    "every live MR of the process.",
		    (unsigned long long)m->pinned_pages_before,
		    (unsigned long long)m->requested_pages,
		    (unsigned long long)(m->pinned_pages_before + m->requested_pages),
		    (unsigned long long)limit_pages,
		    m->cap_checked ? "; capable(CAP_IPC_LOCK), which would lift the limit, "
				     "returned false (it checks the initial user namespace)"
				   : "; CAP_IPC_LOCK was not observed (assumed absent)");
		return true;
	}
	return false;
}

/* ---- ib_umem_get, inferred from /proc --------------------------------------- */

bool memlock_infer(const struct proc_context *ctx, int err, uint64_t start, uint64_t len,
		   uint64_t page_size, struct verdict *v)
{
	char l[32], p[32], r[32], n[32];
	uint64_t pages = pages_spanned(start, len, page_size);
	bool have_ml = ctx && (ctx->have & CTX_HAVE_MEMLOCK) && (ctx->have & CTX_HAVE_VMPIN);
	bool cap = ctx && (ctx->have & CTX_HAVE_CAPS) && ctx->cap_ipc_lock && !ctx->in_userns;
	enum cause c;

	if (err == EPERM && have_ml && ctx->memlock_soft == 0 && !cap)
		c = CAUSE_MEMLOCK_ZERO;
	else if (err == ENOMEM && have_ml && !cap && ctx->memlock_soft != UINT64_MAX &&
		 ctx->vm_pin + pages * page_size > ctx->memlock_soft)
		c = CAUSE_MEMLOCK_LIMIT;
	else
		return false;
	v->cause = c;
	v->certainty = CERT_INFERRED;
	v->has_memlock = true;
	v->limit_bytes = ctx->memlock_soft;
	v->pinned_before_bytes = ctx->vm_pin;
	v->request_bytes = pages * page_size;
	v->need_bytes = v->pinned_before_bytes + v->request_bytes;
	if (c == CAUSE_MEMLOCK_ZERO)
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
	    errno_name(err));
	return true;
}

/* ---- mlock(), mlock2(), mlockall() --------------------------------------------- */

static void judge_mlock(const struct mrt_event *ev, struct verdict *v)
{
	char l[32], p[32], r[32];
	int err = ev->err;
	bool all = ev->syscall == MRT_SYS_MLOCKALL; /* sys_len holds flags, not bytes */

	memlock_numbers(ev, v);
	v->pinned_before_bytes = ev->ml.locked_pages * PAGE_SZ;
	v->request_bytes = all ? 0 : ev->sys_len;
	v->need_bytes = v->pinned_before_bytes + v->request_bytes;
	if (all) {
		v->cause = err == EPERM && ev->ml.limit_cur == 0 ? CAUSE_MEMLOCK_ZERO
								 : CAUSE_MEMLOCK_LIMIT;
		verdict_say(v->summary, "mlockall(0x%llx) refused (%s): limit %s, already locked %s",
		    (unsigned long long)ev->sys_len, errno_name(err), verdict_bytes(ev->ml.limit_cur, l),
		    verdict_bytes(v->pinned_before_bytes, p));
		verdict_say(v->explanation, "mlockall() locks the whole address space, held to "
				    "RLIMIT_MEMLOCK like RDMA registration.");
		return;
	}
	/* mlock() also fails with ENOMEM on an unmapped range: only a request
	 * over the limit is the limit's doing */
	if (err == EPERM && ev->ml.limit_cur == 0)
		v->cause = CAUSE_MEMLOCK_ZERO;
	else if (err == ENOMEM && ev->ml.limit_cur != UINT64_MAX &&
		 v->need_bytes > ev->ml.limit_cur)
		v->cause = CAUSE_MEMLOCK_LIMIT;
	else {
		v->cause = CAUSE_UNKNOWN;
		verdict_say(v->summary, "mlock of %s failed (%s) within the limit %s: not the memlock "
				"limit (an unmapped range gives ENOMEM too)",
		    verdict_bytes(ev->sys_len, r), errno_name(err), verdict_bytes(ev->ml.limit_cur, l));
		verdict_say(v->explanation, "The request fits under RLIMIT_MEMLOCK, so the limit "
				    "did not refuse it.");
		return;
	}
	verdict_say(v->summary, "mlock of %s refused (%s): limit %s, already locked %s (VmLck)",
	    verdict_bytes(ev->sys_len, r), errno_name(err), verdict_bytes(ev->ml.limit_cur, l),
	    verdict_bytes(v->pinned_before_bytes, p));
	verdict_say(v->explanation,
	    "mlock() is held to the same RLIMIT_MEMLOCK that RDMA registration is: locked "
	    "pages (VmLck) plus this request may not exceed it without CAP_IPC_LOCK. A "
	    "process that cannot mlock this much cannot register it as an MR either.");
}

enum cause explain_mlock(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct nccl_info *nccl, struct verdict *v)
{
	verdict_init(v, ev->err, CERT_PROVEN);
	judge_mlock(ev, v);
	fixes_for_verdict(ev, ctx, nccl, NULL, v);
	return v->cause;
}
