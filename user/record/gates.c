// SPDX-License-Identifier: GPL-2.0-only
/* gates.c - the JSON of "failure" records (docs/json.md): the op's
 * arguments and limits in "raw" and back, and the gate facts as evidence
 * and back, so a recorded failure replays to the same verdict. */
#include "record/parts.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/explain.h"
#include "verdict/remote_addr.h"
#include "proc/facts_json.h"

/* here an empty string is no value: null */
static void put_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

void gates_raw_add(struct json_object *raw, const struct mrt_event *ev)
{
	struct json_object *a, *l;

	if (!ev->op)
		return;
	a = json_object_new_array();
	l = json_object_new_array();
	jput_u64(raw, "op", ev->op);
	jput_u64(raw, "op_cmd", ev->op_cmd);
	for (int i = 0; i < 8; i++)
		json_object_array_add(a, json_object_new_uint64(ev->op_args[i]));
	for (int i = 0; i < 4; i++)
		json_object_array_add(l, json_object_new_uint64(ev->op_limits[i]));
	json_object_object_add(raw, "op_args", a);
	json_object_object_add(raw, "op_limits", l);
	json_object_object_add(raw, "op_name", json_object_new_string(ev->op_name));
}

static int u64_array(struct json_object *raw, const char *k, unsigned long long *out, size_t n,
		     char *err, size_t errlen)
{
	struct json_object *a;
	if (!json_object_object_get_ex(raw, k, &a))
		return 0;
	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) > n) {
		snprintf(err, errlen, "raw.%s: expected an array of at most %zu numbers", k, n);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *x = json_object_array_get_idx(a, i);
		if (!json_object_is_type(x, json_type_int)) {
			snprintf(err, errlen, "raw.%s[%zu]: not a number", k, i);
			return -1;
		}
		out[i] = json_object_get_uint64(x);
	}
	return 0;
}

int gates_raw_read(struct json_object *raw, struct mrt_event *ev, char *err, size_t errlen)
{
	struct json_object *x;

	if (json_object_object_get_ex(raw, "op", &x)) {
		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0 ||
		    json_object_get_int64(x) >= MRT_OP_MAX) {
			snprintf(err, errlen, "raw.op: not an operation number (0..%d)", MRT_OP_MAX - 1);
			return -1;
		}
		ev->op = (unsigned)json_object_get_int64(x);
	}
	if (json_object_object_get_ex(raw, "op_cmd", &x) && json_object_is_type(x, json_type_int))
		ev->op_cmd = (unsigned)json_object_get_int64(x);
	if (u64_array(raw, "op_args", ev->op_args, 8, err, errlen) ||
	    u64_array(raw, "op_limits", ev->op_limits, 4, err, errlen))
		return -1;
	if (json_object_object_get_ex(raw, "op_name", &x) && json_object_is_type(x, json_type_string))
		jcopy_str(ev->op_name, sizeof(ev->op_name), json_object_get_string(x));
	return 0;
}

/* evidence.gates.device_cgroup, both ways */
static const struct {
	enum gate_devcg v;
	const char *name;
} devcg_names[] = {
	{ GATE_DEVCG_NONE, "none" },
	{ GATE_DEVCG_BPF, "bpf_program" },
	{ GATE_DEVCG_V1_DENY, "v1_deny" },
	{ GATE_DEVCG_V1_ALLOW, "v1_allow" },
	{ GATE_DEVCG_UNKNOWN, "unknown" },
};
#define NDEVCG (sizeof(devcg_names) / sizeof(devcg_names[0]))

static const char *devcg_name(enum gate_devcg d)
{
	for (size_t i = 0; i < NDEVCG; i++)
		if (devcg_names[i].v == d)
			return devcg_names[i].name;
	return "unknown";
}

static enum gate_devcg devcg_from_name(const char *s)
{
	for (size_t i = 0; i < NDEVCG; i++)
		if (!strcmp(devcg_names[i].name, s))
			return devcg_names[i].v;
	return GATE_DEVCG_UNKNOWN;
}

/* evidence.gates.gids: the populated entries of the port, each with what
 * the kernel says of it */
static struct json_object *gids_to_json(const struct gid_table *t)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < t->n; i++) {
		const struct gid_entry *e = &t->e[i];
		struct json_object *o;
		if (!e->populated)
			continue;
		o = json_object_new_object();
		jput_i64(o, "index", e->index);
		put_str(o, "gid", e->text);
		put_str(o, "type", e->type);
		put_str(o, "netdev", e->netdev);
		json_object_array_add(a, o);
	}
	return a;
}

static void gids_from_json(struct json_object *a, struct gid_table *t)
{
	for (size_t i = 0; i < json_object_array_length(a) && t->n < GID_TABLE_MAX; i++) {
		struct json_object *o = json_object_array_get_idx(a, i), *x;
		struct gid_entry *e = &t->e[t->n];
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, "index", &x) || !json_object_is_type(x, json_type_int))
			continue;
		memset(e, 0, sizeof(*e));
		e->index = (int)json_object_get_int64(x);
		if (json_object_object_get_ex(o, "gid", &x) && json_object_is_type(x, json_type_string) &&
		    inet_pton(AF_INET6, json_object_get_string(x), e->raw) == 1)
			snprintf(e->text, sizeof(e->text), "%s", json_object_get_string(x));
		e->populated = true;
		if (json_object_object_get_ex(o, "type", &x) && json_object_is_type(x, json_type_string))
			snprintf(e->type, sizeof(e->type), "%s", json_object_get_string(x));
		e->roce_version = strstr(e->type, "v2") ? 2 : strstr(e->type, "v1") ? 1 : 0;
		if (json_object_object_get_ex(o, "netdev", &x) && json_object_is_type(x, json_type_string))
			snprintf(e->netdev, sizeof(e->netdev), "%s", json_object_get_string(x));
		t->n++;
		t->populated++;
	}
}

static struct json_object *gates_to_json(const struct gate_facts *g)
{
	struct json_object *o = json_object_new_object();

	if (g->node_path[0] && !g->have_node)
		put_str(o, "node", g->node_path); /* named, but not looked at: the process had gone */
	if (g->have_node) {
		put_str(o, "node", g->node_path);
		jput_bool(o, "node_exists", g->node_exists);
		if (g->node_exists) {
			char mode[8];
			snprintf(mode, sizeof(mode), "%04o", g->node_mode);
			put_str(o, "node_mode", mode);
			jput_u64(o, "node_uid", g->node_uid);
			jput_u64(o, "node_gid", g->node_gid);
			jput_u64(o, "node_major", g->node_major);
			jput_u64(o, "node_minor", g->node_minor);
			jput_bool(o, "node_is_char_device", g->node_is_chr);
		}
		jput_bool(o, "mode_allows_rw", g->mode_allows_rw);
		if (g->have_char_alias)
			jput_bool(o, "char_alias_exists", g->char_alias_exists);
		jput_u64(o, "process_uid", g->proc_uid);
		put_str(o, "device_cgroup", devcg_name(g->devcg));
		put_str(o, "device_cgroup_detail", g->devcg_detail);
	}
	if (g->have_port) {
		put_str(o, "device", g->device);
		jput_u64(o, "port", g->port);
		put_str(o, "port_state", g->port_state);
		jput_bool(o, "port_active", g->port_active);
		put_str(o, "link_layer", g->link_layer);
		jput_i64(o, "gid_table_len", g->gid_table_len);
		jput_i64(o, "gids_valid", g->gid_valid);
		jput_bool(o, "sgid_present", g->sgid_present);
		jput_i64(o, "pkey_table_len", g->pkey_table_len);
		jput_i64(o, "ports", g->ports);
		if (g->have_gids)
			json_object_object_add(o, "gids", gids_to_json(&g->gids));
		if (g->host_netns)
			jput_u64(o, "host_netns", g->host_netns);
	}
	if (g->have_counts) {
		jput_i64(o, "device_pds", g->dev_pd);
		jput_i64(o, "device_cqs", g->dev_cq);
		jput_i64(o, "device_qps", g->dev_qp);
		jput_i64(o, "device_mrs", g->dev_mr);
		jput_i64(o, "process_pds", g->proc_pd);
		jput_i64(o, "process_cqs", g->proc_cq);
		jput_i64(o, "process_qps", g->proc_qp);
	}
	if (g->have_shm) {
		put_str(o, "shm_mount", g->shm_mount);
		jput_u64(o, "shm_size_bytes", g->shm_size);
		jput_u64(o, "shm_used_bytes", g->shm_used);
		jput_u64(o, "shm_free_bytes", g->shm_avail);
	}
	if (g->have_fd) {
		jput_i64(o, "seccomp_mode", g->seccomp_mode);
		jput_i64(o, "yama_ptrace_scope", g->yama_scope);
		jput_bool(o, "cap_sys_ptrace", g->cap_sys_ptrace);
		jput_i64(o, "target_pid", g->target_pid);
		if (g->target_pid > 0) {
			jput_u64(o, "target_uid", g->target_uid);
			jput_bool(o, "target_same_uid", g->target_same_uid);
		}
	}
	if (g->have_rdmacg) {
		put_str(o, "rdma_cgroup", g->rdmacg_path);
		put_str(o, "rdma_max", g->rdma_max);
		put_str(o, "rdma_current", g->rdma_current);
	}
	return o;
}

/* ---- back from JSON: every member optional, wrong types refused ----------- */

static bool has(struct json_object *o, const char *k, enum json_type t, struct json_object **x)
{
	return json_object_object_get_ex(o, k, x) && json_object_is_type(*x, t);
}

static void get_s(struct json_object *o, const char *k, char *dst, size_t len)
{
	struct json_object *x;
	if (has(o, k, json_type_string, &x))
		jcopy_str(dst, len, json_object_get_string(x));
}

static long long get_i(struct json_object *o, const char *k, long long def)
{
	struct json_object *x;
	return has(o, k, json_type_int, &x) ? json_object_get_int64(x) : def;
}

static bool get_b(struct json_object *o, const char *k)
{
	struct json_object *x;
	return has(o, k, json_type_boolean, &x) && json_object_get_boolean(x);
}

static bool gates_from_json(struct json_object *o, struct gate_facts *g)
{
	struct json_object *x;
	char mode[16] = "", dc[32] = "";

	memset(g, 0, sizeof(*g));
	g->seccomp_mode = g->yama_scope = g->target_pid = -1;
	if (!o || !json_object_is_type(o, json_type_object))
		return false;
	get_s(o, "node", g->node_path, sizeof(g->node_path));
	if (has(o, "node_exists", json_type_boolean, &x)) {
		g->have_node = true;
		g->node_exists = json_object_get_boolean(x);
		get_s(o, "node", g->node_path, sizeof(g->node_path));
		get_s(o, "node_mode", mode, sizeof(mode));
		g->node_mode = (unsigned)strtoul(mode, NULL, 8);
		g->node_uid = (unsigned)get_i(o, "node_uid", 0);
		g->node_gid = (unsigned)get_i(o, "node_gid", 0);
		g->node_major = (unsigned)get_i(o, "node_major", 0);
		g->node_minor = (unsigned)get_i(o, "node_minor", 0);
		g->node_is_chr = get_b(o, "node_is_char_device");
		g->mode_allows_rw = get_b(o, "mode_allows_rw");
		if (json_object_object_get_ex(o, "char_alias_exists", NULL)) {
			g->have_char_alias = true;
			g->char_alias_exists = get_b(o, "char_alias_exists");
		}
		g->proc_uid = (unsigned)get_i(o, "process_uid", 0);
		get_s(o, "device_cgroup", dc, sizeof(dc));
		g->devcg = devcg_from_name(dc);
		get_s(o, "device_cgroup_detail", g->devcg_detail, sizeof(g->devcg_detail));
	}
	if (has(o, "port_state", json_type_string, &x)) {
		g->have_port = true;
		get_s(o, "device", g->device, sizeof(g->device));
		g->port = (unsigned)get_i(o, "port", 1);
		get_s(o, "port_state", g->port_state, sizeof(g->port_state));
		g->port_active = get_b(o, "port_active");
		get_s(o, "link_layer", g->link_layer, sizeof(g->link_layer));
		g->gid_table_len = (int)get_i(o, "gid_table_len", -1);
		g->gid_valid = (int)get_i(o, "gids_valid", -1);
		g->sgid_present = get_b(o, "sgid_present");
		g->pkey_table_len = (int)get_i(o, "pkey_table_len", -1);
		g->ports = (int)get_i(o, "ports", -1);
		g->host_netns = (unsigned long)get_i(o, "host_netns", 0);
		if (has(o, "gids", json_type_array, &x)) {
			g->have_gids = true;
			snprintf(g->gids.device, sizeof(g->gids.device), "%s", g->device);
			g->gids.port = g->port;
			snprintf(g->gids.link_layer, sizeof(g->gids.link_layer), "%s", g->link_layer);
			g->gids.len = g->gid_table_len;
			gids_from_json(x, &g->gids);
		}
	}
	if (has(o, "device_qps", json_type_int, &x)) {
		g->have_counts = true;
		g->dev_pd = (long)get_i(o, "device_pds", -1);
		g->dev_cq = (long)get_i(o, "device_cqs", -1);
		g->dev_qp = (long)get_i(o, "device_qps", -1);
		g->dev_mr = (long)get_i(o, "device_mrs", -1);
		g->proc_pd = (long)get_i(o, "process_pds", -1);
		g->proc_cq = (long)get_i(o, "process_cqs", -1);
		g->proc_qp = (long)get_i(o, "process_qps", -1);
	}
	if (has(o, "shm_size_bytes", json_type_int, &x)) {
		g->have_shm = true;
		get_s(o, "shm_mount", g->shm_mount, sizeof(g->shm_mount));
		g->shm_size = (uint64_t)get_i(o, "shm_size_bytes", 0);
		g->shm_used = (uint64_t)get_i(o, "shm_used_bytes", 0);
		g->shm_avail = (uint64_t)get_i(o, "shm_free_bytes", 0);
	}
	if (has(o, "seccomp_mode", json_type_int, &x)) {
		g->have_fd = true;
		g->seccomp_mode = (int)json_object_get_int64(x);
		g->yama_scope = (int)get_i(o, "yama_ptrace_scope", -1);
		g->cap_sys_ptrace = get_b(o, "cap_sys_ptrace");
		g->target_pid = (int)get_i(o, "target_pid", -1);
		g->target_uid = (unsigned)get_i(o, "target_uid", 0);
		g->target_same_uid = get_b(o, "target_same_uid");
	}
	if (has(o, "rdma_max", json_type_string, &x)) {
		g->have_rdmacg = true;
		get_s(o, "rdma_cgroup", g->rdmacg_path, sizeof(g->rdmacg_path));
		get_s(o, "rdma_max", g->rdma_max, sizeof(g->rdma_max));
		get_s(o, "rdma_current", g->rdma_current, sizeof(g->rdma_current));
	}
	return g->have_node || g->have_port || g->have_shm || g->have_fd || g->have_rdmacg;
}

/* evidence.remote: the RoCE address the kernel could not resolve (written
 * only; a replay re-reads it from the raw step) */
static void remote_addr_evidence_add(struct json_object *e, const struct mrt_event *ev)
{
	struct remote_addr r;
	struct json_object *o;

	if (!remote_addr_of(ev, &r))
		return;
	o = json_object_new_object();
	put_str(o, "gid", r.gid_text);
	put_str(o, "ip", r.ip);
	put_str(o, "netdev", r.netdev);
	jput_u64(o, "ifindex", r.ifindex);
	jput_u64(o, "netns", r.netns);
	put_str(o, "errno_name", errno_name(r.err));
	put_str(o, "route", r.route);
	put_str(o, "neighbour", r.neighbour);
	json_object_object_add(e, "remote", o);
}

void gates_evidence_add(struct json_object *e, const struct mrt_event *ev,
			  const struct gate_facts *g)
{
	static const char *const arg_names[MRT_OP_MAX][8] = {
		[MRT_OP_CREATE_CQ] = { "cqe" },
		[MRT_OP_CREATE_QP] = { "max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge",
				       "qp_type" },
		[MRT_OP_CREATE_AH] = { NULL, NULL, "port", "sgid_index", NULL, NULL, "is_global" },
		[MRT_OP_MODIFY_QP] = { "attr_mask", "qp_state", "port", "sgid_index", "pkey_index",
				       "path_mtu", "is_global", "cur_qp_state" },
		[MRT_OP_SHM_ALLOC] = { "offset", "length", "mode" },
		[MRT_OP_FD_IMPORT] = { "pidfd", "target_fd" },
	};
	static const char *const lim_names[MRT_OP_MAX][4] = {
		[MRT_OP_ALLOC_PD] = { "max_pd" },
		[MRT_OP_CREATE_CQ] = { "max_cqe", "max_cq" },
		[MRT_OP_CREATE_QP] = { "max_qp_wr", "max_qp", "max_sge" },
		[MRT_OP_MODIFY_QP] = { NULL, NULL, NULL, "device_ports" },
		[MRT_OP_SHM_ALLOC] = { "tmpfs_size_pages", "tmpfs_used_pages", "inode" },
	};
	if (ev->op >= MRT_OP_MAX)
		return;
	if (ev->op_name[0])
		put_str(e, ev->op == MRT_OP_OPEN_DEVICE ? "uverbs_node" : "device", ev->op_name);
	for (int i = 0; i < 8; i++)
		if (arg_names[ev->op][i])
			jput_u64(e, arg_names[ev->op][i], ev->op_args[i]);
	for (int i = 0; i < 4; i++)
		if (lim_names[ev->op][i] && ev->op_limits[i])
			jput_u64(e, lim_names[ev->op][i], ev->op_limits[i]);
	remote_addr_evidence_add(e, ev);
	if (g)
		json_object_object_add(e, "gates", gates_to_json(g));
}

bool record_gates_from_json(struct json_object *obj, struct gate_facts *g)
{
	struct json_object *e, *x;
	bool found = json_object_object_get_ex(obj, "evidence", &e) &&
				     json_object_object_get_ex(e, "gates", &x)
			     ? gates_from_json(x, g)
			     : gates_from_json(NULL, g);
	return facts_evidence_read(obj, g) || found;
}
