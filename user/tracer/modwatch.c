// SPDX-License-Identifier: GPL-2.0-only
/* modwatch.c - relevant modules, their changes, and the sites a re-plan
 * moved (modwatch.h).  Pure: rearm.c reads the files and loads. */
#include "tracer/modwatch.h"

#include <stdio.h>
#include <string.h>

#include "drivers/driver.h"

/* The modules whose functions sites.c names (docs/design.md section 2):
 * the uverbs commands and umem (ib_uverbs, ib_core), and the drivers'
 * (their tables, user/drivers/: rdma_rxe, mlx5_ib, mlx5_core, irdma, ...). */
static const char *const known[] = { "ib_core", "ib_uverbs" };

bool modwatch_relevant(const char *name, const char *const *extra, int nextra)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i]))
			return true;
	if (rdma_driver_module(name))
		return true;
	for (int i = 0; i < nextra; i++)
		if (extra[i] && !strcmp(name, extra[i]))
			return true;
	return false;
}

int modwatch_parse(struct modwatch_set *s, const char *text, const char *const *extra,
		   int nextra)
{
	s->n = 0;
	for (const char *line = text; line && *line && s->n < MODWATCH_MAX;) {
		const char *end = strchr(line, '\n');
		char buf[512], name[MODWATCH_NAME_MAX], state[32];
		size_t len = end ? (size_t)(end - line) : strlen(line);

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1),
			 line);
		line = end ? end + 1 : NULL;
		/* name size refcount deps state address */
		if (sscanf(buf, "%63s %*s %*s %*s %31s", name, state) != 2 ||
		    !modwatch_relevant(name, extra, nextra))
			continue;
		struct modwatch_mod *m = &s->mods[s->n++];
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->state = !strcmp(state, "Live")      ? MODWATCH_LIVE :
			   !strcmp(state, "Unloading") ? MODWATCH_GOING :
							 MODWATCH_COMING;
	}
	return s->n;
}

bool modwatch_settling(const struct modwatch_set *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->mods[i].state != MODWATCH_LIVE)
			return true;
	return false;
}

static bool live_in(const struct modwatch_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->mods[i].name, name))
			return s->mods[i].state == MODWATCH_LIVE;
	return false;
}

int modwatch_diff(const struct modwatch_set *before, const struct modwatch_set *now,
		  struct modwatch_change *out, int max)
{
	int n = 0;

	for (int i = 0; i < now->n && n < max; i++)
		if (now->mods[i].state == MODWATCH_LIVE && !live_in(before, now->mods[i].name)) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", now->mods[i].name);
			out[n++].kind = MODWATCH_LOADED;
		}
	for (int i = 0; i < before->n && n < max; i++)
		if (before->mods[i].state == MODWATCH_LIVE && !live_in(now, before->mods[i].name)) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", before->mods[i].name);
			out[n++].kind = MODWATCH_UNLOADED;
		}
	return n;
}

static bool same_arming(const struct tracer_site *a, const struct tracer_site *b)
{
	return a->mech == b->mech && a->func && b->func && !strcmp(a->func, b->func) &&
	       !strcmp(a->module, b->module);
}

static void put(struct modwatch_site *out, int *n, const struct tracer_site *s)
{
	out[*n].name = s->name;
	out[*n].mech = s->mech;
	snprintf(out[*n].module, sizeof(out[*n].module), "%s", s->module);
	(*n)++;
}

void modwatch_site_changes(const struct tracer_site *before, const struct tracer_site *after,
			   int n, struct modwatch_site *armed, int *narmed,
			   struct modwatch_site *detached, int *ndetached)
{
	*narmed = *ndetached = 0;
	for (int i = 0; i < n; i++) {
		bool was = before[i].mech != MECH_NONE, is = after[i].mech != MECH_NONE;

		if (was && is && same_arming(&before[i], &after[i]))
			continue;
		/* re-armed on another function or by another mechanism: both */
		if (was)
			put(detached, ndetached, &before[i]);
		if (is)
			put(armed, narmed, &after[i]);
	}
}
