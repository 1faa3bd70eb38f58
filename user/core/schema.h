/* SPDX-License-Identifier: GPL-2.0-only */
/* schema.h - the identifiers of the JSON documents mrtrace writes, one place
 * for the writers and the readers (check writes what diff reads).  A reader
 * refuses a document whose schema it does not know (docs/json.md). */
#ifndef MRTRACE_CORE_SCHEMA_H
#define MRTRACE_CORE_SCHEMA_H

#define SCHEMA_CHECK "mrtrace-check/1"
#define SCHEMA_WATCH "mrtrace-watch/1"

#endif
