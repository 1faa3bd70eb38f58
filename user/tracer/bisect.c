// SPDX-License-Identifier: GPL-2.0-only
/* bisect.c - the failing sites found by loading halves (bisect.h). */
#include "tracer/bisect.h"

#include <errno.h>

int tracer_bisect(const int *set, int n, bisect_load_fn load, bisect_demote_fn demote, void *arg)
{
	int e;

	if (n <= 0)
		return 0;
	for (;;) {
		e = load(arg, set, n, n == 1);
		if (e == -ECANCELED)
			return e;
		if (e >= 0)
			return 0;
		if (n > 1)
			break;
		if (!demote(arg, set[0], -e))
			return 0;
	}
	e = tracer_bisect(set, n / 2, load, demote, arg);
	return e ? e : tracer_bisect(set + n / 2, n - n / 2, load, demote, arg);
}
