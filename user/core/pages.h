/* SPDX-License-Identifier: GPL-2.0-only */
/* pages.h - the page arithmetic the kernel applies when it pins a user range.
 *
 * ib_umem_get charges
 *     npages = (PAGE_ALIGN(addr + len) - (addr & PAGE_MASK)) >> PAGE_SHIFT
 * pages against RLIMIT_MEMLOCK (docs/design.md section 2), so a buffer that does
 * not start on a page boundary costs one page more than its length suggests:
 * glibc's malloc(16 MiB) returns base+16 and pins 4097 pages, not 4096. */
#ifndef MRPROBE_PAGES_H
#define MRPROBE_PAGES_H
#include <stdint.h>

/* Pages a registration of [addr, addr+len) pins; 0 when len is 0 (the kernel
 * rejects such a registration with EINVAL before pinning anything). */
uint64_t pages_spanned(uint64_t addr, uint64_t len, uint64_t page);

/* v rounded up to a multiple of align (align > 0, need not be a power of 2).
 * Returns 0 if the result would not fit in 64 bits. */
uint64_t pages_round_up(uint64_t v, uint64_t align);

/* The base page size of this machine (4096 on x86). */
uint64_t page_size(void);

#endif
