/* SPDX-License-Identifier: GPL-2.0-only */
/* stream.h - JSON values from a file, one after another, each with the
 * line it starts on: JSON Lines as `mrtrace watch --json` writes them, or
 * pretty-printed records (the test fixtures, a record someone reformatted
 * with jq).  A malformed value is reported and skipped; reading goes on
 * with the next line that starts a value. */
#ifndef MRTRACE_REPLAY_STREAM_H
#define MRTRACE_REPLAY_STREAM_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

struct replay_stream;

/* Reads from f (not closed by replay_stream_free).  NULL when out of memory. */
struct replay_stream *replay_stream_new(FILE *f);
void replay_stream_free(struct replay_stream *s);

/* The next value: 1 with *obj (the caller puts it) and *line; 0 at the end;
 * -1 for a malformed value or a read error, with *line where it started
 * and the reason in err. */
int replay_stream_next(struct replay_stream *s, struct json_object **obj, long *line, char *err,
		       size_t errlen);

#endif
