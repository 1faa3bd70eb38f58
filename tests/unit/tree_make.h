/* SPDX-License-Identifier: GPL-2.0-only */
/* tree_make.h - a recorded tree for a unit test, one entry at a time:
 * the directories on the way to it made first, as `mkdir -p` would; and
 * its removal. */
#ifndef MRTRACE_TREE_MAKE_H
#define MRTRACE_TREE_MAKE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

/* <top>/<rel>: its parent directories, then a file holding text, or (text
 * NULL) a directory when dir, nothing more when not */
static inline void tree_make(const char *top, const char *rel, const char *text, bool dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	for (char *s = strchr(p + strlen(top) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (text) {
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
	} else if (dir) {
		mkdir(p, 0755);
	}
}

/* The tree again, all of it (top is a mkdtemp() name the test made). */
static inline void tree_remove(const char *top)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

#endif
