/* SPDX-License-Identifier: GPL-2.0-only */
/* fixture_path.h - where the unit tests' fixture trees are: beside the
 * sources, found from the test binary (build/tests/test_x -> ../../tests/
 * fixtures) or, failing that, from the current directory (make runs the
 * tests from the repository root). */
#ifndef MRTRACE_FIXTURE_PATH_H
#define MRTRACE_FIXTURE_PATH_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* "tests/fixtures/<kind>/<name>" as a usable path; static buffer. */
static inline const char *fixture_path(const char *kind, const char *name)
{
	static char path[PATH_MAX + 128];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/../../tests/fixtures/%s/%s", exe, kind, name);
			if (access(path, F_OK) == 0)
				return path;
		}
	}
	snprintf(path, sizeof(path), "tests/fixtures/%s/%s", kind, name);
	return path;
}

#endif
