// SPDX-License-Identifier: GPL-2.0-only
/* inputfd.c - a user-named input, checked on the inode its name resolved to
 * and only that inode opened (inputfd.h). */
#include "core/inputfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

const char *input_refused(mode_t m)
{
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "not a regular file (a device)";
	if (S_ISSOCK(m))
		return "not a regular file (a socket)";
	return NULL;
}

/* An anonymous pipe (pipefs): what <(...) and /dev/fd/N name.  A named FIFO
 * lives on a file system anyone may have created it on. */
static bool anonymous_pipe(int fd)
{
	struct statfs fs;
	return !fstatfs(fd, &fs) && fs.f_type == PIPEFS_MAGIC;
}

int input_open(const char *path, struct stat *st, const char **why)
{
	char self[64];
	struct stat again;
	int pfd = open(path, O_PATH | O_CLOEXEC);
	int fd;

	*why = NULL;
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st)) {
		fd = -errno;
		goto out;
	}
	if ((*why = input_refused(st->st_mode)) ||
	    (S_ISFIFO(st->st_mode) && !anonymous_pipe(pfd) &&
	     (*why = "a named FIFO (reading it waits on whoever holds it open): give it on "
		     "standard input (< FIFO) if you mean it"))) {
		fd = -EINVAL;
		goto out;
	}
	/* the magic link opens exactly the inode checked above */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		fd = -errno;
		goto out;
	}
	if (fstat(fd, &again) || again.st_dev != st->st_dev || again.st_ino != st->st_ino) {
		close(fd);
		fd = -ESTALE;
	}
out:
	close(pfd);
	return fd;
}
