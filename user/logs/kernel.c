// SPDX-License-Identifier: GPL-2.0-only
/* kernel.c - the kernel log's lines about RDMA: mlx5's firmware command
 * failures (`mlx5_cmd_out_err`/`mlx5_cmd_check`: CREATE_MKEY(0x200)
 * op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x..),
 * err(-12)), the asynchronous MR creation's failure, health and port
 * events, nvidia_peermem not loading.  A line the prefix marked as the
 * kernel's (journalctl -k, a `[ 12.3]` stamp) that says none of these is
 * counted as not a failure. */
#include "logs/fmtmatch.h"
#include "logs/parse.h"

#include <string.h>

static const struct {
	const char *cmd;
	enum rdma_op op;
} cmd_ops[] = {
	{ "CREATE_MKEY", OP_REG_MR }, { "CREATE_QP", OP_CREATE_QP }, { "CREATE_CQ", OP_CREATE_CQ },
	{ "RST2INIT_QP", OP_MODIFY_QP }, { "INIT2RTR_QP", OP_MODIFY_QP }, { "RTR2RTS_QP", OP_MODIFY_QP },
	{ "INIT2INIT_QP", OP_MODIFY_QP }, { "RTS2RTS_QP", OP_MODIFY_QP }, { "ALLOC_PD", OP_ALLOC_PD },
	{ "CREATE_AH", OP_CREATE_AH }, { "CREATE_PSV", OP_REG_MR }, { "ALLOC_UAR", OP_OPEN_DEVICE },
};

static const char *const driver_words[] = {
	"mlx5_core", "mlx5_ib", "mlx4_core", "mlx4_ib", "infiniband ", "ib_core", "ib_uverbs",
	"rdma_rxe", "rdma_rxe:", "ib_umem", "nvidia_peermem", "nvidia-peermem", "NVRM:",
	"bnxt_re", "irdma", "efa ", "hfi1", "ionic",
};

static const char *const events[] = {
	"Fatal error", "health compromised", "internal error", "device's health",
	"Link down", "PCI error", "AER:", "catastrophic", "fw_fatal", "firmware fatal",
	"port_module", "module is unplugged", "Port module event",
};

static bool mlx5_cmd(const char *s, const char *end, struct log_event *ev)
{
	const char *p = log_find(s, end, " op_mod(0x");
	if (!p)
		return false;
	const char *o = p;
	while (o > s && o[-1] != '(')
		o--;
	if (o == s)
		return false;
	const char *nm = o - 1;
	while (nm > s && ((nm[-1] >= 'A' && nm[-1] <= 'Z') || nm[-1] == '_' || (nm[-1] >= '0' && nm[-1] <= '9')))
		nm--;
	if (nm == o - 1)
		return false;
	str_copy_n(ev->mlx5.cmd, sizeof(ev->mlx5.cmd), nm, (size_t)(o - 1 - nm));
	ev->mlx5.opcode = (unsigned)log_num(o, (size_t)(p - o), 16);
	ev->mlx5.op_mod = (unsigned)log_num(p + 10, (size_t)(end - p - 10), 16);
	const char *st = log_find(p, end, "status ");
	if (st) {
		st += 7;
		const char *lp = log_find(st, end, "(0x");
		if (lp) {
			str_copy_n(ev->mlx5.status, sizeof(ev->mlx5.status), st, (size_t)(lp - st));
			ev->mlx5.status_code = (unsigned)log_num(lp + 1, (size_t)(end - lp - 1), 16);
		}
	}
	const char *sy = log_find(p, end, "syndrome (0x");
	if (sy)
		ev->mlx5.syndrome = (unsigned)log_num(sy + 10, (size_t)(end - sy - 10), 16);
	const char *er = log_find(p, end, "err(");
	if (er) {
		long long v = log_num(er + 4, (size_t)(end - er - 4), 10);
		ev->err = log_errno_num(v);
		ev->mlx5.err = v < 0 ? -ev->err : ev->err;
	}
	ev->no_errno = !ev->err;
	/* "mlx5_core 0000:08:00.0: ..." */
	const char *pci = log_find(s, end, "mlx5_core ");
	if (pci) {
		const char *e = memchr(pci + 10, ':', (size_t)(end - pci - 10));
		/* the PCI address holds ':' itself: up to ": " */
		e = log_find(pci + 10, end, ": ");
		if (e)
			str_copy_n(ev->mlx5.pci, sizeof(ev->mlx5.pci), pci + 10, (size_t)(e - pci - 10));
	}
	ev->kind = LOG_FAILURE_CALL;
	for (size_t i = 0; i < sizeof(cmd_ops) / sizeof(cmd_ops[0]); i++)
		if (!strcmp(ev->mlx5.cmd, cmd_ops[i].cmd))
			ev->op = cmd_ops[i].op;
	if (!ev->op) /* a firmware command no verbs call of ours maps to */
		ev->kind = LOG_FAILURE_NOCALL, ev->nocall = LOG_NC_KERNEL_EVENT;
	return true;
}

bool log_parse_kernel(const char *s, const char *end, bool force, struct log_event *ev)
{
	bool driver = false;

	/* a line the prefix did not mark (dmesg -t): the driver's name starts it */
	for (size_t i = 0; i < sizeof(driver_words) / sizeof(driver_words[0]) && !driver; i++)
		driver = force ? log_find(s, end, driver_words[i]) != NULL : log_starts(s, end, driver_words[i]);
	if (!force && !driver)
		return false;
	ev->source = LOG_SRC_KERNEL;
	if (mlx5_cmd(s, end, ev))
		return true;
	if (log_find(s, end, "async reg mr failed") || log_find(s, end, "reg_create") ||
	    log_find(s, end, "create mkey failed")) {
		ev->kind = LOG_FAILURE_CALL, ev->op = OP_REG_MR, ev->no_errno = true;
		const char *e = log_find(s, end, "err ");
		if (e)
			ev->err = log_errno_num(log_num(e + 4, (size_t)(end - e - 4), 10));
		ev->no_errno = !ev->err;
		return true;
	}
	/* mlx5_ib's mr_umem_get: "umem get failed (-95)", ib_umem_get's
	 * errno for a user MR whose pages it could not pin */
	const char *ug = log_find(s, end, "umem get failed (");
	if (ug) {
		ev->kind = LOG_FAILURE_CALL, ev->op = OP_REG_MR;
		ug += 17;
		const char *q = memchr(ug, ')', (size_t)(end - ug));
		if (q && q - ug <= 12)
			ev->err = log_errno_num(log_num(ug, (size_t)(q - ug), 10));
		ev->no_errno = !ev->err;
		return true;
	}
	if (log_find(s, end, "disagrees about version of symbol") &&
	    (log_find(s, end, "peermem") || log_find(s, end, "peer_mem"))) {
		ev->kind = LOG_FAILURE_NOCALL, ev->nocall = LOG_NC_GDR_DISABLED;
		str_copy_n(ev->async_event, sizeof(ev->async_event), "nvidia_peermem not loaded", 25);
		return true;
	}
	if (driver)
		for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
			const char *p = log_find(s, end, events[i]);
			if (!p)
				continue;
			ev->kind = LOG_FAILURE_NOCALL, ev->nocall = LOG_NC_KERNEL_EVENT;
			str_copy_n(ev->async_event, sizeof(ev->async_event), p, (size_t)(end - p));
			return true;
		}
	ev->kind = LOG_NOT_FAILURE;
	return true;
}
