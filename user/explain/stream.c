// SPDX-License-Identifier: GPL-2.0-only
/* stream.c - JSON values with their line numbers (see stream.h), fed to
 * json-c's incremental tokener a piece at a time: a line, or a part of
 * one of at most PIECE bytes, so neither a line without end nor a value
 * without end is ever held whole (issue 24 row 3: `explain /dev/zero`
 * grew without bound, a 2 GiB line overflowed an int). */
#include "core/inputfd.h"
#include "explain/stream.h"
#include "logs/logline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PIECE (64u << 10)

struct replay_stream {
	FILE *f;
	bool own; /* opened by replay_stream_open: closed with the stream */
	json_tokener *tok;
	char buf[PIECE]; /* the current piece: a line or a part of one */
	size_t len, pos; /* its length, and how far it has been parsed */
	bool starts_line; /* buf begins a line */
	bool at_eol; /* the last piece ended a line (the next begins one) */
	long lineno; /* the line buf is (a part of) */
	long start; /* line of the value being parsed, 0 when none */
	size_t value_bytes; /* of the value being parsed, so far */
	size_t value_nodes; /* '{', '[' and ',' given to json-c for it, so far */
	bool resync; /* after an error: skip to a line that starts with '{' */
	bool keep_lines; /* a line that is no JSON is handed out (rc 2) */
	bool line_out; /* buf is such a line, handed out: the next call moves on */
	uint64_t skipped; /* bytes skipped in a row while resyncing */
	bool ended; /* a read error, or junk past REPLAY_JUNK_MAX: nothing more */
};

struct replay_stream *replay_stream_new(FILE *f)
{
	struct replay_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->tok = json_tokener_new())) {
		free(s);
		return NULL;
	}
	s->f = f;
	s->at_eol = true;
	return s;
}

/* Devices are refused before anything is read (input_refused): /dev/zero
 * never ends, and opening some devices does something.  A pipe is read (ssh
 * node7 cat events.jsonl | mrtrace explain -, or <(...)); a FIFO by its name
 * is refused (log_input_open), on standard input it is read. */
struct replay_stream *replay_stream_open(const char *path, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	const char *why = NULL;
	FILE *f;

	/* A name is checked on what it resolves to, by log_input_open (an
	 * O_PATH descriptor, then that inode opened): no stat() of the name
	 * before an open() of it, which a swap in between turned into root
	 * opening a FIFO or a device (issue 34).  A rotated
	 * events.jsonl.1.gz reads like the plain file (user/logs/open.c). */
	bool gz;
	if (!(f = in ? stdin : log_input_open(path, &gz, err, errlen))) {
		/* the hint for the device that explain is most often given */
		if (!in && strstr(err, "(a device)") && strlen(err) + 48 < errlen)
			strcat(err, ": give the file `mrtrace watch --json` wrote");
		return NULL;
	}
	if (in && (fstat(fileno(f), &st) || (why = input_refused(st.st_mode)))) {
		snprintf(err, errlen, "standard input: %s", why ? why : strerror(errno));
		return NULL;
	}
	struct replay_stream *s = replay_stream_new(f);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		if (!in)
			fclose(f);
		return NULL;
	}
	s->own = !in;
	return s;
}

void replay_stream_free(struct replay_stream *s)
{
	if (!s)
		return;
	json_tokener_free(s->tok);
	if (s->own)
		fclose(s->f);
	free(s);
}

/* 1 with the next piece in buf, 0 at the end, -1 on a read error. */
static int next_piece(struct replay_stream *s)
{
	size_t n = 0;
	int c = 0;

	while (n < PIECE && (c = getc_unlocked(s->f)) != EOF) {
		s->buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (!n)
		return ferror(s->f) ? -1 : 0;
	s->starts_line = s->at_eol;
	if (s->starts_line)
		s->lineno++;
	s->at_eol = s->buf[n - 1] == '\n';
	s->len = n;
	s->pos = 0;
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
	if (s->lineno > s->start && s->start && s->starts_line && s->buf[0] == '{') {
		s->pos = 0;
		s->resync = false;
	} else {
		s->pos = s->len;
		s->resync = true;
		s->skipped = 0;
	}
	s->start = 0;
	s->value_bytes = 0;
	s->value_nodes = 0;
	return -1;
}

/* The end of the input, for good: nothing after this is read. */
static int give_up(struct replay_stream *s, long *line, char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	*line = s->lineno;
	s->ended = true;
	s->start = 0;
	json_tokener_reset(s->tok);
	return -1;
}

/* JSON's whitespace; a NUL byte is not (it is not JSON text at all). */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void replay_stream_keep_lines(struct replay_stream *s, bool on)
{
	s->keep_lines = on;
}

const char *replay_stream_line(const struct replay_stream *s, size_t *len)
{
	size_t n = s->len;

	while (n && (s->buf[n - 1] == '\n' || s->buf[n - 1] == '\r'))
		n--;
	*len = n;
	return s->buf;
}

/* Whether a piece that begins a line, outside any value, is a log line and
 * not JSON text: its first character past the blanks can start no record
 * and continue none ({ } [ ] " , of a value cut short, which resync skips
 * as before); "[" is JSON only before "{", "[", "]" or the line's end, so
 * dmesg's "[ 1203.11]" and PyTorch's "[rank3]:" are log lines.  A NUL byte
 * is neither: junk, as it always was. */
static bool is_log_line(const struct replay_stream *s)
{
	size_t i = 0;

	if (!s->starts_line || memchr(s->buf, '\0', s->len))
		return false;
	while (i < s->len && is_space(s->buf[i]))
		i++;
	if (i == s->len)
		return false;
	switch (s->buf[i]) {
	case '{': case '}': case ']': case '"': case ',':
		return false;
	case '[':
		for (i++; i < s->len && is_space(s->buf[i]); i++)
			;
		return !(i == s->len || s->buf[i] == '{' || s->buf[i] == '[' || s->buf[i] == ']');
	default:
		return true;
	}
}

int replay_stream_next(struct replay_stream *s, struct json_object **obj, long *line, char *err,
		       size_t errlen)
{
	*obj = NULL;
	if (s->ended)
		return 0;
	if (s->line_out) {
		/* the rest of a log line longer than a piece is not a line */
		s->line_out = false;
		s->pos = s->len;
		while (!s->at_eol && next_piece(s) > 0)
			s->pos = s->len;
	}
	for (;;) {
		if (s->pos >= s->len) {
			int rc = next_piece(s);
			if (rc < 0) {
				char why[160];
				snprintf(why, sizeof(why), "read error: %s: the rest is not read",
					 strerror(errno ? errno : EIO));
				rc = give_up(s, line, err, errlen, why);
				*line = s->lineno + 1;
				return rc;
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
			/* a log line among the records (a journald export with
			 * NCCL's lines beside it, a record file someone appended
			 * a job's output to): decided per line, never dropped */
			if (s->keep_lines && !s->start && is_log_line(s)) {
				s->resync = false;
				s->skipped = 0;
				s->line_out = true;
				*line = s->lineno;
				return 2;
			}
			if (s->resync) {
				if (!s->starts_line || s->buf[0] != '{') {
					s->skipped += s->len;
					s->pos = s->len;
					if (s->skipped > REPLAY_JUNK_MAX) {
						char why[160];
						snprintf(why, sizeof(why),
							 "more than %u MiB without a record: the rest is "
							 "not read", REPLAY_JUNK_MAX >> 20);
						return give_up(s, line, err, errlen, why);
					}
					continue;
				}
				s->resync = false;
			}
		}
		while (s->pos < s->len && is_space(s->buf[s->pos]))
			s->pos++;
		if (s->pos >= s->len)
			continue;
		if (s->buf[s->pos] == '\0')
			return fail(s, line, err, errlen, "a NUL byte: not JSON text");
		if (!s->start) {
			s->start = s->lineno;
			s->value_bytes = 0;
			s->value_nodes = 0;
		}
		/* up to a NUL, which the tokener must never see (it would end
		 * the text there): the loop refuses it above */
		size_t n = s->len - s->pos;
		const char *nul = memchr(s->buf + s->pos, '\0', n);
		if (nul)
			n = (size_t)(nul - (s->buf + s->pos));
		/* counted before the tokener builds them: what a value may cost
		 * is bounded by REPLAY_NODES_MAX, not by its bytes */
		for (size_t i = 0; i < n; i++) {
			char c = s->buf[s->pos + i];
			s->value_nodes += c == '{' || c == '[' || c == ',';
		}
		if (s->value_nodes > REPLAY_NODES_MAX) {
			char why[160];
			snprintf(why, sizeof(why), "a JSON value of more than %u objects, arrays or "
				 "elements: not a record", REPLAY_NODES_MAX);
			return fail(s, line, err, errlen, why);
		}
		struct json_object *o = json_tokener_parse_ex(s->tok, s->buf + s->pos, (int)n);
		enum json_tokener_error e = json_tokener_get_error(s->tok);
		size_t used = e == json_tokener_success ? json_tokener_get_parse_end(s->tok) : n;
		if ((e == json_tokener_continue || e == json_tokener_success) &&
		    (s->value_bytes += used) > REPLAY_VALUE_MAX) {
			char why[160];
			json_object_put(o);
			snprintf(why, sizeof(why), "a JSON value of more than %u MiB: not a record",
				 REPLAY_VALUE_MAX >> 20);
			return fail(s, line, err, errlen, why);
		}
		if (e == json_tokener_continue) {
			s->pos += n;
			continue;
		}
		if (e != json_tokener_success) {
			char why[160];
			snprintf(why, sizeof(why), "not valid JSON: %s", json_tokener_error_desc(e));
			return fail(s, line, err, errlen, why);
		}
		s->pos += used;
		*line = s->start;
		s->start = 0;
		json_tokener_reset(s->tok);
		*obj = o;
		return 1;
	}
}
