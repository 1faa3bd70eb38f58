/* SPDX-License-Identifier: GPL-2.0-only */
/* check.h - `mrtrace check`: inspect a node (and optionally one process) for
 * everything that decides whether RDMA memory registration can work, and give
 * each item a verdict with its evidence.
 *
 * chk_run() runs the areas (areas.h) in order into a struct chk_report
 * (builder.h); the report is then printed as text (text.c), as one JSON
 * document (check.c; schema in docs/check.md) or, for node tooling, as a
 * health line or Prometheus text (fleet.h).  The command line is cmd.c.
 */
#ifndef MRTRACE_CHECK_H
#define MRTRACE_CHECK_H
#include <stdio.h>

#include "check/builder.h"

/* Runs every area.  Returns 0, or -ENOMEM.  An unreadable file is never an
 * error: it makes the item "unknown" with the reason. */
int chk_run(const struct chk_options *opt, struct chk_report *r);
void chk_report_free(struct chk_report *r);

/* Output. */
void chk_print_text(const struct chk_report *r, FILE *out);
/* Full document (items, summary and sections); caller owns nothing. */
const char *chk_json_string(struct chk_report *r);

#endif
