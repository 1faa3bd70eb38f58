// SPDX-License-Identifier: GPL-2.0-only
/* json_util.c - members in and out, with their types (json_util.h). */
#include "record/json_util.h"

#include "core/escape.h"

#include <stdio.h>
#include <string.h>

void jput_u64(struct json_object *o, const char *k, unsigned long long v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

void jput_i64(struct json_object *o, const char *k, long long v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

void jput_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

void jput_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

void jput_double(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

void jput_limit(struct json_object *o, const char *k, unsigned long long v)
{
	if (v == ~0ULL)
		jput_str(o, k, "unlimited");
	else
		jput_u64(o, k, v);
}

static const char *type_word(json_type t)
{
	switch (t) {
	case json_type_boolean: return "a boolean";
	case json_type_int: return "a number";
	case json_type_string: return "a string";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	default: return "a value";
	}
}

int jget_member(struct json_object *obj, const char *key, json_type t, struct json_object **v,
		const struct jwhere *w)
{
	struct json_object *x;

	if (!json_object_object_get_ex(obj, key, &x) || !x)
		return 0;
	bool ok = t == json_type_int ? json_object_is_type(x, json_type_int) ||
					       json_object_is_type(x, json_type_double)
				     : json_object_is_type(x, t);
	if (!ok) {
		snprintf(w->err, w->errlen, "%s.%s: not %s", w->obj, key, type_word(t));
		return -1;
	}
	*v = x;
	return 1;
}

int jget_str(struct json_object *o, const char *key, char *buf, size_t len, const struct jwhere *w)
{
	struct json_object *x;
	int rc = jget_member(o, key, json_type_string, &x, w);

	if (rc == 1) /* cut at a character, not inside one: it stays valid UTF-8 */
		jcopy_str(buf, len, json_object_get_string(x));
	return rc;
}

int jget_u64(struct json_object *o, const char *key, uint64_t *v, const struct jwhere *w)
{
	struct json_object *x;
	int rc = jget_member(o, key, json_type_int, &x, w);

	if (rc == 1)
		*v = json_object_get_uint64(x);
	return rc;
}

int jget_i64(struct json_object *o, const char *key, long long *v, const struct jwhere *w)
{
	struct json_object *x;
	int rc = jget_member(o, key, json_type_int, &x, w);

	if (rc == 1)
		*v = json_object_get_int64(x);
	return rc;
}

int jget_bool(struct json_object *o, const char *key, bool *v, const struct jwhere *w)
{
	struct json_object *x;
	int rc = jget_member(o, key, json_type_boolean, &x, w);

	if (rc == 1)
		*v = json_object_get_boolean(x);
	return rc;
}

int jget_limit(struct json_object *o, const char *key, uint64_t *v, const struct jwhere *w)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !x)
		return 0;
	if (json_object_is_type(x, json_type_string) && !strcmp(json_object_get_string(x), "unlimited")) {
		*v = UINT64_MAX;
		return 1;
	}
	if (json_object_is_type(x, json_type_int)) {
		*v = json_object_get_uint64(x);
		return 1;
	}
	snprintf(w->err, w->errlen, "%s.%s: not a number or \"unlimited\"", w->obj, key);
	return -1;
}

void jcopy_str(char *buf, size_t len, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t n = strlen(src), i = 0;

	if (!len)
		return;
	while (i < n) {
		int l = utf8_seq(p + i, n - i);
		size_t step = l > 0 ? (size_t)l : 1; /* a byte that is not UTF-8: alone */
		if (i + step > len - 1)
			break;
		i += step;
	}
	memcpy(buf, src, i);
	buf[i] = '\0';
}
