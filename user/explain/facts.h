/* SPDX-License-Identifier: GPL-2.0-only */
/* facts.h - what a node says now, for judging a failure read from a log
 * (verdict/inferred.h): the facts of a `mrtrace check --json` document,
 * this node's (check run here, with -p) or another's (--facts FILE),
 * reduced to struct inferred_facts for the setting the job ran under. */
#ifndef MRTRACE_EXPLAIN_FACTS_H
#define MRTRACE_EXPLAIN_FACTS_H
#include <json-c/json.h>
#include <stddef.h>

#include "verdict/inferred.h"

/* Reduces a check document.  The memlock limit is the setting's: -p's
 * process when the document has one, else slurmd's, Docker's, containerd's
 * (k8s), the unit's or systemd's default, this shell's.  Never fails: what
 * the document lacks stays unknown. */
void explain_facts_from_check(struct json_object *doc, enum inferred_setting s, const char *unit,
			      struct inferred_facts *f);

/* This node: runs check's areas (with pid when not 0) and adds /dev/shm's
 * free space.  0, or -1 with err. */
int explain_facts_local(enum inferred_setting s, const char *unit, int pid,
			struct inferred_facts *f, char *err, size_t errlen);

/* Another node's `check --json` report from path.  0, or -1 with err. */
int explain_facts_file(const char *path, enum inferred_setting s, const char *unit,
		       struct inferred_facts *f, char *err, size_t errlen);

#endif
