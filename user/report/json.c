// SPDX-License-Identifier: GPL-2.0-only
/* json.c - one JSON object per event (docs/json.md), and back.
 *
 * "raw" carries every field of the kernel record, so an event written by
 * `mrtrace watch --json` can be replayed through the explanation engine
 * (tests/fixtures/trails, `mrtrace explain`). */
#include "report/report.h"
#include "report/failure_json.h"
#include "proc/facts_json.h"

#include <stdint.h>
#include <string.h>

/* the page size of the kernel that recorded the event in scope */
#define PAGE_SZ event_page_size(ev)
#define LEGACY_PAGE_SHIFT 12 /* recordings without page_shift: x86_64 */

static void add_u64(struct json_object *o, const char *k, unsigned long long v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_i64(struct json_object *o, const char *k, long long v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static void add_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

/* RLIM_INFINITY is written as null-free -1 would be ambiguous: use a string. */
static void add_limit(struct json_object *o, const char *k, unsigned long long v)
{
	if (v == ~0ULL)
		add_str(o, k, "unlimited");
	else
		add_u64(o, k, v);
}

struct json_object *trail_to_json(const struct mrt_event *ev)
{
	struct json_object *a = json_object_new_array();
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;

	for (int i = 0; i < n; i++) {
		const struct mrt_step *s = &ev->steps[i];
		struct json_object *o = json_object_new_object();
		add_str(o, "site", site_name(s->site));
		add_i64(o, "site_id", s->site);
		add_i64(o, "ret", s->ret);
		if (s->ret < 0)
			add_str(o, "errno_name", errno_name(-s->ret));
		add_u64(o, "a0", s->a0);
		add_u64(o, "a1", s->a1);
		add_u64(o, "a2", s->a2);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *raw_to_json(const struct mrt_event *ev)
{
	struct json_object *o = json_object_new_object(), *ml = json_object_new_object();
	struct json_object *steps = json_object_new_array();

	add_i64(o, "kind", ev->kind);
	add_i64(o, "pid", ev->pid);
	add_i64(o, "tid", ev->tid);
	add_i64(o, "uid", ev->uid);
	add_u64(o, "ts_ns", ev->ts_ns);
	add_u64(o, "cgroup_id", ev->cgroup_id);
	add_u64(o, "userns_inum", ev->userns_inum);
	add_u64(o, "userns_level", ev->userns_level);
	add_str(o, "comm", ev->comm);
	add_i64(o, "err", ev->err);
	add_i64(o, "opener", ev->opener);
	add_u64(o, "cmd_start", ev->cmd_start);
	add_u64(o, "cmd_length", ev->cmd_length);
	add_u64(o, "cmd_iova", ev->cmd_iova);
	add_u64(o, "cmd_access", ev->cmd_access);
	add_u64(o, "cmd_valid", ev->cmd_valid);
	add_i64(o, "dmabuf_fd", ev->dmabuf_fd);
	add_u64(o, "nsteps", ev->nsteps);
	add_u64(o, "sys_len", ev->sys_len);
	add_u64(o, "sys_arg", ev->sys_arg);
	add_i64(o, "sysno", ev->syscall); /* enum mrt_syscall */
	add_u64(o, "page_shift", ev->page_shift);
	add_i64(o, "cmd_reached", ev->cmd_reached);
	if (ev->ns_pid) {
		add_u64(o, "ns_pid", ev->ns_pid);
		add_u64(o, "ns_tid", ev->ns_tid);
	}
	add_u64(ml, "limit_cur", ev->ml.limit_cur);
	add_u64(ml, "limit_max", ev->ml.limit_max);
	add_u64(ml, "pinned_pages_before", ev->ml.pinned_pages_before);
	add_u64(ml, "locked_pages", ev->ml.locked_pages);
	add_u64(ml, "requested_pages", ev->ml.requested_pages);
	add_u64(ml, "addr", ev->ml.addr);
	add_u64(ml, "len", ev->ml.len);
	add_u64(ml, "access", ev->ml.access);
	add_u64(ml, "valid", ev->ml.valid);
	add_u64(ml, "cap_checked", ev->ml.cap_checked);
	add_u64(ml, "cap_result", ev->ml.cap_result);
	add_u64(ml, "live_mrs", ev->ml.live_mrs);
	add_u64(ml, "live_pages", ev->ml.live_pages);
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
	failure_raw_add(o, ev);
	return o;
}

static struct json_object *evidence_to_json(const struct report *r)
{
	const struct mrt_event *ev = r->ev;
	struct json_object *e = json_object_new_object();

	if (ev->ml.valid || ev->kind == MRT_EV_MLOCK_FAILURE) {
		add_limit(e, "memlock_limit_bytes", ev->ml.limit_cur);
		add_limit(e, "memlock_hard_limit_bytes", ev->ml.limit_max);
		add_u64(e, "pinned_bytes_before", ev->ml.pinned_pages_before * PAGE_SZ);
		add_u64(e, "pinned_pages_before", ev->ml.pinned_pages_before);
		add_u64(e, "locked_bytes", ev->ml.locked_pages * PAGE_SZ);
		add_u64(e, "requested_pages", ev->ml.requested_pages);
		add_u64(e, "requested_bytes", ev->ml.requested_pages * PAGE_SZ);
		add_bool(e, "cap_ipc_lock", ev->ml.cap_checked && ev->ml.cap_result);
		add_bool(e, "cap_ipc_lock_checked", ev->ml.cap_checked);
		add_u64(e, "live_mrs_seen", ev->ml.live_mrs);
		add_u64(e, "live_pinned_bytes_seen", ev->ml.live_pages * PAGE_SZ);
	}
	bool user_dmabuf = ev->kind == MRT_EV_USER_CALL && ev->opener == MRT_API_REG_DMABUF_MR;
	if (ev->cmd_valid == 2 || user_dmabuf) {
		char acc[160];
		add_u64(e, "dmabuf_offset", ev->cmd_start);
		add_u64(e, "dmabuf_length", ev->cmd_length);
		add_u64(e, "dmabuf_iova", ev->cmd_iova);
		add_u64(e, "cmd_access", ev->cmd_access);
		add_str(e, "cmd_access_names", access_names(ev->cmd_access, acc, sizeof(acc)));
	} else if (ev->cmd_valid) {
		char acc[160];
		add_u64(e, "cmd_start", ev->cmd_start);
		add_u64(e, "cmd_length", ev->cmd_length);
		add_u64(e, "cmd_iova", ev->cmd_iova);
		add_u64(e, "cmd_access", ev->cmd_access);
		add_str(e, "cmd_access_names", access_names(ev->cmd_access, acc, sizeof(acc)));
	}
	if ((ev->kind == MRT_EV_REG_FAILURE && ev->opener == MRT_SITE_UVERBS_REG_DMABUF) ||
	    user_dmabuf)
		add_i64(e, "dmabuf_fd", ev->dmabuf_fd);
	if (r->v.decisive_step >= 0 && r->v.decisive_step < MRT_TRAIL_MAX) {
		const struct mrt_step *s = &ev->steps[r->v.decisive_step];
		add_str(e, "decisive_site", site_name(s->site));
		if (s->site == MRT_SITE_PIN) {
			add_u64(e, "pin_addr", s->a0);
			if (s->a2 != MRT_VMA_UNKNOWN && s->a2 != MRT_VMA_NONE)
				add_u64(e, "vm_flags", s->a2);
			add_bool(e, "vma_present", s->a2 != MRT_VMA_NONE);
		} else if (s->site == MRT_SITE_MLX5_CMD) {
			add_u64(e, "mlx5_opcode", s->a0);
			add_u64(e, "mlx5_status", s->a1);
			add_str(e, "mlx5_status_name", mlx5_status_name(s->a1));
			add_u64(e, "mlx5_syndrome", s->a2);
		} else if (s->site == MRT_SITE_IOVA_ALLOC) {
			add_u64(e, "iova_pages", s->a0);
			add_u64(e, "iova_limit_pfn", s->a1);
		}
	}
	if (ev->kind == MRT_EV_MLOCK_FAILURE)
		add_u64(e, "mlock_len", ev->sys_len);
	add_u64(e, "cgroup_id", ev->cgroup_id);
	add_u64(e, "userns_level", ev->userns_level);
	return e;
}

static struct json_object *context_to_json(const struct proc_context *c)
{
	struct json_object *o = json_object_new_object();
	char chain[512];

	if (c->have & CTX_HAVE_EXE)
		add_str(o, "exe", c->exe);
	if (c->have & CTX_HAVE_CMDLINE)
		add_str(o, "cmdline", c->cmdline);
	if (c->have & CTX_HAVE_UID)
		add_i64(o, "uid", c->uid);
	if (c->have & CTX_HAVE_MEMLOCK)
		add_limit(o, "memlock_soft_bytes", c->memlock_soft);
	if (c->have & CTX_HAVE_MEMLOCK_HARD)
		add_limit(o, "memlock_hard_bytes", c->memlock_hard);
	if (c->have & CTX_HAVE_VMPIN)
		add_u64(o, "vm_pin_bytes", c->vm_pin);
	if (c->have & CTX_HAVE_VMLCK)
		add_u64(o, "vm_lck_bytes", c->vm_lck);
	if (c->have & CTX_HAVE_CAPS)
		add_bool(o, "cap_ipc_lock_effective", c->cap_ipc_lock);
	if (c->have & CTX_HAVE_USERNS)
		add_bool(o, "user_namespace", c->in_userns);
	if (c->have & CTX_HAVE_CGROUP) {
		add_str(o, "cgroup", c->cgroup_path);
		add_str(o, "runtime", ctx_runtime_name(c->runtime));
		if (c->container_id[0])
			add_str(o, "container_id", c->container_id);
		if (c->pod_uid[0])
			add_str(o, "pod_uid", c->pod_uid);
		if (c->systemd_unit[0])
			add_str(o, "systemd_unit", c->systemd_unit);
		if (c->slurm_job >= 0)
			add_i64(o, "slurm_job", c->slurm_job);
	}
	add_str(o, "setting", ctx_setting_name(proc_context_setting(c)));
	if (c->have & CTX_HAVE_LAUNCHERS)
		add_str(o, "launchers", proc_context_launcher_chain(c, chain, sizeof(chain)));
	return o;
}

static struct json_object *nccl_to_json(const struct nccl_info *n)
{
	struct json_object *o = json_object_new_object(), *set = json_object_new_object();
	struct json_object *src = json_object_new_object(), *lint = json_object_new_array();

	add_bool(o, "found", n->lib.found);
	if (n->lib.found)
		add_str(o, "library", n->lib.path);
	if (n->lib.version_known)
		add_str(o, "version", n->lib.version);
	if (n->rank.rank >= 0) {
		add_i64(o, "rank", n->rank.rank);
		add_str(o, "rank_variable", n->rank.rank_var);
	}
	for (int i = 0; i < n->settings.n; i++) {
		add_str(set, n->settings.v[i].name, n->settings.v[i].value);
		add_str(src, n->settings.v[i].name, nccl_source_name(n->settings.v[i].source));
	}
	json_object_object_add(o, "settings", set);
	json_object_object_add(o, "setting_sources", src);
	for (int i = 0; i < n->lint.n; i++) {
		struct json_object *f = json_object_new_object();
		add_str(f, "kind", nccl_lint_kind_name(n->lint.f[i].kind));
		add_str(f, "name", n->lint.f[i].name);
		add_str(f, "message", n->lint.f[i].message);
		json_object_array_add(lint, f);
	}
	json_object_object_add(o, "lint", lint);
	add_u64(o, "estimated_pinned_host_min_bytes", n->estimate.host_min);
	add_u64(o, "estimated_pinned_host_max_bytes", n->estimate.host_max);
	return o;
}

static struct json_object *user_call_to_json(const struct report *r, const struct mrt_event *u)
{
	struct json_object *o = json_object_new_object();
	char acc[160];

	if (u->opener != MRT_API_NONE) /* a call made from a kernel record may not know it */
		add_str(o, "api", api_name(u->opener));
	add_i64(o, "tid", u->tid);
	if (u->opener == MRT_API_REG_DMABUF_MR) {
		add_u64(o, "offset", u->cmd_start);
		add_i64(o, "fd", u->dmabuf_fd);
	} else {
		add_u64(o, "addr", u->cmd_start);
	}
	add_u64(o, "length", u->cmd_length);
	add_u64(o, "iova", u->cmd_iova);
	add_u64(o, "access", u->cmd_access);
	add_str(o, "access_names", access_names(u->cmd_access, acc, sizeof(acc)));
	add_bool(o, "reached_kernel", u->cmd_reached);
	if (u->cmd_reached)
		add_str(o, "kernel_errno_name", errno_name(u->err));
	if (r->ua.resolved) {
		add_bool(o, "via_nccl", r->ua.via_nccl);
		if (r->ua.caller[0])
			add_str(o, "caller", r->ua.caller);
		add_i64(o, "stack_frames", r->ua.frames);
	}
	return o;
}

struct json_object *report_to_json(const struct report *r)
{
	const struct mrt_event *ev = r->ev;
	struct json_object *o = json_object_new_object(), *fixes = json_object_new_array();
	struct json_object *details = json_object_new_array();

	switch (ev->kind) {
	case MRT_EV_MLOCK_FAILURE: add_str(o, "event", "mlock_failure"); break;
	case MRT_EV_FAILURE: add_str(o, "event", "failure"); break;
	default: add_str(o, "event", "reg_failure"); break;
	}
	if (ev->kind == MRT_EV_FAILURE)
		add_str(o, "op", op_name(ev->op));
	add_u64(o, "ts_ns", ev->ts_ns);
	add_i64(o, "pid", ev->pid);
	add_i64(o, "tid", ev->tid);
	if (ev->ns_pid) { /* as the process's own pid namespace numbers them */
		add_i64(o, "ns_pid", ev->ns_pid);
		add_i64(o, "ns_tid", ev->ns_tid);
	}
	if (r->count) { /* a storm's summary: absent means 1 */
		add_u64(o, "count", r->count);
		add_u64(o, "first_ts_ns", r->first_ts_ns);
		add_u64(o, "last_ts_ns", r->last_ts_ns);
	}
	add_str(o, "comm", ev->comm);
	add_i64(o, "uid", ev->uid);
	add_str(o, "api", r->api);
	add_i64(o, "errno", r->v.err);
	add_str(o, "errno_name", errno_name(r->v.err));
	add_str(o, "cause", cause_name(r->v.cause));
	add_str(o, "class", cause_class_name(cause_class(r->v.cause, ev->op)));
	add_str(o, "certainty", r->v.certainty == CERT_PROVEN ? "proven" : "inferred");
	add_bool(o, "harmless", r->v.harmless);
	if (ev->kind == MRT_EV_MLOCK_FAILURE)
		add_u64(o, "len", ev->sys_len);
	else if (ev->kind == MRT_EV_USER_CALL)
		add_u64(o, "len", ev->cmd_length);
	else if (ev->ml.valid)
		add_u64(o, "len", ev->ml.len);
	else
		add_u64(o, "len", ev->cmd_length);
	if (ev->ml.valid)
		add_u64(o, "addr", ev->ml.addr);
	else if (ev->cmd_valid)
		add_u64(o, "addr", ev->cmd_start);
	struct json_object *evidence = evidence_to_json(r);
	if (ev->kind == MRT_EV_FAILURE)
		failure_evidence_add(evidence, ev, r->have_gates ? &r->gates : NULL);
	facts_evidence_add(evidence, r->have_gates ? &r->gates : NULL, r->nccl);
	json_object_object_add(o, "evidence", evidence);
	add_str(o, "summary", r->v.summary);
	add_str(o, "explanation", r->v.explanation);
	for (int i = 0; i < r->v.fixes.n; i++) {
		struct json_object *d = json_object_new_object();
		json_object_array_add(fixes, json_object_new_string(r->v.fixes.items[i].text));
		add_str(d, "kind", fix_kind_name(r->v.fixes.items[i].kind));
		add_str(d, "text", r->v.fixes.items[i].text);
		json_object_array_add(details, d);
	}
	json_object_object_add(o, "fixes", fixes);
	json_object_object_add(o, "fix_details", details);
	json_object_object_add(o, "trail", trail_to_json(ev));
	if (r->uev)
		json_object_object_add(o, "user_call", user_call_to_json(r, r->uev));
	if (ev->nsteps > MRT_TRAIL_MAX)
		add_u64(o, "trail_lost_steps", ev->nsteps - MRT_TRAIL_MAX);
	if (r->ctx)
		json_object_object_add(o, "process", context_to_json(r->ctx));
	if (r->nccl && r->nccl->lib.found)
		json_object_object_add(o, "nccl", nccl_to_json(r->nccl));
	json_object_object_add(o, "raw", raw_to_json(ev));
	return o;
}

/* ---- replay ---------------------------------------------------------------- */

static int get_u64(struct json_object *o, const char *k, unsigned long long *v, char *err,
		   size_t errlen)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    (!json_object_is_type(x, json_type_int) && !json_object_is_type(x, json_type_double))) {
		snprintf(err, errlen, "raw.%s: missing or not a number", k);
		return -1;
	}
	*v = json_object_get_uint64(x);
	if (json_object_get_int64(x) < 0)
		*v = (unsigned long long)json_object_get_int64(x);
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

int event_from_json(struct json_object *obj, struct mrt_event *ev, char *err, size_t errlen)
{
	struct json_object *raw = obj, *ml, *steps, *x;
	unsigned long long v;

	memset(ev, 0, sizeof(*ev));
	if (json_object_object_get_ex(obj, "raw", &x))
		raw = x;
#define U(field, key)                                   \
	do {                                            \
		if (get_u64(raw, key, &v, err, errlen)) \
			return -1;                      \
		ev->field = v;                          \
	} while (0)
	U(kind, "kind");
	U(pid, "pid");
	U(tid, "tid");
	U(uid, "uid");
	U(ts_ns, "ts_ns");
	U(cgroup_id, "cgroup_id");
	U(userns_inum, "userns_inum");
	U(userns_level, "userns_level");
	U(err, "err");
	U(opener, "opener");
	U(cmd_start, "cmd_start");
	U(cmd_length, "cmd_length");
	U(cmd_iova, "cmd_iova");
	U(cmd_access, "cmd_access");
	U(cmd_valid, "cmd_valid");
	U(dmabuf_fd, "dmabuf_fd");
	U(nsteps, "nsteps");
	U(sys_len, "sys_len");
	U(sys_arg, "sys_arg");
	U(syscall, "sysno");
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
	if (json_object_object_get_ex(raw, "ns_pid", &x))
		ev->ns_pid = json_object_get_int64(x);
	if (json_object_object_get_ex(raw, "ns_tid", &x))
		ev->ns_tid = json_object_get_int64(x);
	if (json_object_object_get_ex(raw, "comm", &x) && json_object_is_type(x, json_type_string))
		snprintf(ev->comm, sizeof(ev->comm), "%s", json_object_get_string(x));
	if (!json_object_object_get_ex(raw, "ml", &ml) || !json_object_is_type(ml, json_type_object)) {
		snprintf(err, errlen, "raw.ml: missing or not an object");
		return -1;
	}
	raw = ml;
	U(ml.limit_cur, "limit_cur");
	U(ml.limit_max, "limit_max");
	U(ml.pinned_pages_before, "pinned_pages_before");
	U(ml.locked_pages, "locked_pages");
	U(ml.requested_pages, "requested_pages");
	U(ml.addr, "addr");
	U(ml.len, "len");
	U(ml.access, "access");
	U(ml.valid, "valid");
	U(ml.cap_checked, "cap_checked");
	U(ml.cap_result, "cap_result");
	U(ml.live_mrs, "live_mrs");
	U(ml.live_pages, "live_pages");
#undef U
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
	return failure_raw_read(raw, ev, err, errlen);
}

bool report_gates_from_json(struct json_object *obj, struct gate_facts *g)
{
	struct json_object *e, *x;
	bool found = json_object_object_get_ex(obj, "evidence", &e) &&
				     json_object_object_get_ex(e, "gates", &x)
			     ? gates_from_json(x, g)
			     : gates_from_json(NULL, g);
	return facts_evidence_read(obj, g) || found;
}
