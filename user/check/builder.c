// SPDX-License-Identifier: GPL-2.0-only
/* builder.c - the report as the areas build it (builder.h): items, their
 * notes and fixes, the JSON sections, and the verdict over all items. */
#include "check/builder.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = { "ok", "unknown", "warn", "fail" };
static const char *const class_names[] = { "none", "environment", "infiniband" };

const char *chk_verdict_name(enum chk_verdict v)
{
	return (unsigned)v < 4 ? verdict_names[v] : "unknown";
}

const char *chk_class_name(enum chk_class c)
{
	return (unsigned)c < 3 ? class_names[c] : "none";
}

enum chk_verdict chk_worse(enum chk_verdict a, enum chk_verdict b)
{
	return a > b ? a : b;
}

/* A text that did not fit ends in "..." (the JSON sections keep the whole
 * data; an item line only shows it). */
static void mark_cut(char *buf, size_t len, int wanted)
{
	if (wanted >= 0 && (size_t)wanted >= len && len > 4) {
		size_t at = len - 4;
		while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
			at--;   /* not inside a UTF-8 character */
		memcpy(buf + at, "...", 4);
	}
}

struct chk_item *chk_add(struct chk_report *r, const char *area, const char *id,
			 enum chk_verdict v, enum chk_class cls, const char *title,
			 const char *value_fmt, ...)
{
	if (r->n_items == r->cap_items) {
		int cap = r->cap_items ? r->cap_items * 2 : 32;
		struct chk_item *n = realloc(r->items, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		r->items = n;
		r->cap_items = cap;
	}
	struct chk_item *it = &r->items[r->n_items++];
	memset(it, 0, sizeof(*it));
	snprintf(it->area, sizeof(it->area), "%s", area);
	snprintf(it->id, sizeof(it->id), "%s", id);
	snprintf(it->title, sizeof(it->title), "%s", title);
	it->verdict = v;
	/* A class only means something for a problem: an ok port is not an
	 * "infiniband problem". */
	it->cls = (v == CHK_WARN || v == CHK_FAIL) ? cls : CHK_CLS_NONE;
	va_list ap;
	va_start(ap, value_fmt);
	int n = vsnprintf(it->value, sizeof(it->value), value_fmt, ap);
	va_end(ap);
	mark_cut(it->value, sizeof(it->value), n);
	return it;
}

/* Notes and fixes accumulate: an area may find two reasons for one item. */
static void append(char *dst, size_t len, const char *fmt, va_list ap)
{
	size_t l = strlen(dst);
	if (l && l + 2 < len) {
		dst[l++] = ' ';
		dst[l] = '\0';
	}
	if (l < len)
		mark_cut(dst, len, (int)l + vsnprintf(dst + l, len - l, fmt, ap));
}

void chk_note(struct chk_item *it, const char *fmt, ...)
{
	if (!it)
		return;
	va_list ap;
	va_start(ap, fmt);
	append(it->note, sizeof(it->note), fmt, ap);
	va_end(ap);
}

void chk_fix(struct chk_item *it, const char *fmt, ...)
{
	if (!it)
		return;
	va_list ap;
	va_start(ap, fmt);
	append(it->fix, sizeof(it->fix), fmt, ap);
	va_end(ap);
}

json_object *chk_section(struct chk_report *r, const char *area)
{
	json_object *s;
	if (json_object_object_get_ex(r->doc, area, &s) && json_object_is_type(s, json_type_object))
		return s;
	s = json_object_new_object();
	json_object_object_add(r->doc, area, s);
	return s;
}

const struct chk_item *chk_find(const struct chk_report *r, const char *id)
{
	for (int i = 0; i < r->n_items; i++)
		if (!strcmp(r->items[i].id, id))
			return &r->items[i];
	return NULL;
}

json_object *chk_json_limit(uint64_t bytes)
{
	if (bytes == UINT64_MAX)
		return json_object_new_string("unlimited");
	return json_object_new_int64((int64_t)bytes);
}

void chk_json_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s && *s ? json_object_new_string(s) : NULL);
}

enum chk_verdict chk_overall(const struct chk_report *r)
{
	enum chk_verdict v = CHK_OK;
	for (int i = 0; i < r->n_items; i++)
		v = chk_worse(v, r->items[i].verdict);
	return v;
}

int chk_exit_status(const struct chk_report *r)
{
	return chk_overall(r) == CHK_FAIL ? 1 : 0;
}
