// SPDX-License-Identifier: GPL-2.0-only
/* raw.c - "raw": every field of the kernel's struct mrt_event (bpf/mrtrace.h)
 * but the user stack, so a line `mrtrace watch --json` wrote replays
 * through the explanation engine (tests/fixtures/trails, `mrtrace
 * explain`), and back with every member checked; and "trail", the sites a
 * registration passed through, for people and tools. */
#include "record/parts.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/args.h"
#include "verdict/explain.h"

#define LEGACY_PAGE_SHIFT 12 /* recordings without page_shift: x86_64 */

struct json_object *record_trail_json(const struct mrt_event *ev)
{
	struct json_object *a = json_object_new_array();
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;

	for (int i = 0; i < n; i++) {
		const struct mrt_step *s = &ev->steps[i];
		struct json_object *o = json_object_new_object();
		jput_str(o, "site", site_name(s->site));
		jput_i64(o, "site_id", s->site);
		jput_i64(o, "ret", s->ret);
		if (s->ret < 0)
			jput_str(o, "errno_name", errno_name(-s->ret));
		jput_u64(o, "a0", s->a0);
		jput_u64(o, "a1", s->a1);
		jput_u64(o, "a2", s->a2);
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *raw_to_json(const struct mrt_event *ev)
{
	struct json_object *o = json_object_new_object(), *ml = json_object_new_object();
	struct json_object *steps = json_object_new_array();

	jput_i64(o, "kind", ev->kind);
	jput_i64(o, "pid", ev->pid);
	jput_i64(o, "tid", ev->tid);
	jput_i64(o, "uid", ev->uid);
	jput_u64(o, "ts_ns", ev->ts_ns);
	jput_u64(o, "cgroup_id", ev->cgroup_id);
	jput_u64(o, "userns_inum", ev->userns_inum);
	jput_u64(o, "userns_level", ev->userns_level);
	jput_str(o, "comm", ev->comm);
	jput_i64(o, "err", ev->err);
	jput_i64(o, "opener", ev->opener);
	jput_u64(o, "cmd_start", ev->cmd_start);
	jput_u64(o, "cmd_length", ev->cmd_length);
	jput_u64(o, "cmd_iova", ev->cmd_iova);
	jput_u64(o, "cmd_access", ev->cmd_access);
	jput_u64(o, "cmd_valid", ev->cmd_valid);
	jput_i64(o, "dmabuf_fd", ev->dmabuf_fd);
	jput_u64(o, "nsteps", ev->nsteps);
	jput_u64(o, "sys_len", ev->sys_len);
	jput_u64(o, "sys_arg", ev->sys_arg);
	jput_i64(o, "sysno", ev->syscall); /* enum mrt_syscall */
	jput_u64(o, "page_shift", ev->page_shift);
	jput_i64(o, "cmd_reached", ev->cmd_reached);
	if (ev->ns_pid) {
		jput_u64(o, "ns_pid", ev->ns_pid);
		jput_u64(o, "ns_tid", ev->ns_tid);
	}
	if (ev->vma_dev || ev->vma_ino) {
		/* the fs-dax file the kernel named: [s_dev, inode, name] */
		struct json_object *f = json_object_new_array();
		char name[sizeof(ev->vma_name) + 1];
		snprintf(name, sizeof(name), "%.*s", (int)sizeof(ev->vma_name), ev->vma_name);
		json_object_array_add(f, json_object_new_uint64(ev->vma_dev));
		json_object_array_add(f, json_object_new_uint64(ev->vma_ino));
		json_object_array_add(f, json_object_new_string(name));
		json_object_object_add(o, "vma_file", f);
	}
	jput_u64(ml, "limit_cur", ev->ml.limit_cur);
	jput_u64(ml, "limit_max", ev->ml.limit_max);
	jput_u64(ml, "pinned_pages_before", ev->ml.pinned_pages_before);
	jput_u64(ml, "locked_pages", ev->ml.locked_pages);
	jput_u64(ml, "requested_pages", ev->ml.requested_pages);
	jput_u64(ml, "addr", ev->ml.addr);
	jput_u64(ml, "len", ev->ml.len);
	jput_u64(ml, "access", ev->ml.access);
	jput_u64(ml, "valid", ev->ml.valid);
	jput_u64(ml, "cap_checked", ev->ml.cap_checked);
	jput_u64(ml, "cap_result", ev->ml.cap_result);
	jput_u64(ml, "live_mrs", ev->ml.live_mrs);
	jput_u64(ml, "live_pages", ev->ml.live_pages);
	json_object_object_add(o, "ml", ml);
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;
	for (int i = 0; i < n; i++) {
		struct json_object *s = json_object_new_array();
		json_object_array_add(s, json_object_new_int64(ev->steps[i].site));
		json_object_array_add(s, json_object_new_int64(ev->steps[i].ret));
		json_object_array_add(s, json_object_new_uint64(ev->steps[i].a0));
		json_object_array_add(s, json_object_new_uint64(ev->steps[i].a1));
		json_object_array_add(s, json_object_new_uint64(ev->steps[i].a2));
		json_object_array_add(steps, s);
	}
	json_object_object_add(o, "steps", steps);
	gates_raw_add(o, ev);
	return o;
}

/* ---- back from JSON ------------------------------------------------------- */

/* A member of "raw" (prefix "raw") or "raw.ml": a number within what the
 * kernel's field can hold and the kernel can have written (issue 24 row
 * 14: a pid of -5 printed as 4294967291, a tid of 2^40 as 0).  Negative
 * values are kept two's-complement in *v for the signed fields. */
static int get_num(struct json_object *o, const char *prefix, const char *k, long long min,
		   unsigned long long max, unsigned long long *v, char *err, size_t errlen)
{
	struct json_object *x;
	bool neg;

	if (!json_object_object_get_ex(o, k, &x) ||
	    (!json_object_is_type(x, json_type_int) && !json_object_is_type(x, json_type_double))) {
		snprintf(err, errlen, "%s.%s: missing or not a number", prefix, k);
		return -1;
	}
	if (json_object_is_type(x, json_type_double)) {
		double d = json_object_get_double(x);
		neg = d < 0;
		if (!(d > -9.3e18 && d < 1.8e19)) { /* also nan */
			snprintf(err, errlen, "%s.%s: not a 64-bit number", prefix, k);
			return -1;
		}
		*v = neg ? (unsigned long long)(long long)d : (unsigned long long)d;
	} else {
		neg = json_object_get_int64(x) < 0;
		*v = neg ? (unsigned long long)json_object_get_int64(x) : json_object_get_uint64(x);
	}
	if (neg ? (long long)*v < min : *v > max) {
		snprintf(err, errlen, "%s.%s: %s%llu is out of range (%lld..%llu)", prefix, k,
			 neg ? "-" : "", neg ? 0ULL - *v : *v, min, max);
		return -1;
	}
	return 0;
}

/* Recordings made before mrtrace numbered the syscalls itself carry x86_64
 * syscall numbers (the only architecture recorded then). */
static int syscall_from_json(int v)
{
	switch (v) {
	case 149: return MRT_SYS_MLOCK;
	case 325: return MRT_SYS_MLOCK2;
	case 151: return MRT_SYS_MLOCKALL;
	case 160: return MRT_SYS_SETRLIMIT;
	case 302: return MRT_SYS_PRLIMIT64;
	default: return v;
	}
}

int record_raw_from_json(struct json_object *obj, struct mrt_event *ev, char *err, size_t errlen)
{
	struct json_object *raw = obj, *ml, *steps, *x;
	unsigned long long v;

	memset(ev, 0, sizeof(*ev));
	if (json_object_object_get_ex(obj, "raw", &x))
		raw = x;
#define N(field, key, min, max)                                         \
	do {                                                            \
		if (get_num(raw, prefix, key, min, max, &v, err, errlen)) \
			return -1;                                      \
		ev->field = v;                                          \
	} while (0)
	const char *prefix = "raw";
	N(kind, "kind", 0, UINT32_MAX);
	N(pid, "pid", 0, ARGS_PID_MAX);
	N(tid, "tid", 0, ARGS_PID_MAX);
	N(uid, "uid", 0, UINT32_MAX);
	N(ts_ns, "ts_ns", 0, UINT64_MAX);
	N(cgroup_id, "cgroup_id", 0, UINT64_MAX);
	N(userns_inum, "userns_inum", 0, UINT32_MAX);
	N(userns_level, "userns_level", 0, UINT32_MAX);
	N(err, "err", 0, 4095); /* a positive errno */
	N(opener, "opener", 0, UINT32_MAX);
	N(cmd_start, "cmd_start", 0, UINT64_MAX);
	N(cmd_length, "cmd_length", 0, UINT64_MAX);
	N(cmd_iova, "cmd_iova", 0, UINT64_MAX);
	N(cmd_access, "cmd_access", 0, UINT32_MAX);
	N(cmd_valid, "cmd_valid", 0, UINT32_MAX);
	N(dmabuf_fd, "dmabuf_fd", INT32_MIN, INT32_MAX);
	N(nsteps, "nsteps", 0, UINT32_MAX);
	N(sys_len, "sys_len", 0, UINT64_MAX);
	N(sys_arg, "sys_arg", 0, UINT64_MAX);
	N(syscall, "sysno", INT32_MIN, INT32_MAX);
	ev->syscall = syscall_from_json(ev->syscall);
	/* recordings made before the record carried it come from x86_64 */
	ev->page_shift = LEGACY_PAGE_SHIFT;
	if (json_object_object_get_ex(raw, "page_shift", &x)) {
		/* 4 KiB to 64 KiB pages: every kernel mrtrace runs on (a shift
		 * past 63 would be undefined where sizes are computed); 0 in a
		 * record no kernel site filled (a libibverbs call alone) */
		long long v = json_object_is_type(x, json_type_int) ? json_object_get_int64(x) : -1;
		if (v != 0 && (v < 12 || v > 16)) {
			snprintf(err, errlen,
				 "raw.page_shift: must be 12..16 (4 KiB to 64 KiB pages), or 0");
			return -1;
		}
		ev->page_shift = json_object_get_int(x);
	}
	if (json_object_object_get_ex(raw, "cmd_reached", &x))
		ev->cmd_reached = json_object_get_int(x);
	/* as the process's own pid namespace numbers them: pids too */
	if (json_object_object_get_ex(raw, "ns_pid", &x))
		N(ns_pid, "ns_pid", 0, ARGS_PID_MAX);
	if (json_object_object_get_ex(raw, "ns_tid", &x))
		N(ns_tid, "ns_tid", 0, ARGS_PID_MAX);
	if (json_object_object_get_ex(raw, "comm", &x) && json_object_is_type(x, json_type_string))
		jcopy_str(ev->comm, sizeof(ev->comm), json_object_get_string(x));
	if (json_object_object_get_ex(raw, "vma_file", &x)) {
		bool triple = json_object_is_type(x, json_type_array) && json_object_array_length(x) == 3;
		struct json_object *d = triple ? json_object_array_get_idx(x, 0) : NULL;
		struct json_object *i = triple ? json_object_array_get_idx(x, 1) : NULL;
		struct json_object *nm = triple ? json_object_array_get_idx(x, 2) : NULL;
		if (!triple || !json_object_is_type(d, json_type_int) || !json_object_is_type(i, json_type_int) ||
		    !json_object_is_type(nm, json_type_string)) {
			snprintf(err, errlen, "raw.vma_file: expected [s_dev, inode, name]");
			return -1;
		}
		ev->vma_dev = json_object_get_uint64(d);
		ev->vma_ino = json_object_get_uint64(i);
		jcopy_str(ev->vma_name, sizeof(ev->vma_name), json_object_get_string(nm));
	}
	if (!json_object_object_get_ex(raw, "ml", &ml) || !json_object_is_type(ml, json_type_object)) {
		snprintf(err, errlen, "raw.ml: missing or not an object");
		return -1;
	}
	raw = ml;
	prefix = "raw.ml";
	/* pages in bytes must fit 64 bits, the pinned and the requested
	 * together too (page_shift 16 with 2^60 pages was "needs 0 B, over
	 * by 16.0 EiB") */
	const unsigned long long max_pages = UINT64_MAX / event_page_size(ev);
	N(ml.limit_cur, "limit_cur", 0, UINT64_MAX);
	N(ml.limit_max, "limit_max", 0, UINT64_MAX);
	N(ml.pinned_pages_before, "pinned_pages_before", 0, max_pages);
	N(ml.locked_pages, "locked_pages", 0, max_pages);
	N(ml.requested_pages, "requested_pages", 0, max_pages - ev->ml.pinned_pages_before);
	N(ml.addr, "addr", 0, UINT64_MAX);
	N(ml.len, "len", 0, UINT64_MAX);
	N(ml.access, "access", 0, UINT32_MAX);
	N(ml.valid, "valid", 0, UINT8_MAX);
	N(ml.cap_checked, "cap_checked", 0, UINT8_MAX);
	N(ml.cap_result, "cap_result", 0, UINT8_MAX);
	N(ml.live_mrs, "live_mrs", 0, UINT32_MAX);
	N(ml.live_pages, "live_pages", 0, max_pages);
#undef N
	raw = json_object_object_get_ex(obj, "raw", &x) ? x : obj;
	if (!json_object_object_get_ex(raw, "steps", &steps) ||
	    !json_object_is_type(steps, json_type_array)) {
		snprintf(err, errlen, "raw.steps: missing or not an array");
		return -1;
	}
	size_t n = json_object_array_length(steps);
	for (size_t i = 0; i < n && i < MRT_TRAIL_MAX; i++) {
		struct json_object *s = json_object_array_get_idx(steps, i);
		if (!json_object_is_type(s, json_type_array) || json_object_array_length(s) != 5) {
			snprintf(err, errlen, "raw.steps[%zu]: expected [site, ret, a0, a1, a2]", i);
			return -1;
		}
		struct json_object *site = json_object_array_get_idx(s, 0);
		struct json_object *ret = json_object_array_get_idx(s, 1);
		/* A kernel return is an errno (-4095..-1), a count or a flag:
		 * anything else is not a record watch wrote (and INT_MIN would
		 * overflow where the text negates it for errno_name). */
		if (!json_object_is_type(site, json_type_int) ||
		    json_object_get_int64(site) < 0 || json_object_get_int64(site) >= MRT_SITE_MAX ||
		    !json_object_is_type(ret, json_type_int) ||
		    json_object_get_int64(ret) < -4095 || json_object_get_int64(ret) > INT32_MAX) {
			snprintf(err, errlen,
				 "raw.steps[%zu]: site must be 0..%d and ret -4095..%d", i,
				 MRT_SITE_MAX - 1, INT32_MAX);
			return -1;
		}
		ev->steps[i].site = (int)json_object_get_int64(site);
		ev->steps[i].ret = (int)json_object_get_int64(ret);
		ev->steps[i].a0 = json_object_get_uint64(json_object_array_get_idx(s, 2));
		ev->steps[i].a1 = json_object_get_uint64(json_object_array_get_idx(s, 3));
		ev->steps[i].a2 = json_object_get_uint64(json_object_array_get_idx(s, 4));
		ev->steps[i].flags = MRT_STEP_EXITED;
	}
	if (ev->nsteps < n)
		ev->nsteps = n;
	return gates_raw_read(raw, ev, err, errlen);
}
