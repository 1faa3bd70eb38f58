// SPDX-License-Identifier: GPL-2.0-only
/* pages.c - page arithmetic (see pages.h). */
#include "core/pages.h"

#include <unistd.h>

uint64_t pages_spanned(uint64_t addr, uint64_t len, uint64_t page)
{
	if (len == 0 || page == 0)
		return 0;
	uint64_t first = addr / page;
	uint64_t last = (addr + len - 1) / page;
	return last - first + 1;
}

uint64_t pages_round_up(uint64_t v, uint64_t align)
{
	if (align == 0)
		return v;
	uint64_t rem = v % align;
	if (rem == 0)
		return v;
	uint64_t pad = align - rem;
	return v > UINT64_MAX - pad ? 0 : v + pad;
}

uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (uint64_t)p : 4096;
}
