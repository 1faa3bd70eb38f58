// SPDX-License-Identifier: GPL-2.0-only
/* test_diff_hostile.c - `mrtrace diff` fed what a careless or hostile user
 * hands it: members of the wrong type, documents that are not reports,
 * devices, directories, endless streams, the same file twice, standard
 * input, and reports big enough to expose a quadratic comparison.
 *
 * Every case runs diff in a child process: a json-c assertion (abort) or a
 * hang then fails the one case with its reason instead of killing the test
 * binary.  The wrong-type sweep (~1,900 runs) is the exception: it runs diff
 * in this process (diff_here), where such a failure ends the binary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_path.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "diff/diff.h"

#ifndef DIFF_REPORT_MAX   /* older diff.h: the limit stated in docs */
#define DIFF_REPORT_MAX (16u << 20)
#endif

static char dir[64];

struct outcome {
	bool signaled;
	int sig;          /* SIGALRM: it ran past its time */
	int rc;
	char err[512];
	char out[4096];   /* the start of what diff printed */
	double secs;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs diff_files in this process: for the sweep's ~1,900 runs, where a
 * fork each cost 89 ms under ASan (166 s of make test's hour; its shadow
 * mappings are copied at every fork).  A crash here still fails the test
 * (the whole binary, with ASan's report); what leaks across the runs is
 * LeakSanitizer's at exit. */
static struct outcome diff_here(int n, const char **files)
{
	struct outcome o = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	o.rc = diff_files(n, files, f, NULL, o.err, sizeof(o.err));
	fclose(f);
	snprintf(o.out, sizeof(o.out), "%s", text ? text : "");
	free(text);
	return o;
}

/* Runs diff_files in a child; stdin_file (or NULL) becomes its fd 0. */
static struct outcome run_diff(int n, const char **files, int timeout_s, const char *stdin_file)
{
	struct outcome o = { 0 };
	int ep[2], op[2];
	assert_int_equal(pipe(ep), 0);
	assert_int_equal(pipe(op), 0);
	double t0 = now_s();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ep[0]);
		close(op[0]);
		alarm((unsigned)timeout_s);
		if (stdin_file) {
			int fd = open(stdin_file, O_RDONLY);
			if (fd < 0 || dup2(fd, 0) < 0)
				_exit(99);
		}
		char err[512] = "";
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int rc = diff_files(n, files, f, NULL, err, sizeof(err));
		fclose(f);
		if (write(ep[1], err, strlen(err)) < 0 ||
		    write(op[1], text, len < sizeof(o.out) - 1 ? len : sizeof(o.out) - 1) < 0)
			_exit(98);
		_exit(rc);
	}
	close(ep[1]);
	close(op[1]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	o.secs = now_s() - t0;
	ssize_t k = read(ep[0], o.err, sizeof(o.err) - 1);
	o.err[k > 0 ? k : 0] = '\0';
	size_t got = 0;
	while (got < sizeof(o.out) - 1 && (k = read(op[0], o.out + got, sizeof(o.out) - 1 - got)) > 0)
		got += (size_t)k;
	o.out[got] = '\0';
	close(ep[0]);
	close(op[0]);
	if (WIFSIGNALED(status)) {
		o.signaled = true;
		o.sig = WTERMSIG(status);
	} else {
		o.rc = WEXITSTATUS(status);
	}
	return o;
}

static void expect_exit(const struct outcome *o, int rc, const char *what)
{
	if (o->signaled)
		fail_msg("%s: diff was killed by signal %d (%s)%s", what, o->sig, strsignal(o->sig),
			 o->sig == SIGALRM ? ": it did not finish in time" : "");
	if (o->rc != rc)
		fail_msg("%s: exit %d, expected %d (error: %s)", what, o->rc, rc, o->err);
}

static void expect_err(const struct outcome *o, const char *a, const char *b)
{
	if (!strstr(o->err, a) || (b && !strstr(o->err, b)))
		fail_msg("error \"%s\" lacks \"%s\"%s%s", o->err, a, b ? " or " : "", b ? b : "");
}

static const char *path_of(const char *file)
{
	static char paths[32][128];
	static int next;
	char *p = paths[next++ % 32];
	snprintf(p, 128, "%s/%s", dir, file);
	return p;
}

static const char *save_text(const char *file, const char *text)
{
	const char *p = path_of(file);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static json_object *report(const char *tree, const char *host)
{
	struct chk_report r;
	struct chk_options o = { .root = fixture_path("check", tree), .pid = 0 };
	assert_int_equal(chk_run(&o, &r), 0);
	json_object *d = json_tokener_parse(chk_json_string(&r));
	chk_report_free(&r);
	assert_non_null(d);
	json_object *h;
	assert_true(json_object_object_get_ex(d, "host", &h));
	json_object_object_add(h, "hostname", json_object_new_string(host));
	return d;
}

static const char *save(json_object *d, const char *file)
{
	const char *p = path_of(file);
	assert_int_equal(json_object_to_file_ext(p, d, JSON_C_TO_STRING_PLAIN), 0);
	return p;
}

static const char *good(void)
{
	json_object *d = report("h100", "gpu-ok");
	const char *p = save(d, "good.json");
	json_object_put(d);
	return p;
}

/* ---- wrong types ----------------------------------------------------------- */

/* The audit's reproducer: ports given as a string where an array belongs. */
static void test_wrong_type_is_a_message(void **state)
{
	(void)state;
	const char *files[2] = { good(), save_text("ports.json",
		"{\"schema\":\"mrtrace-check/1\",\"host\":{\"hostname\":\"\"},\"items\":[{}],"
		"\"rdma\":{\"devices\":[{\"ports\":\"\"}]}}") };
	struct outcome o = run_diff(2, files, 10, NULL);
	expect_exit(&o, 2, "ports as a string");
	expect_err(&o, files[1], "rdma.devices[0].ports");
	assert_string_equal(o.out, "");
}

/* Every member of a real report replaced, one at a time, by a value of each
 * other type: diff ends with 0, 1 or 2, never a signal, and a 2 names the
 * file. */
static const char *variants[] = { "\"x\"", "7", "{}", "[]", "true", "[7]", "[\"x\"]", "[{}]" };
#define NVARIANTS (int)(sizeof(variants) / sizeof(variants[0]))

struct sweep {
	json_object *doc;
	char good[128], mine[128];   /* path_of() reuses its buffers */
	const char *files[2];
	int runs, errors;
};

static void sweep_one(struct sweep *s, json_object *parent, const char *key, size_t idx,
		      const char *where)
{
	json_object *orig = key ? json_object_get(json_object_object_get(parent, key))
				: json_object_get(json_object_array_get_idx(parent, idx));
	for (int v = 0; v < NVARIANTS; v++) {
		json_object *nv = json_tokener_parse(variants[v]);
		if (orig && json_object_get_type(orig) == json_object_get_type(nv) &&
		    json_object_get_type(nv) != json_type_array) {
			json_object_put(nv);
			continue;
		}
		if (key)
			json_object_object_add(parent, key, nv);
		else
			json_object_array_put_idx(parent, idx, nv);
		save(s->doc, "sweep.json");
		struct outcome o = diff_here(2, s->files);
		s->runs++;
		if (o.rc > 2)
			fail_msg("%s = %s: exit %d", where, variants[v], o.rc);
		if (o.rc == 2) {
			if (getenv("SWEEP_DEBUG"))
				print_message("%s = %s: %s\n", where, variants[v], o.err);
			s->errors++;
			if (!strstr(o.err, "sweep.json"))
				fail_msg("%s = %s: error \"%s\" does not name the file", where, variants[v],
					 o.err);
		}
	}
	if (key)
		json_object_object_add(parent, key, orig);
	else
		json_object_array_put_idx(parent, idx, orig);
}

static void sweep_walk(struct sweep *s, json_object *o, const char *where, int depth)
{
	char w[256];
	if (depth > 6)
		return;
	if (json_object_is_type(o, json_type_object)) {
		/* keys first: replacing members while iterating is not allowed */
		const char *keys[128];
		int n = 0;
		json_object_object_foreach(o, k, v) {
			(void)v;
			if (n < 128)
				keys[n++] = k;
		}
		for (int i = 0; i < n; i++) {
			snprintf(w, sizeof(w), "%s.%s", where, keys[i]);
			sweep_one(s, o, keys[i], 0, w);
			sweep_walk(s, json_object_object_get(o, keys[i]), w, depth + 1);
		}
	} else if (json_object_is_type(o, json_type_array) && json_object_array_length(o)) {
		/* the first element stands for all of them */
		snprintf(w, sizeof(w), "%s[0]", where);
		sweep_one(s, o, NULL, 0, w);
		sweep_walk(s, json_object_array_get_idx(o, 0), w, depth + 1);
	}
}

static void test_wrong_type_sweep(void **state)
{
	(void)state;
	struct sweep s = { .doc = report("portdown", "gpu-sweep") };
	snprintf(s.good, sizeof(s.good), "%s", good());
	snprintf(s.mine, sizeof(s.mine), "%s", path_of("sweep.json"));
	s.files[0] = s.good;
	s.files[1] = s.mine;
	/* items is long and uniform: keep two, the rest adds nothing */
	json_object *items = json_object_object_get(s.doc, "items");
	json_object_array_del_idx(items, 2, json_object_array_length(items) - 2);
	sweep_walk(&s, s.doc, "$", 0);
	json_object_put(s.doc);
	print_message("wrong-type sweep: %d reports, %d refused with a message\n", s.runs, s.errors);
	assert_true(s.runs > 500);
	assert_true(s.errors > 0);
}

/* ---- not a report ------------------------------------------------------------ */

static void test_null_and_other_documents(void **state)
{
	(void)state;
	static const char *const docs[] = { "null", "[]", "42", "\"text\"", "true" };
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		const char *files[2] = { good(), save_text("notreport.json", docs[i]) };
		struct outcome o = run_diff(2, files, 10, NULL);
		expect_exit(&o, 2, docs[i]);
		expect_err(&o, files[1], "not a `mrtrace check --json` report");
	}
}

static void test_directory(void **state)
{
	(void)state;
	const char *files[2] = { good(), dir };
	struct outcome o = run_diff(2, files, 10, NULL);
	expect_exit(&o, 2, "a directory");
	expect_err(&o, dir, "is a directory");
}

static void test_device_refused(void **state)
{
	(void)state;
	const char *files[2] = { good(), "/dev/zero" };
	struct outcome o = run_diff(2, files, 10, NULL);
	expect_exit(&o, 2, "/dev/zero");
	expect_err(&o, "/dev/zero", "not a regular file");
	assert_true(o.secs < 5);
}

static void test_too_large_file(void **state)
{
	(void)state;
	const char *big = path_of("big.json");
	int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)DIFF_REPORT_MAX + 1), 0);   /* sparse */
	close(fd);
	const char *files[2] = { good(), big };
	struct outcome o = run_diff(2, files, 10, NULL);
	expect_exit(&o, 2, "a file over the limit");
	expect_err(&o, big, "too large");
}

/* An endless stream (a pipe that never ends) stops at the limit. */
static void test_endless_stream(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t w = fork();
	assert_true(w >= 0);
	if (w == 0) {
		close(p[0]);
		char chunk[65536];
		memset(chunk, ' ', sizeof(chunk));
		for (;;)
			if (write(p[1], chunk, sizeof(chunk)) < 0)
				_exit(0);
	}
	close(p[1]);
	char name[32];
	snprintf(name, sizeof(name), "/dev/fd/%d", p[0]);
	const char *files[2] = { good(), name };
	struct outcome o = run_diff(2, files, 20, NULL);
	close(p[0]);
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	expect_exit(&o, 2, "an endless pipe");
	expect_err(&o, name, "too large");
}

/* ---- naming ------------------------------------------------------------------ */

static void test_same_file_twice(void **state)
{
	(void)state;
	json_object *b = report("portdown", "gpu-b");
	const char *a = good(), *bp = save(b, "b.json");
	json_object_put(b);
	const char *three[3] = { a, a, bp };
	struct outcome o = run_diff(3, three, 10, NULL);
	expect_exit(&o, 1, "a, a, b");
	assert_non_null(strstr(o.out, "2 reports: gpu-ok gpu-b\n"));
	assert_null(strstr(o.out, "good.json)"));
	/* through another name for the same file */
	char alias[160];
	snprintf(alias, sizeof(alias), "%s/./good.json", dir);
	const char *two[2] = { a, alias };
	/* one report under two names does not differ from itself (as check's
	 * VM case has always asserted): said, compared once, exit 0 */
	o = run_diff(2, two, 10, NULL);
	expect_exit(&o, 0, "a and ./a");
	assert_non_null(strstr(o.out, "the same report, read once"));
	assert_non_null(strstr(o.out, "nothing to compare: no difference"));
}

static void test_stdin(void **state)
{
	(void)state;
	json_object *b = report("portdown", "gpu-stdin");
	const char *bp = save(b, "stdin.json");
	json_object_put(b);
	const char *files[2] = { good(), "-" };
	struct outcome o = run_diff(2, files, 10, bp);
	expect_exit(&o, 1, "diff good -");
	assert_non_null(strstr(o.out, "gpu-stdin"));
	/* an unreadable report on stdin is named as such */
	const char *bad = save_text("bad.json", "{");
	o = run_diff(2, files, 10, bad);
	expect_exit(&o, 2, "diff good - (bad)");
	expect_err(&o, "standard input", "not valid JSON");
}

/* ---- size: the comparison must be linear ----------------------------------- */

static const char *many_items(const char *file, const char *host, int n, int odd)
{
	const char *p = path_of(file);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "{\"schema\":\"mrtrace-check/1\",\"host\":{\"hostname\":\"%s\",\"kernel\":\"6.1\"},"
		   "\"items\":[", host);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s{\"id\":\"x.item%d\",\"area\":\"x\",\"title\":\"t%d\",\"verdict\":\"%s\"}",
			i ? "," : "", i, i, i == odd ? "fail" : "ok");
	fprintf(f, "]}\n");
	fclose(f);
	return p;
}

/* Linear, measured as a ratio in one run (no absolute time: the sanitizer
 * build and a loaded machine are several times slower): four times the
 * items must take well under sixteen times as long, the quadratic
 * comparison's factor (it took ~50 s for 60000 items).  The faster of two
 * runs of each size; the alarm only catches a hang. */
static double diff_secs(int n, const char *tag)
{
	char a[32], b[32];
	snprintf(a, sizeof(a), "%s-a.json", tag);
	snprintf(b, sizeof(b), "%s-b.json", tag);
	const char *files[2] = { many_items(a, "big-a", n, -1), many_items(b, "big-b", n, n / 2) };
	double best = 1e9;
	for (int i = 0; i < 2; i++) {
		struct outcome o = run_diff(2, files, 600, NULL);
		char want[64];
		expect_exit(&o, 1, "two reports of many items");
		snprintf(want, sizeof(want), "x t%d (verdict)", n / 2);
		assert_non_null(strstr(o.out, want));
		best = o.secs < best ? o.secs : best;
	}
	return best;
}

static void test_many_items_linear(void **state)
{
	(void)state;
	enum { N = 60000 };
	double small = diff_secs(N / 4, "quarter"), big = diff_secs(N, "full");
	print_message("%d items x 2 reports: %.2f s, %d items: %.2f s (ratio %.1f)\n", N, big,
		      N / 4, small, big / small);
	if (big / small >= 10.0)
		fail_msg("4x the items took %.1fx as long (%.2f s vs %.2f s): not linear", big / small,
			 big, small);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-diffh-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrong_type_is_a_message),
		cmocka_unit_test(test_wrong_type_sweep),
		cmocka_unit_test(test_null_and_other_documents),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_device_refused),
		cmocka_unit_test(test_too_large_file),
		cmocka_unit_test(test_endless_stream),
		cmocka_unit_test(test_same_file_twice),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_many_items_linear),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
