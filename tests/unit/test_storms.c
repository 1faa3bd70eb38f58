// SPDX-License-Identifier: GPL-2.0-only
/* test_storms.c - the user-space side of storms (failures folded in the
 * kernel, bpf/mrtrace.h): the correlator keeps the record that opened a run
 * and reports the folded ones as that record again with their count, after
 * it and never before; the count reaches the repeat numbering, the JSON
 * members (count, first_ts_ns, last_ts_ns, ns_pid) and the text ("again
 * ... xN").  Fake clock and /proc, no BPF. */
#include <errno.h>
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
#include "record/record.h"
#include "watch/correlate.h"

static double now = 1000.0;

static struct got {
	unsigned int pid, kind;
	unsigned long long ts, count, first, last;
	bool has_uev, harmless;
	enum cause cause;
	unsigned long nth;
	char json[16384];
	char text[4096];
} got[16];
static int ngot;

static double fake_now(void *arg)
{
	(void)arg;
	return now;
}

static unsigned long long fake_start(void *arg, int pid)
{
	(void)arg;
	return pid < 1000 ? 5000 : 0; /* pids from 1000 have exited */
}

static int fake_context(void *arg, int pid, struct proc_context *ctx)
{
	(void)arg;
	if (pid >= 1000)
		return -ESRCH;
	proc_context_init(ctx, pid);
	ctx->have = CTX_HAVE_MEMLOCK | CTX_HAVE_UID;
	ctx->memlock_soft = 65536;
	ctx->uid = 65534;
	return 0;
}

static int fake_nccl(void *arg, const struct proc_context *ctx, struct nccl_info *n)
{
	(void)arg;
	(void)ctx;
	memset(n, 0, sizeof(*n));
	return -ENOENT;
}

static char *fake_maps(void *arg, int pid)
{
	(void)arg;
	(void)pid;
	return NULL;
}

static void sink(void *arg, const struct report *r, unsigned long nth)
{
	struct got *g = &got[ngot];
	char *text = NULL;
	size_t len = 0;

	(void)arg;
	assert_true(ngot < 16);
	ngot++;
	g->pid = r->ev->pid;
	g->kind = r->ev->kind;
	g->ts = r->ev->ts_ns;
	g->count = r->count;
	g->first = r->first_ts_ns;
	g->last = r->last_ts_ns;
	g->has_uev = r->uev != NULL;
	g->harmless = r->v.harmless;
	g->cause = r->v.cause;
	g->nth = nth;
	struct json_object *o = record_report_json(r);
	snprintf(g->json, sizeof(g->json), "%s", json_object_to_json_string(o));
	json_object_put(o);
	FILE *m = open_memstream(&text, &len);
	if (nth > 1)
		report_print_repeat(m, r, nth);
	else
		report_print_text(m, r, false);
	fclose(m);
	snprintf(g->text, sizeof(g->text), "%s", text);
	free(text);
}

static struct corr *make(bool join, bool dedupe, bool keep_harmless)
{
	struct corr_ops ops = {
		.now = fake_now,
		.start_time = fake_start,
		.read_context = fake_context,
		.read_nccl = fake_nccl,
		.read_maps = fake_maps,
		.sink = sink,
	};
	struct corr_config cfg = { .join = join, .dedupe = dedupe, .keep_harmless = keep_harmless };
	struct corr *c = corr_new(&ops, &cfg);

	assert_non_null(c);
	ngot = 0;
	now = 1000.0;
	return c;
}

/* A recorded kernel trail (memlock_limit under 64 KiB) that opened a storm
 * run (storm_shape set, as the kernel sets it). */
static struct mrt_event kernel_rec(unsigned int pid, unsigned long long ts, unsigned long long shape)
{
	static struct mrt_event base;
	static bool loaded;
	struct mrt_event ev;
	char err[256];

	if (!loaded) {
		const char *p = fixture_path("trails", "memlock_limit.nobody64k.6.12.json");
		struct json_object *o = json_object_from_file(p);
		if (!o || record_raw_from_json(o, &base, err, sizeof(err)))
			fail_msg("cannot read %s", p);
		json_object_put(o);
		loaded = true;
	}
	ev = base;
	ev.pid = pid;
	ev.tid = pid + 1;
	ev.ts_ns = ts;
	ev.ns_pid = 7;
	ev.ns_tid = 8;
	ev.storm_shape = shape;
	return ev;
}

static struct mrt_event user_rec(unsigned int pid, unsigned long long ts, unsigned long long shape)
{
	struct mrt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_USER_CALL;
	ev.pid = pid;
	ev.tid = pid + 1;
	ev.uid = 65534;
	ev.ts_ns = ts;
	snprintf(ev.comm, sizeof(ev.comm), "python");
	ev.err = ENOMEM;
	ev.opener = MRT_API_REG_MR_IOVA2;
	ev.cmd_start = 0x7f5500000000ULL;
	ev.cmd_length = 16 << 20;
	ev.cmd_valid = 3;
	ev.dmabuf_fd = -1;
	ev.cmd_reached = 1;
	ev.storm_shape = shape;
	return ev;
}

static struct mrt_storm_key key_of(const struct mrt_event *ev)
{
	struct mrt_storm_key k = {
		.pid = ev->pid, .kind = ev->kind, .err = ev->err, .opener = ev->opener,
		.shape = ev->storm_shape,
	};
	return k;
}

static void push(struct corr *c, struct mrt_event ev)
{
	corr_push(c, &ev);
}

static long long json_int(const char *json, const char *member)
{
	struct json_object *o = json_tokener_parse(json), *v;
	long long x = -1;

	assert_non_null(o);
	if (json_object_object_get_ex(o, member, &v))
		x = json_object_get_int64(v);
	json_object_put(o);
	return x;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_summary_repeats_the_first_record_with_its_count(void **state)
{
	(void)state;
	struct corr *c = make(true, true, false);
	struct mrt_event k = kernel_rec(100, 5000, 0xabc);
	struct mrt_storm_key key = key_of(&k);

	push(c, k);
	push(c, user_rec(100, 6000, 0)); /* its call: joined */
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].count, 0);
	assert_int_equal(got[0].nth, 1);
	assert_int_equal(json_int(got[0].json, "count"), -1); /* absent: 1 */
	assert_int_equal(json_int(got[0].json, "ns_pid"), 7);
	assert_int_equal(json_int(got[0].json, "ns_tid"), 8);

	now += 1.0;
	assert_int_equal(corr_storm(c, &key, 19999, 7000, 9000000, false), 0);
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].kind, MRT_EV_REG_FAILURE);
	assert_true(got[1].has_uev); /* the libibverbs call comes along */
	assert_int_equal(got[1].cause, CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(got[1].count, 19999);
	assert_int_equal(got[1].nth, 20000); /* the last of them */
	assert_int_equal(got[1].ts, 9000000); /* as of its last failure */
	assert_int_equal(json_int(got[1].json, "count"), 19999);
	assert_int_equal(json_int(got[1].json, "first_ts_ns"), 7000);
	assert_int_equal(json_int(got[1].json, "last_ts_ns"), 9000000);
	assert_int_equal(json_int(got[1].json, "ts_ns"), 9000000);
	assert_non_null(strstr(got[1].text, "x19999"));
	assert_non_null(strstr(got[1].text, "#20000 of this cause"));
	assert_int_equal(corr_stats(c)->summaries, 1);
	assert_int_equal(corr_stats(c)->folded, 19999);
	assert_int_equal(corr_stats(c)->reported, 2);

	/* the next summary of the same run adds on */
	assert_int_equal(corr_storm(c, &key, 5, 9000001, 9000005, false), 0);
	assert_int_equal(got[2].nth, 20005);
	corr_free(c);
}

static void test_summary_never_before_its_first_record(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false);
	struct mrt_event k = kernel_rec(110, 5000, 0xdef);
	struct mrt_storm_key key = key_of(&k);

	push(c, k); /* waits for its libibverbs call */
	assert_int_equal(ngot, 0);
	assert_int_equal(corr_storm(c, &key, 10, 5100, 5200, false), -1);
	assert_int_equal(ngot, 0);
	now += CORR_PENDING_WAIT_S + 0.01;
	corr_tick(c); /* the call never came: reported alone */
	assert_int_equal(ngot, 1);
	assert_int_equal(corr_storm(c, &key, 10, 5100, 5200, false), 0);
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].count, 10);
	assert_false(got[1].has_uev);
	corr_free(c);
}

static void test_unknown_key_waits_then_forced(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false);
	struct mrt_storm_key key = {
		.pid = 1200, .kind = MRT_EV_REG_FAILURE, .err = ENOMEM, .opener = MRT_SITE_UVERBS_REG_MR,
		.shape = 0x77,
	};

	/* its first record was lost (ring buffer full): not now... */
	assert_int_equal(corr_storm(c, &key, 3, 10, 20, false), -1);
	assert_int_equal(ngot, 0);
	/* ...but at the end the count must still be told */
	assert_int_equal(corr_storm(c, &key, 3, 10, 20, true), 0);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].count, 3);
	assert_int_equal(got[0].pid, 1200);
	assert_int_equal(corr_stats(c)->summaries_unmatched, 1);
	assert_int_equal(corr_storm(c, &key, 0, 10, 20, true), 0); /* nothing to say */
	assert_int_equal(ngot, 1);
	corr_free(c);
}

static void test_call_alone_summary(void **state)
{
	(void)state;
	struct corr *c = make(true, false, false);
	struct mrt_event u = user_rec(120, 5000, 0x99);
	struct mrt_storm_key key = key_of(&u);

	push(c, u); /* no kernel trail: refused or kernel sites unarmed */
	assert_int_equal(ngot, 1);
	assert_int_equal(corr_storm(c, &key, 4, 5001, 5004, false), 0);
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].kind, MRT_EV_USER_CALL);
	assert_true(got[1].has_uev);
	assert_int_equal(got[1].count, 4);
	corr_free(c);
}

static void test_keys_are_told_apart(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false);
	struct mrt_event a = kernel_rec(130, 5000, 0x1), b = kernel_rec(131, 5000, 0x1);
	struct mrt_storm_key kb = key_of(&b);

	push(c, a);
	push(c, b);
	assert_int_equal(ngot, 2);
	assert_int_equal(corr_storm(c, &kb, 2, 1, 2, false), 0);
	assert_int_equal(got[2].pid, 131);
	kb.shape = 0x2; /* same process, another shape: no record of it */
	assert_int_equal(corr_storm(c, &kb, 2, 1, 2, false), -1);
	corr_free(c);
}

static void test_many_keys_the_recent_ones_are_kept(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false);
	struct mrt_storm_key last;

	for (int i = 0; i < CORR_STORMS_MAX + 10; i++) {
		struct mrt_event k = kernel_rec(140, 5000 + i, 0x1000 + i);
		now += 0.001;
		push(c, k);
		last = key_of(&k);
		ngot = 0;
	}
	assert_int_equal(corr_storm(c, &last, 1, 1, 2, false), 0);
	struct mrt_event first = kernel_rec(140, 5000, 0x1000);
	struct mrt_storm_key k0 = key_of(&first);
	assert_int_equal(corr_storm(c, &k0, 1, 1, 2, false), -1); /* the oldest made room */
	corr_free(c);
}

static void test_harmless_storm_counted_not_shown(void **state)
{
	(void)state;
	struct corr *c = make(false, false, false);
	struct mrt_event u = user_rec(150, 5000, 0x5);
	struct mrt_storm_key key;

	/* NCCL's dma-buf probe refused inside libibverbs */
	u.opener = MRT_API_REG_DMABUF_MR;
	u.err = EOPNOTSUPP;
	u.cmd_length = 0;
	u.cmd_start = 0;
	u.cmd_reached = 0;
	u.dmabuf_fd = -1;
	key = key_of(&u);
	push(c, u);
	assert_int_equal(ngot, 0);
	assert_int_equal(corr_storm(c, &key, 6, 1, 2, false), 0);
	assert_int_equal(ngot, 0);
	assert_int_equal(corr_stats(c)->harmless, 2);
	corr_free(c);
}

static void test_repeats_add(void **state)
{
	(void)state;
	static struct report_repeats t;

	assert_int_equal(report_repeats_count(&t, 1, CAUSE_MEMLOCK_LIMIT), 1);
	assert_int_equal(report_repeats_add(&t, 1, CAUSE_MEMLOCK_LIMIT, 100), 101);
	assert_int_equal(report_repeats_count(&t, 1, CAUSE_MEMLOCK_LIMIT), 102);
	assert_int_equal(report_repeats_add(&t, 2, CAUSE_MEMLOCK_LIMIT, 7), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_repeats_the_first_record_with_its_count),
		cmocka_unit_test(test_summary_never_before_its_first_record),
		cmocka_unit_test(test_unknown_key_waits_then_forced),
		cmocka_unit_test(test_call_alone_summary),
		cmocka_unit_test(test_keys_are_told_apart),
		cmocka_unit_test(test_many_keys_the_recent_ones_are_kept),
		cmocka_unit_test(test_harmless_storm_counted_not_shown),
		cmocka_unit_test(test_repeats_add),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
