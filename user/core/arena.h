/* SPDX-License-Identifier: GPL-2.0-only */
/* arena.h - many small strings freed together (the facets of one report):
 * no per-string malloc, no fixed field widths that cut values. */
#ifndef MRTRACE_CORE_ARENA_H
#define MRTRACE_CORE_ARENA_H
#include <stddef.h>

struct arena_chunk;
struct arena {
	struct arena_chunk *head;
	size_t used, cap;     /* of the head chunk */
};

/* NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t len);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(struct arena *a);

#endif
