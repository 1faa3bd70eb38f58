// SPDX-License-Identifier: GPL-2.0-only
/* test_jobfile.c - mrtrace runs as root and reads files a job names: its
 * NCCL_CONF_FILE, its ~/.nccl.conf, its /etc/nccl.conf.  A live job (a child
 * that drops to uid 65534, some chrooted) points them at what an unprivileged
 * user could use against root: a FIFO (stalls watch, hangs check), a
 * root-only file (a leak, and wrong: the job cannot read it), a symlink or
 * ".." that leads out of the job's root.  None of it may be read.
 * Needs root (skipped otherwise). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nccl/nccl.h"
#include "proc/context.h"

static char dir[64];        /* mode 0755: the job can walk into it */
static char jroot[128];     /* a root for chrooted jobs */
static pid_t jobs[8];       /* killed even when a test fails half-way */
static int njobs;

static void reap_jobs(void)
{
	for (int i = 0; i < njobs; i++) {
		kill(jobs[i], SIGKILL);
		waitpid(jobs[i], NULL, 0);
	}
	njobs = 0;
}

/* A read that blocks (a FIFO) ends the binary with a message, its jobs
 * killed: run.sh counts the missing summary as a failure. */
static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "test_jobfile: reading a job's file blocked (a FIFO?)\n";
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(3);
	for (int i = 0; i < njobs; i++)
		kill(jobs[i], SIGKILL);
	_exit(2);
}

/* A job: uid/gid 65534, optionally chrooted, with its working directory;
 * waits to be killed.  Returns once it runs with those credentials. */
static pid_t job(const char *chroot_to, const char *cwd)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (chroot_to && chroot(chroot_to))
			_exit(1);
		if (chdir(cwd ? cwd : "/") || setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	jobs[njobs++] = pid;
	char c;
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void end(pid_t pid)
{
	(void)pid;
	reap_jobs();
}

/* The settings mrtrace sees for the job, with NCCL_CONF_FILE=conf. */
static struct nccl_settings *settings(pid_t pid, const char *conf)
{
	struct ctx_env env = { 0 };
	if (conf) {
		env.n = 1;
		snprintf(env.vars[0].name, sizeof(env.vars[0].name), "NCCL_CONF_FILE");
		snprintf(env.vars[0].value, sizeof(env.vars[0].value), "%s", conf);
	}
	struct nccl_settings *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	alarm(10);   /* a FIFO opened for reading blocks until a writer comes */
	assert_int_equal(nccl_settings_read("/", pid, &env, 65534, s), 0);
	alarm(0);
	return s;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void test_root_only_conf_not_read(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* jobs of another uid, chroot */
	reap_jobs();
	char conf[160], open_conf[160];
	snprintf(conf, sizeof(conf), "%s/secret.conf", dir);
	write_file(conf, "NCCL_SECRET_TOKEN=hunter2\n", 0600);
	snprintf(open_conf, sizeof(open_conf), "%s/open.conf", dir);
	write_file(open_conf, "NCCL_DEBUG=INFO\n", 0644);
	pid_t pid = job(NULL, NULL);
	struct nccl_settings *s = settings(pid, conf);
	if (nccl_setting_get(s, "NCCL_SECRET_TOKEN"))
		fail_msg("a root-only NCCL_CONF_FILE was read for a uid-65534 job");
	assert_false(s->conf_file_read);
	/* and the lint says why NCCL will not apply it */
	struct nccl_lint l;
	nccl_lint_settings(s, &l);
	bool said = false;
	for (int i = 0; i < l.n; i++)
		said |= !strcmp(l.f[i].name, "NCCL_CONF_FILE") &&
			strstr(l.f[i].message, "the process cannot read it") != NULL;
	assert_true(said);
	free(s);
	/* the same job's readable file is read */
	s = settings(pid, open_conf);
	assert_true(s->conf_file_read);
	assert_non_null(nccl_setting_get(s, "NCCL_DEBUG"));
	free(s);
	end(pid);
}

static void test_fifo_conf_does_not_block(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* jobs of another uid, chroot */
	reap_jobs();
	char fifo[160];
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(chmod(fifo, 0666), 0);
	pid_t pid = job(NULL, NULL);
	struct nccl_settings *s = settings(pid, fifo);   /* SIGALRM ends a hang */
	assert_false(s->conf_file_read);
	free(s);
	end(pid);
}

/* /etc/nccl.conf inside the job's root is an absolute symlink: for the job
 * it names a file in its root (absent), not the host's. */
static void test_symlink_stays_in_root(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* jobs of another uid, chroot */
	reap_jobs();
	char outside[160], link[200], etc[160];
	snprintf(outside, sizeof(outside), "%s/host.conf", dir);
	write_file(outside, "NCCL_HOST_ONLY=1\n", 0644);
	snprintf(etc, sizeof(etc), "%s/etc", jroot);
	mkdir(etc, 0755);
	snprintf(link, sizeof(link), "%s/nccl.conf", etc);
	unlink(link);
	assert_int_equal(symlink(outside, link), 0);
	pid_t pid = job(jroot, "/");
	struct nccl_settings *s = settings(pid, NULL);
	if (nccl_setting_get(s, "NCCL_HOST_ONLY"))
		fail_msg("/etc/nccl.conf -> %s was followed outside the job's root", outside);
	free(s);
	/* a relative NCCL_CONF_FILE climbing out of the root with ".." */
	char climb[200];
	snprintf(climb, sizeof(climb), "../../../../../../..%s", outside);
	s = settings(pid, climb);
	if (nccl_setting_get(s, "NCCL_HOST_ONLY"))
		fail_msg("NCCL_CONF_FILE=%s left the job's root", climb);
	free(s);
	end(pid);
}

/* What the job can read inside its root is read, relative names from its
 * working directory. */
static void test_job_view(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* jobs of another uid, chroot */
	reap_jobs();
	char p[200];
	snprintf(p, sizeof(p), "%s/work", jroot);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/work/job.conf", jroot);
	write_file(p, "NCCL_IB_HCA=mlx5_0\n", 0644);
	pid_t pid = job(jroot, "/work");
	struct nccl_settings *s = settings(pid, "job.conf");
	assert_true(s->conf_file_read);
	assert_non_null(nccl_setting_get(s, "NCCL_IB_HCA"));
	free(s);
	s = settings(pid, "/work/job.conf");
	assert_true(s->conf_file_read);
	free(s);
	end(pid);
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	signal(SIGALRM, on_alarm);
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-job-XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755))
		return -1;
	snprintf(jroot, sizeof(jroot), "%s/jroot", dir);
	return mkdir(jroot, 0755);
}

static int teardown(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	reap_jobs();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_only_conf_not_read),
		cmocka_unit_test(test_fifo_conf_does_not_block),
		cmocka_unit_test(test_symlink_stays_in_root),
		cmocka_unit_test(test_job_view),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
