// SPDX-License-Identifier: GPL-2.0-only
/* test_failure.c - the refusals beyond registration: explain_failure() over
 * records and gate facts built here, gates_collect() over a /proc + sysfs
 * tree made in a temporary directory, and the JSON round trip of both. */
#include <errno.h>
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
#include <json-c/json.h>

#include "core/ops.h"
#include "verdict/explain.h"
#include "proc/gates.h"
#include "record/record.h"

static struct mrt_event ev_of(unsigned op, int err, const char *name)
{
	struct mrt_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_FAILURE;
	ev.op = op;
	ev.err = err;
	ev.pid = 4242;
	ev.dmabuf_fd = -1;
	snprintf(ev.op_name, sizeof(ev.op_name), "%s", name);
	return ev;
}

static struct gate_facts no_gates(void)
{
	struct gate_facts g;
	memset(&g, 0, sizeof(g));
	g.seccomp_mode = g.yama_scope = g.target_pid = -1;
	return g;
}

#define assert_cause(ev, g, c)                                                                 \
	do {                                                                                   \
		struct verdict _v;                                                             \
		enum cause _got = explain_failure((ev), NULL, (g), &_v);                       \
		if (_got != (c))                                                               \
			fail_msg("cause %s, expected %s (%s)", cause_name(_got), cause_name(c), \
				 _v.summary);                                                  \
		assert_true(_v.summary[0] && _v.explanation[0]);                               \
		if ((c) != CAUSE_UNKNOWN)                                                      \
			assert_true(_v.fixes.n >= 1);                                          \
	} while (0)

static void test_open_device_gates(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_OPEN_DEVICE, ENOENT, "uverbs0");
	struct gate_facts g = no_gates();
	struct verdict v;

	/* the gate facts decide, whatever libibverbs' errno says */
	g.have_node = true;
	g.node_exists = false;
	assert_cause(&ev, &g, CAUSE_DEVICE_MISSING);
	g.node_exists = true;
	g.node_mode = 0600;
	g.mode_allows_rw = false;
	g.proc_uid = 65534;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_DEVICE_PERMISSION);
	assert_non_null(strstr(v.summary, "0600"));
	assert_non_null(strstr(v.summary, "65534"));
	assert_int_equal(v.certainty, CERT_PROVEN);
	assert_null(strstr(v.summary, "/dev/char"));
	/* rdma-core's fallback: /dev/char/231:192 absent, so the user saw
	 * ENOENT ("no device") for a refusal of the node's mode */
	g.node_major = 231, g.node_minor = 192;
	g.have_char_alias = true;
	g.char_alias_exists = false;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_DEVICE_PERMISSION);
	assert_non_null(strstr(v.summary, "tried /dev/char/231:192, absent here, and reported ENOENT"));
	g.char_alias_exists = true;
	explain_failure(&ev, NULL, &g, &v);
	assert_null(strstr(v.summary, "/dev/char"));
	g.have_char_alias = false;
	g.mode_allows_rw = true;
	g.devcg = GATE_DEVCG_BPF;
	assert_cause(&ev, &g, CAUSE_DEVICE_CGROUP);
	/* node there, mode fine, no device policy: not a device-access gate */
	g.devcg = GATE_DEVCG_NONE;
	assert_cause(&ev, &g, CAUSE_UNKNOWN);
	/* without facts (a replay of an old record) the errno is the gate's
	 * signature, and the verdict says it was inferred */
	ev.err = EPERM;
	explain_failure(&ev, NULL, NULL, &v);
	assert_int_equal(v.cause, CAUSE_DEVICE_CGROUP);
	assert_int_equal(v.certainty, CERT_INFERRED);
	ev.err = EACCES;
	assert_cause(&ev, NULL, CAUSE_DEVICE_PERMISSION);
}

static void test_objects_against_device_maxima(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_CREATE_CQ, EINVAL, "rxe0");
	struct verdict v;

	ev.op_args[0] = 100000000;
	ev.op_limits[0] = 32767;
	explain_failure(&ev, NULL, NULL, &v);
	assert_int_equal(v.cause, CAUSE_HCA_RESOURCE_LIMIT);
	assert_non_null(strstr(v.summary, "32767"));
	assert_non_null(strstr(v.summary, "100000000"));
	assert_int_equal(cause_class(v.cause, ev.op), CLASS_INFINIBAND);
	/* within the maximum: not this cause */
	ev.op_args[0] = 100;
	assert_cause(&ev, NULL, CAUSE_UNKNOWN);

	ev = ev_of(MRT_OP_CREATE_QP, ENOSPC, "rxe0");
	ev.op_args[0] = ev.op_args[1] = 100000000;
	ev.op_limits[0] = 1048576;
	assert_cause(&ev, NULL, CAUSE_HCA_RESOURCE_LIMIT);

	/* a QP of ordinary size on a device that holds all it can: the count */
	struct gate_facts g = no_gates();
	ev = ev_of(MRT_OP_CREATE_QP, ENOMEM, "mlx5_0");
	ev.op_args[0] = ev.op_args[1] = 512;
	ev.op_limits[0] = 32768;
	ev.op_limits[1] = 131072;
	g.have_counts = true;
	g.dev_qp = 131072;
	g.dev_cq = g.dev_pd = 10;
	g.proc_qp = 70000;
	g.proc_cq = g.proc_pd = 1;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_HCA_RESOURCE_LIMIT);
	assert_non_null(strstr(v.summary, "already holds 131072 of its 131072 QPs"));
	assert_non_null(strstr(v.summary, "this process: 1, 1, 70000"));
	g.dev_qp = 100;
	assert_cause(&ev, &g, CAUSE_UNKNOWN);
}

static void test_rdma_cgroup_for_objects(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_OPEN_DEVICE, EAGAIN, "rxe0");
	struct gate_facts g = no_gates();
	struct verdict v;

	/* the kernel trail proves it: the charge step failed */
	ev.nsteps = 1;
	ev.steps[0].site = MRT_SITE_RDMACG_CHARGE;
	ev.steps[0].ret = -EAGAIN;
	g.have_rdmacg = true;
	snprintf(g.rdmacg_path, sizeof(g.rdmacg_path), "/t12");
	snprintf(g.rdma_max, sizeof(g.rdma_max), "rxe0 hca_handle=0 hca_object=0");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_RDMA_CGROUP_LIMIT);
	assert_int_equal(v.certainty, CERT_PROVEN);
	assert_non_null(strstr(v.summary, "hca_handle"));
	assert_non_null(strstr(v.summary, "rdma.max \"rxe0 hca_handle=0 hca_object=0\""));
	/* no trail, but EAGAIN under a limiting rdma.max: inferred */
	ev.nsteps = 0;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_RDMA_CGROUP_LIMIT);
	assert_int_equal(v.certainty, CERT_INFERRED);
}

static void test_modify_qp(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_MODIFY_QP, ENODATA, "rxe0");
	struct gate_facts g = no_gates();
	struct verdict v;

	ev.op_args[0] = 0x1 | 0x80 | 0x100; /* STATE | AV | PATH_MTU */
	ev.op_args[1] = 2;                   /* RTR */
	ev.op_args[2] = 1;
	ev.op_args[3] = 9;                   /* sgid_index */
	ev.op_args[5] = 3;
	ev.op_args[6] = 1;                   /* is_global */
	g.have_port = true;
	snprintf(g.port_state, sizeof(g.port_state), "4: ACTIVE");
	g.port_active = true;
	g.gid_table_len = 16;
	g.gid_valid = 1;
	g.sgid_present = false;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_BAD_GID_INDEX);
	assert_non_null(strstr(v.summary, "index 9"));
	assert_non_null(strstr(v.summary, "1 of 16"));
	/* the same request on a port that is down: the port is the reason */
	ev.err = ENETUNREACH;
	g.port_active = false;
	snprintf(g.port_state, sizeof(g.port_state), "1: DOWN");
	snprintf(g.link_layer, sizeof(g.link_layer), "Ethernet");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_PORT_NOT_ACTIVE);
	assert_non_null(strstr(v.summary, "DOWN"));
	/* P_Key index past the table */
	ev = ev_of(MRT_OP_MODIFY_QP, EINVAL, "mlx5_0");
	ev.op_args[0] = 0x1 | 0x10 | 0x20;
	ev.op_args[1] = 1;
	ev.op_args[2] = 1;
	ev.op_args[4] = 5;
	g = no_gates();
	g.have_port = true;
	g.port_active = true;
	snprintf(g.port_state, sizeof(g.port_state), "4: ACTIVE");
	g.pkey_table_len = 1;
	assert_cause(&ev, &g, CAUSE_BAD_PKEY_INDEX);
	/* a port the device does not have */
	ev.op_args[2] = 2;
	ev.op_limits[3] = 1;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_QP_ATTR_INVALID);
	assert_non_null(strstr(v.summary, "port 2"));
	/* RESET -> RTS: an invalid transition */
	ev = ev_of(MRT_OP_MODIFY_QP, EINVAL, "rxe0");
	ev.op_args[0] = 0x1;
	ev.op_args[1] = 3;
	explain_failure(&ev, NULL, NULL, &v);
	assert_int_equal(v.cause, CAUSE_QP_ATTR_INVALID);
	assert_non_null(strstr(v.summary, "RTS"));
}

static void test_shm_and_fd(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_SHM_ALLOC, ENOSPC, "");
	struct gate_facts g = no_gates();
	struct verdict v;

	ev.op_args[1] = 4 << 20;
	g.have_shm = true;
	snprintf(g.shm_mount, sizeof(g.shm_mount), "/dev/shm");
	g.shm_size = 1 << 20;
	g.shm_used = 0;
	g.shm_avail = 1 << 20;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_SHM_EXHAUSTED);
	assert_non_null(strstr(v.summary, "size 1 MiB"));
	assert_non_null(strstr(v.summary, "needs 4 MiB"));
	assert_int_equal(cause_class(v.cause, ev.op), CLASS_ENVIRONMENT);
	ev.err = EIO;
	assert_cause(&ev, &g, CAUSE_UNKNOWN);
	ev.err = ENOSPC;

	/* whose tmpfs: a private one (the process's own mount namespace, a
	 * container's) gets the container's knobs whether or not a runtime is
	 * recognised, never the host's fstab (issue 21: a 1 MiB private
	 * /dev/shm was told to remount the host's) */
	g.shm_owner = GATE_SHM_PRIVATE;
	g.shm_dev = 88;
	g.host_shm_dev = 26;
	snprintf(g.shm_source, sizeof(g.shm_source), "tmpfs");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_SHM_EXHAUSTED);
	assert_non_null(strstr(v.summary, "not the host's"));
	assert_true(v.fixes.n >= 1);
	assert_non_null(strstr(v.fixes.items[0].text, "--shm-size"));
	assert_non_null(strstr(v.fixes.items[0].text, "emptyDir"));
	for (int i = 0; i < v.fixes.n; i++) {
		assert_null(strstr(v.fixes.items[i].text, "/etc/fstab"));
		assert_null(strstr(v.fixes.items[i].text, "remount"));
	}
	/* the host's own /dev/shm: its fstab and remount */
	g.shm_owner = GATE_SHM_HOST;
	g.shm_dev = g.host_shm_dev = 26;
	explain_failure(&ev, NULL, &g, &v);
	assert_non_null(strstr(v.summary, "the host's /dev/shm"));
	assert_non_null(strstr(v.fixes.items[0].text, "/etc/fstab"));
	assert_null(strstr(v.fixes.items[0].text, "--shm-size"));

	ev = ev_of(MRT_OP_FD_IMPORT, EPERM, "");
	g = no_gates();
	g.have_fd = true;
	g.seccomp_mode = 0;
	g.yama_scope = 0;
	g.target_pid = 77;
	g.target_uid = 0;
	g.target_same_uid = false;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_FD_IMPORT_DENIED);
	assert_non_null(strstr(v.summary, "CAP_SYS_PTRACE"));
	assert_non_null(strstr(v.summary, "pid 77"));
	g.yama_scope = 3;
	explain_failure(&ev, NULL, &g, &v);
	assert_non_null(strstr(v.summary, "ptrace_scope is 3"));
}

static void test_names(void **state)
{
	(void)state;
	for (unsigned op = 1; op < MRT_OP_MAX; op++)
		assert_int_equal(rdma_op_from_name(op_name(op)), op);
	assert_int_equal(rdma_op_from_name("nope"), OP_NONE);
	assert_string_equal(cause_name(CAUSE_SHM_EXHAUSTED), "shm_exhausted");
	assert_int_equal(cause_from_name("fd_import_denied"), CAUSE_FD_IMPORT_DENIED);
	assert_string_equal(cause_class_name(cause_class(CAUSE_MEMLOCK_LIMIT, 0)), "environment");
	assert_string_equal(cause_class_name(cause_class(CAUSE_PORT_NOT_ACTIVE, 6)), "infiniband");
}

/* ---- gates_collect over a tree made here ------------------------------------ */

static void put(const char *root, const char *rel, const char *text, unsigned mode)
{
	char path[1024], dir[1024];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(dir, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* A gate_facts for an ACTIVE RoCE port of rxe0 whose table holds the
 * link-local GID (index 0) and an IPv4 one (index 1), both RoCE v2. */
static struct gate_facts roce_port(void)
{
	struct gate_facts g = no_gates();
	static const char *const gid[2] = { "fe80:0000:0000:0000:5054:00ff:fe12:3456",
					    "0000:0000:0000:0000:0000:ffff:0a00:0001" };
	g.have_port = true;
	snprintf(g.device, sizeof(g.device), "rxe0");
	g.port = 1;
	snprintf(g.port_state, sizeof(g.port_state), "4: ACTIVE");
	g.port_active = true;
	snprintf(g.link_layer, sizeof(g.link_layer), "Ethernet");
	g.gid_table_len = 1024;
	g.gid_valid = 2;
	g.have_gids = true;
	snprintf(g.gids.device, sizeof(g.gids.device), "rxe0");
	g.gids.port = 1;
	snprintf(g.gids.link_layer, sizeof(g.gids.link_layer), "Ethernet");
	g.gids.len = 1024;
	for (int i = 0; i < 2; i++) {
		struct gid_entry *e = &g.gids.e[g.gids.n++];
		e->index = i;
		assert_int_equal(gid_parse(gid[i], e->raw, e->text, sizeof(e->text)), 0);
		e->populated = true;
		snprintf(e->type, sizeof(e->type), "RoCE v2");
		e->roce_version = 2;
		snprintf(e->netdev, sizeof(e->netdev), "dummy0");
	}
	g.gids.populated = 2;
	return g;
}

/* RTR without a GRH (is_global 0) on RoCE: the client found no GID at the
 * index it was given (ibv_rc_pingpong -g <empty>), a GID problem */
static void test_roce_without_grh(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_MODIFY_QP, EINVAL, "rxe0");
	struct gate_facts g = roce_port();
	struct verdict v;

	ev.op_args[0] = 0x1 | 0x80 | 0x100 | 0x200 | 0x400; /* STATE AV PATH_MTU DEST_QPN RQ_PSN */
	ev.op_args[1] = 2;                                  /* RTR */
	ev.op_args[2] = 1;
	ev.op_args[3] = 0;                                  /* sgid_index: none given */
	ev.op_args[5] = 1;
	ev.op_args[6] = 0;                                  /* is_global */
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_BAD_GID_INDEX);
	assert_non_null(strstr(v.summary, "no GRH"));
	assert_non_null(strstr(v.summary, "found no GID at the index it was given"));
	assert_non_null(strstr(v.summary, "1 ::ffff:10.0.0.1 (RoCE v2, dummy0)"));
	assert_non_null(strstr(v.explanation, "NCCL_IB_GID_INDEX"));
	/* the fix names the routable entry NCCL's own search takes */
	assert_true(v.fixes.n >= 1);
	assert_non_null(strstr(v.fixes.items[0].text, "GID index 1 of rxe0 port 1"));
	/* the same RTR on an InfiniBand port: a GRH is optional there */
	snprintf(g.link_layer, sizeof(g.link_layer), "InfiniBand");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_QP_ATTR_INVALID);
	/* and create_ah without a GRH on RoCE */
	g = roce_port();
	ev = ev_of(MRT_OP_CREATE_AH, EINVAL, "rxe0");
	ev.op_args[0] = 0x80;
	ev.op_args[2] = 1;
	assert_cause(&ev, &g, CAUSE_BAD_GID_INDEX);
	/* without a routable GID on the port the fix says to give it an address */
	g.gids.n = 1;
	g.gids.populated = 1;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_BAD_GID_INDEX);
	assert_non_null(strstr(v.fixes.items[0].text, "give dummy0 an IP address"));
}

/* A failed RoCE address resolution step (MRT_SITE_ADDR_RESOLVE) as the
 * kernel records it: remote GID bytes, netns << 32 | ifindex, netdev name */
static void resolve_step(struct mrt_event *ev, int err, const char *gid_sysfs, unsigned netns,
			 unsigned ifindex, const char *netdev)
{
	unsigned char raw[16];
	struct mrt_step *s = &ev->steps[ev->nsteps++];

	assert_int_equal(gid_parse(gid_sysfs, raw, NULL, 0), 0);
	s->site = MRT_SITE_ADDR_RESOLVE;
	s->flags = MRT_STEP_EXITED;
	s->ret = -err;
	memcpy(&s->a0, raw, 8);
	memcpy(&s->a1, raw + 8, 8);
	s->a2 = (unsigned long long)netns << 32 | ifindex;
	memcpy(&ev->op_limits[1], netdev, strlen(netdev));
}

/* RTR towards a GID the kernel cannot resolve: no route (ENETUNREACH), an
 * unanswered neighbour (ETIMEDOUT), a netdev in another namespace; a port
 * that is down stays port_not_active even with the same step */
static void test_gid_unreachable(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_MODIFY_QP, ENETUNREACH, "rxe0");
	struct gate_facts g = roce_port();
	struct verdict v;

	ev.op_args[0] = 0x1 | 0x80 | 0x100 | 0x200 | 0x400;
	ev.op_args[1] = 2;
	ev.op_args[2] = 1;
	ev.op_args[3] = 0;
	ev.op_args[6] = 1;
	g.host_netns = 4026531840u;
	resolve_step(&ev, ENETUNREACH, "2001:0db8:0000:0000:0000:0000:0000:0002", 4026531840u, 2,
		     "dummy0");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_GID_UNREACHABLE);
	assert_int_equal(v.certainty, CERT_PROVEN);
	assert_non_null(strstr(v.summary, "no route to 2001:db8::2 from dummy0 (network namespace"));
	assert_non_null(strstr(v.summary, "source GID index 0 is fe80::5054:ff:fe12:3456"));
	assert_string_equal(cause_class_name(cause_class(v.cause, ev.op)), "infiniband");
	assert_non_null(strstr(v.fixes.items[0].text, "ip route get 2001:db8::2"));
	/* NCCL's own search takes index 1 (the IPv4 GID): named as the alternative */
	assert_non_null(strstr(v.fixes.items[1].text, "NCCL_IB_GID_INDEX=1"));
	assert_non_null(strstr(v.fixes.items[v.fixes.n - 1].text, "NCCL_CROSS_NIC=0"));
	/* the neighbour that never answered */
	ev = ev_of(MRT_OP_MODIFY_QP, ETIMEDOUT, "rxe0");
	ev.op_args[0] = 0x81;
	ev.op_args[1] = 2;
	ev.op_args[3] = 1;
	ev.op_args[6] = 1;
	resolve_step(&ev, ETIMEDOUT, "0000:0000:0000:0000:0000:ffff:0a00:0063", 4026531840u, 2,
		     "dummy0");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_GID_UNREACHABLE);
	assert_non_null(strstr(v.summary, "no neighbour answered for 10.0.0.99"));
	assert_non_null(strstr(v.fixes.items[0].text, "ip neigh show 10.0.0.99 dev dummy0"));
	/* the same from a netdev in another network namespace */
	ev.steps[0].a2 = (unsigned long long)4026532500u << 32 | 3;
	memset(&ev.op_limits[1], 0, 16);
	memcpy(&ev.op_limits[1], "mrt7", 4);
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_GID_UNREACHABLE);
	assert_non_null(strstr(v.summary, "mrt7 in network namespace 4026532500, not the host's"));
	assert_non_null(strstr(v.fixes.items[0].text, "mrt7 is in network namespace 4026532500"));
	/* with the port down, the lost route is the port's */
	g.port_active = false;
	snprintf(g.port_state, sizeof(g.port_state), "1: DOWN");
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_PORT_NOT_ACTIVE);
	/* without the step, ENETUNREACH stays port_not_active as before */
	g = roce_port();
	ev.nsteps = 0;
	ev.err = ENETUNREACH;
	explain_failure(&ev, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_PORT_NOT_ACTIVE);
	assert_string_equal(cause_name(CAUSE_GID_UNREACHABLE), "gid_unreachable");
}

static void test_gates_collect_tree(void **state)
{
	(void)state;
	char root[] = "/tmp/mrtrace-gates-XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "proc/4242/status",
	    "Name:\tpython\nUid:\t65534\t65534\t65534\t65534\nGid:\t65534\t65534\t65534\t65534\n"
	    "Groups:\t\nCapEff:\t0000000000000000\nSeccomp:\t2\n", 0644);
	put(root, "proc/4242/cgroup", "0::/job.slice/job1\n", 0644);
	/* the node exists but only for its owner */
	put(root, "proc/4242/root/dev/infiniband/uverbs0", "", 0600);
	put(root, "sys/class/infiniband/rxe0/ports/1/state", "1: DOWN\n", 0644);
	put(root, "sys/class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n", 0644);
	put(root, "sys/class/infiniband/rxe0/ports/1/gids/0", "fe80:0000:0000:0000:e064:06ff:fe1f:16b6\n", 0644);
	put(root, "sys/class/infiniband/rxe0/ports/1/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n", 0644);
	put(root, "sys/class/infiniband/rxe0/ports/1/gid_attrs/types/0", "RoCE v2\n", 0644);
	put(root, "sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "dummy0\n", 0644);
	put(root, "sys/class/infiniband/rxe0/ports/1/pkeys/0", "0xffff\n", 0644);
	put(root, "sys/fs/cgroup/job.slice/rdma.max", "rxe0 hca_handle=2 hca_object=max\n", 0644);
	put(root, "sys/fs/cgroup/job.slice/rdma.current", "rxe0 hca_handle=2 hca_object=7\n", 0644);
	put(root, "proc/sys/kernel/yama/ptrace_scope", "1\n", 0644);

	struct mrt_event ev = ev_of(MRT_OP_OPEN_DEVICE, EACCES, "uverbs0");
	struct gate_facts g;
	gates_collect(root, 4242, &ev, &g);
	assert_true(g.have_node && g.node_exists);
	assert_int_equal(g.node_mode, 0600);
	/* the tree's file belongs to whoever runs the test; uid 65534 is another */
	assert_false(getuid() != 65534 && g.mode_allows_rw);
	assert_int_equal(g.proc_uid, 65534);
	/* rdma-core's next try, /dev/char/MAJ:MIN, looked for in the same root */
	assert_true(g.have_char_alias);
	assert_false(g.char_alias_exists);
	char alias[160];
	snprintf(alias, sizeof(alias), "proc/4242/root/dev/char/%u:%u", g.node_major, g.node_minor);
	put(root, alias, "", 0644);
	gates_collect(root, 4242, &ev, &g);
	assert_true(g.have_char_alias && g.char_alias_exists);
	assert_true(g.have_rdmacg);
	assert_string_equal(g.rdma_max, "rxe0 hca_handle=2 hca_object=max");
	assert_string_equal(g.rdmacg_path, "/job.slice");
	assert_string_equal(g.rdma_current, "rxe0 hca_handle=2 hca_object=7");

	ev = ev_of(MRT_OP_MODIFY_QP, ENETUNREACH, "rxe0");
	ev.op_args[2] = 1;
	ev.op_args[3] = 1;
	gates_collect(root, 4242, &ev, &g);
	assert_true(g.have_port);
	assert_false(g.port_active);
	assert_string_equal(gates_port_state_name(g.port_state), "DOWN");
	assert_string_equal(g.link_layer, "Ethernet");
	assert_int_equal(g.gid_table_len, 2);
	assert_int_equal(g.gid_valid, 1);
	assert_false(g.sgid_present);
	assert_int_equal(g.pkey_table_len, 1);
	assert_int_equal(g.ports, 1);
	/* the populated entries with their attributes */
	assert_true(g.have_gids);
	assert_int_equal(g.gids.populated, 1);
	assert_int_equal(g.gids.len, 2);
	assert_string_equal(g.gids.e[0].text, "fe80::e064:6ff:fe1f:16b6");
	assert_string_equal(g.gids.e[0].type, "RoCE v2");
	assert_int_equal(g.gids.e[0].roce_version, 2);
	assert_string_equal(g.gids.e[0].netdev, "dummy0");
	assert_null(gid_table_entry(&g.gids, 1));

	ev = ev_of(MRT_OP_FD_IMPORT, EPERM, "");
	gates_collect(root, 4242, &ev, &g);
	assert_true(g.have_fd);
	assert_int_equal(g.seccomp_mode, 2);
	assert_int_equal(g.yama_scope, 1);
	assert_false(g.cap_sys_ptrace);

	/* a device name that tries to leave sysfs is not followed */
	ev = ev_of(MRT_OP_MODIFY_QP, EINVAL, "..");
	gates_collect(root, 4242, &ev, &g);
	assert_false(g.have_port);

	char cmd[1100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	struct mrt_event ev = ev_of(MRT_OP_MODIFY_QP, ENODATA, "rxe0"), back;
	struct gate_facts g = no_gates(), g2;
	char err[256];

	ev.op_cmd = 26;
	for (int i = 0; i < 8; i++)
		ev.op_args[i] = 100 + i;
	ev.op_limits[3] = 1;
	g.have_port = true;
	snprintf(g.device, sizeof(g.device), "rxe0");
	snprintf(g.port_state, sizeof(g.port_state), "4: ACTIVE");
	g.port_active = true;
	g.gid_table_len = 16;
	g.gid_valid = 2;

	struct report r;
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	struct json_object *o = record_report_json(&r), *x;
	assert_true(json_object_object_get_ex(o, "event", &x));
	assert_string_equal(json_object_get_string(x), "failure");
	assert_true(json_object_object_get_ex(o, "op", &x));
	assert_string_equal(json_object_get_string(x), "modify_qp");
	assert_true(json_object_object_get_ex(o, "class", &x));
	assert_string_equal(json_object_get_string(x), "infiniband");
	assert_int_equal(record_raw_from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back.op, ev.op);
	assert_int_equal(back.op_cmd, 26);
	assert_memory_equal(back.op_args, ev.op_args, sizeof(ev.op_args));
	assert_string_equal(back.op_name, "rxe0");
	assert_true(record_gates_from_json(o, &g2));
	assert_true(g2.have_port && g2.port_active);
	assert_int_equal(g2.gid_table_len, 16);
	assert_false(g2.have_gids);
	json_object_put(o);

	/* the GID entries come back as they were written */
	g = roce_port();
	ev.op_args[6] = 0;
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	o = record_report_json(&r);
	assert_true(record_gates_from_json(o, &g2));
	assert_true(g2.have_gids);
	assert_int_equal(g2.gids.n, 2);
	assert_int_equal(g2.gids.e[1].index, 1);
	assert_memory_equal(g2.gids.e[1].raw, g.gids.e[1].raw, 16);
	assert_string_equal(g2.gids.e[1].type, "RoCE v2");
	assert_int_equal(g2.gids.e[1].roce_version, 2);
	assert_string_equal(g2.gids.e[1].netdev, "dummy0");
	json_object_put(o);

	/* a wrong type in the record is refused with the member's name */
	struct json_object *bad = json_tokener_parse(
		"{\"raw\":{\"kind\":5,\"pid\":1,\"tid\":1,\"uid\":0,\"ts_ns\":0,\"cgroup_id\":0,"
		"\"userns_inum\":0,\"userns_level\":0,\"err\":1,\"opener\":0,\"cmd_start\":0,"
		"\"cmd_length\":0,\"cmd_iova\":0,\"cmd_access\":0,\"cmd_valid\":0,\"dmabuf_fd\":-1,"
		"\"nsteps\":0,\"sys_len\":0,\"sys_arg\":0,\"sysno\":0,\"ml\":{\"limit_cur\":0,"
		"\"limit_max\":0,\"pinned_pages_before\":0,\"locked_pages\":0,\"requested_pages\":0,"
		"\"addr\":0,\"len\":0,\"access\":0,\"valid\":0,\"cap_checked\":0,\"cap_result\":0,"
		"\"live_mrs\":0,\"live_pages\":0},\"steps\":[],\"op\":6,\"op_args\":\"x\"}}");
	assert_non_null(bad);
	assert_int_equal(record_raw_from_json(bad, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "op_args"));
	json_object_put(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_device_gates),
		cmocka_unit_test(test_objects_against_device_maxima),
		cmocka_unit_test(test_rdma_cgroup_for_objects),
		cmocka_unit_test(test_modify_qp),
		cmocka_unit_test(test_roce_without_grh),
		cmocka_unit_test(test_gid_unreachable),
		cmocka_unit_test(test_shm_and_fd),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_gates_collect_tree),
		cmocka_unit_test(test_json_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
