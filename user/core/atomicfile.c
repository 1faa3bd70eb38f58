// SPDX-License-Identifier: GPL-2.0-only
/* atomicfile.c - replace a file whole (atomicfile.h).
 *
 * The temporary file lies in the target's directory, which may be a shared
 * one (a 1777 textfile directory).  Its name is therefore unpredictable and
 * it is created with O_EXCL | O_NOFOLLOW: a file, a FIFO or a symlink that
 * another user prepared under a name we might pick is never opened, so
 * nobody else can hold a descriptor of the file that becomes the target. */
#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_TRIES 16   /* a clash of 64 random bits is someone guessing */

static uint64_t tmp_suffix(void)
{
	uint64_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	/* no entropy yet (early boot): O_EXCL still refuses a prepared name */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
}

/* Creates a fresh temporary file next to path; its name goes to tmp. */
static int create_tmp(const char *path, char *tmp, size_t len, mode_t mode)
{
	for (int i = 0; i < TMP_TRIES; i++) {
		int n = snprintf(tmp, len, "%s.%016llx.tmp", path, (unsigned long long)tmp_suffix());
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int atomic_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	const char *p = data;
	char tmp[4096];
	size_t off = 0;
	int fd, e;

	fd = create_tmp(path, tmp, sizeof(tmp), mode);
	if (fd < 0)
		return fd;
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
