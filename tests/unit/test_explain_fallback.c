// SPDX-License-Identifier: GPL-2.0-only
/* test_explain_fallback.c - a kernel trail without the pinning entry:
 * on a kernel where no candidate of the umem_get site could be armed, a
 * memlock failure arrives as the REG_MR command (and the driver) failing
 * with ENOMEM or EPERM and nothing deeper.  explain_registration() must then give
 * the inferred memlock verdict from the process's /proc numbers, exactly as
 * for a libibverbs call seen without kernel sites, and nothing else: no
 * verdict without those numbers, none when another site failed first,
 * none within the limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "verdict/explain.h"
#include "proc/context.h"

#define PAGE 4096ULL
#define M16 (16ULL << 20)

static struct mrt_event ev;
static struct verdict v;
static struct proc_context ctx;

static void step(unsigned short site, int ret, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct mrt_step *s = &ev.steps[ev.nsteps++];

	s->site = site;
	s->flags = MRT_STEP_EXITED;
	s->ret = ret;
	s->a0 = a0;
	s->a1 = a1;
	s->a2 = a2;
}

/* REG_MR of a malloc'd 16 MiB buffer (4097 pages) that failed with err,
 * seen by reg_mr and the driver only (7.2 before __ib_umem_get_va was a
 * candidate). */
static void reg_mr_trail(int err)
{
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_REG_FAILURE;
	ev.pid = ev.tid = 4242;
	ev.uid = 65534;
	ev.opener = MRT_SITE_UVERBS_REG_MR;
	ev.err = err;
	ev.cmd_valid = 1;
	ev.cmd_start = ev.cmd_iova = 0x7f0000001010ULL;
	ev.cmd_length = M16;
	ev.cmd_access = 0xf;
	ev.dmabuf_fd = -1;
	ev.page_shift = 12;
	step(MRT_SITE_DRIVER_REG, -err, ev.cmd_start, M16, ev.cmd_iova);
	step(MRT_SITE_UVERBS_REG_MR, -err, 0, 0, 0);
}

/* nobody in a container: 64 KiB, nothing pinned yet, no CAP_IPC_LOCK */
static void container_ctx(uint64_t limit)
{
	memset(&ctx, 0, sizeof(ctx));
	ctx.have = CTX_HAVE_MEMLOCK | CTX_HAVE_VMPIN | CTX_HAVE_CAPS | CTX_HAVE_USERNS;
	ctx.memlock_soft = ctx.memlock_hard = limit;
	ctx.vm_pin = 0;
}

static void enomem_over_the_limit_is_inferred_memlock_limit(void **state)
{
	(void)state;
	reg_mr_trail(ENOMEM);
	container_ctx(64 << 10);
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(v.certainty, CERT_INFERRED);
	assert_int_equal(v.err, ENOMEM);
	assert_true(v.has_memlock);
	assert_int_equal(v.limit_bytes, 64 << 10);
	assert_int_equal(v.request_bytes, 4097 * PAGE);
	/* the decisive step is the command's, the last site that saw it */
	assert_int_equal(v.decisive_step, 1);
	assert_non_null(strstr(v.summary, "ib_umem_get not observed"));
	assert_non_null(strstr(v.explanation, "Inferred"));
	assert_true(v.fixes.n > 0);
}

static void eperm_with_limit_zero_is_inferred_memlock_zero(void **state)
{
	(void)state;
	reg_mr_trail(EPERM);
	container_ctx(0);
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_MEMLOCK_ZERO);
	assert_int_equal(v.certainty, CERT_INFERRED);
	assert_int_equal(v.decisive_step, 1);
}

/* The command's fields unread (no BTF for its bundle): the driver's
 * arguments give the request. */
static void request_from_the_driver_step(void **state)
{
	(void)state;
	reg_mr_trail(ENOMEM);
	ev.cmd_valid = 0;
	ev.cmd_start = ev.cmd_length = ev.cmd_iova = 0;
	container_ctx(64 << 10);
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(v.request_bytes, 4097 * PAGE);
}

/* No /proc numbers (a replay), within the limit, CAP_IPC_LOCK, or another
 * site failing first: no inference, the trail stays unknown as before. */
static void no_inference_without_grounds(void **state)
{
	(void)state;
	reg_mr_trail(ENOMEM);
	assert_int_equal(explain_registration(&ev, NULL, NULL, NULL, &v), CAUSE_UNKNOWN);
	assert_int_equal(v.certainty, CERT_PROVEN);
	assert_non_null(strstr(v.summary, "no known cause"));

	container_ctx(1ULL << 30);
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_UNKNOWN);
	assert_non_null(strstr(v.summary, "no known cause"));
	assert_int_equal(v.decisive_step, 0);

	container_ctx(64 << 10);
	ctx.cap_ipc_lock = true;
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_UNKNOWN);

	reg_mr_trail(ENOMEM);
	container_ctx(64 << 10);
	ev.nsteps = 0;
	step(MRT_SITE_UOBJ_ALLOC, -ENOMEM, 0, 0, 0);
	step(MRT_SITE_UVERBS_REG_MR, -ENOMEM, 0, 0, 0);
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_UNKNOWN);
	assert_non_null(strstr(v.summary, "rdma_alloc_begin_uobject"));

	/* EINVAL is never a memlock verdict */
	reg_mr_trail(EINVAL);
	ev.cmd_access = 0x1; /* valid flags, aligned iova: no validation cause */
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_UNKNOWN);
}

/* Where the pinning entry is armed, its evidence decides, proven. */
static void with_the_pinning_entry_the_verdict_is_proven(void **state)
{
	(void)state;
	reg_mr_trail(ENOMEM);
	ev.nsteps = 0;
	ev.ml.valid = 1;
	ev.ml.limit_cur = ev.ml.limit_max = 64 << 10;
	ev.ml.requested_pages = 4097;
	step(MRT_SITE_UMEM_GET, -ENOMEM, ev.cmd_start, M16, 0xf);
	step(MRT_SITE_DRIVER_REG, -ENOMEM, ev.cmd_start, M16, ev.cmd_iova);
	step(MRT_SITE_UVERBS_REG_MR, -ENOMEM, 0, 0, 0);
	container_ctx(1ULL << 30); /* /proc says otherwise now: the kernel's numbers win */
	assert_int_equal(explain_registration(&ev, &ctx, NULL, NULL, &v), CAUSE_MEMLOCK_LIMIT);
	assert_int_equal(v.certainty, CERT_PROVEN);
	assert_int_equal(v.limit_bytes, 64 << 10);
	assert_int_equal(v.decisive_step, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enomem_over_the_limit_is_inferred_memlock_limit),
		cmocka_unit_test(eperm_with_limit_zero_is_inferred_memlock_zero),
		cmocka_unit_test(request_from_the_driver_step),
		cmocka_unit_test(no_inference_without_grounds),
		cmocka_unit_test(with_the_pinning_entry_the_verdict_is_proven),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
