// SPDX-License-Identifier: GPL-2.0-only
/* main.c - mrprobe: register memory the way NCCL does and report, per
 * registration, what the kernel said.  The order of the steps is the point:
 * limits and privileges change before anything is opened, so the device is
 * opened and the memory registered by the process a real job would be. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/version.h"

#include "gpu.h"
#include "options.h"
#include "privs.h"
#include "probe.h"
#include "output.h"
#include "verbs.h"

static int fail(bool json, const char *stage, const char *msg)
{
	mp_report_error(json, stage, msg);
	return 2;
}

int main(int argc, char **argv)
{
	struct mrprobe_opts o;
	char err[512], warn[256];

	/* --version (-V): the build it came with, as `mrtrace --version` says it */
	static char version[160];
	snprintf(version, sizeof(version), "mrprobe %s", mrt_version());
	argp_program_version = version;
	/* -h is help, as in mrtrace's commands (argp knows only -? and --help) */
	for (int a = 1; a < argc && strcmp(argv[a], "--"); a++)
		if (!strcmp(argv[a], "-h"))
			argv[a] = (char *)"--help";
	if (mp_opts_parse(argc, argv, 0, &o))
		return 2;

	/* 1. the limit, while CAP_SYS_RESOURCE may still be held */
	if (o.memlock_set && mp_privs_set_memlock(o.memlock, err, sizeof(err)))
		return fail(o.json, "memlock", err);
	/* 2. CAP_IPC_LOCK, which would bypass that limit */
	if (o.drop_ipc_lock) {
		if (mp_privs_drop_ipc_lock(err, sizeof(err), warn, sizeof(warn)))
			return fail(o.json, "drop_ipc_lock", err);
		if (warn[0])
			mp_report_note(o.json, warn);
		/* NCCL probes at communicator init and registers at the first
		 * collective, far more than this apart; a tracer sees the two in
		 * that order */
		usleep(500 * 1000);
	}
	/* 3. the user, which takes every other capability with it */
	if (o.as_nobody && mp_privs_become_nobody(err, sizeof(err)))
		return fail(o.json, "as_nobody", err);

	if (o.no_device)
		return mp_probe_memory_only(&o);

	struct rdma rdma;
	if (mp_rdma_open(o.device, &rdma, err, sizeof(err)))
		return fail(o.json, "device", err);
	/* A missing GPU driver is a setup problem, not a registration result. */
	if (o.mem == MEM_GPU && mp_gpu_open(err, sizeof(err))) {
		mp_rdma_close(&rdma);
		return fail(o.json, "gpu", err);
	}

	/* NCCL probes dma-buf at init, before it registers anything */
	if (o.nccl_probe) {
		int e = mp_rdma_nccl_probe(&rdma);
		snprintf(warn, sizeof(warn), "NCCL's dma-buf probe ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0): "
			 "%s (%s)", e ? strerrorname_np(e) : "accepted",
			 e == EBADF ? "dma-buf supported" : e ? "no dma-buf support" : "unexpected");
		mp_report_note(o.json, warn);
	}

	struct probe p;
	if (mp_probe_prepare(&p, &o, &rdma)) {
		mp_rdma_close(&rdma);
		return fail(o.json, "plan", p.err);
	}
	int status = mp_probe_exec(&p);
	if (status != 2)
		mp_probe_hold(&p, o.hold);
	mp_probe_release(&p);
	mp_rdma_close(&rdma);
	return status;
}
