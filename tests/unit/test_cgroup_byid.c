// SPDX-License-Identifier: GPL-2.0-only
/* test_cgroup_byid.c - an exited process's cgroup by id is bounded (issue
 * 47 item 4, proc/cgroup_byid.c): in a tree of 50,000 cgroups on tmpfs (a
 * delegated subtree a user can make), a lookup opens at most
 * CGROUP_BYID_MAX_DIRS directories, is counted as cut, and takes a
 * fraction of what the unbounded walk took (1.1-1.3 s each on cgroupfs);
 * the answer is kept by id, so the next record of the process costs no
 * walk; a cgroup within the bound is still found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc/cgroup_byid.h"
#include "proc/context.h"

#define WIDE 50000

static char tree[64];

/* This thread's CPU time, user and system (the walk's getdents and opens
 * are system time): a machine loaded by other work (make test's other
 * lane, a VM beside it) preempts the thread, which wall time counted and
 * made the comparisons below fail now and then (a helper's unit run at
 * load 10, 2026-12-07); the work done is what they compare. */
static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t ino_of(const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup%s", tree, rel);
	assert_int_equal(stat(p, &st), 0);
	return (uint64_t)st.st_ino;
}

static void mkd(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup%s", tree, rel);
	if (mkdir(p, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", p, strerror(errno));
}

static int setup(void **state)
{
	(void)state;
	/* tmpfs, as cgroupfs is memory: the cost is the walk, not a disk */
	snprintf(tree, sizeof(tree), "/dev/shm/mrt-cgbyid-XXXXXX");
	if (!mkdtemp(tree))
		return -1;
	char p[512];
	snprintf(p, sizeof(p), "%s/sys", tree), mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/fs", tree), mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup", tree), mkdir(p, 0755);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

static void found_within_the_bound(void **state)
{
	char rel[512];
	(void)state;
	cgroup_byid_forget();
	mkd("/system.slice");
	mkd("/system.slice/slurmstepd.scope");
	mkd("/system.slice/slurmstepd.scope/job_12");
	mkd("/system.slice/slurmstepd.scope/job_12/step_0");
	uint64_t id = ino_of("/system.slice/slurmstepd.scope/job_12/step_0");
	assert_int_equal(proc_cgroup_path_by_id(tree, id, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "/system.slice/slurmstepd.scope/job_12/step_0");
	/* kept: the same answer without a walk */
	rel[0] = '\0';
	assert_int_equal(proc_cgroup_path_by_id(tree, id, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "/system.slice/slurmstepd.scope/job_12/step_0");
	struct cgroup_byid_stats st;
	cgroup_byid_stats(&st);
	assert_int_equal(st.walks, 1);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.cut, 0);
	/* an id that is nowhere: not found, not cut */
	assert_int_equal(proc_cgroup_path_by_id(tree, 1, rel, sizeof(rel)), -ENOENT);
	cgroup_byid_stats(&st);
	assert_int_equal(st.cut, 0);
}

static void fifty_thousand_cgroups_are_cut_and_counted(void **state)
{
	char rel[512], name[64];
	(void)state;
	cgroup_byid_forget();
	double t0 = now_s();
	mkd("/user.slice");
	mkd("/user.slice/deleg");
	for (int i = 0; i < WIDE; i++) {
		snprintf(name, sizeof(name), "/user.slice/deleg/d%05d", i);
		mkd(name);
	}
	/* the exited process's cgroup, in the middle of the 50,000 in any
	 * readdir order */
	mkd("/user.slice/deleg/d25000/rank");
	uint64_t id = ino_of("/user.slice/deleg/d25000/rank");
	print_message("made %d cgroups in %.2f s\n", WIDE, now_s() - t0);

	t0 = now_s();
	int rc = proc_cgroup_path_by_id(tree, id, rel, sizeof(rel));
	double first = now_s() - t0;
	t0 = now_s();
	int rc2 = proc_cgroup_path_by_id(tree, id, rel, sizeof(rel));
	double again = now_s() - t0;
	struct cgroup_byid_stats st;
	cgroup_byid_stats(&st);
	print_message("bounded lookup %.4f s, kept answer %.6f s; walks %llu hits %llu cut %llu\n",
		      first, again, st.walks, st.hits, st.cut);
	assert_int_equal(rc, -E2BIG);
	assert_int_equal(rc2, -E2BIG);
	assert_string_equal(rel, "");
	assert_int_equal(st.walks, 1);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.cut, 1);
	/* the kept answer costs no walk */
	assert_true(again < 0.005);

	/* the walk alone, counted in directories: the bound is the bound */
	char base_p[512];
	snprintf(base_p, sizeof(base_p), "%s/sys/fs/cgroup", tree);
	int base = open(base_p, O_RDONLY | O_DIRECTORY);
	assert_true(base >= 0);
	t0 = now_s();
	assert_int_equal(cgroup_byid_walk(base, id, WIDE + 10, rel, sizeof(rel)), 0);
	double whole = now_s() - t0;
	print_message("the same lookup without the bound (as before): %.4f s\n", whole);
	assert_string_equal(rel, "/user.slice/deleg/d25000/rank");
	/* 4,096 of the 25,000 or so directories before it: timed against the
	 * unbounded walk of the same tree on the same machine (a loaded
	 * machine slows both), and never near the second it took on cgroupfs
	 * with a machine to itself */
	assert_true(first * 2 < whole);
	assert_true(first < 5.0);
	assert_int_equal(cgroup_byid_walk(base, id, 100, rel, sizeof(rel)), -E2BIG);
	close(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(found_within_the_bound),
		cmocka_unit_test(fifty_thousand_cgroups_are_cut_and_counted),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
