// SPDX-License-Identifier: GPL-2.0-only
/* test_fixes.c - the fix list chosen per setting (fixes.h), from the
 * recorded /proc trees and from hand-built contexts. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_path.h"

#include "proc/context.h"
#include "verdict/fixes.h"
#include "nccl/nccl.h"

static const char *fixture(const char *scenario)
{
	return fixture_path("proc", scenario);
}

struct scenario {
	struct proc_context ctx;
	struct nccl_info nccl;
	struct fix_list fixes;
};

/* A 16 MiB malloc'd buffer pins 4097 pages; the process had 64 KiB pinned. */
#define REQUEST (4097ULL * 4096)
#define PINNED  (64ULL * 1024)

static struct scenario *run(const char *name, int pid, enum cause cause, bool with_nccl)
{
	struct scenario *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	assert_int_equal(proc_context_read(fixture(name), pid, &s->ctx), 0);
	if (with_nccl)
		assert_int_equal(nccl_info_read(fixture(name), &s->ctx, &s->nccl), 0);
	struct fix_input in = { .cause = cause, .ctx = &s->ctx, .nccl = with_nccl ? &s->nccl : NULL,
				.have_limit = true, .limit_bytes = s->ctx.memlock_soft,
				.have_pinned = true, .pinned_before = PINNED,
				.have_request = true, .request_bytes = REQUEST };
	int n = fixes_for(&in, &s->fixes);
	assert_true(n > 0);
	assert_int_equal(n, s->fixes.n);
	return s;
}

/* index of the first fix of `kind` containing `text`, or -1 */
static int find(const struct fix_list *l, int kind, const char *text)
{
	for (int i = 0; i < l->n; i++)
		if ((kind < 0 || (int)l->items[i].kind == kind) && strstr(l->items[i].text, text))
			return i;
	return -1;
}

static void assert_nowhere(const struct fix_list *l, const char *text)
{
	for (int i = 0; i < l->n; i++)
		if (strstr(l->items[i].text, text))
			fail_msg("fix %d mentions \"%s\": %s", i, text, l->items[i].text);
}

/* text may appear in notes (explaining why it does not work), never as advice */
static void assert_not_advised(const struct fix_list *l, const char *text)
{
	for (int i = 0; i < l->n; i++)
		if ((l->items[i].kind == FIX_PRIMARY || l->items[i].kind == FIX_ALTERNATIVE) &&
		    strstr(l->items[i].text, text))
			fail_msg("fix %d advises \"%s\": %s", i, text, l->items[i].text);
}

static void test_systemd_service(void **state)
{
	(void)state;
	struct scenario *s = run("systemd_service", 777, CAUSE_MEMLOCK_LIMIT, false);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "LimitMEMLOCK=infinity"));
	assert_non_null(strstr(l->items[0].text, "systemctl edit trainer.service"));
	assert_non_null(strstr(l->items[0].text, "systemctl daemon-reload && systemctl restart trainer.service"));
	/* 64 KiB pinned + 4097 pages = 16.1 MiB against a 64 KiB limit */
	assert_non_null(strstr(l->items[0].text, "needs at least 16.1 MiB (limit 64 KiB)"));
	assert_true(find(l, FIX_NOTE, "limits.conf does not apply to services") >= 0);
	assert_nowhere(l, "ulimit -l");
	assert_not_advised(l, "limits.conf");
	free(s);
}

static void test_docker(void **state)
{
	(void)state;
	struct scenario *s = run("docker", 4242, CAUSE_MEMLOCK_LIMIT, false);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "--ulimit memlock=-1:-1"));
	assert_non_null(strstr(l->items[0].text, "3f1e2d4c5b6a"));	/* which container */
	assert_non_null(strstr(l->items[0].text, "limit 8 MiB"));
	int cap = find(l, FIX_ALTERNATIVE, "--cap-add IPC_LOCK");
	assert_true(cap > 0);
	assert_non_null(strstr(l->items[cap].text, "rootful"));
	assert_non_null(strstr(l->items[cap].text, "initial user namespace"));
	assert_not_advised(l, "limits.conf");
	assert_not_advised(l, "LimitMEMLOCK");
	free(s);
}

static void test_k8s_containerd(void **state)
{
	(void)state;
	struct scenario *s = run("k8s_containerd", 5151, CAUSE_MEMLOCK_LIMIT, true);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "systemctl edit containerd"));
	assert_non_null(strstr(l->items[0].text, "LimitMEMLOCK=infinity"));
	assert_non_null(strstr(l->items[0].text, "delete the pod"));
	assert_true(find(l, FIX_ALTERNATIVE, "securityContext") >= 0);
	assert_true(find(l, FIX_NOTE, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d") >= 0);
	assert_nowhere(l, "crio");
	/* the user believes NCCL_IB_DISABLE_GDR did something */
	assert_true(find(l, FIX_NOTE, "NCCL_IB_DISABLE_GDR") >= 0);
	free(s);
}

/* The pod runs as uid 1000: capabilities.add puts IPC_LOCK in the bounding
 * set, but without ambient capabilities (Kubernetes sets none) a non-root
 * process has an empty effective set after exec.  The note must say so
 * instead of promising that the capability lifts the limit. */
static void test_k8s_nonroot_ipc_lock(void **state)
{
	(void)state;
	struct scenario *s = run("k8s_containerd", 5151, CAUSE_MEMLOCK_LIMIT, true);
	const struct fix_list *l = &s->fixes;
	int i = find(l, FIX_ALTERNATIVE, "securityContext");
	assert_true(i >= 0);
	if (strstr(l->items[i].text, "also works") || !strstr(l->items[i].text, "ambient") ||
	    !strstr(l->items[i].text, "uid 1000"))
		fail_msg("non-root pod told IPC_LOCK works: %s", l->items[i].text);
	free(s);
	/* a root pod keeps the plain advice */
	s = run("k8s_containerd", 5151, CAUSE_MEMLOCK_LIMIT, true);
	s->ctx.uid = s->ctx.euid = s->ctx.ns_uid = 0;
	struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .ctx = &s->ctx, .have_limit = true,
				.limit_bytes = s->ctx.memlock_soft };
	assert_true(fixes_for(&in, &s->fixes) > 0);
	i = find(&s->fixes, FIX_ALTERNATIVE, "securityContext");
	assert_true(i >= 0);
	assert_non_null(strstr(s->fixes.items[i].text, "also works"));
	free(s);
}

static void test_slurm(void **state)
{
	(void)state;
	struct scenario *s = run("slurm_step", 3010, CAUSE_MEMLOCK_LIMIT, false);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "PropagateResourceLimitsExcept=MEMLOCK"));
	assert_non_null(strstr(l->items[0].text, "slurmd.service"));
	assert_non_null(strstr(l->items[0].text, "job 4711, step 0"));
	assert_true(find(l, FIX_ALTERNATIVE, "login nodes") >= 0);
	/* the step's hard limit is unlimited, so the script may raise its own */
	assert_true(find(l, FIX_ALTERNATIVE, "`ulimit -l unlimited` at the top of the batch script") >= 0);
	free(s);
}

static void test_mpirun_remote(void **state)
{
	(void)state;
	struct scenario *s = run("mpirun_sshd", 6100, CAUSE_MEMLOCK_LIMIT, false);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "prted(6050)"));
	assert_non_null(strstr(l->items[0].text, "/etc/security/limits.d/ on EVERY node"));
	assert_non_null(strstr(l->items[0].text, "UsePAM yes"));
	assert_true(find(l, FIX_NOTE, "mpirun -x") >= 0);
	assert_not_advised(l, "--ulimit");
	free(s);
}

static void test_rootless(void **state)
{
	(void)state;
	struct scenario *s = run("rootless_podman", 9001, CAUSE_MEMLOCK_LIMIT, false);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "host side, for uid 1000"));
	assert_non_null(strstr(l->items[0].text, "user@1000.service"));
	int note = find(l, FIX_NOTE, "initial user namespace");
	assert_true(note > 0);
	assert_non_null(strstr(l->items[note].text, "has CAP_IPC_LOCK"));
	assert_not_advised(l, "--cap-add");
	free(s);
}

static void test_shell_hard_unlimited(void **state)
{
	(void)state;
	struct scenario *s = run("shell", 3333, CAUSE_MEMLOCK_LIMIT, false);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l->items[0].text, "ulimit -l unlimited"));
	assert_non_null(strstr(l->items[0].text, "hard limit is unlimited"));
	free(s);
}

/* Same shell, but the hard limit is low: ulimit alone cannot work. */
static void test_shell_hard_low(void **state)
{
	(void)state;
	struct proc_context c;
	proc_context_init(&c, 10);
	c.have = CTX_HAVE_MEMLOCK | CTX_HAVE_MEMLOCK_HARD | CTX_HAVE_LAUNCHERS;
	c.memlock_soft = c.memlock_hard = 8 << 20;
	c.n_launchers = 1;
	c.launchers[0] = (struct ctx_launcher){ .pid = 9, .kind = CTX_L_SHELL, .comm = "bash" };
	struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .ctx = &c, .have_request = true,
				.request_bytes = 32 << 20 };
	struct fix_list l;
	assert_true(fixes_for(&in, &l) > 0);
	assert_non_null(strstr(l.items[0].text, "/etc/security/limits.d/"));
	assert_non_null(strstr(l.items[0].text, "needs at least 32 MiB (limit 8 MiB)"));
	assert_true(find(&l, FIX_NOTE, "alone fails here") >= 0);
	assert_not_advised(&l, "ulimit -l unlimited");
}

/* issue 31: a fix is a command that works under the limits the record
 * shows, and names the user the record knows.  Slurm step with a finite hard
 * limit above what is needed: `ulimit -l unlimited` would fail there; the
 * hard limit itself (KiB) is what the batch script can ask for. */
static void ctx_limits(struct proc_context *c, uint64_t soft, uint64_t hard)
{
	proc_context_init(c, 20);
	c->have = CTX_HAVE_MEMLOCK | CTX_HAVE_MEMLOCK_HARD | CTX_HAVE_LAUNCHERS | CTX_HAVE_UID;
	c->memlock_soft = soft;
	c->memlock_hard = hard;
	c->uid = c->euid = 1000;
}

static void test_slurm_finite_hard_not_unlimited(void **state)
{
	(void)state;
	struct proc_context c;
	ctx_limits(&c, 64 << 10, 8 << 20);
	c.slurm_job = 4711;
	snprintf(c.slurm_step, sizeof(c.slurm_step), "0");
	struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .ctx = &c, .have_request = true,
				.request_bytes = 4 << 20 };
	struct fix_list l;
	assert_true(fixes_for(&in, &l) > 0);
	assert_true(find(&l, FIX_ALTERNATIVE, "`ulimit -l 8192` at the top of the batch script") >= 0);
	assert_not_advised(&l, "ulimit -l unlimited");
}

static void test_shell_finite_hard_names_user(void **state)
{
	(void)state;
	struct proc_context c;
	ctx_limits(&c, 64 << 10, 8 << 20);
	c.n_launchers = 1;
	c.launchers[0] = (struct ctx_launcher){ .pid = 9, .kind = CTX_L_SHELL, .comm = "bash" };
	struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .ctx = &c, .have_request = true,
				.request_bytes = 1 << 20 };
	struct fix_list l;
	assert_true(fixes_for(&in, &l) > 0);
	assert_non_null(strstr(l.items[0].text, "`ulimit -l 8192`"));
	assert_true(find(&l, FIX_ALTERNATIVE, "`:1000 soft memlock unlimited`") >= 0);
	assert_not_advised(&l, "ulimit -l unlimited");
	assert_not_advised(&l, "<user>");
	/* the hard limit too low: limits.conf for that uid */
	in.request_bytes = 32 << 20;
	assert_true(fixes_for(&in, &l) > 0);
	assert_non_null(strstr(l.items[0].text, "`:1000 hard memlock unlimited`"));
	assert_not_advised(&l, "<user>");
}

static void test_memlock_zero(void **state)
{
	(void)state;
	struct scenario *s = calloc(1, sizeof(*s));
	assert_int_equal(proc_context_read(fixture("docker"), 4242, &s->ctx), 0);
	assert_int_equal(nccl_info_read(fixture("docker"), &s->ctx, &s->nccl), 0);
	struct fix_input in = { .cause = CAUSE_MEMLOCK_ZERO, .ctx = &s->ctx, .nccl = &s->nccl,
				.have_limit = true, .limit_bytes = 0 };
	assert_true(fixes_for(&in, &s->fixes) > 0);
	const struct fix_list *l = &s->fixes;
	assert_int_equal(l->items[0].kind, FIX_NOTE);
	assert_non_null(strstr(l->items[0].text, "RLIMIT_MEMLOCK is 0"));
	assert_true(find(l, FIX_PRIMARY, "--ulimit memlock=-1:-1") > 0);
	assert_int_equal(find(l, FIX_STOPGAP, ""), -1);	/* no NCCL knob helps at 0 */
	free(s);
}

static void test_nccl_stopgaps(void **state)
{
	(void)state;
	struct scenario *s = run("docker", 4242, CAUSE_MEMLOCK_LIMIT, true);
	const struct fix_list *l = &s->fixes;
	/* defaults: 2 channels x (1+1) x 9.2 MiB = 36.8 MiB without GDR, LL only
	 * (2 MiB) with it; 1 MiB Simple buffers: 2 x 2 x 6.2 MiB = 24.8 MiB */
	int i = find(l, FIX_STOPGAP, "NCCL_BUFFSIZE=1048576");
	assert_true(i > 0);
	assert_non_null(strstr(l->items[i].text, "from about 2 MiB-36.8 MiB to 2 MiB-24.8 MiB"));
	assert_null(strstr(l->items[i].text, "still above the limit"));	/* 8 MiB limit, 2 MiB floor */
	int c = find(l, FIX_STOPGAP, "NCCL_MAX_NCHANNELS");
	assert_true(c > i);
	assert_non_null(strstr(l->items[c].text, "18.4 MiB of pinned host memory per channel"));
	int g = find(l, FIX_STOPGAP, "NCCL_NET_GDR_LEVEL=LOC");
	assert_true(g > c);
	assert_non_null(strstr(l->items[g].text, "peer memory"));
	/* stopgaps come after the real fix */
	assert_int_equal(l->items[0].kind, FIX_PRIMARY);
	free(s);

	/* 64 MiB buffers against a 64 KiB limit: smaller buffers are not enough */
	s = run("systemd_service", 777, CAUSE_MEMLOCK_LIMIT, true);
	i = find(&s->fixes, FIX_STOPGAP, "NCCL_BUFFSIZE=1048576");
	assert_true(i > 0);
	assert_non_null(strstr(s->fixes.items[i].text, "from about 2 MiB-276.8 MiB"));
	assert_non_null(strstr(s->fixes.items[i].text, "still above the limit (64 KiB)"));
	free(s);

	/* k8s: NCCL_BUFFSIZE is already tiny ("8M" = 8 bytes) and GDR is off */
	s = run("k8s_containerd", 5151, CAUSE_MEMLOCK_LIMIT, true);
	assert_int_equal(find(&s->fixes, -1, "NCCL_BUFFSIZE=1048576"), -1);
	assert_int_equal(find(&s->fixes, FIX_STOPGAP, "NCCL_NET_GDR_LEVEL=LOC"), -1);
	g = find(&s->fixes, FIX_NOTE, "turns GPUDirect RDMA off");
	assert_true(g > 0);
	assert_non_null(strstr(s->fixes.items[g].text, "about 20.8 MiB"));
	/* the floor NCCL needs with GDR off (20.8 MiB) beats the 16 MiB request */
	assert_non_null(strstr(s->fixes.items[0].text, "needs at least 20.8 MiB (limit 64 KiB)"));
	free(s);
}

/* A process with a full settings table (NCCL_MAX_SETTINGS variables, none
 * of them NCCL_BUFFSIZE): the 1 MiB stopgap still estimates the smaller
 * buffers, not the current ones again. */
static void test_stopgap_full_settings(void **state)
{
	(void)state;
	struct nccl_info *n = calloc(1, sizeof(*n));
	assert_non_null(n);
	n->lib.found = true;
	for (int i = 0; i < NCCL_MAX_SETTINGS; i++) {
		snprintf(n->settings.v[i].name, sizeof(n->settings.v[i].name), "NCCL_PLUGIN_X%d", i);
		n->settings.v[i].source = NCCL_SRC_ENV;
	}
	n->settings.n = NCCL_MAX_SETTINGS;
	nccl_estimate(&n->settings, NULL, &n->estimate);
	struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .nccl = n, .have_limit = true,
				.limit_bytes = 8ULL << 20 };
	struct fix_list l;
	assert_true(fixes_for(&in, &l) > 0);
	int i = find(&l, FIX_STOPGAP, "NCCL_BUFFSIZE=1048576");
	assert_true(i >= 0);
	assert_non_null(strstr(l.items[i].text, "from about 2 MiB-36.8 MiB to 2 MiB-24.8 MiB"));
	free(n);
}

/* Settings without a recorded tree: a context from cgroup text (and a
 * launcher where the setting needs one); the first fix must fit it. */
static void test_setting_table(void **state)
{
	(void)state;
	static const struct {
		const char *cgroup;
		enum ctx_launcher_kind launcher;
		enum ctx_setting setting;
		const char *primary;	/* must be in the first PRIMARY fix */
		const char *absent;	/* must not be advised (notes may explain it), or NULL */
	} t[] = {
		{ "0::/user.slice/user-1000.slice/user@1000.service/app.slice/jupyter.service\n", CTX_L_OTHER,
		  CTX_SET_SYSTEMD_USER, "systemctl --user edit jupyter.service", "ulimit -l" },
		{ "0::/kubepods.slice/kubepods-pod1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d.slice/crio-"
		  "9b8a7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d.scope\n",
		  CTX_L_OTHER, CTX_SET_KUBERNETES, "default_ulimits = [\"memlock=-1:-1\"]", "containerd" },
		{ "0::/machine.slice/libpod-c0ffee00deadbeef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
		  CTX_L_OTHER, CTX_SET_PODMAN, "podman run --ulimit memlock=-1:-1", NULL },
		{ "0::/system.slice/nerdctl-c0ffee00deadbeef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
		  CTX_L_OTHER, CTX_SET_CONTAINERD, "nerdctl run --ulimit memlock=-1:-1", NULL },
		{ "0::/machine.slice/crio-c0ffee00deadbeef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
		  CTX_L_OTHER, CTX_SET_CRIO, "[crio.runtime]", NULL },
		{ "0::/lxc/c0ffee00deadbeef0123456789abcdef0123456789abcdef0123456789abcdef\n", CTX_L_OTHER,
		  CTX_SET_CONTAINER, "process.rlimits", NULL },
		{ "0::/system.slice/docker-c0ffee00deadbeef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
		  CTX_L_OTHER, CTX_SET_USERNS, "runtime daemon's unit `LimitMEMLOCK=infinity`", "--cap-add" },
		{ "0::/user.slice/user-1000.slice/session-4.scope\n", CTX_L_MPIRUN, CTX_SET_MPI_LOCAL,
		  "the shell that ran mpirun", NULL },
		{ "0::/user.slice/user-1000.slice/session-4.scope\n", CTX_L_SHELL, CTX_SET_SHELL,
		  "/etc/security/limits.d/", NULL },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct proc_context c;
		proc_context_init(&c, 100);
		proc_context_parse_cgroup(t[i].cgroup, &c);
		if (t[i].setting == CTX_SET_USERNS) {	/* docker with userns-remap */
			c.have |= CTX_HAVE_USERNS;
			c.in_userns = true;
		}
		c.have |= CTX_HAVE_LAUNCHERS;
		c.n_launchers = 1;
		c.launchers[0] = (struct ctx_launcher){ .pid = 99, .kind = t[i].launcher, .comm = "x" };
		assert_int_equal(proc_context_setting(&c), t[i].setting);
		struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .ctx = &c, .have_limit = true,
					.limit_bytes = 65536 };
		struct fix_list l;
		assert_true(fixes_for(&in, &l) > 0);
		int p = find(&l, FIX_PRIMARY, "");
		assert_true(p >= 0);
		if (!strstr(l.items[p].text, t[i].primary))
			fail_msg("case %zu: \"%s\" not in: %s", i, t[i].primary, l.items[p].text);
		if (t[i].absent)
			assert_not_advised(&l, t[i].absent);
	}
}

/* Every fix for every recorded setting fits its slot whole. */
static void test_texts_fit(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int pid;
	} all[] = { { "docker", 4242 }, { "k8s_containerd", 5151 }, { "systemd_service", 777 },
		    { "slurm_step", 3010 }, { "rootless_podman", 9001 }, { "mpirun_sshd", 6100 },
		    { "shell", 3333 } };
	static const enum cause causes[] = { CAUSE_MEMLOCK_LIMIT, CAUSE_MEMLOCK_ZERO };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		for (size_t k = 0; k < 2; k++) {
			struct scenario *s = run(all[i].name, all[i].pid, causes[k], true);
			assert_false(s->fixes.truncated);
			for (int j = 0; j < s->fixes.n; j++) {
				size_t n = strlen(s->fixes.items[j].text);
				if (n >= FIX_TEXT_MAX - 1)
					fail_msg("%s/%s fix %d is cut: %s", all[i].name, causes[k], j,
						 s->fixes.items[j].text);
			}
			free(s);
		}
	}
}

static void test_no_context(void **state)
{
	(void)state;
	struct fix_input in = { .cause = CAUSE_MEMLOCK_LIMIT, .have_limit = true, .limit_bytes = 65536 };
	struct fix_list l;
	assert_true(fixes_for(&in, &l) > 0);
	assert_int_equal(l.items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l.items[0].text, "LimitMEMLOCK=infinity"));
	assert_non_null(strstr(l.items[0].text, "--ulimit memlock=-1:-1"));
	assert_non_null(strstr(l.items[0].text, "limit now 64 KiB"));
}

/* One table, indexed by cause: every cause a verdict can have is a row,
 * with its generator or none; no cause can be added or replaced at run time. */
static void test_table(void **state)
{
	(void)state;
	struct fix_input in = { .cause = CAUSE_PIN_DEVICE_MEMORY };
	struct fix_list l;
	assert_int_equal(fixes_for(&in, &l), 2);
	assert_int_equal(l.items[0].kind, FIX_PRIMARY);
	assert_non_null(strstr(l.items[0].text, "modprobe nvidia-peermem"));
	assert_int_equal(l.items[1].kind, FIX_STOPGAP);
	assert_non_null(strstr(l.items[1].text, "NCCL_NET_GDR_LEVEL=LOC"));

	/* no generator: unknown is not guessed at; no_device_access is check's */
	in.cause = CAUSE_UNKNOWN;
	assert_int_equal(fixes_for(&in, &l), -ENOENT);
	assert_int_equal(l.n, 0);
	in.cause = CAUSE_NO_DEVICE_ACCESS;
	assert_int_equal(fixes_for(&in, &l), -ENOENT);
	/* every other cause has one, and it gives at least one fix without any
	 * evidence beyond the cause (the record-free generic advice) */
	for (int c = 0; c < CAUSE__COUNT; c++) {
		struct fix_input any = { .cause = (enum cause)c };
		int n = fixes_for(&any, &l);
		if (c == CAUSE_UNKNOWN || c == CAUSE_NO_DEVICE_ACCESS)
			assert_int_equal(n, -ENOENT);
		else if (c == CAUSE_HCA_RESOURCE_LIMIT || c == CAUSE_BAD_GID_INDEX ||
			 c == CAUSE_BAD_PKEY_INDEX || c == CAUSE_MLX5_FIRMWARE)
			assert_true(n >= 0); /* they name the record's device, port, step */
		else
			assert_true(n > 0);
		assert_int_equal(n < 0 ? 0 : n, l.n);
	}
	in.cause = CAUSE__COUNT;
	assert_int_equal(fixes_for(&in, &l), -EINVAL);
	assert_int_equal(fixes_for(NULL, &l), -EINVAL);

	/* the list never overflows, and a text that does not fit says so */
	for (int i = 0; i < FIX_MAX + 3; i++)
		fix_add(&l, FIX_NOTE, "n%d", i);
	assert_int_equal(l.n, FIX_MAX);
	assert_true(l.truncated);
	memset(&l, 0, sizeof(l));
	fix_add(&l, FIX_NOTE, "%0*d", FIX_TEXT_MAX + 10, 7);
	assert_int_equal(strlen(l.items[0].text), FIX_TEXT_MAX - 1);
	assert_string_equal(l.items[0].text + FIX_TEXT_MAX - 4, "...");
	assert_string_equal(fix_kind_name(FIX_STOPGAP), "stopgap");
}

static void test_needed_bytes(void **state)
{
	(void)state;
	struct fix_input in = { .have_request = true, .request_bytes = REQUEST, .have_pinned = true,
				.pinned_before = PINNED };
	assert_true(fixes_needed_bytes(&in) == REQUEST + PINNED);
	in.have_pinned = false;
	assert_true(fixes_needed_bytes(&in) == REQUEST);
	struct fix_input none = { 0 };
	assert_true(fixes_needed_bytes(&none) == 0);

	/* NCCL's floor counts when it is larger (and only when NCCL is mapped) */
	struct nccl_info *n = calloc(1, sizeof(*n));
	n->estimate.host_min = 64ULL << 20;
	in.nccl = n;
	assert_true(fixes_needed_bytes(&in) == REQUEST);
	n->lib.found = true;
	assert_true(fixes_needed_bytes(&in) == 64ULL << 20);
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_service),
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_k8s_containerd),
		cmocka_unit_test(test_k8s_nonroot_ipc_lock),
		cmocka_unit_test(test_slurm),
		cmocka_unit_test(test_mpirun_remote),
		cmocka_unit_test(test_rootless),
		cmocka_unit_test(test_shell_hard_unlimited),
		cmocka_unit_test(test_shell_hard_low),
		cmocka_unit_test(test_slurm_finite_hard_not_unlimited),
		cmocka_unit_test(test_shell_finite_hard_names_user),
		cmocka_unit_test(test_memlock_zero),
		cmocka_unit_test(test_nccl_stopgaps),
		cmocka_unit_test(test_stopgap_full_settings),
		cmocka_unit_test(test_setting_table),
		cmocka_unit_test(test_texts_fit),
		cmocka_unit_test(test_no_context),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_needed_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
