// SPDX-License-Identifier: GPL-2.0-only
/* rlimit.c - the memlock limit change record (rlimit.h): not a failure, so
 * nothing to explain; written and printed as it comes, in JSON and in text
 * (a limit set just before a failure is half its story). */
#include "record/rlimit.h"
#include "record/kind.h"
#include "record/json_util.h"

#include <string.h>

#include "core/escape.h"
#include "core/units.h"

#include "verdict/explain.h"

void rlimit_from_event(const struct mrt_event *ev, struct rlimit_change *out)
{
	memset(out, 0, sizeof(*out));
	out->ts_ns = ev->ts_ns;
	out->pid = ev->pid;
	out->ns_pid = ev->ns_pid;
	memcpy(out->comm, ev->comm, sizeof(out->comm) - 1);
	out->syscall = (unsigned int)ev->syscall;
	out->target_pid = (long long)ev->cmd_start;
	out->soft = ev->sys_len;
	out->hard = ev->sys_arg;
	out->err = ev->err;
}

static unsigned long long rlimit_ts_ns(const struct record *rec)
{
	return ((const struct mrt_event *)rec->data)->ts_ns;
}

static struct json_object *rlimit_to_json(const struct record *rec)
{
	struct json_object *o = json_object_new_object();
	struct rlimit_change c;

	rlimit_from_event(rec->data, &c);
	jput_str(o, "event", rec->kind->event);
	jput_u64(o, "ts_ns", c.ts_ns);
	jput_i64(o, "pid", c.pid);
	if (c.ns_pid)
		jput_i64(o, "ns_pid", c.ns_pid);
	jput_str(o, "comm", c.comm);
	jput_i64(o, "target_pid", c.target_pid);
	jput_limit(o, "soft_bytes", c.soft);
	jput_limit(o, "hard_bytes", c.hard);
	jput_i64(o, "errno", c.err);
	return o;
}

static const char *limit_text(uint64_t v, char *buf, size_t len)
{
	return v == UINT64_MAX ? "unlimited" : fmt_bytes(v, buf, len);
}

/* "memlock limit set: pid 8904 (prlimit) for pid 77: soft 64 KiB, hard
 * 64 KiB" and, refused, ": refused (EPERM)"; then when and where. */
static bool rlimit_to_text(FILE *out, const struct record *rec, bool verbose, const char *when)
{
	struct rlimit_change c;
	char s[32], h[32], target[40] = "";

	(void)verbose;
	rlimit_from_event(rec->data, &c);
	if (c.target_pid && c.target_pid != c.pid)
		snprintf(target, sizeof(target), " for pid %lld", c.target_pid);
	fprintf(out, "memlock limit set: pid %u (%s)%s: soft %s, hard %s", c.pid, esc(c.comm), target,
		limit_text(c.soft, s, sizeof(s)), limit_text(c.hard, h, sizeof(h)));
	if (c.err)
		fprintf(out, ": refused (%s)", errno_name(c.err));
	if (when && *when)
		fprintf(out, ", at %s", esc(when));
	fputc('\n', out);
	fflush(out);
	return true;
}

const struct record_kind record_kind_rlimit = {
	.name = "memlock limit change",
	.event = "memlock_limit_set",
	.ring = MRT_EV_RLIMIT_SET,
	.ts_ns = rlimit_ts_ns,
	.to_json = rlimit_to_json,
	.to_text = rlimit_to_text,
	/* not read back: `mrtrace explain` has nothing to judge in it */
};
