// SPDX-License-Identifier: GPL-2.0-only
/* evidence.c - the pieces of "evidence" (docs/json.md) the explained kinds
 * compose, each in its kind's order (reg_failure.c, user_call.c,
 * mlock_failure.c, failure.c). */
#include "record/kind.h"
#include "record/json_util.h"

#include "verdict/explain.h"

/* the page size of the kernel that recorded the event in scope */
#define PAGE_SZ event_page_size(ev)

void evidence_memlock(struct json_object *e, const struct mrt_event *ev)
{
	jput_limit(e, "memlock_limit_bytes", ev->ml.limit_cur);
	jput_limit(e, "memlock_hard_limit_bytes", ev->ml.limit_max);
	jput_u64(e, "pinned_bytes_before", ev->ml.pinned_pages_before * PAGE_SZ);
	jput_u64(e, "pinned_pages_before", ev->ml.pinned_pages_before);
	jput_u64(e, "locked_bytes", ev->ml.locked_pages * PAGE_SZ);
	jput_u64(e, "requested_pages", ev->ml.requested_pages);
	jput_u64(e, "requested_bytes", ev->ml.requested_pages * PAGE_SZ);
	jput_bool(e, "cap_ipc_lock", ev->ml.cap_checked && ev->ml.cap_result);
	jput_bool(e, "cap_ipc_lock_checked", ev->ml.cap_checked);
	jput_u64(e, "live_mrs_seen", ev->ml.live_mrs);
	jput_u64(e, "live_pinned_bytes_seen", ev->ml.live_pages * PAGE_SZ);
}

/* The registration as the application asked for it: a dma-buf's attributes,
 * or the command's (or the call's) start, length, iova, access. */
void evidence_command(struct json_object *e, const struct mrt_event *ev, bool dmabuf)
{
	char acc[160];

	if (dmabuf) {
		jput_u64(e, "dmabuf_offset", ev->cmd_start);
		jput_u64(e, "dmabuf_length", ev->cmd_length);
		jput_u64(e, "dmabuf_iova", ev->cmd_iova);
	} else if (ev->cmd_valid) {
		jput_u64(e, "cmd_start", ev->cmd_start);
		jput_u64(e, "cmd_length", ev->cmd_length);
		jput_u64(e, "cmd_iova", ev->cmd_iova);
	} else {
		return;
	}
	jput_u64(e, "cmd_access", ev->cmd_access);
	jput_str(e, "cmd_access_names", access_names(ev->cmd_access, acc, sizeof(acc)));
}

/* What the decisive step says, by its site. */
void evidence_decisive(struct json_object *e, const struct report *r)
{
	const struct mrt_step *s;

	if (r->v.decisive_step < 0 || r->v.decisive_step >= MRT_TRAIL_MAX)
		return;
	s = &r->ev->steps[r->v.decisive_step];
	jput_str(e, "decisive_site", site_name(s->site));
	if (s->site == MRT_SITE_PIN) {
		jput_u64(e, "pin_addr", s->a0);
		if (s->a2 != MRT_VMA_UNKNOWN && s->a2 != MRT_VMA_NONE) {
			/* the kernel's flags, and mrtrace's mark apart */
			jput_u64(e, "vm_flags", s->a2 & ~MRT_VMA_FSDAX);
			jput_bool(e, "vma_fsdax", s->a2 & MRT_VMA_FSDAX);
		}
		jput_bool(e, "vma_present", s->a2 != MRT_VMA_NONE);
	} else if (s->site == MRT_SITE_MLX5_CMD) {
		jput_u64(e, "mlx5_opcode", s->a0);
		jput_u64(e, "mlx5_status", s->a1);
		jput_str(e, "mlx5_status_name", mlx5_status_name(s->a1));
		jput_u64(e, "mlx5_syndrome", s->a2);
	} else if (s->site == MRT_SITE_IOVA_ALLOC) {
		jput_u64(e, "iova_pages", s->a0);
		jput_u64(e, "iova_limit_pfn", s->a1);
	}
}

void evidence_ids(struct json_object *e, const struct mrt_event *ev)
{
	jput_u64(e, "cgroup_id", ev->cgroup_id);
	jput_u64(e, "userns_level", ev->userns_level);
}

unsigned long long evidence_reg_len(const struct mrt_event *ev)
{
	return ev->ml.valid ? ev->ml.len : ev->cmd_length;
}
