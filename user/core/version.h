/* SPDX-License-Identifier: GPL-2.0-only */
/* version.h - which mrtrace this is, for `--version`, every JSON document
 * and the metrics' build_info.  The string is fixed at build time from
 * `git describe` (or the VERSION file outside a tagged checkout; see the
 * Makefile), so two nodes' reports can be told apart by build. */
#ifndef MRTRACE_CORE_VERSION_H
#define MRTRACE_CORE_VERSION_H

#include <json-c/json.h>

/* "0.9.0+ge89baa5-dirty", "v1.2.0", ... never NULL or empty. */
const char *mrt_version(void);

/* Adds "schema" (when the document has none) and "mrtrace_version" to a
 * JSON object, so a reader can tell what wrote it and which contract it
 * follows (docs/json.md). */
void mrt_version_stamp(struct json_object *o, const char *schema);

#endif
