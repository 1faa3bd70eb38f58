// SPDX-License-Identifier: GPL-2.0-only
/* execmaps.c - the executable mappings of a maps file, bounded (execmaps.h). */
#include "proc/execmaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "lo-hi perms ...": perms is "r-xp" for code */
static bool executable(const char *line)
{
	const char *perms = strchr(line, ' ');
	return perms && perms[1] && perms[2] && perms[3] == 'x';
}

char *execmaps_read(const char *path, bool *cut)
{
	*cut = false;
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *out = malloc(EXECMAPS_MAX_BYTES + 1), line[EXECMAPS_LINE_MAX];
	size_t len = 0, kept = 0, read = 0;
	while (out && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		if (n && line[n - 1] != '\n' && !feof(f)) {
			/* longer than any path: left out, the rest of it skipped */
			int c;
			while ((c = getc(f)) != EOF && c != '\n')
				;
			*cut = true;
			continue;
		}
		if (++read > EXECMAPS_MAX_READ) {
			*cut = true;
			break;
		}
		if (!executable(line))
			continue;
		if (kept == EXECMAPS_MAX_KEPT || len + n > EXECMAPS_MAX_BYTES) {
			*cut = true;
			break;
		}
		memcpy(out + len, line, n);
		len += n;
		kept++;
	}
	fclose(f);
	if (!out)
		return NULL;
	out[len] = '\0';
	char *fit = realloc(out, len + 1); /* what is kept per process: no more than it holds */
	return fit ? fit : out;
}
