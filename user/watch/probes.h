/* SPDX-License-Identifier: GPL-2.0-only */
/* probes.h - the armed/unavailable report of `mrtrace watch`: a table for
 * people, a JSON array for machines (docs/json.md, "sites"), and what the
 * unarmed sites mean for the verdicts. */
#ifndef MRTRACE_WATCH_PROBES_H
#define MRTRACE_WATCH_PROBES_H

#include <stdio.h>
#include <json-c/json.h>

struct tracer;

void watch_print_sites(const struct tracer *t, FILE *out);
struct json_object *watch_sites_json(const struct tracer *t);
/* One paragraph: what is not observed and what that costs. */
void watch_print_consequences(const struct tracer *t, FILE *out);

#endif
