// SPDX-License-Identifier: GPL-2.0-only
/* call.c - "user_call": the libibverbs call behind a failure, as the
 * uprobes saw it or as it was made from the kernel's record, and back. */
#include "record/parts.h"

#include <string.h>

#include "verdict/explain.h"
#include "verdict/names.h"

struct json_object *call_to_json(const struct report *r, const struct mrt_event *u)
{
	struct json_object *o = json_object_new_object();
	char acc[160];

	if (u->opener != MRT_API_NONE) /* a call made from a kernel record may not know it */
		jput_str(o, "api", api_name(u->opener));
	jput_i64(o, "tid", u->tid);
	if (u->opener == MRT_API_REG_DMABUF_MR) {
		jput_u64(o, "offset", u->cmd_start);
		jput_i64(o, "fd", u->dmabuf_fd);
	} else {
		jput_u64(o, "addr", u->cmd_start);
	}
	jput_u64(o, "length", u->cmd_length);
	jput_u64(o, "iova", u->cmd_iova);
	jput_u64(o, "access", u->cmd_access);
	jput_str(o, "access_names", access_names(u->cmd_access, acc, sizeof(acc)));
	jput_bool(o, "reached_kernel", u->cmd_reached);
	if (u->cmd_reached)
		jput_str(o, "kernel_errno_name", errno_name(u->err));
	if (r->ua.resolved) {
		jput_bool(o, "via_nccl", r->ua.via_nccl);
		if (r->ua.caller[0])
			jput_str(o, "caller", r->ua.caller);
		jput_i64(o, "stack_frames", r->ua.frames);
	}
	return o;
}

int call_from_json(struct json_object *u, const struct mrt_event *ev, bool is_call, struct mrt_event *uev,
			  struct ustack_attr *ua, const struct jwhere *w)
{
	char s[64];
	long long v = 0;
	bool b = false;
	int rc;

	if (is_call) {
		*uev = *ev; /* the record is the call itself */
	} else {
		memset(uev, 0, sizeof(*uev));
		uev->kind = MRT_EV_USER_CALL;
		uev->pid = ev->pid;
		uev->tid = ev->tid;
		uev->uid = ev->uid;
		uev->ts_ns = ev->ts_ns;
		uev->cgroup_id = ev->cgroup_id;
		uev->userns_inum = ev->userns_inum;
		uev->userns_level = ev->userns_level;
		memcpy(uev->comm, ev->comm, sizeof(uev->comm));
		uev->err = ev->err;
		uev->cmd_valid = MRT_CMD_USER_CALL;
		uev->dmabuf_fd = -1;
		if ((rc = jget_str(u, "api", s, sizeof(s), w)) < 0)
			return -1;
		if (rc && api_from_name(s) < 0) {
			snprintf(w->err, w->errlen, "user_call.api: unknown call '%s'", s);
			return -1;
		}
		uev->opener = rc ? (unsigned int)api_from_name(s) : MRT_API_NONE;
		if ((rc = jget_i64(u, "tid", &v, w)) < 0)
			return -1;
		if (rc)
			uev->tid = (unsigned int)v;
		uint64_t start = 0, length = 0, iova = 0, access = 0;
		if (jget_u64(u, uev->opener == MRT_API_REG_DMABUF_MR ? "offset" : "addr", &start, w) < 0 ||
		    jget_u64(u, "length", &length, w) < 0 || jget_u64(u, "iova", &iova, w) < 0 ||
		    jget_u64(u, "access", &access, w) < 0)
			return -1;
		uev->cmd_start = start;
		uev->cmd_length = length;
		uev->cmd_iova = iova;
		uev->cmd_access = (unsigned int)access;
		if ((rc = jget_i64(u, "fd", &v, w)) < 0)
			return -1;
		if (rc)
			uev->dmabuf_fd = (int)v;
		if ((rc = jget_bool(u, "reached_kernel", &b, w)) < 0)
			return -1;
		uev->cmd_reached = rc && b;
		if ((rc = jget_str(u, "kernel_errno_name", s, sizeof(s), w)) < 0)
			return -1;
		if (rc && errno_from_name(s) > 0)
			uev->err = errno_from_name(s);
	}
	memset(ua, 0, sizeof(*ua));
	int frames;
	if ((rc = jget_bool(u, "via_nccl", &ua->via_nccl, w)) < 0 ||
	    jget_str(u, "caller", ua->caller, sizeof(ua->caller), w) < 0 ||
	    (frames = jget_i64(u, "stack_frames", &v, w)) < 0)
		return -1;
	ua->resolved = rc == 1; /* written only when the maps could be read */
	if (frames == 1)
		ua->frames = (int)v;
	return 0;
}

