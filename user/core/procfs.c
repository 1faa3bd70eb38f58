// SPDX-License-Identifier: GPL-2.0-only
/* procfs.c - paths under a root (live "/" or a recorded tree) and bounded
 * reads of small files (see procfs.h). */
#include "core/procfs.h"
#include "core/beneath.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

static int live(const char *root)
{
	return !root || !*root || !strcmp(root, "/");
}

/* The name below the tree's top: "proc/<pid>/<rel>" or "<rel>". */
static int tree_name(char *buf, size_t len, int pid, const char *rel)
{
	int n = pid >= 0 ? snprintf(buf, len, "proc/%d%s%s", pid, rel && *rel ? "/" : "", rel ? rel : "")
			 : snprintf(buf, len, "%s", rel ? rel : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static long read_fd(int fd, char *buf, size_t len)
{
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

long procfs_read(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_fd(fd, buf, len);
}

int procfs_open(const char *root, int pid, const char *rel)
{
	char p[PATH_MAX];
	if (live(root)) {
		if (procfs_path(p, sizeof(p), root, pid, rel))
			return -ENAMETOOLONG;
		int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		return fd < 0 ? -errno : fd;
	}
	int top = beneath_root(root);
	if (top < 0)
		return top;
	if (tree_name(p, sizeof(p), pid, rel))
		return -ENAMETOOLONG;
	return beneath_open_regular(top, p);
}

int procfs_open_mapped(const char *root, int pid, const char *rel)
{
	char p[PATH_MAX], self[48];
	struct stat st;
	if (!live(root)) /* a recorded tree: regular files only there already */
		return procfs_open(root, pid, rel);
	if (procfs_path(p, sizeof(p), root, pid, rel))
		return -ENAMETOOLONG;
	int pfd = open(p, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	int e = fstat(pfd, &st) ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	if (e) {
		close(pfd);
		return -e;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	int fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	e = errno;
	close(pfd);
	return fd < 0 ? -e : fd;
}

long procfs_read_at(const char *root, int pid, const char *rel, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	int fd = procfs_open(root, pid, rel);
	if (fd < 0)
		return fd;
	return read_fd(fd, buf, len);
}

long procfs_readlink(const char *root, int pid, const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX];
	ssize_t n;
	if (len == 0)
		return -EINVAL;
	if (live(root)) {
		if (procfs_path(p, sizeof(p), root, pid, rel))
			return -ENAMETOOLONG;
		n = readlink(p, buf, len - 1);
	} else {
		/* the directory inside the tree, then the link's own text */
		int top = beneath_root(root);
		if (top < 0)
			return top;
		if (tree_name(p, sizeof(p), pid, rel))
			return -ENAMETOOLONG;
		char *slash = strrchr(p, '/');
		const char *base = slash ? slash + 1 : p;
		int dfd = slash ? (*slash = '\0', beneath_path(top, p)) : dup(top);
		if (dfd < 0)
			return dfd;
		n = readlinkat(dfd, base, buf, len - 1);
		int e = errno;
		close(dfd);
		errno = e;
	}
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (long)n;
}

int procfs_open_dir(const char *root, int pid, const char *rel)
{
	char p[PATH_MAX];
	int fd;
	if (live(root)) {
		if (procfs_path(p, sizeof(p), root, pid, rel))
			return -ENAMETOOLONG;
		fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	int top = beneath_root(root);
	if (top < 0)
		return top;
	if (tree_name(p, sizeof(p), pid, rel))
		return -ENAMETOOLONG;
	int pfd = beneath_path(top, p);
	if (pfd < 0)
		return pfd;
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = errno;
	close(pfd);
	return fd < 0 ? -e : fd;
}

int procfs_stat(const char *root, int pid, const char *rel, struct stat *st)
{
	char p[PATH_MAX];
	if (live(root)) {
		if (procfs_path(p, sizeof(p), root, pid, rel))
			return -ENAMETOOLONG;
		return stat(p, st) ? -errno : 0;
	}
	int top = beneath_root(root);
	if (top < 0)
		return top;
	if (tree_name(p, sizeof(p), pid, rel))
		return -ENAMETOOLONG;
	int fd = beneath_path(top, p);
	if (fd < 0)
		return fd;
	int rc = fstat(fd, st) ? -errno : 0;
	close(fd);
	return rc;
}
