// SPDX-License-Identifier: GPL-2.0-only
/* libnccl_standin.c - a tiny shared library that looks like libnccl from
 * outside: its name contains "nccl" (so nccl_lib_detect finds it in
 * /proc/PID/maps) and its .rodata holds NCCL's version literal in the format
 * NCCL builds it ("NCCL version " MAJOR.MINOR.PATCH SUFFIX "+cuda" A.B).
 *
 * Built by the Makefile as build/tests/helpers/libnccl_standin.  Host and VM
 * tests dlopen it (or link it) to give a process a "libnccl" mapping and,
 * through ncclStandinRegMr, a stack frame inside it around ibv_reg_mr, the
 * way NCCL's proxy thread registers its buffers. */
#include <stddef.h>

#include <infiniband/verbs.h>

/* Keep the literal even if nothing references it: the point is the bytes. */
__attribute__((used)) const char ncclStandinVersionString[] = "NCCL version 2.21.5+cuda12.4";

/* ncclGetVersion's encoding since 2.9: major*10000 + minor*100 + patch. */
__attribute__((visibility("default"))) int ncclGetVersion(int *version)
{
	if (!version)
		return 4;	/* ncclInvalidArgument */
	*version = 2 * 10000 + 21 * 100 + 5;
	return 0;		/* ncclSuccess */
}

/* Registers like NCCL does: page-aligned range, LOCAL_WRITE|REMOTE_WRITE|
 * REMOTE_READ.  noinline keeps this frame on the stack for stack-based
 * attribution. */
__attribute__((visibility("default"), noinline)) struct ibv_mr *
ncclStandinRegMr(struct ibv_pd *pd, void *addr, size_t len)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);
	__asm__ volatile("" ::: "memory");	/* no tail call: stay on the stack */
	return mr;
}
