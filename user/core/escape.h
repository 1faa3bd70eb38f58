/* SPDX-License-Identifier: GPL-2.0-only */
/* escape.h - strings from other people (a process's comm and cmdline, paths,
 * NCCL_* values, reports from other nodes) made safe for a terminal and for
 * a JSON reader.
 *
 * Text: control characters (C0, DEL, the C1 range U+0080..U+009F that
 * terminals also obey) and the bidirectional overrides that reorder what is
 * shown are written as escapes - "\e" for ESC, "\n", "\t", "\r", "\xNN",
 * "\u202e" - and every byte that is not part of valid UTF-8 as "\xNN".  A
 * value with ESC [2J cannot clear the operator's screen, and a value with a
 * newline cannot forge a line of the report.  Backslashes are kept as they
 * are (paths and regexes stay readable).
 *
 * JSON: json-c escapes control characters but copies bytes >= 0x80 as they
 * are; invalid UTF-8 makes strict readers (jq, Python) reject the whole
 * line.  json_utf8_fix rewrites each such byte as the five characters
 * \\xNN (a backslash, "x" and two hex digits in the decoded string). */
#ifndef MRTRACE_CORE_ESCAPE_H
#define MRTRACE_CORE_ESCAPE_H
#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (1..4), 0 when p[0] does not
 * start one, -1 when the n bytes available end inside a sequence that may
 * still be valid. */
int utf8_seq(const unsigned char *p, size_t n);

/* Text escape of s into buf (always NUL-terminated, cut with "..." when it
 * does not fit).  Returns buf. */
const char *esc_text(const char *s, char *buf, size_t len);
/* Same into one of 8 reused buffers, grown as needed: valid until the 8th
 * next call.  For printf arguments; never NULL ("?" if out of memory). */
const char *esc(const char *s);

/* Copy of a serialized JSON text with invalid UTF-8 replaced (malloc'd;
 * NULL when out of memory). */
char *json_utf8_fix(const char *json);
/* Streaming form: appends to out (capacity outcap, at least 6 * n + 1)
 * the fixed form of in[0..n) and returns the bytes written.  *held gets
 * how many bytes at the end of in were kept back because a sequence may
 * continue in the next chunk (final: treat them as invalid instead). */
size_t json_utf8_fix_chunk(const char *in, size_t n, char *out, size_t outcap, size_t *held,
			   int final);

#endif
