// SPDX-License-Identifier: GPL-2.0-only
/* logs.c - the failures of a job's logs, grouped and judged (logs.h).
 *
 * A group is one failure of one job as the log says it (the job, the
 * call, its errno, or the no-refusal kind with its status or event): 64
 * ranks of a job that all print the same ENOMEM are one group, led by the
 * first in time (the line's own time when it has one, else the input
 * order), and "the same on 63 other ranks" with their hosts.  Two jobs in
 * one merged input are two groups however alike their lines: the reader
 * says each line's job (logs/job.c), and a line of no known job is one of
 * its own "" job.  The output goes job by job, the job whose first failure
 * came first leading.  The job's NCCL settings the lines before it
 * named (NCCL_BUFFSIZE, NCCL_MIN/MAX_NCHANNELS, the channels it built) go
 * with the leading event to the rerun. */
#include "explain/logs.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/escape.h"
#include "explain/facts.h"
#include "record/inferred_failure.h"
#include "record/kind.h"
#include "record/record.h"
#include "verdict/names.h"

#define SEEN_MAX 256 /* identities (host, pid, rank) and hosts hashed per group */
#define WATCH_MAX 64 /* watch records remembered for the comparison */

struct group {
	char key[200];
	int job;              /* index of its job in explain_logs.jobs */
	bool has_time;
	int64_t time_ns;
	unsigned long order;  /* input order of the leading event */
	struct record_inferred r;
	unsigned long lines;  /* all its lines, the leader's included */
	int nseen, nhosts_seen;
	uint64_t seen[SEEN_MAX], hosts_seen[SEEN_MAX];
	unsigned long seen_dropped;
};

struct explain_logs {
	struct explain_logs_opts o;
	struct group *groups[EXPLAIN_LOG_GROUPS];
	int ngroups;
	/* of them, wrappers folded into their job's failure by finish: no
	 * group of their own, counted with the wrapper lines */
	int folded;
	unsigned long failures, not_judged, summaries, order;
	char summary_example[LOG_RAW_MAX + 1];
	/* the job's settings, as the lines so far named them */
	unsigned long long buffsize;
	unsigned min_ch, max_ch, built_ch;
	unsigned qps_per_conn;
	int gid_index; /* NCCL_IB_GID_INDEX, -1 not set */
	char ib_dev[32]; /* NCCL's first device, `NET/IB : Using [0]mlx5_0:1/RoCE` */
	int ib_port;
	bool ib_roce; /* that device's port is RoCE (`.../RoCE`) */
	bool gdr, slurm;
	/* the hosts that said the device, GPUDirect and the memlock limit: a
	 * host's context weighs on its own failures only (issue 46 item 4) */
	char ib_host[64], gdr_host[64], memlock_host[64];
	/* a line before the failure said its buffers are GPU (or host) memory
	 * ("cuMemAlloc: 1", an allocator's name): the failure's own line
	 * rarely says it again */
	int buf_ctx; /* 0 none, 1 GPU, -1 host */
	char buf_host[64];
	/* a line said the CUDA driver cannot export the job's GPU memory as
	 * dma-buf (`cuMemGetHandleForAddressRange failed:
	 * CUDA_ERROR_NOT_SUPPORTED`, user/logs/cudacall.c): "CALL: ERROR" */
	char no_dmabuf[112];
	char no_dmabuf_host[64];
	/* the memlock limit a line stated (libibverbs' warning), for the
	 * failures of that process after it (pid 0: the line named none) */
	bool has_memlock;
	uint64_t memlock;
	int memlock_pid;
	/* the jobs the failures named, in order of first appearance; the
	 * settings above are the current job's (reset when it changes) */
	int njobs;
	char jobs[EXPLAIN_LOG_GROUPS][40];
	char cur_job[40];
	int nwatch;
	struct {
		char host[64], cause[32], job[40];
		long pid;
	} watch[WATCH_MAX];
};

struct explain_logs *explain_logs_new(const struct explain_logs_opts *o)
{
	struct explain_logs *l = calloc(1, sizeof(*l));

	if (l) {
		l->o = *o;
		l->gid_index = -1;
	}
	return l;
}

void explain_logs_free(struct explain_logs *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->ngroups; i++)
		free(l->groups[i]);
	free(l);
}

/* FNV-1a: identities are only compared, never shown */
static uint64_t hash(const char *s, long a, long b)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ (uint64_t)a) * 1099511628211ull;
	return (h ^ (uint64_t)b) * 1099511628211ull;
}

static bool seen_add(uint64_t *set, int *n, uint64_t h)
{
	for (int i = 0; i < *n; i++)
		if (set[i] == h)
			return false;
	if (*n < SEEN_MAX)
		set[(*n)++] = h;
	return true;
}

/* The reader's event as the judge reads it. */
/* Whether a line of host a may speak for a failure of host b: the same
 * host, or one of them names none (nothing contradicts it). */
static bool same_host(const char *a, const char *b)
{
	return !a[0] || !b[0] || !strcmp(a, b);
}

static void to_inferred(const struct explain_logs *l, const struct log_event *ev,
			struct inferred_in *in)
{
	memset(in, 0, sizeof(*in));
	in->status = -1;
	snprintf(in->call, sizeof(in->call), "%s", ev->call[0] ? ev->call : ev->op ? rdma_op_name(ev->op) : "");
	in->op = ev->op;
	/* "2.21.5" of "2.21.5+cuda12.4" */
	snprintf(in->nccl_version, sizeof(in->nccl_version), "%.*s",
		 (int)strcspn(ev->nccl_version, "+ "), ev->nccl_version);
	snprintf(in->host, sizeof(in->host), "%s", ev->host);
	in->err = ev->err;
	in->release_no_errno = ev->no_errno;
	if (ev->has_memlock) {
		in->memlock_logged = true, in->memlock = ev->memlock;
	} else if (l->has_memlock && (!l->memlock_pid || !ev->pid || l->memlock_pid == ev->pid) &&
		   same_host(l->memlock_host, ev->host)) {
		in->memlock_logged = true, in->memlock = l->memlock;
	}
	if (ev->has_range && ev->length) {
		in->has_length = true;
		in->length = ev->length;
	}
	if (ev->no_errno && ev->shape && ev->shape->first_tag)
		snprintf(in->releases, sizeof(in->releases), "%s..%s", ev->shape->first_tag,
			 ev->shape->last_tag ? ev->shape->last_tag : "");
	switch (ev->kind) {
	case LOG_FAILURE_CALL:
		in->kind = INF_CALL;
		/* the kernel's own line of a firmware command (mlx5 CREATE_MKEY
		 * status 0x8), and the mlx5_ib line that echoes it */
		if (ev->mlx5.cmd[0]) {
			in->kind = INF_KERNEL_LOG;
			snprintf(in->call, sizeof(in->call), "%s", ev->mlx5.cmd);
			in->status = (int)ev->mlx5.status_code;
			snprintf(in->detail, sizeof(in->detail), "syndrome 0x%x", ev->mlx5.syndrome);
		} else if (ev->source == LOG_SRC_KERNEL && strcasestr(ev->raw, "mkey")) {
			in->kind = INF_KERNEL_LOG;
			snprintf(in->call, sizeof(in->call), "CREATE_MKEY");
		}
		break;
	case LOG_FAILURE_SUMMARY:
		in->kind = INF_WRAPPER;
		snprintf(in->detail, sizeof(in->detail), "%s", ev->result[0] ? ev->result : "ncclSystemError");
		break;
	default:
		switch (ev->nocall) {
		case LOG_NC_COMPLETION:
			in->kind = INF_COMPLETION;
			in->status = ev->wc.status;
			break;
		case LOG_NC_ASYNC:
			in->kind = INF_ASYNC;
			snprintf(in->detail, sizeof(in->detail), "%s", ev->async_event);
			break;
		case LOG_NC_CUDA:
			in->kind = INF_CUDA;
			snprintf(in->detail, sizeof(in->detail), "%s", ev->cuda_error);
			break;
		case LOG_NC_GDR_DISABLED:
			in->kind = INF_GDR_OFF;
			break;
		case LOG_NC_USERSPACE_READ:
			in->kind = INF_GID_TYPE;
			break;
		default:
			if (ev->mlx5.cmd[0]) {
				in->kind = INF_KERNEL_LOG;
				snprintf(in->call, sizeof(in->call), "%s", ev->mlx5.cmd);
				in->status = (int)ev->mlx5.status_code;
				snprintf(in->detail, sizeof(in->detail), "syndrome 0x%x", ev->mlx5.syndrome);
			} else {
				in->kind = INF_ASYNC;
				snprintf(in->detail, sizeof(in->detail), "%.60s",
					 ev->async_event[0] ? ev->async_event : "a kernel-log event");
			}
		}
	}
	/* the job's shape as the lines before it said */
	in->buffsize = l->buffsize;
	in->channels = l->min_ch ? l->min_ch : l->built_ch;
	if (l->max_ch && (!in->channels || in->channels > l->max_ch))
		in->channels = l->max_ch;
	in->gdr = l->gdr && same_host(l->gdr_host, ev->host);
	/* what the proof of a QP, GID or shm failure needs: NCCL's device of
	 * this host, never another's */
	bool ib_here = same_host(l->ib_host, ev->host);
	snprintf(in->device, sizeof(in->device), "%s",
		 ev->device[0] ? ev->device : ib_here ? l->ib_dev : "");
	in->port = ev->port > 0 ? ev->port : ev->device[0] || !ib_here ? 0 : l->ib_port;
	in->qps_per_conn = l->qps_per_conn;
	if (ev->qp.gid_index >= 0)
		in->has_gid_index = true, in->gid_index = ev->qp.gid_index;
	else if (l->gid_index >= 0)
		in->has_gid_index = true, in->gid_index = l->gid_index;
	in->shm_size = ev->shm_size;
	/* NCCL's "next state RTS", a program's "RTR -> RTS" (the reader's) */
	in->qp_to_rts = !strcmp(ev->qp.next_state, "RTS");
	in->from_nccl = ev->source == LOG_SRC_NCCL;
	int w = ev->buf_word;
	if (!w && l->buf_ctx && same_host(l->buf_host, ev->host))
		w = l->buf_ctx;
	if (l->no_dmabuf[0] && same_host(l->no_dmabuf_host, ev->host)) {
		snprintf(in->cuda_no_dmabuf, sizeof(in->cuda_no_dmabuf), "%s", l->no_dmabuf);
		/* what it failed to export was GPU memory */
		if (!w)
			w = 1;
	}
	in->gpu_mem = w > 0;
	in->host_mem = w < 0;
	/* the line's own device is NCCL's first only when it names none or the same */
	in->roce = l->ib_roce && ib_here && (!ev->device[0] || !strcmp(ev->device, l->ib_dev));
}

static void context(struct explain_logs *l, const struct log_event *ev)
{
	unsigned a, b;
	const char *p;

	/* another job's lines: its settings are its own */
	if (ev->job[0] && strcmp(ev->job, l->cur_job)) {
		snprintf(l->cur_job, sizeof(l->cur_job), "%s", ev->job);
		l->buffsize = 0;
		l->min_ch = l->max_ch = l->built_ch = 0;
		l->qps_per_conn = 0;
		l->gid_index = -1;
		l->ib_dev[0] = '\0';
		l->ib_port = 0;
		l->ib_roce = false;
		l->gdr = false;
		l->has_memlock = false;
		l->buf_ctx = 0;
		l->no_dmabuf[0] = '\0';
	}
	/* a context line's word on the buffers (not a failure's own: that one
	 * is read with its failure) */
	if (ev->kind == LOG_NOT_FAILURE || ev->kind == LOG_CONTEXT || ev->kind == LOG_UNRECOGNISED) {
		int w = ev->buf_word;
		if (w) {
			l->buf_ctx = w;
			snprintf(l->buf_host, sizeof(l->buf_host), "%s", ev->host);
		}
	}
	/* a CUDA memory call's error: only a dma-buf export that the driver
	 * does not support says something of the registrations after it */
	if (ev->ctx == LOG_CTX_CUDA) {
		const char *what = log_cuda_call_what(ev->call);
		if (what && !strcmp(what, "dmabuf_export") && log_cuda_error_unsupported(ev->cuda_error)) {
			snprintf(l->no_dmabuf, sizeof(l->no_dmabuf), "%.40s: %.60s", ev->call, ev->cuda_error);
			snprintf(l->no_dmabuf_host, sizeof(l->no_dmabuf_host), "%s", ev->host);
		}
	}
	if (ev->has_memlock) {
		l->has_memlock = true;
		l->memlock = ev->memlock;
		l->memlock_pid = ev->pid;
		snprintf(l->memlock_host, sizeof(l->memlock_host), "%s", ev->host);
	}
	if (ev->ctx == LOG_CTX_SETTING) {
		unsigned long long v = strtoull(ev->setting_value, NULL, 0);
		if (!strcmp(ev->setting_name, "NCCL_BUFFSIZE"))
			l->buffsize = v;
		else if (!strcmp(ev->setting_name, "NCCL_MIN_NCHANNELS") && v <= 64)
			l->min_ch = (unsigned)v;
		else if (!strcmp(ev->setting_name, "NCCL_MAX_NCHANNELS") && v <= 64)
			l->max_ch = (unsigned)v;
		else if (!strcmp(ev->setting_name, "NCCL_IB_QPS_PER_CONNECTION") && v >= 1 && v <= 128)
			l->qps_per_conn = (unsigned)v;
		else if (!strcmp(ev->setting_name, "NCCL_IB_GID_INDEX") && v <= 255 &&
			 ev->setting_value[0] >= '0' && ev->setting_value[0] <= '9')
			l->gid_index = (int)v;
	}
	/* what the reader keeps no member for: the channels NCCL built
	 * ("Channel 03/08 :") and GPUDirect on, from the line's start */
	if ((p = strstr(ev->raw, " Channel ")) && sscanf(p, " Channel %u/%u", &a, &b) == 2 && b <= 64 &&
	    b > l->built_ch)
		l->built_ch = b;
	if ((p = strstr(ev->raw, "NET/IB : Using [")) && (p = strchr(p, ']'))) {
		if (sscanf(p + 1, "%31[A-Za-z0-9_.-]:%d", l->ib_dev, &l->ib_port) != 2)
			l->ib_dev[0] = '\0', l->ib_port = 0;
		snprintf(l->ib_host, sizeof(l->ib_host), "%s", ev->host);
		/* "[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE": the first device's link layer */
		l->ib_roce = !strncmp(p + 1 + strcspn(p + 1, "/ "), "/RoCE", 5);
	}
	if (strstr(ev->raw, "GPU Direct RDMA Enabled") ||
	    (ev->kind == LOG_NOT_FAILURE && ev->shape && ev->shape->nocall == LOG_NC_GDR_DISABLED)) {
		l->gdr = true;
		snprintf(l->gdr_host, sizeof(l->gdr_host), "%s", ev->host);
	}
	if (strstr(ev->raw, "slurmstepd") || strstr(ev->raw, "srun: "))
		l->slurm = true;
}

static void group_key(const char *job, const struct inferred_in *in, char *key, size_t len)
{
	/* a firmware command's lines are one failure whatever each says */
	if (in->kind == INF_KERNEL_LOG) {
		snprintf(key, len, "%s|%d|%s", job, in->kind, in->call);
		return;
	}
	snprintf(key, len, "%s|%d|%s|%d|%d|%s", job, in->kind, in->call, in->err, in->status, in->detail);
}

/* The index of job in l->jobs, added when new; -1 when the table is full
 * (the failure is then not judged, as beyond EXPLAIN_LOG_GROUPS). */
static int job_index(struct explain_logs *l, const char *job)
{
	for (int i = 0; i < l->njobs; i++)
		if (!strcmp(l->jobs[i], job))
			return i;
	if (l->njobs == EXPLAIN_LOG_GROUPS)
		return -1;
	snprintf(l->jobs[l->njobs], sizeof(l->jobs[0]), "%s", job);
	return l->njobs++;
}

static bool earlier(const struct log_event *ev, unsigned long order, const struct group *g)
{
	if (ev->has_time && g->has_time)
		return ev->time_ns < g->time_ns;
	return ev->has_time && !g->has_time ? false : order < g->order;
}

static void lead(struct group *g, const struct explain_logs *l, const struct log_event *ev,
		 unsigned long order)
{
	to_inferred(l, ev, &g->r.in);
	g->has_time = ev->has_time;
	g->time_ns = ev->time_ns;
	g->order = order;
	snprintf(g->r.file, sizeof(g->r.file), "%s", ev->input ? ev->input : "-");
	g->r.line = ev->lineno;
	snprintf(g->r.job, sizeof(g->r.job), "%s", ev->job);
	snprintf(g->r.text, sizeof(g->r.text), "%s%s", ev->raw, ev->raw_cut ? "..." : "");
	g->r.pid = ev->pid > 0 ? ev->pid : -1;
	g->r.rank = ev->rank >= 0 ? ev->rank : ev->comm.rank >= 0 ? ev->comm.rank : -1;
	g->r.time[0] = '\0';
	if (ev->has_time) {
		time_t t = (time_t)(ev->time_ns / 1000000000);
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(g->r.time, sizeof(g->r.time), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
}

static void failure(struct explain_logs *l, const struct log_event *ev)
{
	struct inferred_in in;
	char key[200];
	struct group *g = NULL;
	unsigned long order = l->order++;
	int job = job_index(l, ev->job);

	to_inferred(l, ev, &in);
	group_key(ev->job, &in, key, sizeof(key));
	for (int i = 0; i < l->ngroups && !g; i++)
		if (!strcmp(l->groups[i]->key, key))
			g = l->groups[i];
	if (!g) {
		if (job < 0 || l->ngroups == EXPLAIN_LOG_GROUPS || !(g = calloc(1, sizeof(*g)))) {
			l->not_judged++;
			return;
		}
		l->groups[l->ngroups++] = g;
		snprintf(g->key, sizeof(g->key), "%s", key);
		g->job = job;
		lead(g, l, ev, order);
	} else if (earlier(ev, order, g)) {
		lead(g, l, ev, order);
	}
	g->lines++;
	/* a line that names nobody (NCCL's "Last error:" echo, a wrapper's
	 * repeat) is not another rank */
	if (!ev->host[0] && ev->pid <= 0 && ev->rank < 0)
		return;
	/* who: another rank when (host, pid, rank) is new to the group */
	if (!seen_add(g->seen, &g->nseen, hash(ev->host, ev->pid, ev->rank)) && g->nseen == SEEN_MAX)
		g->seen_dropped++;
	if (ev->host[0] && seen_add(g->hosts_seen, &g->nhosts_seen, hash(ev->host, 0, 0)) &&
	    strcmp(ev->host, g->r.in.host)) {
		if (g->r.nhosts < INFERRED_HOSTS_MAX)
			snprintf(g->r.hosts[g->r.nhosts++], sizeof(g->r.hosts[0]), "%s", ev->host);
		else
			g->r.hosts_dropped++;
	}
}

void explain_logs_event(struct explain_logs *l, const struct log_event *ev)
{
	context(l, ev);
	switch (ev->kind) {
	case LOG_FAILURE_CALL:
	case LOG_FAILURE_NOCALL:
		l->failures++;
		failure(l, ev);
		break;
	case LOG_FAILURE_SUMMARY:
		/* the wrapper of a failure NCCL named above it: judged only
		 * when nothing else in the inputs names one */
		if (!l->summaries++)
			snprintf(l->summary_example, sizeof(l->summary_example), "%s", ev->raw);
		l->failures++;
		failure(l, ev);
		break;
	default:
		break;
	}
}

void explain_logs_watch(struct explain_logs *l, const char *host, long pid, const char *job,
			const char *cause)
{
	if (l->nwatch == WATCH_MAX)
		return;
	snprintf(l->watch[l->nwatch].job, sizeof(l->watch[0].job), "%s", job ? job : "");
	snprintf(l->watch[l->nwatch].host, sizeof(l->watch[0].host), "%s", host ? host : "");
	snprintf(l->watch[l->nwatch].cause, sizeof(l->watch[0].cause), "%s", cause);
	l->watch[l->nwatch++].pid = pid;
}

static void compare_watch(const struct explain_logs *l, struct record_inferred *r)
{
	for (int i = 0; i < l->nwatch; i++) {
		if (l->watch[i].pid != r->pid || (r->in.host[0] && l->watch[i].host[0] &&
						  strcmp(l->watch[i].host, r->in.host)))
			continue;
		/* a pid is reused across jobs: two jobs that both name theirs differ */
		if (r->job[0] && l->watch[i].job[0] && strcmp(l->watch[i].job, r->job))
			continue;
		r->have_watch = true;
		snprintf(r->watch_cause, sizeof(r->watch_cause), "%s", l->watch[i].cause);
		r->agrees = r->v.ncand && !strcmp(cause_name(r->v.cand[0].cause), l->watch[i].cause);
		return;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;

	/* NCCL's INFO that GPUDirect is off is a condition, not the failure:
	 * after the failures whatever its time */
	if ((x->r.in.kind == INF_GDR_OFF) != (y->r.in.kind == INF_GDR_OFF))
		return x->r.in.kind == INF_GDR_OFF ? 1 : -1;

	if (x->has_time && y->has_time && x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->has_time != y->has_time)
		return x->has_time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Job by job, the job whose first failure came first leading; within a job
 * the time order by_time gave (stable: the groups move as blocks). */
static void by_job(struct explain_logs *l)
{
	struct group *sorted[EXPLAIN_LOG_GROUPS];
	bool done[EXPLAIN_LOG_GROUPS] = { false };
	int n = 0;

	for (int i = 0; i < l->ngroups; i++) {
		int job = l->groups[i]->job;
		if (done[job])
			continue;
		done[job] = true;
		for (int k = i; k < l->ngroups; k++)
			if (l->groups[k]->job == job)
				sorted[n++] = l->groups[k];
	}
	memcpy(l->groups, sorted, sizeof(sorted[0]) * (size_t)n);
}

/* Whether a kernel line's firmware failure weighs on g: a kernel group of
 * g's host (or of none) and of g's job (or of none, as a separate dmesg
 * file is).  One job's kernel line never judges another's failure, nor one
 * host's another's.  op_status: only a line that refused g's own object
 * (its op) with that firmware status. */
static bool kernel_line_of(const struct explain_logs *l, const struct group *g, bool op_status,
			   unsigned status)
{
	enum rdma_op op = inferred_in_op(&g->r.in);

	if (op_status && (g->r.in.kind != INF_CALL || op == OP_NONE))
		return false;
	for (int i = 0; i < l->ngroups; i++) {
		const struct group *k = l->groups[i];
		if (k->r.in.kind != INF_KERNEL_LOG)
			continue;
		if (op_status && ((unsigned)k->r.in.status != status || inferred_in_op(&k->r.in) != op))
			continue;
		if (k->r.job[0] && g->r.job[0] && strcmp(k->r.job, g->r.job))
			continue;
		if (same_host(k->r.in.host, g->r.in.host))
			return true;
	}
	return false;
}

/* any firmware failure line (CREATE_MKEY) for g */
static bool kernel_line_for(const struct explain_logs *l, const struct group *g)
{
	return kernel_line_of(l, g, false, 0);
}

/* a line that says the firmware refused g's own object with LIM_ERR (0x8):
 * CREATE_QP for a failed ibv_create_qp / rdma_create_qp, CREATE_CQ for a CQ */
static bool kernel_lim_for(const struct explain_logs *l, const struct group *g)
{
	return kernel_line_of(l, g, true, 0x8);
}

int explain_logs_finish(struct explain_logs *l, void (*write_piece)(void *arg, const char *s, size_t n),
			void *arg, char *err, size_t errlen)
{
	struct inferred_facts here, other, *f;
	char me[HOST_NAME_MAX + 1] = "";
	enum inferred_setting s = l->o.setting;
	bool real[EXPLAIN_LOG_GROUPS] = { false };
	int toshow[EXPLAIN_LOG_GROUPS] = { 0 }, shown_of[EXPLAIN_LOG_GROUPS] = { 0 };
	int shown = 0, jobs_shown = 0;

	if (!l->ngroups)
		return 0;
	if (s == INF_SET_UNKNOWN)
		s = l->slurm ? INF_SET_SLURM : INF_SET_SHELL;
	gethostname(me, sizeof(me) - 1);
	memset(&other, 0, sizeof(other));
	if (l->o.facts_file) {
		if (explain_facts_file(l->o.facts_file, s, l->o.unit, &other, err, errlen))
			return -1;
	}
	if (explain_facts_local(s, l->o.unit, l->o.pid, &here, err, errlen))
		return -1;
	qsort(l->groups, (size_t)l->ngroups, sizeof(l->groups[0]), by_time);
	by_job(l);
	for (int i = 0; i < l->ngroups; i++) {
		struct record_inferred *r = &l->groups[i]->r;
		real[l->groups[i]->job] |= r->in.kind != INF_WRAPPER;
		/* a line that names no host is from --host's node, if it says */
		if (!r->in.host[0] && l->o.host) {
			snprintf(r->in.host, sizeof(r->in.host), "%s", l->o.host);
			r->no_host = false;
		} else {
			r->no_host = !r->in.host[0];
		}
	}
	for (int i = 0; i < l->ngroups; i++) {
		struct group *g = l->groups[i];
		if (!(real[g->job] && g->r.in.kind == INF_WRAPPER) && !toshow[g->job]++)
			jobs_shown++;
	}
	for (int i = 0; i < l->ngroups; i++) {
		struct group *g = l->groups[i];
		struct record_inferred *r = &g->r;
		struct record rec = { .kind = &record_kind_inferred_failure, .data = r };
		char *text = NULL;
		size_t len = 0;
		FILE *m;

		/* a wrapper is its failure's echo when its job's lines name one:
		 * no verdict of its own, and no group in the tally either (the
		 * tally's groups are the verdicts shown) */
		if (r->in.kind == INF_WRAPPER && real[g->job]) {
			l->folded++;
			continue;
		}
		/* whose facts: --facts names the node; else this node's, when
		 * the log is this node's, or names no host and -p names a
		 * process here; a line of no host is judged alone (issue 46
		 * item 4: this node's facts are not a log's by default) */
		r->other_host = r->in.host[0] && strcmp(r->in.host, me);
		if (l->o.facts_file) {
			f = &other;
			r->other_host = r->in.host[0] && strcmp(r->in.host, other.host);
		} else if (r->no_host) {
			f = l->o.pid > 0 ? &here : NULL;
		} else {
			f = r->other_host ? NULL : &here;
		}
		snprintf(r->judged_on, sizeof(r->judged_on), "%s", f ? f->host : "");
		if (!f)
			snprintf(r->judged_on, sizeof(r->judged_on), "%s", "");
		r->in.mkey_failed = kernel_line_for(l, g);
		r->in.kernel_lim_same_op = kernel_lim_for(l, g);
		inferred_judge(&r->in, f, s, l->o.unit, &r->v);
		r->same_ranks = (unsigned long)(g->nseen > 1 ? g->nseen - 1 : 0) + g->seen_dropped;
		compare_watch(l, r);
		if (!(m = open_memstream(&text, &len)))
			continue;
		if (l->o.json) {
			struct json_object *o = record_to_json(&rec);
			fprintf(m, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
			json_object_put(o);
		} else {
			int nth = shown_of[g->job];
			/* more than one job: each under its name, never one
			 * job's failure counted among another's ranks */
			if (jobs_shown > 1 && nth == 0)
				fprintf(m, "%s%s:\n", shown ? "\n" : "",
					l->jobs[g->job][0] ? esc(l->jobs[g->job]) : "lines that name no job");
			if (nth == 0 && toshow[g->job] > 1)
				fprintf(m, "first failure in time:\n");
			else if (nth == 1)
				fprintf(m, "then:\n");
			record_print_text(m, &rec, l->o.verbose, NULL);
		}
		fclose(m);
		write_piece(arg, text, len);
		free(text);
		shown++;
		shown_of[g->job]++;
	}
	return shown;
}

void explain_logs_tally(const struct explain_logs *l, FILE *out)
{
	int groups = l->ngroups - l->folded;

	fprintf(out, "mrtrace explain: %lu failure line%s in %d group%s", l->failures,
		l->failures == 1 ? "" : "s", groups, groups == 1 ? "" : "s");
	if (l->summaries)
		fprintf(out, " (%lu wrapper line%s%s: %s)", l->summaries, l->summaries == 1 ? "" : "s",
			l->folded ? ", the echo of their job's failure" : "", esc(l->summary_example));
	if (l->not_judged)
		fprintf(out, ", %lu beyond %d groups not judged", l->not_judged, EXPLAIN_LOG_GROUPS);
	fputc('\n', out);
}
