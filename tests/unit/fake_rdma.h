/* SPDX-License-Identifier: GPL-2.0-only */
/* fake_rdma.h - a stand-in `rdma` (iproute2) first in PATH for the unit
 * tests of what runs it (proc/rdmares*.c, proc/gates.c): it appends its
 * arguments as a line to DIR/runs, then runs BODY (a shell command), so a
 * test knows how often the tool ran and what it answered. */
#ifndef MRTRACE_TESTS_FAKE_RDMA_H
#define MRTRACE_TESTS_FAKE_RDMA_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* DIR (len bytes, made here) holds the tool; PATH starts with it. */
static inline void fake_rdma(char *dir, size_t len, const char *body)
{
	char path[PATH_MAX];
	static char env[PATH_MAX + 4096];

	snprintf(dir, len, "/tmp/mrt-rdma-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rdma", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$*\" >> %s/runs\n%s\n", dir, body);
	fclose(f);
	chmod(path, 0755);
	snprintf(env, sizeof(env), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", env, 1);
}

/* How many times the tool has run. */
static inline int fake_rdma_runs(const char *dir)
{
	char path[PATH_MAX], line[128];
	int n = 0;

	snprintf(path, sizeof(path), "%s/runs", dir);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static inline void fake_rdma_gone(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

#endif
