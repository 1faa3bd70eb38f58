// SPDX-License-Identifier: GPL-2.0-only
/* correlate.c - join kernel records with libibverbs calls, keep /proc data
 * per process, count repeats (see correlate.h).
 *
 * Length: over the usual 500 lines: the pending table, the process cache
 * and the storm slots are one state (struct corr) that every path through
 * corr_push, corr_tick and corr_storm reads and changes; split, each part
 * would need the others' invariants through a private header. */
#include "watch/correlate.h"

#include "record/kind.h"
#include "watch/kenv.h"
#include "proc/ustack_raw.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct pending {
	bool used;
	unsigned long seq; /* arrival order: the oldest leaves first */
	double since;
	struct mrt_event ev;
};

/* What /proc said about one process.  pid 0: a free slot. */
struct corr_proc {
	int pid;
	unsigned long long start; /* its start time; 0 when unknown */
	double used, checked, read_at;
	/* have_ctx: ctx was read from /proc.  Otherwise the process was gone at
	 * first sight and ctx holds what its first record carried (with the
	 * cgroup path looked up once by id), when fallback_ready. */
	bool have_ctx, fallback_ready;
	/* read at the first device context (corr_contact): read again at the
	 * first failure if the process still lives */
	bool snapshot;
	struct proc_context ctx;
	bool have_nccl;
	struct nccl_info nccl;
	char *maps; /* /proc/PID/maps, read at the first libibverbs call */
	/* NCCL's dma-buf probe seen failing in this process: told with the
	 * GPU-memory failures that follow it (gate_facts.gpu.probe) */
	struct gpu_probe probe;
	bool maps_tried;
	double maps_at;
	/* the kernel's copy of what places it (MRT_EV_ENVIRON, corr_environ):
	 * used for the records of the same process only (start, exe, uid) */
	bool have_kenv;
	struct corr_kenv kenv;
};

/* The record that opened a storm run, to be reported again with a count. */
struct storm_slot {
	bool used, alone; /* alone: a libibverbs call without kernel record */
	bool has_uev;
	double used_at;
	struct mrt_storm_key key;
	struct mrt_event ev, uev;
};

struct corr {
	struct corr_ops ops;
	struct corr_config cfg;
	struct corr_stats st;
	unsigned long seq;
	struct pending pending[CORR_PENDING_MAX];
	struct corr_proc procs[CORR_PROCS_MAX];
	struct report_repeats repeats;
	struct storm_slot storms[CORR_STORMS_MAX];
	struct report r; /* the one being handed to the sink */
	struct mrt_event kcall; /* a libibverbs call made from a kernel record */
	/* raw user stacks (MRT_EV_USTACK_RAW) waiting for the failed REG_MR
	 * record each precedes, by thread (corr_ustack_raw) */
	struct { bool used; struct mrt_ustack_raw r; } raws[4];
	unsigned int nraws;
	struct mrt_event kraw; /* such a record with the return addresses found */
	struct gate_facts gates; /* of the failure being reported */
	/* threads whose device context the kernel just refused: libibverbs'
	 * ibv_open_device then returns NULL too, and that record adds nothing */
	struct { unsigned int tid; unsigned long long ts_ns; } opens[16];
	int nopens;
	struct proc_context scratch; /* an exited process's context, per record */
	struct nccl_info knccl; /* NCCL as the kernel's copy names it, per record */
};

static double now_of(struct corr *c)
{
	return c->ops.now(c->ops.arg);
}

struct corr *corr_new(const struct corr_ops *ops, const struct corr_config *cfg)
{
	struct corr *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ops = *ops;
	c->cfg = *cfg;
	return c;
}

static void proc_drop(struct corr_proc *p)
{
	free(p->maps);
	memset(p, 0, sizeof(*p));
}

void corr_free(struct corr *c)
{
	if (!c)
		return;
	for (int i = 0; i < CORR_PROCS_MAX; i++)
		proc_drop(&c->procs[i]);
	free(c);
}

const struct corr_stats *corr_stats(const struct corr *c)
{
	return &c->st;
}

int corr_pending(const struct corr *c)
{
	int n = 0;

	for (int i = 0; i < CORR_PENDING_MAX; i++)
		n += c->pending[i].used;
	return n;
}

/* ---- the process cache ---------------------------------------------------- */

/* What the record says of its process, for the cgroup lookup, the launcher
 * walk from the parent and the identity check (proc_context_identity). */
static void event_identity(const struct mrt_event *ev, struct proc_context_event *pe)
{
	memset(pe, 0, sizeof(*pe));
	pe->pid = ev->pid;
	pe->have = CTX_HAVE_UID | CTX_HAVE_COMM | CTX_HAVE_CGROUP_ID |
		   (record_has_memlock(ev) ? CTX_HAVE_MEMLOCK : 0);
	pe->uid = ev->uid;
	pe->memlock_cur = ev->ml.limit_cur;
	pe->cgroup_id = ev->cgroup_id;
	memcpy(pe->comm, ev->comm, sizeof(pe->comm) - 1);
	pe->start_ns = ev->start_ns;
	pe->exe_ino = ev->exe_ino;
	pe->ppid = (int)ev->ppid;
	pe->pstart_ns = ev->pstart_ns;
}

/* Whether the cached entry is another process than the record's: the
 * kernel's start time says so at once, without waiting for the recheck. */
static bool other_process(const struct corr_proc *p, const struct mrt_event *ev)
{
	return ev && ev->start_ns && p->start && p->start != proc_ns_to_ticks(ev->start_ns);
}

static void proc_read(struct corr *c, struct corr_proc *p, int pid, double now)
{
	proc_drop(p);
	p->pid = pid;
	p->used = p->checked = p->read_at = now;
	p->start = c->ops.start_time(c->ops.arg, pid);
	c->st.context_reads++;
	if (c->ops.read_context(c->ops.arg, pid, &p->ctx)) {
		c->st.gone++;
		p->start = 0;
		return;
	}
	p->have_ctx = true;
	/* read as it exited (a zombie, or its memory released): a user process
	 * without an executable or a command line is gone, whatever is left */
	if (!(p->ctx.have & (CTX_HAVE_EXE | CTX_HAVE_CMDLINE)) && !p->ctx.kernel_thread)
		p->ctx.unavailable = CTX_GONE;
	c->st.nccl_reads++;
	p->have_nccl = c->ops.read_nccl(c->ops.arg, &p->ctx, &p->nccl) == 0;
}

/* The same process, some seconds later: the numbers it prints as "now" and
 * the inferred verdicts use.  NCCL and the maps stay. */
static void proc_refresh(struct corr *c, struct corr_proc *p, double now)
{
	p->read_at = now;
	c->st.context_reads++;
	/* gone in between, or exiting (no executable, no command line left):
	 * keep the last reading */
	if (!c->ops.read_context(c->ops.arg, p->pid, &c->scratch) &&
	    (c->scratch.have & (CTX_HAVE_EXE | CTX_HAVE_CMDLINE)))
		p->ctx = c->scratch;
}

/* The cache entry for the record's process: found (identity checked at
 * most every CORR_RECHECK_S, and against the record's start time), or read
 * into a free or the least recently used slot.  ev NULL: by pid alone. */
static struct corr_proc *proc_of(struct corr *c, int pid, const struct mrt_event *ev)
{
	double now = now_of(c);
	struct corr_proc *p = NULL, *victim = NULL;

	for (int i = 0; i < CORR_PROCS_MAX; i++) {
		struct corr_proc *q = &c->procs[i];
		if (q->pid == pid) {
			p = q;
			break;
		}
		if (!victim || (victim->pid && (!q->pid || q->used < victim->used)))
			victim = q;
	}
	if (!p) {
		proc_read(c, victim, pid, now);
		return victim;
	}
	p->used = now;
	if (p->snapshot && ev && ev->kind != MRT_EV_CONTACT) {
		/* its first failure: the numbers as of now, if it still lives */
		p->snapshot = false;
		if (p->have_ctx && !other_process(p, ev) &&
		    c->ops.start_time(c->ops.arg, pid) == p->start)
			proc_refresh(c, p, now);
		return p;
	}
	if (now - p->checked < CORR_RECHECK_S && !other_process(p, ev))
		return p;
	p->checked = now;
	unsigned long long st = c->ops.start_time(c->ops.arg, pid);
	if (!st)
		return p; /* gone: what we kept is the best there is for its records */
	if (p->have_ctx && st == p->start && !other_process(p, ev)) {
		if (now - p->read_at >= CORR_REFRESH_S)
			proc_refresh(c, p, now);
		return p;
	}
	/* another process has this pid now */
	proc_read(c, p, pid, now);
	return p;
}

/* The cgroup-derived fields of an exited process's context, from the one
 * lookup made for its first record (the lookup walks /sys/fs/cgroup). */
static void graft_cgroup(struct proc_context *to, const struct proc_context *from)
{
	if (!(from->have & CTX_HAVE_CGROUP))
		return;
	memcpy(to->cgroup_path, from->cgroup_path, sizeof(to->cgroup_path));
	to->runtime = from->runtime;
	memcpy(to->container_id, from->container_id, sizeof(to->container_id));
	memcpy(to->pod_uid, from->pod_uid, sizeof(to->pod_uid));
	memcpy(to->systemd_unit, from->systemd_unit, sizeof(to->systemd_unit));
	to->systemd_user_unit = from->systemd_user_unit;
	to->slurm_job = from->slurm_job;
	memcpy(to->slurm_step, from->slurm_step, sizeof(to->slurm_step));
	to->have |= CTX_HAVE_CGROUP;
}

/* The launchers found from the parent for the first record, as above. */
static void graft_launchers(struct proc_context *to, const struct proc_context *from)
{
	if (!(from->have & CTX_HAVE_LAUNCHERS))
		return;
	to->n_launchers = from->n_launchers;
	to->launchers_truncated = from->launchers_truncated;
	memcpy(to->launchers, from->launchers, sizeof(to->launchers));
	to->ppid = from->ppid;
	to->have |= from->have & (CTX_HAVE_LAUNCHERS | CTX_HAVE_PPID);
}

/* A process that exited before /proc could be read, or whose /proc is
 * another process's now (why: pe's identity check): the report is built
 * from the record's own fields, the cgroup found by its id and the
 * launchers from the parent it recorded.  Never another program's. */
static const struct proc_context *context_from_record(struct corr *c, struct corr_proc *p,
						      const struct proc_context_event *pe,
						      enum ctx_unavailable why)
{
	struct proc_context *ctx = &c->scratch;

	if (p->have_ctx) {
		/* the entry is the other process's: nothing of it to keep */
		proc_context_from_event(c->cfg.cgroup_root, pe, ctx);
	} else if (!p->fallback_ready || p->ctx.cgroup_id != pe->cgroup_id) {
		proc_context_from_event(c->cfg.cgroup_root, pe, &p->ctx);
		p->fallback_ready = true;
		ctx = &p->ctx;
	} else {
		proc_context_from_event(NULL, pe, ctx);
		graft_cgroup(ctx, &p->ctx);
		graft_launchers(ctx, &p->ctx);
	}
	ctx->unavailable = why;
	return ctx;
}

/* A record's context with what the kernel copied for the same process:
 * its environment (the kernel's copy is the block /proc would show) and,
 * where /proc could not walk them, its launchers. */
static const struct proc_context *graft_kenv(struct corr *c, struct corr_proc *p,
					     const struct mrt_event *ev,
					     const struct proc_context *ctx)
{
	if (!p->have_kenv || !corr_kenv_same(&p->kenv, ev))
		return ctx;
	if (ctx != &c->scratch) {
		memcpy(&c->scratch, ctx, sizeof(c->scratch));
		ctx = &c->scratch;
	}
	corr_kenv_graft(&p->kenv, &c->scratch);
	return ctx;
}

static bool load_maps(struct corr *c, struct corr_proc *p, double now)
{
	char *m;

	p->maps_tried = true;
	p->maps_at = now;
	c->st.maps_reads++;
	if (!(m = c->ops.read_maps(c->ops.arg, p->pid)))
		return false;
	free(p->maps);
	p->maps = m;
	return true;
}

/* Which library the call came through, from the process's cached maps.  A
 * stack with no caller may lie in a library mapped since the maps were
 * read: they are read again then, at most every CORR_RECHECK_S. */
static void attribute(struct corr *c, struct corr_proc *p, const struct mrt_event *uev,
		      struct ustack_attr *ua)
{
	int n = uev->nustack < MRT_USTACK_MAX ? (int)uev->nustack : MRT_USTACK_MAX;
	const uint64_t *ips = (const uint64_t *)uev->ustack;
	double now = now_of(c);
	bool fresh = false;

	memset(ua, 0, sizeof(*ua));
	if (!p->maps && (!p->maps_tried || now - p->maps_at >= CORR_RECHECK_S))
		fresh = load_maps(c, p, now);
	if (!p->maps)
		return;
	ustack_attribute_maps(p->maps, ips, n, ua);
	if (!ua->caller[0] && !ua->via_nccl && !fresh && now - p->maps_at >= CORR_RECHECK_S &&
	    load_maps(c, p, now))
		ustack_attribute_maps(p->maps, ips, n, ua);
}

/* ---- a libibverbs call from the kernel's record ------------------------------ */

static unsigned int api_of_symbol(const char *name)
{
	if (!strcmp(name, "ibv_reg_mr") || !strcmp(name, "__ibv_reg_mr"))
		return MRT_API_REG_MR;
	if (!strcmp(name, "ibv_reg_mr_iova") || !strcmp(name, "__ibv_reg_mr_iova"))
		return MRT_API_REG_MR_IOVA;
	if (!strcmp(name, "ibv_reg_mr_iova2"))
		return MRT_API_REG_MR_IOVA2;
	if (!strcmp(name, "ibv_reg_dmabuf_mr"))
		return MRT_API_REG_DMABUF_MR;
	return MRT_API_NONE;
}

/* The API the application called: the outermost libibverbs registration
 * function among the return addresses the kernel found on the user stack
 * (bpf/common.bpf.h, kernel_ustack).  A tail call leaves no frame:
 * ibv_reg_mr that ends in ibv_reg_mr_iova2 is named ibv_reg_mr_iova2.
 * A frame is named through the cached maps (the library as the process maps
 * it, a container's own), else by the file and offset the kernel found, for
 * the libibverbs files the tracer knows: the process may have exited before
 * its maps were read, or after, before its library could be opened through
 * /proc/<pid>/root. */
static unsigned int api_of_stack(struct corr *c, struct corr_proc *p, const struct mrt_event *ev)
{
	int n = ev->nustack < MRT_USTACK_MAX ? (int)ev->nustack : MRT_USTACK_MAX;
	unsigned int api = MRT_API_NONE;

	for (int i = 0; i < n; i++) {
		char name[128];
		/* elsewhere: mapped, to another file than libibverbs */
		bool elsewhere = false, named = false;
		for (const char *line = c->ops.symbol_at ? p->maps : NULL; line && *line;) {
			unsigned long long lo, hi, off, ino;
			char path[256] = "";
			const char *eol = strchr(line, '\n');
			if (sscanf(line, "%llx-%llx %*s %llx %*s %llu %255[^\n]", &lo, &hi, &off, &ino,
				   path) == 5 &&
			    ev->ustack[i] >= lo && ev->ustack[i] < hi) {
				const char *b = strrchr(path, '/');
				b = b ? b + 1 : path;
				/* the return address is after the call: the call is in the function */
				elsewhere = strncmp(b, "libibverbs", 10) != 0;
				struct corr_mapping m = { lo, hi, ino, path };
				named = !elsewhere && c->ops.symbol_at(c->ops.arg, ev->pid, &m,
								    ev->ustack[i] - 1 - lo + off,
								    name, sizeof(name));
				break;
			}
			line = eol ? eol + 1 : NULL;
		}
		if (!named && !elsewhere && ev->uino[i] && c->ops.symbol_of_inode)
			named = c->ops.symbol_of_inode(c->ops.arg, ev->uino[i], ev->uoff[i] - 1, name,
						       sizeof(name));
		if (named) {
			unsigned int a = api_of_symbol(name);
			if (a)
				api = a;
		}
	}
	return api;
}

/* ---- a raw user stack (before 5.17) ------------------------------------------ */

void corr_ustack_raw(struct corr *c, const struct mrt_ustack_raw *r, size_t size)
{
	size_t head = offsetof(struct mrt_ustack_raw, w);
	unsigned int i;

	if (size < head)
		return;
	for (i = 0; i < 4 && !(c->raws[i].used && c->raws[i].r.tid == r->tid); i++)
		;
	if (i == 4)
		i = c->nraws++ % 4; /* the oldest gives way: its record never came */
	memset(&c->raws[i].r, 0, sizeof(c->raws[i].r));
	memcpy(&c->raws[i].r, r, size < sizeof(*r) ? size : sizeof(*r));
	if (c->raws[i].r.words > (size - head) / sizeof(r->w[0]))
		c->raws[i].r.words = (unsigned int)((size - head) / sizeof(r->w[0]));
	c->raws[i].used = true;
	c->st.raw_stacks++;
	if (!(c->raws[i].r.lib_hi > c->raws[i].r.lib_lo))
		c->st.raw_stacks_unplaced++;
}

/* A failed REG_MR whose raw stack came just before it: the record with the
 * return addresses found among the words (user/proc/ustack_raw.c), as the
 * kernel's own scan would have given them (5.17+), through libibverbs'
 * range the kernel sent with the words and the process's maps read now if
 * it lives, else those kept since its first device context (corr_contact).
 * Any other record: itself. */
static const struct mrt_event *with_raw_stack(struct corr *c, const struct mrt_event *ev)
{
	struct corr_proc *p;
	double now = now_of(c);
	int i, words;

	if (ev->kind != MRT_EV_REG_FAILURE || ev->opener != MRT_SITE_UVERBS_REG_MR || ev->nustack)
		return ev;
	for (i = 0; i < 4 && !(c->raws[i].used && c->raws[i].r.tid == ev->tid &&
			       c->raws[i].r.pid == ev->pid); i++)
		;
	if (i == 4)
		return ev;
	c->raws[i].used = false;
	if (!(p = proc_of(c, ev->pid, ev)))
		return ev;
	if (!p->maps || now - p->maps_at >= CORR_RECHECK_S)
		load_maps(c, p, now); /* kept as they were when the process is gone */
	/* libibverbs' code as the kernel found it at the failure: the process
	 * may have exited before its maps were ever read (a one-vCPU guest runs
	 * the failing process to its end before the watcher: CI's 5.10) */
	const struct mrt_ustack_raw *r = &c->raws[i].r;
	struct ustack_code lib = { r->lib_lo, r->lib_hi, r->lib_off, r->lib_ino };
	if (!p->maps && !(lib.hi > lib.lo))
		return ev;
	c->kraw = *ev;
	words = r->words < MRT_USTACK_RAW_WORDS ? (int)r->words : MRT_USTACK_RAW_WORDS;
	/* each frame's file and offset as the kernel or the maps name them: the
	 * process may be gone before its library can be opened (api_of_stack) */
	c->kraw.nustack = (unsigned int)ustack_raw_frames(
		p->maps, &lib, (const uint64_t *)r->w, words, (uint64_t *)c->kraw.ustack,
		(uint64_t *)c->kraw.uino, (uint64_t *)c->kraw.uoff, MRT_USTACK_MAX);
	return &c->kraw;
}

/* The call as a USER_CALL record: the command's arguments as the kernel
 * read them, its errno, the user stack the kernel took. */
static void kernel_call(struct corr *c, const struct mrt_event *ev, struct mrt_event *u)
{
	struct corr_proc *p = proc_of(c, ev->pid, ev);
	double now = now_of(c);

	*u = *ev;
	u->kind = MRT_EV_USER_CALL;
	u->opener = MRT_API_NONE;
	u->cmd_reached = 1;
	u->dmabuf_fd = -1;
	u->nsteps = 0;
	if (!p || !ev->nustack)
		return;
	/* read now: the process may exit any moment */
	if (!p->maps && (!p->maps_tried || now - p->maps_at >= CORR_RECHECK_S))
		load_maps(c, p, now);
	u->opener = api_of_stack(c, p, ev);
}

/* ---- reports ---------------------------------------------------------------- */

static void storm_key_of(const struct mrt_event *ev, struct mrt_storm_key *k)
{
	memset(k, 0, sizeof(*k));
	k->pid = ev->pid;
	k->kind = ev->kind;
	k->err = ev->err;
	k->opener = ev->opener;
	k->shape = ev->storm_shape;
}

static bool same_key(const struct mrt_storm_key *a, const struct mrt_storm_key *b)
{
	return a->pid == b->pid && a->kind == b->kind && a->err == b->err &&
	       a->opener == b->opener && a->shape == b->shape;
}

static struct storm_slot *storm_find(struct corr *c, const struct mrt_storm_key *k)
{
	for (int i = 0; i < CORR_STORMS_MAX; i++)
		if (c->storms[i].used && same_key(&c->storms[i].key, k))
			return &c->storms[i];
	return NULL;
}

/* A record that opened a storm run: kept (in the slot of its key, a free
 * one or the least recently used) for the summaries of its run. */
static void storm_keep(struct corr *c, const struct mrt_event *ev, const struct mrt_event *uev)
{
	struct mrt_storm_key k;
	struct storm_slot *s;

	storm_key_of(ev, &k);
	if (!(s = storm_find(c, &k))) {
		s = &c->storms[0];
		for (int i = 0; i < CORR_STORMS_MAX && s->used; i++)
			if (!c->storms[i].used || c->storms[i].used_at < s->used_at)
				s = &c->storms[i];
	}
	s->used = true;
	s->key = k;
	s->used_at = now_of(c);
	s->ev = *ev;
	s->alone = uev == ev;
	s->has_uev = uev && uev != ev;
	if (s->has_uev)
		s->uev = *uev;
}

/* storm: NULL for an ordinary record, else the summary's numbers (r->count
 * and the times) */
static void report_as(struct corr *c, const struct mrt_event *ev, const struct mrt_event *uev,
		      const struct report *storm)
{
	struct corr_proc *p = proc_of(c, ev->pid, ev);
	const struct proc_context *ctx;
	const struct nccl_info *nccl = NULL;
	struct report *r = &c->r;
	unsigned long nth = 0;
	struct proc_context_event pe;
	enum ctx_unavailable why = CTX_GONE;

	event_identity(ev, &pe);
	if (p->have_ctx && !(why = proc_context_identity(&p->ctx, &pe))) {
		ctx = &p->ctx;
		nccl = p->have_nccl ? &p->nccl : NULL;
	} else {
		if (p->have_ctx)
			c->st.mismatched++;
		ctx = context_from_record(c, p, &pe, why);
	}
	ctx = graft_kenv(c, p, ev, ctx);
	if (!nccl && p->have_kenv && (ctx->have & CTX_HAVE_ENV) && corr_kenv_same(&p->kenv, ev)) {
		/* gone before /proc was read: the rank from the kernel's copy */
		corr_kenv_nccl(&p->kenv, ctx, &c->knccl);
		nccl = &c->knccl;
	}
	struct gate_facts *g = NULL;
	/* a failure's gates; a registration's only when it can be GPU memory
	 * or a failed long-term pin (gates_record_wants_facts) */
	if (c->ops.read_gates && (record_kind_of_event(ev)->flags & RECORD_GATES) &&
	    gates_record_wants_facts(ev)) {
		c->ops.read_gates(c->ops.arg, ev->pid, ev, &c->gates);
		c->gates.gpu.probe = p->probe;
		g = &c->gates;
	}
	if (!storm && ev->storm_shape)
		storm_keep(c, ev, uev);
	record_explain(r, ev, uev, ctx, nccl, g);
	if (storm) {
		r->count = storm->count;
		r->first_ts_ns = storm->first_ts_ns;
		r->last_ts_ns = storm->last_ts_ns;
	}
	if (uev)
		attribute(c, p, uev, &r->ua);
	if (r->v.harmless) {
		p->probe = (struct gpu_probe){ .seen = true, .err = r->v.err, .ts_ns = ev->ts_ns };
		c->st.harmless++;
		if (!c->cfg.keep_harmless)
			return;
	}
	if (c->cfg.dedupe)
		nth = report_repeats_add(&c->repeats, ev->pid, r->v.cause,
					 storm ? (unsigned long)storm->count : 1);
	c->st.reported++;
	if (storm) {
		c->st.summaries++;
		c->st.folded += storm->count;
	}
	c->ops.sink(c->ops.sink_arg, r, nth);
}

static void report(struct corr *c, const struct mrt_event *ev, const struct mrt_event *uev)
{
	report_as(c, ev, uev, NULL);
}

/* The oldest waiting record that satisfies `due`, or NULL. */
static struct pending *oldest(struct corr *c, bool all, double now)
{
	struct pending *o = NULL;

	for (int i = 0; i < CORR_PENDING_MAX; i++) {
		struct pending *q = &c->pending[i];
		if (q->used && (all || now - q->since >= CORR_PENDING_WAIT_S) && (!o || q->seq < o->seq))
			o = q;
	}
	return o;
}

static void pend(struct corr *c, const struct mrt_event *ev)
{
	struct pending *slot = NULL;

	for (int i = 0; i < CORR_PENDING_MAX && !slot; i++)
		if (!c->pending[i].used)
			slot = &c->pending[i];
	if (!slot) {
		/* full: the oldest goes out alone, now (it waited longest) */
		slot = oldest(c, true, 0);
		slot->used = false;
		c->st.flushed_early++;
		report(c, &slot->ev, NULL);
	}
	slot->used = true;
	slot->seq = ++c->seq;
	slot->since = now_of(c);
	slot->ev = *ev;
}

/* The kernel record this call caused: same thread, recorded before the
 * call returned.  Should an older record of the thread still wait (its own
 * call never came), the newest one is this call's. */
static struct pending *join_of(struct corr *c, const struct mrt_event *uev)
{
	struct pending *best = NULL;

	for (int i = 0; i < CORR_PENDING_MAX; i++) {
		struct pending *q = &c->pending[i];
		if (!q->used || q->ev.pid != uev->pid || q->ev.tid != uev->tid || q->ev.ts_ns > uev->ts_ns)
			continue;
		if (!best || q->ev.ts_ns > best->ev.ts_ns ||
		    (q->ev.ts_ns == best->ev.ts_ns && q->seq > best->seq))
			best = q;
	}
	return best;
}

/* A kernel refusal of a device context (GET_CONTEXT: the rdma cgroup's
 * hca_handle) is remembered; libibverbs' NULL from ibv_open_device on the
 * same thread right after it is the same failure seen from user space. */
static bool open_already_explained(struct corr *c, const struct mrt_event *ev)
{
	const unsigned long long window_ns = 2000000000ULL;

	if (ev->opener != MRT_SITE_OPEN_DEVICE) {
		c->opens[c->nopens % 16].tid = ev->tid;
		c->opens[c->nopens % 16].ts_ns = ev->ts_ns;
		c->nopens++;
		return false;
	}
	for (int i = 0; i < 16 && i < c->nopens; i++)
		if (c->opens[i].tid == ev->tid && ev->ts_ns >= c->opens[i].ts_ns &&
		    ev->ts_ns - c->opens[i].ts_ns < window_ns)
			return true;
	return false;
}

/* The kernel's copy: its process in the cache (read from /proc now if new:
 * what the copy lacks, NCCL's library among it) and its environment
 * through the allow-list at once. */
void corr_environ(struct corr *c, const struct mrt_environ *e, size_t size)
{
	static struct mrt_event id; /* the process as a record names it */
	struct corr_proc *p;
	size_t len = e->env_len;

	if (size < MRT_ENVIRON_HDR)
		return;
	if (len > size - MRT_ENVIRON_HDR || len > MRT_ENV_BYTES)
		len = 0; /* inconsistent: take no byte of it */
	memset(&id, 0, sizeof(id));
	id.kind = MRT_EV_CONTACT;
	id.pid = id.tid = e->pid;
	id.uid = e->uid;
	id.cgroup_id = e->cgroup_id;
	memcpy(id.comm, e->comm, sizeof(id.comm));
	id.start_ns = e->start_ns;
	id.exe_ino = e->exe.ino;
	id.ppid = e->nancestors ? e->anc[0].tgid : 0;
	id.pstart_ns = e->nancestors ? e->anc[0].start_ns : 0;
	p = proc_of(c, (int)e->pid, &id);
	c->st.environs++;
	corr_kenv_take(&p->kenv, e, len);
	p->have_kenv = true;
	c->st.env_cut_entries += (unsigned long)p->kenv.env.cut_entries;
}

void corr_contact(struct corr *c, const struct mrt_event *ev)
{
	struct corr_proc *p = proc_of(c, (int)ev->pid, ev);

	c->st.contacts++;
	p->snapshot = p->have_ctx;
	/* where the REG_MR exit copies the caller's stack raw (before 5.17),
	 * its maps now: a process that exits at its failure leaves these to
	 * find the frames (bounded: execmaps.h, CORR_PROCS_MAX processes).
	 * The kernel's own scan (5.17+) names each frame's inode itself: no
	 * read then. */
	if (c->cfg.kernel_calls && c->cfg.stack_raw && !p->maps)
		load_maps(c, p, now_of(c));
}

void corr_push(struct corr *c, const struct mrt_event *ev)
{
	const struct record_kind *k = record_kind_of_ring(ev->kind);
	struct pending *p;

	if (k && !k->explained)
		return; /* not a failure: nothing to explain */
	c->st.records++;
	switch (k ? k->join : RECORD_ALONE) {
	case RECORD_IS_CALL:
		if ((p = join_of(c, ev))) {
			p->used = false;
			c->st.joined++;
			report(c, &p->ev, ev);
			return;
		}
		/* no kernel trail: kernel sites unarmed, or refused in libibverbs */
		c->st.alone++;
		report(c, ev, ev);
		return;
	case RECORD_WAITS_FOR_CALL:
		proc_of(c, ev->pid, ev); /* now, while the process most likely still exists */
		if (c->cfg.kernel_calls && ev->opener != MRT_SITE_UVERBS_REG_DMABUF) {
			struct mrt_event *u = &c->kcall;
			ev = with_raw_stack(c, ev);
			kernel_call(c, ev, u);
			report(c, ev, u);
			return;
		}
		if (c->cfg.join) {
			pend(c, ev);
			return;
		}
		report(c, ev, NULL);
		return;
	case RECORD_ALONE:
		/* libibverbs' NULL from ibv_open_device after the kernel refused
		 * the same thread's device context: one failure, explained once */
		if (ev->op == MRT_OP_OPEN_DEVICE && open_already_explained(c, ev)) {
			c->st.joined++;
			return;
		}
		report(c, ev, NULL);
		return;
	}
}

static void flush(struct corr *c, bool all)
{
	double now = now_of(c);
	struct pending *o;

	while ((o = oldest(c, all, now))) {
		o->used = false;
		if (all)
			c->st.flushed_at_end++;
		else
			c->st.waited_out++;
		report(c, &o->ev, NULL);
	}
}

void corr_tick(struct corr *c)
{
	flush(c, false);
}

void corr_flush(struct corr *c)
{
	flush(c, true);
}

void corr_set_kernel_calls(struct corr *c, bool on)
{
	c->cfg.kernel_calls = on;
}

void corr_set_stack_raw(struct corr *c, bool on)
{
	c->cfg.stack_raw = on;
}

void corr_set_join(struct corr *c, bool join)
{
	if (c->cfg.join && !join)
		flush(c, true);
	c->cfg.join = join;
}

int corr_storm(struct corr *c, const struct mrt_storm_key *key, unsigned long long count,
	       unsigned long long first_ts_ns, unsigned long long last_ts_ns, bool force)
{
	struct report numbers = { .count = count, .first_ts_ns = first_ts_ns, .last_ts_ns = last_ts_ns };
	struct storm_slot *s = storm_find(c, key);
	static struct mrt_event ev, uev; /* copies: the slot may be reused by the report */

	if (!count)
		return 0;
	/* the run's own first record still waits for its call: after it */
	for (int i = 0; i < CORR_PENDING_MAX && !force; i++) {
		struct mrt_storm_key k;
		if (!c->pending[i].used || !c->pending[i].ev.storm_shape)
			continue;
		storm_key_of(&c->pending[i].ev, &k);
		if (same_key(&k, key))
			return -1;
	}
	if (!s && !force)
		return -1;
	if (s) {
		s->used_at = now_of(c);
		ev = s->ev;
		if (s->has_uev)
			uev = s->uev;
	} else {
		/* its record was lost (ring buffer full): what the key says */
		memset(&ev, 0, sizeof(ev));
		ev.kind = key->kind;
		ev.pid = ev.tid = key->pid;
		ev.err = key->err;
		ev.opener = key->opener;
		ev.dmabuf_fd = -1;
		c->st.summaries_unmatched++;
	}
	ev.ts_ns = last_ts_ns; /* the summary speaks as of its last failure */
	ev.storm_shape = 0;
	if (s ? s->alone : record_kind_of_event(&ev)->join == RECORD_IS_CALL)
		report_as(c, &ev, &ev, &numbers);
	else
		report_as(c, &ev, s && s->has_uev ? &uev : NULL, &numbers);
	return 0;
}
