// SPDX-License-Identifier: GPL-2.0-only
/* verbs_ops - drives one verbs control-path operation into a refusal the way
 * NCCL's IB transport would meet it, for the VM cases of the non-registration
 * failures (tests/vm/cases/failures.sh).  Real clients (ibv_devinfo,
 * ibv_rc_pingpong, fallocate) cover what they can; this covers the attribute
 * combinations no real client lets one choose.
 *
 * Usage: verbs_ops [-d DEV] [-p PORT] OP [ARGS]
 *   open                     ibv_open_device
 *   pd N                     allocate N protection domains
 *   cq CQE                   create a CQ with CQE entries
 *   qp WR                    create an RC QP with WR send and receive entries
 *   init PKEY_INDEX          RC QP RESET->INIT with that P_Key index
 *   rtr SGID_INDEX MTU       RC QP ->INIT->RTR (RoCE: global route from SGID_INDEX,
 *                            path MTU as 1..5 = 256..4096)
 *   ah SGID_INDEX            address handle with that source GID index
 *   badmask                  RESET->RTS directly (an invalid transition)
 *   shm BYTES                NCCL-style /dev/shm segment: open + posix_fallocate
 *   getfd PID FD             pidfd_open(PID) + pidfd_getfd(FD)
 * Prints "pid=P op=OP result=OK|FAIL errno=E" and holds the resources 0.5 s;
 * exit 0 on success, 1 on the refusal, 2 on a setup error. */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *opname;

static int result(int ok, int err)
{
	printf("pid=%d op=%s result=%s errno=%d\n", getpid(), opname, ok ? "OK" : "FAIL",
	       ok ? 0 : err);
	fflush(stdout);
	usleep(500000); /* mrtrace reads /proc while the process is alive */
	return ok ? 0 : 1;
}

static struct ibv_context *open_dev(const char *name)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *c = NULL;

	for (int i = 0; l && i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(l[i]), name)) {
			c = ibv_open_device(l[i]);
			if (!c)
				return NULL;
			break;
		}
	if (!c && (!l || n == 0))
		errno = ENODEV;
	ibv_free_device_list(l);
	return c;
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq, unsigned wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	return ibv_create_qp(pd, &a);
}

static int to_init(struct ibv_qp *qp, int port, int pkey_index)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = pkey_index,
				 .port_num = port, .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS);
}

int main(int argc, char **argv)
{
	const char *dev = "rxe0";
	int port = 1, opt;

	while ((opt = getopt(argc, argv, "d:p:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'p')
			port = atoi(optarg);
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: verbs_ops [-d DEV] [-p PORT] OP [ARGS]\n");
		return 2;
	}
	opname = argv[optind];
	const char *a1 = optind + 1 < argc ? argv[optind + 1] : "0";
	const char *a2 = optind + 2 < argc ? argv[optind + 2] : "0";

	if (!strcmp(opname, "shm")) {
		char path[] = "/dev/shm/nccl-XXXXXX";
		int fd = mkstemp(path);
		if (fd < 0)
			return result(0, errno);
		unlink(path);
		int rc = posix_fallocate(fd, 0, (off_t)strtoull(a1, NULL, 0));
		return result(rc == 0, rc);
	}
	if (!strcmp(opname, "getfd")) {
		int pfd = (int)syscall(SYS_pidfd_open, atoi(a1), 0);
		if (pfd < 0)
			return result(0, errno);
		int fd = (int)syscall(SYS_pidfd_getfd, pfd, atoi(a2), 0);
		return result(fd >= 0, errno);
	}

	struct ibv_context *ctx = open_dev(dev);
	if (!strcmp(opname, "open") || !ctx)
		return result(ctx != NULL, errno);
	if (!strcmp(opname, "pd")) {
		for (int i = 0; i < atoi(a1); i++)
			if (!ibv_alloc_pd(ctx))
				return result(0, errno);
		return result(1, 0);
	}
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	if (!pd) {
		perror("verbs_ops: ibv_alloc_pd");
		return 2;
	}
	if (!strcmp(opname, "cq")) {
		struct ibv_cq *cq = ibv_create_cq(ctx, atoi(a1), NULL, NULL, 0);
		return result(cq != NULL, errno);
	}
	if (!strcmp(opname, "ah")) {
		struct ibv_ah_attr ah = { .is_global = 1, .port_num = port,
					  .grh = { .sgid_index = atoi(a1), .hop_limit = 1 } };
		union ibv_gid gid;
		if (!ibv_query_gid(ctx, port, 0, &gid))
			ah.grh.dgid = gid;
		return result(ibv_create_ah(pd, &ah) != NULL, errno);
	}
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		perror("verbs_ops: ibv_create_cq");
		return 2;
	}
	if (!strcmp(opname, "qp"))
		return result(rc_qp(pd, cq, atoi(a1)) != NULL, errno);
	struct ibv_qp *qp = rc_qp(pd, cq, 16);
	if (!qp) {
		perror("verbs_ops: ibv_create_qp");
		return 2;
	}
	if (!strcmp(opname, "init")) {
		int rc = to_init(qp, port, atoi(a1));
		return result(rc == 0, rc);
	}
	if (!strcmp(opname, "badmask")) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
		int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
		return result(rc == 0, rc);
	}
	if (!strcmp(opname, "rtr")) {
		if (to_init(qp, port, 0)) {
			perror("verbs_ops: INIT");
			return 2;
		}
		union ibv_gid gid;
		memset(&gid, 0, sizeof(gid));
		ibv_query_gid(ctx, port, 0, &gid);
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR, .path_mtu = atoi(a2), .dest_qp_num = qp->qp_num,
			.rq_psn = 0, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
			.ah_attr = { .is_global = 1, .port_num = port,
				     .grh = { .dgid = gid, .sgid_index = atoi(a1), .hop_limit = 1 } },
		};
		int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		return result(rc == 0, rc);
	}
	fprintf(stderr, "verbs_ops: unknown op %s\n", opname);
	return 2;
}
