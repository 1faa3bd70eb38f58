// SPDX-License-Identifier: GPL-2.0-only
/* gates.c - the facts behind a refused verbs operation (see gates.h).
 *
 * Everything is read as the process sees it: its device node through
 * /proc/PID/root (a container has its own /dev), its cgroup from
 * /proc/PID/cgroup, its credentials from /proc/PID/status.  Sysfs port
 * facts are the node's (ports are not namespaced).
 *
 * Length: over the usual 500 lines: one small reader per gate (device
 * cgroup, node, port, counts, /dev/shm, descriptors, rdma cgroup; GPU
 * memory and CMA pageblocks have their own files), each
 * read only for the refusal that needs it, all under the same root and
 * helpers; split by gate they would share everything but their names. */
#include "proc/gates.h"
#include "proc/rdmacg_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/procfs.h"
#include "proc/context.h"
#include "proc/rdmares_res.h"

#define CAP_SYS_PTRACE_BIT 19

/* The value of "Key:" in /proc/PID/status, or NULL. */
static const char *status_field(const char *status, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	for (const char *l = status; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ':') {
			const char *v = l + kl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t n = strcspn(v, "\n");
			if (n >= len)
				n = len - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			return buf;
		}
	return NULL;
}

static long read_rel(const char *root, int pid, const char *rel, char *buf, size_t len)
{
	char path[512];
	if (procfs_path(path, sizeof(path), root, pid, rel))
		return -ENAMETOOLONG;
	return procfs_read(path, buf, len);
}

/* Whether mode bits let (uid, gid, groups) read and write the node. */
static bool mode_rw(unsigned mode, unsigned nuid, unsigned ngid, unsigned uid, unsigned gid,
		    const char *groups)
{
	if (uid == 0)
		return true; /* CAP_DAC_OVERRIDE; a root without it is rare enough */
	if (uid == nuid)
		return (mode & 0600) == 0600;
	bool member = gid == ngid;
	for (const char *g = groups; g && *g && !member;) {
		char *end;
		unsigned long v = strtoul(g, &end, 10);
		if (end == g)
			break;
		member = v == ngid;
		g = end;
	}
	if (member)
		return (mode & 0060) == 0060;
	return (mode & 0006) == 0006;
}

/* Where cgroup v2 is mounted under root: root/sys/fs/cgroup or .../unified. */
static void cgroup2_dir(const char *root, const char *rel, char *buf, size_t len)
{
	char probe[512];
	snprintf(probe, sizeof(probe), "%s/sys/fs/cgroup/unified/cgroup.controllers",
		 strcmp(root, "/") ? root : "");
	if (!access(probe, F_OK))
		snprintf(buf, len, "%s/sys/fs/cgroup/unified%s", strcmp(root, "/") ? root : "", rel);
	else
		snprintf(buf, len, "%s/sys/fs/cgroup%s", strcmp(root, "/") ? root : "", rel);
}

/* Count of BPF device programs in effect for a cgroup v2 directory, -1 when
 * the kernel cannot be asked (not root, no bpf()). */
static int devcg_programs(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.query.target_fd = fd;
	a.query.attach_type = BPF_CGROUP_DEVICE;
	a.query.query_flags = BPF_F_QUERY_EFFECTIVE;
	long rc = syscall(__NR_bpf, BPF_PROG_QUERY, &a, sizeof(a));
	close(fd);
	return rc ? -1 : (int)a.query.prog_cnt;
}

/* /proc/PID/cgroup; for a process that has exited, its cgroup v2 line made
 * from the record's cgroup id. */
static long read_cgroup(const char *root, int pid, const struct mrt_event *ev, char *cg, size_t len)
{
	char rel[512];
	long n = read_rel(root, pid, "cgroup", cg, len);
	if (n > 0)
		return n;
	if (!ev->cgroup_id || proc_cgroup_path_by_id(root, ev->cgroup_id, rel, sizeof(rel)))
		return -ENOENT;
	return snprintf(cg, len, "0::%s\n", rel);
}

static void devcg_facts(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *f)
{
	char cg[4096];
	if (read_cgroup(root, pid, ev, cg, sizeof(cg)) <= 0)
		return;
	for (char *l = cg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		if (!strncmp(c1 + 1, "devices:", 8)) {
			char path[1024], list[4096];
			snprintf(path, sizeof(path), "%s/sys/fs/cgroup/devices%s/devices.list",
				 strcmp(root, "/") ? root : "", c2 + 1);
			if (procfs_read(path, list, sizeof(list)) > 0) {
				bool ok = strstr(list, "a *:* rwm") || strstr(list, "c 231:* rw") ||
					  strstr(list, "c *:* rw");
				f->devcg = ok ? GATE_DEVCG_V1_ALLOW : GATE_DEVCG_V1_DENY;
				snprintf(f->devcg_detail, sizeof(f->devcg_detail),
					 "devices cgroup %.200s %s char 231 (uverbs)", c2 + 1,
					 ok ? "allows" : "does not allow");
				return;
			}
		}
		if (c1 == l + 1 && l[0] == '0' && c2 == c1 + 1) {
			char dir[1024];
			cgroup2_dir(root, c2 + 1, dir, sizeof(dir));
			int n = devcg_programs(dir);
			if (n > 0) {
				f->devcg = GATE_DEVCG_BPF;
				snprintf(f->devcg_detail, sizeof(f->devcg_detail),
					 "%d BPF device program%s in effect for cgroup %.180s", n,
					 n == 1 ? "" : "s", c2 + 1);
			} else if (n == 0) {
				f->devcg = GATE_DEVCG_NONE;
				snprintf(f->devcg_detail, sizeof(f->devcg_detail),
					 "no device program in effect for cgroup %.180s", c2 + 1);
			}
		}
		if (nl)
			*nl = '\n';
	}
}

static bool process_gone(const char *root, int pid)
{
	char path[512];
	struct stat st;
	return procfs_path(path, sizeof(path), root, pid, "root") || stat(path, &st);
}

/* The mount namespace this mrtrace runs in. */
static unsigned int own_mntns(void)
{
	struct stat st;
	return stat("/proc/self/ns/mnt", &st) ? 0 : (unsigned int)st.st_ino;
}

/* What node_facts found of the node and the process, forgotten again: the
 * process exited while they were read, and they are read once more as of
 * a gone process. */
static void node_facts_clear(struct gate_facts *f)
{
	f->have_node = f->node_exists = f->node_seen_from_host = f->node_is_chr = false;
	f->node_mode = f->node_uid = f->node_gid = f->node_major = f->node_minor = 0;
	f->mode_allows_rw = f->have_char_alias = f->char_alias_exists = false;
	f->proc_uid = 0;
}

static void node_facts_as(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *f,
			  bool gone);

/* The process's node and its own view of it.  A process that exits while
 * they are read (ibv_devinfo does at once) loses its /proc/PID/root under
 * the stat, or its status after it: that is not a missing node, nor a
 * mode that refuses it, and the facts are read again as of a gone
 * process (seen from here when it shared our /dev).  Seen on 6.12 in
 * failures:devcg, which a missing node turned into device_missing. */
static void node_facts(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *f)
{
	node_facts_as(root, pid, ev, f, process_gone(root, pid));
}

static void node_facts_as(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *f,
			  bool gone)
{
	char rel[160], path[512], status[4096], v[256], first[64] = "";
	const char *name = ev->op_name;

	if (!name[0] || strchr(name, '/') || name[0] == '.') {
		/* no device named (none was listed): the node's first uverbs device */
		char dir[512];
		snprintf(dir, sizeof(dir), "%s/sys/class/infiniband_verbs", strcmp(root, "/") ? root : "");
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "uverbs", 6) && (!first[0] || strcmp(e->d_name, first) < 0))
				snprintf(first, sizeof(first), "%.60s", e->d_name);
		if (d)
			closedir(d);
		if (!first[0]) {
			f->no_uverbs_on_node = true;
			return;
		}
		name = first;
	}

	snprintf(f->node_path, sizeof(f->node_path), "/dev/infiniband/%.60s", name);
	if (gone) {
		/* its /dev is gone with it, unless it was the one we see too */
		if (!ev->mntns_inum || ev->mntns_inum != own_mntns()) {
			devcg_facts(root, pid, ev, f);
			return;
		}
		f->node_seen_from_host = true;
		snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "", f->node_path);
	} else {
		snprintf(rel, sizeof(rel), "root%s", f->node_path);
		if (procfs_path(path, sizeof(path), root, pid, rel))
			return;
	}
	f->have_node = true;
	struct stat st;
	if (stat(path, &st)) {
		if (!gone && process_gone(root, pid)) {
			node_facts_clear(f);
			node_facts_as(root, pid, ev, f, true);
			return;
		}
		f->node_exists = false;
	} else {
		f->node_exists = true;
		f->node_is_chr = S_ISCHR(st.st_mode);
		f->node_mode = st.st_mode & 07777;
		f->node_uid = st.st_uid;
		f->node_gid = st.st_gid;
		f->node_major = major(st.st_rdev);
		f->node_minor = minor(st.st_rdev);
		/* the alias beside it, in the same root: lstat only (a link is
		 * what udev makes; nothing the process named is opened) */
		char alias[64];
		snprintf(alias, sizeof(alias), "/dev/char/%u:%u", f->node_major, f->node_minor);
		size_t pl = strlen(path), nl = strlen(f->node_path), at = pl - nl;
		if (pl >= nl && !strcmp(path + at, f->node_path) && at + strlen(alias) < sizeof(path)) {
			snprintf(path + at, sizeof(path) - at, "%s", alias);
			f->have_char_alias = true;
			f->char_alias_exists = !lstat(path, &st);
		}
	}
	if (f->node_seen_from_host) {
		/* the record's uid; its groups went with the process */
		f->proc_uid = ev->uid;
		f->mode_allows_rw = f->node_exists &&
				    mode_rw(f->node_mode, f->node_uid, f->node_gid, ev->uid, (unsigned)-1, NULL);
	} else if (read_rel(root, pid, "status", status, sizeof(status)) > 0) {
		unsigned u[4] = { 0 }, g[4] = { 0 };
		if (status_field(status, "Uid", v, sizeof(v)))
			sscanf(v, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]);
		if (status_field(status, "Gid", v, sizeof(v)))
			sscanf(v, "%u %u %u %u", &g[0], &g[1], &g[2], &g[3]);
		char groups[256] = "";
		status_field(status, "Groups", groups, sizeof(groups));
		f->proc_uid = u[1];
		/* open(2) checks the filesystem uid and gid */
		f->mode_allows_rw = f->node_exists &&
				    mode_rw(f->node_mode, f->node_uid, f->node_gid, u[3], g[3], groups);
	} else if (process_gone(root, pid)) {
		node_facts_clear(f);
		node_facts_as(root, pid, ev, f, true);
		return;
	}
	devcg_facts(root, pid, ev, f);
}

static long sysfs_read(const char *root, const char *rel, char *buf, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s", strcmp(root, "/") ? root : "", rel);
	long n = procfs_read(path, buf, len);
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	return n;
}

static bool gid_nonzero(const char *g)
{
	for (; *g; g++)
		if (*g != '0' && *g != ':' && *g != '\n')
			return true;
	return false;
}

static int count_dir(const char *root, const char *rel, bool (*keep)(const char *root, const char *rel,
								       const char *name, void *arg),
		     void *arg)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s", strcmp(root, "/") ? root : "", rel);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && (!keep || keep(root, rel, e->d_name, arg)))
			n++;
	closedir(d);
	return n;
}

static bool gid_valid(const char *root, const char *rel, const char *name, void *arg)
{
	(void)arg;
	char r[256], g[128];
	snprintf(r, sizeof(r), "%s/%s", rel, name);
	return sysfs_read(root, r, g, sizeof(g)) > 0 && gid_nonzero(g);
}

static unsigned long ns_of(const char *root, int pid, const char *rel);

static void port_facts(const char *root, const struct mrt_event *ev, struct gate_facts *f)
{
	char rel[256], buf[128];
	unsigned port = ev->op_args[2] ? (unsigned)ev->op_args[2] : 1;

	if (!ev->op_name[0] || strchr(ev->op_name, '/') || !strcmp(ev->op_name, ".."))
		return;
	snprintf(f->device, sizeof(f->device), "%s", ev->op_name);
	f->port = port;
	snprintf(rel, sizeof(rel), "%s/ports", f->device);
	f->ports = count_dir(root, rel, NULL, NULL);
	snprintf(rel, sizeof(rel), "%s/ports/%u/state", f->device, port);
	if (sysfs_read(root, rel, f->port_state, sizeof(f->port_state)) <= 0)
		return;
	f->have_port = true;
	f->port_active = !strcmp(gates_port_state_name(f->port_state), "ACTIVE");
	snprintf(rel, sizeof(rel), "%s/ports/%u/link_layer", f->device, port);
	sysfs_read(root, rel, f->link_layer, sizeof(f->link_layer));
	snprintf(rel, sizeof(rel), "%s/ports/%u/gids", f->device, port);
	f->gid_table_len = count_dir(root, rel, NULL, NULL);
	f->gid_valid = count_dir(root, rel, gid_valid, NULL);
	snprintf(rel, sizeof(rel), "%s/ports/%u/gids/%llu", f->device, port,
		 (unsigned long long)ev->op_args[3]);
	f->sgid_present = sysfs_read(root, rel, buf, sizeof(buf)) > 0 && gid_nonzero(buf);
	snprintf(rel, sizeof(rel), "%s/ports/%u/pkeys", f->device, port);
	f->pkey_table_len = count_dir(root, rel, NULL, NULL);
	if (ev->op == MRT_OP_MODIFY_QP || ev->op == MRT_OP_CREATE_AH) {
		f->have_gids = !gid_table_read(root, f->device, port, &f->gids);
		f->host_netns = ns_of(root, 1, "ns/net");
	}
}

/* `rdma -j res show [TYPE]` as JSON (iproute2 reads the kernel's resource
 * tracking over RDMA netlink): the only count of verbs objects there is.
 * Failure path only; absent tool or netlink: NULL.  A burst of refused
 * verbs objects (an rdma cgroup limit hit by every rank of a job at once)
 * runs the tool once per type, not four times per failure in the loop
 * that drains the ring buffer, and never waits for it over
 * RDMARES_WAIT_S (proc/rdmares_res.h).  The caller owns the reference. */
static struct json_object *rdma_res(const char *type)
{
	const char *why;
	return rdmares_res(type ? type : "", &why);
}

static long member_long(struct json_object *o, const char *k)
{
	struct json_object *x;
	return json_object_object_get_ex(o, k, &x) && json_object_is_type(x, json_type_int)
		       ? (long)json_object_get_int64(x)
		       : -1;
}

/* Objects of one type held by pid on the device (the entries carry "pid"). */
static long proc_count(const char *type, const char *device, int pid)
{
	struct json_object *a = rdma_res(type);
	long n = 0;
	if (!a)
		return -1;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *x;
		if (member_long(e, "pid") == pid && json_object_object_get_ex(e, "ifname", &x) &&
		    !strcmp(json_object_get_string(x), device))
			n++;
	}
	json_object_put(a);
	return n;
}

static void count_facts(int pid, struct gate_facts *f)
{
	struct json_object *a = rdma_res(NULL);
	f->dev_pd = f->dev_cq = f->dev_qp = f->dev_mr = -1;
	f->proc_pd = f->proc_cq = f->proc_qp = -1;
	if (!a || !f->device[0]) {
		if (a)
			json_object_put(a);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *x;
		if (!json_object_object_get_ex(e, "ifname", &x) || strcmp(json_object_get_string(x), f->device))
			continue;
		f->have_counts = true;
		f->dev_pd = member_long(e, "pd");
		f->dev_cq = member_long(e, "cq");
		f->dev_qp = member_long(e, "qp");
		f->dev_mr = member_long(e, "mr");
	}
	json_object_put(a);
	if (f->have_counts) {
		f->proc_pd = proc_count("pd", f->device, pid);
		f->proc_cq = proc_count("cq", f->device, pid);
		f->proc_qp = proc_count("qp", f->device, pid);
	}
}

/* One mountinfo line: "36 35 0:31 / /dev/shm rw,nosuid shared:4 - tmpfs shm rw,size=65536k". */
struct mount_line {
	unsigned int dev;         /* major << 20 | minor, as the kernel's s_dev */
	char point[256], fstype[32], source[64], options[128];
};

static bool mount_parse(const char *l, struct mount_line *m)
{
	unsigned ma, mi;
	const char *dash = strstr(l, " - ");

	if (!dash || sscanf(l, "%*u %*u %u:%u %*s %255s", &ma, &mi, m->point) != 3)
		return false;
	m->dev = ma << 20 | mi;
	m->fstype[0] = m->source[0] = m->options[0] = '\0';
	sscanf(dash + 3, "%31s %63s %127s", m->fstype, m->source, m->options);
	return true;
}

/* The tmpfs pid 1's mount namespace has at /dev/shm: the host's own. */
static unsigned int host_shm_dev(const char *root)
{
	char info[16384];
	struct mount_line m;
	unsigned int dev = 0;

	if (read_rel(root, 1, "mountinfo", info, sizeof(info)) <= 0)
		return 0;
	for (char *l = info; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (mount_parse(l, &m) && !strcmp(m.point, "/dev/shm"))
			dev = m.dev; /* the last one mounted there is the one seen */
	return dev;
}

static unsigned long ns_of(const char *root, int pid, const char *rel)
{
	char path[512];
	struct stat st;

	if (procfs_path(path, sizeof(path), root, pid, rel) || stat(path, &st))
		return 0;
	return (unsigned long)st.st_ino;
}

static unsigned long mntns_of(const char *root, int pid)
{
	return ns_of(root, pid, "ns/mnt");
}

/* Whose tmpfs: the kernel named its superblock (s_dev), the host's
 * /dev/shm is the one of pid 1's mount namespace.  A process that has
 * exited leaves the device numbers to decide; its mount namespace and the
 * mount's source need it alive. */
static void shm_owner(const char *root, int pid, struct gate_facts *f)
{
	f->host_shm_dev = host_shm_dev(root);
	f->shm_mntns = mntns_of(root, pid);
	f->host_mntns = mntns_of(root, 1);
	if (f->shm_dev && f->host_shm_dev)
		f->shm_owner = f->shm_dev == f->host_shm_dev ? GATE_SHM_HOST : GATE_SHM_PRIVATE;
	else if (f->shm_mntns && f->host_mntns && f->shm_mntns != f->host_mntns)
		f->shm_owner = GATE_SHM_PRIVATE;
	else if (f->shm_mntns && f->shm_mntns == f->host_mntns && !strcmp(f->shm_mount, "/dev/shm"))
		f->shm_owner = GATE_SHM_HOST;
}

/* The mount of the tmpfs whose superblock the kernel named (lim3 = s_dev),
 * from the process's mountinfo; "/dev/shm" when it cannot be matched. */
static void shm_facts(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *f)
{
	char info[16384], rel[256], path[512];
	struct mount_line m;

	snprintf(f->shm_mount, sizeof(f->shm_mount), "/dev/shm");
	f->shm_dev = (unsigned int)ev->op_limits[3];
	if (ev->op_limits[3] && read_rel(root, pid, "mountinfo", info, sizeof(info)) > 0) {
		for (char *l = info; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (mount_parse(l, &m) && m.dev == f->shm_dev) {
				snprintf(f->shm_mount, sizeof(f->shm_mount), "%.120s", m.point);
				snprintf(f->shm_source, sizeof(f->shm_source), "%s", m.source);
				snprintf(f->shm_options, sizeof(f->shm_options), "%s", m.options);
				break;
			}
		}
	}
	shm_owner(root, pid, f);
	snprintf(rel, sizeof(rel), "root%s", f->shm_mount);
	if (procfs_path(path, sizeof(path), root, pid, rel))
		return;
	struct statfs s;
	if (statfs(path, &s))
		return;
	f->have_shm = true;
	f->shm_size = (uint64_t)s.f_blocks * (uint64_t)s.f_bsize;
	f->shm_avail = (uint64_t)s.f_bavail * (uint64_t)s.f_bsize;
	f->shm_used = f->shm_size - (uint64_t)s.f_bfree * (uint64_t)s.f_bsize;
}

static void fd_facts(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *f)
{
	char status[4096], v[128], rel[64], info[1024];

	f->seccomp_mode = -1;
	f->yama_scope = -1;
	f->target_pid = -1;
	if (read_rel(root, pid, "status", status, sizeof(status)) <= 0)
		return;
	f->have_fd = true;
	if (status_field(status, "Seccomp", v, sizeof(v)))
		f->seccomp_mode = atoi(v);
	if (status_field(status, "CapEff", v, sizeof(v)))
		f->cap_sys_ptrace = (strtoull(v, NULL, 16) >> CAP_SYS_PTRACE_BIT) & 1;
	unsigned uid = 0;
	if (status_field(status, "Uid", v, sizeof(v)))
		sscanf(v, "%*u %u", &uid);
	if (read_rel(root, -1, "proc/sys/kernel/yama/ptrace_scope", v, sizeof(v)) > 0)
		f->yama_scope = atoi(v);
	snprintf(rel, sizeof(rel), "fdinfo/%llu", (unsigned long long)ev->op_args[0]);
	if (read_rel(root, pid, rel, info, sizeof(info)) > 0 &&
	    status_field(info, "Pid", v, sizeof(v)))
		f->target_pid = atoi(v);
	if (f->target_pid > 0 && read_rel(root, f->target_pid, "status", status, sizeof(status)) > 0 &&
	    status_field(status, "Uid", v, sizeof(v))) {
		sscanf(v, "%*u %u", &f->target_uid);
		f->target_same_uid = f->target_uid == uid;
	}
}

static void rdmacg_facts(const char *root, int pid, const struct mrt_event *ev, const char *device,
			 struct gate_facts *f)
{
	char cg[4096], rel[GATE_TEXT_MAX];
	if (read_cgroup(root, pid, ev, cg, sizeof(cg)) <= 0)
		return;
	char *p = !strncmp(cg, "0::", 3) ? cg : strstr(cg, "\n0::");
	if (!p)
		return;
	p += p == cg ? 3 : 4;
	p[strcspn(p, "\n")] = 0;
	snprintf(rel, sizeof(rel), "%s", strcmp(p, "/") ? p : "");
	/* the nearest cgroup on the way up whose rdma.max limits the device */
	for (;;) {
		char dir[1024], path[1100], max[1024];
		cgroup2_dir(root, rel, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/rdma.max", dir);
		if (procfs_read(path, max, sizeof(max)) > 0) {
			for (char *l = max; *l;) {
				size_t n = strcspn(l, "\n");
				size_t dl = strlen(device);
				if ((!dl || (!strncmp(l, device, dl) && l[dl] == ' ')) && rdmacg_line_limits(l, n)) {
					f->have_rdmacg = true;
					snprintf(f->rdmacg_path, sizeof(f->rdmacg_path), "%s", rel[0] ? rel : "/");
					snprintf(f->rdma_max, sizeof(f->rdma_max), "%.*s", (int)n, l);
					snprintf(path, sizeof(path), "%s/rdma.current", dir);
					char cur[1024];
					if (procfs_read(path, cur, sizeof(cur)) > 0) {
						cur[strcspn(cur, "\n")] = 0;
						snprintf(f->rdma_current, sizeof(f->rdma_current), "%.250s", cur);
					}
					return;
				}
				l += n + (l[n] ? 1 : 0);
			}
		}
		char *slash = strrchr(rel, '/');
		if (!slash)
			return;
		*slash = 0;
	}
}

const char *gates_shm_owner_name(enum gate_shm_owner o)
{
	switch (o) {
	case GATE_SHM_HOST: return "host";
	case GATE_SHM_PRIVATE: return "private";
	default: return "unknown";
	}
}

const char *gates_port_state_name(const char *s)
{
	const char *c = strchr(s, ':');
	if (!c)
		return s;
	c++;
	while (*c == ' ')
		c++;
	return c;
}

/* A registration whose page pinning failed where the verdict can be
 * pin_migrate (verdict/registration.c): ENOMEM, or the migration for the
 * long-term pin in the trail, in a mapping that is neither device memory
 * nor hugetlb (those causes are decided first, without the node's CMA). */
static bool pin_may_migrate(const struct mrt_event *ev)
{
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;
	const struct mrt_step *pin = NULL;
	bool migrate = false;

	if (ev->kind != MRT_EV_REG_FAILURE)
		return false;
	for (int i = 0; i < n; i++) {
		if (!pin && ev->steps[i].site == MRT_SITE_PIN && ev->steps[i].ret < 0)
			pin = &ev->steps[i];
		migrate |= ev->steps[i].site == MRT_SITE_MIGRATE;
	}
	if (!pin)
		return false;
	/* 0x4000 VM_IO, 0x400 VM_PFNMAP, 0x400000 VM_HUGETLB */
	if (pin->a2 != MRT_VMA_UNKNOWN && pin->a2 != MRT_VMA_NONE && (pin->a2 & 0x404400))
		return false;
	return pin->ret == -ENOMEM || migrate;
}

const struct mrt_step *gates_pin_fsdax_step(const struct mrt_event *ev)
{
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;

	if (ev->kind != MRT_EV_REG_FAILURE)
		return NULL;
	for (int i = 0; i < n; i++) {
		const struct mrt_step *s = &ev->steps[i];
		if (s->site != MRT_SITE_PIN || s->ret >= 0)
			continue;
		/* the first failed pin decides (verdict/registration.c) */
		bool marked = s->a2 != MRT_VMA_UNKNOWN && s->a2 != MRT_VMA_NONE &&
			      (s->a2 & MRT_VMA_FSDAX);
		return marked && s->ret == -EOPNOTSUPP ? s : NULL;
	}
	return NULL;
}

bool gates_record_wants_facts(const struct mrt_event *ev)
{
	return ev->kind == MRT_EV_FAILURE || gpu_record_wants_facts(ev) || pin_may_migrate(ev) ||
	       gates_pin_fsdax_step(ev);
}

void gates_collect(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *out)
{
	memset(out, 0, sizeof(*out));
	out->seccomp_mode = -1;
	out->yama_scope = -1;
	out->target_pid = -1;
	if (!root || !*root)
		root = "/";
	if (ev->kind != MRT_EV_FAILURE) {
		/* a registration: only GPU memory and a failed long-term pin
		 * have facts beyond their record */
		if (gpu_record_wants_facts(ev)) {
			gpu_facts_read_node(root, NULL, &out->gpu);
			gpu_facts_read_process(root, pid, &out->gpu);
			if (ev->dmabuf_fd >= 0)
				gpu_facts_read_dmabuf_fd(root, pid, ev->dmabuf_fd, &out->gpu);
		}
		if (pin_may_migrate(ev))
			cma_facts_read(root, &out->cma);
		const struct mrt_step *dax = gates_pin_fsdax_step(ev);
		if (dax)
			vma_file_read(root, pid, dax->a0, ev->vma_dev, ev->vma_ino, ev->vma_name,
				      &out->vma_file);
		return;
	}
	switch (ev->op) {
	case MRT_OP_OPEN_DEVICE:
		node_facts(root, pid, ev, out);
		rdmacg_facts(root, pid, ev, "", out);
		break;
	case MRT_OP_ALLOC_PD:
	case MRT_OP_CREATE_CQ:
	case MRT_OP_CREATE_QP:
		port_facts(root, ev, out);
		rdmacg_facts(root, pid, ev, ev->op_name, out);
		if (!strcmp(root, "/")) /* the live kernel's tracking; nothing to read in a tree */
			count_facts(pid, out);
		break;
	case MRT_OP_CREATE_AH:
	case MRT_OP_MODIFY_QP:
		port_facts(root, ev, out);
		rdmacg_facts(root, pid, ev, ev->op_name, out);
		break;
	case MRT_OP_SHM_ALLOC:
		shm_facts(root, pid, ev, out);
		break;
	case MRT_OP_FD_IMPORT:
		fd_facts(root, pid, ev, out);
		break;
	default:
		break;
	}
}
