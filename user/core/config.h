/* SPDX-License-Identifier: GPL-2.0-only */
/* config.h - /etc/mrtrace/mrtrace.conf and its drop-in directory.
 *
 * The file holds command-line options by section, one `key = value` a line:
 *
 *   [watch]            every `mrtrace watch`
 *   syscalls = auto
 *   [service]          `mrtrace watch --service` only (the systemd unit, the DaemonSet)
 *   metrics-textfile = /var/lib/prometheus/node-exporter/mrtrace.prom
 *   [check]            every `mrtrace check` (thresholds of --health)
 *   min-memlock = 64M
 *
 * Any other section is an error naming its file and line, as is a key that
 * is no option of the command reading it, and a bad value (cfg_argp_error).
 * A key is a long option of that command; `yes`/`no` switch an option that
 * takes no value on or off.  The options become arguments placed before the
 * command line's own, so the command line wins.  Files: the main file, then
 * <main file>.d/NAME.conf in name order; a later value for a key replaces an
 * earlier one.  Nothing here knows the options: the command passes its argp
 * table and every key is checked against it, so a typo names its file and
 * line instead of surfacing as an unknown option nobody typed. */
#ifndef MRTRACE_CORE_CONFIG_H
#define MRTRACE_CORE_CONFIG_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>

#define CFG_DEFAULT_PATH "/etc/mrtrace/mrtrace.conf"

struct cfg_entry {
	char section[32];
	char key[64];
	char *value;      /* malloc'd, whole: a value is never cut */
	char *source;     /* "file:line", malloc'd */
};

struct mrt_config {
	int n, cap;
	struct cfg_entry *e;
	int nfiles; /* files read */
};

/* Parses one file's text into c (appending).  0, or -1 with "file:line:
 * what" in err. */
int cfg_parse_text(const char *text, const char *source, struct mrt_config *c, char *err,
		   size_t errlen);
/* Reads path (NULL: CFG_DEFAULT_PATH), then the .conf files of path.d/.  A missing
 * default file is no error (nothing configured); a missing file that was
 * asked for by name is.  Only regular files of at most 1 MiB are read, opened
 * without blocking (core/regfile.h): a FIFO, a device or a huge file is an
 * error naming it.  0, or -1 with a message in err. */
int cfg_load(const char *path, bool named, struct mrt_config *c, char *err, size_t errlen);
void cfg_free(struct mrt_config *c);
/* The last value of section.key, or NULL. */
const char *cfg_get(const struct mrt_config *c, const char *section, const char *key);

/* A default a command supplies before the file's (the service's paths). */
struct cfg_default {
	const char *key, *value;
};

/* Rebuilds a command's argument vector: argv[0], then the options of the
 * given sections (NULL-terminated list, later sections override earlier
 * ones; defs come before all of them), then the original arguments without
 * --config FILE / --config=FILE / --no-config, which it consumes.  Keys are
 * checked against `argp` (and its children).  The new vector is owned by
 * config.c and lives until cfg_args_release() or exit.  0, or -1 with a
 * message in err (exit 2). */
int cfg_apply_args(const struct argp *argp, const char *const *sections,
		   const struct cfg_default *defs, int *argc, char ***argv, char *err,
		   size_t errlen);

/* "file:line" of an argument cfg_apply_args made from the file (the very
 * pointer it put in the vector), or NULL for one the user typed. */
const char *cfg_arg_source(const char *arg);
/* argp_error() for an option's bad value, prefixed with the file:line the
 * value came from when it came from the configuration: "mrtrace watch:
 * /etc/mrtrace/mrtrace.conf:9: invalid --metrics-interval 'x' ...". */
void cfg_argp_error(const struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Frees every vector cfg_apply_args made (their strings too); the argv
 * pointers it returned are dangling afterwards. */
void cfg_args_release(void);

/* The options --config and --no-config, for a command's --help (the values
 * were consumed by cfg_apply_args before argp runs). */
extern const struct argp cfg_argp;

/* "64M", "1G", "65536", "unlimited" -> bytes (UINT64_MAX for unlimited),
 * by parse_bytes (core/units.h).  0, or -1: malformed, negative, inf, nan
 * or 2^64 bytes and more. */
int cfg_parse_bytes(const char *s, unsigned long long *out);

#endif
