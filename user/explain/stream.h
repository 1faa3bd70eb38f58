/* SPDX-License-Identifier: GPL-2.0-only */
/* stream.h - JSON values from a file, one after another, each with the
 * line it starts on: JSON Lines as `mrtrace watch --json` writes them, or
 * pretty-printed records (the test fixtures, a record someone reformatted
 * with jq).  A malformed value is reported and skipped; reading goes on
 * with the next line that starts a value.
 *
 * Whatever the input, memory stays bounded: it is read a line (or 64 KiB
 * of one) at a time, a value may be REPLAY_VALUE_MAX long, and after
 * REPLAY_JUNK_MAX bytes in a row without a line that starts a value the
 * rest is not read (one error).  A NUL byte is malformed input, never
 * whitespace.  A device (/dev/zero), a socket, a directory or a named FIFO
 * is refused before it is read, checked on the inode its name resolved to
 * and that inode only then opened; a pipe (<(...)), or a FIFO on standard
 * input, is read. */
#ifndef MRTRACE_EXPLAIN_STREAM_H
#define MRTRACE_EXPLAIN_STREAM_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Bounds on what is read (docs/mrtrace.8, explain): one JSON value (a
 * record is a few KiB), and junk skipped in a row before the rest of an
 * input is given up (a pipe from /dev/zero never ends). */
#define REPLAY_VALUE_MAX (4u << 20)
#define REPLAY_JUNK_MAX (64u << 20)
/* Objects, arrays and elements of one value ('{', '[' and ',' counted
 * before json-c sees them, strings included): a 4 MiB value of tiny
 * objects ([{},{},...]) costs json-c about 1 GB; a record has hundreds. */
#define REPLAY_NODES_MAX 65536u

struct replay_stream;

/* Reads from f (not closed by replay_stream_free).  NULL when out of memory. */
struct replay_stream *replay_stream_new(FILE *f);
/* Opens path ("-": standard input) if it is a file or a pipe, and
 * reads from it (closed by replay_stream_free).  NULL with the reason in
 * err ("cannot read F: ...", "F: not a regular file (a device) ..."). */
struct replay_stream *replay_stream_open(const char *path, char *err, size_t errlen);
void replay_stream_free(struct replay_stream *s);

/* The next value: 1 with *obj (the caller puts it) and *line; 0 at the end;
 * -1 for a malformed value, with *line where it started and the reason in
 * err.  After a read error or too much junk (-1 once, "...: the rest is
 * not read") it returns 0.  With replay_stream_keep_lines on, also 2 with
 * *line for a line outside any value that is no JSON text (a log line:
 * replay_stream_line has it), where it would otherwise be skipped as junk
 * after an error. */
int replay_stream_next(struct replay_stream *s, struct json_object **obj, long *line, char *err,
		       size_t errlen);
/* Off by default: every line is JSON text or junk (watch's own files). */
void replay_stream_keep_lines(struct replay_stream *s, bool on);
/* After rc 2: the line without its end of line, at most 64 KiB of it (the
 * rest of a longer line is skipped); valid until the next call. */
const char *replay_stream_line(const struct replay_stream *s, size_t *len);

#endif
