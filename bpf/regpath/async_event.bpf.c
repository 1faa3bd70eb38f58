// SPDX-License-Identifier: GPL-2.0-only
/* async_event.bpf.c - the asynchronous events of RDMA devices as the kernel
 * hands them to the device's clients: ib_dispatch_event_clients(event), in
 * ib_core on every kernel of the matrix (5.10 to 7.2, device.c).
 *
 * Why there: a driver's events (a port error, a device fatal error) and the
 * core's own (a GID table change: cache.c calls it directly, never through
 * ib_dispatch_event) all pass through it, after ib_core's cache has been
 * updated, just before uverbs queues them on every open device file: what
 * NCCL's async thread then prints as "Got async event : port error".  The
 * sysfs port state says a port is down; only this says a device went fatal,
 * or that an SM reregistered its clients.
 *
 * Cold: it runs only when a device raises an event (no program runs for a
 * verb, a packet or a registration), in a kworker, never in a process's
 * context, so nothing is filtered by process.  One small record per event
 * (struct mrt_async_event); the ring full: counted as a drop.
 *
 * A module function: armed by kprobe wherever the kernel has kprobes (a
 * trampoline would hold ib_core, docs/design.md "Modules come and go");
 * the fentry flavour is for a kernel without them.  struct ib_event is
 * read by CO-RE (typed by ib_core's BTF, or 5.10's external file);
 * element.port_num is a u8 before 5.12 ("RDMA: Use u32 for port_num") and
 * a u32 since: read by its size in the running kernel. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

static __always_inline void async_event(const struct ib_event *event)
{
	struct mrt_async_event a = { .kind = MRT_EV_ASYNC };
	struct ib_device *dev;
	const char *name;
	__u32 size;

	if (!event)
		return;
	a.ts_ns = bpf_ktime_get_ns();
	a.event = (__u32)BPF_CORE_READ(event, event);
	size = bpf_core_field_size(event->element.port_num);
	if (size > sizeof(a.port))
		size = sizeof(a.port);
	bpf_probe_read_kernel(&a.port, size, &event->element.port_num);
	dev = BPF_CORE_READ(event, device);
	name = dev ? BPF_CORE_READ(dev, dev.kobj.name) : NULL;
	if (name)
		bpf_probe_read_kernel_str(a.device, sizeof(a.device), name);
	if (bpf_ringbuf_output(&events, &a, sizeof(a), 0))
		count(MRT_CNT_DROPS);
	else
		count(MRT_CNT_ASYNC);
}

SEC("fentry/ib_dispatch_event_clients")
int BPF_PROG(fentry_async_event, struct ib_event *event)
{
	async_event(event);
	return 0;
}

SEC("kprobe/ib_dispatch_event_clients")
int BPF_KPROBE(kprobe_async_event, struct ib_event *event)
{
	async_event(event);
	return 0;
}
