// SPDX-License-Identifier: GPL-2.0-only
/* devcg_deny - attach a cgroup v2 device program that refuses char major 231
 * (the uverbs nodes) to a cgroup, the way a container runtime does for a
 * container that was not given the RDMA device.  The program is pinned to
 * the cgroup for as long as the cgroup exists.
 * Usage: devcg_deny CGROUP_DIR      exit 0 attached, 1 failure */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: devcg_deny CGROUP_DIR\n");
		return 2;
	}
	/* r2 = ctx->major; if r2 == 231 -> 0 (deny); else 1 (allow) */
	struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_W | BPF_MEM, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_1,
		  .off = 4 },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_2, .off = 2, .imm = 231 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	a.insns = (unsigned long)insns;
	a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	a.license = (unsigned long)"GPL";
	int prog = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (prog < 0) {
		perror("devcg_deny: BPF_PROG_LOAD");
		return 1;
	}
	int cg = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.target_fd = cg;
	a.attach_bpf_fd = prog;
	a.attach_type = BPF_CGROUP_DEVICE;
	if (syscall(__NR_bpf, BPF_PROG_ATTACH, &a, sizeof(a))) {
		perror("devcg_deny: BPF_PROG_ATTACH");
		return 1;
	}
	return 0;
}
