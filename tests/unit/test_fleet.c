// SPDX-License-Identifier: GPL-2.0-only
/* test_fleet.c - the node-service pieces that need no kernel: the
 * configuration file as options, pod names from a kubelet tree, the health
 * line, journald's native encoding, Prometheus text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fleet.h"
#include "core/config.h"
#include "core/promtext.h"
#include "proc/k8s.h"
#include "record/record.h"
#include "watch/journal.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- configuration ------------------------------------------------------------- */

static int k_seen;
static error_t noop_parse(int key, char *arg, struct argp_state *s)
{
	(void)arg;
	(void)s;
	k_seen += key == 'x';
	return 0;
}
static const struct argp_option opts[] = {
	{ "syscalls", 1, "WHEN", 0, "", 0 },
	{ "json", 2, NULL, 0, "", 0 },
	{ "output", 'o', "FILE", 0, "", 0 },
	{ 0 },
};
static const struct argp test_argp = { opts, noop_parse, NULL, NULL, NULL, NULL, NULL };

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/mrt-test-conf.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_config_parse(void **state)
{
	(void)state;
	struct mrt_config c = { 0 };
	char err[256];
	assert_int_equal(cfg_parse_text("# c\n[watch]\n syscalls = on \njson=yes\n[check]\n"
					"min-memlock = \"64M\"\n", "t.conf", &c, err, sizeof(err)), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(cfg_get(&c, "watch", "syscalls"), "on");
	assert_string_equal(cfg_get(&c, "check", "min-memlock"), "64M");
	assert_null(cfg_get(&c, "check", "syscalls"));
	cfg_free(&c);
	assert_int_equal(cfg_parse_text("key = v\n", "t.conf", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t.conf:1"));
	cfg_free(&c);
	assert_int_equal(cfg_parse_text("[watch]\nnovalue\n", "t.conf", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t.conf:2"));
	cfg_free(&c);
	/* issue 31: a misspelt section is an error at its line, not skipped */
	assert_int_equal(cfg_parse_text("[watch]\njson = yes\n[wach]\nsyscalls = on\n", "t.conf", &c,
					err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t.conf:3: unknown section [wach]"));
	cfg_free(&c);
}

/* A value from the file is traced back to its file:line (cfg_argp_error). */
static void test_config_arg_source(void **state)
{
	(void)state;
	char *path = write_tmp("# c\n[watch]\n\nsyscalls = maybe\n");
	char arg[80], want[96];
	snprintf(arg, sizeof(arg), "--config=%s", path);
	char *argv0[] = { "watch", arg, "--syscalls=off", NULL };
	int argc = 3;
	char **argv = argv0;
	static const char *const secs[] = { "watch", NULL };
	char err[256];
	assert_int_equal(cfg_apply_args(&test_argp, secs, NULL, &argc, &argv, err, sizeof(err)), 0);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[1], "--syscalls=maybe");
	snprintf(want, sizeof(want), "%s:4", path);
	assert_non_null(cfg_arg_source(argv[1]));
	assert_string_equal(cfg_arg_source(argv[1]), want);
	assert_null(cfg_arg_source(argv[2]));   /* typed: no source */
	cfg_args_release();
	unlink(path);
}

static void test_config_args_order(void **state)
{
	(void)state;
	char *path = write_tmp("[watch]\nsyscalls = on\njson = no\n[service]\noutput = /x\njson = yes\n");
	char arg[80];
	snprintf(arg, sizeof(arg), "--config=%s", path);
	char *argv0[] = { "watch", arg, "--syscalls=off", "--", "cmd", "--config=z", NULL };
	int argc = 6;
	char **argv = argv0;
	static const char *const secs[] = { "watch", "service", NULL };
	static const struct cfg_default defs[] = { { "output", "/default" }, { NULL, NULL } };
	char err[256];
	assert_int_equal(cfg_apply_args(&test_argp, secs, defs, &argc, &argv, err, sizeof(err)), 0);
	/* defaults < [watch] < [service] < command line; --config consumed,
	 * the traced command's own arguments untouched */
	assert_int_equal(argc, 8);
	assert_string_equal(argv[0], "watch");
	assert_string_equal(argv[1], "--output=/x");
	assert_string_equal(argv[2], "--syscalls=on");
	assert_string_equal(argv[3], "--json");
	assert_string_equal(argv[4], "--syscalls=off");
	assert_string_equal(argv[5], "--");
	assert_string_equal(argv[7], "--config=z");
	cfg_args_release();
	unlink(path);
}

static void test_config_unknown_key(void **state)
{
	(void)state;
	char *path = write_tmp("[watch]\nsyscals = on\n");
	char arg[80];
	snprintf(arg, sizeof(arg), "--config=%s", path);
	char *argv0[] = { "watch", arg, NULL };
	int argc = 2;
	char **argv = argv0;
	static const char *const secs[] = { "watch", NULL };
	char err[256];
	assert_int_equal(cfg_apply_args(&test_argp, secs, NULL, &argc, &argv, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: 'syscals' is not an option"));
	unlink(path);
}

static void test_config_bytes(void **state)
{
	(void)state;
	unsigned long long b;
	assert_int_equal(cfg_parse_bytes("64M", &b), 0);
	assert_int_equal(b, 64ULL << 20);
	assert_int_equal(cfg_parse_bytes("1GiB", &b), 0);
	assert_int_equal(b, 1ULL << 30);
	assert_int_equal(cfg_parse_bytes("unlimited", &b), 0);
	assert_int_equal(b, UINT64_MAX);
	assert_int_equal(cfg_parse_bytes("12Q", &b), -1);
}

/* ---- Kubernetes names ------------------------------------------------------------ */

static void test_k8s_names(void **state)
{
	(void)state;
	const char *root = fixture_path("k8s", "");
	struct k8s_names n;
	/* the container told apart by its id (the pod has two) */
	assert_int_equal(k8s_names_lookup(root, "3f7c2a1e-8b4d-4e6f-9a0b-1c2d3e4f5a6b",
					  "9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e", &n),
			 0);
	assert_string_equal(n.ns, "ml-team");
	assert_string_equal(n.pod, "trainer-0");
	assert_string_equal(n.container, "nccl");
	/* the systemd cgroup driver's underscores; no container id: two
	 * containers, so none is named */
	assert_int_equal(k8s_names_lookup(root, "3f7c2a1e_8b4d_4e6f_9a0b_1c2d3e4f5a6b", "", &n), 0);
	assert_string_equal(n.pod, "trainer-0");
	assert_string_equal(n.container, "");
	/* a pod with one container names it without an id */
	assert_int_equal(k8s_names_lookup(root, "0c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5", NULL, &n), 0);
	assert_string_equal(n.pod, "trainer-1");
	assert_string_equal(n.container, "nccl");
	assert_int_equal(k8s_names_lookup(root, "00000000-0000-0000-0000-000000000000", "", &n), -ENOENT);
}

/* ---- health line ------------------------------------------------------------------- */

static void health_of(const char *tree, enum chk_health want, const char *word)
{
	struct chk_options o = { .root = fixture_path("check", tree) };
	struct chk_report r;
	struct chk_health_opts h = { .min_memlock = 64ULL << 20 };
	char line[CHK_HEALTH_LINE_MAX + 1];
	assert_int_equal(chk_run(&o, &r), 0);
	assert_int_equal(chk_health_judge(&r, &h, line, sizeof(line)), want);
	assert_true(strlen(line) <= CHK_HEALTH_LINE_MAX);
	assert_null(strchr(line, '\n'));
	if (!strstr(line, word))
		fail_msg("%s: '%s' lacks '%s'", tree, line, word);
	/* ignoring the failing items makes the node pass */
	snprintf(h.ignore, sizeof(h.ignore), "rdma.*,hugepages.*,iommu.*,topology.*,memlock.*");
	assert_int_equal(chk_health_judge(&r, &h, line, sizeof(line)), CHK_HEALTH_OK);
	chk_report_free(&r);
}

static void test_health_lines(void **state)
{
	(void)state;
	health_of("container", CHK_HEALTH_FAIL, "uverbs0 missing");
	health_of("portdown", CHK_HEALTH_FAIL, "port 1: DOWN");
	health_of("h100", CHK_HEALTH_OK, "OK");
}

/* ---- journald native encoding -------------------------------------------------- */

static void test_journal_encoding(void **state)
{
	(void)state;
	struct journal_entry e = { 0 };
	journal_add(&e, "A", "one");
	journal_add(&e, "MESSAGE", "two\nlines");
	static const char want[] = "A=one\nMESSAGE\n\x09\0\0\0\0\0\0\0two\nlines\n";
	assert_int_equal(e.len, sizeof(want) - 1);
	assert_memory_equal(e.buf, want, sizeof(want) - 1);
	free(e.buf);
}

/* The entry of each explained kind, as journald would receive it: the
 * kind names MRTRACE_EVENT and MESSAGE_ID as the JSON stream names the
 * record (a "failure" record was journaled as reg_failure once). */
static char *journal_entry_of(const struct mrt_event *ev)
{
	static struct report r;
	static char buf[65536];
	char path[108];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct record rec;

	snprintf(path, sizeof(path), "/tmp/mrtrace-test-journal.%d", (int)getpid());
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	record_explain(&r, ev, NULL, NULL, NULL, NULL);
	record_of_report(&rec, &r, 0);
	assert_int_equal(journal_report(path, &rec), 0);
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++) /* the length-prefixed MESSAGE holds NULs */
		if (!buf[i])
			buf[i] = ' ';
	close(fd);
	unlink(path);
	return buf;
}

static void test_journal_event_per_kind(void **state)
{
	(void)state;
	static struct mrt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_FAILURE;
	ev.op = MRT_OP_CREATE_CQ;
	ev.err = 22;
	ev.pid = ev.tid = 77;
	char *e = journal_entry_of(&ev);
	if (!strstr(e, "\nMRTRACE_EVENT=failure\n"))
		fail_msg("a failure record's entry: %s", e);
	if (!strstr(e, "\nMESSAGE_ID=6b1d4f2e8a3c4d9b9e7f1a2c3d4e5f60\n"))
		fail_msg("a failure record's MESSAGE_ID: %s", e);
	ev.kind = MRT_EV_MLOCK_FAILURE;
	ev.op = 0;
	ev.err = 12;
	e = journal_entry_of(&ev);
	if (!strstr(e, "\nMRTRACE_EVENT=mlock_failure\n") || !strstr(e, "\nPRIORITY=4\n") ||
	    !strstr(e, "\nMESSAGE_ID=5a0e3c8f1b7d4e2a9c6f0d1e2b3a4c5d\n"))
		fail_msg("an mlock record's entry: %s", e);
	ev.kind = MRT_EV_REG_FAILURE;
	e = journal_entry_of(&ev);
	if (!strstr(e, "\nMRTRACE_EVENT=reg_failure\n") || !strstr(e, "\nPRIORITY=3\n") ||
	    !strstr(e, "\nMESSAGE_ID=8f2c6d1a9e4b4f7c8d3e5a6b7c0d1e2f\n"))
		fail_msg("a registration record's entry: %s", e);
}

/* ---- Prometheus text -------------------------------------------------------------- */

static void test_prom_text(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	prom_family(f, "m", "gauge", "help");
	prom_sample(f, "m", (const char *const[]){ "a", "q\"b\\", NULL }, 3);
	prom_sample(f, "m", NULL, 1.0 / 0.0);
	prom_sample(f, "m", NULL, 0.5);
	fclose(f);
	assert_string_equal(text, "# HELP m help\n# TYPE m gauge\nm{a=\"q\\\"b\\\\\"} 3\nm +Inf\nm 0.5\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_parse),
		cmocka_unit_test(test_config_args_order),
		cmocka_unit_test(test_config_unknown_key),
		cmocka_unit_test(test_config_arg_source),
		cmocka_unit_test(test_config_bytes),
		cmocka_unit_test(test_k8s_names),
		cmocka_unit_test(test_health_lines),
		cmocka_unit_test(test_journal_encoding),
		cmocka_unit_test(test_journal_event_per_kind),
		cmocka_unit_test(test_prom_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
