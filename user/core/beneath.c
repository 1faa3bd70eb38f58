// SPDX-License-Identifier: GPL-2.0-only
/* beneath.c - path resolution confined to a tree (see beneath.h). */
#include "core/beneath.h"
#include "core/readcap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_LINKS 40

static int by_openat2(int rootfd, const char *path)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	return fd >= 0 ? (int)fd : -errno;
#else
	(void)rootfd;
	(void)path;
	return -ENOSYS;
#endif
}

/* One component at a time, symlinks resolved here so that an absolute one
 * restarts at the tree's top and ".." stops there. */
int beneath_path_walk(int rootfd, const char *path)
{
	struct stat rst;
	if (fstat(rootfd, &rst))
		return -errno;
	char *rest = malloc(2 * PATH_MAX), *tmp = malloc(2 * PATH_MAX);
	int cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int rc = 0, links = 0;
	if (!rest || !tmp || cur < 0) {
		rc = !rest || !tmp ? -ENOMEM : -errno;
		goto out;
	}
	if (strlen(path) >= PATH_MAX) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	strcpy(rest, path);
	char *p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;          /* ends at the directory in cur */
		char *end = strchrnul(p, '/');
		size_t cl = (size_t)(end - p);
		char comp[NAME_MAX + 1];
		if (cl > NAME_MAX) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, cl);
		comp[cl] = '\0';
		p = end;
		if (!strcmp(comp, "."))
			continue;
		struct stat st;
		if (!strcmp(comp, "..")) {
			if (fstat(cur, &st)) {
				rc = -errno;
				goto out;
			}
			if (st.st_dev == rst.st_dev && st.st_ino == rst.st_ino)
				continue;   /* ".." at the top stays at the top */
			int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (up < 0) {
				rc = -errno;
				goto out;
			}
			close(cur);
			cur = up;
			continue;
		}
		int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			if (n < 0 || ++links > MAX_LINKS) {
				rc = n < 0 ? -errno : -ELOOP;
				goto out;
			}
			target[n] = '\0';
			if (snprintf(tmp, 2 * PATH_MAX, "%s%s%s", target, *p ? "/" : "", p) >= 2 * PATH_MAX) {
				rc = -ENAMETOOLONG;
				goto out;
			}
			strcpy(rest, tmp);
			p = rest;
			if (target[0] == '/') {
				close(cur);
				cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (cur < 0) {
					rc = -errno;
					goto out;
				}
			}
			continue;
		}
		close(cur);
		cur = fd;
		if (*p && !S_ISDIR(st.st_mode)) {
			rc = -ENOTDIR;
			goto out;
		}
	}
out:
	free(rest);
	free(tmp);
	if (rc) {
		if (cur >= 0)
			close(cur);
		return rc;
	}
	return cur;
}

int beneath_root(const char *dir)
{
	static char cached[PATH_MAX];
	static int fd = -1;
	struct stat a, b;
	/* the same name may name another directory by now (a tree replaced) */
	if (fd >= 0 && !strcmp(cached, dir) && !stat(dir, &a) && !fstat(fd, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return fd;
	int nfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	if (fd >= 0)
		close(fd);
	fd = nfd;
	snprintf(cached, sizeof(cached), "%s", dir);
	return fd;
}

int beneath_path(int rootfd, const char *path)
{
	if (!path || !*path)
		return -ENOENT;
	int fd = by_openat2(rootfd, path);
	if (fd == -ENOSYS || fd == -EPERM || fd == -E2BIG || fd == -EINVAL)
		fd = beneath_path_walk(rootfd, path);
	return fd;
}

int beneath_reopen_regular(int pathfd)
{
	struct stat st, st2;
	if (fstat(pathfd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	/* the magic link opens exactly the inode checked above, with the
	 * permission check of the current credentials */
	int fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st2) || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int beneath_open_regular(int rootfd, const char *path)
{
	int pfd = beneath_path(rootfd, path);
	if (pfd < 0)
		return pfd;
	int fd = beneath_reopen_regular(pfd);
	close(pfd);
	return fd;
}

int beneath_read(int rootfd, const char *path, size_t max, char **buf, size_t *len)
{
	*buf = NULL;
	int fd = beneath_open_regular(rootfd, path);
	if (fd < 0)
		return fd;
	struct stat st;
	int rc = fstat(fd, &st) ? -errno : (size_t)st.st_size > max ? -EFBIG
								     : readcap_fd(fd, max, buf, len);
	close(fd);
	return rc;
}
