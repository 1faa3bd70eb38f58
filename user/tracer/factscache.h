/* SPDX-License-Identifier: GPL-2.0-only */
/* factscache.h - the kernel facts of facts.h kept on disk between starts,
 * one file per kernel build: gathering them reads /proc/kallsyms and the
 * kernel's BTF and loads a probe program per function (~0.1 s), while they
 * change only with the kernel, its loaded modules and the mrtrace binary.
 *
 * A cached fact only chooses what to try: a load or attach that fails is
 * still demoted or disarmed by regload.c, so a stale file costs a fallback,
 * never a wrong claim.  Anything doubtful (another format, another mrtrace,
 * another kernel or module set, a bad checksum, a value out of range, a
 * file not owned by us or writable by others) is a miss, and the caller
 * gathers afresh and rewrites the file. */
#ifndef MRTRACE_TRACER_FACTSCACHE_H
#define MRTRACE_TRACER_FACTSCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/facts.h"

#define FACTSCACHE_DIR "/var/cache/mrtrace/facts"

/* What the cached facts depend on; all of it must match. */
struct factscache_key {
	char release[128]; /* uname -r */
	/* the kernel's GNU build id (hex, /sys/kernel/notes), else uname -v */
	char build[128];
	uint64_t modules; /* hash of /proc/modules' names and sizes */
	/* hash of what was asked (the site table's names) and of the mrtrace
	 * binary (a rebuild may gather differently) */
	uint64_t asked;
};

/* The key of the running kernel: release and build from uname and
 * `notes` (NULL: /sys/kernel/notes), the module set from `modules` (NULL:
 * /proc/modules), `asked` as given.  0, or -1 with a message. */
int factscache_key(struct factscache_key *k, const char *notes, const char *modules,
		   uint64_t asked, char *err, size_t errlen);

/* 64-bit FNV-1a, continued from h (start with FACTSCACHE_HASH0). */
#define FACTSCACHE_HASH0 0xcbf29ce484222325ULL
uint64_t factscache_hash(uint64_t h, const void *p, size_t n);

/* The cache file for key k under dir (NULL: $MRTRACE_CACHE_DIR, else
 * FACTSCACHE_DIR): "<dir>/<release>-<asked>-<modules>.facts" (16 hex
 * digits each), so that two mrtrace builds on one kernel do not replace
 * each other's file, and the facts of a module set seen before are found
 * again when it is back (a re-arm after modprobe reads them instead of
 * gathering: rearm.c).  0, or -1 (too long). */
int factscache_path(char *buf, size_t len, const char *dir, const struct factscache_key *k);

/* The files of k's kernel and binary under dir (NULL as above), all module
 * sets: the oldest (by mtime) removed until `keep` are left.  How many
 * were removed. */
#define FACTSCACHE_KEEP 8
int factscache_prune(const char *dir, const struct factscache_key *k, int keep);

/* Reads the facts at path into f when the file is whole and made for k by
 * this mrtrace (version).  0, or -1 with why it was not used ("absent",
 * "corrupt", "from mrtrace 0.8", "for another kernel or module set"). */
int factscache_load(const char *path, const struct factscache_key *k, const char *version,
		    struct tracer_facts *f, char *why, size_t whylen);

/* Writes f for k atomically (a temporary file renamed into place; the
 * directory is created).  0, or -1 with a message. */
int factscache_store(const char *path, const struct factscache_key *k, const char *version,
		     const struct tracer_facts *f, char *err, size_t errlen);

#endif
