// SPDX-License-Identifier: GPL-2.0-only
/* output.c - text and JSON output (see output.h). */
#include "output.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "access.h"
#include "core/units.h"

const char *mp_errno_name(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "E?";
}

/* Limits print "unlimited" as text and -1 in JSON (no 64-bit precision loss). */
static int64_t json_limit(uint64_t v)
{
	return v == UINT64_MAX ? -1 : (int64_t)v;
}

static void emit(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
	json_object_put(o);
}

static void add_int(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static void add_bool(json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static json_object *event(const char *name)
{
	json_object *o = json_object_new_object();
	add_str(o, "event", name);
	return o;
}

static void add_proc_state(json_object *o, const struct proc_state *ps)
{
	add_int(o, "memlock_limit_bytes", json_limit(ps->memlock_soft));
	add_int(o, "memlock_hard_bytes", json_limit(ps->memlock_hard));
	add_bool(o, "cap_ipc_lock", ps->cap_ipc_lock);
	add_bool(o, "user_namespace", ps->user_ns);
	add_int(o, "vmpin_bytes", ps->vmpin_bytes);
	add_int(o, "uid", ps->uid);
}

/* "64 KiB (hard 64 KiB), CAP_IPC_LOCK no, VmPin 0 B" */
static void print_limits(const struct proc_state *ps)
{
	char soft[32], hard[32], pin[32];
	printf("RLIMIT_MEMLOCK %s (hard %s), CAP_IPC_LOCK %s, already pinned (VmPin) %s",
	       fmt_bytes(ps->memlock_soft, soft, sizeof(soft)),
	       fmt_bytes(ps->memlock_hard, hard, sizeof(hard)),
	       !ps->cap_ipc_lock ? "no"
	       : ps->user_ns     ? "yes, but in a user namespace where it does not count"
				 : "yes (the limit does not apply)",
	       ps->vmpin_bytes < 0 ? "unknown" : fmt_bytes((uint64_t)ps->vmpin_bytes, pin, sizeof(pin)));
}

void mp_report_setup(bool json, const struct setup_report *s)
{
	char acc[160];
	mp_access_format(s->access, acc, sizeof(acc));
	if (json) {
		json_object *o = event("setup");
		add_str(o, "device", s->device);
		add_str(o, "api", mp_api_name(s->api));
		add_int(o, "access", s->access);
		add_str(o, "access_names", acc);
		add_str(o, "mem", mp_mem_name(s->mem));
		add_bool(o, "thread", s->thread);
		add_int(o, "pid", getpid());
		add_proc_state(o, &s->ps);
		add_int(o, "planned", s->planned);
		add_int(o, "planned_bytes", (int64_t)s->planned_bytes);
		add_str(o, "plan", s->plan_text);
		emit(o);
		return;
	}
	printf("mrprobe: device %s, %s, access %s (0x%x), memory %s%s\n", s->device, mp_api_name(s->api),
	       acc, s->access, mp_mem_name(s->mem), s->thread ? ", registering from a second thread" : "");
	printf("mrprobe: pid %d uid %d, ", (int)getpid(), (int)s->ps.uid);
	print_limits(&s->ps);
	printf("\nmrprobe: plan: %s\n", s->plan_text);
	fflush(stdout);
}

void mp_report_note(bool json, const char *text)
{
	if (json) {
		json_object *o = event("note");
		add_str(o, "text", text);
		emit(o);
		return;
	}
	printf("note: %s\n", text);
	fflush(stdout);
}

void mp_report_mr(bool json, const struct mr_report *m)
{
	char acc[160], len[32], pages[48], cum[32];
	if (json) {
		json_object *o = event(m->trial ? "trial" : "mr");
		add_int(o, "index", m->index);
		if (m->label && *m->label)
			add_str(o, "label", m->label);
		add_str(o, "api", mp_api_name(m->api));
		add_str(o, "mem", mp_mem_name(m->mem));
		add_int(o, "addr", (int64_t)m->addr);
		add_int(o, "len", (int64_t)m->len);
		add_int(o, "pages", (int64_t)m->pages);
		if (m->api != API_REG_MR)
			add_int(o, "iova", (int64_t)m->iova);
		if (m->api == API_DMABUF)
			add_int(o, "dmabuf_fd", m->dmabuf_fd);
		add_int(o, "access", m->access);
		add_str(o, "access_names", mp_access_format(m->access, acc, sizeof(acc)));
		add_str(o, "result", m->err ? "FAIL" : "OK");
		add_int(o, "errno", m->err);
		add_str(o, "errno_name", m->err ? mp_errno_name(m->err) : NULL);
		add_str(o, "strerror", m->err ? strerror(m->err) : NULL);
		if (!m->err)
			add_int(o, "lkey", m->lkey);
		add_int(o, "cumulative_bytes", (int64_t)m->cumulative_bytes);
		add_int(o, "vmpin_bytes", m->vmpin_bytes);
		add_int(o, "pid", getpid());
		add_int(o, "tid", m->tid);
		emit(o);
		return;
	}
	fmt_bytes(m->len, len, sizeof(len));
	snprintf(pages, sizeof(pages), "(%llu page%s)", (unsigned long long)m->pages,
		 m->pages == 1 ? "" : "s");
	if (m->trial)
		printf("trial %-10s %-15s ", len, pages);
	else
		printf("#%-4u %10s %-15s cumulative %-10s ", m->index, len, pages,
		       fmt_bytes(m->cumulative_bytes, cum, sizeof(cum)));
	if (m->err)
		printf("FAIL %s (%d) %s", mp_errno_name(m->err), m->err, strerror(m->err));
	else
		printf("OK   lkey 0x%x", m->lkey);
	/* NCCL mode mixes host and GPU buffers: say which each one is. */
	if (m->label && *m->label)
		printf("  [%s, %s]", m->label, mp_mem_name(m->mem));
	putchar('\n');
	fflush(stdout);
}

void mp_report_find_max(bool json, const struct findmax_report *f)
{
	uint64_t max = f->r.max_pages * f->page;
	uint64_t before = f->pinned_before > 0 ? (uint64_t)f->pinned_before : 0;
	if (json) {
		json_object *o = event("find_max");
		add_int(o, "max_bytes", (int64_t)max);
		add_int(o, "max_pages", (int64_t)f->r.max_pages);
		add_int(o, "fail_pages", (int64_t)f->r.fail_pages);
		add_int(o, "fail_errno", f->r.fail_errno);
		add_str(o, "fail_errno_name", f->r.fail_errno ? mp_errno_name(f->r.fail_errno) : NULL);
		add_bool(o, "hit_cap", f->r.hit_cap);
		add_int(o, "cap_bytes", (int64_t)f->cap_bytes);
		add_int(o, "trials", f->r.trials);
		add_int(o, "pinned_before_bytes", f->pinned_before);
		add_int(o, "total_bytes", (int64_t)(before + max));
		add_int(o, "page_size", (int64_t)f->page);
		add_proc_state(o, &f->ps);
		emit(o);
		return;
	}
	char a[32], b[32], c[32], d[48];
	if (f->r.hit_cap)
		printf("find-max: every size up to the cap of %s registered; the limit lies beyond "
		       "(raise the cap with --size)\n",
		       fmt_bytes(f->cap_bytes, a, sizeof(a)));
	else if (f->r.max_pages == 0)
		printf("find-max: not even one page registers: %s (%d) %s\n", mp_errno_name(f->r.fail_errno),
		       f->r.fail_errno, strerror(f->r.fail_errno));
	else
		printf("find-max: largest registration %s; one page more fails with %s (%d) %s\n",
		       fmt_pages(f->r.max_pages, f->page, d, sizeof(d)), mp_errno_name(f->r.fail_errno),
		       f->r.fail_errno, strerror(f->r.fail_errno));
	printf("find-max: %s already pinned + %s = %s in total, against RLIMIT_MEMLOCK %s%s; %u trial%s\n",
	       fmt_bytes(before, a, sizeof(a)), fmt_bytes(max, b, sizeof(b)),
	       fmt_bytes(before + max, c, sizeof(c)), fmt_bytes(f->ps.memlock_soft, d, sizeof(d)),
	       f->ps.cap_ipc_lock && !f->ps.user_ns ? " (not enforced: CAP_IPC_LOCK)" : "", f->r.trials,
	       f->r.trials == 1 ? "" : "s");
	fflush(stdout);
}

void mp_report_summary(bool json, const struct summary_report *s)
{
	if (json) {
		json_object *o = event("summary");
		add_int(o, "planned", s->planned);
		add_int(o, "attempted", s->attempted);
		add_int(o, "ok", s->ok);
		add_int(o, "failed", s->failed);
		add_int(o, "trials", s->trials);
		add_int(o, "first_fail_index", s->first_fail_index);
		add_str(o, "first_errno_name", s->failed ? mp_errno_name(s->first_errno) : NULL);
		add_int(o, "first_errno", s->first_errno);
		add_bool(o, "stopped_early", s->stopped_early);
		add_int(o, "cumulative_bytes", (int64_t)s->cumulative_bytes);
		add_proc_state(o, &s->ps);
		add_int(o, "exit_status", s->exit_status);
		emit(o);
		return;
	}
	char cum[32];
	if (s->trials)
		printf("summary: %u trial registration%s, none kept; ", s->trials, s->trials == 1 ? "" : "s");
	else {
		printf("summary: %u of %u registrations OK, %u failed", s->ok, s->planned, s->failed);
		if (s->failed)
			printf(" (first: #%d %s)", s->first_fail_index, mp_errno_name(s->first_errno));
		printf("; live MRs pin %s; ", fmt_bytes(s->cumulative_bytes, cum, sizeof(cum)));
	}
	print_limits(&s->ps);
	putchar('\n');
	if (s->stopped_early)
		printf("summary: stopped at the first failure, as NCCL does (--keep-going tries the rest)\n");
	fflush(stdout);
}

void mp_report_hold(bool json, double seconds, unsigned mrs, uint64_t cumulative_bytes)
{
	char cum[32];
	if (json) {
		json_object *o = event("hold");
		add_int(o, "pid", getpid());
		json_object_object_add(o, "seconds", json_object_new_double(seconds));
		add_int(o, "mrs", mrs);
		add_int(o, "cumulative_bytes", (int64_t)cumulative_bytes);
		emit(o);
		return;
	}
	printf("holding %u MR%s (%s pinned) for %g s in pid %d; Ctrl-C releases them\n", mrs,
	       mrs == 1 ? "" : "s", fmt_bytes(cumulative_bytes, cum, sizeof(cum)), seconds, (int)getpid());
	fflush(stdout);
}

void mp_report_error(bool json, const char *stage, const char *text)
{
	fprintf(stderr, "mrprobe: %s\n", text);
	if (json) {
		json_object *o = event("error");
		add_str(o, "stage", stage);
		add_str(o, "message", text);
		emit(o);
	}
}
