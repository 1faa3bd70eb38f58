// SPDX-License-Identifier: GPL-2.0-only
/* verdict.c - trail lookups and verdict writers (see verdict.h). */
#include "verdict/verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void verdict_init(struct verdict *v, int err, enum certainty certainty)
{
	memset(v, 0, sizeof(*v));
	v->cause = CAUSE_UNKNOWN;
	v->decisive_step = -1;
	v->certainty = certainty;
	v->err = err;
}

void verdict_say(char *dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, VERDICT_TEXT_MAX, fmt, ap);
	va_end(ap);
}

const char *verdict_bytes(uint64_t bytes, char *buf)
{
	return fmt_bytes(bytes, buf, 32);
}

void fix_add(struct fix_list *out, enum fix_kind kind, const char *fmt, ...)
{
	if (out->n >= FIX_MAX) {
		out->truncated = true;
		return;
	}
	struct fix *f = &out->items[out->n++];
	f->kind = kind;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(f->text))
		memcpy(f->text + sizeof(f->text) - 4, "...", 4);
}
