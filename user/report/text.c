// SPDX-License-Identifier: GPL-2.0-only
/* text.c - the explanation as a person reads it at 3 a.m.:
 * who failed, the cause with numbers, why, then what to change where this
 * process runs.  -v adds the kernel trail.  Every string that a process or
 * its files chose (comm, cmdline, unit, paths, NCCL_* values) goes through
 * esc(): a control sequence in it cannot act on the operator's terminal. */
#include "report/report.h"
#include "proc/jobclaim.h"

#include <string.h>

#include "core/escape.h"
#include "core/units.h"

static void print_trail(FILE *out, const struct mrt_event *ev, int decisive)
{
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;

	fprintf(out, "  kernel trail (%u step%s%s):\n", ev->nsteps, ev->nsteps == 1 ? "" : "s",
		ev->nsteps > MRT_TRAIL_MAX ? ", oldest kept" : "");
	for (int i = 0; i < n; i++) {
		const struct mrt_step *s = &ev->steps[i];
		fprintf(out, "    %s %-32s ret=%d%s%s  a0=0x%llx a1=0x%llx a2=0x%llx\n",
			i == decisive ? "=>" : "  ", site_name(s->site), s->ret,
			s->ret < 0 ? " " : "", s->ret < 0 ? errno_name(-s->ret) : "",
			(unsigned long long)s->a0, (unsigned long long)s->a1,
			(unsigned long long)s->a2);
	}
}

/* The cgroup's job is a fact; the environment's is said to be a claim, and
 * one naming another job than the cgroup a contradiction (proc/jobclaim.h). */
static void print_job(FILE *out, const struct report *r)
{
	struct job_claim jc;

	job_claim_resolve(r->ctx->slurm_job, r->have_slurm_job ? r->slurm_job : -1, &jc);
	if (jc.source == JOB_SOURCE_CGROUP)
		fprintf(out, ", slurm job %ld", jc.job);
	else if (jc.source == JOB_SOURCE_ENVIRONMENT)
		fprintf(out, ", slurm job %ld claimed by the process's environment (not its cgroup)",
			jc.job);
	if (jc.contradicting >= 0)
		fprintf(out, ", its environment claims slurm job %ld, which contradicts the cgroup",
			jc.contradicting);
}

static void print_context(FILE *out, const struct report *r)
{
	const struct proc_context *c = r->ctx;
	char chain[512], b1[32], b2[32];

	if (!c) {
		fprintf(out, "  process: exited before /proc could be read\n");
		return;
	}
	if (c->have & CTX_HAVE_CMDLINE)
		fprintf(out, "  process: %s\n", esc(c->cmdline));
	if (c->unavailable)
		fprintf(out, "  context not available: %s (placed by what the kernel recorded)\n",
			ctx_unavailable_text(c->unavailable));
	fprintf(out, "  runs as: %s", ctx_setting_name(proc_context_setting(c)));
	if (c->systemd_unit[0])
		fprintf(out, ", unit %s", esc(c->systemd_unit));
	if (c->container_id[0]) {
		char cid[13];   /* the short id docker ps shows */
		snprintf(cid, sizeof(cid), "%.12s", c->container_id);
		fprintf(out, ", %s container %s", ctx_runtime_name(c->runtime), esc(cid));
	}
	if (c->pod_uid[0])
		fprintf(out, ", pod %s", esc(c->pod_uid));
	print_job(out, r);
	if (c->in_userns)
		fprintf(out, ", in a user namespace");
	fputc('\n', out);
	/* only recognized launchers are named: the chain may be empty */
	if ((c->have & CTX_HAVE_LAUNCHERS) && *proc_context_launcher_chain(c, chain, sizeof(chain)))
		fprintf(out, "  launched by: %s\n", esc(chain));
	if ((c->have & CTX_HAVE_VMPIN) && (c->have & CTX_HAVE_VMLCK))
		fprintf(out, "  now: VmPin %s, VmLck %s\n", fmt_bytes(c->vm_pin, b1, sizeof(b1)),
			fmt_bytes(c->vm_lck, b2, sizeof(b2)));
}

static void print_nccl(FILE *out, const struct nccl_info *n, const struct verdict *v)
{
	char b1[32], b2[32], b3[32];

	if (!n->lib.found)
		return;
	fprintf(out, "  NCCL: %s", n->lib.version_known ? esc(n->lib.version) : "version unknown");
	if (n->rank.rank >= 0)
		fprintf(out, ", rank %ld (%s)", n->rank.rank, n->rank.rank_var);
	fputc('\n', out);
	/* a live setting always has its source; a replayed record older than
	 * "setting_sources" does not say it (NCCL_SRC_DEFAULT) */
	for (int i = 0; i < n->settings.n; i++) {
		const struct nccl_setting *s = &n->settings.v[i];
		if (s->source == NCCL_SRC_DEFAULT)
			fprintf(out, "    %s=%s\n", esc(s->name), esc(s->value));
		else
			fprintf(out, "    %s=%s (%s)\n", esc(s->name), esc(s->value),
				nccl_source_name(s->source));
	}
	if (n->estimate.host_max && v->has_memlock)
		fprintf(out, "    estimated pinned host memory for NCCL's buffers: %s..%s "
			     "(limit %s)\n",
			fmt_bytes(n->estimate.host_min, b1, sizeof(b1)),
			fmt_bytes(n->estimate.host_max, b2, sizeof(b2)),
			fmt_bytes(v->limit_bytes, b3, sizeof(b3)));
	for (int i = 0; i < n->lint.n; i++)
		fprintf(out, "    ! %s\n", esc(n->lint.f[i].message));
}

/* The time a storm summary spans (its failures were folded in the kernel). */
static double storm_secs(const struct report *r)
{
	return r->last_ts_ns > r->first_ts_ns ? (r->last_ts_ns - r->first_ts_ns) / 1e9 : 0;
}

void report_print_text(FILE *out, const struct report *r, bool verbose)
{
	const struct mrt_event *ev = r->ev;
	/* the family first: it says whom to call before anything else is read */
	fprintf(out, "\n%s%s: %s\n", r->v.harmless ? "[harmless probe] " : "",
		cause_class_name(cause_class(r->v.cause, ev->op)), esc(r->v.summary));
	fprintf(out, "%s failed: pid %u (%s) tid %u uid %u: %s (errno %d)%s%s\n",
		r->what ? r->what : "registration", ev->pid, esc(ev->comm),
		ev->tid, ev->uid, errno_name(r->v.err), r->v.err, r->api ? " from " : "",
		r->api ? r->api : "");
	if (r->when && *r->when)
		fprintf(out, "  at: %s\n", esc(r->when));
	/* inside a container NCCL prints its own namespace's pid:tid */
	if (ev->ns_pid && (ev->ns_pid != ev->pid || ev->ns_tid != ev->tid))
		fprintf(out, "  in its pid namespace: pid %u tid %u\n", ev->ns_pid, ev->ns_tid);
	if (r->count)
		fprintf(out, "  storm: x%llu identical failures in %.3f s (folded in the kernel)\n",
			r->count, storm_secs(r));
	if (r->uev && r->ua.resolved)
		fprintf(out, "  called from: %s%s\n", r->ua.caller[0] ? esc(r->ua.caller) : "(unresolved)",
			r->ua.via_nccl ? " (NCCL is on the stack)" : "");
	fprintf(out, "  cause: %s%s\n", cause_name(r->v.cause),
		r->v.certainty == CERT_INFERRED ? " (inferred: no kernel site observed)" : "");
	fprintf(out, "  why: %s\n", esc(r->v.explanation));
	if (r->v.harmless)
		fprintf(out, "  note: this matches NCCL's dma-buf capability probe at init "
			     "(fd -1, length 0); NCCL expects this error and continues.\n");
	print_context(out, r);
	if (r->nccl)
		print_nccl(out, r->nccl, &r->v);
	if (r->v.fixes.n)
		fprintf(out, "  fix:\n");
	for (int i = 0; i < r->v.fixes.n; i++)
		fprintf(out, "    %d. [%s] %s\n", i + 1, fix_kind_name(r->v.fixes.items[i].kind),
			esc(r->v.fixes.items[i].text));
	if (verbose || r->v.cause == CAUSE_UNKNOWN)
		print_trail(out, ev, r->v.decisive_step);
	fflush(out);
}

void report_print_repeat(FILE *out, const struct report *r, unsigned long nth)
{
	const struct mrt_event *ev = r->ev;

	if (r->count) /* a storm: count identical failures at once */
		fprintf(out, "again: pid %u tid %u %s (%s) x%llu in %.3f s, #%lu of this cause: %s\n",
			ev->pid, ev->tid, cause_name(r->v.cause), errno_name(r->v.err), r->count,
			storm_secs(r), nth, r->v.summary);
	else
		fprintf(out, "again: pid %u tid %u %s (%s), #%lu of this cause: %s\n", ev->pid,
			ev->tid, cause_name(r->v.cause), errno_name(r->v.err), nth, r->v.summary);
	fflush(out);
}
