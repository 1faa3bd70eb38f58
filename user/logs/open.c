// SPDX-License-Identifier: GPL-2.0-only
/* open.c - an input file as a stream, gzip or not (rotated logs and
 * events.jsonl.1.gz), told by its magic bytes: zlib's gzdopen behind a
 * stdio cookie, so every reader (the log reader, explain's record stream)
 * reads both the same way.  Devices, sockets, directories and named FIFOs
 * are refused before anything is read (a root program; /dev/zero never
 * ends, a FIFO's writer can hold it open without writing, and opening some
 * devices does something).  A name is resolved once, to an O_PATH
 * descriptor: the check is made on that inode and only that inode is then
 * opened for reading (through /proc/self/fd), so a name swapped between the
 * check and the open cannot make root open a FIFO or a device (issue 34). */
#include "logs/logline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zlib.h>

static ssize_t gz_read(void *c, char *buf, size_t n)
{
	if (n > (1u << 30))
		n = 1u << 30;
	int r = gzread((gzFile)c, buf, (unsigned)n);
	return r < 0 ? -1 : r;
}

static int gz_close(void *c)
{
	return gzclose((gzFile)c) == Z_OK ? 0 : -1;
}

static const char *refused(mode_t m)
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

/* path resolved once (O_PATH: nothing opened, a FIFO not waited on, a
 * device not opened), checked, and that very inode opened for reading,
 * O_NONBLOCK.  The descriptor, or -errno; -EINVAL with *why when refused. */
static int open_checked(const char *path, struct stat *st, const char **why)
{
	char self[64];
	struct stat again;
	int pfd = open(path, O_PATH | O_CLOEXEC);
	int fd;

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st)) {
		fd = -errno;
		goto out;
	}
	if ((*why = refused(st->st_mode)) ||
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

FILE *log_input_open(const char *path, bool *gz, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	const char *why;
	int fd;

	*gz = false;
	why = NULL;
	fd = in ? dup(0) : open_checked(path, &st, &why);
	if (fd < 0) {
		if (why)
			snprintf(err, errlen, "%s: %s", path, why);
		else
			snprintf(err, errlen, "cannot read %s: %s", in ? "standard input" : path,
				 strerror(in ? errno : -fd));
		return NULL;
	}
	/* standard input is the operator's own: a FIFO there is read */
	if (in && (fstat(fd, &st) || (why = refused(st.st_mode)))) {
		snprintf(err, errlen, "standard input: %s", why ? why : strerror(errno));
		close(fd);
		return NULL;
	}
	if (!in)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	/* the magic: only a regular file can be peeked and rewound; a pipe is
	 * read through zlib, which passes plain data through unchanged */
	unsigned char m[2] = { 0, 0 };
	bool reg = S_ISREG(st.st_mode);
	if (reg) {
		*gz = pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	} else {
		*gz = true; /* transparent for plain input (gzdopen's "r" mode) */
	}
	if (!*gz) {
		FILE *f = fdopen(fd, "r");
		if (!f) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			close(fd);
		}
		return f;
	}
	gzFile z = gzdopen(fd, "rb");
	if (!z) {
		snprintf(err, errlen, "cannot read %s: out of memory", path);
		close(fd);
		return NULL;
	}
	gzbuffer(z, 64u << 10);
	FILE *f = fopencookie(z, "r", (cookie_io_functions_t){ .read = gz_read, .close = gz_close });
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		gzclose(z);
		return NULL;
	}
	if (!reg)
		*gz = false; /* not known: zlib tells only while reading */
	return f;
}
