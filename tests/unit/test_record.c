// SPDX-License-Identifier: GPL-2.0-only
/* test_record.c - the table of record kinds (user/record/kind.h) and the
 * JSON contract against its documentation.
 *
 * One record of every kind is written as `watch --json` writes it (every
 * trail fixture for the explained kinds, plus one with every optional
 * member: a storm summary with its process, NCCL, libibverbs call and pod;
 * start, stop, library_attached, modules_changed, memlock_limit_set), the
 * JSON is walked, and the member names are compared with docs/json.md:
 * every member a writer emits is named there, every member of its member
 * tables is emitted by some writer, and its table of "event" values is the
 * table of kinds.  A member added to a writer without a line in the docs
 * fails here, and so does a documented member no writer writes. */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture_path.h"
#include "record/kind.h"
#include "record/inferred_failure.h"
#include "record/library.h"
#include "record/modules.h"
#include "record/parts.h"
#include "record/port_change.h"
#include "record/rlimit.h"
#include "record/start.h"
#include "record/stop.h"
#include "watch/sink.h"

/* ---- a set of names ------------------------------------------------------------- */

#define NAMES_MAX 1024

struct names {
	int n;
	char *v[NAMES_MAX];
};

static bool has_name(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

static void add_name(struct names *s, const char *name, size_t len)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	if (!has_name(s, buf) && s->n < NAMES_MAX)
		s->v[s->n++] = strdup(buf);
}

static void free_names(struct names *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

/* ---- what docs/json.md says ------------------------------------------------------ */

static struct names doc_words; /* every identifier inside `...` anywhere */
static struct names doc_members; /* the first column of every member table */
static struct names doc_events; /* the first column of the "event" table */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The identifiers inside the backtick spans of s[0..len). */
static void words_in_spans(const char *s, size_t len, struct names *out, bool whole_spans_only)
{
	const char *end = s + len;

	for (const char *p = s; p < end; p++) {
		if (*p != '`')
			continue;
		const char *q = memchr(p + 1, '`', (size_t)(end - p - 1));
		if (!q)
			break;
		bool whole = q > p + 1;
		for (const char *c = p + 1; c < q; c++)
			whole &= ident_char(*c);
		if (whole_spans_only) {
			if (whole)
				add_name(out, p + 1, (size_t)(q - p - 1));
		} else {
			for (const char *c = p + 1; c < q;) {
				const char *w = c;
				while (c < q && ident_char(*c))
					c++;
				if (c > w && !isdigit((unsigned char)*w))
					add_name(out, w, (size_t)(c - w));
				if (c == w)
					c++;
			}
		}
		p = q;
	}
}

static void read_docs(void)
{
	const char *path = fixture_path("../../docs", "json.md");
	FILE *f = fopen(path, "r");
	char line[4096];
	enum { OTHER = -1, NONE, MEMBERS, EVENTS } table = NONE;

	if (!f)
		fail_msg("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		words_in_spans(line, strlen(line), &doc_words, false);
		if (line[0] != '|') {
			table = NONE;
			continue;
		}
		const char *c1 = line + 1, *bar = strchr(c1, '|');
		size_t n = bar ? (size_t)(bar - c1) : strlen(c1);
		char first[256];
		snprintf(first, sizeof(first), "%.*s", (int)n, c1);
		char *t = first;
		while (*t == ' ')
			t++;
		t[strcspn(t, " ")] = '\0';
		if (table == NONE) { /* a table's header row says what it lists */
			table = !strcmp(t, "member") || !strcmp(t, "field") ? MEMBERS
				: !strcmp(t, "`event`")			   ? EVENTS
									   : NONE;
			if (table == NONE)
				table = OTHER; /* another table: until its end */
			continue;
		}
		if (!strncmp(t, "---", 3))
			continue;
		if (table == MEMBERS)
			words_in_spans(c1, n, &doc_members, true);
		else if (table == EVENTS)
			words_in_spans(c1, n, &doc_events, true);
	}
	fclose(f);
	if (doc_members.n < 50 || doc_events.n < 5)
		fail_msg("%s: %d member and %d event names: its tables were not found", path,
			 doc_members.n, doc_events.n);
}

/* ---- what the writers emit ---------------------------------------------------------- */

static struct names emitted;
static struct names events_written;

/* Every member name, at any depth; the names inside nccl's settings and
 * setting_sources are NCCL's variables, not members. */
static void walk(struct json_object *o, const char *parent)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			walk(json_object_array_get_idx(o, i), parent);
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	if (!strcmp(parent, "settings") || !strcmp(parent, "setting_sources"))
		return;
	json_object_object_foreach(o, key, val)
	{
		add_name(&emitted, key, strlen(key));
		walk(val, key);
	}
}

/* Every record says its severity, and a failure's is its journal entry's
 * (docs/json.md, "severity"): error for a registration or another refusal,
 * warning for mlock, debug for a harmless one, error for an inferred failure
 * of a refused call; the others' is info but for
 * port_change, which test_port_change_severity checks. */
static void check_severity(struct json_object *o)
{
	struct json_object *x, *h;
	const char *ev = json_object_object_get_ex(o, "event", &x) ? json_object_get_string(x) : "";
	const char *want = "info";

	if (!json_object_object_get_ex(o, "severity", &x) || !json_object_is_type(x, json_type_string))
		fail_msg("%s: no severity", ev);
	if (!strcmp(ev, "port_change"))
		return;
	if (!strcmp(ev, "reg_failure") || !strcmp(ev, "failure"))
		want = "error";
	else if (!strcmp(ev, "inferred_failure")) /* a refused call; warning without one */
		want = json_object_object_get_ex(o, "no_kernel_refusal", &h) &&
		       json_object_get_boolean(h) ? "warning" : "error";
	else if (!strcmp(ev, "mlock_failure"))
		want = "warning";
	else if (!strcmp(ev, "nccl_probe"))
		want = "debug";
	if (json_object_object_get_ex(o, "harmless", &h) && json_object_get_boolean(h))
		want = "debug";
	if (strcmp(json_object_get_string(x), want))
		fail_msg("%s: severity %s, not %s", ev, json_object_get_string(x), want);
}

static void take(const struct record *rec)
{
	struct json_object *o = watch_json_line(rec), *ev;

	assert_non_null(o);
	if (json_object_object_get_ex(o, "event", &ev))
		add_name(&events_written, json_object_get_string(ev), strlen(json_object_get_string(ev)));
	check_severity(o);
	walk(o, "");
	json_object_put(o);
}

static struct record_in in; /* large */
static struct report r;

static void take_explained(const struct report *rep)
{
	struct record rec;

	record_of_report(&rec, rep, 0);
	take(&rec);
}

/* Every trail fixture, as watch would write it again. */
static int take_fixtures(void)
{
	char dir[PATH_MAX + 128], path[PATH_MAX + 128 + 300], err[256];
	struct dirent *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s", fixture_path("trails", "README.md"));
	*strrchr(dir, '/') = '\0';
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		size_t l = strlen(d->d_name);
		if (l < 6 || strcmp(d->d_name + l - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		struct json_object *o = json_object_from_file(path);
		assert_non_null(o);
		if (record_read(o, &in, err, sizeof(err)))
			fail_msg("%s: %s", d->d_name, err);
		record_explain(&r, &in.ev, record_in_uev(&in), in.have_ctx ? &in.ctx : NULL,
			       in.have_nccl ? &in.nccl : NULL, in.have_gates ? &in.gates : NULL);
		r.ua = in.ua;
		take_explained(&r);
		json_object_put(o);
		n++;
	}
	closedir(dp);
	return n;
}

/* A record with every optional member: a storm summary of a joined
 * libibverbs call, with the whole process, NCCL, a pod and a Slurm job. */
static void take_everything(void)
{
	static const char full[] =
		"{\"user_call\":{\"api\":\"ibv_reg_mr_iova2\",\"tid\":2,\"addr\":4096,\"length\":8192,"
		"\"iova\":4096,\"access\":1,\"reached_kernel\":true,\"kernel_errno_name\":\"ENOMEM\","
		"\"via_nccl\":true,\"caller\":\"/x/libnccl.so.2\",\"stack_frames\":5},"
		"\"process\":{\"exe\":\"/usr/bin/python3\",\"cmdline\":\"python3 train.py\",\"uid\":1000,"
		"\"memlock_soft_bytes\":65536,\"memlock_hard_bytes\":\"unlimited\",\"vm_pin_bytes\":0,"
		"\"vm_lck_bytes\":0,\"cap_ipc_lock_effective\":false,\"user_namespace\":false,"
		"\"cgroup\":\"/kubepods.slice/kubepods-pod0a1b.slice/cri-containerd-"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\","
		"\"runtime\":\"containerd\",\"systemd_unit\":\"job.service\","
		"\"launchers\":\"torchrun(444) <- bash(1)\"},"
		"\"nccl\":{\"found\":true,\"library\":\"/x/libnccl.so.2\",\"version\":\"2.21.5\","
		"\"rank\":3,\"rank_variable\":\"RANK\",\"settings\":{\"NCCL_BUFFSIZE\":\"8388608\"},"
		"\"setting_sources\":{\"NCCL_BUFFSIZE\":\"environment\"},"
		"\"lint\":[{\"kind\":\"typo\",\"name\":\"NCCL_IB_HAC\",\"message\":\"m\"}]}}";
	struct json_object *o = json_object_from_file(
		fixture_path("trails", "memlock_limit.nobody64k.6.12.json"));
	struct json_object *extra = json_tokener_parse(full);
	static struct k8s_names k8s = { .ns = "ml", .pod = "train-0", .container = "main" };
	char err[256];

	assert_non_null(o);
	assert_non_null(extra);
	json_object_object_foreach(extra, key, val)
		json_object_object_add(o, key, json_object_get(val));
	if (record_read(o, &in, err, sizeof(err)))
		fail_msg("the full record: %s", err);
	assert_true(in.have_uev && in.have_ctx && in.have_nccl);
	in.ev.nsteps = MRT_TRAIL_MAX + 3; /* trail_lost_steps */
	in.ev.ns_pid = 12; /* in a container's pid namespace */
	in.ev.ns_tid = 13;
	in.ctx.slurm_job = -1;
	record_explain(&r, &in.ev, &in.uev, &in.ctx, &in.nccl, NULL);
	r.ua = in.ua;
	r.count = 20000;
	r.first_ts_ns = 1;
	r.last_ts_ns = 2;
	r.k8s = &k8s;
	r.have_slurm_job = true;
	r.slurm_job = 77;
	take_explained(&r);
	/* a dma-buf call: its offset and fd */
	in.uev.opener = MRT_API_REG_DMABUF_MR;
	in.uev.dmabuf_fd = -1;
	record_explain(&r, &in.ev, &in.uev, &in.ctx, &in.nccl, NULL);
	take_explained(&r);
	json_object_put(extra);
	json_object_put(o);
}

static void take_the_others(void)
{
	static const struct record_site sites[] = {
		{ "umem_get", "ib_umem_get", "ib_uverbs", true, "fentry", "ib_uverbs", "memlock", NULL },
		{ "pin", "pin_user_pages_fast", NULL, false, "none", NULL, "vm_flags", "not in BTF" },
	};
	static const char *const caps[] = { "CAP_SYS_ADMIN" };
	static const char *const notes[] = { "without CAP_SYS_ADMIN ..." };
	struct record_start start = {
		.kernel = "6.12", .armed_sites = 1, .registration_path_armed = true, .pid = 7,
		.command_pid = 8, .sites = sites, .nsites = 2, .missing_capabilities = caps,
		.nmissing = 1, .privilege_notes = notes, .nnotes = 1, .host_root = "/host",
	};
	struct record_stop stop = { .duration_s = 1.5, .reported = 3, .raw_stacks = 2, .raw_stacks_unplaced = 1,
				    .misses = { .total = 4, .readable = 2, .unreadable = 1, .nsites = 1,
						.sites = { { "reg_mr", true, 4 } } } };
	struct record_library lib = { .path = "/proc/1/root/usr/lib/libibverbs.so.1", .entry_points = 6 };
	static const struct record_module_site ms[] = { { "reg_mr", "fentry", "ib_uverbs" } };
	struct record_modules mods = { .loaded = "ib_core, ib_uverbs", .unloaded = "", .armed = ms,
				       .narmed = 1, .detached = ms, .ndetached = 1, .armed_sites = 24,
				       .rearm_s = 0.4, .facts_s = 0.1 };
	static struct mrt_event rl;
	struct record rec;

	rec = (struct record){ .kind = &record_kind_start, .data = &start };
	take(&rec);
	rec = (struct record){ .kind = &record_kind_stop, .data = &stop };
	take(&rec);
	rec = (struct record){ .kind = &record_kind_library, .data = &lib };
	take(&rec);
	rec = (struct record){ .kind = &record_kind_modules, .data = &mods };
	take(&rec);
	/* port changes: a GID that went, with every member of a holder; a LID
	 * and an SM change */
	static struct record_port_change pc;
	memset(&pc, 0, sizeof(pc));
	pc.source = "rtnetlink";
	snprintf(pc.device, sizeof(pc.device), "rxe0");
	pc.port = 1;
	snprintf(pc.state, sizeof(pc.state), "ACTIVE");
	snprintf(pc.previous, sizeof(pc.previous), "ACTIVE");
	snprintf(pc.link_layer, sizeof(pc.link_layer), "Ethernet");
	snprintf(pc.netdev, sizeof(pc.netdev), "dummy0");
	pc.reason = "gid_change";
	pc.down_ms = -1;
	pc.gid_index = 1;
	snprintf(pc.old_gid, sizeof(pc.old_gid), "::ffff:10.55.0.1");
	snprintf(pc.gid_type, sizeof(pc.gid_type), "RoCE v2");
	snprintf(pc.address, sizeof(pc.address), "10.55.0.1/24 removed from dummy0");
	pc.affected_known = true;
	pc.naffected = 1;
	pc.affected_qps = 2;
	pc.affected[0] = (struct port_affected){ .pid = 77, .comm = "python3", .qps = 2,
						 .nccl = "2.21.5", .nccl_mapped = true, .rank = 3,
						 .slurm_job = 4242, .pod_uid = "0a1b", .container = "0123" };
	pc.ncounters = 1;
	pc.counters[0] = (struct port_counter){ .name = "carrier_changes", .value = 4, .delta = 2 };
	rec = (struct record){ .kind = &record_kind_port_change, .data = &pc };
	take(&rec);
	pc.reason = "lid_change";
	take(&rec);
	/* holders unknown, and why */
	pc.affected_known = false;
	pc.affected_why = "rdma (iproute2) failed or is missing";
	take(&rec);
	pc.affected_known = true;
	pc.affected_why = NULL;
	pc.reason = "sm_change";
	take(&rec);
	memset(&rl, 0, sizeof(rl));
	rl.kind = MRT_EV_RLIMIT_SET;
	rl.pid = rl.ns_pid = 8904;
	rl.sys_len = 65536;
	rl.sys_arg = ~0ULL;
	rec = (struct record){ .kind = record_kind_of_ring(MRT_EV_RLIMIT_SET), .data = &rl };
	take(&rec);
	/* a failure judged from a log (explain), every member filled */
	static struct record_inferred inf;
	memset(&inf, 0, sizeof(inf));
	snprintf(inf.in.call, sizeof(inf.in.call), "ibv_reg_mr_iova2");
	inf.in.err = 12;
	snprintf(inf.in.nccl_version, sizeof(inf.in.nccl_version), "2.21.5");
	snprintf(inf.in.host, sizeof(inf.in.host), "node01");
	inferred_judge(&inf.in, NULL, INF_SET_SLURM, NULL, &inf.v);
	snprintf(inf.v.errno_note, sizeof(inf.v.errno_note), "note");
	snprintf(inf.v.next[inf.v.nnext++], INFERRED_TEXT, "next");
	inf.pid = 5005;
	inf.rank = 5;
	snprintf(inf.judged_on, sizeof(inf.judged_on), "node01");
	snprintf(inf.file, sizeof(inf.file), "slurm.out");
	snprintf(inf.time, sizeof(inf.time), "2026-12-03T20:00:00Z");
	inf.same_ranks = 7;
	inf.nhosts = 1;
	snprintf(inf.hosts[0], sizeof(inf.hosts[0]), "node02");
	inf.have_watch = true;
	snprintf(inf.watch_cause, sizeof(inf.watch_cause), "memlock_limit");
	rec = (struct record){ .kind = &record_kind_inferred_failure, .data = &inf };
	take(&rec);
}

static void test_docs_match_writers(void **state)
{
	(void)state;
	read_docs();
	assert_true(take_fixtures() > 40);
	take_everything();
	take_the_others();

	char missing[4096] = "";
	for (int i = 0; i < emitted.n; i++)
		if (!has_name(&doc_words, emitted.v[i]))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
				 emitted.v[i]);
	if (missing[0])
		fail_msg("written but not in docs/json.md:%s", missing);
	for (int i = 0; i < doc_members.n; i++)
		if (!has_name(&emitted, doc_members.v[i]))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
				 doc_members.v[i]);
	if (missing[0])
		fail_msg("in a member table of docs/json.md but written by no writer:%s", missing);
	/* the "event" table is the table of kinds, both ways */
	for (int i = 0; i < record_kind_count(); i++) {
		const char *e = record_kind_at(i)->event;
		if (e && !has_name(&doc_events, e))
			fail_msg("kind %s: event %s is not in docs/json.md's event table",
				 record_kind_at(i)->name, e);
	}
	for (int i = 0; i < doc_events.n; i++) {
		const char *e = doc_events.v[i];
		if (!has_name(&events_written, e))
			fail_msg("docs/json.md's event %s: no writer wrote it", e);
	}
	free_names(&doc_words);
	free_names(&doc_members);
	free_names(&doc_events);
	free_names(&emitted);
	free_names(&events_written);
}

/* ---- the table ------------------------------------------------------------------------ */

/* Every ring-buffer kind has one row; every row is reachable; the explained
 * rows have every cell the shared writers call. */
static void test_table_rows(void **state)
{
	(void)state;
	for (unsigned int ring = MRT_EV_REG_FAILURE; ring <= MRT_EV_FAILURE; ring++) {
		const struct record_kind *k = record_kind_of_ring(ring);
		assert_non_null(k);
		assert_int_equal(k->ring, ring);
	}
	assert_null(record_kind_of_ring(0));
	assert_null(record_kind_of_ring(99));
	for (int i = 0; i < record_kind_count(); i++) {
		const struct record_kind *k = record_kind_at(i);
		assert_non_null(k->name);
		assert_non_null(k->to_json);
		if (k->ring && k->explained) {
			assert_non_null(k->explained->explain);
			assert_non_null(k->explained->what);
			assert_non_null(k->explained->len);
			assert_non_null(k->explained->evidence);
			assert_non_null(k->explained->priority);
			assert_non_null(k->explained->message_id);
		}
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(record_kind_at(j), k);
	}
	/* a kind this mrtrace does not know is explained as a registration */
	static struct mrt_event ev;
	ev.kind = 42;
	assert_ptr_equal(record_kind_of_event(&ev), record_kind_of_ring(MRT_EV_REG_FAILURE));
}

/* A port that goes away under jobs is a warning, a device failure an
 * error, a port back or one nothing ran on information. */
static void test_port_change_severity(void **state)
{
	(void)state;
	static struct record_port_change pc;
	struct record rec = { .kind = &record_kind_port_change, .data = &pc };

	memset(&pc, 0, sizeof(pc));
	pc.reason = "carrier_lost";
	pc.down_ms = -1;
	pc.affected_known = true;
	pc.naffected = 1;
	assert_string_equal(record_severity(&rec), "warning");
	pc.affected_known = false; /* not known to have none */
	pc.naffected = 0;
	assert_string_equal(record_severity(&rec), "warning");
	pc.affected_known = true;
	assert_string_equal(record_severity(&rec), "info");
	pc.reason = "device_fatal";
	assert_string_equal(record_severity(&rec), "error");
	pc.reason = "port_active";
	pc.down_ms = 1200;
	pc.naffected = 1;
	assert_string_equal(record_severity(&rec), "info");
	struct json_object *o = record_to_json(&rec), *x;
	assert_true(json_object_object_get_ex(o, "severity", &x));
	assert_string_equal(json_object_get_string(x), "info");
	json_object_put(o);
}

/* The memlock limit change: one line in text, its view of the flat record. */
static void test_rlimit_text(void **state)
{
	(void)state;
	static struct mrt_event ev;
	struct record rec = { .kind = record_kind_of_ring(MRT_EV_RLIMIT_SET), .data = &ev };
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	ev.kind = MRT_EV_RLIMIT_SET;
	ev.pid = 8904;
	memcpy(ev.comm, "prlimit", 8);
	ev.cmd_start = 77; /* prlimit64's target */
	ev.sys_len = 65536;
	ev.sys_arg = ~0ULL;
	ev.err = 1;
	assert_true(record_print_text(m, &rec, false, "2026-12-01T00:00:00.000000Z on n1"));
	fclose(m);
	assert_string_equal(text, "memlock limit set: pid 8904 (prlimit) for pid 77: soft 64 KiB, "
				  "hard unlimited: refused (EPERM), at 2026-12-01T00:00:00.000000Z on n1\n");
	free(text);
	/* no text for what watch says on stderr */
	struct record_stop stop = { 0 };
	rec = (struct record){ .kind = &record_kind_stop, .data = &stop };
	assert_false(record_print_text(stderr, &rec, false, NULL));
}

/* Why a record has only its own fields (the process was gone, its pid
 * reused, or it ran another program) survives the round trip, so explain
 * says it again (it was written and not read back). */
static void test_context_unavailable_round_trip(void **state)
{
	(void)state;
	static const enum ctx_unavailable all[] = { CTX_AVAILABLE, CTX_GONE, CTX_PID_REUSED,
						   CTX_EXECED };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		static struct proc_context in, out;
		static struct mrt_event ev;
		char setting[64], err[128] = "";
		struct jwhere w = { .obj = "process", .err = err, .errlen = sizeof(err) };

		proc_context_init(&in, 4242);
		in.unavailable = all[i];
		ev.pid = 4242;
		struct json_object *o = process_to_json(&in, -1);
		long env_job;
		assert_int_equal(process_from_json(o, &ev, &out, setting, sizeof(setting), &env_job, &w), 0);
		assert_int_equal(out.unavailable, all[i]);
		json_object_put(o);
	}
	assert_int_equal(ctx_unavailable_from_name("no_such_reason"), CTX_AVAILABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_context_unavailable_round_trip),
		cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_rlimit_text),
		cmocka_unit_test(test_port_change_severity),
		cmocka_unit_test(test_docs_match_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
