// SPDX-License-Identifier: GPL-2.0-only
/* rdmacg_scan.c - the rdma cgroup of a node (rdmacg_scan.h).  Directory
 * descriptors all the way down (openat with O_NOFOLLOW): a name swapped
 * for a symlink mid-walk is refused, not followed. */
#include "proc/rdmacg_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/procfs.h"

bool rdmacg_line_limits(const char *l, size_t n)
{
	for (const char *eq = memchr(l, '=', n); eq; eq = memchr(eq + 1, '=', n - (size_t)(eq + 1 - l)))
		if ((size_t)(eq + 4 - l) > n || strncmp(eq + 1, "max", 3) ||
		    ((size_t)(eq + 4 - l) < n && eq[4] != ' ' && eq[4] != '\n'))
			return true;
	return false;
}

/* At most len-1 bytes of a regular file name in dir; -1 when it is not one */
static long read_small(int dir, const char *name, char *buf, size_t len)
{
	struct stat st;
	long n;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The first line of max that limits, into out->first_line; false: none */
static bool limits(const char *max, struct rdmacg_scan *out, bool keep)
{
	for (const char *l = max; *l;) {
		size_t n = strcspn(l, "\n");
		if (n && rdmacg_line_limits(l, n)) {
			while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
				n--; /* the kernel ends each line with a space */
			if (keep)
				snprintf(out->first_line, sizeof(out->first_line), "%.*s", (int)n, l);
			return true;
		}
		l += n + (l[n] ? 1 : 0);
	}
	return false;
}

/* dir: an open cgroup directory (closed here); path: its name from the root */
static void walk(int dir, const char *path, int depth, struct rdmacg_scan *out)
{
	char max[RDMACG_MAX_READ];
	DIR *d;
	struct dirent *e;

	out->dirs++;
	long n = depth ? read_small(dir, "rdma.max", max, sizeof(max)) : -1;
	char *nl;

	/* a file past the bound: its cut last line is not read as a limit */
	if (n == (long)sizeof(max) - 1 && (nl = strrchr(max, '\n')))
		nl[1] = '\0';
	if (n > 0 && limits(max, out, !out->limited) && !out->limited++)
		snprintf(out->first, sizeof(out->first), "%s", path);
	if (!(d = fdopendir(dir))) {
		close(dir);
		return;
	}
	while ((e = readdir(d))) {
		char sub[sizeof(out->first)];
		int fd;

		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (depth + 1 > RDMACG_MAX_DEPTH || out->dirs >= RDMACG_MAX_DIRS) {
			out->cut = true;
			break;
		}
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", depth ? path : "", e->d_name) >= (int)sizeof(sub))
			sub[sizeof(sub) - 2] = '~'; /* a name this long is said cut */
		walk(fd, sub, depth + 1, out);
	}
	closedir(d);
}

int rdmacg_scan(const char *root, struct rdmacg_scan *out)
{
	char ctl[RDMACG_MAX_READ];
	int dir;

	memset(out, 0, sizeof(*out));
	out->controller = -1;
	dir = procfs_open_dir(root, -1, "sys/fs/cgroup");
	if (dir < 0)
		return dir;
	if (read_small(dir, "cgroup.controllers", ctl, sizeof(ctl)) < 0) {
		close(dir); /* cgroup v1, or no cgroup fs: nothing said */
		return -ENOENT;
	}
	for (char *t = strtok(ctl, " \n"); t; t = strtok(NULL, " \n"))
		if (!strcmp(t, "rdma"))
			out->controller = 1;
	if (out->controller != 1)
		out->controller = 0;
	walk(dir, "/", 0, out);
	return 0;
}
