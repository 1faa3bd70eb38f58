// SPDX-License-Identifier: GPL-2.0-only
/* umulti.c - uprobe_multi links by bpf(2) (umulti.h). */
#include "tracer/umulti.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* uapi values of kernel 6.6 ("bpf: Add multi uprobe link"), absent from
 * Debian 12's linux/bpf.h (6.1) */
#define MRT_TRACE_UPROBE_MULTI 48
#define MRT_F_UPROBE_MULTI_RETURN 1u

/* union bpf_attr as BPF_LINK_CREATE reads it for a uprobe_multi link */
struct link_create_umulti {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, flags2, pid;
};

static int link_create(int prog_fd, const char *path, const uint64_t *off, bool ret)
{
	struct link_create_umulti a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = MRT_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)off;
	a.cnt = 1;
	a.flags2 = ret ? MRT_F_UPROBE_MULTI_RETURN : 0;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

bool umulti_supported(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = (enum bpf_attach_type)MRT_TRACE_UPROBE_MULTI);
	uint64_t off = 0;
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "mrt_umulti", "GPL", insns, 2, &o);

	if (prog < 0)
		return false;
	int link = link_create(prog, "/", &off, false);
	int e = errno;
	close(prog);
	if (link >= 0) { /* not expected; nothing may stay */
		close(link);
		return false;
	}
	return e == EBADF;
}

void umulti_prepare(struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		if (bpf_program__type(p) == BPF_PROG_TYPE_KPROBE)
			bpf_program__set_expected_attach_type(
				p, (enum bpf_attach_type)MRT_TRACE_UPROBE_MULTI);
}

int umulti_attach(int prog_fd, const char *path, uint64_t off, bool ret)
{
	return link_create(prog_fd, path, &off, ret);
}
