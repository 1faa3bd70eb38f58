// SPDX-License-Identifier: GPL-2.0-only
/* sysroot.c - path rooting for `check` (see sysroot.h). */
#include "core/sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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

FILE *sr_fopen(const char *root, const char *path)
{
	char p[PATH_MAX];
	if (sr_path(root, path, p, sizeof(p))) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(p, "re");
}

int sr_open(const char *root, const char *path, int flags)
{
	char p[PATH_MAX];
	int r = sr_path(root, path, p, sizeof(p));
	if (r)
		return r;
	int fd = open(p, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sr_exists(const char *root, const char *path)
{
	char p[PATH_MAX];
	return !sr_path(root, path, p, sizeof(p)) && access(p, F_OK) == 0;
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
	int r = sr_path(root, path, p, sizeof(p));
	if (r)
		return r;
	ssize_t n = readlink(p, t, sizeof(t) - 1);
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
	int n = scandir(p, &ents, not_dot, versionsort);
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
