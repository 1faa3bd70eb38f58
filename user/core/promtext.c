// SPDX-License-Identifier: GPL-2.0-only
/* promtext.c - Prometheus text format writer (promtext.h). */
#include "core/promtext.h"

#include "core/atomicfile.h"

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
	/* node_exporter reads only *.prom: the temporary name is not one */
	return atomic_write_file(path, text, len, 0644);
}
