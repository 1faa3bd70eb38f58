/* SPDX-License-Identifier: GPL-2.0-only */
/* probemiss.h - probes that fired and did not run their program, as the
 * kernel counts them.  A miss is evidence lost without a trace: a
 * kretprobe whose instances were all in use (a thread asleep in a
 * registration when more were inside than the kretprobe's maxactive) never
 * runs its return program, so that registration's failure is not recorded;
 * a program that fires while another BPF program runs on the same CPU is
 * skipped.  The kernel counts both, but says them only from some version
 * on: a link whose kernel does not count its misses is "not readable", and
 * said so, never a 0. */
#ifndef MRTRACE_TRACER_PROBEMISS_H
#define MRTRACE_TRACER_PROBEMISS_H

#include <stdbool.h>

#define PROBEMISS_SITES_MAX 32

/* One armed probe that missed. */
struct probemiss_site {
	char site[32]; /* the plan's site name: "reg_mr" */
	bool exit; /* its return side (kretprobe, fexit, sys_exit) */
	unsigned long long missed;
};

struct probemiss {
	unsigned long long total; /* every readable miss, with those of
				   * generations already re-armed */
	unsigned int readable; /* armed probes whose misses the kernel counts */
	unsigned int unreadable; /* armed probes whose kernel does not say */
	int nsites; /* the probes that missed, as armed now */
	unsigned int sites_cut; /* ... past PROBEMISS_SITES_MAX */
	struct probemiss_site sites[PROBEMISS_SITES_MAX];
};

/* The misses of one attached program: its link's descriptor (a kernel BPF
 * link; a perf event's descriptor on kernels before 5.15 is not one) and
 * its program's.  *missed: what the kernel counts for it; returns true when
 * that is all of them:
 * - a kprobe or tracepoint link (perf_event): the kprobe's own misses
 *   (recursion, and a kretprobe's exhausted instances) and the program's
 *   skipped runs, both counted and said from 6.7 on (the link's info grew
 *   then: its size tells);
 * - fentry/fexit (a tracing link): the trampoline's skipped runs, counted
 *   in the program's info since 5.12. */
bool probemiss_read(int link_fd, int prog_fd, unsigned long long *missed);

/* Adds one probe's reading to the tally. */
void probemiss_add(struct probemiss *m, const char *site, bool exit, bool readable,
		   unsigned long long missed);

/* "3 probe hits missed (kretprobe reg_mr: 3)" or a sentence saying the
 * kernel does not count them; "" when there is nothing to say (no miss, and
 * every probe readable). */
void probemiss_sentence(const struct probemiss *m, char *buf, unsigned long len);

#endif
