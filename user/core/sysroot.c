// SPDX-License-Identifier: GPL-2.0-only
/* sysroot.c - path rooting for `check` (see sysroot.h).  On the live system
 * paths are the kernel's and root's own; below a recorded tree every name is
 * resolved inside the tree and only regular files are read (beneath.h). */
#include "core/sysroot.h"
#include "core/beneath.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int live(const char *root)
{
	return !root || !*root || !strcmp(root, "/");
}

int sr_path(const char *root, const char *path, char *out, size_t len)
{
	int n;
	if (live(root))
		n = snprintf(out, len, "%s", path);
	else {
		size_t rl = strlen(root);
		/* "DIR/" + "/sys" must not become "DIR//sys": harmless, but it
		 * would show up in messages. */
		while (rl > 1 && root[rl - 1] == '/')
			rl--;
		n = snprintf(out, len, "%.*s%s%s", (int)rl, root, path[0] == '/' ? "" : "/", path);
	}
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/* O_PATH descriptor of path inside a recorded root. */
static int tree_path(const char *root, const char *path)
{
	int top = beneath_root(root);
	return top < 0 ? top : beneath_path(top, path);
}

FILE *sr_fopen(const char *root, const char *path)
{
	int fd = sr_open(root, path, O_RDONLY);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		errno = fd < 0 ? -fd : ENOMEM;
	}
	return f;
}

int sr_open(const char *root, const char *path, int flags)
{
	char p[PATH_MAX];
	if (live(root)) {
		int r = sr_path(root, path, p, sizeof(p));
		if (r)
			return r;
		int fd = open(p, flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	/* a recorded tree: regular files only, opened as asked (its stand-in
	 * device nodes are empty files) */
	int pfd = tree_path(root, path);
	if (pfd < 0)
		return pfd;
	struct stat st;
	int fd = fstat(pfd, &st) ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
	if (!fd) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
		fd = open(p, (flags & ~O_CREAT) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0)
			fd = -errno;
	}
	close(pfd);
	return fd;
}

int sr_exists(const char *root, const char *path)
{
	char p[PATH_MAX];
	if (live(root))
		return !sr_path(root, path, p, sizeof(p)) && access(p, F_OK) == 0;
	int fd = tree_path(root, path);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int sr_read_all(const char *root, const char *path, char *buf, size_t len, size_t *got)
{
	if (len == 0)
		return -EINVAL;
	int fd = sr_open(root, path, O_RDONLY);
	if (fd < 0)
		return fd;
	size_t n = 0;
	/* sysfs and procfs files may return short reads: loop until EOF. */
	while (n < len - 1) {
		ssize_t r = read(fd, buf + n, len - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			close(fd);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (got)
		*got = n;
	return 0;
}

int sr_read_line(const char *root, const char *path, char *buf, size_t len)
{
	int r = sr_read_all(root, path, buf, len, NULL);
	if (r)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	size_t l = strlen(buf);
	while (l && isspace((unsigned char)buf[l - 1]))
		buf[--l] = '\0';
	return 0;
}

int sr_read_u64(const char *root, const char *path, uint64_t *out)
{
	char b[64];
	int r = sr_read_line(root, path, b, sizeof(b));
	if (r)
		return r;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(b, &end, 0);
	if (errno || end == b)
		return -EINVAL;
	*out = v;
	return 0;
}

int sr_read_int(const char *root, const char *path, long *out)
{
	char b[64];
	int r = sr_read_line(root, path, b, sizeof(b));
	if (r)
		return r;
	char *end;
	errno = 0;
	long v = strtol(b, &end, 0);
	if (errno || end == b)
		return -EINVAL;
	*out = v;
	return 0;
}

int sr_link_base(const char *root, const char *path, char *buf, size_t len)
{
	char p[PATH_MAX], t[PATH_MAX];
	ssize_t n;
	if (live(root)) {
		int r = sr_path(root, path, p, sizeof(p));
		if (r)
			return r;
		n = readlink(p, t, sizeof(t) - 1);
	} else {
		/* the parent inside the tree, then the link's own text */
		snprintf(p, sizeof(p), "%s", path);
		char *slash = strrchr(p, '/');
		if (!slash)
			return -EINVAL;
		const char *base = slash + 1;
		*slash = '\0';
		int dfd = tree_path(root, p[0] ? p : "/");
		if (dfd < 0)
			return dfd;
		n = readlinkat(dfd, base, t, sizeof(t) - 1);
		int e = errno;
		close(dfd);
		errno = e;
	}
	if (n < 0)
		return -errno;
	t[n] = '\0';
	const char *b = strrchr(t, '/');
	b = b ? b + 1 : t;
	if (strlen(b) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, b);
	return 0;
}

int sr_realpath(const char *root, const char *path, char *buf, size_t len)
{
	char p[PATH_MAX], rp[PATH_MAX], rr[PATH_MAX];
	int r = sr_path(root, path, p, sizeof(p));
	if (r)
		return r;
	if (!realpath(p, rp))
		return -errno;
	const char *rel = rp;
	if (!live(root)) {
		if (!realpath(root, rr))
			return -errno;
		size_t l = strlen(rr);
		if (strncmp(rp, rr, l) || (rp[l] != '/' && rp[l] != '\0'))
			return -EXDEV;
		rel = rp[l] ? rp + l : "/";
	}
	if (strlen(rel) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, rel);
	return 0;
}

static int not_dot(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

int sr_list(const char *root, const char *dir, char ***names)
{
	char p[PATH_MAX];
	struct dirent **ents;
	*names = NULL;
	int r = sr_path(root, dir, p, sizeof(p));
	if (r)
		return r;
	int n;
	if (live(root)) {
		n = scandir(p, &ents, not_dot, versionsort);
	} else {
		/* the directory inside the tree (a symlinked one is followed
		 * inside it too), listed through its descriptor */
		int pfd = tree_path(root, dir), dfd = -1;
		if (pfd >= 0) {
			dfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(pfd);
		}
		if (dfd < 0)
			return pfd < 0 ? pfd : -errno;
		n = scandirat(dfd, ".", &ents, not_dot, versionsort);
		int e = errno;
		close(dfd);
		errno = e;
	}
	if (n < 0)
		return -errno;
	char **v = calloc((size_t)n + 1, sizeof(*v));
	for (int i = 0; i < n; i++) {
		if (v)
			v[i] = strdup(ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (!v[i]) {
			sr_free_names(v, n);
			return -ENOMEM;
		}
	*names = v;
	return n;
}

void sr_free_names(char **names, int n)
{
	if (!names)
		return;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
