// SPDX-License-Identifier: GPL-2.0-only
/* probe.c - the registration loop and the find-max search (see probe.h). */
#include "probe.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "findmax.h"
#include "core/pages.h"
#include "procstat.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "gpu.h"

/* The largest find-max trial, in whole pages: --size, else half of
 * MemAvailable, because root with CAP_IPC_LOCK has no limit and would
 * otherwise pin until memory runs out. */
static uint64_t find_max_cap_pages(const struct probe *p)
{
	uint64_t bytes = p->o->size_set ? p->o->size : mp_proc_mem_available() / 2;
	uint64_t pages = bytes / p->page;
	return pages ? pages : 1;
}

static void describe_plan(struct probe *p)
{
	const struct mrprobe_opts *o = p->o;
	char a[32], b[32], c[32], d[32], e[32], f[32];
	if (o->find_max) {
		snprintf(p->plan_text, sizeof(p->plan_text),
			 "find-max: trial registrations from 1 page up to %s%s, each deregistered again",
			 fmt_bytes(find_max_cap_pages(p) * p->page, a, sizeof(a)),
			 o->size_set ? " (--size)" : " (half of MemAvailable)");
	} else if (o->nccl_set) {
		const struct nccl_layout *l = &o->nccl;
		int n = snprintf(p->plan_text, sizeof(p->plan_text),
			 "NCCL %u channel%s x %u peer%s x (send + recv) = %llu connections x (LL %s + "
			 "LL128 %s + Simple %s = %s) = %s; %s of it pinned host memory; %zu registrations",
			 l->channels, l->channels == 1 ? "" : "s", l->peers, l->peers == 1 ? "" : "s",
			 (unsigned long long)nccl_layout_connections(l),
			 fmt_bytes(nccl_layout_proto_bytes(l, NCCL_PROTO_LL, p->page), a, sizeof(a)),
			 fmt_bytes(nccl_layout_proto_bytes(l, NCCL_PROTO_LL128, p->page), b, sizeof(b)),
			 fmt_bytes(nccl_layout_proto_bytes(l, NCCL_PROTO_SIMPLE, p->page), c, sizeof(c)),
			 fmt_bytes(nccl_layout_conn_bytes(l, p->page), d, sizeof(d)),
			 fmt_bytes(nccl_layout_total_bytes(l, p->page), e, sizeof(e)),
			 fmt_bytes(nccl_layout_host_bytes(l, p->page), f, sizeof(f)), p->plan.n);
		if (p->plan.skipped_gpu && n > 0 && (size_t)n < sizeof(p->plan_text))
			snprintf(p->plan_text + n, sizeof(p->plan_text) - (size_t)n,
				 " (the %zu GPU buffers of GDR are left out: add --gpu to register them)",
				 p->plan.skipped_gpu);
	} else if (o->mem == MEM_DMABUF_FD) {
		snprintf(p->plan_text, sizeof(p->plan_text), "%u x %s from dma-buf fd %d", o->count,
			 fmt_bytes(o->size, a, sizeof(a)), o->dmabuf_fd);
	} else {
		snprintf(p->plan_text, sizeof(p->plan_text), "%u x %s = %s", o->count,
			 fmt_bytes(o->size, a, sizeof(a)), fmt_bytes(mp_plan_bytes(&p->plan), b, sizeof(b)));
	}
}

int mp_probe_prepare(struct probe *p, const struct mrprobe_opts *o, struct rdma *r)
{
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->rdma = r;
	p->page = page_size();
	p->access = mp_opts_access(o);
	p->sum.first_fail_index = -1;
	int rc = 0;
	if (o->nccl_set)
		rc = mp_plan_nccl(&p->plan, &o->nccl, p->page, o->mem == MEM_GPU);
	else if (!o->find_max)
		rc = mp_plan_sized(&p->plan, o->size, o->count);
	if (!rc)
		p->held = calloc(p->plan.n ? p->plan.n : 1, sizeof(*p->held));
	if (rc || !p->held) {
		snprintf(p->err, sizeof(p->err), "out of memory for %zu registrations", p->plan.n);
		return -1;
	}
	describe_plan(p);
	return 0;
}

/* Which memory and API one registration uses.  In NCCL mode host buffers
 * stay host memory even with --gpu, and register with iova2 even with
 * --api dmabuf, because NCCL uses dma-buf only for GPU buffers. */
static void choose(const struct probe *p, const struct plan_entry *e, enum mem_kind *kind,
		   enum mr_api *api)
{
	*kind = p->o->mem;
	*api = p->o->api;
	if (!p->o->nccl_set)
		return;
	if (e->on_gpu) {
		*kind = MEM_GPU;
	} else {
		if (*kind == MEM_GPU)
			*kind = MEM_ANON;
		if (*api == API_DMABUF)
			*api = API_IOVA2;
	}
}

static void maybe_note(struct probe *p, const struct mrbuf *b)
{
	if (!b->note[0] || !strcmp(b->note, p->last_note))
		return;
	snprintf(p->last_note, sizeof(p->last_note), "%s", b->note);
	mp_report_note(p->o->json, b->note);
}

/* One registration: returns 0 registered (the MR is kept in *out), an errno
 * value, or -1 when the memory itself could not be had (setup failure). */
static int register_one(struct probe *p, enum mem_kind kind, enum mr_api api, uint64_t len,
			struct mr_report *m, struct held_mr *out)
{
	const struct mrprobe_opts *o = p->o;
	struct mrbuf b;
	if (mp_mem_get(kind, len, o->offset, api == API_DMABUF, o->dmabuf_fd, &b, p->err, sizeof(p->err)))
		return -1;
	maybe_note(p, &b);
	uint64_t iova = b.addr + (uint64_t)o->iova_offset;
	int err;
	struct ibv_mr *mr = mp_rdma_register(p->rdma, api, &b, iova, p->access, &err);

	m->api = api;
	m->mem = kind;
	m->addr = b.addr;
	m->len = b.len;
	m->iova = iova;
	m->pages = pages_spanned(api == API_DMABUF ? b.dmabuf_offset : b.addr, b.len, p->page);
	m->dmabuf_fd = b.dmabuf_fd;
	m->access = p->access;
	m->err = mr ? 0 : err;
	m->lkey = mr ? mr->lkey : 0;
	m->tid = gettid();
	if (mr) {
		out->mr = mr;
		out->buf = b;
	} else {
		mp_mem_put(&b);
	}
	return m->err;
}

static int run_plan(struct probe *p)
{
	struct summary_report *s = &p->sum;
	s->planned = (unsigned)p->plan.n;
	for (size_t i = 0; i < p->plan.n; i++) {
		const struct plan_entry *e = &p->plan.v[i];
		enum mem_kind kind;
		enum mr_api api;
		choose(p, e, &kind, &api);
		struct mr_report m = { .index = (unsigned)i, .label = e->label };
		struct held_mr h = { 0 };
		int rc = register_one(p, kind, api, e->len, &m, &h);
		if (rc < 0) {
			mp_report_error(p->o->json, "memory", p->err);
			return 2;
		}
		s->attempted++;
		if (rc == 0) {
			s->ok++;
			p->held[p->nheld++] = h;
			/* dma-buf MRs are not charged to the memlock limit. */
			if (api != API_DMABUF)
				p->cumulative += m.pages * p->page;
		} else if (s->failed++ == 0) {
			s->first_fail_index = (int)i;
			s->first_errno = rc;
		}
		m.cumulative_bytes = p->cumulative;
		m.vmpin_bytes = mp_proc_vmpin_bytes();
		mp_report_mr(p->o->json, &m);
		if (rc && !p->o->keep_going) {
			s->stopped_early = i + 1 < p->plan.n;
			break;
		}
	}
	return s->failed ? 1 : 0;
}

static bool find_max_try(void *ctx, uint64_t pages, int *err)
{
	struct probe *p = ctx;
	struct mr_report m = { .trial = true, .index = p->sum.trials++ };
	struct held_mr h = { 0 };
	int rc = register_one(p, p->o->mem, p->o->api, pages * p->page, &m, &h);
	if (rc < 0) {
		/* No memory to try with is not an answer about registration. */
		*err = ENOMEM;
		return false;
	}
	if (rc == 0) {
		ibv_dereg_mr(h.mr);
		mp_mem_put(&h.buf);
	}
	m.vmpin_bytes = mp_proc_vmpin_bytes();
	mp_report_mr(p->o->json, &m);
	*err = rc;
	return rc == 0;
}

static int run_find_max(struct probe *p)
{
	const struct mrprobe_opts *o = p->o;
	struct findmax_report f = { .page = p->page };
	uint64_t cap_pages = find_max_cap_pages(p);
	f.cap_bytes = cap_pages * p->page;
	f.pinned_before = mp_proc_vmpin_bytes();
	p->err[0] = '\0';
	mp_findmax_run(cap_pages, find_max_try, p, &f.r);
	if (p->err[0])
		mp_report_note(o->json, p->err);
	mp_proc_state_read(&f.ps);
	mp_report_find_max(o->json, &f);
	return f.r.max_pages > 0 ? 0 : 1;
}

static void *run(void *arg)
{
	struct probe *p = arg;
	p->status = p->o->find_max ? run_find_max(p) : run_plan(p);
	return NULL;
}

int mp_probe_exec(struct probe *p)
{
	struct setup_report s = {
		.device = p->rdma->name,
		.api = p->o->api,
		.access = p->access,
		.mem = p->o->mem,
		.thread = p->o->thread,
		.planned = (unsigned)p->plan.n,
		.planned_bytes = mp_plan_bytes(&p->plan),
		.plan_text = p->plan_text,
	};
	mp_proc_state_read(&s.ps);
	mp_report_setup(p->o->json, &s);

	if (p->o->thread) {
		/* NCCL registers on its proxy thread: the failing tid is not the pid. */
		pthread_t t;
		int e = pthread_create(&t, NULL, run, p);
		if (e) {
			snprintf(p->err, sizeof(p->err), "cannot start the registration thread (%s)",
				 strerror(e));
			mp_report_error(p->o->json, "thread", p->err);
			return p->status = 2;
		}
		pthread_join(t, NULL);
	} else {
		run(p);
	}

	p->sum.cumulative_bytes = p->cumulative;
	p->sum.exit_status = p->status;
	mp_proc_state_read(&p->sum.ps);
	mp_report_summary(p->o->json, &p->sum);
	return p->status;
}

static volatile sig_atomic_t stop_holding;

static void on_signal(int sig)
{
	(void)sig;
	stop_holding = 1;
}

void mp_probe_hold(struct probe *p, double seconds)
{
	if (seconds <= 0)
		return;
	/* No SA_RESTART: the signal must cut the sleep short. */
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	mp_report_hold(p->o->json, seconds, (unsigned)p->nheld, p->cumulative);
	struct timespec left = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (!stop_holding && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

void mp_probe_release(struct probe *p)
{
	for (size_t i = 0; i < p->nheld; i++) {
		ibv_dereg_mr(p->held[i].mr);
		mp_mem_put(&p->held[i].buf);
	}
	free(p->held);
	mp_plan_free(&p->plan);
	p->held = NULL;
	p->nheld = 0;
}

int mp_probe_memory_only(const struct mrprobe_opts *o)
{
	struct mrbuf b;
	char err[512], note[400], h[32];
	bool dmabuf = o->api == API_DMABUF;

	if (o->mem == MEM_GPU && mp_gpu_open(err, sizeof(err))) {
		mp_report_error(o->json, "gpu", err);
		return 2;
	}
	if (mp_mem_get(o->mem, o->size, o->offset, dmabuf, o->dmabuf_fd, &b, err, sizeof(err))) {
		mp_report_error(o->json, "memory", err);
		return 2;
	}
	snprintf(note, sizeof(note), "%s of %s memory at 0x%llx", fmt_bytes(b.len, h, sizeof(h)),
		 mp_mem_name(o->mem), (unsigned long long)b.addr);
	if (b.dmabuf_fd >= 0)
		str_appendf(note, sizeof(note), ", exported as dma-buf fd %d", b.dmabuf_fd);
	str_appendf(note, sizeof(note), ", nothing registered (--no-device)");
	mp_report_note(o->json, note);
	mp_mem_put(&b);
	return 0;
}
