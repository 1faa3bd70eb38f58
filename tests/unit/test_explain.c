// SPDX-License-Identifier: GPL-2.0-only
/* test_explain.c - the explanation engine on replayed kernel trails.
 *
 * Every file in tests/fixtures/trails is one event record: recorded by
 * `mrtrace watch --json` on the VM kernels 6.1 / 6.12 and on the 6.18 host,
 * or synthesized in the exact "raw" format of the BPF programs for causes
 * that need hardware (README.md there says which).  The file name is
 * <expected_cause>.<source>.json.  Each record is rebuilt with
 * record_raw_from_json() and explained by its kind's engine (record_explain),
 * as a replay has no live process.
 *
 * The fixture directory is found from the binary (build/tests/X ->
 * ../../tests/fixtures/trails), else ./tests/fixtures/trails (make unit runs
 * from the repository root); MRTRACE_TRAILS overrides both.  No fixture
 * found is a failure, never a pass. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "verdict/explain.h"
#include "record/record.h"

#define PAGE 4096ULL
/* VM_READ, VM_IO, ...: the kernel's vm_flags bits, from verdict/verdict.h */

/* ---- fixtures ---------------------------------------------------------------- */

struct fixture {
	char file[256]; /* "memlock_limit.cumulative.6.12.json" */
	char stem[256]; /* without ".json" */
	enum cause want; /* from the name */
	struct json_object *rec;
	struct mrt_event ev;
	struct verdict v;
	enum cause got; /* the cause record_explain gave */
	bool have_gates; /* a failure record's evidence.gates */
	struct gate_facts gates;
};

static struct fixture *fx;
static int nfx = -1;
static char fx_dir[PATH_MAX + 64];

static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static const char *trails_dir(void)
{
	const char *env = getenv("MRTRACE_TRAILS");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(fx_dir, sizeof(fx_dir), "%s/../../tests/fixtures/trails", exe);
			if (is_dir(fx_dir))
				return fx_dir;
		}
	}
	snprintf(fx_dir, sizeof(fx_dir), "tests/fixtures/trails");
	return fx_dir;
}

static int json_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* Loads, rebuilds and explains every fixture once; the tests share them. */
static int load_fixtures(void)
{
	struct dirent **ents;
	const char *dir = trails_dir();
	char path[PATH_MAX + 256], err[256];

	if (nfx >= 0)
		return nfx;
	int n = scandir(dir, &ents, json_file, alphasort);
	if (n < 0) {
		print_error("cannot read the trail fixtures in %s: %s\n", dir, strerror(errno));
		nfx = 0;
		return 0;
	}
	fx = calloc(n ? n : 1, sizeof(*fx));
	assert_non_null(fx);
	for (int i = 0; i < n; i++) {
		struct fixture *f = &fx[i];
		char cause[64];

		snprintf(f->file, sizeof(f->file), "%s", ents[i]->d_name);
		snprintf(f->stem, sizeof(f->stem), "%.*s", (int)strlen(f->file) - 5, f->file);
		free(ents[i]);
		snprintf(cause, sizeof(cause), "%.*s", (int)strcspn(f->file, "."), f->file);
		f->want = cause_from_name(cause);
		snprintf(path, sizeof(path), "%s/%s", dir, f->file);
		f->rec = json_object_from_file(path);
		if (!f->rec)
			fail_msg("%s: not valid JSON: %s", path, json_util_get_last_err());
		if (f->want == CAUSE__COUNT)
			fail_msg("%s: file name does not start with a cause id ('%s')", f->file, cause);
		if (record_raw_from_json(f->rec, &f->ev, err, sizeof(err)))
			fail_msg("%s: record_raw_from_json: %s", f->file, err);
		/* by its kind's engine (record/kind.h), with the gate facts the
		 * live tracer read at a failure (and a GPU-memory registration's
		 * GPU facts, evidence.gpu) */
		static struct report r;
		f->have_gates = record_gates_from_json(f->rec, &f->gates);
		record_explain(&r, &f->ev, NULL, NULL, NULL, f->have_gates ? &f->gates : NULL);
		f->v = r.v;
		f->got = r.v.cause;
	}
	free(ents);
	nfx = n;
	return n;
}

/* The fixture named exactly `stem`; fails the test when it is missing. */
static struct fixture *fixture(const char *stem)
{
	load_fixtures();
	for (int i = 0; i < nfx; i++)
		if (!strcmp(fx[i].stem, stem))
			return &fx[i];
	fail_msg("fixture %s.json not found in %s", stem, trails_dir());
	return NULL;
}

static bool cause_is(const struct fixture *f, enum cause c)
{
	if (f->v.cause != c)
		fail_msg("%s: cause %s, expected %s (%s)", f->file, cause_name(f->v.cause),
			 cause_name(c), f->v.summary);
	return true;
}

/* Iterate over the fixtures named for one cause (at least one must exist);
 * each must have been explained as that cause. */
#define FOR_CAUSE(f, c)                                                           \
	for (int _i = (load_fixtures(), 0), _seen = 0; _i <= nfx; _i++)           \
		if (_i == nfx) {                                                  \
			if (!_seen)                                               \
				fail_msg("no fixture for cause %s", cause_name(c)); \
		} else if (fx[_i].want == (c) && (f = &fx[_i]) && ++_seen && cause_is(f, c))

static struct json_object *jget(struct json_object *o, const char *path)
{
	char buf[256], *save, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	return o;
}

/* A raw number read straight from the file, not through record_raw_from_json. */
static uint64_t raw_u64(const struct fixture *f, const char *key)
{
	char p[128];
	snprintf(p, sizeof(p), "raw.%s", key);
	struct json_object *x = jget(f->rec, p);
	if (!x)
		fail_msg("%s: %s missing", f->file, p);
	return json_object_get_uint64(x);
}

static const struct mrt_step *decisive(const struct fixture *f)
{
	int i = f->v.decisive_step;
	if (i < 0 || i >= MRT_TRAIL_MAX || (unsigned)i >= f->ev.nsteps)
		fail_msg("%s: decisive_step %d out of the trail (%u steps)", f->file, i, f->ev.nsteps);
	return &f->ev.steps[i];
}

/* The decisive step's index (checked as decisive() does). */
static int v_decisive_or(const struct fixture *f)
{
	decisive(f);
	return f->v.decisive_step;
}

static void assert_decisive_site(const struct fixture *f, unsigned site)
{
	const struct mrt_step *s = decisive(f);
	if (s->site != site)
		fail_msg("%s: decisive site %s, expected %s", f->file, site_name(s->site),
			 site_name(site));
}

static bool has_fix(const struct verdict *v, const char *needle)
{
	for (int i = 0; i < v->fixes.n; i++)
		if (strstr(v->fixes.items[i].text, needle))
			return true;
	return false;
}

#define assert_contains(hay, needle)                                                  \
	do {                                                                          \
		if (!strstr((hay), (needle)))                                         \
			fail_msg("'%s' does not contain '%s'", (hay), (needle));      \
	} while (0)

static void round_trip(const char *what, const struct mrt_event *ev, const struct verdict *v,
		       const char *api, struct json_object **out);

/* ---- every fixture ------------------------------------------------------------ */

static void test_fixtures_present(void **state)
{
	(void)state;
	int n = load_fixtures(), recorded = 0, synthetic = 0;
	bool covered[CAUSE__COUNT] = { 0 };
	bool k61 = false, k612 = false, host = false;

	if (n <= 0)
		fail_msg("no trail fixtures found in %s (set MRTRACE_TRAILS or run from the "
			 "repository root)", trails_dir());
	for (int i = 0; i < n; i++) {
		/* the entry point of the record's kind is one its cause's row
		 * says decides it (causes.c's explainers) */
		unsigned int bit = fx[i].ev.kind == MRT_EV_REG_FAILURE ? EXPLAINER_REGISTRATION :
				   fx[i].ev.kind == MRT_EV_MLOCK_FAILURE ? EXPLAINER_MLOCK :
				   fx[i].ev.kind == MRT_EV_USER_CALL ? EXPLAINER_USER_CALL :
				   fx[i].ev.kind == MRT_EV_FAILURE ? EXPLAINER_FAILURE : 0;
		if (!(cause_row(fx[i].got)->explainers & bit))
			fail_msg("%s: decided %s by an entry point its row does not name (kind %d)",
				 fx[i].file, cause_name(fx[i].got), (int)fx[i].ev.kind);
		covered[fx[i].want] = true;
		if (strstr(fx[i].file, ".synthetic.json"))
			synthetic++;
		else
			recorded++;
		k61 |= strstr(fx[i].file, ".6.1.json") != NULL;
		k612 |= strstr(fx[i].file, ".6.12.json") != NULL;
		host |= strstr(fx[i].file, ".host-") != NULL;
	}
	print_message("%d trail fixtures (%d recorded, %d synthetic) in %s\n", n, recorded,
		      synthetic, trails_dir());
	assert_true(k61 && k612 && host);
	/* every cause the kernel-trail engine can produce has a replay; only
	 * no_device_access is decided elsewhere (no registration reaches the
	 * kernel without the device node) */
	for (int c = 0; c < CAUSE__COUNT; c++)
		if (!covered[c] && c != CAUSE_NO_DEVICE_ACCESS)
			fail_msg("no trail fixture for cause %s", cause_name(c));
}

/* One entry point per record kind, chosen by the kind's row of the record
 * table (record_explain): for every fixture the table's choice gives the
 * verdict of the entry point of its kind, byte for byte (a failure without
 * its gates). */
static void test_entry_points(void **state)
{
	(void)state;
	int n = load_fixtures();
	static struct verdict by_kind;
	static struct report by_table;

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		const struct mrt_event *ev = &fx[i].ev;
		enum cause c;

		switch (ev->kind) {
		case MRT_EV_FAILURE: c = explain_failure(ev, NULL, NULL, &by_kind); break;
		case MRT_EV_MLOCK_FAILURE: c = explain_mlock(ev, NULL, NULL, &by_kind); break;
		case MRT_EV_USER_CALL: c = explain_user_call(ev, NULL, NULL, NULL, &by_kind); break;
		default: c = explain_registration(ev, NULL, NULL, NULL, &by_kind); break;
		}
		record_explain(&by_table, ev, NULL, NULL, NULL, NULL);
		assert_int_equal(by_table.v.cause, c);
		if (memcmp(&by_kind, &by_table.v, sizeof(by_kind)))
			fail_msg("%s: the record table and the entry point of kind %u differ", fx[i].file,
				 ev->kind);
	}
}

/* A synthetic record may say what its fixes must (expect.primary_fix: in
 * the first fix; expect.fix: in some fix) and must not say (expect.no_fix),
 * and how its GPU facts are judged (expect.peer_memory, expect.dmabuf, as
 * the evidence members of those names).  Returns the mismatches. */
static int check_expected_fixes(const struct fixture *f)
{
	const struct verdict *v = &f->v;
	struct json_object *x;
	int bad = 0;

	if ((x = jget(f->rec, "expect.primary_fix")) &&
	    (v->fixes.n < 1 || !strstr(v->fixes.items[0].text, json_object_get_string(x)))) {
		print_error("%s: first fix lacks '%s': %s\n", f->file, json_object_get_string(x),
			    v->fixes.n ? v->fixes.items[0].text : "(none)");
		bad++;
	}
	bool some = false, none = true;
	struct json_object *want = jget(f->rec, "expect.fix"), *not = jget(f->rec, "expect.no_fix");
	for (int k = 0; k < v->fixes.n; k++) {
		some |= want && strstr(v->fixes.items[k].text, json_object_get_string(want));
		if (not && strstr(v->fixes.items[k].text, json_object_get_string(not))) {
			print_error("%s: fix %d says '%s': %s\n", f->file, k, json_object_get_string(not),
				    v->fixes.items[k].text);
			none = false;
		}
	}
	if (want && !some) {
		print_error("%s: no fix says '%s'\n", f->file, json_object_get_string(want));
		bad++;
	}
	bad += !none;
	if ((x = jget(f->rec, "expect.peer_memory")) &&
	    strcmp(gpu_peer_name(gpu_peer_state(&f->gates.gpu)), json_object_get_string(x))) {
		print_error("%s: peer memory %s, expected %s\n", f->file,
			    gpu_peer_name(gpu_peer_state(&f->gates.gpu)), json_object_get_string(x));
		bad++;
	}
	if ((x = jget(f->rec, "expect.dmabuf"))) {
		struct gpu_dmabuf_state d;
		gpu_dmabuf_judge(&f->gates.gpu, NULL, &d);
		if (strcmp(gpu_dmabuf_name(&d), json_object_get_string(x))) {
			print_error("%s: dma-buf %s, expected %s\n", f->file, gpu_dmabuf_name(&d),
				    json_object_get_string(x));
			bad++;
		}
	}
	return bad;
}

static void test_replay_every_fixture(void **state)
{
	(void)state;
	int n = load_fixtures(), bad = 0;

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		struct fixture *f = &fx[i];
		const struct verdict *v = &f->v;
		struct json_object *x;

		if (f->got != f->want || v->cause != f->want) {
			print_error("%s: cause %s, expected %s (%s)\n", f->file, cause_name(v->cause),
				    cause_name(f->want), v->summary);
			bad++;
			continue;
		}
		/* a recorded record says what the live tracer concluded: a replay
		 * must agree */
		if ((x = jget(f->rec, "cause")) && strcmp(json_object_get_string(x), cause_name(v->cause))) {
			print_error("%s: recorded cause %s, replay %s\n", f->file,
				    json_object_get_string(x), cause_name(v->cause));
			bad++;
		}
		bool want_harmless = (x = jget(f->rec, "expect.harmless")) ? json_object_get_boolean(x)
				   : (x = jget(f->rec, "harmless"))      ? json_object_get_boolean(x)
									 : false;
		if (v->harmless != want_harmless) {
			print_error("%s: harmless %d, expected %d\n", f->file, v->harmless, want_harmless);
			bad++;
		}
		x = jget(f->rec, "event");
		if (!x || strcmp(json_object_get_string(x), v->harmless ? "nccl_probe"
					 : f->ev.kind == MRT_EV_MLOCK_FAILURE ? "mlock_failure"
					 : f->ev.kind == MRT_EV_FAILURE       ? "failure"
										 : "reg_failure")) {
			print_error("%s: event %s does not fit the verdict\n", f->file,
				    x ? json_object_get_string(x) : "(none)");
			bad++;
		}
		const char *site = (x = jget(f->rec, "expect.decisive_site")) ||
						   (x = jget(f->rec, "evidence.decisive_site"))
					   ? json_object_get_string(x)
					   : NULL;
		if (site) {
			int d = v->decisive_step;
			if (d < 0 || d >= MRT_TRAIL_MAX || strcmp(site_name(f->ev.steps[d].site), site)) {
				print_error("%s: decisive step %d (%s), expected site %s\n", f->file, d,
					    d >= 0 && d < MRT_TRAIL_MAX ? site_name(f->ev.steps[d].site) : "-",
					    site);
				bad++;
			}
		}
		if (v->decisive_step >= (int)f->ev.nsteps || v->decisive_step < -1) {
			print_error("%s: decisive_step %d outside the trail\n", f->file, v->decisive_step);
			bad++;
		}
		/* the errno reported: the kernel's, or libibverbs' own when no
		 * command reached the kernel */
		int want_err = (x = jget(f->rec, "expect.errno")) ? json_object_get_int(x)
			     : (x = jget(f->rec, "errno"))        ? json_object_get_int(x)
								  : (int)f->ev.err;
		if (v->err != want_err) {
			print_error("%s: errno %d, expected %d\n", f->file, v->err, want_err);
			bad++;
		}
		if (v->certainty != CERT_PROVEN || !v->summary[0] || !v->explanation[0]) {
			print_error("%s: not proven, or no summary/explanation\n", f->file);
			bad++;
		}
		if (v->cause != CAUSE_UNKNOWN && v->fixes.n < 1) {
			print_error("%s: cause %s without a fix\n", f->file, cause_name(v->cause));
			bad++;
		}
		bad += check_expected_fixes(f);
	}
	if (bad)
		fail_msg("%d replay mismatches", bad);
}

/* ---- per cause: the numbers ------------------------------------------------------ */

static void check_memlock_arith(const struct fixture *f)
{
	const struct verdict *v = &f->v;

	assert_true(v->has_memlock);
	assert_int_equal(v->limit_bytes, raw_u64(f, "ml.limit_cur"));
	assert_int_equal(v->pinned_before_bytes, raw_u64(f, "ml.pinned_pages_before") * PAGE);
	assert_int_equal(v->request_bytes, raw_u64(f, "ml.requested_pages") * PAGE);
	assert_int_equal(v->need_bytes, v->pinned_before_bytes + v->request_bytes);
	/* the kernel's condition, restated: pinned + request > limit (pages) */
	assert_true(raw_u64(f, "ml.pinned_pages_before") + raw_u64(f, "ml.requested_pages") >
		    raw_u64(f, "ml.limit_cur") / PAGE);
	/* capable() was asked and said no: that is the decisive step */
	if (f->ev.ml.cap_checked) {
		assert_decisive_site(f, MRT_SITE_CAP_IPC_LOCK);
		assert_int_equal(decisive(f)->ret, 0);
	} else {
		assert_decisive_site(f, MRT_SITE_UMEM_GET);
	}
}

static void test_memlock_limit(void **state)
{
	(void)state;
	struct fixture *f;
	int reg = 0;

	FOR_CAUSE(f, CAUSE_MEMLOCK_LIMIT)
	{
		if (f->ev.kind != MRT_EV_REG_FAILURE)
			continue;
		reg++;
		assert_int_equal(f->ev.err, ENOMEM);
		check_memlock_arith(f);
		assert_contains(f->v.summary, "over by");
	}
	assert_true(reg >= 6);

	/* a malloc'd 16 MiB buffer is not page aligned: 4097 pages */
	f = fixture("memlock_limit.nobody64k.6.12");
	assert_int_equal(f->v.limit_bytes, 65536);
	assert_int_equal(f->v.request_bytes, 4097 * PAGE);
	assert_int_equal(f->v.pinned_before_bytes, 0);
	assert_contains(f->v.summary, "limit 64 KiB");
	/* root without CAP_IPC_LOCK: the limit applies to root too */
	f = fixture("memlock_limit.rootnocap.6.1");
	assert_int_equal(f->ev.uid, 0);
	assert_true(f->ev.ml.cap_checked && !f->ev.ml.cap_result);
	assert_int_equal(f->v.request_bytes, 4096 * PAGE);
	/* cumulative: two live 16 MiB MRs count, the third does not fit in 40 MiB */
	f = fixture("memlock_limit.cumulative.6.12");
	assert_int_equal(f->v.limit_bytes, 40ULL << 20);
	assert_int_equal(f->v.pinned_before_bytes, 32ULL << 20);
	assert_int_equal(f->v.request_bytes, 16ULL << 20);
	assert_int_equal(f->v.need_bytes, 48ULL << 20);
	assert_int_equal(f->ev.ml.live_mrs, 2);
	assert_contains(f->v.summary, "by 2 MRs");
	assert_contains(f->v.summary, "over by 8 MiB");
}

static void test_memlock_zero(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_MEMLOCK_ZERO)
	{
		assert_int_equal(f->ev.err, EPERM);
		assert_true(f->v.has_memlock);
		assert_int_equal(f->v.limit_bytes, 0);
		assert_int_equal(f->v.request_bytes, raw_u64(f, "ml.requested_pages") * PAGE);
		assert_int_equal(f->v.request_bytes, 4096 * PAGE);
		assert_decisive_site(f, MRT_SITE_CAP_IPC_LOCK);
		assert_true(has_fix(&f->v, "RLIMIT_MEMLOCK is 0"));
	}
}

static void test_mlock_failure(void **state)
{
	(void)state;
	struct fixture *f = fixture("memlock_limit.mlock.host-6.18");

	assert_int_equal(f->ev.kind, MRT_EV_MLOCK_FAILURE);
	assert_int_equal(f->v.cause, CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(f->v.limit_bytes, 65536);
	assert_int_equal(f->v.request_bytes, raw_u64(f, "sys_len"));
	assert_int_equal(f->v.request_bytes, 1ULL << 20);
	assert_int_equal(f->v.pinned_before_bytes, raw_u64(f, "ml.locked_pages") * PAGE);
	assert_int_equal(f->v.decisive_step, -1); /* no trail: a syscall tracepoint */
	assert_int_equal(f->ev.syscall, MRT_SYS_MLOCK); /* recorded as x86_64's 149 */
	assert_contains(f->v.summary, "mlock of 1 MiB");
}

static void test_pin_causes(void **state)
{
	(void)state;
	struct fixture *f;
	const struct mrt_step *s;

	FOR_CAUSE(f, CAUSE_PIN_DEVICE_MEMORY)
	{
		s = decisive(f);
		assert_int_equal(s->site, MRT_SITE_PIN);
		assert_int_equal(s->ret, -EFAULT);
		assert_true(s->a2 != MRT_VMA_UNKNOWN && s->a2 != MRT_VMA_NONE);
		assert_true(s->a2 & (VM_IO | VM_PFNMAP));
		assert_true(has_fix(&f->v, "nvidia-peermem"));
	}
	/* the unmapped range: a2 is MRT_VMA_NONE (2^64 - 2) to the last bit */
	f = fixture("pin_fault.unmapped.6.12");
	s = decisive(f);
	assert_int_equal(s->site, MRT_SITE_PIN);
	assert_true(s->a2 == MRT_VMA_NONE);
	assert_contains(f->v.summary, "no mapping");
	f = fixture("pin_fault.protnone.6.12");
	s = decisive(f);
	assert_true(s->a2 != MRT_VMA_NONE && s->a2 != MRT_VMA_UNKNOWN);
	assert_int_equal(s->a2 & (VM_READ | VM_WRITE), 0);
	assert_contains(f->v.summary, "PROT_NONE");
	FOR_CAUSE(f, CAUSE_PIN_HUGETLB)
	{
		s = decisive(f);
		assert_int_equal(s->site, MRT_SITE_PIN);
		assert_true(s->a2 & VM_HUGETLB);
		assert_false(s->a2 & (VM_IO | VM_PFNMAP));
	}
	FOR_CAUSE(f, CAUSE_PIN_FSDAX)
	{
		/* the kernel's mark beside the VMA's own flags, and EOPNOTSUPP */
		s = decisive(f);
		assert_int_equal(s->site, MRT_SITE_PIN);
		assert_int_equal(s->ret, -EOPNOTSUPP);
		assert_true(s->a2 & MRT_VMA_FSDAX);
		assert_false(s->a2 & (VM_IO | VM_PFNMAP | VM_HUGETLB));
		assert_false(f->v.has_memlock);
	}
	FOR_CAUSE(f, CAUSE_PIN_MIGRATE)
	{
		s = decisive(f);
		/* the failed chunk, not the successful chunks folded before it */
		assert_int_equal(s->site, MRT_SITE_PIN);
		assert_int_equal(s->ret, -ENOMEM);
		assert_int_equal(s->a0, raw_u64(f, "cmd_start") + (4 << 20));
		assert_false(s->a2 & (VM_IO | VM_PFNMAP | VM_HUGETLB));
		assert_int_equal(f->ev.err, ENOMEM);
		assert_false(f->v.has_memlock); /* ENOMEM, but not the memlock limit */
	}
	/* without the node's CMA facts: the generic text, saying so */
	f = fixture("pin_migrate.longterm-enomem.synthetic");
	assert_contains(f->v.explanation, "CMA pageblocks were not readable");
	assert_true(has_fix(&f->v, "movable_node / kernelcore="));
	/* with them (evidence.gates.cma): kexec handover's CMA, by its numbers */
	f = fixture("pin_migrate.kho.synthetic");
	assert_true(f->have_gates && f->gates.cma.read);
	assert_contains(f->v.summary, "48 GiB of MIGRATE_CMA pageblocks on this node while "
				      "CmaTotal is 0 kB: memory a kexec handover left as CMA");
	assert_contains(f->v.fixes.items[0].text, "kho_scratch=");
	assert_false(has_fix(&f->v, "movable_node / kernelcore="));
}

static void test_command_validation(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_BAD_ACCESS_FLAGS)
	{
		assert_int_equal(f->ev.err, EINVAL);
		assert_int_equal(f->ev.cmd_valid, 1);
		assert_int_equal(f->ev.cmd_access, raw_u64(f, "cmd_access"));
		assert_int_equal(f->ev.cmd_access, 0x2); /* REMOTE_WRITE without LOCAL_WRITE */
		assert_false(f->ev.ml.valid); /* refused before ib_umem_get */
		assert_contains(f->v.summary, "LOCAL_WRITE");
	}
	FOR_CAUSE(f, CAUSE_IOVA_MISALIGNED)
	{
		assert_int_equal(f->ev.err, EINVAL);
		assert_int_equal(f->ev.cmd_iova - f->ev.cmd_start, 16);
		assert_int_equal((f->ev.cmd_iova ^ f->ev.cmd_start) & (PAGE - 1), 0x10);
		assert_contains(f->v.summary, "(0x10 vs 0x0)");
	}
}

static void test_rdma_cgroup(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_RDMA_CGROUP_LIMIT)
	{
		const struct mrt_step *s = decisive(f);
		assert_int_equal(f->ev.err, EAGAIN);
		assert_int_equal(s->site, MRT_SITE_RDMACG_CHARGE);
		assert_int_equal(s->ret, -EAGAIN);
		/* RDMACG_RESOURCE_HCA_HANDLE (0) for a device context, else HCA_OBJECT (1) */
		assert_int_equal(s->a0, f->ev.kind == MRT_EV_FAILURE && f->ev.op == MRT_OP_OPEN_DEVICE ? 0 : 1);
		assert_true(has_fix(&f->v, "rdma.max"));
	}
}

static void test_dmabuf(void **state)
{
	(void)state;
	struct fixture *f;

	/* NCCL's probe on a dma-buf capable driver: EBADF is the expected answer */
	f = fixture("dmabuf_bad_fd.nccl-probe-mlx5.synthetic");
	assert_int_equal(f->v.cause, CAUSE_DMABUF_BAD_FD);
	assert_true(f->v.harmless);
	assert_int_equal(f->ev.opener, MRT_SITE_UVERBS_REG_DMABUF);
	assert_int_equal(f->ev.cmd_valid, 2);
	assert_int_equal(f->ev.dmabuf_fd, -1);
	assert_int_equal(f->ev.cmd_length, 0);
	assert_decisive_site(f, MRT_SITE_DMABUF_GET);
	/* the same errno from a real registration is not harmless */
	f = fixture("dmabuf_bad_fd.closed-fd-mlx5.synthetic");
	assert_int_equal(f->v.cause, CAUSE_DMABUF_BAD_FD);
	assert_false(f->v.harmless);
	assert_int_equal(f->ev.dmabuf_fd, 87);
	assert_contains(f->v.summary, "fd 87");
	assert_decisive_site(f, MRT_SITE_DMABUF_GET);
	/* the exporter refused: the attach decides, whatever the errno */
	FOR_CAUSE(f, CAUSE_DMABUF_ATTACH)
	{
		assert_decisive_site(f, MRT_SITE_DMABUF_ATTACH);
		assert_int_equal(decisive(f)->a0, 32ULL << 20); /* dmabuf->size */
		assert_false(f->v.harmless);
	}
	/* no dma-buf method in the driver: a real fd is a real failure, the
	 * probe's shape (fd -1, length 0) is harmless */
	f = fixture("dmabuf_unsupported.udmabuf-no-method.synthetic");
	assert_false(f->v.harmless);
	assert_int_equal(f->ev.err, EPROTONOSUPPORT);
	assert_decisive_site(f, MRT_SITE_UVERBS_REG_DMABUF);
	assert_contains(f->v.summary, "fd 5, length 65536");
	f = fixture("dmabuf_unsupported.nccl-probe-no-method.synthetic");
	assert_int_equal(f->v.cause, CAUSE_DMABUF_UNSUPPORTED);
	assert_true(f->v.harmless);
	/* soft-RoCE: the provider refuses in libibverbs, only the uprobe sees
	 * it; no command was issued, so this is proven, and the errno is
	 * libibverbs' EOPNOTSUPP (the event's err is 0) */
	f = fixture("dmabuf_unsupported.libibverbs-probe-rxe.synthetic");
	assert_int_equal(f->ev.kind, MRT_EV_USER_CALL);
	assert_int_equal(f->ev.cmd_reached, 0);
	assert_int_equal(f->ev.err, 0);
	assert_int_equal(f->v.err, EOPNOTSUPP);
	assert_int_equal(f->v.certainty, CERT_PROVEN);
	assert_true(f->v.harmless);
	assert_int_equal(f->v.decisive_step, -1);
	assert_contains(f->v.summary, "before the kernel");
	f = fixture("dmabuf_unsupported.libibverbs-udmabuf-rxe.synthetic");
	assert_false(f->v.harmless);
	assert_int_equal(f->v.err, EOPNOTSUPP);
	assert_contains(f->v.summary, "fd 5, length 65536");
}

/* A libibverbs call that reached the kernel with no kernel site armed (the
 * development host): the verdict is inferred from /proc, so a replay
 * without the process context must not claim a cause. */
static void test_user_call_inferred(void **state)
{
	(void)state;
	static struct mrt_event ev;
	static struct verdict v;
	static struct proc_context ctx;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_USER_CALL;
	ev.opener = MRT_API_REG_MR_IOVA2;
	ev.cmd_start = 0x7f0000001010ULL; /* malloc'd: 4097 pages */
	ev.cmd_length = 16 << 20;
	ev.cmd_iova = ev.cmd_start;
	ev.cmd_access = 0x10000f;
	ev.cmd_valid = 3;
	ev.dmabuf_fd = -1;
	ev.cmd_reached = 1;
	ev.err = ENOMEM;
	assert_int_equal(explain_user_call(&ev, NULL, NULL, NULL, &v), CAUSE_UNKNOWN);
	assert_int_equal(v.certainty, CERT_INFERRED);
	assert_int_equal(v.err, ENOMEM);

	memset(&ctx, 0, sizeof(ctx));
	ctx.have = CTX_HAVE_MEMLOCK | CTX_HAVE_VMPIN | CTX_HAVE_CAPS | CTX_HAVE_USERNS;
	ctx.memlock_soft = 64 << 10;
	ctx.vm_pin = 32 << 20;
	assert_int_equal(explain_user_call(&ev, &ctx, NULL, NULL, &v), CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(v.certainty, CERT_INFERRED);
	assert_true(v.has_memlock);
	assert_int_equal(v.limit_bytes, 64 << 10);
	assert_int_equal(v.pinned_before_bytes, 32 << 20);
	assert_int_equal(v.request_bytes, 4097 * PAGE);
	assert_true(v.fixes.n > 0);
	/* CAP_IPC_LOCK in the initial user namespace lifts the limit ... */
	ctx.cap_ipc_lock = true;
	assert_int_equal(explain_user_call(&ev, &ctx, NULL, NULL, &v), CAUSE_UNKNOWN);
	/* ... held inside a user namespace it does not */
	ctx.in_userns = true;
	assert_int_equal(explain_user_call(&ev, &ctx, NULL, NULL, &v), CAUSE_MEMLOCK_LIMIT);
	/* the round trip keeps cmd_reached */
	round_trip("user call", &ev, &v, "ibv_reg_mr_iova2", NULL);
}

static void test_mlx5_firmware(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_MLX5_FIRMWARE)
	{
		const struct mrt_step *s = decisive(f);
		assert_int_equal(s->site, MRT_SITE_MLX5_CMD);
		assert_int_equal(s->a0, 0x200); /* CREATE_MKEY */
		assert_int_equal(s->a1, 0x8); /* LIM_ERR */
		assert_int_equal(s->ret, -ENOMEM);
		assert_int_equal(f->ev.err, ENOMEM);
		assert_false(f->v.has_memlock); /* ENOMEM, memlock unlimited */
		assert_contains(f->v.summary, "LIM_ERR");
		assert_contains(f->v.summary, "0x2b6f1c");
		assert_true(has_fix(&f->v, "LIM_ERR"));
	}
}

/* EAGAIN that reaches ibv_reg_mr from the firmware's NO_RES_ERR: proven by
 * the command's own status, the HCA's business (class infiniband), and
 * fixed by retrying before anything else. */
static void test_reg_retry(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_REG_RETRY)
	{
		const struct mrt_step *s = decisive(f);
		assert_int_equal(s->site, MRT_SITE_MLX5_CMD);
		assert_int_equal(s->a0, 0x200); /* CREATE_MKEY */
		assert_int_equal(s->a1, 0xf); /* NO_RES_ERR */
		assert_int_equal(s->ret, -EAGAIN);
		assert_int_equal(f->ev.err, EAGAIN);
		assert_int_equal(f->v.err, EAGAIN);
		assert_int_equal(f->v.certainty, CERT_PROVEN);
		assert_int_equal(cause_class(f->v.cause, MRT_OP_NONE), CLASS_INFINIBAND);
		assert_contains(f->v.summary, "NO_RES_ERR");
		assert_contains(f->v.summary, "0x39b0c2");
		assert_contains(f->v.summary, "EAGAIN");
		assert_true(f->v.fixes.n >= 2);
		assert_contains(f->v.fixes.items[0].text, "Retry the registration");
	}
	/* the same status with another errno is no "try again": mlx5_firmware */
	f = fixture("reg_retry.create-mkey-no-res.synthetic");
	struct mrt_event ev = f->ev;
	struct verdict v;
	ev.steps[v_decisive_or(f)].ret = -EIO;
	explain_registration(&ev, NULL, NULL, NULL, &v);
	assert_int_equal(v.cause, CAUSE_MLX5_FIRMWARE);
}

/* A registration on a device in its fatal state: mlx5 answered the command
 * itself (status 0xfe, syndrome 0xbadd00de), EIO, proven; not the
 * firmware's refusal. */
static void test_device_fatal(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_DEVICE_FATAL)
	{
		const struct mrt_step *s = decisive(f);
		assert_int_equal(s->site, MRT_SITE_MLX5_CMD);
		assert_int_equal(s->a1, 0xfe);
		assert_int_equal(s->a2, 0xbadd00de);
		assert_int_equal(s->ret, -EIO);
		assert_int_equal(f->ev.err, EIO);
		assert_int_equal(f->v.err, EIO);
		assert_int_equal(f->v.certainty, CERT_PROVEN);
		assert_int_equal(cause_class(f->v.cause, MRT_OP_NONE), CLASS_INFINIBAND);
		assert_contains(f->v.summary, "fatal error state");
		assert_contains(f->v.summary, "0xbadd00de");
		assert_contains(f->v.explanation, "local catastrophic error");
		assert_true(has_fix(&f->v, "devlink dev reload"));
		assert_true(has_fix(&f->v, "dmesg"));
	}
	/* the abort status alone, with a syndrome firmware could send: not
	 * proof of the fatal state */
	f = fixture("device_fatal.mlx5-internal-error.synthetic");
	struct mrt_event ev = f->ev;
	struct verdict v;
	ev.steps[v_decisive_or(f)].a2 = 0x2b6f1c;
	explain_registration(&ev, NULL, NULL, NULL, &v);
	assert_int_equal(v.cause, CAUSE_MLX5_FIRMWARE);
}

static void test_dma_map_iova(void **state)
{
	(void)state;
	struct fixture *f = fixture("dma_map_iova.iova-exhausted.synthetic");
	const struct mrt_step *s = decisive(f);

	assert_int_equal(s->site, MRT_SITE_IOVA_ALLOC);
	assert_int_equal(s->a2, 1); /* flush_rcache: the last attempt */
	assert_int_equal(s->a1, 0xfffff); /* 32-bit limit pfn */
	assert_contains(f->v.summary, "alloc_iova_fast(16384 pages");
	f = fixture("dma_map_iova.dma-map-only.synthetic");
	assert_decisive_site(f, MRT_SITE_DMA_MAP);
	assert_int_equal(decisive(f)->ret, -ENOMEM);
	FOR_CAUSE(f, CAUSE_DMA_MAP_IOVA)
	assert_true(has_fix(&f->v, "iommu=pt"));
}

static void test_unknown(void **state)
{
	(void)state;
	struct fixture *f;

	FOR_CAUSE(f, CAUSE_UNKNOWN)
	{
		int first = -1;
		for (int i = 0; i < (int)f->ev.nsteps && i < MRT_TRAIL_MAX; i++)
			if (f->ev.steps[i].ret < 0) {
				first = i;
				break;
			}
		/* no guess: the first failed site is named, the raw trail kept */
		assert_int_equal(f->v.decisive_step, first);
		assert_true(first >= 0);
		assert_contains(f->v.summary, site_name(f->ev.steps[first].site));
		assert_contains(f->v.summary, "no known cause");
	}
	assert_decisive_site(fixture("unknown.sg-alloc-enomem.synthetic"), MRT_SITE_SG_ALLOC);
}

/* ---- round trip: record_report_json -> text -> record_raw_from_json ---------- */

static struct json_object *to_record(const struct mrt_event *ev, const struct verdict *v,
				     const char *api)
{
	static struct report r; /* large */

	memset(&r, 0, sizeof(r));
	r.ev = ev;
	r.v = *v;
	r.api = api;
	return record_report_json(&r);
}

/* Serialize, parse again and rebuild: the event must come back identical. */
static void round_trip(const char *what, const struct mrt_event *ev, const struct verdict *v,
		       const char *api, struct json_object **out)
{
	static struct mrt_event back;
	char err[256] = "";
	struct json_object *rec = to_record(ev, v, api);
	const char *text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
	struct json_object *again = json_tokener_parse(text);

	if (!again)
		fail_msg("%s: record_report_json wrote unparsable JSON", what);
	if (record_raw_from_json(again, &back, err, sizeof(err)))
		fail_msg("%s: record_raw_from_json on record_report_json's output: %s", what, err);
	if (memcmp(&back, ev, sizeof(back))) {
		const unsigned char *a = (const void *)ev, *b = (const void *)&back;
		size_t i = 0;
		while (a[i] == b[i])
			i++;
		fail_msg("%s: rebuilt event differs from the original at byte %zu of %zu", what, i,
			 sizeof(back));
	}
	json_object_put(rec);
	if (out)
		*out = again;
	else
		json_object_put(again);
}

static void test_round_trip_fixtures(void **state)
{
	(void)state;
	int n = load_fixtures();

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		struct fixture *f = &fx[i];
		struct json_object *rec, *x, *ev;
		static struct verdict v2;
		const char *api = (x = jget(f->rec, "api")) ? json_object_get_string(x) : "reg_mr";

		round_trip(f->file, &f->ev, &f->v, api, &rec);
		/* the rebuilt record explains the same way */
		static struct mrt_event back;
		char err[256];
		assert_int_equal(record_raw_from_json(rec, &back, err, sizeof(err)), 0);
		static struct report r2;
		record_explain(&r2, &back, NULL, NULL, NULL, f->have_gates ? &f->gates : NULL);
		v2 = r2.v;
		assert_int_equal(v2.cause, f->v.cause);
		assert_string_equal(v2.summary, f->v.summary);
		/* docs/design.md section 6: the contract fields of a record */
		static const char *const keys[] = { "event", "pid", "tid", "comm", "api", "errno",
						    "errno_name", "cause", "len", "evidence",
						    "explanation", "fixes", "raw" };
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!json_object_object_get_ex(rec, keys[k], NULL))
				fail_msg("%s: record lacks \"%s\"", f->file, keys[k]);
		assert_string_equal(json_object_get_string(jget(rec, "cause")), cause_name(f->want));
		assert_true(json_object_is_type(jget(rec, "fixes"), json_type_array));
		assert_int_equal(json_object_get_int(jget(rec, "errno")), f->v.err);
		ev = jget(rec, "evidence");
		assert_true(json_object_is_type(ev, json_type_object));
		if (f->v.has_memlock) {
			static const char *const ml[] = { "memlock_limit_bytes", "pinned_bytes_before",
							  "requested_pages", "cap_ipc_lock" };
			for (size_t k = 0; k < sizeof(ml) / sizeof(ml[0]); k++)
				if (!json_object_object_get_ex(ev, ml[k], NULL))
					fail_msg("%s: evidence lacks \"%s\"", f->file, ml[k]);
			assert_true(json_object_is_type(jget(ev, "cap_ipc_lock"), json_type_boolean));
			assert_int_equal(json_object_get_uint64(jget(ev, "pinned_bytes_before")),
					 f->v.pinned_before_bytes);
		}
		json_object_put(rec);
	}
}

/* Values at the edges of every field's range, and a trail longer than the
 * ring buffer record holds. */
static void test_round_trip_extremes(void **state)
{
	(void)state;
	static struct mrt_event ev;
	static struct verdict v;
	struct json_object *rec;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_REG_FAILURE;
	ev.pid = 4194304;
	ev.tid = 4194303;
	ev.uid = 4294967294u;
	ev.ts_ns = UINT64_MAX - 1;
	ev.cgroup_id = 0x8000000000000001ULL; /* above INT64_MAX */
	ev.userns_inum = 4026531837u;
	ev.userns_level = 3;
	snprintf(ev.comm, sizeof(ev.comm), "%s", "pt_main_thread");
	ev.err = ENOMEM;
	ev.opener = MRT_SITE_UMEM_GET;
	ev.cmd_valid = 0;
	ev.dmabuf_fd = -1;
	ev.ml.limit_cur = UINT64_MAX; /* RLIM_INFINITY */
	ev.ml.limit_max = UINT64_MAX;
	ev.ml.pinned_pages_before = 123456789;
	ev.ml.locked_pages = 7;
	ev.ml.requested_pages = 4097;
	ev.ml.addr = 0x7ffffffff010ULL;
	ev.ml.len = 16 << 20;
	ev.ml.access = 0x10000f;
	ev.ml.valid = 1;
	ev.ml.cap_checked = 1;
	ev.ml.cap_result = 1;
	ev.ml.live_mrs = 4000000000u;
	ev.ml.live_pages = UINT64_MAX >> 12; /* the most pages whose bytes fit 64 bits (4 KiB) */
	ev.nsteps = MRT_TRAIL_MAX + 8; /* 8 steps lost in the kernel */
	for (int i = 0; i < MRT_TRAIL_MAX; i++) {
		ev.steps[i].site = (i % (MRT_SITE_MAX - 1)) + 1;
		ev.steps[i].flags = MRT_STEP_EXITED;
		ev.steps[i].ret = i % 2 ? -4095 : 2147483647;
		ev.steps[i].a0 = UINT64_MAX - i;
		ev.steps[i].a1 = i % 3 ? MRT_VMA_NONE : MRT_VMA_UNKNOWN;
		ev.steps[i].a2 = (uint64_t)i << 40;
	}
	explain_registration(&ev, NULL, NULL, NULL, &v);
	round_trip("extremes", &ev, &v, "reg_mr", &rec);
	assert_int_equal(json_object_get_uint64(jget(rec, "trail_lost_steps")), 8);
	assert_int_equal(json_object_array_length(jget(rec, "trail")), MRT_TRAIL_MAX);
	assert_string_equal(json_object_get_string(jget(rec, "evidence.memlock_limit_bytes")),
			    "unlimited");
	json_object_put(rec);

	/* an mlock failure and a dma-buf event: the other shapes of "raw" */
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_MLOCK_FAILURE;
	ev.err = EPERM;
	ev.syscall = MRT_SYS_MLOCK2;
	ev.sys_len = 1ULL << 40;
	ev.sys_arg = 3;
	ev.dmabuf_fd = -1;
	explain_mlock(&ev, NULL, NULL, &v);
	assert_int_equal(v.cause, CAUSE_MEMLOCK_ZERO);
	round_trip("mlock", &ev, &v, "mlock2", NULL);
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_REG_FAILURE;
	ev.err = EBADF;
	ev.opener = MRT_SITE_UVERBS_REG_DMABUF;
	ev.cmd_valid = 2;
	ev.dmabuf_fd = -2147483647 - 1;
	ev.nsteps = 0;
	explain_registration(&ev, NULL, NULL, NULL, &v);
	round_trip("dmabuf", &ev, &v, "reg_dmabuf_mr", NULL);
}

/* ---- malformed input ---------------------------------------------------------------- */

static struct json_object *valid_record(void)
{
	struct fixture *f = fixture("memlock_limit.nobody64k.6.12");
	struct json_object *copy = NULL;

	assert_int_equal(json_object_deep_copy(f->rec, &copy, NULL), 0);
	return copy;
}

static void expect_rejected(struct json_object *rec, const char *what, const char *in_msg)
{
	static struct mrt_event ev;
	char err[256] = "";

	if (record_raw_from_json(rec, &ev, err, sizeof(err)) != -1)
		fail_msg("%s: accepted", what);
	if (!err[0])
		fail_msg("%s: rejected without a message", what);
	if (!strstr(err, in_msg))
		fail_msg("%s: message '%s' does not name '%s'", what, err, in_msg);
	json_object_put(rec);
}

static void test_event_from_json_malformed(void **state)
{
	(void)state;
	struct json_object *r;
	char err[256];
	static struct mrt_event ev;

	/* the valid base is accepted, with or without the record around "raw" */
	r = valid_record();
	assert_int_equal(record_raw_from_json(r, &ev, err, sizeof(err)), 0);
	assert_int_equal(record_raw_from_json(jget(r, "raw"), &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.ml.requested_pages, 4097);
	json_object_put(r);

	r = valid_record();
	json_object_object_del(jget(r, "raw"), "ml");
	expect_rejected(r, "raw.ml missing", "raw.ml");

	r = valid_record();
	json_object_object_add(jget(r, "raw"), "ml", json_object_new_array());
	expect_rejected(r, "raw.ml an array", "raw.ml");

	r = valid_record();
	json_object_object_del(jget(r, "raw.ml"), "limit_cur");
	expect_rejected(r, "raw.ml.limit_cur missing", "limit_cur");

	r = valid_record();
	json_object_object_add(jget(r, "raw"), "steps", json_object_new_string("[]"));
	expect_rejected(r, "raw.steps a string", "raw.steps");

	r = valid_record();
	json_object_object_del(jget(r, "raw"), "steps");
	expect_rejected(r, "raw.steps missing", "raw.steps");

	r = valid_record();
	json_object_array_del_idx(json_object_array_get_idx(jget(r, "raw.steps"), 2), 4, 1);
	expect_rejected(r, "a step with 4 members", "raw.steps[2]");

	r = valid_record();
	json_object_array_put_idx(jget(r, "raw.steps"), 0, json_object_new_int(5));
	expect_rejected(r, "a step that is a number", "raw.steps[0]");

	r = valid_record();
	json_object_object_del(jget(r, "raw"), "kind");
	expect_rejected(r, "raw.kind missing", "raw.kind");

	r = valid_record();
	json_object_object_add(jget(r, "raw"), "err", json_object_new_string("ENOMEM"));
	expect_rejected(r, "raw.err a string", "raw.err");

	/* more steps than raw.nsteps says: the steps given count; more than
	 * MRT_TRAIL_MAX: the rest are counted as lost, not read */
	r = valid_record();
	json_object_object_add(jget(r, "raw"), "nsteps", json_object_new_int(1));
	assert_int_equal(record_raw_from_json(r, &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.nsteps, 5);
	assert_int_equal(ev.steps[4].site, MRT_SITE_UVERBS_REG_MR);
	for (int i = 0; i < MRT_TRAIL_MAX + 3; i++)
		json_object_array_add(jget(r, "raw.steps"),
				      json_tokener_parse("[8, -12, 256, 1048576, 0]"));
	assert_int_equal(record_raw_from_json(r, &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.nsteps, 5 + MRT_TRAIL_MAX + 3);
	assert_int_equal(ev.steps[MRT_TRAIL_MAX - 1].site, MRT_SITE_SG_ALLOC);
	json_object_put(r);

	/* a record without "raw" (e.g. "start" or "memlock_limit_set") */
	r = json_tokener_parse("{\"event\":\"memlock_limit_set\",\"pid\":1,\"soft_bytes\":65536}");
	assert_non_null(r);
	expect_rejected(r, "no raw member", "raw.kind");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_present),
		cmocka_unit_test(test_replay_every_fixture),
		cmocka_unit_test(test_entry_points),
		cmocka_unit_test(test_memlock_limit),
		cmocka_unit_test(test_memlock_zero),
		cmocka_unit_test(test_mlock_failure),
		cmocka_unit_test(test_pin_causes),
		cmocka_unit_test(test_command_validation),
		cmocka_unit_test(test_rdma_cgroup),
		cmocka_unit_test(test_dmabuf),
		cmocka_unit_test(test_user_call_inferred),
		cmocka_unit_test(test_mlx5_firmware),
		cmocka_unit_test(test_reg_retry),
		cmocka_unit_test(test_device_fatal),
		cmocka_unit_test(test_dma_map_iova),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_round_trip_fixtures),
		cmocka_unit_test(test_round_trip_extremes),
		cmocka_unit_test(test_event_from_json_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
