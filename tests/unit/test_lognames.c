// SPDX-License-Identifier: GPL-2.0-only
/* test_lognames.c - the names and shapes the log reader takes from other
 * projects' sources as data (issue 46 item 2):
 *
 *  - CUDA's memory calls and error names (user/logs/calls.tsv's cuda_call
 *    and cuda_error rows, from NVIDIA's cuda.h): a failed cuMem or cudaIpc
 *    call is a context line with the driver's error, never an errno (801 is
 *    CUDA_ERROR_NOT_SUPPORTED, "operation not supported" is no EOPNOTSUPP);
 *    a dma-buf export the driver does not support weighs on the
 *    registrations after it (explain);
 *  - UCX's formats (user/logs/ucx_shapes.tsv, from UCX's sources per
 *    release): DEVX's "mlx5dv_devx_obj_create(QP) failed on mlx5_0,
 *    syndrome 0x..: Remote I/O error", "ibv_modify_qp(DCI, RTR) failed :
 *    ...", and the mlx5 CQE lines "Transport retry count exceeded on
 *    mlx5_0:1/IB (synd 0x15 ...)", each as a user posted it in a UCX issue,
 *    with the cause it leads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>

#include "explain/logs.h"
#include "logs/logline.h"

static struct log_event ev;

static void parse(const char *line)
{
	log_line_parse(line, strlen(line), &ev);
}

/* ---- the reader ------------------------------------------------------- */

static void cuda_calls_are_context(void **state)
{
	(void)state;
	/* libfabric's hmem_cuda and NCCL's dma-buf probe on a platform whose
	 * GPU memory is not dma-buf exportable (libfabric#10995) */
	parse("cuMemGetHandleForAddressRange failed: CUDA_ERROR_NOT_SUPPORTED");
	assert_int_equal(ev.kind, LOG_CONTEXT);
	assert_int_equal(ev.ctx, LOG_CTX_CUDA);
	assert_string_equal(ev.call, "cuMemGetHandleForAddressRange");
	assert_string_equal(ev.cuda_error, "CUDA_ERROR_NOT_SUPPORTED");
	assert_int_equal(ev.err, 0);
	assert_int_equal(ev.op, OP_NONE);
	assert_string_equal(log_cuda_call_what(ev.call), "dmabuf_export");
	assert_true(log_cuda_error_unsupported(ev.cuda_error));

	/* a number is the driver's, named by cuda.h's enum; never errno 801 */
	parse("[rank0]: cuMemGetHandleForAddressRange failed with error 801");
	assert_int_equal(ev.kind, LOG_CONTEXT);
	assert_string_equal(ev.cuda_error, "CUDA_ERROR_NOT_SUPPORTED");
	assert_int_equal(ev.err, 0);

	/* the runtime's names too, and calls that are no export */
	parse("cudaIpcOpenMemHandle returned cudaErrorMapBufferObjectFailed");
	assert_int_equal(ev.kind, LOG_CONTEXT);
	assert_string_equal(ev.call, "cudaIpcOpenMemHandle");
	assert_string_equal(ev.cuda_error, "cudaErrorMapBufferObjectFailed");
	assert_string_equal(log_cuda_call_what(ev.call), "handle_import");
	assert_false(log_cuda_error_unsupported(ev.cuda_error));

	/* UCX's cuda_util.h "%s failed: %s" with cuGetErrorString's text: not
	 * EOPNOTSUPP, though glibc has the same words */
	parse("[1700000000.123456] [gpu01:4242:0]   cuda_copy_md.c:512  UCX  ERROR "
	      "cuMemGetHandleForAddressRange((void*)&fd, (CUdeviceptr)addr, length, "
	      "CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0) failed: operation not supported");
	assert_int_equal(ev.kind, LOG_CONTEXT);
	assert_int_equal(ev.ctx, LOG_CTX_CUDA);
	assert_int_equal(ev.err, 0);
	assert_true(log_cuda_error_unsupported(ev.cuda_error));

	/* a name only mentioned, and a copy (not a memory call of the table) */
	parse("using cuMemGetHandleForAddressRange for dma-buf export");
	assert_int_not_equal(ev.kind, LOG_CONTEXT);
	parse("cuMemcpyHtoD failed: CUDA_ERROR_ILLEGAL_ADDRESS");
	assert_int_not_equal(ev.ctx, LOG_CTX_CUDA);
	/* an RDMA call's failure on the same line stays the RDMA call's */
	parse("ibv_reg_mr failed for cudaMalloc buffer: Bad address");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.err, EFAULT);
}

static void ucx_devx_shapes(void **state)
{
	(void)state;
	/* openucx/ucx#10451 (UCX 1.14+) */
	parse("[1737742661.094513] [cn0244:260472:0]      ib_mlx5_dv.c:430  UCX  ERROR   "
	      "mlx5dv_devx_obj_create(QP) failed on mlx5_0, syndrome 0x2c4154: Remote I/O error");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "mlx5dv_devx_obj_create");
	assert_int_equal(ev.op, OP_CREATE_QP);
	assert_int_equal(ev.err, EREMOTEIO);
	assert_string_equal(ev.host, "cn0244");
	/* openucx/ucx#7738 (UCX 1.7..1.13: "failed, syndrome %x: %m") */
	parse("    dc_mlx5_devx.c:78   UCX  ERROR mlx5dv_devx_obj_create(DCT) failed, syndrome 0: "
	      "Connection timed out");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_CREATE_QP);
	assert_int_equal(ev.err, ETIMEDOUT);
	parse("      ib_mlx5_dv.c:161  UCX  ERROR mlx5dv_devx_obj_create(QP) failed, syndrome 0: "
	      "Operation canceled");
	assert_int_equal(ev.op, OP_CREATE_QP);
	assert_int_equal(ev.err, ECANCELED);
	/* a CQ's object is create_cq, a mkey's reg_mr */
	parse("[1.0] [h:1:0] ib_mlx5_dv.c:430  UCX  ERROR   mlx5dv_devx_obj_create(CQ) failed on mlx5_2, "
	      "syndrome 0x7b2ef5: Remote I/O error");
	assert_int_equal(ev.op, OP_CREATE_CQ);
	/* dc_mlx5's " failed : %m" */
	parse("[1.0] [h:1:0] dc_mlx5.c:603  UCX  ERROR ibv_modify_qp(DCI, RTR) failed : Invalid argument");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_MODIFY_QP);
	assert_int_equal(ev.err, EINVAL);
	/* a DEVX umem pins like an MR */
	parse("[1.0] [h:1:0] ib_mlx5dv_md.c:900 UCX  ERROR mlx5_0: mlx5dv_devx_umem_reg(size=4096 "
	      "access=0x7) failed: Cannot allocate memory");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_REG_MR);
	assert_int_equal(ev.err, ENOMEM);
	/* openucx/ucx PR#4980 (1.7, 1.8) and ucx#4986 (1.8..1.13's opcode in hex) */
	parse("[2020-04-05T16:14:40.624Z] [1586103280.408573] [hpc-arm-cavium-jenkins:11236:0]   "
	      "ib_mlx5dv_md.c:718  UCX  ERROR mlx5dv_devx_umem_reg() zero umem failed: Cannot allocate memory");
	assert_int_equal(ev.op, OP_REG_MR);
	assert_int_equal(ev.err, ENOMEM);
	parse("Mon Apr  6 14:58:07 2020[1,1]<stdout>:[1586174287.331106] [clx-hercules-015:32494:0]     "
	      "ib_mlx5_dv.c:217  UCX  ERROR mlx5dv_devx_qp_modify(503) failed, syndrome 0: Invalid argument");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_MODIFY_QP);
	assert_int_equal(ev.err, EINVAL);
	/* ucx#9953 (1.12+: "ibv_create_ah(%s) for %s on %s failed: %m") and
	 * ompi#9881 (1.9..1.11: "ibv_create_ah(%s) on %s failed: %m") */
	parse("[1718224849.578624] [gds1:1761229:0]       ib_device.c:1163 UCX  ERROR   ibv_create_ah(dlid=49152 "
	      "sl=0 port=1 src_path_bits=0 dgid=fe80::eaeb:d3ff:feaa:8116 flow_label=0xffffffff sgid_index=3 "
	      "traffic_class=106) for UD mlx5 connect on mlx5_0 failed: Invalid argument");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_CREATE_AH);
	assert_int_equal(ev.err, EINVAL);
	parse("ib_device.c:1319 UCX ERROR ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 "
	      "dgid=::ffff:172.17.22.101 sgid_index=1 traffic_class=106) on rocep33s0f1 failed: Invalid argument");
	assert_int_equal(ev.op, OP_CREATE_AH);
	assert_int_equal(ev.err, EINVAL);
	/* ucx#5291 (1.6..1.13 on MLNX_OFED: the md's title is the
	 * experimental verb, whose op is ibv_reg_mr's) */
	parse("[1592334393.744042] [std1707:10830:0]          ib_md.c:325  UCX  ERROR ibv_exp_reg_mr("
	      "address=0xf154610, length=6544, access=0xf) failed: Resource temporarily unavailable");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_exp_reg_mr");
	assert_int_equal(ev.op, OP_REG_MR);
	assert_int_equal(ev.err, EAGAIN);
	/* a DEVX object of no known operation is not taken */
	parse("[1.0] [h:1:0] ib_mlx5_dv.c:464  UCX  ERROR   mlx5dv_devx_general_cmd(ALLOW_OTHER_VHCA_ACCESS) "
	      "failed on mlx5_bond_1, syndrome 0x88f347: Remote I/O error");
	assert_int_not_equal(ev.kind, LOG_FAILURE_CALL);
}

static void ucx_cqe_lines(void **state)
{
	(void)state;
	/* openucx/ucx#5199 (UCX 1.8, its fatal handler's prefix, no "UCX ERROR") */
	parse("[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB "
	      "(synd 0x15 vend 0x81 hw_synd 0/0)");
	assert_int_equal(ev.kind, LOG_FAILURE_NOCALL);
	assert_int_equal(ev.nocall, LOG_NC_COMPLETION);
	assert_int_equal(ev.wc.status, 12);
	assert_string_equal(ev.wc.status_name, "IBV_WC_RETRY_EXC_ERR");
	assert_int_equal(ev.wc.vendor_err, 0x81);
	assert_string_equal(ev.device, "mlx5_0");
	assert_int_equal(ev.port, 1);
	/* openucx/ucx#9515 (1.6..1.15's "Local protection") */
	parse("[a670n1:162239:0:162239] ib_mlx5_log.c:177  Local protection on mlx5_0:1/IB "
	      "(synd 0x4 vend 0x51 hw_synd 0/2)");
	assert_int_equal(ev.wc.status, 4);
	/* openucx/ucx#5472 (UCX 1.8's "Remote QP": the remote operation error) */
	parse("[sh03-01n02:14791:0:14791] ib_mlx5_log.c:139  Remote QP on mlx5_0:1/IB "
	      "(synd 0x14 vend 0x89 hw_synd 0/0)");
	assert_int_equal(ev.wc.status, 11);
	/* openucx/ucx#2973 (UCX 1.5's "Error on DEV QP ..: TEXT (synd ..)") */
	parse("[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: "
	      "Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND");
	assert_int_equal(ev.kind, LOG_FAILURE_NOCALL);
	assert_int_equal(ev.wc.status, 12);
	/* UCX's own prefix (a failure mode of DIAG) */
	parse("[1700000000.1] [h:1:0] ib_mlx5_log.c:177 UCX  ERROR Remote access error on mlx5_1:1/RoCE "
	      "(synd 0x13 vend 0x88 hw_synd 0/0)");
	assert_int_equal(ev.wc.status, 10);
	/* the line after it (the WQE) is no second failure */
	parse("[master:19546:0:19546] ib_mlx5_log.c:139  DCI QP 0xa9f wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] "
	      "[inl len 18]");
	assert_int_not_equal(ev.kind, LOG_FAILURE_NOCALL);
}

/* ---- explain: the cause each leads ------------------------------------ */

#define MAX_OUT 4
static struct json_object *out[MAX_OUT];
static int nout;

static void collect(void *arg, const char *s, size_t n)
{
	(void)arg;
	char *t = strndup(s, n);

	if (t && nout < MAX_OUT)
		out[nout++] = json_tokener_parse(t);
	free(t);
}

static const char *cause(void)
{
	struct json_object *v;

	return nout && json_object_object_get_ex(out[0], "cause", &v) ? json_object_get_string(v) : "";
}

/* the rests_on sentences of out[0], joined */
static const char *rests(void)
{
	static char b[4096];
	struct json_object *a;

	b[0] = '\0';
	if (nout && json_object_object_get_ex(out[0], "rests_on", &a))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			strncat(b, json_object_get_string(json_object_array_get_idx(a, i)), sizeof(b) - strlen(b) - 2);
			strncat(b, "\n", sizeof(b) - strlen(b) - 1);
		}
	return b;
}

static int explain_lines(const char *lines)
{
	char dir[] = "/tmp/test_lognames_XXXXXX", path[128], err[256];
	/* no facts: a line of no host or another host's is judged from the
	 * log alone, whatever this machine has */
	struct explain_logs_opts o = { .setting = INF_SET_SLURM, .json = true };
	struct explain_logs *l;
	struct log_reader *r;
	struct log_event *e = malloc(sizeof(*e));
	FILE *f;
	int n;

	for (int i = 0; i < nout; i++)
		json_object_put(out[i]);
	nout = 0;
	assert_non_null(e);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/job.log", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(lines, f);
	fclose(f);
	assert_non_null(r = log_reader_open(path, err, sizeof(err)));
	assert_non_null(l = explain_logs_new(&o));
	while (log_reader_next(r, e) == 1)
		explain_logs_event(l, e);
	n = explain_logs_finish(l, collect, NULL, err, sizeof(err));
	explain_logs_free(l);
	log_reader_free(r);
	free(e);
	unlink(path);
	rmdir(dir);
	return n;
}

static void devx_leads_firmware(void **state)
{
	(void)state;
	/* ucx#10451: the maintainers asked for the firmware version and an
	 * upgrade; the firmware refused the DEVX command */
	assert_int_equal(explain_lines("[1737742661.094513] [cn0244:260472:0]      ib_mlx5_dv.c:430  UCX  ERROR   "
				       "mlx5dv_devx_obj_create(QP) failed on mlx5_0, syndrome 0x2c4154: "
				       "Remote I/O error\n"),
			 1);
	assert_string_equal(cause(), "mlx5_firmware");
	/* ucx#7738: firmware 20.29 behind its release, commands that time out */
	assert_int_equal(explain_lines("    dc_mlx5_devx.c:78   UCX  ERROR mlx5dv_devx_obj_create(DCT) failed, "
				       "syndrome 0: Connection timed out\n"),
			 1);
	assert_string_equal(cause(), "mlx5_firmware");
	/* modify_qp's ETIMEDOUT stays RoCE's address resolution */
	assert_int_equal(explain_lines("[1.0] [h:1:0] dc_mlx5.c:603  UCX  ERROR ibv_modify_qp(DCI, RTR) failed : "
				       "Connection timed out\n"),
			 1);
	assert_string_equal(cause(), "gid_unreachable");
}

/* an address handle checks the source GID as RTR does: ompi#9881 was
 * settled by naming the NIC whose GID index works (UCX_NET_DEVICES) */
static void create_ah_leads_gid(void **state)
{
	(void)state;
	assert_int_equal(explain_lines("ib_device.c:1319 UCX ERROR ibv_create_ah(dlid=49152 sl=0 port=1 "
				       "src_path_bits=0 dgid=::ffff:172.17.22.101 sgid_index=1 traffic_class=106) "
				       "on rocep33s0f1 failed: Invalid argument\n"),
			 1);
	assert_string_equal(cause(), "bad_gid_index");
}

static void cqe_leads_status(void **state)
{
	(void)state;
	assert_int_equal(explain_lines("[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded "
				       "on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n"),
			 1);
	assert_string_equal(cause(), "fabric_retry");
	/* ucx#3564/#9515: GPU memory over PCIe with ACS on */
	assert_int_equal(explain_lines("[a670n1:162239:0:162239] ib_mlx5_log.c:177  Local protection on "
				       "mlx5_0:1/IB (synd 0x4 vend 0x51 hw_synd 0/2)\n"),
			 1);
	assert_string_equal(cause(), "protection_error");
}

static void cuda_no_dmabuf_context(void **state)
{
	(void)state;
	/* the CUDA line alone is no failure: explain finds none */
	assert_int_equal(explain_lines("cuMemGetHandleForAddressRange failed: CUDA_ERROR_NOT_SUPPORTED\n"), 0);
	/* before a registration's EFAULT: the buffer is GPU memory that could
	 * not go the dma-buf way, so pinning it needs a peer-memory client */
	assert_int_equal(explain_lines("cuMemGetHandleForAddressRange failed: CUDA_ERROR_NOT_SUPPORTED\n"
				       "ibv_reg_mr failed: Bad address\n"),
			 1);
	assert_string_equal(cause(), "pin_device_memory");
	assert_non_null(strstr(rests(), "cannot export GPU memory as dma-buf"));
	/* without it, a plain ibv_reg_mr's EFAULT is the range's */
	assert_int_equal(explain_lines("ibv_reg_mr failed: Bad address\n"), 1);
	assert_string_equal(cause(), "pin_fault");
	/* libfabric's hmem_cuda CUDA_DRIVER_LOG_ERR ("%s failed: %s:%s", the
	 * name and cuGetErrorString's text), before EFA's refused registration */
	assert_int_equal(explain_lines("libfabric:2612:1700000000::core:core:cuda_get_dmabuf_fd():880<warn> "
				       "cuMemGetHandleForAddressRange failed: CUDA_ERROR_NOT_SUPPORTED:operation "
				       "not supported\n"
				       "libfabric:2612:1700000000::efa:mr:efa_mr_reg_impl():946<warn> Unable to "
				       "register MR: Bad address\n"),
			 1);
	assert_string_equal(cause(), "pin_device_memory");
	/* another error of the export says nothing of dma-buf support */
	assert_int_equal(explain_lines("cuMemGetHandleForAddressRange failed: CUDA_ERROR_INVALID_VALUE\n"
				       "ibv_reg_mr failed: Bad address\n"),
			 1);
	assert_string_equal(cause(), "pin_fault");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cuda_calls_are_context), cmocka_unit_test(ucx_devx_shapes),
		cmocka_unit_test(ucx_cqe_lines),	  cmocka_unit_test(devx_leads_firmware),
		cmocka_unit_test(cqe_leads_status),	  cmocka_unit_test(cuda_no_dmabuf_context),
		cmocka_unit_test(create_ah_leads_gid),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	for (int i = 0; i < nout; i++)
		json_object_put(out[i]);
	return rc;
}
