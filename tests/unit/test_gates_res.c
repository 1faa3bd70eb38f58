// SPDX-License-Identifier: GPL-2.0-only
/* test_gates_res.c - the verbs-object counts of a refused alloc_pd,
 * create_cq or create_qp (proc/gates.c count_facts) come from `rdma -j res
 * show [TYPE]`, run in the loop that drains the ring buffer.  A burst of
 * such refusals (an rdma cgroup limit hit by every rank at once) must cost
 * one run of the tool per type, not four per failure, and the counts must
 * still be right.  A stand-in `rdma` first in PATH counts its runs. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_rdma.h"
#include "mrtrace.h"
#include "proc/gates.h"

static char dir[64];

/* `rdma -j res show` answers the device summary; `... show pd|cq|qp` the
 * objects, two of each held by pid 4242 on rxe0 and one by pid 77. */
static const char fake_body[] =
	"case \"$4\" in\n"
	"'') echo '[{\"ifindex\":1,\"ifname\":\"rxe0\",\"pd\":3,\"cq\":3,\"qp\":5,\"mr\":1}]' ;;\n"
	"*) echo \"[{\\\"ifname\\\":\\\"rxe0\\\",\\\"pid\\\":4242},{\\\"ifname\\\":\\\"rxe0\\\",\\\"pid\\\":4242},"
	"{\\\"ifname\\\":\\\"rxe0\\\",\\\"pid\\\":77},{\\\"ifname\\\":\\\"mlx5_0\\\",\\\"pid\\\":4242}]\" ;;\n"
	"esac\n";

static int setup(void **state)
{
	(void)state;
	fake_rdma(dir, sizeof(dir), fake_body);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_rdma_gone(dir);
	return 0;
}

static int runs(void)
{
	return fake_rdma_runs(dir);
}

static struct mrt_event refused(unsigned op)
{
	struct mrt_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_FAILURE;
	ev.op = op;
	ev.err = ENOMEM;
	ev.pid = 4242;
	ev.dmabuf_fd = -1;
	snprintf(ev.op_name, sizeof(ev.op_name), "rxe0");
	return ev;
}

/* 200 refusals in a burst: the counts of each are right, and the tool ran
 * about once per type (4), not 4 x 200; after a pause of over a second the next
 * refusal asks again (a stale answer is not kept). */
static void test_burst_runs_once_per_type(void **state)
{
	(void)state;
	static const unsigned ops[] = { MRT_OP_ALLOC_PD, MRT_OP_CREATE_CQ, MRT_OP_CREATE_QP };
	struct gate_facts f;

	for (int i = 0; i < 200; i++) {
		struct mrt_event ev = refused(ops[i % 3]);
		gates_collect("/", ev.pid, &ev, &f);
		assert_true(f.have_counts);
		assert_int_equal(f.dev_pd, 3);
		assert_int_equal(f.dev_qp, 5);
		assert_int_equal(f.proc_pd, 2);
		assert_int_equal(f.proc_cq, 2);
		assert_int_equal(f.proc_qp, 2);
	}
	/* 4 on a native core; an emulated one (the arm64 guest under TCG:
	 * 12) can leave a gap of over 1 s inside the burst, and each gap asks
	 * again - still a tenth of the 800 runs before at most */
	int burst = runs();
	assert_true(burst >= 4 && burst <= 80);
	sleep(2);
	struct mrt_event ev = refused(MRT_OP_CREATE_QP);
	gates_collect("/", ev.pid, &ev, &f);
	assert_int_equal(f.proc_qp, 2);
	assert_int_equal(runs(), burst + 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_runs_once_per_type),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
