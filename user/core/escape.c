// SPDX-License-Identifier: GPL-2.0-only
/* escape.c - terminal-safe text and valid-UTF-8 JSON (see escape.h). */
#include "core/escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int utf8_seq(const unsigned char *p, size_t n)
{
	if (n == 0)
		return 0;
	unsigned c = p[0];
	int len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;   /* continuation byte, overlong 0xc0/0xc1, or > U+10FFFF lead */
	unsigned cp = c & (0x7f >> len);
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;   /* overlong, too large, or a UTF-16 surrogate */
	return len;
}

static unsigned code_point(const unsigned char *p, int len)
{
	unsigned cp = p[0] & (0x7f >> (len == 1 ? 0 : len));
	for (int i = 1; i < len; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/* Code points a terminal acts on or that reorder the line. */
static int needs_escape(unsigned cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

/* The escape for one character or invalid byte into e (<= 8 bytes). */
static size_t escape_one(const unsigned char *p, int len, char *e)
{
	if (len == 0)
		return (size_t)sprintf(e, "\\x%02x", p[0]);
	unsigned cp = code_point(p, len);
	switch (cp) {
	case '\n': return (size_t)sprintf(e, "\\n");
	case '\t': return (size_t)sprintf(e, "\\t");
	case '\r': return (size_t)sprintf(e, "\\r");
	case 0x1b: return (size_t)sprintf(e, "\\e");
	}
	if (cp < 0x100)
		return (size_t)sprintf(e, "\\x%02x", cp);
	return (size_t)sprintf(e, "\\u%04x", cp);
}

/* Escapes s; writes at most len-1 bytes to buf when buf is not NULL.
 * Returns the full escaped length. */
static size_t escape_into(const char *s, char *buf, size_t len, int *cut)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), w = 0;
	*cut = 0;
	while (*p) {
		int l = utf8_seq(p, n);
		char e[12];
		const char *piece;
		size_t pl;
		if (l > 0 && !needs_escape(code_point(p, l))) {
			piece = (const char *)p;
			pl = (size_t)l;
		} else {
			if (l < 0)
				l = 0;
			pl = escape_one(p, l, e);
			piece = e;
		}
		if (buf && !*cut) {
			if (w + pl + 1 > len)
				*cut = 1;
			else
				memcpy(buf + w, piece, pl);
		}
		if (!*cut || !buf)
			w += pl;
		p += l > 0 ? l : 1;
		n -= l > 0 ? (size_t)l : 1;
	}
	return w;
}

const char *esc_text(const char *s, char *buf, size_t len)
{
	if (!len)
		return buf;
	int cut;
	size_t w = escape_into(s ? s : "", buf, len, &cut);
	if (cut && len > 4) {
		/* again with room for "...": pieces are whole escapes and whole
		 * characters, so the cut never splits one */
		w = escape_into(s, buf, len - 3, &cut);
		memcpy(buf + w, "...", 3);
		w += 3;
	}
	buf[w] = '\0';
	return buf;
}

const char *esc(const char *s)
{
	static struct {
		char *b;
		size_t cap;
	} ring[8];
	static unsigned next;
	int cut;
	if (!s)
		s = "";
	size_t need = escape_into(s, NULL, 0, &cut) + 1;
	unsigned i = next++ % 8;
	if (ring[i].cap < need) {
		char *nb = realloc(ring[i].b, need);
		if (!nb)
			return "?";
		ring[i].b = nb;
		ring[i].cap = need;
	}
	escape_into(s, ring[i].b, need, &cut);
	ring[i].b[need - 1] = '\0';
	return ring[i].b;
}

size_t json_utf8_fix_chunk(const char *in, size_t n, char *out, size_t outcap, size_t *held,
			   int final)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t w = 0, i = 0;
	*held = 0;
	while (i < n) {
		int l = utf8_seq(p + i, n - i);
		if (l < 0 && !final) {
			*held = n - i;
			break;
		}
		if (l > 0) {
			if (w + (size_t)l >= outcap)
				break;
			memcpy(out + w, p + i, (size_t)l);
			w += (size_t)l;
			i += (size_t)l;
		} else {
			if (w + 6 >= outcap)
				break;
			w += (size_t)snprintf(out + w, outcap - w, "\\\\x%02x", p[i]);
			i++;
		}
	}
	if (w < outcap)
		out[w] = '\0';
	return w;
}

char *json_utf8_fix(const char *json)
{
	size_t n = strlen(json), held;
	char *out = malloc(6 * n + 1);
	if (!out)
		return NULL;
	json_utf8_fix_chunk(json, n, out, 6 * n + 1, &held, 1);
	return out;
}
