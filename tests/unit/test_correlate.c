// SPDX-License-Identifier: GPL-2.0-only
/* test_correlate.c - the correlator (user/watch/correlate.c) with a fake
 * clock, fake /proc readers and a recording sink: the joins of kernel
 * records with libibverbs calls in every order, processes that exited, the
 * full pending table, the process cache (one read per process, a reused pid
 * noticed) and the repeat counts text output uses.  No /proc, no BPF, no
 * sleep. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture_path.h"
#include "record/record.h"
#include "watch/correlate.h"
#include "host_libibverbs.h"
#include "tracer/elfsym.h"

/* ---- the fakes ------------------------------------------------------------------ */

#define NPROCS 8
#define NGOT 256
#define LIB_LO 0x7f0000000000ULL
#define NCCL_LO 0x7f1000000000ULL
#define LATE_LO 0x7f2000000000ULL /* a library mapped after the first maps read */

static struct {
	double now;
	struct {
		int pid;
		unsigned long long start; /* 0: gone */
		uint64_t memlock; /* marks which process a context came from */
		uint64_t exe_ino; /* 0: not read */
		bool nccl;
	} procs[NPROCS];
	int context_reads, nccl_reads, maps_reads, start_reads;
	bool late_lib; /* the maps show LATE_LO */
	bool files_gone; /* the process exited after its maps were read: its
			  * /proc/<pid>/root no longer opens */
} fk;

static struct got {
	unsigned int pid, tid, kind;
	unsigned long long ts;
	bool has_uev;
	unsigned int uev_tid;
	enum cause cause;
	bool harmless;
	unsigned long nth;
	char api[32];
	bool has_ctx, has_nccl;
	enum ctx_unavailable unavailable;
	uint64_t memlock;
	uint32_t uid;
	char comm[16];
	char container[65];
	bool resolved, via_nccl;
	char caller[256];
} got[NGOT];
static int ngot;

static double fake_now(void *arg)
{
	(void)arg;
	return fk.now;
}

static int fake_slot(int pid)
{
	for (int i = 0; i < NPROCS; i++)
		if (fk.procs[i].pid == pid)
			return i;
	return -1;
}

static unsigned long long fake_start(void *arg, int pid)
{
	int i = fake_slot(pid);

	(void)arg;
	fk.start_reads++;
	return i < 0 ? 0 : fk.procs[i].start;
}

static int fake_context(void *arg, int pid, struct proc_context *ctx)
{
	int i = fake_slot(pid);

	(void)arg;
	fk.context_reads++;
	if (i < 0 || !fk.procs[i].start)
		return -ESRCH;
	proc_context_init(ctx, pid);
	ctx->have = CTX_HAVE_MEMLOCK | CTX_HAVE_VMPIN | CTX_HAVE_CAPS | CTX_HAVE_USERNS | CTX_HAVE_UID;
	ctx->memlock_soft = fk.procs[i].memlock;
	ctx->uid = ctx->euid = 65534;
	snprintf(ctx->cmdline, sizeof(ctx->cmdline), "python train.py");
	ctx->have |= CTX_HAVE_CMDLINE;
	ctx->start_ticks = fk.procs[i].start;
	ctx->have |= CTX_HAVE_START;
	if ((ctx->exe_ino = fk.procs[i].exe_ino))
		ctx->have |= CTX_HAVE_EXE_INO;
	return 0;
}

static int fake_nccl(void *arg, const struct proc_context *ctx, struct nccl_info *n)
{
	int i = fake_slot(ctx->pid);

	(void)arg;
	fk.nccl_reads++;
	memset(n, 0, sizeof(*n));
	if (i < 0 || !fk.procs[i].nccl)
		return -ENOENT;
	n->lib.found = true;
	snprintf(n->lib.version, sizeof(n->lib.version), "2.21.5");
	n->lib.version_known = true;
	n->rank.rank = -1;
	return 0;
}

static char *fake_maps(void *arg, int pid)
{
	char buf[512];

	(void)arg;
	fk.maps_reads++;
	if (fake_slot(pid) < 0)
		return NULL;
	snprintf(buf, sizeof(buf),
		 "%llx-%llx r-xp 00000000 08:01 11 /usr/lib/libibverbs.so.1.14\n"
		 "%llx-%llx r-xp 00000000 08:01 12 /opt/nccl/lib/libnccl.so.2.21.5\n%s",
		 LIB_LO, LIB_LO + 0x100000, NCCL_LO, NCCL_LO + 0x100000,
		 fk.late_lib ? "7f2000000000-7f2000100000 r-xp 00000000 08:01 13 /opt/app/libtrain.so\n"
			     : "");
	return strdup(buf);
}

/* libibverbs' functions by file offset, as its .dynsym would say */
static const char *fake_symbol_path(void *arg, int pid, const char *path, uint64_t off,
				    char *buf, size_t len)
{
	(void)arg;
	if (pid && fk.files_gone)
		return NULL;
	if (!strstr(path, "/libibverbs.so"))
		return NULL;
	if (off >= 0x2000 && off < 0x3000)
		snprintf(buf, len, "ibv_cmd_reg_mr");
	else if (off >= 0x5000 && off < 0x6000)
		snprintf(buf, len, "ibv_reg_mr_iova2");
	else
		return NULL;
	return buf;
}

static const char *fake_symbol(void *arg, int pid, const struct corr_mapping *m, uint64_t off,
			       char *buf, size_t len)
{
	/* the maps line's inode is passed along (the file opened is checked
	 * against it) */
	assert_true(m->ino >= 11 && m->ino <= 13);
	assert_true(m->lo < m->hi);
	return fake_symbol_path(arg, pid, m->path, off, buf, len);
}

/* libibverbs by inode (the tracer's files): inode 77, the same layout */
static const char *fake_symbol_of_inode(void *arg, unsigned long long ino, uint64_t off, char *buf,
					size_t len)
{
	return ino == 77 ? fake_symbol_path(arg, 0, "/usr/lib/libibverbs.so.1.14", off, buf, len)
			 : NULL;
}

static void sink(void *arg, const struct report *r, unsigned long nth)
{
	struct got *g = &got[ngot];

	(void)arg;
	assert_true(ngot < NGOT);
	ngot++;
	memset(g, 0, sizeof(*g));
	g->pid = r->ev->pid;
	g->tid = r->ev->tid;
	g->kind = r->ev->kind;
	g->ts = r->ev->ts_ns;
	g->has_uev = r->uev != NULL;
	g->uev_tid = r->uev ? r->uev->tid : 0;
	g->cause = r->v.cause;
	g->harmless = r->v.harmless;
	g->nth = nth;
	snprintf(g->api, sizeof(g->api), "%s", r->api ? r->api : "");
	g->has_ctx = r->ctx != NULL;
	g->has_nccl = r->nccl != NULL;
	if (r->ctx) {
		g->memlock = r->ctx->have & CTX_HAVE_MEMLOCK ? r->ctx->memlock_soft : 0;
		g->uid = r->ctx->uid;
		g->unavailable = r->ctx->unavailable;
		snprintf(g->comm, sizeof(g->comm), "%s", r->ctx->comm);
		snprintf(g->container, sizeof(g->container), "%s", r->ctx->container_id);
	}
	g->resolved = r->ua.resolved;
	g->via_nccl = r->ua.via_nccl;
	snprintf(g->caller, sizeof(g->caller), "%s", r->ua.caller);
}

static struct corr *make(bool join, bool dedupe, bool keep_harmless, const char *cgroup_root)
{
	struct corr_ops ops = {
		.now = fake_now,
		.start_time = fake_start,
		.read_context = fake_context,
		.read_nccl = fake_nccl,
		.read_maps = fake_maps,
		.symbol_at = fake_symbol,
		.symbol_of_inode = fake_symbol_of_inode,
		.sink = sink,
	};
	struct corr_config cfg = {
		.join = join, .dedupe = dedupe, .keep_harmless = keep_harmless, .cgroup_root = cgroup_root
	};
	struct corr *c;

	memset(&fk, 0, sizeof(fk));
	ngot = 0;
	fk.now = 1000.0;
	c = corr_new(&ops, &cfg);
	assert_non_null(c);
	return c;
}

static void add_proc(int pid, unsigned long long start, uint64_t memlock, bool nccl)
{
	int i = fake_slot(pid);

	if (i < 0)
		i = fake_slot(0);
	assert_true(i >= 0);
	fk.procs[i].pid = pid;
	fk.procs[i].start = start;
	fk.procs[i].memlock = memlock;
	fk.procs[i].nccl = nccl;
}

/* ---- records ---------------------------------------------------------------------- */

/* A recorded kernel trail (memlock_limit under 64 KiB), moved to pid/tid/ts. */
static struct mrt_event kernel_rec(unsigned int pid, unsigned int tid, unsigned long long ts)
{
	static struct mrt_event base;
	static bool loaded;
	struct mrt_event ev;
	char err[256];

	if (!loaded) {
		const char *p = fixture_path("trails", "memlock_limit.nobody64k.6.12.json");
		struct json_object *o = json_object_from_file(p);
		if (!o)
			fail_msg("cannot read %s", p);
		if (record_raw_from_json(o, &base, err, sizeof(err)))
			fail_msg("%s: %s", p, err);
		json_object_put(o);
		assert_int_equal(base.kind, MRT_EV_REG_FAILURE);
		loaded = true;
	}
	ev = base;
	ev.pid = pid;
	ev.tid = tid;
	ev.ts_ns = ts;
	return ev;
}

/* ibv_reg_mr_iova2 of 16 MiB failing with ENOMEM after reaching the
 * kernel, called from libnccl (ip = NCCL_LO + ...) or from `lib`. */
static struct mrt_event user_rec(unsigned int pid, unsigned int tid, unsigned long long ts,
				 unsigned long long caller_ip)
{
	struct mrt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_USER_CALL;
	ev.pid = pid;
	ev.tid = tid;
	ev.uid = 65534;
	ev.ts_ns = ts;
	snprintf(ev.comm, sizeof(ev.comm), "python");
	ev.err = ENOMEM;
	ev.opener = MRT_API_REG_MR_IOVA2;
	ev.cmd_start = 0x7f5500000000ULL;
	ev.cmd_length = 16 << 20;
	ev.cmd_iova = ev.cmd_start;
	ev.cmd_access = 0x10000f;
	ev.cmd_valid = 3;
	ev.dmabuf_fd = -1;
	ev.cmd_reached = 1;
	ev.nustack = 2;
	ev.ustack[0] = LIB_LO + 0x1234; /* libibverbs itself */
	ev.ustack[1] = caller_ip;
	return ev;
}

static void push(struct corr *c, struct mrt_event ev)
{
	corr_push(c, &ev);
}

/* ---- the join ------------------------------------------------------------------------ */

static void test_kernel_then_call_one_report(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(100, 5000, 65536, true);
	push(c, kernel_rec(100, 101, 1000));
	assert_int_equal(ngot, 0); /* waits for its call */
	assert_int_equal(corr_pending(c), 1);
	fk.now += 0.05;
	push(c, user_rec(100, 101, 2000, NCCL_LO + 0x10));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].kind, MRT_EV_REG_FAILURE);
	assert_true(got[0].has_uev);
	assert_int_equal(got[0].uev_tid, 101);
	assert_string_equal(got[0].api, "ibv_reg_mr_iova2");
	assert_int_equal(got[0].cause, CAUSE_MEMLOCK_LIMIT);
	assert_true(got[0].has_ctx);
	assert_true(got[0].has_nccl);
	assert_true(got[0].resolved);
	assert_true(got[0].via_nccl);
	assert_int_equal(corr_stats(c)->joined, 1);
	assert_int_equal(corr_pending(c), 0);
	/* nothing is left to report later */
	fk.now += 10;
	corr_tick(c);
	corr_flush(c);
	assert_int_equal(ngot, 1);
	assert_int_equal(corr_stats(c)->reported, 1);
	corr_free(c);
}

static void test_call_alone(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(200, 5000, 65536, false);
	push(c, user_rec(200, 201, 1000, NCCL_LO + 0x10));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].kind, MRT_EV_USER_CALL);
	assert_true(got[0].has_uev);
	assert_string_equal(got[0].api, "ibv_reg_mr_iova2");
	/* inferred from the process's limit: 16 MiB against 64 KiB */
	assert_int_equal(got[0].cause, CAUSE_MEMLOCK_LIMIT);
	assert_false(got[0].has_nccl);
	assert_int_equal(corr_stats(c)->alone, 1);
	assert_int_equal(corr_stats(c)->joined, 0);
	corr_free(c);
}

static void test_call_never_comes_reported_after_wait(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(300, 5000, 65536, false);
	push(c, kernel_rec(300, 301, 1000));
	fk.now += CORR_PENDING_WAIT_S / 2;
	corr_tick(c);
	assert_int_equal(ngot, 0); /* still within the wait */
	fk.now += CORR_PENDING_WAIT_S / 2 + 0.01;
	corr_tick(c);
	assert_int_equal(ngot, 1);
	assert_false(got[0].has_uev);
	assert_string_equal(got[0].api, "reg_mr");
	assert_int_equal(got[0].cause, CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(corr_stats(c)->waited_out, 1);
	assert_int_equal(corr_pending(c), 0);
	/* its call arriving late is reported on its own, not lost */
	push(c, user_rec(300, 301, 2000, NCCL_LO));
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].kind, MRT_EV_USER_CALL);
	corr_free(c);
}

static void test_two_threads_interleaved(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(400, 5000, 65536, false);
	push(c, kernel_rec(400, 401, 1000));
	push(c, kernel_rec(400, 402, 1100));
	push(c, user_rec(400, 402, 1200, NCCL_LO));
	push(c, user_rec(400, 401, 1300, NCCL_LO));
	assert_int_equal(ngot, 2);
	assert_int_equal(got[0].tid, 402);
	assert_int_equal(got[0].uev_tid, 402);
	assert_int_equal(got[1].tid, 401);
	assert_int_equal(got[1].uev_tid, 401);
	assert_int_equal(got[0].kind, MRT_EV_REG_FAILURE);
	assert_int_equal(got[1].kind, MRT_EV_REG_FAILURE);
	assert_int_equal(corr_stats(c)->joined, 2);
	corr_free(c);
}

static void test_older_call_not_joined(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(500, 5000, 65536, false);
	push(c, kernel_rec(500, 501, 2000));
	push(c, user_rec(500, 501, 1000, NCCL_LO)); /* returned before the kernel record */
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].kind, MRT_EV_USER_CALL);
	assert_int_equal(corr_pending(c), 1);
	/* same tid in another process is another thread: not joined either */
	push(c, user_rec(900, 501, 3000, NCCL_LO));
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].kind, MRT_EV_USER_CALL);
	assert_int_equal(corr_pending(c), 1);
	fk.now += CORR_PENDING_WAIT_S + 0.01;
	corr_tick(c);
	assert_int_equal(ngot, 3);
	assert_int_equal(got[2].kind, MRT_EV_REG_FAILURE);
	assert_false(got[2].has_uev);
	assert_int_equal(corr_stats(c)->joined, 0);
	corr_free(c);
}

/* A thread whose call never returns does not hold up the others; a thread
 * with two kernel records and one call joins the newer one. */
static void test_thread_never_completes(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(600, 5000, 65536, false);
	push(c, kernel_rec(600, 601, 1000)); /* 601 hangs in the driver */
	fk.now += 0.1;
	push(c, kernel_rec(600, 602, 1100));
	push(c, user_rec(600, 602, 1200, NCCL_LO));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].tid, 602);
	assert_true(got[0].has_uev);
	fk.now += CORR_PENDING_WAIT_S - 0.05;
	corr_tick(c);
	assert_int_equal(ngot, 2); /* 601 waited 0.35 s */
	assert_int_equal(got[1].tid, 601);
	assert_false(got[1].has_uev);

	/* two kernel records on one thread, then one call */
	push(c, kernel_rec(600, 603, 2000));
	fk.now += 0.01;
	push(c, kernel_rec(600, 603, 2100));
	push(c, user_rec(600, 603, 2200, NCCL_LO));
	assert_int_equal(ngot, 3);
	assert_true(got[2].has_uev);
	assert_int_equal(got[2].ts, 2100);
	assert_int_equal(corr_pending(c), 1);
	corr_flush(c);
	assert_int_equal(ngot, 4);
	assert_false(got[3].has_uev);
	assert_int_equal(got[3].ts, 2000);
	assert_int_equal(corr_stats(c)->flushed_at_end, 1);
	corr_free(c);
}

static void test_pending_full_oldest_flushed(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);
	int extra = 3;

	add_proc(700, 5000, 65536, false);
	for (int i = 0; i < CORR_PENDING_MAX + extra; i++) {
		push(c, kernel_rec(700, 10000 + i, 1000 + i));
		fk.now += 0.001;
	}
	/* the three oldest went out alone, in order, as the table filled */
	assert_int_equal(ngot, extra);
	for (int i = 0; i < extra; i++) {
		assert_int_equal(got[i].tid, 10000 + i);
		assert_false(got[i].has_uev);
	}
	assert_int_equal(corr_stats(c)->flushed_early, extra);
	assert_int_equal(corr_pending(c), CORR_PENDING_MAX);
	/* the rest still join */
	push(c, user_rec(700, 10000 + extra, 5000, NCCL_LO));
	assert_int_equal(ngot, extra + 1);
	assert_true(got[extra].has_uev);
	corr_flush(c);
	/* nothing lost: every record is one report */
	assert_int_equal(ngot, CORR_PENDING_MAX + extra);
	assert_int_equal(corr_stats(c)->reported, CORR_PENDING_MAX + extra);
	assert_int_equal(corr_stats(c)->records, CORR_PENDING_MAX + extra + 1);
	for (int i = 0; i < ngot; i++)
		for (int j = i + 1; j < ngot; j++)
			assert_int_not_equal(got[i].tid, got[j].tid);
	corr_free(c);
}

static void test_no_join_without_uprobes(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false, NULL);
	struct mrt_event ml;

	add_proc(800, 5000, 65536, false);
	push(c, kernel_rec(800, 801, 1000));
	assert_int_equal(ngot, 1); /* at once */
	corr_set_join(c, true);
	push(c, kernel_rec(800, 802, 1100));
	assert_int_equal(ngot, 1);
	corr_set_join(c, false); /* uprobes gone: nothing will join it */
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].tid, 802);
	/* mlock failures and limit changes never wait */
	corr_set_join(c, true);
	memset(&ml, 0, sizeof(ml));
	ml.kind = MRT_EV_MLOCK_FAILURE;
	ml.pid = 800;
	ml.tid = 803;
	ml.err = EPERM;
	ml.sys_len = 4096;
	push(c, ml);
	assert_int_equal(ngot, 3);
	assert_string_equal(got[2].api, "mlock");
	assert_int_equal(got[2].cause, CAUSE_MEMLOCK_ZERO);
	ml.kind = MRT_EV_RLIMIT_SET;
	push(c, ml);
	assert_int_equal(ngot, 3);
	corr_free(c);
}

/* ---- processes ------------------------------------------------------------------------- */

static void test_exited_process_from_record(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);
	struct mrt_event k = kernel_rec(1100, 1101, 1000);

	/* pid 1100 is not in the fake /proc: gone before its record arrived */
	k.uid = 4242;
	push(c, k);
	fk.now += CORR_PENDING_WAIT_S + 0.01;
	corr_tick(c);
	assert_int_equal(ngot, 1);
	assert_true(got[0].has_ctx);
	assert_false(got[0].has_nccl);
	assert_int_equal(got[0].memlock, k.ml.limit_cur);
	assert_int_equal(got[0].uid, 4242);
	assert_string_equal(got[0].comm, k.comm);
	assert_int_equal(got[0].cause, CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(corr_stats(c)->gone, 1);
	assert_int_equal(fk.context_reads, 1);
	/* its next records: no new read within the recheck interval, nor after
	 * (start time 0: still gone) */
	k.ml.limit_cur = 131072;
	push(c, k);
	fk.now += CORR_RECHECK_S + 1;
	push(c, k);
	corr_flush(c);
	assert_int_equal(ngot, 3);
	assert_int_equal(got[2].memlock, 131072); /* each record's own numbers */
	assert_int_equal(fk.context_reads, 1);
	/* a user call of a gone process: no maps, no attribution */
	push(c, user_rec(1100, 1102, 5000, NCCL_LO));
	assert_int_equal(ngot, 4);
	assert_false(got[3].resolved);
	corr_free(c);
}

/* An exited process's cgroup is looked up by id once; its later records
 * carry the same cgroup without another walk of the tree. */
static void test_exited_process_cgroup_once(void **state)
{
	(void)state;
	char root[] = "/tmp/mrt-corr-XXXXXX", dir[512];
	const char *id = "4d6f8a0e3b1c2d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6";
	struct stat st;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/sys", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/sys/fs", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/docker-%s.scope", root, id);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(stat(dir, &st), 0);

	struct corr *c = make(false, false, false, root);
	struct mrt_event k = kernel_rec(1200, 1201, 1000);
	k.cgroup_id = st.st_ino;
	push(c, k);
	assert_int_equal(ngot, 1);
	assert_string_equal(got[0].container, id);
	/* the tree is gone: a second lookup would find nothing */
	assert_int_equal(rmdir(dir), 0);
	push(c, k);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[1].container, id);
	corr_free(c);
	snprintf(dir, sizeof(dir), "rm -r '%s'", root);
	assert_int_equal(system(dir), 0);
}

static void test_one_read_per_process(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(1300, 5000, 65536, true);
	add_proc(1400, 6000, 65536 * 2, false);
	for (int i = 0; i < 200; i++) {
		int pid = i % 2 ? 1400 : 1300;
		push(c, kernel_rec(pid, pid + 1 + i, 1000 + 2 * i));
		push(c, user_rec(pid, pid + 1 + i, 1001 + 2 * i, NCCL_LO));
		fk.now += 0.001; /* 0.2 s in all: within the recheck interval */
	}
	assert_int_equal(ngot, 200);
	assert_int_equal(fk.context_reads, 2);
	assert_int_equal(fk.nccl_reads, 2);
	assert_int_equal(fk.maps_reads, 2);
	assert_int_equal(fk.start_reads, 2);
	for (int i = 0; i < ngot; i++)
		assert_int_equal(got[i].memlock, got[i].pid == 1300 ? 65536 : 65536 * 2);
	/* later: one start-time check per process per CORR_RECHECK_S */
	fk.now += CORR_RECHECK_S;
	for (int i = 0; i < 50; i++)
		push(c, user_rec(1300, 1301, 9000 + i, NCCL_LO));
	assert_int_equal(fk.start_reads, 3);
	assert_int_equal(fk.context_reads, 2);
	/* and the context again after CORR_REFRESH_S (NCCL and maps stay) */
	fk.now += CORR_REFRESH_S;
	push(c, user_rec(1300, 1301, 9900, NCCL_LO));
	assert_int_equal(fk.context_reads, 3);
	assert_int_equal(fk.nccl_reads, 2);
	assert_int_equal(fk.maps_reads, 2);
	assert_int_equal(corr_stats(c)->context_reads, 3);
	corr_free(c);
}

static void test_reused_pid_not_confused(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false, NULL);

	add_proc(1500, 5000, 65536, true);
	push(c, kernel_rec(1500, 1500, 1000));
	assert_int_equal(got[0].memlock, 65536);
	assert_true(got[0].has_nccl);
	/* the process exits and another one gets its pid */
	add_proc(1500, 7777, 1 << 20, false);
	push(c, kernel_rec(1500, 1500, 2000));
	assert_int_equal(got[1].memlock, 65536); /* not checked again so soon */
	fk.now += CORR_RECHECK_S;
	push(c, kernel_rec(1500, 1500, 3000));
	assert_int_equal(got[2].memlock, 1 << 20);
	assert_false(got[2].has_nccl);
	assert_int_equal(fk.context_reads, 2);
	assert_int_equal(fk.nccl_reads, 2);
	/* it exits too: its records keep what was read */
	add_proc(1500, 0, 0, false);
	fk.now += CORR_RECHECK_S;
	push(c, kernel_rec(1500, 1500, 4000));
	assert_int_equal(got[3].memlock, 1 << 20);
	assert_int_equal(fk.context_reads, 2);
	corr_free(c);
}

/* The kernel's start time of the record against /proc/PID (issue 34 item
 * 10): a record of a process gone, whose pid another program has now, is
 * reported with its own fields and says so - never with the other
 * program's limits, NCCL or command line; a record of the new process is
 * read at once, not after the recheck interval. */
static unsigned long long ns_of_ticks(unsigned long long t)
{
	return t * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
}

static void test_pid_reused_not_another_programs_context(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false, NULL);
	struct mrt_event k = kernel_rec(1550, 1550, 1000);

	/* first sight: /proc/1550 is already another process */
	add_proc(1550, 7777, 1 << 20, true);
	k.start_ns = ns_of_ticks(5000);
	push(c, k);
	assert_int_equal(ngot, 1);
	assert_true(got[0].has_ctx);
	assert_false(got[0].has_nccl);
	assert_int_equal(got[0].unavailable, CTX_PID_REUSED);
	assert_int_equal(got[0].memlock, k.ml.limit_cur); /* the record's, not 1 MiB */
	assert_int_equal(corr_stats(c)->mismatched, 1);
	/* a record of the process that has the pid now: its own context */
	k.start_ns = ns_of_ticks(7777);
	push(c, k);
	assert_int_equal(got[1].unavailable, CTX_AVAILABLE);
	assert_int_equal(got[1].memlock, 1 << 20);
	assert_true(got[1].has_nccl);
	/* that one exits, a third takes the pid, within the recheck interval:
	 * its record is read at once */
	add_proc(1550, 9999, 3 << 20, false);
	k.start_ns = ns_of_ticks(9999);
	push(c, k);
	assert_int_equal(got[2].unavailable, CTX_AVAILABLE);
	assert_int_equal(got[2].memlock, 3 << 20);
	assert_false(got[2].has_nccl);
	/* an exec since the failure: the new program's context is not it */
	fk.procs[fake_slot(1550)].exe_ino = 42;
	fk.now += CORR_RECHECK_S + CORR_REFRESH_S;
	k.exe_ino = 41;
	push(c, k);
	assert_int_equal(got[3].unavailable, CTX_EXECED);
	assert_int_equal(got[3].memlock, k.ml.limit_cur);
	assert_int_equal(corr_stats(c)->mismatched, 2);
	corr_free(c);
}

/* The first device context (MRT_EV_CONTACT) is when the context is read: a
 * rank that exits the instant its registration fails is reported with its
 * NCCL and limits all the same (issue 31 item 2); one that still lives is
 * read again at its first failure (the numbers as of then), NCCL kept. */
static void test_contact_snapshot_outlives_the_process(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false, NULL);
	struct mrt_event hello = kernel_rec(1700, 1700, 500);

	hello.kind = MRT_EV_CONTACT;
	hello.start_ns = ns_of_ticks(5000);
	add_proc(1700, 5000, 65536, true);
	corr_contact(c, &hello);
	assert_int_equal(ngot, 0); /* no report */
	assert_int_equal(corr_stats(c)->contacts, 1);
	assert_int_equal(fk.context_reads, 1);
	assert_int_equal(fk.nccl_reads, 1);
	/* it exits the instant its registration fails */
	add_proc(1700, 0, 0, false);
	struct mrt_event k = kernel_rec(1700, 1701, 1000);
	k.start_ns = hello.start_ns;
	push(c, k);
	assert_int_equal(ngot, 1);
	assert_true(got[0].has_nccl);
	assert_int_equal(got[0].unavailable, CTX_AVAILABLE);
	assert_int_equal(got[0].memlock, 65536);
	assert_int_equal(fk.context_reads, 1);

	/* another that lives on: read again at its failure, NCCL kept */
	add_proc(1800, 6000, 65536, true);
	hello.pid = hello.tid = 1800;
	hello.start_ns = ns_of_ticks(6000);
	corr_contact(c, &hello);
	fk.procs[fake_slot(1800)].memlock = 131072; /* raised since */
	k = kernel_rec(1800, 1801, 2000);
	k.start_ns = hello.start_ns;
	push(c, k);
	assert_int_equal(got[1].memlock, 131072);
	assert_true(got[1].has_nccl);
	assert_int_equal(fk.nccl_reads, 2);
	corr_free(c);
}

/* More processes than the cache holds: the least recently used one goes. */
static void test_cache_eviction(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false, NULL);

	for (int i = 0; i < CORR_PROCS_MAX + 1; i++) {
		int pid = 2000 + i;
		if (i < NPROCS)
			add_proc(pid, 1, 4096 * (i + 1), false);
		push(c, kernel_rec(pid, pid, i));
		fk.now += 0.001;
	}
	assert_int_equal(fk.context_reads, CORR_PROCS_MAX + 1);
	/* 2001 was used after 2000, so 2000 was evicted, 2001 not */
	push(c, kernel_rec(2001, 2001, 100));
	assert_int_equal(fk.context_reads, CORR_PROCS_MAX + 1);
	push(c, kernel_rec(2000, 2000, 101));
	assert_int_equal(fk.context_reads, CORR_PROCS_MAX + 2);
	assert_int_equal(got[ngot - 1].memlock, 4096);
	corr_free(c);
}

static void test_maps_read_again_for_new_library(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);

	add_proc(1600, 5000, 65536, false);
	push(c, user_rec(1600, 1601, 1000, NCCL_LO));
	assert_true(got[0].via_nccl);
	assert_int_equal(fk.maps_reads, 1);
	/* a library dlopen'ed since: not in the cached maps */
	fk.late_lib = true;
	push(c, user_rec(1600, 1601, 2000, LATE_LO + 0x40));
	assert_string_equal(got[1].caller, ""); /* too soon to read again */
	assert_int_equal(fk.maps_reads, 1);
	fk.now += CORR_RECHECK_S;
	push(c, user_rec(1600, 1601, 3000, LATE_LO + 0x40));
	assert_int_equal(fk.maps_reads, 2);
	assert_string_equal(got[2].caller, "/opt/app/libtrain.so");
	push(c, user_rec(1600, 1601, 4000, LATE_LO + 0x80));
	assert_int_equal(fk.maps_reads, 2);
	corr_free(c);
}

/* Registration calls not probed (the kernel trail takes the stack): a
 * REG_MR record is reported at once, with its call made from the record -
 * the API from the libibverbs function on its stack, the caller from the
 * first frame outside the plumbing - while a dma-buf record still waits for
 * its uprobe'd call. */
static void test_kernel_calls_from_the_kernel_stack(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);
	struct mrt_event ev;

	corr_set_kernel_calls(c, true);
	add_proc(1900, 5000, 65536, true);
	ev = kernel_rec(1900, 1901, 1000);
	ev.nustack = 4;
	ev.ustack[0] = LIB_LO + 0x2100; /* in ibv_cmd_reg_mr */
	ev.ustack[1] = 0x7f3000000040ULL; /* nowhere mapped: skipped */
	ev.ustack[2] = LIB_LO + 0x5100; /* in ibv_reg_mr_iova2 */
	ev.ustack[3] = NCCL_LO + 0x40;
	push(c, ev);
	assert_int_equal(ngot, 1); /* no wait for a call that never comes */
	assert_true(got[0].has_uev);
	assert_int_equal(got[0].uev_tid, 1901);
	assert_string_equal(got[0].api, "ibv_reg_mr_iova2");
	assert_true(got[0].via_nccl);
	assert_string_equal(got[0].caller, "/opt/nccl/lib/libnccl.so.2.21.5");
	/* no return address found on the stack: the command's name */
	ev = kernel_rec(1900, 1902, 2000);
	ev.nustack = 0;
	push(c, ev);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[1].api, "reg_mr");
	/* a process gone before its maps could be read: the inode and offset
	 * the kernel found name the API */
	ev = kernel_rec(1950, 1951, 2500);
	ev.nustack = 2;
	ev.ustack[0] = 0x7f4000001040ULL;
	ev.uino[0] = 77;
	ev.uoff[0] = 0x5040; /* in ibv_reg_mr_iova2 */
	ev.ustack[1] = 0x7f4000009040ULL;
	ev.uino[1] = 99; /* not a libibverbs the tracer knows */
	ev.uoff[1] = 0x5040;
	push(c, ev);
	assert_int_equal(ngot, 3);
	assert_string_equal(got[2].api, "ibv_reg_mr_iova2");
	/* its maps read, then gone before the library could be opened through
	 * /proc/<pid>/root (CI's 6.12 guest, memlock:nobody64k_api): the inode
	 * and offset still name the API */
	add_proc(1960, 5000, 65536, true);
	fk.files_gone = true;
	ev = kernel_rec(1960, 1961, 2600);
	ev.nustack = 2;
	ev.ustack[0] = LIB_LO + 0x5100; /* mapped: in ibv_reg_mr_iova2 */
	ev.uino[0] = 77;
	ev.uoff[0] = 0x5100;
	ev.ustack[1] = NCCL_LO + 0x40;
	push(c, ev);
	fk.files_gone = false;
	assert_int_equal(ngot, 4);
	assert_string_equal(got[3].api, "ibv_reg_mr_iova2");
	assert_string_equal(got[3].caller, "/opt/nccl/lib/libnccl.so.2.21.5");
	/* dma-buf: ibv_reg_dmabuf_mr stays probed, its record waits to be joined */
	ev = kernel_rec(1900, 1903, 3000);
	ev.opener = MRT_SITE_UVERBS_REG_DMABUF;
	push(c, ev);
	assert_int_equal(ngot, 4);
	corr_flush(c);
	assert_int_equal(ngot, 5);
	corr_free(c);
}

/* A raw stack, then a failed REG_MR of pid/tid: the API its report names */
static const char *raw_then_failure(struct corr *c, const struct mrt_ustack_raw *r, int pid, int tid,
				    uint64_t ts)
{
	int before = ngot;

	corr_ustack_raw(c, r, sizeof(*r));
	push(c, kernel_rec(pid, tid, ts));
	assert_int_equal(ngot, before + 1);
	return got[before].api;
}

/* Before 5.17 the kernel sends the raw top of the failed REG_MR's stack
 * just before its record (MRT_EV_USTACK_RAW): the return addresses are
 * found among its words through the process's maps - read at its first
 * device context, and still there when it is gone by its failure - and
 * name the API and the caller as the kernel's own scan does. */
static void test_kernel_calls_from_a_raw_stack(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false, NULL);
	struct mrt_ustack_raw r = { .kind = MRT_EV_USTACK_RAW, .pid = 2000, .tid = 2001 };
	struct mrt_event ev, contact;

	corr_set_kernel_calls(c, true);
	add_proc(2000, 5000, 65536, true);
	contact = kernel_rec(2000, 2000, 500);
	contact.kind = MRT_EV_CONTACT;
	/* where the kernel scans the stack itself (5.17+) no maps are read */
	corr_contact(c, &contact);
	assert_int_equal(fk.maps_reads, 0);
	corr_set_stack_raw(c, true);
	corr_contact(c, &contact);
	assert_int_equal(fk.maps_reads, 1); /* kept from the first contact */
	fk.procs[fake_slot(2000)].pid = -1; /* exited at its failure */
	r.sp = 0x7ffd00001000ULL;
	r.words = 6;
	r.w[0] = 0x10000; /* a length: nowhere mapped */
	r.w[1] = LIB_LO + 0x2100; /* in ibv_cmd_reg_mr */
	r.w[2] = 0x7ffd00001100ULL; /* a saved frame pointer */
	r.w[3] = LIB_LO + 0x5100; /* in ibv_reg_mr_iova2 */
	r.w[4] = NCCL_LO + 0x40;
	r.w[5] = 7; /* past words: never read */
	corr_ustack_raw(c, &r, sizeof(r));
	ev = kernel_rec(2000, 2001, 1000);
	ev.nustack = 0;
	push(c, ev);
	assert_int_equal(ngot, 1);
	assert_string_equal(got[0].api, "ibv_reg_mr_iova2");
	assert_true(got[0].via_nccl);
	assert_string_equal(got[0].caller, "/opt/nccl/lib/libnccl.so.2.21.5");
	/* a raw stack is the next record's of its own thread only */
	assert_string_equal(raw_then_failure(c, &r, 2000, 2002, 2000), "reg_mr");
	/* gone before its maps were ever read (a one-vCPU guest runs it to its
	 * end before the watcher reads its first contact: CI's 5.10 guest,
	 * memlock:nobody64k_api): without libibverbs' range no API ... */
	r.pid = 2100;
	r.tid = 2101;
	assert_string_equal(raw_then_failure(c, &r, 2100, 2101, 3000), "reg_mr");
	/* ... with the range the kernel found on the VMA list, the API by
	 * inode and offset (the tracer's libibverbs, inode 77) */
	r.tid = 2102;
	r.lib_lo = LIB_LO;
	r.lib_hi = LIB_LO + 0x100000;
	r.lib_off = 0;
	r.lib_ino = 77;
	assert_string_equal(raw_then_failure(c, &r, 2100, 2102, 3100), "ibv_reg_mr_iova2");
	assert_int_equal(ngot, 4);
	corr_free(c);
}

/* ---- what reaches the sink --------------------------------------------------------------- */

static void test_repeats_counted_per_pid_and_cause(void **state)
{
	(void)state;
	struct corr *c = make(false, true, false, NULL);
	struct mrt_event ml;

	add_proc(1700, 5000, 65536, false);
	add_proc(1800, 5000, 65536, false);
	push(c, kernel_rec(1700, 1701, 1));
	push(c, kernel_rec(1700, 1702, 2));
	push(c, kernel_rec(1800, 1801, 3));
	push(c, kernel_rec(1700, 1703, 4));
	memset(&ml, 0, sizeof(ml));
	ml.kind = MRT_EV_MLOCK_FAILURE;
	ml.pid = 1700;
	ml.tid = 1704;
	ml.err = EPERM; /* memlock_zero: another cause */
	push(c, ml);
	assert_int_equal(ngot, 5);
	assert_int_equal(got[0].nth, 1); /* the full explanation */
	assert_int_equal(got[1].nth, 2); /* one line each */
	assert_int_equal(got[2].nth, 1); /* another process */
	assert_int_equal(got[3].nth, 3);
	assert_int_equal(got[4].nth, 1); /* another cause */
	corr_free(c);

	c = make(false, false, false, NULL); /* JSON, -v: no counting */
	add_proc(1700, 5000, 65536, false);
	push(c, kernel_rec(1700, 1701, 1));
	push(c, kernel_rec(1700, 1702, 2));
	assert_int_equal(got[0].nth, 0);
	assert_int_equal(got[1].nth, 0);
	corr_free(c);
}

static void test_repeats_table_full_explains_in_full(void **state)
{
	(void)state;
	static struct report_repeats t;

	memset(&t, 0, sizeof(t));
	for (unsigned int pid = 1; pid <= REPORT_REPEATS_MAX; pid++)
		assert_int_equal(report_repeats_count(&t, pid, CAUSE_MEMLOCK_LIMIT), 1);
	assert_int_equal(report_repeats_count(&t, 1, CAUSE_MEMLOCK_LIMIT), 2);
	/* a pair that no longer fits: every failure is a first, none dropped */
	assert_int_equal(report_repeats_count(&t, 99999, CAUSE_MEMLOCK_LIMIT), 1);
	assert_int_equal(report_repeats_count(&t, 99999, CAUSE_MEMLOCK_LIMIT), 1);
}

static void test_harmless_probes(void **state)
{
	(void)state;
	struct mrt_event probe = user_rec(1900, 1901, 1, NCCL_LO);

	/* NCCL's probe: ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) refused in libibverbs */
	probe.opener = MRT_API_REG_DMABUF_MR;
	probe.err = EOPNOTSUPP;
	probe.cmd_reached = 0;
	probe.cmd_start = probe.cmd_length = probe.cmd_iova = probe.cmd_access = 0;
	probe.dmabuf_fd = -1;

	struct corr *c = make(true, true, false, NULL);
	add_proc(1900, 5000, 65536, false);
	push(c, probe);
	assert_int_equal(ngot, 0);
	assert_int_equal(corr_stats(c)->harmless, 1);
	assert_int_equal(corr_stats(c)->reported, 0);
	corr_free(c);

	c = make(true, false, true, NULL);
	add_proc(1900, 5000, 65536, false);
	push(c, probe);
	assert_int_equal(ngot, 1);
	assert_true(got[0].harmless);
	assert_int_equal(got[0].cause, CAUSE_DMABUF_UNSUPPORTED);
	assert_int_equal(corr_stats(c)->harmless, 1);
	assert_int_equal(corr_stats(c)->reported, 1);
	corr_free(c);
}

/* The live start-time reader on this very process. */
static void test_live_start_time(void **state)
{
	(void)state;
	struct corr_ops ops;
	struct corr_live live = { .root = "/" };
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");

	corr_live_ops(&ops, &live);
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	/* field 22 by plain counting (this test's comm has no spaces) */
	char *p = buf;
	for (int i = 1; i < 22; i++)
		p = strchr(p, ' ') + 1;
	assert_int_equal(ops.start_time(NULL, getpid()), strtoull(p, NULL, 10));
	assert_true(ops.start_time(NULL, getpid()) > 0);
	assert_int_equal(ops.start_time(NULL, 0), 0);
	assert_int_equal(ops.start_time(NULL, 999999999), 0);
}

/* The live maps reader keeps the executable mappings only, and the code
 * of this very test is found in them. */
static void test_live_maps_executable_only(void **state)
{
	(void)state;
	struct corr_ops ops;
	struct corr_live live = { .root = "/" };
	struct ustack_attr ua;
	char exe[PATH_MAX];
	uint64_t ip = (uintptr_t)&test_live_maps_executable_only;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	corr_live_ops(&ops, &live);
	char *m = ops.read_maps(NULL, getpid());
	assert_non_null(m);
	int lines = 0;
	for (char *l = m; *l; l = strchr(l, '\n') + 1) {
		char perms[8] = "";
		assert_int_equal(sscanf(l, "%*[0-9a-f]-%*[0-9a-f] %7s", perms), 1);
		if (perms[2] != 'x')
			fail_msg("a mapping that is not executable: %.80s", l);
		lines++;
	}
	assert_true(lines >= 2);
	ustack_attribute_maps(m, &ip, 1, &ua);
	assert_string_equal(ua.caller, exe);
	free(m);
	assert_null(ops.read_maps(NULL, 999999999));
}

/* A frame named by the inode the kernel gave: the tracer's libibverbs path
 * is followed (a symlink, or /proc/PID/root/...), so what it leads to now
 * is parsed only if it is the file the tracer saw, device and inode; an
 * inode number alone is shared by files of different file systems. */
static const char *lib_for_test;
static uint64_t lib_dev_for_test;
static const char *path_of_lib(void *arg, unsigned long long ino, uint64_t *dev)
{
	(void)arg;
	(void)ino;
	*dev = lib_dev_for_test;
	return lib_for_test;
}

static void test_live_symbol_of_inode_same_device_only(void **state)
{
	(void)state;
	struct corr_ops ops;
	struct corr_live live = { .root = "/", .path_of = path_of_lib };
	struct stat st;
	char buf[128];

	if (!(lib_for_test = host_libibverbs()))
		skip();
	assert_int_equal(stat(lib_for_test, &st), 0);
	uint64_t off = tracer_elf_symbol_offset(lib_for_test, "ibv_reg_mr_iova2");
	assert_true(off > 0);
	corr_live_ops(&ops, &live);
	lib_dev_for_test = st.st_dev;
	assert_non_null(ops.symbol_of_inode(ops.arg, st.st_ino, off + 8, buf, sizeof(buf)));
	assert_string_equal(buf, "ibv_reg_mr_iova2");
	lib_dev_for_test = st.st_dev + 1;
	assert_null(ops.symbol_of_inode(ops.arg, st.st_ino, off + 8, buf, sizeof(buf)));
	assert_null(ops.symbol_of_inode(ops.arg, st.st_ino + 1, off + 8, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_then_call_one_report),
		cmocka_unit_test(test_call_alone),
		cmocka_unit_test(test_call_never_comes_reported_after_wait),
		cmocka_unit_test(test_two_threads_interleaved),
		cmocka_unit_test(test_older_call_not_joined),
		cmocka_unit_test(test_thread_never_completes),
		cmocka_unit_test(test_pending_full_oldest_flushed),
		cmocka_unit_test(test_no_join_without_uprobes),
		cmocka_unit_test(test_exited_process_from_record),
		cmocka_unit_test(test_exited_process_cgroup_once),
		cmocka_unit_test(test_one_read_per_process),
		cmocka_unit_test(test_reused_pid_not_confused),
		cmocka_unit_test(test_pid_reused_not_another_programs_context),
		cmocka_unit_test(test_contact_snapshot_outlives_the_process),
		cmocka_unit_test(test_cache_eviction),
		cmocka_unit_test(test_maps_read_again_for_new_library),
		cmocka_unit_test(test_kernel_calls_from_the_kernel_stack),
		cmocka_unit_test(test_kernel_calls_from_a_raw_stack),
		cmocka_unit_test(test_repeats_counted_per_pid_and_cause),
		cmocka_unit_test(test_repeats_table_full_explains_in_full),
		cmocka_unit_test(test_harmless_probes),
		cmocka_unit_test(test_live_start_time),
		cmocka_unit_test(test_live_maps_executable_only),
		cmocka_unit_test(test_live_symbol_of_inode_same_device_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
