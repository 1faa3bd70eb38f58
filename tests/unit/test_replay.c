// SPDX-License-Identifier: GPL-2.0-only
/* test_replay.c - `mrtrace explain`'s reading side (user/explain): a
 * `watch --json` record back into the kernel record, the libibverbs call,
 * the process context and NCCL data.
 *
 *  - every fixture in tests/fixtures/trails re-explains, with the context
 *    it carries, to the cause in its file name; recorded ones give back the
 *    setting, limits and launcher chain they were recorded with;
 *  - a report for each setting a process can run in (systemd unit, user
 *    unit, docker, containerd, cri-o, podman, Kubernetes, Slurm, mpirun,
 *    orted, shell, user namespace, unknown), written as JSON and read back,
 *    prints the same text and the same JSON, so the fixes are the same;
 *  - the libibverbs call and NCCL (settings, sources, rank, lint) likewise;
 *  - malformed members are rejected with their name; the stream reader
 *    gives the right line numbers for JSON Lines and pretty-printed records
 *    and recovers after a bad or cut line. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture_path.h"
#include "record/kind.h"
#include "record/record.h"
#include "explain/stream.h"

static struct record_in rec; /* large */

/* What `mrtrace explain` makes of a line, by its kind's row (record/kind.h). */
enum line_class { LINE_OTHER = 0, LINE_FAILURE, LINE_PROBE, LINE_NO_EVENT };

static enum line_class class_of(struct json_object *o, const char **event)
{
	const struct record_kind *k = record_kind_of_json(o, event);

	if (!*event)
		return LINE_NO_EVENT;
	if (!record_kind_readable(k))
		return LINE_OTHER;
	return record_kind_is_probe(k) ? LINE_PROBE : LINE_FAILURE;
}


static struct json_object *jget(struct json_object *o, const char *path)
{
	char buf[256], *save, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	return o;
}

static const char *jstr(struct json_object *o, const char *path)
{
	struct json_object *x = jget(o, path);
	return x ? json_object_get_string(x) : NULL;
}

static int json_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* ---- every fixture ------------------------------------------------------------------ */

static void test_every_fixture_reexplains_to_its_cause(void **state)
{
	(void)state;
	char dir[PATH_MAX + 128], path[PATH_MAX + 512], err[256], cause[64];
	struct dirent **ents;
	static struct report r;
	int n, with_process = 0;

	snprintf(dir, sizeof(dir), "%s", fixture_path("trails", "README.md"));
	*strrchr(dir, '/') = '\0';
	n = scandir(dir, &ents, json_file, alphasort);
	if (n <= 0)
		fail_msg("no trail fixtures in %s", dir);
	for (int i = 0; i < n; i++) {
		const char *file = ents[i]->d_name, *event;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		snprintf(cause, sizeof(cause), "%.*s", (int)strcspn(file, "."), file);
		struct json_object *o = json_object_from_file(path);
		if (!o)
			fail_msg("%s: not JSON", file);
		enum line_class k = class_of(o, &event);
		if (k != LINE_FAILURE && k != LINE_PROBE)
			fail_msg("%s: event '%s' is not a failure", file, event ? event : "(none)");
		if (record_read(o, &rec, err, sizeof(err)))
			fail_msg("%s: %s", file, err);
		record_explain(&r, &rec.ev, record_in_uev(&rec), rec.have_ctx ? &rec.ctx : NULL,
			       rec.have_nccl ? &rec.nccl : NULL, rec.have_gates ? &rec.gates : NULL);
		if (strcmp(cause_name(r.v.cause), cause))
			fail_msg("%s: re-explained as %s (%s)", file, cause_name(r.v.cause), r.v.summary);
		if (r.v.harmless != (k == LINE_PROBE))
			fail_msg("%s: harmless %d for event %s", file, r.v.harmless, event);
		const char *want_api = jstr(o, "api"); /* null for a failure record's op */
		if ((r.api == NULL) != (want_api == NULL) || (r.api && strcmp(r.api, want_api)))
			fail_msg("%s: api %s, recorded %s", file, r.api ? r.api : "null",
				 want_api ? want_api : "null");
		if (rec.have_ctx) {
			/* what /proc said comes back as it was recorded */
			const char *setting = jstr(o, "process.setting");
			char chain[512];
			with_process++;
			assert_non_null(setting);
			assert_string_equal(rec.setting, setting);
			assert_string_equal(ctx_setting_name(proc_context_setting(&rec.ctx)), setting);
			if (jget(o, "process.memlock_soft_bytes"))
				assert_int_equal(rec.ctx.memlock_soft,
						 json_object_get_uint64(jget(o, "process.memlock_soft_bytes")));
			if (jget(o, "process.memlock_hard_bytes"))
				assert_int_equal(rec.ctx.memlock_hard,
						 json_object_get_uint64(jget(o, "process.memlock_hard_bytes")));
			if (jget(o, "process.launchers"))
				assert_string_equal(proc_context_launcher_chain(&rec.ctx, chain, sizeof(chain)),
						    jstr(o, "process.launchers"));
			/* the memlock fixes were chosen for the process, not the
			 * generic ones */
			static struct report generic_r;
			record_explain(&generic_r, &rec.ev, NULL, NULL, NULL, NULL);
			const struct verdict generic = generic_r.v;
			bool same = r.v.fixes.n == generic.fixes.n;
			for (int f = 0; same && f < r.v.fixes.n; f++)
				same = !strcmp(r.v.fixes.items[f].text, generic.fixes.items[f].text);
			if (r.v.has_memlock && same && strcmp(setting, "unknown"))
				fail_msg("%s: generic fixes despite a %s process", file, setting);
		}
		json_object_put(o);
		free(ents[i]);
	}
	free(ents);
	assert_true(with_process >= 10);
}

/* A failed long-term pin recorded with the node's CMA facts
 * (evidence.gates.cma): `mrtrace explain` reads them back and judges
 * with them, not with the generic pin_migrate text. */
static void test_pin_migrate_kho_facts(void **state)
{
	(void)state;
	char err[256];
	static struct report r;
	struct json_object *o = json_object_from_file(fixture_path("trails", "pin_migrate.kho.synthetic.json"));

	assert_non_null(o);
	assert_int_equal(record_read(o, &rec, err, sizeof(err)), 0);
	assert_true(rec.have_gates);
	assert_true(rec.gates.cma.read);
	assert_int_equal(rec.gates.cma.cma_blocks, 24576);
	record_explain(&r, &rec.ev, NULL, NULL, NULL, &rec.gates);
	assert_string_equal(cause_name(r.v.cause), "pin_migrate");
	assert_non_null(strstr(r.v.summary, "48 GiB of MIGRATE_CMA pageblocks on this node while "
					    "CmaTotal is 0 kB: memory a kexec handover left as CMA"));
	assert_non_null(strstr(r.v.fixes.items[0].text, "kho_scratch="));
	json_object_put(o);
}

/* ---- contexts of every setting, through JSON and back ---------------------------------- */

#define ID64 "4d6f8a0e3b1c2d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6"
#define POD "1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d"

static const struct setting_case {
	enum ctx_setting want;
	const char *cgroup; /* NULL: unknown */
	const char *launchers; /* "comm:pid ..." nearest first */
	bool userns;
	enum ctx_runtime runtime; /* set after the path: what the monitor process told */
} cases[] = {
	{ CTX_SET_UNKNOWN, NULL, "", false, CTX_RT_NONE },
	{ CTX_SET_USERNS, "/user.slice/user-1000.slice/user@1000.service/app.slice/podman.scope",
	  "bash:900 systemd:1", true, CTX_RT_NONE },
	{ CTX_SET_KUBERNETES,
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD
	  ".slice/cri-containerd-" ID64 ".scope",
	  "python3:20 containerd-shim:12 systemd:1", false, CTX_RT_NONE },
	{ CTX_SET_DOCKER, "/system.slice/docker-" ID64 ".scope", "python3:30 systemd:1", false,
	  CTX_RT_NONE },
	{ CTX_SET_CONTAINERD, "/" ID64, "containerd-shim:40 systemd:1", false, CTX_RT_CONTAINERD },
	{ CTX_SET_CRIO, "/machine.slice/crio-" ID64 ".scope", "conmon:50 systemd:1", false,
	  CTX_RT_NONE },
	{ CTX_SET_PODMAN, "/machine.slice/libpod-" ID64 ".scope", "conmon:60 systemd:1", false,
	  CTX_RT_NONE },
	{ CTX_SET_CONTAINER, "/" ID64, "", false, CTX_RT_NONE },
	{ CTX_SET_SLURM, "/system.slice/slurmstepd.scope/job_4711/step_0",
	  "python3:70 slurmstepd:69 systemd:1", false, CTX_RT_NONE },
	{ CTX_SET_MPI_REMOTE, "/system.slice/ssh.service", "orted:80 sshd:79 sshd:2 systemd:1", false,
	  CTX_RT_NONE },
	{ CTX_SET_MPI_LOCAL, "/user.slice/user-1000.slice/session-4.scope",
	  "mpirun:90 bash:89 sshd:88 systemd:1", false, CTX_RT_NONE },
	{ CTX_SET_SYSTEMD_SERVICE, "/system.slice/train.service", "systemd:1", false, CTX_RT_NONE },
	{ CTX_SET_SYSTEMD_USER,
	  "/user.slice/user-1000.slice/user@1000.service/app.slice/train.service",
	  "systemd:1100 systemd:1", false, CTX_RT_NONE },
	{ CTX_SET_SHELL, "/user.slice/user-1000.slice/session-4.scope", "bash:99 sshd:98 systemd:1",
	  false, CTX_RT_NONE },
};

static void make_ctx(const struct setting_case *sc, struct proc_context *c)
{
	char line[600], buf[256], *save, *t;

	proc_context_init(c, 4242);
	c->have = CTX_HAVE_EXE | CTX_HAVE_CMDLINE | CTX_HAVE_COMM | CTX_HAVE_UID | CTX_HAVE_MEMLOCK |
		  CTX_HAVE_MEMLOCK_HARD | CTX_HAVE_VMPIN | CTX_HAVE_VMLCK | CTX_HAVE_CAPS |
		  CTX_HAVE_USERNS | CTX_HAVE_LAUNCHERS | CTX_HAVE_CGROUP_ID;
	snprintf(c->exe, sizeof(c->exe), "/usr/bin/python3.11");
	snprintf(c->cmdline, sizeof(c->cmdline), "python3 train.py --nodes 2");
	snprintf(c->comm, sizeof(c->comm), "python3");
	c->uid = c->euid = 1000;
	c->memlock_soft = 64 << 10;
	c->memlock_hard = sc->want == CTX_SET_SHELL ? CTX_UNLIMITED : 8 << 20;
	c->vm_pin = 32 << 20;
	c->vm_lck = 4096;
	c->cap_ipc_lock = sc->userns; /* root of its own namespace: held, not counted */
	c->cap_eff = c->cap_ipc_lock ? 1ULL << CTX_CAP_IPC_LOCK : 0;
	c->in_userns = sc->userns;
	c->cgroup_id = 8412;
	if (sc->cgroup) {
		snprintf(line, sizeof(line), "0::%s\n", sc->cgroup);
		proc_context_parse_cgroup(line, c);
	}
	if (sc->runtime != CTX_RT_NONE)
		c->runtime = sc->runtime;
	snprintf(buf, sizeof(buf), "%s", sc->launchers);
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		struct ctx_launcher *l = &c->launchers[c->n_launchers++];
		char *colon = strchr(t, ':');
		*colon = '\0';
		snprintf(l->comm, sizeof(l->comm), "%s", t);
		l->pid = atoi(colon + 1);
		l->kind = !strncmp(t, "python", 6) ? CTX_L_TORCHRUN /* from its command line */
						   : launcher_classify(l->pid, l->comm, NULL);
	}
	/* and an unrecognized ancestor, which the chain leaves out */
	struct ctx_launcher *l = &c->launchers[c->n_launchers++];
	snprintf(l->comm, sizeof(l->comm), "make");
	l->pid = 3;
	l->kind = CTX_L_OTHER;
}

/* NCCL as nccl_info_read would have found it: environment and a conf file,
 * a rank, lint findings, the estimate. */
static void make_nccl(struct nccl_info *n)
{
	static struct ctx_env env;

	memset(n, 0, sizeof(*n));
	n->lib.found = true;
	snprintf(n->lib.path, sizeof(n->lib.path), "/opt/nccl/lib/libnccl.so.2.21.5");
	nccl_version_scan_buf("NCCL version 2.21.5+cuda12.4", 28, &n->lib);
	assert_true(n->lib.version_known);
	memset(&env, 0, sizeof(env));
	env.n = 2;
	snprintf(env.vars[0].name, sizeof(env.vars[0].name), "RANK");
	snprintf(env.vars[0].value, sizeof(env.vars[0].value), "3");
	snprintf(env.vars[1].name, sizeof(env.vars[1].name), "NCCL_IB_DISABLE_GDR");
	snprintf(env.vars[1].value, sizeof(env.vars[1].value), "1");
	nccl_rank_from_env(&env, &n->rank);
	assert_int_equal(n->rank.rank, 3);
	snprintf(n->settings.nccl_version, sizeof(n->settings.nccl_version), "%s", n->lib.version);
	nccl_settings_apply_conf(&n->settings, "NCCL_IB_DISABLE_GDR=1\n", NCCL_SRC_ENV, NULL);
	nccl_settings_apply_conf(&n->settings, "NCCL_BUFFSIZE=8388608\nNCCL_NCHANNELS_PER_PEER=4\n",
				 NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf");
	nccl_lint_settings(&n->settings, &n->lint);
	assert_true(n->lint.n > 0);
	nccl_estimate(&n->settings, NULL, &n->estimate);
}

static char *text_of(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_print_text(f, r, true);
	fclose(f);
	return buf;
}

/* The record `watch --json` writes for (ev, uev, ctx, nccl, ua), read back:
 * the re-explained report prints the same text and the same JSON. */
static void round_trip(const char *what, const struct mrt_event *ev, const struct mrt_event *uev,
		       const struct ustack_attr *ua, const struct proc_context *ctx,
		       const struct nccl_info *nccl)
{
	static struct report live, back;
	char err[256];

	record_explain(&live, ev, uev, ctx, nccl, NULL);
	if (ua)
		live.ua = *ua;
	struct json_object *o = record_report_json(&live);
	char *line = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	struct json_object *parsed = json_tokener_parse(line);
	assert_non_null(parsed);
	if (record_read(parsed, &rec, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	assert_int_equal(rec.have_ctx, ctx != NULL);
	assert_int_equal(rec.have_nccl, nccl != NULL && nccl->lib.found);
	record_explain(&back, &rec.ev, record_in_uev(&rec), rec.have_ctx ? &rec.ctx : NULL,
		       rec.have_nccl ? &rec.nccl : NULL, rec.have_gates ? &rec.gates : NULL);
	back.ua = rec.ua;

	char *t1 = text_of(&live), *t2 = text_of(&back);
	if (strcmp(t1, t2)) {
		size_t d = 0;
		while (t1[d] == t2[d])
			d++;
		while (d > 0 && t1[d - 1] != '\n')
			d--;
		fail_msg("%s: text differs from here:\n--- live\n%.300s\n--- replayed\n%.300s", what,
			 t1 + d, t2 + d);
	}
	struct json_object *o2 = record_report_json(&back);
	const char *j2 = json_object_to_json_string_ext(o2, JSON_C_TO_STRING_PLAIN);
	if (strcmp(line, j2)) {
		size_t d = 0;
		while (line[d] == j2[d])
			d++;
		fail_msg("%s: JSON differs at byte %zu:\n--- live\n%.200s\n--- replayed\n%.200s", what, d,
			 line + d, j2 + d);
	}
	assert_int_equal(back.v.fixes.n, live.v.fixes.n);
	free(t1);
	free(t2);
	free(line);
	json_object_put(o);
	json_object_put(o2);
	json_object_put(parsed);
}

static const struct mrt_event *memlock_event(void)
{
	static struct mrt_event ev;
	char err[256];
	const char *p = fixture_path("trails", "memlock_limit.nobody64k.6.12.json");
	struct json_object *o = json_object_from_file(p);

	assert_non_null(o);
	if (record_raw_from_json(o, &ev, err, sizeof(err)))
		fail_msg("%s: %s", p, err);
	json_object_put(o);
	return &ev;
}

static void test_every_setting_round_trips(void **state)
{
	(void)state;
	static struct proc_context ctx;
	static struct nccl_info nccl;
	const struct mrt_event *ev = memlock_event();
	bool seen[CTX_SET_SHELL + 1] = { 0 };

	make_nccl(&nccl);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct setting_case *sc = &cases[i];
		const char *name = ctx_setting_name(sc->want);

		make_ctx(sc, &ctx);
		if (proc_context_setting(&ctx) != sc->want)
			fail_msg("case %s: the live context reads as %s", name,
				 ctx_setting_name(proc_context_setting(&ctx)));
		seen[sc->want] = true;
		round_trip(name, ev, NULL, NULL, &ctx, i % 2 ? &nccl : NULL);
		assert_int_equal(proc_context_setting(&rec.ctx), sc->want);
		assert_string_equal(rec.setting, name);
		/* the members the fixes quote */
		assert_string_equal(rec.ctx.systemd_unit, ctx.systemd_unit);
		assert_int_equal(rec.ctx.systemd_user_unit, ctx.systemd_user_unit);
		assert_string_equal(rec.ctx.container_id, ctx.container_id);
		assert_string_equal(rec.ctx.pod_uid, ctx.pod_uid);
		assert_int_equal(rec.ctx.runtime, ctx.runtime);
		assert_int_equal(rec.ctx.slurm_job, ctx.slurm_job);
		assert_string_equal(rec.ctx.slurm_step, ctx.slurm_step);
		assert_int_equal(rec.ctx.memlock_hard, ctx.memlock_hard);
		assert_int_equal(rec.ctx.cap_ipc_lock, ctx.cap_ipc_lock);
	}
	for (int s = CTX_SET_UNKNOWN; s <= CTX_SET_SHELL; s++)
		if (!seen[s])
			fail_msg("no case for setting %s", ctx_setting_name(s));
}

static void test_nccl_round_trip(void **state)
{
	(void)state;
	static struct proc_context ctx;
	static struct nccl_info nccl;

	make_ctx(&cases[11], &ctx);
	make_nccl(&nccl);
	round_trip("nccl", memlock_event(), NULL, NULL, &ctx, &nccl);
	assert_true(rec.have_nccl);
	assert_int_equal(rec.nccl.lib.major, 2);
	assert_int_equal(rec.nccl.lib.minor, 21);
	assert_int_equal(rec.nccl.lib.patch, 5);
	assert_int_equal(rec.nccl.rank.rank, 3);
	assert_string_equal(rec.nccl.rank.rank_var, "RANK");
	assert_int_equal(rec.nccl.settings.n, nccl.settings.n);
	for (int i = 0; i < nccl.settings.n; i++) {
		const struct nccl_setting *s = nccl_setting_get(&rec.nccl.settings, nccl.settings.v[i].name);
		assert_non_null(s);
		assert_string_equal(s->value, nccl.settings.v[i].value);
		assert_int_equal(s->source, nccl.settings.v[i].source);
	}
	assert_int_equal(rec.nccl.lint.n, nccl.lint.n);
	assert_int_equal(rec.nccl.lint.f[0].kind, nccl.lint.f[0].kind);
	assert_int_equal(rec.nccl.estimate.host_max, nccl.estimate.host_max);
	assert_int_equal(rec.nccl.estimate.host_min, nccl.estimate.host_min);
}

/* A record written before "setting_sources": the values come back, the
 * sources are not claimed. */
static void test_nccl_without_sources(void **state)
{
	(void)state;
	static struct report r;
	struct json_object *o = json_object_from_file(fixture_path("trails", "memlock_limit.nobody64k.6.12.json"));
	char err[256];

	assert_non_null(o);
	json_object_object_add(o, "nccl",
			       json_tokener_parse("{\"found\":true,\"library\":\"/x/libnccl.so.2\","
						  "\"version\":\"2.18.3\",\"rank\":7,"
						  "\"rank_variable\":\"OMPI_COMM_WORLD_RANK\","
						  "\"settings\":{\"NCCL_BUFFSIZE\":\"4194304\"},"
						  "\"lint\":[{\"kind\":\"nonexistent_variable\","
						  "\"name\":\"NCCL_IB_DISABLE_GDR\",\"message\":\"m\"},"
						  "{\"kind\":\"from_the_future\",\"name\":\"X\",\"message\":\"y\"},"
						  "{\"kind\":\"ignored_by_version\",\"name\":\"NCCL_Z\","
						  "\"message\":\"z\"},"
						  "{\"kind\":\"not_examined\",\"name\":\"\",\"message\":\"w\"}]}"));
	assert_int_equal(record_read(o, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.nccl.settings.n, 1);
	assert_int_equal(rec.nccl.settings.v[0].source, NCCL_SRC_DEFAULT);
	assert_string_equal(rec.nccl.rank.rank_var, "OMPI_COMM_WORLD_RANK");
	assert_int_equal(rec.nccl.rank.rank, 7);
	/* an unknown kind is not acted on; every kind this mrtrace writes is kept */
	assert_int_equal(rec.nccl.lint.n, 3);
	assert_int_equal(rec.nccl.lint.f[0].kind, NCCL_LINT_NONEXISTENT);
	assert_int_equal(rec.nccl.lint.f[1].kind, NCCL_LINT_IGNORED);
	assert_int_equal(rec.nccl.lint.f[2].kind, NCCL_LINT_DROPPED);
	record_explain(&r, &rec.ev, NULL, NULL, &rec.nccl, NULL);
	char *t = text_of(&r);
	if (!strstr(t, "    NCCL_BUFFSIZE=4194304\n"))
		fail_msg("no source-less setting line in:\n%s", t);
	if (!strstr(t, "NCCL: 2.18.3, rank 7 (OMPI_COMM_WORLD_RANK)"))
		fail_msg("no NCCL line in:\n%s", t);
	free(t);
	json_object_put(o);
}

static void test_user_call_round_trip(void **state)
{
	(void)state;
	static struct proc_context ctx;
	static struct mrt_event uev;
	const struct mrt_event *ev = memlock_event();
	struct ustack_attr ua = { .resolved = true, .via_nccl = true, .frames = 7 };

	snprintf(ua.caller, sizeof(ua.caller), "/opt/nccl/lib/libnccl.so.2.21.5");
	make_ctx(&cases[3], &ctx);
	memset(&uev, 0, sizeof(uev));
	uev.kind = MRT_EV_USER_CALL;
	uev.pid = ev->pid;
	uev.tid = ev->tid + 5;
	uev.err = ENOMEM;
	uev.opener = MRT_API_REG_MR_IOVA2;
	uev.cmd_start = 0x7f5500001000ULL;
	uev.cmd_length = 16 << 20;
	uev.cmd_iova = 0x7f5500001000ULL;
	uev.cmd_access = 0x10000f;
	uev.cmd_valid = 3;
	uev.dmabuf_fd = -1;
	uev.cmd_reached = 1;
	/* joined to the kernel record */
	round_trip("joined", ev, &uev, &ua, &ctx, NULL);
	assert_true(rec.have_uev);
	assert_int_equal(rec.uev.opener, MRT_API_REG_MR_IOVA2);
	assert_int_equal(rec.uev.tid, uev.tid);
	assert_int_equal(rec.uev.cmd_length, uev.cmd_length);
	assert_int_equal(rec.uev.cmd_access, uev.cmd_access);
	assert_int_equal(rec.uev.err, ENOMEM);
	assert_true(rec.ua.via_nccl);
	assert_int_equal(rec.ua.frames, 7);
	/* alone (no kernel site armed): inferred from the carried /proc numbers */
	uev.tid = ev->tid;
	round_trip("alone", &uev, &uev, &ua, &ctx, NULL);
	assert_ptr_equal(record_in_uev(&rec), &rec.ev);
	/* a dma-buf call */
	uev.opener = MRT_API_REG_DMABUF_MR;
	uev.dmabuf_fd = 87;
	uev.cmd_start = 4096;
	round_trip("dmabuf", ev, &uev, NULL, &ctx, NULL);
	assert_int_equal(rec.uev.dmabuf_fd, 87);
	assert_int_equal(rec.uev.cmd_start, 4096);
	assert_false(rec.ua.resolved);
}

/* ---- what is not a record, and malformed members ------------------------------------ */

static void test_kinds(void **state)
{
	(void)state;
	static const struct {
		const char *json;
		enum line_class k;
	} t[] = {
		{ "{\"event\":\"start\",\"kernel\":\"6.12\"}", LINE_OTHER },
		{ "{\"event\":\"stop\"}", LINE_OTHER },
		{ "{\"event\":\"library_attached\",\"path\":\"/x\"}", LINE_OTHER },
		{ "{\"event\":\"memlock_limit_set\",\"pid\":1}", LINE_OTHER },
		{ "{\"event\":\"modules_changed\"}", LINE_OTHER },
		{ "{\"event\":\"from_the_future\"}", LINE_OTHER },
		{ "{\"event\":\"reg_failure\"}", LINE_FAILURE },
		{ "{\"event\":\"mlock_failure\"}", LINE_FAILURE },
		{ "{\"event\":\"failure\"}", LINE_FAILURE },
		{ "{\"event\":\"user_call\"}", LINE_FAILURE },
		{ "{\"event\":\"nccl_probe\"}", LINE_PROBE },
		{ "{\"pid\":1}", LINE_NO_EVENT },
		{ "{\"event\":7}", LINE_NO_EVENT },
		{ "[1,2]", LINE_NO_EVENT },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct json_object *o = json_tokener_parse(t[i].json);
		const char *ev;
		assert_non_null(o);
		if (class_of(o, &ev) != t[i].k)
			fail_msg("%s: kind %d, expected %d", t[i].json, class_of(o, &ev), t[i].k);
		json_object_put(o);
	}
}

static void expect_error(const char *member, const char *value_json, const char *in_msg)
{
	struct json_object *o = json_object_from_file(fixture_path("trails", "memlock_limit.cumulative.6.12.json"));
	char err[256] = "", path[128], *last;

	assert_non_null(o);
	snprintf(path, sizeof(path), "%s", member);
	last = strrchr(path, '.');
	struct json_object *parent = o;
	if (last) {
		*last = '\0';
		parent = jget(o, path);
		last++;
	} else {
		last = path;
	}
	assert_non_null(parent);
	json_object_object_add(parent, last, json_tokener_parse(value_json));
	if (record_read(o, &rec, err, sizeof(err)) != -1)
		fail_msg("%s = %s: accepted", member, value_json);
	if (!strstr(err, in_msg))
		fail_msg("%s = %s: message '%s' does not name '%s'", member, value_json, err, in_msg);
	json_object_put(o);
}

static void test_malformed_members(void **state)
{
	(void)state;
	char err[256];
	struct json_object *o = json_object_from_file(fixture_path("trails", "memlock_limit.cumulative.6.12.json"));

	/* the base is fine, and absent members are simply unknown */
	assert_int_equal(record_read(o, &rec, err, sizeof(err)), 0);
	json_object_object_del(jget(o, "process"), "cgroup");
	json_object_object_del(jget(o, "process"), "launchers");
	assert_int_equal(record_read(o, &rec, err, sizeof(err)), 0);
	assert_false(rec.ctx.have & CTX_HAVE_CGROUP);
	assert_false(rec.ctx.have & CTX_HAVE_LAUNCHERS);
	json_object_put(o);

	expect_error("process", "[]", "process");
	expect_error("process.memlock_soft_bytes", "\"lots\"", "process.memlock_soft_bytes");
	expect_error("process.uid", "\"root\"", "process.uid");
	expect_error("process.user_namespace", "1", "process.user_namespace");
	expect_error("process.cgroup", "5", "process.cgroup");
	expect_error("process.slurm_job", "\"4711\"", "process.slurm_job");
	expect_error("nccl", "{\"settings\":{\"NCCL_BUFFSIZE\":4194304}}", "nccl.settings.NCCL_BUFFSIZE");
	expect_error("nccl", "{\"lint\":[5]}", "nccl.lint[0]");
	expect_error("nccl", "{\"version\":2}", "nccl.version");
	expect_error("user_call", "{\"api\":\"ibv_reg_mr_iova9\"}", "user_call.api");
	expect_error("user_call", "{\"api\":\"ibv_reg_mr\",\"length\":\"16M\"}", "user_call.length");
	expect_error("raw.ml", "7", "raw.ml");
	/* a step's ret outside a kernel return (INT_MIN overflowed where the
	 * text negates it), a site number beyond the table */
	/* a page size no kernel has (the fuzzer's shift of 112) */
	expect_error("raw.page_shift", "112", "raw.page_shift");
	expect_error("raw.page_shift", "\"4K\"", "raw.page_shift");
	expect_error("raw.steps", "[[1,-2147483648,0,0,0]]", "raw.steps[0]");
	expect_error("raw.steps", "[[1,-4096,0,0,0]]", "raw.steps[0]");
	expect_error("raw.steps", "[[65535,-12,0,0,0]]", "raw.steps[0]");
	expect_error("raw.steps", "[[\"umem\",-12,0,0,0]]", "raw.steps[0]");
	/* issue 24 row 14: numbers no kernel records, refused with the reason
	 * instead of printed as 4294967291, 0 or "(0 B): over by 16.0 EiB" */
	expect_error("raw.pid", "-5", "raw.pid");
	expect_error("raw.tid", "1099511627776", "raw.tid");
	expect_error("raw.uid", "4294967296", "raw.uid");
	expect_error("raw.ns_pid", "-1", "raw.ns_pid");
	expect_error("raw.err", "-12", "raw.err");
	expect_error("raw.ml.requested_pages", "1152921504606846976", "raw.ml.requested_pages");
	expect_error("raw.ml.pinned_pages_before", "18446744073709551615", "raw.ml.pinned_pages_before");
	/* a storm summary's members (row 2) */
	expect_error("count", "0", "count");
	expect_error("count", "\"19999\"", "count");
	expect_error("first_ts_ns", "-1", "first_ts_ns");
	expect_error("host", "5", "host");
	expect_error("time", "[]", "time");
}

/* issue 24 row 2: what a record says about itself is kept - a storm's count
 * and times, and the envelope every watch line carries */
static void test_storm_and_envelope_kept(void **state)
{
	(void)state;
	char err[256];
	struct json_object *o = json_object_from_file(fixture_path("trails", "memlock_limit.cumulative.6.12.json"));

	assert_non_null(o);
	json_object_object_add(o, "count", json_object_new_int64(19999));
	json_object_object_add(o, "first_ts_ns", json_object_new_int64(1000));
	json_object_object_add(o, "last_ts_ns", json_object_new_int64(2000001000));
	json_object_object_add(o, "time", json_object_new_string("2026-01-02T03:04:05.000006Z"));
	json_object_object_add(o, "host", json_object_new_string("gpu-node-7"));
	json_object_object_add(o, "schema", json_object_new_string("mrtrace-watch/1"));
	json_object_object_add(o, "mrtrace_version", json_object_new_string("0.1.0-recorded"));
	if (record_read(o, &rec, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(rec.count, 19999);
	assert_int_equal(rec.first_ts_ns, 1000);
	assert_int_equal(rec.last_ts_ns, 2000001000);
	assert_string_equal(rec.env.time, "2026-01-02T03:04:05.000006Z");
	assert_string_equal(rec.env.host, "gpu-node-7");
	assert_string_equal(rec.env.schema, "mrtrace-watch/1");
	assert_string_equal(rec.env.version, "0.1.0-recorded");

	/* written back as they were read */
	static struct report r;
	record_explain(&r, &rec.ev, record_in_uev(&rec), rec.have_ctx ? &rec.ctx : NULL,
		       rec.have_nccl ? &rec.nccl : NULL, rec.have_gates ? &rec.gates : NULL);
	record_in_keep(&r, &rec);
	struct json_object *out = record_report_json(&r);
	record_envelope_put(out, &rec.env);
	assert_string_equal(jstr(out, "event"), "reg_failure");
	assert_int_equal(json_object_get_int64(jget(out, "count")), 19999);
	assert_int_equal(json_object_get_int64(jget(out, "first_ts_ns")), 1000);
	assert_int_equal(json_object_get_int64(jget(out, "last_ts_ns")), 2000001000);
	assert_string_equal(jstr(out, "time"), "2026-01-02T03:04:05.000006Z");
	assert_string_equal(jstr(out, "host"), "gpu-node-7");
	assert_string_equal(jstr(out, "schema"), "mrtrace-watch/1");
	assert_string_equal(jstr(out, "mrtrace_version"), "0.1.0-recorded");
	json_object_put(out);

	/* a record without them: no count, and the envelope of this build */
	json_object_object_del(o, "count");
	json_object_object_del(o, "first_ts_ns");
	json_object_object_del(o, "last_ts_ns");
	json_object_object_del(o, "time");
	json_object_object_del(o, "host");
	json_object_object_del(o, "schema");
	json_object_object_del(o, "mrtrace_version");
	assert_int_equal(record_read(o, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.count, 0);
	assert_null(rec.env.time);
	assert_null(rec.env.host);
	out = json_object_new_object();
	record_envelope_put(out, &rec.env);
	assert_string_equal(jstr(out, "schema"), "mrtrace-watch/1");
	assert_non_null(jstr(out, "mrtrace_version"));
	assert_null(jget(out, "time"));
	assert_null(jget(out, "host"));
	json_object_put(out);
	json_object_put(o);
}

/* ---- the stream ------------------------------------------------------------------------- */

struct item {
	int rc;
	long line;
	char event[32];
};

static int read_all(const char *text, struct item *items, int max)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct replay_stream *s = replay_stream_new(f);
	struct json_object *o;
	char err[256];
	long line;
	int n = 0, rc;

	assert_non_null(s);
	while ((rc = replay_stream_next(s, &o, &line, err, sizeof(err))) != 0) {
		assert_true(n < max);
		items[n].rc = rc;
		items[n].line = line;
		const char *ev = rc > 0 ? jstr(o, "event") : NULL;
		snprintf(items[n].event, sizeof(items[n].event), "%s", ev ? ev : "");
		if (rc < 0)
			assert_true(err[0] != '\0');
		json_object_put(o);
		n++;
	}
	replay_stream_free(s);
	fclose(f);
	return n;
}

static void test_stream_lines(void **state)
{
	(void)state;
	struct item it[16];
	int n;

	/* JSON Lines, a blank line, CRLF, two values on one line */
	n = read_all("{\"event\":\"start\"}\n\n{\"event\":\"a\"}\r\n{\"event\":\"b\"} {\"event\":\"c\"}\n", it, 16);
	assert_int_equal(n, 4);
	assert_int_equal(it[0].line, 1);
	assert_string_equal(it[1].event, "a");
	assert_int_equal(it[1].line, 3);
	assert_int_equal(it[2].line, 4);
	assert_int_equal(it[3].line, 4);
	assert_string_equal(it[3].event, "c");

	/* pretty-printed records: the line each starts on */
	n = read_all("{\n  \"event\": \"a\",\n  \"raw\": {\n    \"kind\": 1\n  }\n}\n{\n  \"event\": \"b\"\n}\n",
		     it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].line, 1);
	assert_int_equal(it[1].line, 7);
	assert_string_equal(it[1].event, "b");

	/* a malformed line between good ones */
	n = read_all("{\"event\":\"a\"}\n{\"event\": nope}\n{\"event\":\"b\"}\n", it, 16);
	assert_int_equal(n, 3);
	assert_int_equal(it[1].rc, -1);
	assert_int_equal(it[1].line, 2);
	assert_int_equal(it[2].rc, 1);
	assert_string_equal(it[2].event, "b");
	assert_int_equal(it[2].line, 3);

	/* a line cut short (killed while writing): the next record still counts */
	n = read_all("{\"event\":\"a\"}\n{\"event\":\"reg_fail\n{\"event\":\"b\"}\n", it, 16);
	assert_int_equal(n, 3);
	assert_int_equal(it[1].rc, -1);
	assert_int_equal(it[1].line, 2);
	assert_string_equal(it[2].event, "b");
	assert_int_equal(it[2].line, 3);

	/* a broken pretty-printed record: one error, then the next record */
	n = read_all("{\n  \"event\": \"a\",\n  oops\n  \"x\": 1\n}\n{\n  \"event\": \"b\"\n}\n", it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, -1);
	assert_int_equal(it[0].line, 1);
	assert_string_equal(it[1].event, "b");
	assert_int_equal(it[1].line, 6);

	/* the input ends inside a value */
	n = read_all("{\"event\":\"a\"}\n{\"event\":", it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[1].rc, -1);
	assert_int_equal(it[1].line, 2);

	/* nothing at all */
	assert_int_equal(read_all("\n\n", it, 16), 0);
}

/* read_all for a buffer with NUL bytes in it; with keep, the log lines
 * among the values handed out too (rc 2: event holds the line's first 31
 * bytes) */
static int read_stream(const char *text, size_t len, struct item *items, int max, bool keep)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct replay_stream *s = replay_stream_new(f);
	struct json_object *o;
	char err[256];
	long line;
	int n = 0, rc;

	assert_non_null(s);
	replay_stream_keep_lines(s, keep);
	while ((rc = replay_stream_next(s, &o, &line, err, sizeof(err))) != 0) {
		if (n < max) {
			items[n].rc = rc;
			items[n].line = line;
			items[n].event[0] = 0;
			if (rc == 1) {
				const char *ev = jstr(o, "event");
				snprintf(items[n].event, sizeof(items[n].event), "%s", ev ? ev : "");
			} else if (rc == 2) {
				size_t k;
				const char *t = replay_stream_line(s, &k);
				assert_null(memchr(t, '\n', k));
				snprintf(items[n].event, sizeof(items[n].event), "%.*s", (int)k, t);
			}
		}
		json_object_put(o);
		n++;
	}
	replay_stream_free(s);
	fclose(f);
	return n;
}

static int read_mem(const char *text, size_t len, struct item *items, int max)
{
	return read_stream(text, len, items, max, false);
}

static int read_mixed(const char *text, size_t len, struct item *items, int max)
{
	return read_stream(text, len, items, max, true);
}

/* issue 46 item 4: in an input that starts with a record, whether a line
 * is a record or a log line is decided per line; nothing is dropped as
 * junk.  Before, the NCCL line after a journald entry was "not valid JSON"
 * and lost. */
static void test_stream_log_lines_among_records(void **state)
{
	(void)state;
	struct item it[16];
	static const char mixed[] =
		"{\"MESSAGE\":\"hello\",\"_HOSTNAME\":\"n1\"}\n"
		"n1:1:2 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed\n"
		"[ 1203.110000] infiniband mlx5_0: ib_umem_get failed\n"
		"[rank3]: RuntimeError: NCCL error\n"
		"{\n  \"event\": \"b\"\n}\n"
		"[\n{\"event\":\"c\"}\n]\n";
	int n = read_mixed(mixed, sizeof(mixed) - 1, it, 16);
	assert_int_equal(n, 6);
	assert_int_equal(it[0].rc, 1);
	assert_int_equal(it[1].rc, 2);
	assert_int_equal(it[1].line, 2);
	assert_string_equal(it[1].event, "n1:1:2 [0] misc/ibvwrap.cc:278 ");
	assert_int_equal(it[2].rc, 2);
	assert_int_equal(it[2].line, 3);
	assert_int_equal(it[3].rc, 2);
	assert_int_equal(it[3].line, 4);
	assert_int_equal(it[4].rc, 1);
	assert_string_equal(it[4].event, "b");
	assert_int_equal(it[4].line, 5);
	assert_int_equal(it[5].rc, 1); /* the array of one record */

	/* after a broken record: the rest of its value is skipped, the log
	 * line after it is handed out */
	static const char broken[] = "{\"event\": nope\n  \"x\": 1\n}\nplain log line\n{\"event\":\"d\"}\n";
	n = read_mixed(broken, sizeof(broken) - 1, it, 16);
	assert_int_equal(n, 3);
	assert_int_equal(it[0].rc, -1);
	assert_int_equal(it[1].rc, 2);
	assert_int_equal(it[1].line, 4);
	assert_string_equal(it[1].event, "plain log line");
	assert_string_equal(it[2].event, "d");

	/* a log line longer than a piece: one line, its rest skipped; then
	 * the record after it */
	size_t big = 200 * 1024;
	char *b = malloc(big + 64);
	assert_non_null(b);
	memset(b, 'x', big);
	strcpy(b + big, "\n{\"event\":\"e\"}\n");
	n = read_mixed(b, strlen(b), it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, 2);
	assert_int_equal(it[1].rc, 1);
	assert_string_equal(it[1].event, "e");
	assert_int_equal(it[1].line, 2);
	free(b);

	/* off (watch's own files, the default): the same input as before */
	n = read_all(mixed, it, 16);
	assert_int_equal(it[0].rc, 1);
	assert_int_equal(it[1].rc, -1);
}

/* issue 24 row 3: NUL bytes are malformed input, not whitespace; a value
 * is bounded; a record at the start of an endless line is kept; a stream
 * of nothing but junk ends after a bound, with one error */
static void test_stream_bounds(void **state)
{
	(void)state;
	struct item it[16];
	int n;

	/* 50 KiB of NULs, then a record */
	size_t zlen = 50 * 1024;
	char *z = calloc(1, zlen + 64);
	assert_non_null(z);
	strcpy(z + zlen, "\n{\"event\":\"b\"}\n");
	n = read_mem(z, zlen + strlen(z + zlen), it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, -1);
	assert_int_equal(it[0].line, 1);
	assert_int_equal(it[1].rc, 1);
	assert_string_equal(it[1].event, "b");
	assert_int_equal(it[1].line, 2);
	/* a NUL inside a value */
	static const char mid[] = "{\"event\":\"a\0\"}\n{\"event\":\"c\"}\n";
	n = read_mem(mid, sizeof(mid) - 1, it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, -1);
	assert_string_equal(it[1].event, "c");
	free(z);

	/* a value larger than REPLAY_VALUE_MAX: one error, then the next record */
	size_t big = REPLAY_VALUE_MAX + 1024;
	char *b = malloc(big + 64);
	assert_non_null(b);
	static const char head[] = "{\"event\":\"x\",\"pad\":\"";
	memcpy(b, head, sizeof(head) - 1);
	memset(b + sizeof(head) - 1, 'p', big - (sizeof(head) - 1));
	strcpy(b + big, "\"}\n{\"event\":\"d\"}\n");
	n = read_mem(b, big + strlen(b + big), it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, -1);
	assert_int_equal(it[0].line, 1);
	assert_string_equal(it[1].event, "d");
	assert_int_equal(it[1].line, 2);

	/* a record, then a long line of junk: the record is kept */
	static const char rec_e[] = "{\"event\":\"e\"}";
	memcpy(b, rec_e, sizeof(rec_e) - 1);
	memset(b + sizeof(rec_e) - 1, 'j', big - (sizeof(rec_e) - 1));
	strcpy(b + big, "\n{\"event\":\"f\"}\n");
	n = read_mem(b, big + strlen(b + big), it, 16);
	assert_int_equal(n, 3);
	assert_string_equal(it[0].event, "e");
	assert_int_equal(it[1].rc, -1);
	assert_string_equal(it[2].event, "f");
	free(b);

	/* junk without end (a pipe from /dev/zero): one error, then the rest
	 * is not read */
	size_t jlen = REPLAY_JUNK_MAX + 2 * 1024 * 1024;
	char *j = calloc(1, jlen + 64);
	assert_non_null(j);
	strcpy(j + jlen, "\n{\"event\":\"g\"}\n");
	n = read_mem(j, jlen + strlen(j + jlen), it, 16);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, -1);
	assert_int_equal(it[1].rc, -1); /* "the rest is not read" */
	free(j);
}

/* A value of tiny objects within REPLAY_VALUE_MAX ({"event":"x","a":[{},{},...]},
 * 1 MiB: 350,000 objects, a few hundred MB in json-c; 4 MiB cost ~1 GB) is
 * refused before json-c builds it (issue 34 item 13), and the next record
 * is read; the peak memory of the process says nothing was built. */
static void test_stream_tiny_objects(void **state)
{
	(void)state;
	struct item it[4];
	size_t big = 1u << 20;
	char *b = malloc(big + 128);
	assert_non_null(b);
	static const char head[] = "{\"event\":\"x\",\"a\":[";
	size_t len = sizeof(head) - 1;
	memcpy(b, head, len);
	while (len + 3 < big) {
		memcpy(b + len, "{},", 3);
		len += 3;
	}
	strcpy(b + len, "{}]}\n{\"event\":\"h\"}\n");
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	int n = read_mem(b, strlen(b), it, 4);
	getrusage(RUSAGE_SELF, &after);
	free(b);
	assert_int_equal(n, 2);
	assert_int_equal(it[0].rc, -1);
	assert_string_equal(it[1].event, "h");
	/* ru_maxrss in KiB: json-c's objects would have taken >100 MB */
	assert_true(after.ru_maxrss - before.ru_maxrss < 64 * 1024);
	/* a record of some hundreds of members is no trouble */
	char rec[8192] = "{\"event\":\"i\",\"a\":[";
	for (int k = 0; k < 500; k++)
		strcat(rec, k ? ",{}" : "{}");
	strcat(rec, "]}\n");
	n = read_mem(rec, strlen(rec), it, 4);
	assert_int_equal(n, 1);
	assert_string_equal(it[0].event, "i");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture_reexplains_to_its_cause),
		cmocka_unit_test(test_pin_migrate_kho_facts),
		cmocka_unit_test(test_stream_tiny_objects),
		cmocka_unit_test(test_every_setting_round_trips),
		cmocka_unit_test(test_nccl_round_trip),
		cmocka_unit_test(test_nccl_without_sources),
		cmocka_unit_test(test_user_call_round_trip),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_malformed_members),
		cmocka_unit_test(test_stream_lines),
		cmocka_unit_test(test_stream_log_lines_among_records),
		cmocka_unit_test(test_stream_bounds),
		cmocka_unit_test(test_storm_and_envelope_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
