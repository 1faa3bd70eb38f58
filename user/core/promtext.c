// SPDX-License-Identifier: GPL-2.0-only
/* promtext.c - Prometheus text format writer (promtext.h). */
#include "core/promtext.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void prom_family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

void prom_sample(FILE *out, const char *name, const char *const *labels, double value)
{
	fputs(name, out);
	if (labels && labels[0]) {
		fputc('{', out);
		for (int i = 0; labels[i] && labels[i + 1]; i += 2) {
			fprintf(out, "%s%s=\"", i ? "," : "", labels[i]);
			escaped(out, labels[i + 1]);
			fputc('"', out);
		}
		fputc('}', out);
	}
	if (isinf(value))
		fputs(value > 0 ? " +Inf\n" : " -Inf\n", out);
	else if (value == (double)(long long)value && fabs(value) < 9.007199254740992e15)
		fprintf(out, " %lld\n", (long long)value);
	else
		fprintf(out, " %.17g\n", value);
}

int prom_write_atomic(const char *path, const char *text, size_t len)
{
	char tmp[4096];
	/* same directory, so rename() is atomic; node_exporter reads only *.prom */
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			unlink(tmp);
			return -e;
		}
		off += n;
	}
	if (close(fd) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return -e;
	}
	return 0;
}
