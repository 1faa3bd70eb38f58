// SPDX-License-Identifier: GPL-2.0-only
/* atomicfile.c - replace a file whole (atomicfile.h). */
#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	const char *p = data;
	char tmp[4096];
	size_t off = 0;
	int fd, e;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	/* the umask must not narrow what readers need */
	if (fchmod(fd, mode))
		goto fail;
	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			goto fail;
		}
		off += (size_t)n;
	}
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path)) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -e;
}
