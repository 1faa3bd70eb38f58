// SPDX-License-Identifier: GPL-2.0-only
/* findmax.c - exponential then binary search over a trial function
 * (see findmax.h). */
#include "findmax.h"

#include <string.h>

int mp_findmax_run(uint64_t cap_pages, findmax_try_fn try, void *ctx, struct findmax_result *r)
{
	memset(r, 0, sizeof(*r));
	if (cap_pages == 0)
		return -1;

	/* Invariant once hi is set: lo registered (0 trivially does), hi failed. */
	uint64_t lo = 0, hi = 0, p = 1;
	int err = 0;
	for (;;) {
		if (p > cap_pages)
			p = cap_pages;
		r->trials++;
		if (!try(ctx, p, &err)) {
			hi = p;
			r->fail_errno = err;
			break;
		}
		lo = p;
		if (p == cap_pages) {
			r->max_pages = lo;
			r->hit_cap = true;
			return 0;
		}
		/* Doubling cannot overflow before it reaches the cap. */
		p = p > cap_pages / 2 ? cap_pages : p * 2;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		r->trials++;
		if (try(ctx, mid, &err)) {
			lo = mid;
		} else {
			hi = mid;
			r->fail_errno = err;
		}
	}
	r->max_pages = lo;
	r->fail_pages = hi;
	return 0;
}
