// SPDX-License-Identifier: GPL-2.0-only
/* test_inferred.c - failures read from logs, judged without a kernel site
 * (verdict/inferred.h), and their record read back (record/inferred_failure.h):
 * the leading cause for each call and errno, how a node's facts rank the
 * candidates, the errno note of a release that prints none, the failures no
 * kernel refusal explains, the rerun under each setting, and a check
 * document reduced to facts (explain/facts.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "explain/facts.h"
#include "record/inferred_failure.h"
#include "record/kind.h"
#include "verdict/causes.h"
#include "verdict/inferred.h"
#include "verdict/names.h"

static struct inferred_in call(const char *c, int err, const char *version)
{
	struct inferred_in in;

	memset(&in, 0, sizeof(in));
	in.kind = INF_CALL;
	in.status = -1;
	snprintf(in.call, sizeof(in.call), "%s", c);
	in.err = err;
	snprintf(in.nccl_version, sizeof(in.nccl_version), "%s", version);
	snprintf(in.host, sizeof(in.host), "node01");
	return in;
}

static bool has_cand(const struct inferred *o, const char *cause)
{
	for (int i = 0; i < o->ncand; i++)
		if (!strcmp(cause_name(o->cand[i].cause), cause))
			return true;
	return false;
}

/* The causes' priors (causes.c) are the whole of a log line's candidates:
 * each row, read as a line of its first op and errno, makes its cause a
 * candidate (or lost only to INFERRED_MAX_CAND candidates scored at least
 * as high); and no two rows of a cause follow the same line (the first
 * would hide the second). */
static bool errs_meet(const int *a, const int *b)
{
	for (int i = 0; i < 4 && a[i]; i++)
		for (int j = 0; j < 4 && b[j]; j++)
			if (a[i] == b[j] || a[i] == PRIOR_ANY_ERRNO || b[j] == PRIOR_ANY_ERRNO)
				return true;
	return false;
}

static void test_every_prior_row_reaches_its_cause(void **state)
{
	(void)state;
	static struct inferred o;
	int rows = 0;

	for (int c = 0; c < CAUSE__ALL; c++) {
		for (const struct cause_prior *p = cause_row((enum cause)c)->priors; p && p->ops; p++) {
			int op = __builtin_ctz(p->ops);
			int e = p->err[0] == PRIOR_NO_ERRNO ? 0 : p->err[0] == PRIOR_ANY_ERRNO ? EPERM : p->err[0];
			struct inferred_in in = call("a_call", e, "");
			in.op = (enum rdma_op)op;
			in.gdr = (p->flags & PRIOR_IF_GDR) != 0;
			in.from_nccl = true; /* no default word on the buffer: scores as written */
			inferred_judge(&in, NULL, INF_SET_UNKNOWN, NULL, &o);
			rows++;
			if (!has_cand(&o, cause_name((enum cause)c))) {
				assert_int_equal(o.ncand, INFERRED_MAX_CAND);
				assert_true(o.cand[INFERRED_MAX_CAND - 1].score >= p->score);
			}
			for (const struct cause_prior *q = p + 1; q->ops; q++)
				if (p->ops & q->ops)
					assert_false(errs_meet(p->err, q->err));
		}
	}
	assert_true(rows >= 50);
	/* a line with more candidates than a verdict holds keeps the highest:
	 * ibv_reg_mr with no errno has 13, the table's order puts
	 * mlx5_firmware (8) after pin_hugetlb (4), and only the first is kept */
	struct inferred_in in = call("ibv_reg_mr_iova2", 0, "2.21.5");
	in.from_nccl = true;
	inferred_judge(&in, NULL, INF_SET_UNKNOWN, NULL, &o);
	assert_int_equal(o.ncand, INFERRED_MAX_CAND);
	assert_true(has_cand(&o, "mlx5_firmware") && has_cand(&o, "pin_fault"));
	assert_false(has_cand(&o, "pin_hugetlb") || has_cand(&o, "iova_misaligned"));
	for (int i = 1; i < o.ncand; i++)
		assert_true(o.cand[i - 1].score >= o.cand[i].score);
}

static bool rests_on(const struct inferred *o, const char *needle)
{
	for (int i = 0; i < o->nrests; i++)
		if (strstr(o->rests_on[i], needle))
			return true;
	return false;
}

static struct inferred_facts slurm64k(void)
{
	struct inferred_facts f;

	memset(&f, 0, sizeof(f));
	f.have = true;
	snprintf(f.host, sizeof(f.host), "node01");
	f.memlock_known = true;
	f.memlock_soft = 64 << 10;
	snprintf(f.memlock_of, sizeof(f.memlock_of), "slurmd's jobs");
	f.slurm_propagates = -1;
	return f;
}

/* NCCL 2.21's ENOMEM under slurmd's 64 KiB: memlock_limit, resting on both */
static void test_reg_mr_enomem_slurm(void **state)
{
	(void)state;
	struct inferred_in in = call("ibv_reg_mr_iova2", ENOMEM, "2.21.5");
	struct inferred_facts f = slurm64k();
	static struct inferred o;

	in.channels = 4;
	in.buffsize = 8 << 20;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_false(o.no_kernel_refusal);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_true(has_cand(&o, "dma_map_iova"));
	assert_true(has_cand(&o, "mlx5_firmware"));
	assert_true(rests_on(&o, "the log says ENOMEM from ibv_reg_mr_iova2 (NCCL 2.21.5)"));
	assert_true(rests_on(&o, "slurmd's jobs get 64 KiB"));
	assert_string_equal(o.rerun, "srun -N1 -n1 -w node01 mrprobe --nccl-channels 4 "
				     "--nccl-peers 1 --nccl-buffsize 8388608");
	assert_non_null(strstr(o.watch, "mrtrace watch"));
	assert_string_equal(o.errno_note, "");
	/* every candidate of a refused call is a cause of docs/causes.md */
	for (int i = 0; i < o.ncand; i++)
		assert_true(o.cand[i].cause < CAUSE__COUNT);
}

/* The log's own limit (UCX's "(current: 64 kbytes)") leads even against a
 * node whose setting is unlimited now, with the request's size beside it */
static void test_reg_mr_logged_memlock(void **state)
{
	(void)state;
	struct inferred_in in = call("ibv_reg_mr", ENOMEM, "");
	struct inferred_facts f = slurm64k();
	static struct inferred o;

	f.memlock_soft = UINT64_MAX;
	snprintf(f.iommu, sizeof(f.iommu), "translated");
	in.memlock_logged = true;
	in.memlock = 64 << 10;
	in.has_length = true;
	in.length = 1 << 20;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_true(rests_on(&o, "the log says the process's memlock limit was 64 KiB, and this request alone was 1 MiB"));
	/* no errno and the limit logged: still memlock_limit, memlock_zero down */
	in.err = 0;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	/* the log says unlimited: memlock_limit is not the lead */
	in.err = ENOMEM;
	in.memlock = UINT64_MAX;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_not_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_true(rests_on(&o, "memlock limit was unlimited"));
}

/* An unlimited limit moves memlock_limit down: another candidate leads */
static void test_reg_mr_enomem_unlimited(void **state)
{
	(void)state;
	struct inferred_in in = call("ibv_reg_mr_iova2", ENOMEM, "2.21.5");
	struct inferred_facts f = slurm64k();
	static struct inferred o;

	f.memlock_soft = UINT64_MAX;
	snprintf(f.iommu, sizeof(f.iommu), "translated");
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_not_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_string_equal(cause_name(o.cand[0].cause), "dma_map_iova");
	assert_true(rests_on(&o, "unlimited"));
}

static void test_reg_mr_errnos(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("ibv_reg_mr", EPERM, "");

	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_zero");
	assert_true(rests_on(&o, "judged from the log alone"));
	in = call("ibv_reg_mr_iova2", EFAULT, "2.19.3");
	struct inferred_facts f = slurm64k();
	snprintf(f.peermem, sizeof(f.peermem), "no_client");
	snprintf(f.dmabuf, sizeof(f.dmabuf), "nic_driver");
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_device_memory");
	assert_true(has_cand(&o, "pin_fault"));
	/* the line says host memory: the range leads; GPU memory: the client */
	in = call("ibv_reg_mr", EFAULT, "");
	in.host_mem = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_fault");
	in.host_mem = false;
	in.gpu_mem = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_device_memory");
	/* no word on the buffer: a plain ibv_reg_mr of another program is
	 * host memory first (the field corpus's assise-26), NCCL's and its
	 * forks' ibv_reg_mr_iova2 GPU memory (flagcx-61) */
	in = call("ibv_reg_mr", EFAULT, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_fault");
	assert_true(has_cand(&o, "pin_device_memory"));
	in = call("ibv_reg_mr_iova2", EFAULT, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_device_memory");
	in = call("ibv_reg_mr", EFAULT, "2.18.1");
	in.from_nccl = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_device_memory");
	/* mlock's ENOMEM: the limit a registration's pin meets too; EPERM zero */
	in = call("mlock", ENOMEM, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	in = call("mlockall", EPERM, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_zero");
	/* pidfd_getfd's EPERM: the peer's ptrace access */
	in = call("pidfd_getfd", EPERM, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "fd_import_denied");
	in = call("ibv_reg_dmabuf_mr", EOPNOTSUPP, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "dmabuf_unsupported");
	assert_false(has_cand(&o, "pin_fsdax"));
	/* "Unknown error 524": the kernel-internal ENOTSUPP, named */
	in = call("ibv_reg_dmabuf_mr", 524, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "dmabuf_unsupported");
	assert_non_null(strstr(o.what, "ENOTSUPP"));
	/* a plain MR's EOPNOTSUPP: the kernel's only one is an fs-dax buffer */
	in = call("ibv_reg_mr_iova2", EOPNOTSUPP, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_fsdax");
	assert_true(has_cand(&o, "dmabuf_unsupported"));
	in = call("ibv_reg_mr_iova2", EINVAL, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_access_flags");
	assert_true(has_cand(&o, "iova_misaligned"));
}

/* a provider's registration (libfabric's fi_mr_reg* on EFA or verbs) pins
 * as ibv_reg_mr does: its ENOMEM under 64 KiB is memlock_limit, not unknown */
static void test_provider_registrations(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_facts f = slurm64k();
	struct inferred_in in = call("fi_mr_reg", ENOMEM, "");

	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_int_equal(inferred_op("fi_mr_regattr"), OP_REG_MR);
	assert_int_equal(inferred_op("fi_mr_regv"), OP_REG_MR);
	in = call("fi_mr_regattr", EFAULT, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_true(has_cand(&o, "pin_fault"));
	assert_false(has_cand(&o, "unknown"));
}

/* NCCL 2.8 prints no errno for ibv_create_qp: said, every candidate listed */
static void test_create_qp_no_errno(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("ibv_create_qp", 0, "2.8.4");

	in.release_no_errno = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(o.errno_note, "NCCL 2.8.4 prints no errno for ibv_create_qp; ENOMEM, "
					  "EINVAL and EAGAIN are all possible here");
	assert_true(has_cand(&o, "hca_resource_limit"));
	assert_true(has_cand(&o, "qp_attr_invalid"));
	assert_true(has_cand(&o, "rdma_cgroup_limit"));
	in = call("ibv_create_qp", EAGAIN, "2.21.5");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "rdma_cgroup_limit");
}

static void test_modify_qp_and_open(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_facts f = slurm64k();
	struct inferred_in in = call("ibv_modify_qp", EINVAL, "2.21.5");

	f.ports = 2;
	f.ports_down = 1;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "port_not_active");
	assert_true(has_cand(&o, "bad_gid_index"));
	f.ports_down = 0;
	f.roce_ports = 1;
	f.gids = 2;
	f.roce_v2_gids = 0;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
	in = call("ibv_open_device", ENOENT, "");
	inferred_judge(&in, NULL, INF_SET_DOCKER, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "device_missing");
	assert_non_null(strstr(o.rerun, "docker run"));
	in = call("ibv_open_device", EACCES, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "device_permission");
	assert_true(has_cand(&o, "device_cgroup"));
	in = call("posix_fallocate", ENOSPC, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "shm_exhausted");
	/* not a full tmpfs: fallocate(1)'s "keep size mode is unsupported",
	 * RLIMIT_FSIZE's EFBIG */
	in = call("fallocate", EOPNOTSUPP, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "unknown");
	in = call("fallocate", EFBIG, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_false(has_cand(&o, "shm_exhausted"));
}

/* create_cq/create_qp ENOMEM: the queue buffers are pinned like an MR's,
 * memlock_limit leads with no limit known (every thread of the field
 * corpus that settled one: tests/fixtures/field) and under a low limit
 * (the log's or the setting's); a limit known to be high or unlimited:
 * the HCA's counts lead */
static void test_queue_enomem_memlock(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_facts f = slurm64k();
	struct inferred_in in = call("ibv_create_cq", ENOMEM, "");

	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_true(has_cand(&o, "hca_resource_limit"));
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_true(rests_on(&o, "queue buffers are pinned"));
	in = call("ibv_create_qp", ENOMEM, "2.21.5");
	in.memlock_logged = true;
	in.memlock = 64 << 10;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_true(rests_on(&o, "the log says the process's memlock limit was 64 KiB"));
	in.memlock = UINT64_MAX;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "hca_resource_limit");
	f.memlock_soft = UINT64_MAX;
	in.memlock_logged = false;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "hca_resource_limit");
	f.memlock_soft = 1ull << 30; /* 1 GiB: room for any queue */
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "hca_resource_limit");
	assert_true(rests_on(&o, "room for any queue's buffers"));
	/* no errno ("Couldn't create CQ", rdma-core's examples): the limit
	 * weighs nothing, whatever it is (the VM's failures case: a CQ over the
	 * device's maximum, and the rdma cgroup's EAGAIN, under a shell's 8 MiB) */
	f.memlock_soft = 8 << 20;
	in = call("ibv_create_cq", 0, "");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_not_equal(cause_name(o.cand[0].cause), "memlock_limit");
	assert_false(rests_on(&o, "queue buffers are pinned"));
}

/* modify_qp by errno (issue 46): the address resolution's errnos lead with
 * gid_unreachable ("Call to ibv_modify_qp failed with 110 Connection timed
 * out"), ENODEV with the GID's netdev, EINVAL on RoCE with the GID before
 * the port; a port known down still leads ENETUNREACH */
static void test_modify_qp_errnos(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_facts f = slurm64k();
	static const int unreach[] = { ETIMEDOUT, ENETUNREACH, EHOSTUNREACH };
	struct inferred_in in;

	for (size_t i = 0; i < sizeof(unreach) / sizeof(unreach[0]); i++) {
		in = call("ibv_modify_qp", unreach[i], "2.21.5");
		inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
		assert_string_equal(cause_name(o.cand[0].cause), "gid_unreachable");
		assert_true(has_cand(&o, "port_not_active"));
		assert_non_null(strstr(o.what, errno_name(unreach[i])));
		assert_null(strstr(o.what, "E?"));
		for (int k = 0; k < o.ncand; k++)
			assert_true(o.cand[k].cause < CAUSE__COUNT);
	}
	in = call("ibv_modify_qp", ENETUNREACH, "2.21.5");
	f.ports = 2;
	f.ports_down = 1;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "port_not_active");
	in = call("ibv_modify_qp", ENODEV, "2.21.5");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "gid_unreachable");
	assert_non_null(strstr(o.cand[0].why, "namespace"));
	assert_true(has_cand(&o, "bad_gid_index"));
	/* EINVAL: the GID (RoCE's GRH) leads, as the field corpus's settled
	 * RTR EINVALs and the VM's nogrh; a port the facts know down leads */
	in = call("ibv_modify_qp", EINVAL, "2.21.5");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
	assert_true(has_cand(&o, "port_not_active"));
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "port_not_active");
	in.roce = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
	assert_true(rests_on(&o, "the port is RoCE"));
	/* the move to RTS: the address was taken at RTR, RTS's own
	 * attributes are what it refuses (orangefs-43), RoCE or not */
	in.qp_to_rts = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "qp_attr_invalid");
	assert_true(rests_on(&o, "the move was RTR -> RTS"));
	in.qp_to_rts = false;
	/* no errno: gid_unreachable is among them, not first: the index and
	 * the port lead ("Failed to modify QP to RTR" of ibv_rc_pingpong given
	 * an empty GID index, on a node whose RoCE ports are up and hold a v2
	 * GID: the VM's failures case, bad_gid_index proven) */
	in = call("ibv_modify_qp", 0, "2.8.4");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_true(has_cand(&o, "gid_unreachable"));
	assert_string_not_equal(cause_name(o.cand[0].cause), "gid_unreachable");
	assert_non_null(strstr(o.errno_note, "ETIMEDOUT"));
	f = slurm64k();
	f.ports = 1;
	f.ports_down = 0;
	f.roce_ports = 1;
	f.gids = 1;
	f.roce_v2_gids = 1;
	in = call("ibv_modify_qp", 0, "");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
}

/* a RoCE port rxe0/1 with GIDs 0 (v1, link-local), 1 (v2, link-local),
 * 2 (v1, IPv4) and 3 (v2, IPv4); NCCL would take 3 */
static void roce_port(struct inferred_facts *f)
{
	struct inferred_gid_port *p = &f->gid_port[0];
	static const struct inferred_gid e[] = {
		{ 0, false, "IB/RoCE v1" }, { 1, false, "RoCE v2" },
		{ 2, true, "IB/RoCE v1" },  { 3, true, "RoCE v2" },
	};

	f->gid_ports = 1;
	memset(p, 0, sizeof(*p));
	snprintf(p->device, sizeof(p->device), "rxe0");
	p->port = 1;
	p->roce = true;
	snprintf(p->how, sizeof(p->how), "selected");
	p->nccl_index = 3;
	p->populated = p->nentries = 4;
	memcpy(p->e, e, sizeof(e));
}

/* the GID table of the port the line names decides bad_gid_index against
 * port_not_active: the index the line names empty, link-local, usable;
 * NCCL's own choice when the line names none (its choice failing leads) */
static void test_gid_facts(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_facts f = slurm64k();
	struct inferred_in in = call("ibv_modify_qp", EINVAL, "2.21.5");

	roce_port(&f);
	f.ports = 1;
	snprintf(in.device, sizeof(in.device), "rxe0");
	in.port = 1;
	in.from_nccl = true;
	in.has_gid_index = true;
	in.gid_index = 7;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
	assert_true(rests_on(&o, "rxe0 port 1 has no GID at index 7 (the index the log names)"));
	in.gid_index = 1;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
	assert_true(rests_on(&o, "GID 1 of rxe0 port 1 (the index the log names) is RoCE v2, not routable"));
	/* a usable index: the port leads once it is down */
	in.gid_index = 3;
	f.ports_down = 1;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "port_not_active");
	assert_true(rests_on(&o, "is a usable RoCE v2 GID"));
	/* no index in the line: NCCL's own choice here */
	f.ports_down = 0;
	in.has_gid_index = false;
	snprintf(f.gid_port[0].how, sizeof(f.gid_port[0].how), "fails");
	f.gid_port[0].nccl_index = -1;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "bad_gid_index");
	assert_true(rests_on(&o, "NCCL's own GID choice on rxe0 port 1 fails"));
	/* ... which is not another client's choice */
	in.from_nccl = false;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_false(rests_on(&o, "NCCL's own GID choice"));
	/* an index beyond the entries kept is unknown: no weight, nothing said */
	in.has_gid_index = true;
	in.gid_index = 40;
	f.gid_port[0].populated = 50;
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_false(rests_on(&o, "at index 40"));
	assert_false(rests_on(&o, "GID 40 of"));
	/* another device than the line's: not judged by this one */
	f.gid_port[0].populated = 4;
	in.gid_index = 7;
	snprintf(in.device, sizeof(in.device), "mlx5_0");
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_false(rests_on(&o, "at index 7"));
}

/* the rdma cgroup now: a limiting cgroup leads an object's refusal with no
 * errno over the device's own limits; the controller off pushes it last */
static void test_rdmacg_facts(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_facts f = slurm64k();
	struct inferred_in in = call("ibv_create_cq", 0, "");

	f.memlock_soft = UINT64_MAX;
	f.rdmacg = INF_RDMACG_ON;
	f.rdmacg_limited = 1;
	snprintf(f.rdmacg_first, sizeof(f.rdmacg_first), "/mrt-rdma");
	snprintf(f.rdmacg_first_line, sizeof(f.rdmacg_first_line), "rxe0 hca_handle=max hca_object=2");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "rdma_cgroup_limit");
	assert_true(rests_on(&o, "1 cgroup limits RDMA objects now, the first /mrt-rdma (\"rxe0 hca_handle=max hca_object=2\")"));
	/* a device open with no errno: the hca_handle charge */
	in = call("ibv_open_device", 0, "");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "rdma_cgroup_limit");
	assert_non_null(strstr(o.errno_note, "EAGAIN"));
	in = call("ibv_open_device", EAGAIN, "");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "rdma_cgroup_limit");
	/* the controller off: behind the device's own limits, and said */
	in = call("ibv_create_cq", 0, "");
	f.rdmacg = INF_RDMACG_OFF;
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "hca_resource_limit");
	for (int i = 0; i < o.ncand; i++)
		if (!strcmp(cause_name(o.cand[i].cause), "rdma_cgroup_limit"))
			assert_true(o.cand[i].score < 0);
	assert_true(rests_on(&o, "does not enable the rdma controller"));
	/* on, nothing limits now: weighed down but said a job's cgroup may be gone */
	f.rdmacg = INF_RDMACG_ON;
	f.rdmacg_limited = 0;
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_true(rests_on(&o, "a job's own cgroup may be gone"));
	/* unknown (not read, a --facts document): nothing said */
	f.rdmacg = INF_RDMACG_UNKNOWN;
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_false(rests_on(&o, "rdma"));
	/* a registration has no rdma cgroup candidate to weigh: nothing said */
	f.rdmacg = INF_RDMACG_OFF;
	in = call("ibv_reg_mr", ENOMEM, "");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_false(rests_on(&o, "rdma controller"));
}

/* A completion error, an async event, GPUDirect off: no kernel refusal,
 * what to check next, no mrprobe rerun */
static void test_no_kernel_refusal(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("", 0, "2.21.5");

	in.kind = INF_COMPLETION;
	in.status = 12;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_true(o.no_kernel_refusal);
	assert_string_equal(cause_name(o.cand[0].cause), "fabric_retry");
	assert_non_null(strstr(o.what, "transport retry counter exceeded"));
	assert_non_null(strstr(o.cand[0].why, "lossy fabric"));
	assert_true(o.nnext > 0);
	assert_string_equal(o.rerun, "");
	/* the node's link error counters are what it ties to */
	struct inferred_facts f = slurm64k();
	roce_port(&f);
	f.gid_port[0].counters_read = true;
	snprintf(f.gid_port[0].counters, sizeof(f.gid_port[0].counters), "link_downed 3");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_true(rests_on(&o, "rxe0 port 1's link error counters since the driver loaded: link_downed 3"));
	f.gid_port[0].counters[0] = '\0';
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_true(rests_on(&o, "rxe0 port 1's link error counters are all 0"));
	/* local protection: ACS/IOMMU with GPUDirect; flushed: an earlier error */
	in.kind = INF_COMPLETION;
	in.status = 4;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "protection_error");
	assert_non_null(strstr(o.cand[0].why, "ACS"));
	in.status = 5;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "flushed_after_error");
	in.status = 9;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "completion_error");
	in.kind = INF_ASYNC;
	snprintf(in.detail, sizeof(in.detail), "GID table change");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "gid_change");
	in.kind = INF_GDR_OFF;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "gdr_disabled");
}

/* A registration with no errno whose line says GPU memory: the missing
 * peer-memory client leads, not RLIMIT_MEMLOCK (gpu_direct_rdma_access-5's
 * "Couldn't register GPU MR"); a line that says nothing of its buffer
 * keeps memlock_limit, and an ENOMEM of GPU memory keeps it too */
static void test_gpu_mr_no_errno(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("ibv_reg_mr", 0, "");

	in.gpu_mem = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "pin_device_memory");
	assert_true(has_cand(&o, "memlock_limit"));
	in.gpu_mem = false;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
	in = call("ibv_reg_mr", ENOMEM, "");
	in.gpu_mem = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "memlock_limit");
}

/* The kernel's CREATE_MKEY line leads with mlx5_firmware, and makes it
 * lead for the registration NCCL saw fail */
static void test_kernel_mkey(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("CREATE_MKEY", 0, "");

	in.kind = INF_KERNEL_LOG;
	in.status = 8;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "mlx5_firmware");
	assert_non_null(strstr(o.what, "LIM_ERR"));
	in = call("ibv_reg_mr_iova2", ENOMEM, "2.21.5");
	in.mkey_failed = true;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "mlx5_firmware");
}

/* mlx5's health and fatal-error lines are the device's fatal state, not a
 * port event (charm-2635); a link going down stays a port event */
static void test_kernel_health_lines(void **state)
{
	(void)state;
	static struct inferred o;
	static const char *const fatal[] = {
		"health compromised - reached miss count", "assert_var[0] 0x00000001",
		"fw_fatal", "firmware fatal error", "Fatal error detected",
	};
	struct inferred_in in = call("", 0, "");

	in.kind = INF_ASYNC;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		snprintf(in.detail, sizeof(in.detail), "%s", fatal[i]);
		inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
		assert_string_equal(cause_name(o.cand[0].cause), "device_fatal");
	}
	snprintf(in.detail, sizeof(in.detail), "Link down");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "port_event");
}

/* A firmware command other than an MR's refused with "limits exceeded"
 * (LIM_ERR, 0x8) is the HCA's count or size used up (libfabric-7368's
 * CREATE_QP); CREATE_MKEY's stays mlx5_firmware */
static void test_kernel_limits_exceeded(void **state)
{
	(void)state;
	static struct inferred o;
	static const char *const cmds[] = { "CREATE_QP", "CREATE_CQ", "ALLOC_UAR" };
	struct inferred_in in;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		in = call(cmds[i], 0, "");
		in.kind = INF_KERNEL_LOG;
		in.status = 8;
		inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
		assert_string_equal(cause_name(o.cand[0].cause), "hca_resource_limit");
		assert_true(has_cand(&o, "mlx5_firmware"));
	}
	in = call("CREATE_QP", 0, "");
	in.kind = INF_KERNEL_LOG;
	in.status = 3; /* BAD_PARAM_ERR: the firmware's, not a count */
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(cause_name(o.cand[0].cause), "mlx5_firmware");
}

/* A setting's limit from the facts: the rerun runs mrprobe under it */
static void test_rerun_settings(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("ibv_reg_mr", ENOMEM, "");
	struct inferred_facts f = slurm64k();

	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_equal(o.rerun, "sudo mrprobe --nccl-channels 2 --nccl-peers 1 --memlock 64K "
				     "--as-nobody");
	inferred_judge(&in, &f, INF_SET_SYSTEMD, "trainer.service", &o);
	assert_string_equal(o.rerun, "systemd-run --wait --pipe -p LimitMEMLOCK=64K mrprobe "
				     "--nccl-channels 2 --nccl-peers 1");
	inferred_judge(&in, &f, INF_SET_K8S, NULL, &o);
	assert_non_null(strstr(o.rerun, "kubectl exec"));
	assert_int_equal(inferred_setting_from_name("kubernetes"), INF_SET_K8S);
	assert_int_equal(inferred_setting_from_name("nope"), INF_SET_UNKNOWN);
}

/* Failures other than registrations end with their own proof (issue 32
 * item 5): QPs and CQs of NCCL's depths for the release (mrprobe makes
 * none), the GID entry NCCL used, NCCL's shm segment; the watch always */
static void test_rerun_beyond_registrations(void **state)
{
	(void)state;
	static struct inferred o;
	struct inferred_in in = call("ibv_create_qp", ENOMEM, "2.21.5");
	struct inferred_facts f = slurm64k();

	/* 2.19+: MAX_REQUESTS 32 x 8; 4 channels x 2 x 1 peer x 2 QPs each */
	in.channels = 4;
	in.qps_per_conn = 2;
	snprintf(in.device, sizeof(in.device), "mlx5_0");
	inferred_judge(&in, &f, INF_SET_SLURM, NULL, &o);
	assert_string_equal(o.rerun, "srun -N1 -n1 -w node01 sh -c 'ib_send_bw -d mlx5_0 --qp=16 --tx-depth=512 "
				     "--rx-depth=256 & sleep 2; ib_send_bw -d mlx5_0 --qp=16 --tx-depth=512 "
				     "--rx-depth=256 localhost'");
	assert_true(rests_on(&o, "NCCL 2.21.5 creates QPs of max_send_wr 512, max_recv_wr 256 and CQs of 1024 entries"));
	assert_non_null(strstr(o.watch, "mrtrace watch"));
	/* 2.12..2.18: 8 x 8; before 2.12: 8, the CQ not per QP; shell: the
	 * setting's limit by prlimit (no privilege to lower one's own) */
	in = call("ibv_create_cq", 0, "2.18.3");
	inferred_judge(&in, &f, INF_SET_SHELL, NULL, &o);
	assert_string_equal(o.rerun, "prlimit --memlock=65536:65536 sh -c 'ib_send_bw --qp=4 --tx-depth=128 "
				     "--rx-depth=64 & sleep 2; ib_send_bw --qp=4 --tx-depth=128 --rx-depth=64 localhost'");
	assert_true(rests_on(&o, "CQs of 128 entries"));
	in = call("ibv_create_qp", 0, "2.8.4");
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_non_null(strstr(o.rerun, "--tx-depth=16 --rx-depth=8"));
	/* a device name the log controls never reaches the command */
	in = call("ibv_create_qp", ENOMEM, "2.21.5");
	snprintf(in.device, sizeof(in.device), "mlx5_0;reboot");
	snprintf(in.host, sizeof(in.host), "$(reboot)");
	inferred_judge(&in, NULL, INF_SET_SLURM, NULL, &o);
	assert_null(strstr(o.rerun, "reboot"));
	assert_non_null(strstr(o.rerun, "-w HOST "));
	assert_non_null(strstr(o.rerun, " -d DEV "));

	/* modify_qp: the port and the GID entry NCCL used, in the pod */
	in = call("ibv_modify_qp", EINVAL, "2.24.3");
	snprintf(in.device, sizeof(in.device), "mlx5_1");
	in.port = 1;
	in.has_gid_index = true;
	in.gid_index = 5;
	inferred_judge(&in, NULL, INF_SET_K8S, NULL, &o);
	assert_string_equal(o.rerun, "kubectl exec POD -- sh -c 'rdma link show mlx5_1/1; grep . "
				     "/sys/class/infiniband/mlx5_1/ports/1/gids/5 "
				     "/sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/5'");
	assert_non_null(strstr(o.watch, "systemctl enable --now mrtrace"));
	/* the RoCE GID type NCCL could not read: the same read, in the container */
	in.kind = INF_GID_TYPE;
	inferred_judge(&in, NULL, INF_SET_DOCKER, NULL, &o);
	assert_true(o.no_kernel_refusal);
	assert_string_equal(o.rerun, "docker run --rm --device=/dev/infiniband IMAGE "
				     "grep . /sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/5");

	/* shm: NCCL's segment allocated as NCCL does, and /dev/shm's size */
	in = call("posix_fallocate", ENOSPC, "2.24.3");
	in.shm_size = 9637892;
	inferred_judge(&in, NULL, INF_SET_SHELL, NULL, &o);
	assert_string_equal(o.rerun, "fallocate -l 9637892 /dev/shm/mrtrace-proof && echo fits; "
				     "rm -f /dev/shm/mrtrace-proof; df -B1 --output=size,avail /dev/shm");
	assert_string_equal(o.watch, "sudo mrtrace watch --json -o /var/tmp/mrtrace.jsonl -- <your launch command>");
	in.shm_size = 0;
	inferred_judge(&in, NULL, INF_SET_DOCKER, NULL, &o);
	assert_string_equal(o.rerun, "docker run --rm --device=/dev/infiniband IMAGE df -B1 --output=size,avail /dev/shm");
	assert_true(rests_on(&o, "--shm-size"));

	/* no rerun proves a completion error, but the watch is still given */
	in = call("", 0, "2.21.5");
	in.kind = INF_COMPLETION;
	in.status = 12;
	inferred_judge(&in, NULL, INF_SET_SLURM, NULL, &o);
	assert_string_equal(o.rerun, "");
	assert_non_null(strstr(o.watch, "srun mrtrace watch"));
}

/* A check document reduced: slurmd's limit, GPUDirect, ports */
static void test_facts_from_check(void **state)
{
	(void)state;
	struct inferred_facts f;
	struct json_object *doc = json_tokener_parse(
		"{\"host\":{\"hostname\":\"node7\"},"
		"\"memlock\":{\"units\":{\"slurmd.service\":{\"effective_soft_bytes\":65536}},"
		"\"this_shell\":{\"soft_bytes\":\"unlimited\"},\"slurm_propagates_memlock\":true},"
		"\"gpudirect\":{\"peer_memory\":{\"state\":\"no_client\"},\"dmabuf\":{\"state\":\"unknown\"}},"
		"\"iommu\":{\"mode\":\"passthrough\"},"
		"\"rdma\":{\"devices\":[{\"dev_node\":{\"open\":\"EACCES\"},\"ports\":["
		"{\"state\":\"DOWN\",\"link_layer\":\"InfiniBand\"},"
		"{\"state\":\"ACTIVE\",\"link_layer\":\"Ethernet\",\"gid_count\":4,\"roce_v2_gids\":2}]}]},"
		"\"fabric\":{\"ports\":[{\"device\":\"rxe0\",\"port\":1,\"link_layer\":\"Ethernet\","
		"\"gids\":[{\"index\":0,\"populated\":true,\"type\":\"IB/RoCE v1\",\"routable\":false},"
		"{\"index\":1,\"populated\":true,\"type\":\"RoCE v2\",\"routable\":true},"
		"{\"index\":2,\"populated\":false,\"type\":\"\",\"routable\":false}],"
		"\"nccl\":{\"how\":\"selected\",\"index\":1},"
		"\"counters\":{\"symbol_error\":0,\"link_downed\":3,\"port_rcv_errors\":null,\"carrier_changes\":8}},"
		"{\"device\":\"mlx5_0\",\"port\":1,\"link_layer\":\"InfiniBand\",\"gids\":[],"
		"\"nccl\":{\"how\":\"fails\",\"index\":null}}]}}");

	assert_non_null(doc);
	explain_facts_from_check(doc, INF_SET_SLURM, NULL, &f);
	assert_true(f.have);
	assert_string_equal(f.host, "node7");
	assert_true(f.memlock_known);
	assert_int_equal(f.memlock_soft, 65536);
	assert_string_equal(f.memlock_of, "slurmd's jobs");
	assert_int_equal(f.slurm_propagates, 1);
	assert_string_equal(f.peermem, "no_client");
	assert_string_equal(f.dmabuf, "");
	assert_int_equal(f.ports, 2);
	assert_int_equal(f.ports_down, 1);
	assert_int_equal(f.roce_v2_gids, 2);
	assert_int_equal(f.uverbs_bad, 1);
	assert_string_equal(f.uverbs_err, "EACCES");
	assert_int_equal(f.gid_ports, 2);
	assert_string_equal(f.gid_port[0].device, "rxe0");
	assert_int_equal(f.gid_port[0].port, 1);
	assert_true(f.gid_port[0].roce);
	assert_string_equal(f.gid_port[0].how, "selected");
	assert_int_equal(f.gid_port[0].nccl_index, 1);
	assert_int_equal(f.gid_port[0].populated, 2);
	assert_int_equal(f.gid_port[0].nentries, 2);
	assert_int_equal(f.gid_port[0].e[1].index, 1);
	assert_true(f.gid_port[0].e[1].routable);
	assert_string_equal(f.gid_port[0].e[1].type, "RoCE v2");
	assert_false(f.gid_port[1].roce);
	assert_string_equal(f.gid_port[1].how, "fails");
	assert_int_equal(f.gid_port[1].nccl_index, -1);
	assert_true(f.gid_port[0].counters_read);
	assert_string_equal(f.gid_port[0].counters, "link_downed 3, carrier_changes 8");
	assert_false(f.gid_port[1].counters_read);
	/* a check document carries no rdma cgroup of the node: unknown */
	assert_int_equal(f.rdmacg, INF_RDMACG_UNKNOWN);
	explain_facts_from_check(doc, INF_SET_SHELL, NULL, &f);
	assert_int_equal(f.memlock_soft, UINT64_MAX);
	json_object_put(doc);
}

/* Written and read back: the same verdict */
static void test_record_round_trip(void **state)
{
	(void)state;
	static struct record_inferred r, back;
	struct inferred_facts f = slurm64k();
	char err[256] = "";

	memset(&r, 0, sizeof(r));
	r.in = call("ibv_reg_mr_iova2", ENOMEM, "2.21.5");
	r.pid = 5005;
	r.rank = 5;
	r.same_ranks = 63;
	r.nhosts = 1;
	snprintf(r.hosts[0], sizeof(r.hosts[0]), "node02");
	snprintf(r.file, sizeof(r.file), "slurm.out");
	r.line = 18;
	inferred_judge(&r.in, &f, INF_SET_SLURM, NULL, &r.v);
	struct record rec = { .kind = &record_kind_inferred_failure, .data = &r };
	struct json_object *o = record_to_json(&rec);
	struct json_object *x;
	assert_true(json_object_object_get_ex(o, "certainty", &x));
	assert_string_equal(json_object_get_string(x), "inferred");
	assert_int_equal(inferred_failure_from_json(o, &back, err, sizeof(err)), 0);
	assert_string_equal(cause_name(back.v.cand[0].cause), "memlock_limit");
	assert_int_equal(back.v.ncand, r.v.ncand);
	assert_int_equal(back.in.err, ENOMEM);
	assert_int_equal(back.same_ranks, 63);
	assert_string_equal(back.hosts[0], "node02");
	assert_string_equal(back.v.rerun, r.v.rerun);
	assert_int_equal(back.rank, 5);
	/* the number and its name, the envelope (issue 46 item 7) */
	assert_true(json_object_object_get_ex(o, "errno", &x));
	assert_true(json_object_is_type(x, json_type_int));
	assert_int_equal(json_object_get_int(x), ENOMEM);
	assert_true(json_object_object_get_ex(o, "errno_name", &x));
	assert_string_equal(json_object_get_string(x), "ENOMEM");
	assert_true(json_object_object_get_ex(o, "schema", &x));
	assert_true(json_object_object_get_ex(o, "mrtrace_version", &x));
	assert_true(json_object_object_get_ex(o, "time", &x));
	assert_null(x); /* no stamp: null, never explain's own clock */
	json_object_put(o);
	/* an ISO stamp is the record's time; glog's time of day is not */
	snprintf(r.time, sizeof(r.time), "2026-03-02T09:15:07.980787Z");
	o = record_to_json(&rec);
	assert_true(json_object_object_get_ex(o, "time", &x));
	assert_string_equal(json_object_get_string(x), "2026-03-02T09:15:07.980787Z");
	json_object_put(o);
	snprintf(r.time, sizeof(r.time), "09:15:07.980787");
	o = record_to_json(&rec);
	assert_true(json_object_object_get_ex(o, "time", &x));
	assert_null(x);
	json_object_put(o);
	/* an earlier build's record: the errno as its name */
	o = json_tokener_parse("{\"event\":\"inferred_failure\",\"what\":\"w\",\"cause\":"
			       "\"memlock_limit\",\"errno\":\"EFAULT\"}");
	assert_int_equal(inferred_failure_from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back.in.err, EFAULT);
	json_object_put(o);
	o = json_tokener_parse("{\"event\":\"inferred_failure\"}");
	assert_int_equal(inferred_failure_from_json(o, &back, err, sizeof(err)), -1);
	json_object_put(o);
}

/* The log line, its file, host, time and the other ranks' hosts come from
 * logs a job wrote (and records of other nodes read back): printed as text
 * they are escaped, never raw U+202E or ESC (issue 34, item 13). */
static void test_text_escapes_bidi_and_esc(void **state)
{
	(void)state;
	static struct record_inferred r;
	struct inferred_facts f = slurm64k();

	memset(&r, 0, sizeof(r));
	r.in = call("ibv_reg_mr_iova2", ENOMEM, "2.21.5");
	snprintf(r.in.host, sizeof(r.in.host), "n\033[2J1");
	r.pid = 5005;
	r.rank = -1;
	r.same_ranks = 1;
	r.nhosts = 1;
	snprintf(r.hosts[0], sizeof(r.hosts[0]), "node\xe2\x80\xae" "02");
	snprintf(r.file, sizeof(r.file), "slurm\xe2\x80\xaetuo.out");
	snprintf(r.time, sizeof(r.time), "12:00\033]0;x");
	snprintf(r.text, sizeof(r.text), "NCCL WARN \033[8mCall to ibv_reg_mr failed\xe2\x80\xae");
	r.line = 18;
	r.have_watch = true;
	snprintf(r.watch_cause, sizeof(r.watch_cause), "memlock\033[31m");
	inferred_judge(&r.in, &f, INF_SET_SLURM, NULL, &r.v);
	struct record rec = { .kind = &record_kind_inferred_failure, .data = &r };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_true(rec.kind->to_text(out, &rec, true, NULL));
	fclose(out);
	if (strchr(text, '\033') || strstr(text, "\xe2\x80\xae"))
		fail_msg("raw ESC or U+202E in:\n%s", text);
	assert_non_null(strstr(text, "slurm\\u202etuo.out"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reg_mr_enomem_slurm),
		cmocka_unit_test(test_reg_mr_enomem_unlimited),
		cmocka_unit_test(test_reg_mr_logged_memlock),
		cmocka_unit_test(test_reg_mr_errnos),
		cmocka_unit_test(test_create_qp_no_errno),
		cmocka_unit_test(test_provider_registrations),
		cmocka_unit_test(test_modify_qp_and_open),
		cmocka_unit_test(test_modify_qp_errnos),
		cmocka_unit_test(test_queue_enomem_memlock),
		cmocka_unit_test(test_gid_facts),
		cmocka_unit_test(test_rdmacg_facts),
		cmocka_unit_test(test_no_kernel_refusal),
		cmocka_unit_test(test_kernel_mkey),
		cmocka_unit_test(test_gpu_mr_no_errno),
		cmocka_unit_test(test_kernel_health_lines),
		cmocka_unit_test(test_kernel_limits_exceeded),
		cmocka_unit_test(test_rerun_settings),
		cmocka_unit_test(test_rerun_beyond_registrations),
		cmocka_unit_test(test_every_prior_row_reaches_its_cause),
		cmocka_unit_test(test_facts_from_check),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_text_escapes_bidi_and_esc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
