/* SPDX-License-Identifier: GPL-2.0-only */
/* model.h - what diff's stages hand each other (internal to user/diff/):
 * load.c reads and parses one report, facets.c turns it into facets through
 * type-checked accessors, compare.c compares the facets of all nodes. */
#ifndef MRTRACE_DIFF_MODEL_H
#define MRTRACE_DIFF_MODEL_H
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/arena.h"
#include "core/strmap.h"

enum diff_sev { DIFF_DRIFT = 0, DIFF_BREAK = 1 };

struct diff_facet {
	const char *key;     /* stable identity across nodes */
	const char *label;   /* what the operator reads */
	const char *value;
	const char *scope;   /* nodes without this scope do not take part */
	const char *absent;  /* value for a node that has the scope but not the
				facet; "" = such a node does not take part */
	enum diff_sev sev;
	bool verdict;        /* an item's verdict: breaking iff FAIL somewhere */
};

/* An item that fails on this node: shown when it fails everywhere. */
struct diff_fail {
	const char *id, *area, *title, *value;
};

struct diff_node {
	const char *name;    /* host name, or file name when it has none */
	const char *file;    /* as given ("standard input" for "-") */
	struct arena ar;     /* every string of this node */
	struct diff_facet *f;
	int nf, capf;
	struct strmap keys;  /* key -> index in f (first one wins) */
	const char **scopes;
	int ns, caps;
	struct strmap scope_set;
	struct diff_fail *fails;
	int nfails, capfails;
	struct strmap fail_ids;
	bool oom;
};

/* ---- load.c ---- */
/* How a file is told apart from another name for the same file. */
struct diff_source {
	const char *arg;     /* as given */
	const char *shown;   /* for messages */
	dev_t dev;
	ino_t ino;
};
/* Opens the argument ("-" = standard input) by core/inputfd.h to learn the
 * file it is (dev, ino), and closes it; 0 or -1 with err set.  diff_load
 * opens it again the same way and reads it only if it is still that file. */
int diff_source_stat(const char *arg, struct diff_source *s, char *err, size_t errlen);
/* Reads and parses one report and checks that it is one (schema, host,
 * items).  0 with *doc set, or -1 with err naming the file. */
int diff_load(const struct diff_source *s, json_object **doc, char *err, size_t errlen);

/* ---- facets.c ---- */
/* Fills n's facets, scopes and failing items from doc.  0, or -1 with err
 * naming the file and the member that does not have the report's type (or
 * "out of memory"). */
int diff_extract(struct diff_node *n, json_object *doc, char *err, size_t errlen);
void diff_node_free(struct diff_node *n);

#endif
