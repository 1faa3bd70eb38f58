// SPDX-License-Identifier: GPL-2.0-only
/* procfs.c - paths under a root (live "/" or a recorded tree) and bounded
 * reads of small files (see procfs.h). */
#include "core/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int procfs_path(char *buf, size_t len, const char *root, int pid, const char *rel)
{
	if (!root || !*root)
		root = "/";
	size_t rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1 && root[0] == '/')
		rl = 0;		/* "/" + "/proc" must not become "//proc" */
	int n;
	if (pid >= 0)
		n = snprintf(buf, len, "%.*s/proc/%d%s%s", (int)rl, root, pid,
			     rel && *rel ? "/" : "", rel ? rel : "");
	else
		n = snprintf(buf, len, "%.*s/%s", (int)rl, root, rel ? rel : "");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

long procfs_read(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got = 0;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			buf[got] = '\0';
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (long)got;
}
