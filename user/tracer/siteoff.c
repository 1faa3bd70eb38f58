// SPDX-License-Identifier: GPL-2.0-only
/* siteoff.c - the text of each reason a site is not armed (site.h): the
 * words the notes of that reason share, written once, so that the planner,
 * the loader and the rearmer say a reason the same way and decide on its
 * value, not on what a note happens to contain. */
#include "tracer/site.h"

static const char *const off_text[SITE_OFF__COUNT] = {
	[SITE_ARMED] = "armed",
	[SITE_OFF_NOTRACE] = "is notrace on this kernel (not in available_filter_functions): "
			     "neither fentry nor kprobes attach",
	[SITE_OFF_NEEDS_FEATURE] = "which this kernel lacks",
	[SITE_OFF_NO_KPROBE_FLAVOUR] = "no kprobe flavour for this site",
	[SITE_OFF_NOT_IN_KALLSYMS] = "not in kallsyms",
	[SITE_OFF_NO_KPROBES] = "kprobes not supported by this kernel",
	[SITE_OFF_AMBIGUOUS] = "a kprobe cannot tell them apart",
	[SITE_OFF_NO_TRACEPOINT] = "no tracepoint",
	[SITE_OFF_ABSENT] = "module not loaded?",
	[SITE_OFF_HOT] = "off by default",
	[SITE_OFF_FROM_UNARMED] = "not armed",
	[SITE_OFF_NOT_NEEDED] = "not needed",
	[SITE_OFF_NO_BTF_TYPE] = "no BTF has struct",
	[SITE_OFF_NO_OPENER] = "not armed: no registration entry site (reg_mr, umem_get) could "
			       "be armed on this kernel",
	[SITE_OFF_LOAD_FAILED] = "load failed",
	[SITE_OFF_ATTACH_FAILED] = "attach failed",
	[SITE_OFF_SYSCALLS_OFF] = "off (--syscalls=off)",
	[SITE_OFF_SYSCALLS_NO_RDMA] =
		"off: no RDMA on this kernel yet (no ib_uverbs, no ib_umem_get): nothing is "
		"armed per syscall while watch waits for an RDMA module; enable with "
		"--syscalls=on",
	[SITE_OFF_SYSCALLS_REGPATH] = "syscall tracepoints slow every syscall (~40 ns), enable "
				      "with --syscalls=on",
	[SITE_OFF_NO_LIBIBVERBS] = "no libibverbs probed",
	[SITE_OFF_NO_MODULES] = "no loadable modules on this kernel (no /proc/modules): nothing "
				"to follow",
	[SITE_OFF_MODULES_POLLED] = "module tracepoints not attached",
};

const char *site_off_text(enum site_off why)
{
	return why >= 0 && why < SITE_OFF__COUNT && off_text[why] ? off_text[why] : "?";
}
