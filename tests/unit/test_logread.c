// SPDX-License-Identifier: GPL-2.0-only
/* test_logread.c - the log reader (user/logs, issue 32):
 *
 *  - every NCCL shape of the table, filled with values (a generator over
 *    the format strings: the fields column says what each conversion is),
 *    behind each launcher decoration and with and without NCCL's prefix,
 *    comes back as its shape with those values; the lines that print no
 *    errno say so with their release range;
 *  - the compiled table equals a checked-in excerpt (a hand edit shows);
 *  - handwritten kernel-log, UCX, libfabric, aws-ofi-nccl, rdma-core,
 *    framework, journald-json and mrtrace-record lines, and system tools'
 *    (util-linux fallocate(1)) with their near misses;
 *  - the node of slurmstepd's `*** JOB id ON node ...` only there;
 *  - a whole input: .gz read by its magic, every line in one bucket, the
 *    first unrecognised line kept, a 10,000-char line and NUL bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "explain/stream.h"
#include "logs/logline.h"

static struct log_event ev;

/* a value for a conversion, by what the fields column says it is */
static const char *value(const char *field, char conv)
{
	static const struct {
		const char *f, *v;
	} vals[] = {
		{ "err_text", "Cannot allocate memory" }, { "err", "12" }, { "device", "mlx5_3" },
		{ "port", "1" }, { "cur_state", "INIT" }, { "next_state", "RTR" }, { "gid_index", "3" },
		{ "local_gid", "::ffff:10.0.0.1" }, { "remote_gid", "::ffff:10.0.0.2" },
		{ "wc_status", "12" }, { "wc_status_name", "IBV_WC_RETRY_EXC_ERR" }, { "wc_opcode", "0" },
		{ "wc_opcode_name", "IBV_WC_SEND" }, { "wc_len", "4096" }, { "wc_vendor_err", "129" },
		{ "wc_peer", "10.0.0.2<4242>" }, { "wc_hca", "mlx5_3" }, { "wc_req_type", "Send" },
		{ "async_event", "port error" }, { "async_code", "10" }, { "shm_path", "/dev/shm/nccl-AbCd" },
		{ "shm_size", "9637888" }, { "cuda_error", "out of memory" }, { "result_code", "2" },
		{ "gdr_state", "Disabled" },
		{ "qp_detail", "on dev mlx5_3:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2" },
	};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (!strcmp(vals[i].f, field))
			return vals[i].v;
	return conv == 's' ? "IB" : conv == 'p' ? "0x5555deadbeef" : "7";
}

/* the generator: fmt with every conversion filled */
static void fill(const struct log_shape *sh, char *out, size_t cap)
{
	const char *f = sh->fmt, *fl = sh->fields ? sh->fields : "";
	size_t n = 0;

	while (*f && n + 1 < cap) {
		if (*f == '\n') {
			f++;
			continue;
		}
		if (*f != '%' || f[1] == '%') {
			out[n++] = *f;
			f += *f == '%' ? 2 : 1;
			continue;
		}
		f++;
		while (*f && strchr("-+ #0123456789.hlLqjzt", *f))
			f++;
		char conv = *f ? *f++ : 's';
		char name[32] = "-";
		size_t k = 0;
		while (*fl && *fl != ',' && k + 1 < sizeof(name))
			name[k++] = *fl++;
		if (k)
			name[k] = 0;
		if (*fl == ',')
			fl++;
		n += (size_t)snprintf(out + n, cap - n, "%s", value(name, conv));
	}
	out[n < cap ? n : cap - 1] = 0;
}

/* name is one of the comma-separated fields */
static bool has_field(const char *fields, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = fields; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static void parse(const char *line)
{
	log_line_parse(line, strlen(line), &ev);
}

static const char *const decorations[] = {
	"", "[1,12]<stdout>: ", "node01: ", "2026-12-01T10:00:00.123Z ", "12: ",
	"Dec  1 10:00:00 node01 python[4242]: ", "[1,12]<stderr>:2026-12-01 10:00:00,5 ",
};

static void every_shape_every_decoration(void **state)
{
	(void)state;
	char msg[1024], line[2048];
	int checked = 0;

	assert_true(log_nccl_shapes_n >= 50);
	for (size_t i = 0; i < log_nccl_shapes_n; i++) {
		const struct log_shape *sh = &log_nccl_shapes[i];
		if (sh->level == 'D')
			continue;
		fill(sh, msg, sizeof(msg));
		for (size_t d = 0; d < sizeof(decorations) / sizeof(decorations[0]); d++)
			for (int prefix = 0; prefix < 3; prefix++) {
				const char *lvl = sh->level == 'W' ? "WARN" : "INFO";
				if (prefix == 0)
					snprintf(line, sizeof(line), "%s%s", decorations[d], msg);
				else if (prefix == 1)
					snprintf(line, sizeof(line), "%sgpu-a7:4242:4250 [3] %sNCCL %s %s",
						 decorations[d], sh->level == 'W' ? "misc/ibvwrap.cc:187 " : "",
						 lvl, msg);
				else
					snprintf(line, sizeof(line), "%s[2026-12-01 10:00:00] gpu-a7:4242:4250 [3] %sNCCL %s %s",
						 decorations[d], sh->level == 'W' ? "transport/net_ib.cc:1047 (ncclIbRegMr) " : "",
						 lvl, msg);
				parse(line);
				/* the shape that matched prints this very line (two rows may
				 * print the same text, e.g. %d and %u of the same value) */
				if (!ev.shape)
					fail_msg("no shape for %s (%s)", line, sh->id);
				char again[1024];
				fill(ev.shape, again, sizeof(again));
				if (strcmp(again, msg))
					fail_msg("%s: matched %s, not %s", line, ev.shape->id, sh->id);
				assert_int_equal(ev.source, LOG_SRC_NCCL);
				if (d == 1 || d == 4 || d == 6)
					assert_int_equal(ev.rank, 12);
				if (d == 2)
					assert_string_equal(ev.host, prefix ? "gpu-a7" : "node01");
				if (d == 3 || d == 6)
					assert_true(ev.has_time);
				if (prefix) {
					assert_string_equal(ev.host, "gpu-a7");
					assert_int_equal(ev.pid, 4242);
					assert_int_equal(ev.tid, 4250);
					assert_int_equal(ev.cuda_dev, 3);
				}
				if (prefix && sh->level == 'W')
					assert_int_equal(ev.src_line, prefix == 1 ? 187 : 1047);
				const char *fl = sh->fields ? sh->fields : "";
				if (has_field(fl, "err_text") || has_field(fl, "err")) {
					if (ev.err != 12 || ev.no_errno)
						fail_msg("%s (%s): err %d", line, ev.shape->id, ev.err);
				}
				if (ev.kind == LOG_FAILURE_CALL && sh->how == LOG_ERRNO_NONE)
					assert_true(ev.no_errno);
				if (has_field(fl, "device"))
					assert_string_equal(ev.device, "mlx5_3");
				if (has_field(fl, "qp_detail")) {
					assert_string_equal(ev.qp.next_state, "RTR");
					assert_int_equal(ev.qp.gid_index, 3);
					assert_string_equal(ev.qp.remote_gid, "::ffff:10.0.0.2");
				}
				if (has_field(fl, "wc_status"))
					assert_int_equal(ev.wc.status, 12);
				if (has_field(fl, "shm_size"))
					assert_int_equal(ev.shm_size, 9637888);
				checked++;
			}
	}
	assert_true(checked > 50 * 7 * 3);
}

static void no_errno_release_range(void **state)
{
	(void)state;
	parse("gpu-a7:4242:4250 [0] misc/ibvwrap.cc:128 NCCL WARN Call to ibv_create_qp failed");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_create_qp");
	assert_int_equal(ev.op, OP_CREATE_QP);
	assert_true(ev.no_errno);
	assert_int_equal(ev.err, 0);
	assert_string_equal(ev.shape->first_tag, "v2.4.2-1");
	assert_string_equal(ev.shape->last_tag, "v2.13.4-1");
	parse("gpu-a7:4242:4250 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory");
	assert_int_equal(ev.err, 12);
	assert_int_equal(ev.op, OP_REG_MR);
	assert_string_equal(ev.shape->first_tag, "v2.13.4-1");
	parse("gpu-a7:4242:4250 [0] misc/ibvwrap.cc:100 NCCL WARN Call to ibv_open_device failed");
	assert_true(ev.no_errno);
	assert_int_equal(ev.op, OP_OPEN_DEVICE);
}

/* tests/fixtures/logs/nccl_shapes_excerpt.tsv: rows as tools/nccl-shapes.py wrote them */
static void table_matches_excerpt(void **state)
{
	(void)state;
	FILE *f = fopen(fixture_path("logs", "nccl_shapes_excerpt.tsv"), "r");
	char line[2048];
	int rows = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = 0;
		char *col[11];
		char *p = line;
		for (int i = 0; i < 11; i++) {
			col[i] = p;
			p = strchr(p, '\t');
			if (i < 10) {
				assert_non_null(p);
				*p++ = 0;
			}
		}
		const struct log_shape *sh = NULL;
		for (size_t i = 0; i < log_nccl_shapes_n; i++)
			if (!strcmp(log_nccl_shapes[i].id, col[0]))
				sh = &log_nccl_shapes[i];
		if (!sh)
			fail_msg("shape %s is gone from the table", col[0]);
		assert_string_equal(sh->first_tag, col[2]);
		assert_string_equal(sh->last_tag, col[3]);
		assert_string_equal(sh->fields ? sh->fields : "-", col[9]);
		assert_string_equal(sh->fmt, col[10]);
		rows++;
	}
	fclose(f);
	assert_true(rows >= 8);
}

static void other_sources(void **state)
{
	(void)state;
	parse("[Mon Dec  1 10:00:00 2026] mlx5_core 0000:08:00.0: mlx5_cmd_out_err:838:(pid 4242): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x7f3a21), err(-12)");
	assert_int_equal(ev.source, LOG_SRC_KERNEL);
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.mlx5.cmd, "CREATE_MKEY");
	assert_int_equal(ev.mlx5.opcode, 0x200);
	assert_string_equal(ev.mlx5.status, "limits exceeded");
	assert_int_equal(ev.mlx5.status_code, 8);
	assert_int_equal(ev.mlx5.syndrome, 0x7f3a21);
	assert_int_equal(ev.err, 12);
	assert_int_equal(ev.op, OP_REG_MR);
	assert_string_equal(ev.mlx5.pci, "0000:08:00.0");

	assert_int_equal(ev.mlx5.err, -12);
	/* a number no errno can be (the fuzzer's err(-2147483648): cast to
	 * int and negated, it stayed negative) is no errno, on every reader */
	static const char *const huge[] = {
		"mlx5_core 0000:08:00.0: mlx5_cmd_out_err:838:(pid 1): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x1), err(-2147483648)",
		"mlx5_core 0000:08:00.0: mlx5_cmd_out_err:838:(pid 1): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x1), err(4294967308)",
		"mlx5_core 0000:08:00.0: reg_create:1000:(pid 1): create mkey failed err -2147483648",
	};
	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		parse(huge[i]);
		assert_int_equal(ev.err, 0);
		assert_true(ev.no_errno);
	}

	parse("[  123.456789] mlx5_core 0000:08:00.0: create_mkey_callback:135:(pid 0): async reg mr failed. status -12");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_true(ev.has_boot_time);
	assert_int_equal(ev.boot_ns, 123456789000LL);

	/* mlx5_ib's own line of a user MR whose pages it could not pin, the
	 * errno in its parentheses (pmem-issues-868: fs-dax memory, -95) */
	parse("[82047.691057] mlx5_1:mr_umem_get:766:(pid 63518): umem get failed (-95)");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_REG_MR);
	assert_int_equal(ev.err, 95);
	parse("[82047.691057] mlx5_1:mr_umem_get:766:(pid 63518): umem get failed (-2147483648)");
	assert_int_equal(ev.err, 0);
	assert_true(ev.no_errno);

	parse("Dec 01 10:00:00 node07 kernel: mlx5_core 0000:08:00.0: poll_health:800:(pid 0): Fatal error 1 detected");
	assert_int_equal(ev.kind, LOG_FAILURE_NOCALL);
	assert_int_equal(ev.nocall, LOG_NC_KERNEL_EVENT);
	assert_string_equal(ev.host, "node07");

	parse("Dec 01 10:00:00 node07 kernel: EXT4-fs (sda1): mounted filesystem");
	assert_int_equal(ev.kind, LOG_NOT_FAILURE);
	assert_int_equal(ev.source, LOG_SRC_KERNEL);

	parse("[1700000000.123456] [gpu-a7:4242:0]          ib_md.c:309  UCX  ERROR ibv_reg_mr(address=0x7f0000000000, length=1048576, access=0xf) failed: Cannot allocate memory : Please set max locked memory (ulimit -l) to 'unlimited'");
	assert_int_equal(ev.source, LOG_SRC_UCX);
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_reg_mr");
	assert_int_equal(ev.err, 12);
	assert_int_equal(ev.length, 1048576);
	assert_int_equal(ev.access, 0xf);
	assert_string_equal(ev.host, "gpu-a7");

	assert_false(ev.has_memlock);

	/* UCX 1.13 as it printed it (VM case aftermath, ucx_perftest as nobody
	 * under 64 KiB, 2026-12-04): the strerror runs into ". Please set"
	 * (read as no errno before), and the line states the limit */
	parse("[1796396755.233201] [mrtrace-vm:299  :0]          ib_log.c:246  UCX  ERROR ibv_reg_mr(address=0x7f55c01e0000, length=1048576, access=0xf) failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.err, 12);
	assert_int_equal(ev.pid, 299);
	assert_int_equal(ev.length, 1048576);
	assert_true(ev.has_memlock);
	assert_int_equal(ev.memlock, 65536);
	parse("[1796396755.233201] [n:299  :0]          ib_log.c:246  UCX  ERROR ibv_reg_mr(address=0x1, length=1, access=0xf) failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: unlimited)");
	assert_true(ev.has_memlock);
	assert_true(ev.memlock == UINT64_MAX);
	/* a strerror text is a whole text: "Bad address" is not "Bad addressing" */
	parse("[1700000000.123456] [gpu-a7:4242:0]          ib_md.c:309  UCX  ERROR ibv_reg_mr(address=0x1, length=1, access=0xf) failed: Bad addressing");
	assert_int_equal(ev.err, 0);

	parse("libibverbs: Warning: RLIMIT_MEMLOCK is 65536 bytes.");
	assert_true(ev.has_memlock);
	assert_int_equal(ev.memlock, 65536);

	parse("[1700000000.123456] [gpu-a7:4242:0]          ib_iface.c:600  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory");
	assert_int_equal(ev.op, OP_CREATE_CQ);

	parse("libfabric:4242:1700000000::verbs:mr:vrb_mr_reg_common():84<warn> ibv_reg_mr: Cannot allocate memory(12)");
	assert_int_equal(ev.source, LOG_SRC_LIBFABRIC);
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.err, 12);
	assert_int_equal(ev.op, OP_REG_MR);

	parse("gpu-a7:4242:4250 [0] nccl_net_ofi_rdma.c:1893 NCCL WARN NET/OFI Unable to register memory (type = 0) for device 0. RC: -12, Error: Cannot allocate memory");
	assert_int_equal(ev.source, LOG_SRC_OFI_NCCL);
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.rc, -12);
	assert_int_equal(ev.err, 12);

	parse("libibverbs: Warning: RLIMIT_MEMLOCK is 65536 bytes.");
	assert_int_equal(ev.kind, LOG_CONTEXT);
	assert_string_equal(ev.setting_value, "65536");

	parse(" Couldn't allocate MR");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_true(ev.no_errno);

	parse("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1");
	assert_int_equal(ev.kind, LOG_FAILURE_SUMMARY);
	assert_string_equal(ev.result, "ncclSystemError");
	assert_string_equal(ev.nccl_version, "2.18.1");
	parse("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ");
	assert_int_equal(ev.kind, LOG_FAILURE_SUMMARY);
	assert_int_equal(ev.result_code, 2);

	parse("gpu-a7:4242:4242 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_3");
	assert_int_equal(ev.ctx, LOG_CTX_SETTING);
	assert_string_equal(ev.setting_value, "mlx5_0,mlx5_3");
	parse("gpu-a7:4242:4242 [0] NCCL INFO comm 0x5581b0 rank 12 nranks 64 cudaDev 0 nvmlDev 0 busId 18000 commId 0x6f1b2c3d4e5f - Init START");
	assert_int_equal(ev.ctx, LOG_CTX_RANK);
	assert_int_equal(ev.comm.rank, 12);
	assert_int_equal(ev.comm.nranks, 64);
	assert_string_equal(ev.comm.comm_id, "0x6f1b2c3d4e5f");
	parse("gpu-a7:4242:4250 [0] NCCL INFO transport/net_ib.cc:640 -> 2");
	assert_int_equal(ev.ctx, LOG_CTX_RETURN);
	assert_int_equal(ev.result_code, 2);
	parse("NCCL version 2.21.5+cuda12.4");
	assert_int_equal(ev.ctx, LOG_CTX_NCCL_VERSION);
	assert_string_equal(ev.nccl_version, "2.21.5+cuda12.4");
	parse("gpu-a7:4242:4250 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'");
	assert_int_equal(ev.kind, LOG_FAILURE_NOCALL);
	assert_int_equal(ev.nocall, LOG_NC_GDR_DISABLED);
	parse("gpu-a7:4242:4250 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'");
	assert_int_equal(ev.kind, LOG_NOT_FAILURE);

	parse("{\"__REALTIME_TIMESTAMP\":\"1764583200000000\",\"_TRANSPORT\":\"kernel\",\"_HOSTNAME\":\"node07\",\"MESSAGE\":\"mlx5_core 0000:08:00.0: mlx5_cmd_out_err:838:(pid 4242): CREATE_QP(0x500) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x1), err(-22)\"}");
	assert_int_equal(ev.source, LOG_SRC_KERNEL);
	assert_int_equal(ev.op, OP_CREATE_QP);
	assert_int_equal(ev.err, 22);
	assert_string_equal(ev.host, "node07");
	assert_true(ev.has_time);
	/* times whose nanoseconds do not fit an int64_t are no time (fuzz_logs
	 * found the ISO one: signed overflow) */
	parse("{\"__REALTIME_TIMESTAMP\":\"99999999999999999999\",\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"mlx5_core 0000:08:00.0: port 1 up\"}");
	assert_false(ev.has_time);
	parse("[2492-12-01 10:00:00] gpu-a7:4242:4250 [0] NCCL INFO Bootstrap : Using eth0");
	assert_false(ev.has_time);
	parse("[2026-12-01 10:00:00] gpu-a7:4242:4250 [0] NCCL INFO Bootstrap : Using eth0");
	assert_true(ev.has_time);
	/* the stamp's value: the civil-date arithmetic agrees with timegm on
	 * leap days, century years, the epoch and a day carried past the
	 * month's end (31 April is 1 May) */
	static const struct {
		const char *stamp;
		long long secs;
	} stamps[] = {
		{ "1970-01-01T00:00:00Z", 0LL },	   { "2024-02-29T12:00:00Z", 1709208000LL },
		{ "2000-03-01T00:00:00Z", 951868800LL },   { "2100-03-01T00:00:00Z", 4107542400LL },
		{ "2026-12-31T23:59:59Z", 1798761599LL },  { "2026-04-31T00:00:00Z", 1777593600LL },
		{ "2026-12-01T10:00:00+02:00", 1796112000LL },
	};
	for (size_t i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++) {
		char line[128];
		snprintf(line, sizeof(line), "%s gpu-a7:4242:4250 [0] NCCL INFO Bootstrap : Using eth0",
			 stamps[i].stamp);
		parse(line);
		assert_true(ev.has_time);
		assert_int_equal(ev.time_ns / 1000000000, stamps[i].secs);
	}
	parse("[99999999999.123456] mlx5_core 0000:08:00.0: port 1 up");
	assert_false(ev.has_boot_time);
	parse("{\"MESSAGE\":\"mrtrace: reg_mr failed\",\"MRTRACE_EVENT\":\"reg_failure\",\"MRTRACE_CAUSE\":\"memlock_limit\"}");
	assert_int_equal(ev.kind, LOG_RECORD);
	assert_int_equal(ev.source, LOG_SRC_JOURNALD);
	assert_non_null(ev.json);
	json_object_put(ev.json);
	parse("{\"event\":\"reg_failure\",\"schema\":\"mrtrace-watch/1\",\"host\":\"node07\"}");
	assert_int_equal(ev.kind, LOG_RECORD);
	assert_int_equal(ev.source, LOG_SRC_MRTRACE);
	json_object_put(ev.json);
}

/* util-linux fallocate(1)'s err() lines (sys-utils/fallocate.c: 2.25+
 * "fallocate failed", 2.17-2.24 "%s: fallocate failed" with the file) */
/* the errno in the shapes providers and wrappers print it (issue 46): a
 * number behind a marker, either sign, glibc's "Unknown error N" for the
 * numbers with no name (the kernel-internal ENOTSUPP 524 leaks so), an
 * E-name; a known call named by a line of no known source */
/* issue 46 item 2: the calls of the sources' tables (user/logs/calls.tsv),
 * the error shapes glog, Rust and Python print, completion errors in any
 * program's words (the field corpus: roll-417, async-rdma-107,
 * mooncake-2511, ucx-3564, ucx-1878) */
static void source_call_names_and_shapes(void **state)
{
	(void)state;
	static const struct {
		const char *line, *call, *op;
		int err;
	} lines[] = {
		/* a name of rdma-core's librdmacm, libfabric, efadv, the syscalls */
		{ "rdma_create_qp: Cannot allocate memory", "rdma_create_qp", "create_qp", 12 },
		{ "rdma_reg_msgs failed: Cannot allocate memory", "rdma_reg_msgs", "reg_mr", 12 },
		{ "efadv_create_qp_ex failed: errno: 12", "efadv_create_qp_ex", "create_qp", 12 },
		{ "fi_mr_regattr failed: ret=-12", "fi_mr_regattr", "reg_mr", 12 },
		{ "ibv_rereg_mr failed: Bad address", "ibv_rereg_mr", "reg_mr", 14 },
		/* no space after the colon */
		{ "RuntimeError: pidfd_open:Operation not permitted", "pidfd_open", "fd_import", 1 },
		/* Rust's io::Error, Debug and Display */
		{ "ibv_reg_mr failed Os { code: 12, kind: OutOfMemory, message: \"Cannot allocate memory\" }",
		  "ibv_reg_mr", "reg_mr", 12 },
		{ "ibv_reg_mr failed: registering (os error 14)", "ibv_reg_mr", "reg_mr", 14 },
		/* glog: the strerror text and its number in brackets */
		{ "E0819 11:21:45.193161 147554 rdma_context.cpp:588] Failed to register memory 0x12397fd5800: Invalid argument [22]",
		  "ibv_reg_mr", "reg_mr", 22 },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		parse(lines[i].line);
		if (ev.kind != LOG_FAILURE_CALL || strcmp(ev.call, lines[i].call) ||
		    ev.op != rdma_op_from_name(lines[i].op) || ev.err != lines[i].err)
			fail_msg("%s: kind %d call %s op %s err %d", lines[i].line, ev.kind, ev.call,
				 ev.op ? rdma_op_name(ev.op) : "-", ev.err);
	}
	/* "ibv_reg_mr err, arguments:": the call said to fail, no errno here */
	parse("2023-07-20T12:27:48.882393Z ERROR async_rdma::memory_region::raw: ibv_reg_mr err, arguments:");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_REG_MR);
	assert_true(ev.no_errno);
	/* a name the sources declare with no operation, a prefix and no name */
	parse("ibv_query_port failed: Invalid argument");
	assert_int_not_equal(ev.kind, LOG_FAILURE_CALL);
	parse("rdma_context.cpp:77] Using 2 HCAs: Invalid argument");
	assert_int_not_equal(ev.kind, LOG_FAILURE_CALL);
	/* a bracketed number that is not its text's own */
	parse("Failed to register MR: Invalid argument [1]");
	assert_int_equal(ev.err, 22);
	parse("ibv_reg_mr failed [1]");
	assert_int_equal(ev.err, 0);

	/* completion errors in libibverbs' words, with or without UCX's prefix */
	static const struct {
		const char *line;
		int status;
		const char *name;
	} completions[] = {
		{ "rc_verbs_iface.c:67   send completion with error: local protection error", 4, "IBV_WC_LOC_PROT_ERR" },
		{ " dc_verbs.c:633  UCX  ERROR Send completion with error on qp 0x226c3: transport retry counter exceeded syndrome 0x81",
		  12, "IBV_WC_RETRY_EXC_ERR" },
		{ "Failed status Work Request Flushed Error (5) for wr_id 2", 5, "IBV_WC_WR_FLUSH_ERR" },
		{ "[1466599688.714393] [vegas30:25196:0] rc_verbs_iface.c:47   UCX  ERROR Send completion with error: RNR retry counter exceeded",
		  13, "IBV_WC_RNR_RETRY_EXC_ERR" },
	};
	for (size_t i = 0; i < sizeof(completions) / sizeof(completions[0]); i++) {
		parse(completions[i].line);
		if (ev.kind != LOG_FAILURE_NOCALL || ev.nocall != LOG_NC_COMPLETION ||
		    ev.wc.status != completions[i].status || strcmp(ev.wc.status_name, completions[i].name))
			fail_msg("%s: kind %d nocall %d status %d %s", completions[i].line, ev.kind, ev.nocall,
				 ev.wc.status, ev.wc.status_name);
	}
	/* a status text with no completion said to fail, a completion with none */
	parse("retry: transport retry counter exceeded once, then it worked");
	assert_int_not_equal(ev.kind, LOG_FAILURE_NOCALL);
	parse("send completion with error: see above");
	assert_int_not_equal(ev.kind, LOG_FAILURE_NOCALL);
}

static void errno_shapes(void **state)
{
	(void)state;
	static const struct {
		const char *line, *call;
		int err;
	} lines[] = {
		{ "ibv_reg_dmabuf_mr failed: Unknown error 524", "ibv_reg_dmabuf_mr", 524 },
		{ "h:1:1 [0] NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Unknown error 524", "ibv_reg_dmabuf_mr", 524 },
		{ "Couldn't register MR: Unknown error -95", "ibv_reg_mr", 95 },
		/* a word of the program's own between the verb and MR
		 * (gpu_direct_rdma_access-5's "Couldn't register GPU MR") */
		{ "Couldn't register GPU MR: Bad address", "ibv_reg_mr", 14 },
		{ "Failed to register host MR: Cannot allocate memory", "ibv_reg_mr", 12 },
		{ "Failed to register MR [error code: 14]", "ibv_reg_mr", 14 },
		{ "libfabric:4242:1700000000::verbs:mr:vrb_mr_reg_common():109<warn> Unable to register memory: ret=-12", "fi_mr_reg", 12 },
		{ "ibv_create_cq(cqe=4096) failed: errno: 12", "ibv_create_cq", 12 },
		{ "ibv_modify_qp failed with error=110", "ibv_modify_qp", 110 },
		{ "ibv_modify_qp failed with error 110", "ibv_modify_qp", 110 },
		/* strerror text after the words, whatever follows it (flagcx-61) */
		{ "ibv_reg_mr_iova2 failed with error Bad address multiple times", "ibv_reg_mr_iova2", 14 },
		{ "ibv_create_qp failed with Cannot allocate memory, retrying", "ibv_create_qp", 12 },
		/* a few words of its own, then the strerror text (orangefs-43) */
		{ "Error: init_connection_modify_qp: ibv_modify_qp RTR -> RTS: Invalid argument.", "ibv_modify_qp", 22 },
		/* mlock, as any program prints it (manticore-466) */
		{ "WARNING: index 'x': mlock() failed: Cannot allocate memory for blobs", "mlock", 12 },
		/* a provider's own words inside libfabric's prefix (libfabric-12708) */
		{ "libfabric:...:efa:ep_data:efa_device_construct_gid():47<warn> ibv_open_device failed! errno: 2", "ibv_open_device", 2 },
		{ "ibv_reg_mr returned (-14)", "ibv_reg_mr", 14 },
		{ "ibv_reg_mr failed, errno 14", "ibv_reg_mr", 14 },
		{ "ibv_reg_mr failed: EFAULT", "ibv_reg_mr", 14 },
		{ "ibv_create_cq(...) failed: Cannot allocate memory", "ibv_create_cq", 12 },
		{ "RuntimeError: pidfd_getfd: Operation not permitted", "pidfd_getfd", 1 },
		{ "PermissionError: pidfd_getfd failed: [Errno 1] Operation not permitted", "pidfd_getfd", 1 },
		/* markdown emphasis a poster typed around the line: the strerror
		 * text ends at the closing mark (nccl-769) */
		{ "_ibvwrap.cc: NCCL WARN Call to ibv_modify_qp failed with error Connection timed out_", "ibv_modify_qp", 110 },
		{ "**h:1:1 [0] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory**", "ibv_reg_mr", 12 },
		{ "**ibv_create_cq(...) failed: Cannot allocate memory**", "ibv_create_cq", 12 },
		/* a program's own words for a refused mlock(): failing to lock
		 * memory, with the errno as a strerror text in either case, an
		 * E-name or Rust's "(os error N)" (docker-vault-4, cassandra-189,
		 * qdrant-1885) */
		{ "Error initializing core: Failed to lock memory: cannot allocate memory", "mlock", 12 },
		{ "WARN  [main] 2019-09-27 06:58:27,999 NativeLibrary.java:187 - Unable to lock JVM memory (ENOMEM). This can result in part of the JVM being swapped out.", "mlock", 12 },
		{ "[2023-05-12T10:40:42.502Z ERROR segment::vector_storage::mmap_vectors] Failed to lock deleted flags for quantized mmap segment in memory: Cannot allocate memory (os error 12)", "mlock", 12 },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		parse(lines[i].line);
		if (ev.kind != LOG_FAILURE_CALL || strcmp(ev.call, lines[i].call) || ev.err != lines[i].err)
			fail_msg("%s: kind %d call %s err %d", lines[i].line, ev.kind, ev.call, ev.err);
		assert_false(ev.no_errno);
	}
	/* "lock" with no memory in its clause, or no errno, is no mlock */
	parse("Failed to lock the state file: Cannot allocate memory");
	assert_false(ev.kind == LOG_FAILURE_CALL && !strcmp(ev.call, "mlock"));
	parse("Unable to lock memory pool, retrying");
	assert_false(ev.kind == LOG_FAILURE_CALL && !strcmp(ev.call, "mlock"));
	/* the move a program names is the QP's next state, as NCCL's detail */
	parse("Error: init_connection_modify_qp: ibv_modify_qp RTR -> RTS: Invalid argument.");
	assert_string_equal(ev.qp.next_state, "RTS");
	parse("failed to modify QP to RTR");
	assert_string_equal(ev.qp.next_state, "RTR");
	/* rdma-core's phrases in either case, as programs copy them */
	parse("failed to modify QP to RTR");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_modify_qp");
	parse("[ERROR] (setup_ib.c:184:setup_ib: errno: Cannot allocate memory) Failed to create qp");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_create_qp");
	/* Open MPI's help text for a CQ it could not create (ucx-551): the
	 * errno is on a later line of the block, so none on this one */
	parse("Failed to create a completion queue (CQ):");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_create_cq");
	assert_true(ev.no_errno);
	/* near misses: a number that is no errno, a call not said to fail */
	parse("ibv_reg_mr failed (12)");
	assert_int_equal(ev.err, 0);
	assert_true(ev.no_errno);
	parse("ibv_reg_mr failed: rc=0x1f");
	assert_int_equal(ev.err, 0);
	parse("we call ibv_reg_mr here");
	assert_int_not_equal(ev.kind, LOG_FAILURE_CALL);
	parse("see ibv_reg_mr in the manual: its flags");
	assert_int_not_equal(ev.kind, LOG_FAILURE_CALL);
	parse("EFAULTY ibv_reg_mr failed");
	assert_int_equal(ev.err, 0);
}

/* a provider's registration as a registration: libfabric's fi_mr_reg (its
 * own line or an application's), UCX's md registration outside UCX's
 * prefix with its range */
static void provider_registrations(void **state)
{
	(void)state;
	parse("fi_mr_reg failed: Cannot allocate memory");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "fi_mr_reg");
	assert_int_equal(ev.op, OP_REG_MR);
	assert_int_equal(ev.err, 12);
	parse("libfabric:4242:1700000000::efa:mr:efa_mr_reg_impl():932<warn> Unable to register MR: Cannot allocate memory");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_int_equal(ev.op, OP_REG_MR);
	assert_int_equal(ev.err, 12);
	parse("[1,3]<stderr>: ibv_reg_mr(address=0x7f0000000000, length=1048576, access=0xf) failed: Cannot allocate memory");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "ibv_reg_mr");
	assert_true(ev.has_range);
	assert_int_equal(ev.length, 1048576);
	assert_int_equal(ev.err, 12);
}

/* NCCL's GPUDirect state: 2.19+'s "(DMABUF) enabled" is on, not the
 * failure "Disabled" is */
static void gdr_dmabuf_enabled(void **state)
{
	(void)state;
	parse("node1:11:11 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'");
	assert_int_equal(ev.kind, LOG_NOT_FAILURE);
	parse("node1:11:11 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'");
	assert_int_equal(ev.kind, LOG_NOT_FAILURE);
	parse("node1:11:11 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)");
	assert_int_equal(ev.kind, LOG_FAILURE_NOCALL);
	assert_int_equal(ev.nocall, LOG_NC_GDR_DISABLED);
}

static void fallocate_tool_lines(void **state)
{
	(void)state;
	static const struct {
		const char *line, *text, *path, *host;
		int err;
	} failed[] = {
		{ "fallocate: fallocate failed: No space left on device", "No space left on device", "", "", 28 },
		{ "fallocate: fallocate failed: Cannot allocate memory", "Cannot allocate memory", "", "", 12 },
		{ "fallocate: /dev/shm/mrtrace-proof: fallocate failed: No space left on device",
		  "No space left on device", "/dev/shm/mrtrace-proof", "", 28 },
		{ "fallocate: fallocate failed: keep size mode is unsupported", "", "", "", 95 },
		{ "node01: fallocate: fallocate failed: No space left on device", "No space left on device", "",
		  "node01", 28 },
		{ "[1,3]<stderr>:fallocate: fallocate failed: File too large", "File too large", "", "", 27 },
	};
	for (size_t i = 0; i < sizeof(failed) / sizeof(failed[0]); i++) {
		parse(failed[i].line);
		assert_int_equal(ev.kind, LOG_FAILURE_CALL);
		assert_int_equal(ev.source, LOG_SRC_TOOL);
		assert_string_equal(ev.call, "fallocate");
		assert_int_equal(ev.op, OP_SHM_ALLOC);
		assert_int_equal(ev.err, failed[i].err);
		assert_false(ev.no_errno);
		assert_string_equal(ev.err_text, failed[i].text);
		assert_string_equal(ev.shm_path, failed[i].path);
		assert_string_equal(ev.host, failed[i].host);
	}
	/* a text that is no strerror (a translated one): the call, no errno */
	parse("fallocate: fallocate failed: Kein Platz mehr auf dem Gerät");
	assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	assert_string_equal(ev.call, "fallocate");
	assert_int_equal(ev.err, 0);
	assert_true(ev.no_errno);
	/* near misses: its other messages, another program, no program name,
	 * no error text */
	static const char *const not_fallocate[] = {
		"fallocate: cannot open /dev/shm/x: Permission denied",
		"fallocate: invalid length",
		"fallocate: no filename specified",
		"fallocate failed: No space left on device",
		"xfallocate: fallocate failed: No space left on device",
		"fallocate: fallocate failed",
		"fallocate: fallocate failed:",
		"echo fallocate: fallocate failed: No space left on device",
	};
	for (size_t i = 0; i < sizeof(not_fallocate) / sizeof(not_fallocate[0]); i++) {
		parse(not_fallocate[i]);
		assert_int_equal(ev.kind, LOG_UNRECOGNISED);
		assert_string_equal(ev.call, "");
	}
}

static void whole_input_gz_buckets(void **state)
{
	(void)state;
	char path[] = "/tmp/test_logread_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	gzFile z = gzdopen(fd, "wb");
	gzprintf(z, "gpu-a7:4242:4242 [0] NCCL INFO NCCL version 2.12.12+cuda11.6\n");
	gzprintf(z, "gpu-a7:4242:4250 [0] misc/ibvwrap.cc:128 NCCL WARN Call to ibv_reg_mr_iova2 failed\n");
	gzprintf(z, "some application output\n");
	gzprintf(z, "more application output\n");
	gzprintf(z, "{\"event\":\"stop\",\"schema\":\"mrtrace-watch/1\"}\n");
	for (int i = 0; i < 10000; i++)
		gzputc(z, 'x');
	gzputc(z, '\n');
	gzwrite(z, "Call to ibv_create_qp failed\0junk\n", 34);
	gzprintf(z, "\n");
	gzclose(z);

	char err[256];
	struct log_reader *r = log_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	int n = 0, rc;
	while ((rc = log_reader_next(r, &ev)) == 1) {
		n++;
		if (n == 2) {
			assert_int_equal(ev.kind, LOG_FAILURE_CALL);
			assert_true(ev.no_errno);
			assert_string_equal(ev.nccl_version, "2.12.12+cuda11.6");
			assert_string_equal(ev.shape->last_tag, "v2.12.12-1");
		}
		if (n == 6) {
			assert_true(ev.raw_cut);
			assert_int_equal(strlen(ev.raw), LOG_RAW_MAX);
		}
		if (n == 7)
			assert_int_equal(ev.kind, LOG_FAILURE_CALL);
	}
	assert_int_equal(rc, 0);
	const struct log_counts *k = log_reader_counts(r);
	assert_true(k->gzip);
	assert_int_equal(k->lines, 8);
	assert_int_equal(k->lines, k->failures + k->not_failures + k->unrecognised + k->records);
	assert_int_equal(k->failures, 2);
	assert_int_equal(k->records, 1);
	assert_int_equal(k->unrecognised, 3);
	assert_int_equal(k->first_unrecognised_line, 3);
	assert_string_equal(k->first_unrecognised, "some application output");
	assert_int_equal(k->cut_lines, 1);
	assert_int_equal(k->nul_lines, 1);
	assert_string_equal(k->nccl_version, "2.12.12+cuda11.6");
	log_reader_free(r);
	unlink(path);
}

/* the job a line, a journald entry or a file's name says (logs/job.c) */
static void job_lines_and_names(void **state)
{
	(void)state;
	static const struct {
		const char *line, *job, *host;
	} named[] = {
		{ "srun: job 4242 queued and waiting for resources", "slurm job 4242", "" },
		{ "srun: job 4242 has been allocated resources", "slurm job 4242", "" },
		{ "salloc: Granted job allocation 77", "slurm job 77", "" },
		{ "Submitted batch job 9001", "slurm job 9001", "" },
		{ "SLURM_JOB_ID=123", "slurm job 123", "" },
		{ "export SLURM_JOB_ID=123_4", "slurm job 123_4", "" },
		{ "slurmstepd: error: *** JOB 555 ON node07 CANCELLED AT 2026-12-01T10:00:00 ***",
		  "slurm job 555", "node07" },
		{ "slurmstepd: error: *** STEP 556.0 ON node08 CANCELLED AT 2026-12-01T10:00:00 ***",
		  "slurm job 556", "node08" },
		{ "2026-12-01T10:00:00Z srun: job 12 has been allocated resources", "slurm job 12", "" },
	};
	static const char *const not_named[] = {
		"srun: error: node02: task 5: Exited with exit code 1",
		"SLURM_JOB_ID=12ab",
		"SLURM_JOB_ID=",
		"srun: job step aborted: Waiting up to 32 seconds for job step to finish.",
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		log_line_parse(named[i].line, strlen(named[i].line), &ev);
		assert_int_equal(ev.kind, LOG_CONTEXT);
		assert_int_equal(ev.ctx, LOG_CTX_JOB);
		assert_string_equal(ev.job, named[i].job);
		if (named[i].host[0])
			assert_string_equal(ev.host, named[i].host);
	}
	for (size_t i = 0; i < sizeof(not_named) / sizeof(not_named[0]); i++) {
		log_line_parse(not_named[i], strlen(not_named[i]), &ev);
		assert_int_not_equal(ev.ctx, LOG_CTX_JOB);
		assert_string_equal(ev.job, "");
	}

	/* journald: Slurm's cgroup, the unit (fields journald sets itself,
	 * '_'), and the sender's own SLURM_JOB_ID field only where neither is
	 * there, named a claim; never the kernel's */
	static const struct {
		const char *line, *job;
	} journal[] = {
		{ "{\"MESSAGE\":\"x\",\"_HOSTNAME\":\"n1\",\"SLURM_JOB_ID\":\"31\"}", "slurm job 31 (claimed)" },
		/* logger --journald as nobody, in a login session: a claim */
		{ "{\"MESSAGE\":\"x\",\"SLURM_JOB_ID\":\"4242\",\"_SYSTEMD_UNIT\":\"session-3.scope\","
		  "\"_SYSTEMD_CGROUP\":\"/user.slice/user-65534.slice/session-3.scope\"}", "unit session-3.scope" },
		/* a step of job 32 that writes another job's id */
		{ "{\"SLURM_JOB_ID\":\"4242\",\"MESSAGE\":\"x\",\"_SYSTEMD_CGROUP\":\"/system.slice/slurmstepd.scope/job_32/step_0/user/task_0\"}",
		  "slurm job 32" },
		{ "{\"MESSAGE\":\"x\",\"_SYSTEMD_CGROUP\":\"/system.slice/slurmstepd.scope/job_32/step_0/user/task_0\",\"_SYSTEMD_UNIT\":\"slurmstepd.scope\"}",
		  "slurm job 32" },
		{ "{\"MESSAGE\":\"x\",\"_SYSTEMD_CGROUP\":\"/slurm/uid_0/job_33/step_batch\"}", "slurm job 33" },
		{ "{\"MESSAGE\":\"x\",\"_SYSTEMD_UNIT\":\"nccl-tests.service\"}", "unit nccl-tests.service" },
		{ "{\"MESSAGE\":\"mlx5_core 0000:08:00.0: x\",\"_TRANSPORT\":\"kernel\",\"_SYSTEMD_UNIT\":\"a.service\"}", "" },
		{ "{\"MESSAGE\":\"x\",\"SLURM_JOB_ID\":\"3x\"}", "" },
	};
	for (size_t i = 0; i < sizeof(journal) / sizeof(journal[0]); i++) {
		log_line_parse(journal[i].line, strlen(journal[i].line), &ev);
		assert_string_equal(ev.job, journal[i].job);
	}

	static const struct {
		const char *path, *job;
	} names[] = {
		{ "slurm-12345.out", "slurm job 12345" },
		{ "/home/u/runs/slurm-12345_7.out", "slurm job 12345_7" },
		{ "slurm-12345.out.gz", "slurm job 12345" },
		{ "train.job-8812.log", "slurm job 8812" },
		{ "job_8813", "slurm job 8813" },
		{ "slurm-8ranks.out", "" },
		{ "nccl.node01.4242.log", "" },
		{ "jobless.log", "" },
		{ "-", "" },
	};
	char job[40];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		log_job_from_name(names[i].path, job, sizeof(job));
		assert_string_equal(job, names[i].job);
	}
}

/* the node only from slurmstepd's "*** JOB <id> ON <node> ..." and "***
 * STEP <id>.<step> ON <node> ..." (Slurm's slurmstepd/req.c), never from
 * " ON " elsewhere on a line */
static void job_host_from_slurmstepd_only(void **state)
{
	(void)state;
	static const struct {
		const char *line, *job, *host;
	} lines[] = {
		{ "slurmstepd: error: *** JOB 555 ON node07 CANCELLED AT 2026-12-01T10:00:00 DUE TO TIME LIMIT ***",
		  "slurm job 555", "node07" },
		{ "slurmstepd: error: *** STEP 556.0 ON node08 FAILED (non-zero exit code or other failure mode) ***",
		  "slurm job 556", "node08" },
		{ "slurmstepd: error: *** STEP 557.12+1 ON gpu-a7.cluster CANCELLED AT 2026-12-01T10:00:00 DUE TO TASK FAILURE ***",
		  "slurm job 557", "gpu-a7.cluster" },
		{ "slurmstepd: error: *** JOB 558 STEPD TERMINATED ON node09 AT 2026-12-01T10:00:00 DUE TO JOB NOT ENDING WITH SIGNALS ***",
		  "slurm job 558", "node09" },
		/* the job, but no node: " ON " not right after the job or step */
		{ "slurmstepd: error: *** JOB 559 CANCELLED: WARNING: GPU ON fire ***", "slurm job 559", "" },
		{ "slurmstepd: error: *** STEP 560 ON node10 CANCELLED ***", "slurm job 560", "" },
		{ "slurmstepd: error: *** STEP 561.x ON node10 CANCELLED ***", "slurm job 561", "" },
		{ "slurmstepd: error: *** JOB 562 ON  CANCELLED ***", "slurm job 562", "" },
		{ "slurmstepd: error: *** JOB 563 ON node11", "slurm job 563", "" },
		{ "slurmstepd: error: *** JOB 564 ON node/11 CANCELLED ***", "slurm job 564", "" },
		{ "srun: job 4242 queued and waiting ON node12 for resources", "slurm job 4242", "" },
		{ "SLURM_JOB_ID=123 ON node13 x", "slurm job 123", "" },
		{ "Submitted batch job 9001 ON node14 x", "slurm job 9001", "" },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		parse(lines[i].line);
		assert_int_equal(ev.ctx, LOG_CTX_JOB);
		assert_string_equal(ev.job, lines[i].job);
		assert_string_equal(ev.host, lines[i].host);
	}
	/* not job lines at all: no job, and no node from " ON " */
	parse("gpu-a7:4242:4250 [0] NCCL INFO Channel 00 ON something");
	assert_int_not_equal(ev.ctx, LOG_CTX_JOB);
	assert_string_equal(ev.job, "");
	assert_string_equal(ev.host, "gpu-a7");
	parse("WARNING: GPU ON fire");
	assert_int_not_equal(ev.ctx, LOG_CTX_JOB);
	assert_string_equal(ev.host, "");
	/* a decoration's host stays: syslog's node, not the line's */
	parse("Dec  1 10:00:00 node20 slurmstepd[77]: slurmstepd: error: *** JOB 565 ON node21 CANCELLED AT 2026-12-01T10:00:00 ***");
	assert_string_equal(ev.job, "slurm job 565");
	assert_string_equal(ev.host, "node20");
}

/* an input's job: its name's, then the last line that named one, carried
 * to the lines after it */
static void job_carried_through_input(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_logread_XXXXXX", path[96], err[256];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/slurm-100.out", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("node01:1:1 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"
	      "srun: job 200 has been allocated resources\n"
	      "node02:2:2 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n",
	      f);
	fclose(f);
	struct log_reader *r = log_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	const char *want[] = { "slurm job 100", "slurm job 200", "slurm job 200" };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(log_reader_next(r, &ev), 1);
		assert_string_equal(ev.job, want[i]);
	}
	assert_int_equal(log_reader_next(r, &ev), 0);
	assert_int_equal(log_reader_counts(r)->context, 1);
	log_reader_free(r);
	unlink(path);
	rmdir(dir);
}

/* explain's record stream reads a rotated events.jsonl.1.gz as it reads the file */
static void replay_reads_gz(void **state)
{
	(void)state;
	char path[] = "/tmp/test_logread_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	gzFile z = gzdopen(fd, "wb");
	gzprintf(z, "{\"event\":\"start\",\"schema\":\"mrtrace-watch/1\"}\n{\"event\":\"stop\"}\n");
	gzclose(z);
	char err[256];
	struct replay_stream *s = replay_stream_open(path, err, sizeof(err));
	assert_non_null(s);
	struct json_object *o;
	long line;
	int n = 0;
	while (replay_stream_next(s, &o, &line, err, sizeof(err)) == 1) {
		n++;
		assert_int_equal(line, n);
		json_object_put(o);
	}
	assert_int_equal(n, 2);
	replay_stream_free(s);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_shape_every_decoration),
		cmocka_unit_test(no_errno_release_range),
		cmocka_unit_test(table_matches_excerpt),
		cmocka_unit_test(other_sources),
		cmocka_unit_test(whole_input_gz_buckets),
		cmocka_unit_test(replay_reads_gz),
		cmocka_unit_test(job_lines_and_names),
		cmocka_unit_test(job_carried_through_input),
		cmocka_unit_test(fallocate_tool_lines),
		cmocka_unit_test(gdr_dmabuf_enabled),
		cmocka_unit_test(errno_shapes),
		cmocka_unit_test(source_call_names_and_shapes),
		cmocka_unit_test(provider_registrations),
		cmocka_unit_test(job_host_from_slurmstepd_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
