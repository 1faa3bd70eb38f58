/* SPDX-License-Identifier: GPL-2.0-only */
/* host_libibverbs.h - the machine's own libibverbs.so.1, for the unit tests
 * that read a real one (its symbols, its build id): Debian's multiarch paths
 * and the lib64 one; NULL where none is installed (the test skips). */
#ifndef MRTRACE_HOST_LIBIBVERBS_H
#define MRTRACE_HOST_LIBIBVERBS_H

#include <stddef.h>
#include <unistd.h>

static inline const char *host_libibverbs(void)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/libibverbs.so.1",
		"/usr/lib/aarch64-linux-gnu/libibverbs.so.1",
		"/usr/lib64/libibverbs.so.1",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], R_OK))
			return paths[i];
	return NULL;
}

#endif
