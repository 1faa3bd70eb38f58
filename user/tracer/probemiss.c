// SPDX-License-Identifier: GPL-2.0-only
/* probemiss.c - the kernel's counts of probes that did not run (probemiss.h). */
#include "tracer/probemiss.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* struct bpf_link_info as the kernel has it since v6.7 ("bpf: Add missed
 * value to kprobe perf link info"), past Debian 12's linux-libc-dev (6.1):
 * the perf_event member spelled by its offsets, which UAPI never moves.
 * The tail is room for what later kernels append; the kernel refuses a
 * longer buffer only when its tail is not zero. */
struct link_info_67 {
	__u32 type, id, prog_id, pad0;
	__u32 perf_type, pad1; /* perf_event.type: BPF_PERF_EVENT_* */
	__u64 func_name; /* perf_event.kprobe: none asked for */
	__u32 name_len, offset;
	__u64 addr;
	__u64 missed; /* 6.7: the kprobe's nmissed, a kretprobe's too */
	__u64 cookie;
	__u8 tail[64];
};

enum {
	LINK_PERF_EVENT = 7, /* BPF_LINK_TYPE_PERF_EVENT (5.15) */
	LINK_TRACING = 2, /* BPF_LINK_TYPE_TRACING (5.8) */
	PERF_KPROBE = 3, /* enum bpf_perf_event_type (6.6) */
	PERF_KRETPROBE = 4,
};

/* The program's skipped runs (5.12: prog info's recursion_misses): -1 when
 * this kernel does not say them. */
static long long prog_misses(int prog_fd)
{
	struct bpf_prog_info pi;
	__u32 len = sizeof(pi);

	memset(&pi, 0, sizeof(pi));
	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &pi, &len))
		return -1;
	if (len < offsetof(struct bpf_prog_info, recursion_misses) + sizeof(pi.recursion_misses))
		return -1;
	return (long long)pi.recursion_misses;
}

bool probemiss_read(int link_fd, int prog_fd, unsigned long long *missed)
{
	struct link_info_67 li;
	__u32 len = sizeof(li);
	long long pm = prog_misses(prog_fd);

	*missed = pm > 0 ? (unsigned long long)pm : 0;
	memset(&li, 0, sizeof(li));
	/* before 5.15 a kprobe's "link" is its perf event: no info at all */
	if (link_fd < 0 || bpf_obj_get_info_by_fd(link_fd, &li, &len))
		return false;
	if (li.type == LINK_TRACING)
		return pm >= 0;
	if (li.type != LINK_PERF_EVENT)
		return false;
	/* the link's info grew to hold `missed` in 6.7, when trace_call_bpf
	 * began to count a program's skipped runs too: its size says both */
	if (len < offsetof(struct link_info_67, missed) + sizeof(li.missed) || pm < 0)
		return false;
	if (li.perf_type == PERF_KPROBE || li.perf_type == PERF_KRETPROBE)
		*missed += li.missed;
	return true;
}

void probemiss_add(struct probemiss *m, const char *site, bool exit, bool readable,
		   unsigned long long missed)
{
	if (!readable) {
		m->unreadable++;
		return;
	}
	m->readable++;
	m->total += missed;
	if (!missed)
		return;
	if (m->nsites >= PROBEMISS_SITES_MAX) {
		m->sites_cut++;
		return;
	}
	struct probemiss_site *s = &m->sites[m->nsites++];
	snprintf(s->site, sizeof(s->site), "%s", site ? site : "?");
	s->exit = exit;
	s->missed = missed;
}

void probemiss_sentence(const struct probemiss *m, char *buf, unsigned long len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (m->total) {
		n += snprintf(buf, len, "%llu probe hits missed: their programs never ran, so "
					"what they would have recorded is lost (",
			      m->total);
		for (int i = 0; i < m->nsites && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s %s: %llu", i ? ", " : "", m->sites[i].site,
				      m->sites[i].exit ? "exit" : "entry", m->sites[i].missed);
		if (n < len)
			n += snprintf(buf + n, len - n, "%s%s)", m->nsites ? "" : "re-armed probes",
				      m->sites_cut ? ", more cut" : "");
	}
	if (m->unreadable && n < len)
		snprintf(buf + n, len - n,
			 "%sthis kernel does not count the misses of %u armed probe%s (kprobes "
			 "count them from 6.7, fentry/fexit from 5.12): a probe that missed there "
			 "is not seen",
			 n ? "; " : "", m->unreadable, m->unreadable == 1 ? "" : "s");
}
