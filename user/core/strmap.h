/* SPDX-License-Identifier: GPL-2.0-only */
/* strmap.h - a hash map from strings to ints, for comparisons whose input
 * size someone else decides (`diff` on reports with thousands of items):
 * lookups stay O(1), so the work grows linearly with the input.
 *
 * Keys are not copied: they must outlive the map.  The hash is seeded per
 * process, so a crafted report cannot aim its keys at one bucket. */
#ifndef MRTRACE_CORE_STRMAP_H
#define MRTRACE_CORE_STRMAP_H
#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key;      /* NULL = empty */
	uint64_t hash;
	int value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap;           /* a power of two, or 0 */
	size_t n;
};

/* Inserts key -> value unless key is there already.  Returns the value now
 * stored for key (the old one when it existed), or -1 when out of memory
 * (values are expected to be >= 0). */
int strmap_add(struct strmap *m, const char *key, int value);
/* The value for key, or -1. */
int strmap_get(const struct strmap *m, const char *key);
void strmap_free(struct strmap *m);

/* The seeded hash the map uses, also for other tables (64 bits). */
uint64_t strmap_hash(const void *data, size_t len);

#endif
