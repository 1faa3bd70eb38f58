// SPDX-License-Identifier: GPL-2.0-only
/* ustack_raw.c - return addresses found among raw user stack words.
 *
 * Before 5.17 the kernel copies the top of a failed REG_MR's user stack
 * as it is (bpf/ustack_raw.bpf.h): locals, saved registers and return
 * addresses alike.  A return address points into code, so a word is kept
 * when it lies in an executable mapping of a file; a saved code pointer
 * passes too, which the API naming tolerates (it looks for the libibverbs
 * registration function a frame lies in, and names the outermost). */
#include "proc/ustack_raw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The executable mappings of files (a path, not [vdso] or an anonymous JIT
 * region) in maps, parsed once: a stack has hundreds of words and a
 * process thousands of mappings; the kernel's libibverbs range (lib) first.
 * malloc'd; *n how many. */
static struct ustack_code *code_ranges(const char *maps, const struct ustack_code *lib, int *n)
{
	struct ustack_code *r = NULL;
	int cap = 0;

	*n = 0;
	if (lib && lib->hi > lib->lo && (r = malloc(64 * sizeof(*r)))) {
		cap = 64;
		r[(*n)++] = *lib;
	}
	for (const char *line = maps; line && *line;) {
		unsigned long long lo, hi, off, ino;
		char perms[8] = "", path[2] = "";
		const char *eol = strchr(line, '\n');
		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %1s", &lo, &hi, perms, &off, &ino,
			   path) == 6 &&
		    perms[2] == 'x' && path[0] == '/') {
			if (*n == cap) {
				struct ustack_code *g = realloc(r, (cap ? cap * 2 : 64) * sizeof(*r));
				if (!g)
					break;
				r = g;
				cap = cap ? cap * 2 : 64;
			}
			r[(*n)++] = (struct ustack_code){ lo, hi, off, ino };
		}
		line = eol ? eol + 1 : NULL;
	}
	return r;
}

int ustack_raw_frames(const char *maps_text, const struct ustack_code *lib, const uint64_t *words,
		      int nwords, uint64_t *out, uint64_t *ino, uint64_t *off, int max)
{
	int nr, n = 0;
	struct ustack_code *r = code_ranges(maps_text, lib, &nr);

	for (int i = 0; i < nwords && n < max; i++) {
		for (int k = 0; k < nr; k++)
			if (words[i] >= r[k].lo && words[i] < r[k].hi) {
				if (ino)
					ino[n] = r[k].ino;
				if (off)
					off[n] = words[i] - r[k].lo + r[k].off;
				out[n++] = words[i];
				break;
			}
	}
	free(r);
	return n;
}
