// SPDX-License-Identifier: GPL-2.0-only
/* health.c - `check --health`: one line, exit 0 OK / 1 WARN / 2 FAIL, for
 * a Slurm prolog or NHC to act on (drain the node with the line as reason).
 *
 * Items keep check's own verdicts (a missing uverbs device, a port that is
 * not ACTIVE, no RDMA device: FAIL), except memlock, which is judged here
 * against the threshold the operator set (--min-memlock, default 64 MiB,
 * what a multi-node NCCL job needs without GPUDirect; docs/design.md
 * section 4):
 *   -p PID          the process's soft limit, unless CAP_IPC_LOCK applies;
 *   -p PID --slurm  PID is slurmd: its jobs get the submitting srun's limit
 *                   capped by slurmd's hard limit when slurm.conf propagates
 *                   MEMLOCK (the default), so the hard limit is judged; else
 *                   slurmd's soft limit;
 *   no -p           the job-starting units found (slurmd, containerd,
 *                   dockerd, crio, kubelet): the limit their jobs inherit.
 * Unreadable items (??) never fail a node: a health check that drains on
 * its own blind spots would be switched off.
 *
 * All of it is about RDMA: where RDMA is not expected (check/expect.h: no
 * RDMA hardware and no require-rdma saying otherwise) memlock, devices,
 * ports, GPUDirect and the rest are n/a, and the line says OK with why, so
 * a cluster-wide prolog lets jobs run on CPU and login nodes.  What
 * --health-ignore took out is counted on an OK line, never hidden. */
#include "check/fleet.h"
#include "check/areas.h"
#include "check/expect.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/units.h"

static bool ignored(const struct chk_health_opts *o, const char *id)
{
	char list[sizeof(o->ignore)], *save, *pat;

	snprintf(list, sizeof(list), "%s", o->ignore);
	for (pat = strtok_r(list, ", ", &save); pat; pat = strtok_r(NULL, ", ", &save))
		if (!fnmatch(pat, id, 0) || !strncmp(id, pat, strlen(pat)))
			return true;
	return false;
}

struct finding {
	enum chk_health level;
	char text[160];
};

#define FINDINGS_MAX 8

struct judge {
	struct finding f[FINDINGS_MAX];
	int n, nfail, nwarn;
};

static void note(struct judge *j, enum chk_health level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct judge *j, enum chk_health level, const char *fmt, ...)
{
	va_list ap;
	if (level == CHK_HEALTH_FAIL)
		j->nfail++;
	else
		j->nwarn++;
	if (j->n == FINDINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(j->f[j->n].text, sizeof(j->f[0].text), fmt, ap);
	va_end(ap);
	j->f[j->n++].level = level;
}

static void memlock_process(const struct chk_report *r, const struct chk_health_opts *o,
			    struct judge *j)
{
	const struct proc_context *c = r->target;
	char b1[32], b2[32], src[256];

	if (!(c->have & CTX_HAVE_MEMLOCK))
		return;
	/* CAP_IPC_LOCK lifts the limit for the process that holds it; slurmd
	 * runs as root, but the jobs it starts do not inherit it */
	if (!o->slurm && (c->have & CTX_HAVE_CAPS) && c->cap_ipc_lock &&
	    !((c->have & CTX_HAVE_USERNS) && c->in_userns))
		return;
	bool propagated = o->slurm && chk_slurm_propagates_memlock(r->opt.root, src, sizeof(src)) != 0;
	if (propagated && (c->have & CTX_HAVE_MEMLOCK_HARD)) {
		if (c->memlock_hard < o->min_memlock)
			note(j, CHK_HEALTH_FAIL, "memlock: slurmd hard limit %s < %s",
			     fmt_bytes(c->memlock_hard, b1, sizeof(b1)),
			     fmt_bytes(o->min_memlock, b2, sizeof(b2)));
		return;
	}
	if (c->memlock_soft < o->min_memlock)
		note(j, CHK_HEALTH_FAIL, "memlock: %s limit %s < %s", o->slurm ? "slurmd" : "process",
		     fmt_bytes(c->memlock_soft, b1, sizeof(b1)), fmt_bytes(o->min_memlock, b2, sizeof(b2)));
}

/* The units' effective limits, from check's memlock section. */
static void memlock_units(const struct chk_report *r, const struct chk_health_opts *o,
			  struct judge *j)
{
	json_object *sec, *units;
	char b1[32], b2[32];

	if (!json_object_object_get_ex(r->doc, "memlock", &sec) ||
	    !json_object_object_get_ex(sec, "units", &units))
		return;
	json_object_object_foreach(units, unit, u) {
		json_object *eff;
		char id[96];
		snprintf(id, sizeof(id), "memlock.unit.%s", unit);
		if (ignored(o, id) || !json_object_object_get_ex(u, "effective_soft_bytes", &eff) ||
		    !json_object_is_type(eff, json_type_int))
			continue; /* "unlimited" */
		uint64_t v = (uint64_t)json_object_get_int64(eff);
		if (v < o->min_memlock)
			note(j, CHK_HEALTH_FAIL, "memlock: %s gives %s < %s", unit,
			     fmt_bytes(v, b1, sizeof(b1)), fmt_bytes(o->min_memlock, b2, sizeof(b2)));
	}
}

/* An item's value lists facts, comma-separated ("mlx5_core 0000:18:00.0, fw
 * 20.39.2048, /dev/infiniband/uverbs0 missing"); in 80 characters the ones
 * that say what is wrong go first. */
static void problem_first(const char *value, char *out, size_t len)
{
	static const char *const words[] = { "missing", "DOWN", "INIT", "ARMED", "not ", "no ",
					     "refused", "denied", "LID 0x0", NULL };
	char buf[256], *save, *seg;
	char bad[256] = "", rest[256] = "";

	snprintf(buf, sizeof(buf), "%s", value);
	for (seg = strtok_r(buf, ",", &save); seg; seg = strtok_r(NULL, ",", &save)) {
		while (*seg == ' ')
			seg++;
		bool hit = false;
		for (int i = 0; words[i] && !hit; i++)
			hit = strstr(seg, words[i]) != NULL;
		str_appendf(hit ? bad : rest, 256, "%s%s", (hit ? bad : rest)[0] ? ", " : "", seg);
	}
	snprintf(out, len, "%s%s%s", bad, bad[0] && rest[0] ? ", " : "", rest);
}

/* Everything that concerns RDMA: memlock against the threshold, then the
 * items' own verdicts.  Returns how many findings --health-ignore took out. */
static int judge_rdma(const struct chk_report *r, const struct chk_health_opts *o,
		      struct judge *j)
{
	/* an ignored memlock is judged aside, only to be counted */
	struct judge aside = { 0 };
	struct judge *mj = ignored(o, "memlock.limit") ? &aside : j;
	int nignored = 0;

	/* no RDMA device at all says more than any limit: it goes first */
	const struct chk_item *none = chk_find(r, "rdma.devices");
	bool none_first = none && none->verdict == CHK_FAIL && !ignored(o, none->id);
	if (none_first)
		note(j, CHK_HEALTH_FAIL, "%s: %s", none->title, none->value);
	if (r->have_target)
		memlock_process(r, o, mj);
	else if (r->opt.pid <= 0)
		memlock_units(r, o, mj);
	nignored += aside.nfail + aside.nwarn;
	for (int i = 0; i < r->n_items; i++) {
		const struct chk_item *it = &r->items[i];
		if (!strncmp(it->id, "memlock.", 8) || (none_first && it == none))
			continue;
		if (ignored(o, it->id)) {
			nignored += it->verdict == CHK_FAIL || it->verdict == CHK_WARN;
			continue;
		}
		char value[sizeof(it->value)];
		problem_first(it->value, value, sizeof(value));
		if (it->verdict == CHK_FAIL)
			note(j, CHK_HEALTH_FAIL, "%s: %s", it->title, value);
		else if (it->verdict == CHK_WARN)
			note(j, CHK_HEALTH_WARN, "%s: %s", it->title, value);
	}
	return nignored;
}

enum chk_health chk_health_judge(const struct chk_report *r, const struct chk_health_opts *o,
				 char *line, size_t len)
{
	struct judge j = { 0 };
	char why[120], ok_text[150];
	int nignored = 0;

	if (r->opt.pid > 0 && !r->have_target)
		note(&j, CHK_HEALTH_FAIL, "process %d not found", r->opt.pid);
	if (chk_rdma_expected(r, &chk_rdma_expect_opts, why, sizeof(why))) {
		nignored = judge_rdma(r, o, &j);
		snprintf(ok_text, sizeof(ok_text), "memlock, RDMA devices and ports as required");
	} else {
		chk_rdma_na_text(why, ok_text, sizeof(ok_text));
	}
	enum chk_health h = j.nfail ? CHK_HEALTH_FAIL : j.nwarn ? CHK_HEALTH_WARN : CHK_HEALTH_OK;
	const struct finding *first = NULL;
	for (int i = 0; i < j.n && !first; i++)
		if (j.f[i].level == h)
			first = &j.f[i];
	int more = (h == CHK_HEALTH_FAIL ? j.nfail : j.nwarn) - 1;
	char tail[32] = "", body[200];
	if (more > 0)
		snprintf(tail, sizeof(tail), " (+%d more)", more);
	else if (h == CHK_HEALTH_OK && nignored)
		snprintf(tail, sizeof(tail), " (%d ignored)", nignored);
	snprintf(body, sizeof(body), "mrtrace: %s %s",
		 h == CHK_HEALTH_FAIL ? "FAIL" : h == CHK_HEALTH_WARN ? "WARN" : "OK",
		 first ? first->text : ok_text);
	/* one line of at most 80: cut the finding, keep the count */
	size_t max = len - 1 < CHK_HEALTH_LINE_MAX ? len - 1 : CHK_HEALTH_LINE_MAX;
	size_t tl = strlen(tail);
	for (char *p = body; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	if (strlen(body) + tl > max) {
		size_t keep = max - tl - 3;
		body[keep] = 0;
		snprintf(line, len, "%s...%s", body, tail);
	} else {
		snprintf(line, len, "%s%s", body, tail);
	}
	return h;
}
