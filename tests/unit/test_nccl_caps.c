// SPDX-License-Identifier: GPL-2.0-only
/* test_nccl_caps.c - no silent caps on what a job controls: a job with many
 * NCCL_* variables still has the one the lint exists for linted, a lint
 * with many findings says how many it could not list, and the lint learns
 * from the library the job mapped which variables that NCCL reads (a name
 * it reads is never "unknown" or a typo; a known name it does not read is
 * "ignored by this version").  Live child processes stand in for jobs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nccl/nccl.h"
#include "proc/context.h"

static char dir[64];

/* A job with this environment that maps lib (NULL: nothing); waits.  The
 * environment /proc/PID/environ shows is the one given to exec, so the job
 * is this binary again ("--map LIB", see main). */
static pid_t job(char **envp, const char *lib)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { "test_nccl_caps", "--map", (char *)(lib ? lib : "-"), NULL };
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	/* ready when exec has put the environment in place (and the mapping) */
	char path[64], buf[65536];
	for (int i = 0; i < 200; i++) {
		bool ready = true;
		snprintf(path, sizeof(path), "/proc/%d/environ", pid);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		ready &= n >= strlen(envp[0]) && !memcmp(buf, envp[0], strlen(envp[0]));
		if (lib) {
			snprintf(path, sizeof(path), "/proc/%d/maps", pid);
			f = fopen(path, "r");
			n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
			if (f)
				fclose(f);
			buf[n] = '\0';
			ready &= strstr(buf, "libnccl") != NULL;
		}
		if (ready)
			break;
		usleep(20000);
	}
	return pid;
}

static void end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static const struct nccl_lint_finding *finding(const struct nccl_lint *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].name, name))
			return &l->f[i];
	return NULL;
}

static struct nccl_info *info_of(pid_t pid)
{
	struct proc_context *c = calloc(1, sizeof(*c));
	struct nccl_info *n = calloc(1, sizeof(*n));
	assert_non_null(c);
	assert_non_null(n);
	assert_int_equal(proc_context_read("/", pid, c), 0);
	assert_int_equal(nccl_info_read("/", c, n), 0);
	free(c);
	return n;
}

/* 100 NCCL_* variables; the dangerous one is the last in the environment. */
static void test_many_variables_keep_the_dangerous_one(void **state)
{
	(void)state;
	static char vars[101][48];
	char *envp[102];
	for (int i = 0; i < 100; i++) {
		snprintf(vars[i], sizeof(vars[i]), "NCCL_DEBUG_SUBSYS_X%03d=1", i);
		envp[i] = vars[i];
	}
	snprintf(vars[100], sizeof(vars[100]), "NCCL_IB_DISABLE_GDR=1");
	envp[100] = vars[100];
	envp[101] = NULL;
	pid_t pid = job(envp, NULL);
	struct nccl_info *n = info_of(pid);
	end(pid);
	const struct nccl_lint_finding *f = finding(&n->lint, "NCCL_IB_DISABLE_GDR");
	if (!f || f->kind != NCCL_LINT_NONEXISTENT)
		fail_msg("NCCL_IB_DISABLE_GDR (variable 101 of the job) was not linted: %d settings "
			 "kept, %d findings", n->settings.n, n->lint.n);
	free(n);
}

/* More findings than the lint holds: the last one says how many more. */
static void test_lint_overflow_is_said(void **state)
{
	(void)state;
	struct nccl_settings *s = calloc(1, sizeof(*s));
	struct nccl_lint *l = calloc(1, sizeof(*l));
	char *text = malloc(1 << 20);
	assert_non_null(text);
	size_t off = 0;
	for (int i = 0; i < 1000; i++)
		off += (size_t)sprintf(text + off, "NCCL_ZZ_UNKNOWN_%04d=1\n", i);
	nccl_settings_apply_conf(s, text, NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf");
	nccl_lint_settings(s, l);
	bool said = false;
	for (int i = 0; i < l->n; i++)
		said |= strstr(l->f[i].message, "not listed") != NULL ||
			strstr(l->f[i].message, "not examined") != NULL;
	if (!said)
		fail_msg("1000 settings, %d kept, %d findings, and nothing says what was dropped",
			 s->n, l->n);
	free(text);
	free(s);
	free(l);
}

/* The library the job mapped reads NCCL_BRAND_NEW_KNOB (newer than
 * mrtrace's list) and not NCCL_P2P_LEVEL. */
static void test_lint_learns_from_the_library(void **state)
{
	(void)state;
	char lib[128];
	snprintf(lib, sizeof(lib), "%s/libnccl.so.2", dir);
	FILE *f = fopen(lib, "w");
	assert_non_null(f);
	static const char blob[] = "padding\0NCCL version 2.18.3+cuda12.2\0NCCL_IB_HCA\0NCCL_DEBUG\0"
				   "NCCL_BRAND_NEW_KNOB\0NCCL_BUFFSIZE\0NCCL_IB_GID_INDEX\0"
				   "NCCL_SOCKET_IFNAME\0NCCL_NET_GDR_LEVEL\0NCCL_ALGO\0NCCL_PROTO\0"
				   "NCCL_MAX_NCHANNELS\0NCCL_MIN_NCHANNELS\0NCCL_IB_TIMEOUT\0"
				   "not NCCL_IN_TEXT here\0NCCL_%s\0tail";
	fwrite(blob, 1, sizeof(blob), f);
	fclose(f);
	char *envp[] = { "NCCL_BRAND_NEW_KNOB=1", "NCCL_P2P_LEVEL=NVL", "NCCL_IB_HCA=mlx5_0",
			 "NCCL_DEBUGG=INFO", NULL };
	pid_t pid = job(envp, lib);
	struct nccl_info *n = info_of(pid);
	end(pid);
	assert_true(n->lib.found);
	assert_string_equal(n->lib.version, "2.18.3");
	const struct nccl_lint_finding *brand = finding(&n->lint, "NCCL_BRAND_NEW_KNOB");
	if (brand)
		fail_msg("NCCL_BRAND_NEW_KNOB is read by the mapped NCCL, yet: %s", brand->message);
	const struct nccl_lint_finding *p2p = finding(&n->lint, "NCCL_P2P_LEVEL");
	if (!p2p || !strstr(p2p->message, "not read by NCCL 2.18.3"))
		fail_msg("NCCL_P2P_LEVEL is not in the mapped 2.18.3: %s", p2p ? p2p->message : "(no finding)");
	assert_null(finding(&n->lint, "NCCL_IB_HCA"));
	const struct nccl_lint_finding *typo = finding(&n->lint, "NCCL_DEBUGG");
	assert_non_null(typo);
	assert_int_equal(typo->kind, NCCL_LINT_TYPO);
	free(n);
}

/* Names at the length limit: one of 63 bytes is collected, a longer one is
 * not (the fuzzer found a one-byte overflow of the name buffer there). */
static void test_long_names(void **state)
{
	(void)state;
	char blob[256];
	size_t n = 0;
	blob[n++] = '\0';
	memcpy(blob + n, "NCCL_", 5), n += 5;
	memset(blob + n, 'A', 58), n += 58;   /* 63 bytes */
	blob[n++] = '\0';
	memcpy(blob + n, "NCCL_", 5), n += 5;
	memset(blob + n, 'B', 59), n += 59;   /* 64 bytes: too long */
	blob[n++] = '\0';
	int fd = memfd_create("libnccl.so.2", 0);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, blob, n), (ssize_t)n);
	struct nccl_lib *lib = calloc(1, sizeof(*lib));
	nccl_version_scan_fd(fd, lib);
	close(fd);
	assert_int_equal(lib->n_names, 1);
	assert_int_equal(strlen(lib->names), 63);
	free(lib);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-caps-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--map")) {
		int fd = strcmp(argv[2], "-") ? open(argv[2], O_RDONLY) : -1;
		if (fd >= 0 && mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		pause();
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_variables_keep_the_dangerous_one),
		cmocka_unit_test(test_lint_overflow_is_said),
		cmocka_unit_test(test_lint_learns_from_the_library),
		cmocka_unit_test(test_long_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
