/* SPDX-License-Identifier: GPL-2.0-only */
/* findmax.h - find the largest registration the current limits allow.
 *
 * The answer to "how much can this process still register?" is not simply
 * RLIMIT_MEMLOCK: pages already pinned count, CAP_IPC_LOCK bypasses the
 * limit, and pinning or the driver can fail first.  So ask the kernel:
 * register a trial size, deregister it, and search.  Sizes double from one
 * page until a trial fails, then bisect between the last success and the
 * first failure, which pins the answer to the exact page in about
 * 2 x log2(max pages) trials.  The trial function is a parameter so the
 * search can be tested without an RDMA device. */
#ifndef MRPROBE_FINDMAX_H
#define MRPROBE_FINDMAX_H
#include <stdbool.h>
#include <stdint.h>

/* Registers (and deregisters again) a range of `pages` pages; returns true
 * on success, else false with the errno in *err. */
typedef bool (*findmax_try_fn)(void *ctx, uint64_t pages, int *err);

struct findmax_result {
	uint64_t max_pages;  /* largest size that registered; 0 if one page failed */
	uint64_t fail_pages; /* smallest size seen failing (max_pages + 1 unless hit_cap) */
	int fail_errno;      /* the errno of that failure */
	unsigned trials;
	bool hit_cap;        /* cap_pages itself registered: the limit lies beyond */
};

/* Searches 1..cap_pages.  Returns 0, or -1 if cap_pages is 0. */
int mp_findmax_run(uint64_t cap_pages, findmax_try_fn try, void *ctx, struct findmax_result *r);

#endif
