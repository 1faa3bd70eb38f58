/* SPDX-License-Identifier: GPL-2.0-only */
/* bisect.h - finding the sites whose programs do not load, by loading
 * (bisect.c: pure; regload.c gives it the loader, tests/unit/test_bisect.c
 * a fake one).  No message is read: a set that fails is halved until each
 * failing site is alone. */
#ifndef MRTRACE_TRACER_BISECT_H
#define MRTRACE_TRACER_BISECT_H

#include <stdbool.h>

/* Loads the sites set[0, n) together (alone: n is 1 and this is a site's
 * own try).  >= 0 loaded (or nothing to load), -ECANCELED stops
 * everything, another negative errno: failed. */
typedef int (*bisect_load_fn)(void *arg, const int *set, int n, bool alone);
/* Site `site` failed alone with errno err: it is moved to another flavour
 * (true: try it again) or disarmed (false). */
typedef bool (*bisect_demote_fn)(void *arg, int site, int err);

/* Loads set[0, n), halving a failing set until each failing site is alone
 * and demoting it until it loads or is disarmed.  A set of k sites with one
 * failing takes about 2 log2(k) + 1 loads.  0, or -ECANCELED. */
int tracer_bisect(const int *set, int n, bisect_load_fn load, bisect_demote_fn demote, void *arg);

#endif
