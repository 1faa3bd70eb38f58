// SPDX-License-Identifier: GPL-2.0-only
/* stream.c - JSON values with their line numbers (see stream.h), fed to
 * json-c's incremental tokener one line at a time. */
#include "replay/stream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct replay_stream {
	FILE *f;
	json_tokener *tok;
	char *buf; /* the current line */
	size_t cap;
	size_t len, pos; /* its length, and how far it has been parsed */
	long lineno;
	long start; /* line of the value being parsed, 0 when none */
	bool resync; /* after an error: skip to a line that starts with '{' */
};

struct replay_stream *replay_stream_new(FILE *f)
{
	struct replay_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->tok = json_tokener_new())) {
		free(s);
		return NULL;
	}
	s->f = f;
	return s;
}

void replay_stream_free(struct replay_stream *s)
{
	if (!s)
		return;
	json_tokener_free(s->tok);
	free(s->buf);
	free(s);
}

/* 1 with a new line in buf, 0 at the end, -1 on a read error. */
static int next_line(struct replay_stream *s)
{
	ssize_t n;

	errno = 0;
	n = getline(&s->buf, &s->cap, s->f);
	if (n < 0)
		return errno ? -1 : 0;
	s->len = (size_t)n;
	s->pos = 0;
	s->lineno++;
	return 1;
}

static int fail(struct replay_stream *s, long *line, char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	*line = s->start ? s->start : s->lineno;
	json_tokener_reset(s->tok);
	/* A record cut short (a crash while writing) shows as an error on the
	 * next line, which is itself a record: start again there.  Otherwise
	 * skip to the next line that starts a value. */
	if (s->lineno > s->start && s->start && s->buf[0] == '{') {
		s->pos = 0;
		s->resync = false;
	} else {
		s->pos = s->len;
		s->resync = true;
	}
	s->start = 0;
	return -1;
}

int replay_stream_next(struct replay_stream *s, struct json_object **obj, long *line, char *err,
		       size_t errlen)
{
	*obj = NULL;
	for (;;) {
		if (s->pos >= s->len) {
			int rc = next_line(s);
			if (rc < 0) {
				snprintf(err, errlen, "read error: %s", strerror(errno));
				*line = s->lineno + 1;
				return -1;
			}
			if (rc == 0) {
				if (!s->start)
					return 0;
				*line = s->start;
				s->start = 0;
				json_tokener_reset(s->tok);
				snprintf(err, errlen, "the input ends inside a JSON value");
				return -1;
			}
			if (s->resync) {
				if (s->buf[0] != '{') {
					s->pos = s->len;
					continue;
				}
				s->resync = false;
			}
		}
		while (s->pos < s->len && strchr(" \t\r\n", s->buf[s->pos]))
			s->pos++;
		if (s->pos >= s->len)
			continue;
		if (!s->start)
			s->start = s->lineno;
		struct json_object *o = json_tokener_parse_ex(s->tok, s->buf + s->pos, (int)(s->len - s->pos));
		enum json_tokener_error e = json_tokener_get_error(s->tok);
		if (e == json_tokener_continue) {
			s->pos = s->len;
			continue;
		}
		if (e != json_tokener_success) {
			char why[160];
			snprintf(why, sizeof(why), "not valid JSON: %s", json_tokener_error_desc(e));
			return fail(s, line, err, errlen, why);
		}
		s->pos += json_tokener_get_parse_end(s->tok);
		*line = s->start;
		s->start = 0;
		json_tokener_reset(s->tok);
		*obj = o;
		return 1;
	}
}
