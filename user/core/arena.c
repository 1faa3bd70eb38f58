// SPDX-License-Identifier: GPL-2.0-only
/* arena.c - bump allocation in chunks (see arena.h). */
#include "core/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t len)
{
	len = (len + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!a->head || a->cap - a->used < len) {
		size_t cap = len > 60000 ? len : 60000;
		struct arena_chunk *c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += len;
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t l = strlen(s) + 1;
	char *d = arena_alloc(a, l);
	if (d)
		memcpy(d, s, l);
	return d;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *d = arena_alloc(a, (size_t)n + 1);
	if (!d)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return d;
}

void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *n = a->head->next;
		free(a->head);
		a->head = n;
	}
	a->used = a->cap = 0;
}
