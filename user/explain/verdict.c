// SPDX-License-Identifier: GPL-2.0-only
/* verdict.c - trail lookups and verdict writers (see verdict.h). */
#include "explain/verdict.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/units.h"

int trail_nsteps(const struct mrt_event *ev)
{
	return ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;
}

int trail_first_failed(const struct mrt_event *ev, unsigned int site)
{
	for (int i = 0; i < trail_nsteps(ev); i++)
		if (ev->steps[i].site == site && ev->steps[i].ret < 0)
			return i;
	return -1;
}

int trail_find(const struct mrt_event *ev, unsigned int site)
{
	for (int i = 0; i < trail_nsteps(ev); i++)
		if (ev->steps[i].site == site)
			return i;
	return -1;
}

void verdict_say(char *dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, VERDICT_TEXT_MAX, fmt, ap);
	va_end(ap);
}

void verdict_fix(struct verdict *v, enum fix_kind kind, const char *fmt, ...)
{
	struct fix_list *l = &v->fixes;
	va_list ap;

	if (l->n >= FIX_MAX) {
		l->truncated = true;
		return;
	}
	l->items[l->n].kind = kind;
	va_start(ap, fmt);
	vsnprintf(l->items[l->n].text, FIX_TEXT_MAX, fmt, ap);
	va_end(ap);
	l->n++;
}

const char *verdict_bytes(uint64_t bytes, char *buf)
{
	return fmt_bytes(bytes, buf, 32);
}
