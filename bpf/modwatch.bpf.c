// SPDX-License-Identifier: GPL-2.0-only
/* modwatch.bpf.c - a counter that moves when a kernel module loads or is
 * freed.  user/tracer/rearm.c reads it between polls (the skeleton's .bss
 * is memory-mapped) and, when it moved, looks at /proc/modules: a module
 * with registration sites that loaded after `mrtrace watch` started gets
 * its sites armed, one that went away has them detached.
 *
 * module_load fires at the end of load_module(), before the module's init
 * runs: the module is still "Loading" and a trampoline refuses it until it
 * is live, so user space waits for "Live" in /proc/modules.  module_free
 * fires when an unloaded module's memory is released.  Both are rare; this
 * costs nothing on the registration path. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* module loads and frees seen since the object was attached */
__u64 module_events;

SEC("tracepoint/module/module_load")
int tp_module_load(void *ctx)
{
	__sync_fetch_and_add(&module_events, 1);
	return 0;
}

SEC("tracepoint/module/module_free")
int tp_module_free(void *ctx)
{
	__sync_fetch_and_add(&module_events, 1);
	return 0;
}
