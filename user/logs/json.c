// SPDX-License-Identifier: GPL-2.0-only
/* json.c - JSON lines: mrtrace's own records (`schema` "mrtrace-...")
 * and journald's export (`journalctl -o json`): an entry with MRTRACE_*
 * fields is mrtrace's (handed over whole), a kernel entry
 * (_TRANSPORT=kernel) or any other MESSAGE is read as the line it holds,
 * with _HOSTNAME, _PID and __REALTIME_TIMESTAMP as who and when. */
#include "logs/parse.h"
#include "proc/jobclaim.h"

#include <stdio.h>
#include <string.h>

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

static bool has_mrtrace_field(struct json_object *o)
{
	json_object_object_foreach(o, k, v) {
		(void)v;
		if (!strncmp(k, "MRTRACE_", 8))
			return true;
	}
	return false;
}

/* The job a journald entry belongs to.  journald itself sets the fields
 * that start with '_' from the sender's credentials and cgroup; any other
 * field is the sender's word (`logger --journald` writes SLURM_JOB_ID=
 * for anyone).  So Slurm's cgroup (`.../slurmstepd.scope/job_12345/
 * step_0/...`, or cgroup v1's `/slurm/uid_0/job_12345/...`) first, else
 * the systemd unit it ran in, and a SLURM_JOB_ID field only where journald
 * says neither, named a claim ("slurm job N (claimed)", proc/jobclaim.h);
 * none for the kernel's entries, which belong to no job. */
static void journal_job(struct json_object *o, struct log_event *ev)
{
	const char *id = str(o, "SLURM_JOB_ID"), *cg = str(o, "_SYSTEMD_CGROUP"), *unit = str(o, "_SYSTEMD_UNIT");
	const char *p;
	size_t n;

	if (cg && (p = strstr(cg, "/job_")) && (n = strspn(p + 5, "0123456789")) && n < 16 &&
	    (p[5 + n] == '/' || !p[5 + n])) {
		snprintf(ev->job, sizeof(ev->job), "slurm job %.*s", (int)n, p + 5);
		return;
	}
	if (unit && *unit) {
		snprintf(ev->job, sizeof(ev->job), "unit %.34s", unit);
		return;
	}
	if (job_claim_parse(id) >= 0)
		snprintf(ev->job, sizeof(ev->job), "slurm job %s" JOB_CLAIMED_SUFFIX, id);
}

bool log_parse_json(const char *s, const char *end, struct log_event *ev, int depth,
		    struct json_object **keep, const char **line)
{
	*keep = NULL;
	*line = NULL;
	if (s >= end || *s != '{')
		return false;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return false;
	struct json_object *o = json_tokener_parse_ex(tok, s, (int)(end - s));
	bool whole = o && json_tokener_get_error(tok) == json_tokener_success &&
		     json_tokener_get_parse_end(tok) == (size_t)(end - s);
	json_tokener_free(tok);
	if (!whole || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return false;
	}
	const char *schema = str(o, "schema"), *msg = str(o, "MESSAGE");
	if ((schema && !strncmp(schema, "mrtrace-", 8)) || (str(o, "event") && str(o, "mrtrace_version"))) {
		ev->kind = LOG_RECORD, ev->source = LOG_SRC_MRTRACE, ev->json = o;
		const char *h = str(o, "host");
		if (h)
			str_copy_n(ev->host, sizeof(ev->host), h, strlen(h));
		return true;
	}
	if (msg || has_mrtrace_field(o)) {
		const char *h = str(o, "_HOSTNAME"), *pid = str(o, "_PID"), *rt = str(o, "__REALTIME_TIMESTAMP");
		if (h)
			str_copy_n(ev->host, sizeof(ev->host), h, strlen(h));
		if (pid)
			ev->pid = (int)log_num(pid, strlen(pid), 10);
		/* microseconds; one past 2255 (a crafted export) is no time */
		long long us = rt ? log_num(rt, strlen(rt), 10) : -1;
		if (us >= 0 && us < 9000000000000000LL) {
			ev->has_time = true;
			ev->time_ns = us * 1000;
		}
		if (has_mrtrace_field(o)) {
			ev->kind = LOG_RECORD, ev->source = LOG_SRC_JOURNALD, ev->json = o;
			return true;
		}
		const char *tr = str(o, "_TRANSPORT");
		if (!tr || strcmp(tr, "kernel"))
			journal_job(o, ev);
		if (tr && !strcmp(tr, "kernel")) {
			log_parse_kernel(msg, msg + strlen(msg), true, ev);
		} else if (depth < 1) {
			/* the MESSAGE is a line of its own (NCCL in a unit's
			 * output): the caller classifies it, then drops *keep */
			*keep = o;
			*line = msg;
			return true;
		} else {
			ev->kind = LOG_UNRECOGNISED;
		}
		json_object_put(o);
		return true;
	}
	json_object_put(o);
	return false;
}
