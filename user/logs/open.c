// SPDX-License-Identifier: GPL-2.0-only
/* open.c - an input file as a stream, gzip or not (rotated logs and
 * events.jsonl.1.gz), told by its magic bytes: zlib's gzdopen behind a
 * stdio cookie, so every reader (the log reader, explain's record stream)
 * reads both the same way.  Devices, sockets and directories are refused
 * before anything is read (a root program; /dev/zero never ends). */
#include "logs/logline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

FILE *log_input_open(const char *path, bool *gz, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	const char *why;
	int fd;

	*gz = false;
	if (!in && !stat(path, &st) && (why = refused(st.st_mode))) {
		snprintf(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	fd = in ? dup(0) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", in ? "standard input" : path, strerror(errno));
		return NULL;
	}
	/* again on what was opened: standard input, or a name that changed */
	if (fstat(fd, &st) || (why = refused(st.st_mode))) {
		snprintf(err, errlen, "%s: %s", in ? "standard input" : path, why ? why : strerror(errno));
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
