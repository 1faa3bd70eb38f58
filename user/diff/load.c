// SPDX-License-Identifier: GPL-2.0-only
/* load.c - read one report as untrusted input (see diff.h): only files and
 * pipes, at most DIFF_REPORT_MAX bytes and DIFF_CONTAINERS_MAX objects and
 * arrays (json-c spends ~800 bytes per object: a 16 MiB file of "{}" would
 * otherwise take gigabytes), one JSON document, schema mrtrace-check/1. */
#include "diff/model.h"
#include "diff/diff.h"

#include "core/inputfd.h"
#include "core/readcap.h"
#include "core/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_stdin(const char *arg)
{
	return !strcmp(arg, "-");
}

/* A report by name is opened by core/inputfd.h: the name resolved once
 * (O_PATH), checked on that inode, and only that inode opened, so a device,
 * a directory, a socket or a named FIFO (reading one waits for ever: issue
 * 48 item B) is refused unopened; a pipe (<(...)) is read.  Standard input
 * is the operator's own: a FIFO there is read, a device is not. */
static int open_source(const struct diff_source *s, struct stat *st, char *err, size_t len)
{
	const char *why = NULL;
	int fd;

	if (is_stdin(s->arg)) {
		if (fstat(0, st))
			return fail(err, len, "%s: %s", s->shown, strerror(errno));
		why = input_refused(st->st_mode);
		fd = 0;
	} else if ((fd = input_open(s->arg, st, &why)) < 0 && !why) {
		return fail(err, len, "%s: %s", s->shown, strerror(-fd));
	}
	if (why) {
		if (S_ISDIR(st->st_mode))
			return fail(err, len, "%s: is a directory, not a report", s->shown);
		return fail(err, len, "%s: %s; give the file that `mrtrace check --json` wrote",
			    s->shown, why);
	}
	if (fd)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK); /* a pipe is waited on */
	return fd;
}

static void close_source(int fd)
{
	if (fd > 0)
		close(fd);
}

int diff_source_stat(const char *arg, struct diff_source *s, char *err, size_t len)
{
	struct stat st;
	s->arg = arg;
	s->shown = is_stdin(arg) ? "standard input" : arg;
	if (is_stdin(arg) && isatty(0))
		return fail(err, len, "standard input is a terminal: redirect a report into it "
			    "(mrtrace diff - a.json < b.json)");
	/* opened (and closed: a fleet's reports are many more than the
	 * descriptors a process may hold) for the file it is */
	int fd = open_source(s, &st, err, len);
	if (fd < 0)
		return -1;
	close_source(fd);
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return 0;
}

static int read_all(const struct diff_source *s, char **buf, size_t *got, char *err, size_t len)
{
	struct stat st;
	int rc;
	int fd = open_source(s, &st, err, len);
	if (fd < 0)
		return -1;
	/* the file it was when the reports were told apart, or none */
	if (st.st_dev != s->dev || st.st_ino != s->ino)
		rc = fail(err, len, "%s: replaced since it was first opened", s->shown);
	else if (S_ISREG(st.st_mode) && st.st_size > (off_t)DIFF_REPORT_MAX)
		rc = -EFBIG;
	else
		rc = readcap_fd(fd, DIFF_REPORT_MAX, buf, got);
	close_source(fd);
	if (rc == -EFBIG)
		return fail(err, len, "%s: too large for a report (more than %u MiB; a node's "
			    "report is a few KiB)", s->shown, DIFF_REPORT_MAX >> 20);
	if (rc == -ENOMEM)
		return fail(err, len, "%s: out of memory reading it", s->shown);
	if (rc < -1)
		return fail(err, len, "%s: read error: %s", s->shown, strerror(-rc));
	return rc;
}

/* Objects and arrays outside strings; stops counting past the limit. */
static size_t containers(const char *p, size_t n)
{
	size_t c = 0;
	bool in_str = false;
	for (size_t i = 0; i < n && c <= DIFF_CONTAINERS_MAX; i++) {
		if (in_str) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_str = false;
		} else if (p[i] == '"') {
			in_str = true;
		} else if (p[i] == '{' || p[i] == '[') {
			c++;
		}
	}
	return c;
}

static const char *kind_of(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double:
	case json_type_int: return "a number";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	case json_type_object: return "an object";
	}
	return "something else";
}

/* Schema, host name and item list: what makes a document a report. */
static int validate(const char *shown, json_object *doc, char *err, size_t len)
{
	static const char what[] = "not a `mrtrace check --json` report";
	if (!json_object_is_type(doc, json_type_object))
		return fail(err, len, "%s: %s (the document is %s, not an object)", shown, what,
			    kind_of(doc));
	json_object *v, *h;
	if (!json_object_object_get_ex(doc, "schema", &v) || !json_object_is_type(v, json_type_string))
		return fail(err, len, "%s: %s (no \"schema\" string)", shown, what);
	if (strcmp(json_object_get_string(v), SCHEMA_CHECK))
		return fail(err, len, "%s: schema \"%.64s\", this mrtrace reads \"%s\"", shown,
			    json_object_get_string(v), SCHEMA_CHECK);
	if (!json_object_object_get_ex(doc, "host", &h) || !json_object_is_type(h, json_type_object) ||
	    !json_object_object_get_ex(h, "hostname", &v) || !json_object_is_type(v, json_type_string))
		return fail(err, len, "%s: incomplete report: \"host.hostname\" missing or not a string",
			    shown);
	if (!json_object_object_get_ex(doc, "items", &v) || !json_object_is_type(v, json_type_array))
		return fail(err, len, "%s: incomplete report: \"items\" missing or not an array", shown);
	return 0;
}

int diff_load(const struct diff_source *s, json_object **out, char *err, size_t len)
{
	char *buf = NULL;
	size_t got = 0;
	*out = NULL;
	if (read_all(s, &buf, &got, err, len))
		return -1;
	size_t start = strspn(buf, " \t\r\n");
	if (start >= got) {
		free(buf);
		return fail(err, len, "%s: empty file, expected the output of `mrtrace check --json`",
			    s->shown);
	}
	if (containers(buf, got) > DIFF_CONTAINERS_MAX) {
		free(buf);
		return fail(err, len, "%s: too large for a report (more than %d JSON objects and "
			    "arrays)", s->shown, DIFF_CONTAINERS_MAX);
	}
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		free(buf);
		return fail(err, len, "%s: out of memory", s->shown);
	}
	/* the NUL ends the document: a number or "null" at the very end is
	 * complete, and a NUL inside the file is extra data */
	errno = 0;
	json_object *doc = json_tokener_parse_ex(tok, buf, (int)got + 1);
	/* json-c 0.16 has no error code for a failed allocation: it stops
	 * early, sometimes with "success"; malloc's errno tells */
	bool oom = errno == ENOMEM;
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t off = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (oom) {
		free(buf);
		json_object_put(doc);
		return fail(err, len, "%s: out of memory parsing it (%zu bytes)", s->shown, got);
	}
	if (je != json_tokener_success) {
		free(buf);
		json_object_put(doc);
		return fail(err, len, "%s: not valid JSON (%s near byte %zu)", s->shown,
			    je == json_tokener_continue ? "unexpected end of file" :
			    json_tokener_error_desc(je), off);
	}
	size_t rest = off + strspn(buf + off, " \t\r\n");
	free(buf);
	if (rest < got) {
		json_object_put(doc);
		return fail(err, len, "%s: more than one JSON document (extra data at byte %zu); "
			    "give one report per file", s->shown, rest);
	}
	if (validate(s->shown, doc, err, len)) {
		json_object_put(doc);
		return -1;
	}
	*out = doc;
	return 0;
}
