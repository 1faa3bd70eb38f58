// SPDX-License-Identifier: GPL-2.0-only
/* seen.c - the first-seen times of live processes, a table per pass of the
 * libibverbs scan (seen.h): open addressing by pid, rebuilt each pass from
 * the one before, so nothing is ever deleted. */
#include "tracer/seen.h"

#include <stdlib.h>
#include <string.h>

int seen_init(struct seen_table *t, unsigned cap)
{
	memset(t, 0, sizeof(*t));
	if (!cap || (cap & (cap - 1)))
		return -1;
	t->slots[0] = calloc(cap, sizeof(struct seen_slot));
	t->slots[1] = calloc(cap, sizeof(struct seen_slot));
	if (!t->slots[0] || !t->slots[1]) {
		seen_free(t);
		return -1;
	}
	t->cap = cap;
	return 0;
}

void seen_free(struct seen_table *t)
{
	free(t->slots[0]);
	free(t->slots[1]);
	memset(t, 0, sizeof(*t));
}

static unsigned hash_pid(int pid, unsigned cap)
{
	return ((unsigned)pid * 2654435761u) & (cap - 1);
}

/* The slot of pid in table k, or the empty slot where it would go. */
static struct seen_slot *slot_of(const struct seen_table *t, int k, int pid)
{
	unsigned i = hash_pid(pid, t->cap);

	for (unsigned probes = 0; probes < t->cap; probes++, i = (i + 1) & (t->cap - 1)) {
		struct seen_slot *s = &t->slots[k][i];
		if (!s->pid || s->pid == pid)
			return s;
	}
	return NULL; /* full: never, at half the capacity */
}

void seen_pass(struct seen_table *t)
{
	if (!t->cap)
		return;
	t->cur ^= 1;
	memset(t->slots[t->cur], 0, t->cap * sizeof(struct seen_slot));
	t->n[t->cur] = 0;
}

double seen_first(struct seen_table *t, int pid, double now)
{
	struct seen_slot *was, *s;
	double first = now;

	if (!t->cap || pid <= 0)
		return now;
	was = slot_of(t, t->cur ^ 1, pid);
	if (was && was->pid == pid)
		first = was->first;
	s = slot_of(t, t->cur, pid);
	if (s && s->pid == pid)
		return s->first; /* met twice in one pass */
	if (s && t->n[t->cur] < t->cap / 2) {
		s->pid = pid;
		s->first = first;
		t->n[t->cur]++;
	}
	return first;
}

unsigned seen_count(const struct seen_table *t)
{
	return t->cap ? t->n[t->cur] : 0;
}
