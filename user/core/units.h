/* SPDX-License-Identifier: GPL-2.0-only */
/* units.h - sizes in human units, both ways.  Binary units throughout:
 * "16.0 MiB" is 16 * 2^20 bytes, and "9.2M" parses as 9.2 * 2^20. */
#ifndef MRTRACE_UNITS_H
#define MRTRACE_UNITS_H
#include <stddef.h>
#include <stdint.h>

/* "64 KiB", "16.0 MiB", "4097 B"; exact multiples print without decimals.
 * Returns buf. */
const char *fmt_bytes(uint64_t bytes, char *buf, size_t len);

/* "4097 pages (16.0 MiB)": pages of page_size bytes (the kernel's, as the
 * event or the machine says; never assumed). */
const char *fmt_pages(uint64_t pages, uint64_t page_size, char *buf, size_t len);

/* Parses "65536", "64K", "64KiB", "9.2M", "1G", "unlimited" (-> UINT64_MAX;
 * also "infinity" and "-1", as limits.conf writes it).  Decimal only.
 * Returns 0, or -1 on malformed input, inf, nan, a negative number or a
 * value of 2^64 bytes or more. */
int parse_bytes(const char *s, uint64_t *out);

#endif
