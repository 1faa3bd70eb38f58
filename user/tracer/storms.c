// SPDX-License-Identifier: GPL-2.0-only
/* storms.c - the user-space half of the storm table (bpf/mrtrace.h,
 * bpf/common.bpf.h): find the folded failures that are due, hand them to
 * the caller to be written as summary records, acknowledge what was
 * written, forget keys that went quiet.
 *
 * The BPF programs own `storms` and only add to its counters; this file
 * owns `storm_acks`.  A due summary is therefore a subtraction of two
 * counters, and no update here can lose a fold made meanwhile. */
#include "tracer/tracer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "tracer/priv.h"

/* a key with nothing left to report and no failure for this long is
 * dropped from both maps (the table is for storms, not a history) */
#define STORM_IDLE_NS (60ULL * 1000000000ULL)
#define STORM_FORGET_MAX 64 /* per sweep */

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of bpf_ktime_get_ns */
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long max_u64(unsigned long long a, unsigned long long b)
{
	return a > b ? a : b;
}

int tracer_storms(struct tracer *t, bool all, tracer_storm_fn fn, void *cookie)
{
	int sfd = t->ld.shared.fd[SHARED_STORMS], afd = t->ld.shared.fd[SHARED_STORM_ACKS];
	struct mrt_storm_key key, prev, forget[STORM_FORGET_MAX];
	unsigned long long now = mono_ns();
	int nforget = 0, acked = 0;
	bool first = true;

	if (sfd < 0 || afd < 0)
		return -EINVAL;
	while (!bpf_map_get_next_key(sfd, first ? NULL : &prev, &key)) {
		struct mrt_storm v;
		struct mrt_storm_ack a = { 0 };

		first = false;
		prev = key;
		if (bpf_map_lookup_elem(sfd, &key, &v))
			continue; /* deleted meanwhile */
		bpf_map_lookup_elem(afd, &key, &a); /* none yet: nothing reported */
		unsigned long long due_from = max_u64(v.first_ts, a.at_ns);
		if (v.folded > a.folded && (all || (long long)(now - due_from) >= (long long)MRT_STORM_WINDOW_NS)) {
			struct tracer_storm s = {
				.key = key,
				.count = v.folded - a.folded,
				/* fold_first_ts is stale when a fold raced with the
				 * last acknowledgement: then the report's time is the
				 * best bound known */
				.first_ts_ns = v.fold_first_ts > a.last_ts ? v.fold_first_ts : a.last_ts,
				.last_ts_ns = v.last_ts,
				.run_ts_ns = v.first_ts,
			};
			if (fn(cookie, &s))
				continue; /* not written yet: asked again next time */
			struct mrt_storm_ack na = { .folded = v.folded, .at_ns = now, .last_ts = v.last_ts };
			if (!bpf_map_update_elem(afd, &key, &na, BPF_ANY))
				acked += (int)s.count;
			continue;
		}
		if (v.folded <= a.folded && (long long)(now - max_u64(v.last_ts, due_from)) >= (long long)STORM_IDLE_NS &&
		    nforget < STORM_FORGET_MAX)
			forget[nforget++] = key;
	}
	/* the storm first, then its acknowledgement: a key the kernel opens
	 * again in between starts from a clean count */
	for (int i = 0; i < nforget; i++) {
		bpf_map_delete_elem(sfd, &forget[i]);
		bpf_map_delete_elem(afd, &forget[i]);
	}
	return acked;
}
