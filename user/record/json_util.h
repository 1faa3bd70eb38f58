/* SPDX-License-Identifier: GPL-2.0-only */
/* json_util.h - the small rules every record's JSON follows, written once:
 * how a number, a string, a limit that can be RLIM_INFINITY ("unlimited")
 * go in, and how they come back with their type checked and the member
 * named in the error (docs/json.md). */
#ifndef MRTRACE_RECORD_JSON_UTIL_H
#define MRTRACE_RECORD_JSON_UTIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void jput_u64(struct json_object *o, const char *k, unsigned long long v);
void jput_i64(struct json_object *o, const char *k, long long v);
/* NULL is written as null */
void jput_str(struct json_object *o, const char *k, const char *v);
void jput_bool(struct json_object *o, const char *k, bool v);
void jput_double(struct json_object *o, const char *k, double v);
/* A limit: RLIM_INFINITY (~0) is the string "unlimited", anything else the
 * number of bytes; a bare -1 or 2^64-1 would be read wrong by half the
 * JSON parsers. */
void jput_limit(struct json_object *o, const char *k, unsigned long long v);

/* Where a reader is, for its messages: "process.cmdline: not a string". */
struct jwhere {
	const char *obj; /* "process", "nccl", ... */
	char *err;
	size_t errlen;
};

/* 1 when obj.key is there with type t (json_type_int also takes a double),
 * 0 when it is absent or null, -1 (with the message in w) when it has
 * another type. */
int jget_member(struct json_object *obj, const char *key, json_type t, struct json_object **v,
		const struct jwhere *w);
int jget_str(struct json_object *o, const char *key, char *buf, size_t len, const struct jwhere *w);
int jget_u64(struct json_object *o, const char *key, uint64_t *v, const struct jwhere *w);
int jget_i64(struct json_object *o, const char *key, long long *v, const struct jwhere *w);
int jget_bool(struct json_object *o, const char *key, bool *v, const struct jwhere *w);
/* Copies src into buf (len bytes with the NUL), cut where it does not fit
 * at the start of a UTF-8 sequence, never inside one: a name cut to the
 * kernel's 16 or 32 bytes stays valid UTF-8 when it was. */
void jcopy_str(char *buf, size_t len, const char *src);
/* jput_limit's member back: bytes, or "unlimited" as UINT64_MAX. */
int jget_limit(struct json_object *o, const char *key, uint64_t *v, const struct jwhere *w);

#endif
