// SPDX-License-Identifier: GPL-2.0-only
/* open.c - an input file as a stream, gzip or not (rotated logs and
 * events.jsonl.1.gz), told by its magic bytes: zlib's gzdopen behind a
 * stdio cookie, so every reader (the log reader, explain's record stream)
 * reads both the same way.  Devices, sockets, directories and named FIFOs
 * are refused before anything is read (a root program; /dev/zero never
 * ends, a FIFO's writer can hold it open without writing, and opening some
 * devices does something).  A name is opened by core/inputfd.h: resolved
 * once, checked on that inode, and only that inode opened, so a name
 * swapped between the check and the open cannot make root open a FIFO or a
 * device (issue 34). */
#include "logs/logline.h"
#include "core/inputfd.h"

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

/* The first bytes of a regular file, as reading it will give them: plain,
 * by pread (the offset the reader starts from is untouched); compressed,
 * decompressed by a zlib stream of their own on a duplicate descriptor,
 * the shared offset then put back to the start (a rotated events.jsonl.1.gz
 * holds records, and explain must read it as records: issue 48 item C). */
static void peek_head(int fd, bool gz, struct log_input_head *h)
{
	ssize_t n;

	if (!gz) {
		n = pread(fd, h->b, sizeof(h->b), 0);
	} else {
		int dfd = dup(fd);
		gzFile z = dfd < 0 ? NULL : gzdopen(dfd, "rb");

		if (!z) {
			if (dfd >= 0)
				close(dfd);
			return;
		}
		n = gzread(z, h->b, sizeof(h->b));
		gzclose(z);
		if (lseek(fd, 0, SEEK_SET))
			return;
	}
	h->n = n > 0 ? (size_t)n : 0;
	h->known = n >= 0;
}

FILE *log_input_open(const char *path, bool *gz, char *err, size_t errlen)
{
	return log_input_open_head(path, gz, NULL, err, errlen);
}

FILE *log_input_open_head(const char *path, bool *gz, struct log_input_head *head, char *err,
			  size_t errlen)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	const char *why;
	int fd;

	*gz = false;
	why = NULL;
	if (head)
		head->n = 0, head->known = false;
	fd = in ? dup(0) : input_open(path, &st, &why);
	if (fd < 0) {
		if (why)
			snprintf(err, errlen, "%s: %s", path, why);
		else
			snprintf(err, errlen, "cannot read %s: %s", in ? "standard input" : path,
				 strerror(in ? errno : -fd));
		return NULL;
	}
	/* standard input is the operator's own: a FIFO there is read */
	if (in && (fstat(fd, &st) || (why = input_refused(st.st_mode)))) {
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
		if (head)
			peek_head(fd, *gz, head);
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
