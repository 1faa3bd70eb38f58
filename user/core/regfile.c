// SPDX-License-Identifier: GPL-2.0-only
/* regfile.c - regular files only, never blocking, bounded (regfile.h). */
#include "core/regfile.h"
#include "core/readcap.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int regfile_open(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (flags & O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	struct stat st;
	int e = fstat(fd, &st) ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
	if (e) {
		close(fd);
		return -e;
	}
	return fd;
}

int regfile_read(const char *path, int flags, size_t max, char **buf, size_t *len)
{
	*buf = NULL;
	int fd = regfile_open(path, flags);
	if (fd < 0)
		return fd;
	/* the size first (a sparse 64 GiB file is refused unread); /proc files
	 * say 0 and are held to max by readcap_fd as they are read */
	struct stat st;
	int rc = fstat(fd, &st) ? -errno : (size_t)st.st_size > max ? -EFBIG
								     : readcap_fd(fd, max, buf, len);
	close(fd);
	return rc;
}

const char *regfile_strerror(int err)
{
	if (err == -EINVAL)
		return "not a regular file";
	if (err == -EFBIG)
		return "too large";
	return strerror(err < 0 ? -err : err);
}
