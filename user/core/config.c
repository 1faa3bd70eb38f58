// SPDX-License-Identifier: GPL-2.0-only
/* config.c - the configuration file as command-line options (config.h). */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/regfile.h"
#include "core/sysroot.h"
#include "core/units.h"

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

static int add(struct mrt_config *c, const char *sec, const char *key, const char *val,
	       const char *src)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 16;
		struct cfg_entry *e = realloc(c->e, cap * sizeof(*e));
		if (!e)
			return -1;
		c->e = e;
		c->cap = cap;
	}
	/* the value and its source whole, however long: a cut path would be
	 * written to (section and key are bounded, and checked, by the parser) */
	char *v = strdup(val), *where = strdup(src);
	if (!v || !where) {
		free(v);
		free(where);
		return -1;
	}
	struct cfg_entry *e = &c->e[c->n++];
	snprintf(e->section, sizeof(e->section), "%s", sec);
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->value = v;
	e->source = where;
	return 0;
}

/* The sections the commands read (config.h): any other is a typo ([wach])
 * that would be skipped without a word, its options never applied. */
static const char *const known_sections[] = { "watch", "service", "check", NULL };

static bool section_known(const char *name)
{
	for (int i = 0; known_sections[i]; i++)
		if (!strcmp(known_sections[i], name))
			return true;
	return false;
}

/* One line: a comment, a [section] (copied into section) or key = value. */
static int parse_line(char *line, const char *where, char *section, size_t seclen,
		      struct mrt_config *c, char *err, size_t errlen)
{
	char *s = trim(line);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (!end || trim(end + 1)[0])
			return fail(err, errlen, "%s: expected [section]", where);
		*end = 0;
		char *name = trim(s + 1);
		if (!*name || strlen(name) >= seclen)
			return fail(err, errlen, "%s: bad section name", where);
		if (!section_known(name))
			return fail(err, errlen, "%s: unknown section [%.31s] (the sections are [watch], "
				    "[service] and [check])", where, name);
		snprintf(section, seclen, "%s", name);
		return 0;
	}
	char *eq = strchr(s, '=');
	if (!eq)
		return fail(err, errlen, "%s: expected key = value", where);
	*eq = 0;
	char *key = trim(s), *val = trim(eq + 1);
	size_t vl = strlen(val);
	/* a value may be quoted to keep its spaces */
	if (vl >= 2 && (val[0] == '"' || val[0] == '\'') && val[vl - 1] == val[0]) {
		val[vl - 1] = 0;
		val++;
	}
	if (!section[0])
		return fail(err, errlen, "%s: '%.64s' before any [section]", where, key);
	if (!*key || strlen(key) >= sizeof(c->e[0].key) || key[0] == '-')
		return fail(err, errlen, "%s: bad key '%.64s' (write the long option without "
				 "dashes)", where, key);
	if (add(c, section, key, val, where))
		return fail(err, errlen, "out of memory");
	return 0;
}

int cfg_parse_text(const char *text, const char *source, struct mrt_config *c, char *err,
		   size_t errlen)
{
	char section[32] = "";
	int lineno = 0, rc = 0;
	const char *p = text;

	while (*p && !rc) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n), *where = NULL;
		lineno++;
		p += n + (p[n] == '\n');
		if (!line || asprintf(&where, "%s:%d", source, lineno) < 0) {
			free(line);
			return fail(err, errlen, "out of memory");
		}
		rc = parse_line(line, where, section, sizeof(section), c, err, errlen);
		free(line);
		free(where);
	}
	return rc;
}

/* Bounds the configuration's files: they hold a few options, so anything
 * larger is a mistake, not a configuration to read into memory. */
#define CFG_FILE_MAX (1 << 20)

/* One file, read only if it is a regular file (core/regfile.h): a FIFO as
 * --config or in FILE.d/ cannot hang the command, /dev/zero cannot fill
 * its memory.  -ENOENT comes back without a message, for cfg_load. */
static int load_file(const char *path, struct mrt_config *c, char *err, size_t errlen)
{
	size_t len = 0;
	char *text = NULL;
	int r = regfile_read(path, 0, CFG_FILE_MAX, &text, &len);
	if (r == -EFBIG)
		return fail(err, errlen, "config %s: too large (more than %d bytes)", path,
			    CFG_FILE_MAX);
	if (r) {
		fail(err, errlen, "config %s: %s", path, regfile_strerror(r));
		return r == -ENOENT ? -ENOENT : -1;
	}
	if (memchr(text, '\0', len)) {
		free(text);
		return fail(err, errlen, "config %s: holds a NUL byte: not a text file", path);
	}
	int rc = cfg_parse_text(text, path, c, err, errlen);
	free(text);
	c->nfiles += !rc;
	return rc;
}

int cfg_load(const char *path, bool named, struct mrt_config *c, char *err, size_t errlen)
{
	char dir[4096];
	char **names = NULL;

	if (!path)
		path = CFG_DEFAULT_PATH;
	int r = load_file(path, c, err, errlen);
	if (r && (r != -ENOENT || named))
		return -1;
	if (snprintf(dir, sizeof(dir), "%s.d", path) >= (int)sizeof(dir))
		return fail(err, errlen, "config %s: %s", path, strerror(ENAMETOOLONG));
	int n = sr_list(NULL, dir, &names);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		char file[8192];
		if (l < 6 || strcmp(names[i] + l - 5, ".conf"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, names[i]);
		/* a drop-in that went away since the listing is no error */
		r = load_file(file, c, err, errlen);
		if (r && r != -ENOENT) {
			sr_free_names(names, n);
			return -1;
		}
	}
	if (n > 0)
		sr_free_names(names, n);
	return 0;
}

void cfg_free(struct mrt_config *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->e[i].value);
		free(c->e[i].source);
	}
	free(c->e);
	memset(c, 0, sizeof(*c));
}

const char *cfg_get(const struct mrt_config *c, const char *section, const char *key)
{
	for (int i = c->n - 1; i >= 0; i--)
		if (!strcmp(c->e[i].section, section) && !strcmp(c->e[i].key, key))
			return c->e[i].value;
	return NULL;
}

/* ---- keys against the command's options ------------------------------------ */

static bool opt_end(const struct argp_option *o)
{
	return !o->key && !o->name && !o->doc && !o->group;
}

/* 1: option without a value, 2: takes a value, 0: unknown. */
static int find_option(const struct argp *argp, const char *name)
{
	if (!argp)
		return 0;
	const struct argp_option *prev = NULL;
	for (const struct argp_option *o = argp->options; o && !opt_end(o); o++) {
		const struct argp_option *real = (o->flags & OPTION_ALIAS) && prev ? prev : o;
		if (!(o->flags & OPTION_ALIAS))
			prev = o;
		if (o->name && !strcmp(o->name, name))
			return real->arg ? 2 : 1;
	}
	for (const struct argp_child *ch = argp->children; ch && ch->argp; ch++) {
		int k = find_option(ch->argp, name);
		if (k)
			return k;
	}
	return 0;
}

static int yes_no(const char *v)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		return 1;
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		return 0;
	return -1;
}

/* The vectors cfg_apply_args made, with the option strings it wrote into
 * them: kept here until cfg_args_release (or exit), so they stay reachable
 * after the caller's main() frame is gone and are freed exactly once. */
struct cfg_vector {
	struct cfg_vector *next;
	char **argv;
	char **sources; /* "file:line" of owned[i] (cfg_argp_error) */
	int nowned;
	char *owned[];
};
static struct cfg_vector *cfg_vectors;

static void cfg_vectors_free_one(struct cfg_vector *v)
{
	for (int i = 0; i < v->nowned; i++) {
		free(v->owned[i]);
		free(v->sources[i]);
	}
	free(v->sources);
	free(v->argv);
	free(v);
}

void cfg_args_release(void)
{
	while (cfg_vectors) {
		struct cfg_vector *v = cfg_vectors;
		cfg_vectors = v->next;
		cfg_vectors_free_one(v);
	}
}

int cfg_apply_args(const struct argp *argp, const char *const *sections,
		   const struct cfg_default *defs, int *argc, char ***argv, char *err,
		   size_t errlen)
{
	const char *path = NULL;
	bool named = false, none = false;
	int oc = *argc;
	char **ov = *argv;

	/* --config belongs to us; stop at "--" (the traced command's own). */
	for (int i = 1; i < oc; i++) {
		if (!strcmp(ov[i], "--"))
			break;
		if (!strcmp(ov[i], "--no-config")) {
			none = true;
		} else if (!strncmp(ov[i], "--config=", 9)) {
			path = ov[i] + 9;
			named = true;
		} else if (!strcmp(ov[i], "--config")) {
			if (i + 1 >= oc)
				return fail(err, errlen, "--config needs a file");
			path = ov[++i];
			named = true;
		}
	}
	struct mrt_config c = { 0 };
	for (const struct cfg_default *d = defs; d && d->key; d++)
		if (add(&c, "", d->key, d->value, "built-in default"))
			return fail(err, errlen, "out of memory");
	if (!none && cfg_load(path, named, &c, err, errlen)) {
		cfg_free(&c);
		return -1;
	}

	/* Keep the last value per key over (defaults, sections in order). */
	int nsel = 0;
	struct cfg_entry **sel = calloc(c.n ? c.n : 1, sizeof(*sel));
	char **nv = calloc(oc + c.n + 1, sizeof(*nv));
	struct cfg_vector *kept = calloc(1, sizeof(*kept) + (c.n + 1) * sizeof(char *));
	char **srcs = calloc(c.n + 1, sizeof(*srcs));
	if (!sel || !nv || !kept || !srcs) {
		free(sel);
		free(nv);
		free(kept);
		free(srcs);
		cfg_free(&c);
		return fail(err, errlen, "out of memory");
	}
	for (int rank = -1; sections && (rank < 0 || sections[rank]); rank++)
		for (int i = 0; i < c.n; i++) {
			struct cfg_entry *e = &c.e[i];
			if (strcmp(e->section, rank < 0 ? "" : sections[rank]))
				continue;
			int k = 0;
			for (; k < nsel && strcmp(sel[k]->key, e->key); k++)
				;
			sel[k] = e;
			nsel += k == nsel;
		}
	kept->sources = srcs;
	int nc = 0, rc = 0;
	nv[nc++] = ov[0];
	for (int k = 0; k < nsel && !rc; k++) {
		struct cfg_entry *e = sel[k];
		int kind = find_option(argp, e->key);
		char *arg = NULL;
		if (!kind) {
			rc = fail(err, errlen, "%s: '%s' is not an option of this command", e->source,
				  e->key);
		} else if (kind == 1) {
			int yn = yes_no(e->value);
			if (yn < 0)
				rc = fail(err, errlen, "%s: %s takes yes or no, not '%s'", e->source,
					  e->key, e->value);
			else if (yn && asprintf(&arg, "--%s", e->key) < 0)
				rc = fail(err, errlen, "out of memory");
		} else if (asprintf(&arg, "--%s=%s", e->key, e->value) < 0) {
			rc = fail(err, errlen, "out of memory");
		}
		if (arg) {
			char *src = strdup(e->source);
			if (!src) {
				free(arg);
				rc = fail(err, errlen, "out of memory");
				break;
			}
			nv[nc++] = arg;
			kept->sources[kept->nowned] = src;
			kept->owned[kept->nowned++] = arg;
		}
	}
	bool after_dashes = false;
	for (int i = 1; i < oc && !rc; i++) {
		if (!after_dashes) {
			if (!strcmp(ov[i], "--"))
				after_dashes = true;
			else if (!strcmp(ov[i], "--no-config") || !strncmp(ov[i], "--config=", 9))
				continue;
			else if (!strcmp(ov[i], "--config")) {
				i++;
				continue;
			}
		}
		nv[nc++] = ov[i];
	}
	nv[nc] = NULL;
	free(sel);
	cfg_free(&c);
	kept->argv = nv;
	if (rc) {
		kept->next = NULL;
		cfg_vectors_free_one(kept);
		return -1;
	}
	kept->next = cfg_vectors;
	cfg_vectors = kept;
	*argc = nc;
	*argv = nv;
	return 0;
}

const char *cfg_arg_source(const char *arg)
{
	for (const struct cfg_vector *v = cfg_vectors; v && arg; v = v->next)
		for (int i = 0; i < v->nowned; i++)
			if (v->owned[i] == arg)
				return v->sources[i];
	return NULL;
}

void cfg_argp_error(const struct argp_state *state, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the option being parsed is argv[next - 1]: "--key=value" from the file */
	const char *src = state->next > 0 && state->next <= state->argc ?
		cfg_arg_source(state->argv[state->next - 1]) : NULL;
	if (src)
		argp_error(state, "%s: %s", src, msg);
	else
		argp_error(state, "%s", msg);
}

static const struct argp_option cfg_opts[] = {
	{ "config", 0x4001, "FILE", 0,
	  "Options from FILE (and FILE.d/*.conf) instead of " CFG_DEFAULT_PATH
	  "; the command line wins over the file", 0 },
	{ "no-config", 0x4002, NULL, 0, "Read no configuration file", 0 },
	{ 0 },
};

static error_t cfg_parse_noop(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	return key == 0x4001 || key == 0x4002 ? 0 : ARGP_ERR_UNKNOWN;
}

const struct argp cfg_argp = { cfg_opts, cfg_parse_noop, NULL, NULL, NULL, NULL, NULL };

/* The one size parser (core/units.h), without its "-1": a threshold such
 * as --min-memlock is never negative, and a typo must not become
 * "unlimited". */
int cfg_parse_bytes(const char *s, unsigned long long *out)
{
	uint64_t v;
	if (!s || s[0] == '-' || parse_bytes(s, &v))
		return -1;
	*out = v;
	return 0;
}
