// SPDX-License-Identifier: GPL-2.0-only
/* attach.c - per-site mechanism choice, loading and attaching.
 *
 * Order of work, as in libbpf-tools: probe what the kernel allows per site,
 * open the skeleton, set the filters in .rodata, enable exactly one flavour
 * per site, load, attach site by site (a failure disarms that site only).
 */
#include "tracer/tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "mrtrace.h"
#include "regpath.skel.h"
#include "syscalls.skel.h"
#include "libibverbs.skel.h"

/* ---- the site table ----------------------------------------------------------
 * Program names refer to bpf/regpath.bpf.c.  NULL: no such flavour. */
struct site_def {
	const char *name, *func, *gives;
	bool opener;
	const char *fentry, *fexit, *kprobe, *kretprobe;
	const char *alt; /* another name the function has on some kernels */
	const char *tp; /* "category/event" for a tracepoint site (program in fentry) */
	const char *only_without; /* armed only when this site is not */
};

static const struct site_def reg_sites[] = {
	{ "reg_mr", "ib_uverbs_reg_mr", "REG_MR command args (start, iova, access) and final errno",
	  true, "fentry_reg_mr", "fexit_reg_mr", "kprobe_reg_mr", "kretprobe_reg_mr" },
	{ "uverbs_ioctl", "ib_uverbs_cmd_verbs",
	  "dma-buf MR attributes (fd, offset, length) and errno, even where the driver lacks "
	  "dma-buf",
	  true, "fentry_cmd_verbs", "fexit_cmd_verbs", "kprobe_cmd_verbs", "kretprobe_cmd_verbs" },
	{ "reg_dmabuf_mr", "ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR",
	  "dma-buf MR method and final errno", true, "fentry_reg_dmabuf", "fexit_reg_dmabuf",
	  "kprobe_reg_dmabuf", "kretprobe_reg_dmabuf" },
	{ "umem_get", "ib_umem_get",
	  "memlock limit, pinned_vm before, pages requested, umem errno", true, "fentry_umem_get",
	  "fexit_umem_get", "kprobe_umem_get", "kretprobe_umem_get",
	  .alt = "ib_umem_get_va" /* a 2026 series moves and may rename it */ },
	{ "umem_release", "ib_umem_release", "live MR count per process", false,
	  "fentry_umem_release", NULL, "kprobe_umem_release", NULL },
	{ "cap_ipc_lock", "capable", "whether CAP_IPC_LOCK applied (initial user namespace)", false,
	  NULL, "fexit_capable", "kprobe_capable", "kretprobe_capable" },
	{ "rxe_reg", "rxe_reg_user_mr", "soft-RoCE driver result", false, NULL, "fexit_rxe_reg",
	  NULL, "kretprobe_rxe_reg" },
	{ "mlx5_reg", "mlx5_ib_reg_user_mr", "mlx5 driver result", false, NULL, "fexit_mlx5_reg",
	  NULL, "kretprobe_mlx5_reg" },
	{ "mlx5_dmabuf_reg", "mlx5_ib_reg_user_mr_dmabuf", "mlx5 dma-buf MR result", false, NULL,
	  "fexit_mlx5_reg_dmabuf", NULL, "kretprobe_mlx5_reg_dmabuf" },
	{ "mlx5_reg_create", "reg_create", "mlx5 mkey creation result", false, NULL, NULL, NULL,
	  "kretprobe_mlx5_reg_create" },
	{ "mlx5_create_mr", "create_real_mr", "mlx5 MR creation result", false, NULL, NULL, NULL,
	  "kretprobe_mlx5_create_real_mr" },
	{ "mlx5_cmd", "mlx5_cmd_exec", "mlx5 firmware command opcode, status, syndrome", false,
	  NULL, "fexit_mlx5_cmd", "kprobe_mlx5_cmd", "kretprobe_mlx5_cmd" },
	{ "peer_get", "ib_peer_umem_get", "MLNX_OFED peer-memory client result (nvidia-peermem)",
	  false, NULL, NULL, NULL, "kretprobe_peer_get" },
	{ "pin", "pin_user_pages_fast", "page pinning result and the VMA's flags", false, NULL,
	  "fexit_pin_fast", "kprobe_pin_fast", "kretprobe_pin_fast" },
	{ "pin_gup", "get_user_pages", "page pinning on 5.4 (get_user_pages FOLL_LONGTERM)", false,
	  NULL, NULL, "kprobe_gup", "kretprobe_gup", .only_without = "pin" },
	{ "migrate", "migrate/mm_migrate_pages", "failed page migration for a long-term pin",
	  false, "tp_migrate", NULL, NULL, NULL, .tp = "migrate/mm_migrate_pages" },
	{ "rdmacg", "ib_rdmacg_try_charge", "rdma cgroup charge result", false, NULL,
	  "fexit_rdmacg", NULL, "kretprobe_rdmacg" },
	{ "uobj_alloc", "rdma_alloc_begin_uobject", "uverbs object allocation result", false, NULL,
	  "fexit_uobj_alloc", NULL, "kretprobe_uobj_alloc" },
	{ "sg_alloc", "sg_alloc_append_table_from_pages", "scatterlist allocation failure", false,
	  NULL, "fexit_sg_alloc", NULL, "kretprobe_sg_alloc" },
	{ "dma_map", "dma_map_sgtable", "DMA mapping failure", false, NULL, "fexit_dma_map", NULL,
	  "kretprobe_dma_map" },
	{ "iova", "alloc_iova_fast", "IOVA space exhaustion", false, NULL, "fexit_iova", NULL,
	  NULL },
	{ "dmabuf_get", "ib_umem_dmabuf_get", "dma-buf fd, offset, size and result", false, NULL,
	  "fexit_umem_dmabuf", NULL, "kretprobe_umem_dmabuf" },
	{ "dmabuf_attach", "dma_buf_dynamic_attach", "dma-buf attach failure", false, NULL,
	  "fexit_dmabuf_attach", NULL, "kretprobe_dmabuf_attach" },
	{ "dmabuf_pin", "dma_buf_pin", "dma-buf pin failure", false, NULL, "fexit_dmabuf_pin",
	  NULL, "kretprobe_dmabuf_pin" },
	{ "dmabuf_map", "dma_buf_map_attachment", "dma-buf map failure", false, NULL,
	  "fexit_dmabuf_map", NULL, "kretprobe_dmabuf_map" },
};
#define N_REG_SITES (sizeof(reg_sites) / sizeof(reg_sites[0]))

struct tp_def {
	const char *name, *prog_enter, *prog_exit, *gives;
};

static const struct tp_def sys_sites[] = {
	{ "sys_mlock", "tp_enter_mlock", "tp_exit_mlock", "failed mlock(): limit, VmLck" },
	{ "sys_mlock2", "tp_enter_mlock2", "tp_exit_mlock2", "failed mlock2(): limit, VmLck" },
	{ "sys_mlockall", "tp_enter_mlockall", "tp_exit_mlockall", "failed mlockall()" },
	{ "sys_setrlimit", "tp_enter_setrlimit", "tp_exit_setrlimit",
	  "RLIMIT_MEMLOCK changes (setrlimit)" },
	{ "sys_prlimit64", "tp_enter_prlimit64", "tp_exit_prlimit64",
	  "RLIMIT_MEMLOCK changes (prlimit64)" },
};
#define N_SYS_SITES (sizeof(sys_sites) / sizeof(sys_sites[0]))

const char *mech_name(enum mech m)
{
	switch (m) {
	case MECH_FENTRY: return "fentry";
	case MECH_KPROBE: return "kprobe";
	case MECH_TRACEPOINT: return "tracepoint";
	case MECH_UPROBE: return "uprobe";
	default: return "none";
	}
}

/* ---- kernel facts: BTF, kallsyms -------------------------------------------- */

struct btf_hit {
	int obj_fd; /* 0 for vmlinux */
	int type_id;
	char module[64];
};

static struct btf *vmlinux_btf;

/* Module BTFs, loaded once per run (every site looks through all of them). */
#define MOD_BTF_MAX 256
static struct mod_btf {
	__u32 id;
	char name[64];
	struct btf *btf;
} mod_btfs[MOD_BTF_MAX];
static int n_mod_btfs = -1;

static void load_module_btfs(void)
{
	__u32 id = 0;

	n_mod_btfs = 0;
	while (!bpf_btf_get_next_id(id, &id) && n_mod_btfs < MOD_BTF_MAX) {
		char name[64] = "";
		struct bpf_btf_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    strcmp(name, "vmlinux")) {
			struct btf *b = btf__load_from_kernel_by_id_split(id, vmlinux_btf);
			if (b) {
				mod_btfs[n_mod_btfs].id = id;
				snprintf(mod_btfs[n_mod_btfs].name, sizeof(mod_btfs[0].name), "%s", name);
				mod_btfs[n_mod_btfs].btf = b;
				n_mod_btfs++;
			}
		}
		close(fd);
	}
}

static void free_btfs(void)
{
	for (int i = 0; i < n_mod_btfs; i++)
		btf__free(mod_btfs[i].btf);
	n_mod_btfs = -1;
	btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
}

/* Finds FUNC `func` in vmlinux BTF, then in each loaded module's BTF.
 * hit->obj_fd is a new fd for a module's BTF object (the caller closes it). */
static int find_btf_func(const char *func, struct btf_hit *hit)
{
	if (!vmlinux_btf)
		vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf)
		return -ENOENT;
	int tid = btf__find_by_name_kind(vmlinux_btf, func, BTF_KIND_FUNC);
	if (tid > 0) {
		hit->obj_fd = 0;
		hit->type_id = tid;
		snprintf(hit->module, sizeof(hit->module), "vmlinux");
		return 0;
	}
	if (n_mod_btfs < 0)
		load_module_btfs();
	for (int i = 0; i < n_mod_btfs; i++) {
		tid = btf__find_by_name_kind(mod_btfs[i].btf, func, BTF_KIND_FUNC);
		if (tid <= 0)
			continue;
		int fd = bpf_btf_get_fd_by_id(mod_btfs[i].id);
		if (fd < 0)
			return -ENOENT;
		hit->obj_fd = fd;
		hit->type_id = tid;
		snprintf(hit->module, sizeof(hit->module), "%s", mod_btfs[i].name);
		return 0;
	}
	return -ENOENT;
}

static bool btf_has_func(const char *func)
{
	struct btf_hit h;

	if (find_btf_func(func, &h))
		return false;
	if (h.obj_fd > 0)
		close(h.obj_fd);
	return true;
}

/* Can a trampoline program attach here?  Loads and attaches the smallest
 * possible fexit program: this is what fails on kernels that refuse
 * fentry/fexit (EPERM), on functions with too many arguments for the
 * trampoline, or on notrace functions. */
static int probe_trampoline(const struct btf_hit *hit, enum bpf_attach_type type, char *reason,
			    size_t rlen)
{
	const char *what = type == BPF_TRACE_FEXIT ? "fexit" : "fentry";
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type,
		    .attach_btf_id = hit->type_id, .attach_btf_obj_fd = hit->obj_fd);
	int prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "mrt_probe", "GPL", insns, 2, &opts);
	if (prog < 0) {
		snprintf(reason, rlen, "%s load refused: %s", what, strerror(errno));
		return -1;
	}
	int link = bpf_raw_tracepoint_open(NULL, prog);
	int e = errno;
	close(prog);
	if (link < 0) {
		snprintf(reason, rlen, "%s attach refused: %s", what, strerror(e));
		return -1;
	}
	close(link);
	return 0;
}

struct ksym_want {
	const char *name;
	bool found;
	char module[128];
};

/* One pass over /proc/kallsyms for all wanted names. */
static void kallsyms_lookup(struct ksym_want *w, int n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char type, sym[256], mod[128] = "";
		unsigned long long addr;
		int k = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, sym, mod);
		if (k < 3 || (type != 't' && type != 'T'))
			continue;
		for (int i = 0; i < n; i++)
			if (!w[i].found && !strcmp(w[i].name, sym)) {
				w[i].found = true;
				snprintf(w[i].module, sizeof(w[i].module), "%s",
					 k == 4 ? mod : "vmlinux");
			}
	}
	fclose(f);
}

static bool kprobes_supported(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/* libbpf resolves tracepoints and legacy kprobes through tracefs. */
static void ensure_tracefs(void)
{
	if (!access("/sys/kernel/tracing/events", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events", F_OK))
		return;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY)
		fprintf(stderr, "mrtrace: cannot mount tracefs on /sys/kernel/tracing: %s\n",
			strerror(errno));
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

static int libbpf_loud(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* ---- the registration path object ------------------------------------------- */

static struct bpf_program *prog_by_name(struct bpf_object *obj, const char *name)
{
	return name ? bpf_object__find_program_by_name(obj, name) : NULL;
}

static void set_site_progs(struct bpf_object *obj, const struct site_def *d,
			   const struct site_status *st)
{
	const char *names[4] = { d->fentry, d->fexit, d->kprobe, d->kretprobe };
	enum mech m = st->mech;

	for (int i = 0; i < 4; i++) {
		struct bpf_program *p = prog_by_name(obj, names[i]);
		bool on = (i < 2 && (m == MECH_FENTRY || m == MECH_TRACEPOINT)) ||
			  (i >= 2 && m == MECH_KPROBE);
		if (!p)
			continue;
		bpf_program__set_autoload(p, on);
		/* the function may go by its other name on this kernel */
		if (on && m == MECH_FENTRY && strcmp(st->func, d->func))
			bpf_program__set_attach_target(p, 0, st->func);
	}
}

/* Where cgroup v2 is mounted: /sys/fs/cgroup on unified hosts,
 * /sys/fs/cgroup/unified on hybrid ones. */
static void cgroup2_root(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[1024], type[64];

	snprintf(buf, len, "/sys/fs/cgroup");
	if (!f)
		return;
	while (fscanf(f, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			break;
		}
	fclose(f);
}

static int cgroup_fd(const char *cgroup, char *err, size_t errlen)
{
	char path[4096], root[1024];

	if (cgroup[0] == '/' && !access(cgroup, F_OK)) {
		snprintf(path, sizeof(path), "%s", cgroup);
	} else {
		cgroup2_root(root, sizeof(root));
		snprintf(path, sizeof(path), "%s/%s", root, cgroup[0] == '/' ? cgroup + 1 : cgroup);
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "cgroup %.200s: %s (give a cgroup v2 directory)", path,
			 strerror(errno));
	return fd;
}

int tracer_cgroup_filter(int map_fd, const char *cgroup, char *err, size_t errlen)
{
	__u32 zero = 0;
	int fd = cgroup_fd(cgroup, err, errlen);

	if (fd < 0)
		return -1;
	int rc = bpf_map_update_elem(map_fd, &zero, &fd, BPF_ANY);
	close(fd);
	if (rc)
		snprintf(err, errlen, "cgroup filter %.200s: %s (cgroup v2 only)", cgroup,
			 strerror(errno));
	return rc ? -1 : 0;
}

static int set_cgroup(struct bpf_map *map, const char *cgroup)
{
	char err[300];

	if (!cgroup)
		return 0;
	if (tracer_cgroup_filter(bpf_map__fd(map), cgroup, err, sizeof(err))) {
		fprintf(stderr, "mrtrace: %s\n", err);
		return -1;
	}
	return 0;
}

static void add_link(struct tracer *t, struct bpf_link *l)
{
	if (t->nlinks < (int)(sizeof(t->links) / sizeof(t->links[0])))
		t->links[t->nlinks++] = l;
}

/* Attach both programs of a site; on any failure detach what was attached. */
static int attach_site(struct tracer *t, struct bpf_object *obj, const struct site_def *d,
		       struct site_status *st)
{
	const char *names[2];
	struct bpf_link *got[2] = { 0 };

	if (st->mech == MECH_FENTRY) {
		names[0] = d->fentry;
		names[1] = d->fexit;
	} else {
		names[0] = d->kprobe;
		names[1] = d->kretprobe;
	}
	for (int i = 0; i < 2; i++) {
		struct bpf_program *p = prog_by_name(obj, names[i]);
		if (!p)
			continue;
		if (st->mech == MECH_KPROBE)
			got[i] = bpf_program__attach_kprobe(p, i == 1, st->func);
		else
			got[i] = bpf_program__attach(p);
		if (!got[i]) {
			snprintf(st->reason, SITE_REASON_MAX, "%s attach failed: %s",
				 mech_name(st->mech), strerror(errno));
			for (int j = 0; j < i; j++)
				bpf_link__destroy(got[j]);
			st->mech = MECH_NONE;
			return -1;
		}
	}
	for (int i = 0; i < 2; i++)
		if (got[i])
			add_link(t, got[i]);
	return 0;
}

static int open_regpath(struct tracer *t, const struct tracer_opts *o, bool allow_fentry)
{
	struct ksym_want want[N_REG_SITES];
	bool have_kprobes = kprobes_supported();
	int openers = 0;

	memset(want, 0, sizeof(want));
	for (size_t i = 0; i < N_REG_SITES; i++)
		want[i].name = reg_sites[i].func;
	kallsyms_lookup(want, N_REG_SITES);

	for (size_t i = 0; i < N_REG_SITES; i++) {
		const struct site_def *d = &reg_sites[i];
		struct site_status *st = &t->sites[i];
		struct btf_hit hit;
		char why[SITE_REASON_MAX] = "";

		st->name = d->name;
		st->func = d->func;
		st->gives = d->gives;
		st->opener = d->opener;
		st->mech = MECH_NONE;
		st->module = NULL;
		st->reason[0] = 0;

		if (d->tp) {
			char ev[256];
			snprintf(ev, sizeof(ev), "/sys/kernel/tracing/events/%s", d->tp);
			if (access(ev, F_OK)) {
				snprintf(st->reason, SITE_REASON_MAX, "no tracepoint %s", d->tp);
				continue;
			}
			st->module = strdup("tracepoint");
			st->mech = MECH_TRACEPOINT;
			continue;
		}
		/* the other name, when only it exists here */
		if (d->alt && !want[i].found && !btf_has_func(d->func)) {
			struct ksym_want w = { .name = d->alt };
			kallsyms_lookup(&w, 1);
			if (w.found || btf_has_func(d->alt)) {
				st->func = d->alt;
				want[i] = w;
				want[i].name = d->alt;
			}
		}

		if (!want[i].found && !btf_has_func(st->func)) {
			if (d->alt)
				snprintf(st->reason, SITE_REASON_MAX,
					 "neither %s nor %s is in this kernel (kallsyms, BTF; module "
					 "not loaded?)", d->func, d->alt);
			else
				snprintf(st->reason, SITE_REASON_MAX,
					 "%s not in this kernel (not in kallsyms or BTF; module not "
					 "loaded?)", st->func);
			continue;
		}
		if (want[i].found)
			st->module = strdup(want[i].module);
		bool tramp = d->fentry || d->fexit;
		if (allow_fentry && tramp && !find_btf_func(st->func, &hit)) {
			/* fexit is the stricter of the two (it must model the return) */
			int ok = probe_trampoline(&hit, d->fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
						  why, sizeof(why));
			if (!st->module)
				st->module = strdup(hit.module);
			if (hit.obj_fd > 0)
				close(hit.obj_fd);
			if (!ok) {
				st->mech = MECH_FENTRY;
				continue;
			}
		} else if (allow_fentry && tramp) {
			snprintf(why, sizeof(why), "no BTF for %s", st->func);
		}
		if (d->kprobe || d->kretprobe) {
			if (!want[i].found)
				snprintf(st->reason, SITE_REASON_MAX, "%s%snot in kallsyms", why,
					 why[0] ? "; " : "");
			else if (!have_kprobes)
				snprintf(st->reason, SITE_REASON_MAX,
					 "%s%skprobes not supported by this kernel", why,
					 why[0] ? "; " : "");
			else {
				st->mech = MECH_KPROBE;
				snprintf(st->reason, SITE_REASON_MAX, "%s", why);
			}
		} else {
			snprintf(st->reason, SITE_REASON_MAX, "%s%sno kprobe flavour for this site",
				 why, why[0] ? "; " : "");
		}
	}
	t->nsites = N_REG_SITES;
	for (size_t i = 0; i < N_REG_SITES; i++) {
		const char *other = reg_sites[i].only_without;
		if (!other || t->sites[i].mech == MECH_NONE)
			continue;
		for (size_t k = 0; k < N_REG_SITES; k++)
			if (!strcmp(reg_sites[k].name, other) && t->sites[k].mech != MECH_NONE) {
				t->sites[i].mech = MECH_NONE;
				snprintf(t->sites[i].reason, SITE_REASON_MAX,
					 "not needed: %s is armed (this kernel pins with %s)", other,
					 t->sites[k].func);
			}
	}
	for (size_t i = 0; i < N_REG_SITES; i++)
		if (t->sites[i].opener && t->sites[i].mech != MECH_NONE)
			openers++;
	if (!openers) {
		/* Nested sites record nothing without an opener: don't load at all. */
		for (size_t i = 0; i < N_REG_SITES; i++)
			if (t->sites[i].mech != MECH_NONE) {
				t->sites[i].mech = MECH_NONE;
				snprintf(t->sites[i].reason, SITE_REASON_MAX,
					 "not armed: no registration entry site (reg_mr, umem_get) "
					 "could be armed on this kernel");
			}
		return 0;
	}

	struct regpath_bpf *s = regpath_bpf__open();
	if (!s) {
		fprintf(stderr, "mrtrace: opening the BPF object failed: %s\n", strerror(errno));
		return -1;
	}
	TRACER_SET_FILTERS(s->rodata, o);
	s->rodata->cap_ipc_lock = CAP_IPC_LOCK;
	struct bpf_program *p;
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	for (size_t i = 0; i < N_REG_SITES; i++)
		if (t->sites[i].mech != MECH_NONE)
			set_site_progs(s->obj, &reg_sites[i], &t->sites[i]);
	bpf_program__set_autoload(s->progs.tp_fork_regpath, o->follow_pid != 0);
	int err = regpath_bpf__load(s);
	if (err) {
		fprintf(stderr, "mrtrace: loading the registration-path programs failed: %s%s\n",
			strerror(-err), allow_fentry ? "; retrying with kprobes only" : "");
		regpath_bpf__destroy(s);
		if (allow_fentry) {
			for (size_t i = 0; i < N_REG_SITES; i++)
				free((void *)t->sites[i].module);
			return open_regpath(t, o, false);
		}
		for (size_t i = 0; i < N_REG_SITES; i++)
			if (t->sites[i].mech != MECH_NONE) {
				t->sites[i].mech = MECH_NONE;
				snprintf(t->sites[i].reason, SITE_REASON_MAX,
					 "BPF load failed: %s", strerror(-err));
			}
		return 0;
	}
	if (set_cgroup(s->maps.cgroup_filter, o->cgroup)) {
		regpath_bpf__destroy(s);
		return -1;
	}
	t->reg = s;
	t->reg_loaded = true;
	for (size_t i = 0; i < N_REG_SITES; i++)
		if (t->sites[i].mech != MECH_NONE)
			attach_site(t, s->obj, &reg_sites[i], &t->sites[i]);
	if (o->follow_pid) {
		struct bpf_link *l = bpf_program__attach(s->progs.tp_fork_regpath);
		if (!l) {
			fprintf(stderr, "mrtrace: cannot follow forks (sched_process_fork): %s\n",
				strerror(errno));
			return -1;
		}
		add_link(t, l);
	}
	return 0;
}

/* ---- the syscall tracepoints -------------------------------------------------- */

static int open_syscalls(struct tracer *t, const struct tracer_opts *o)
{
	bool arm = o->syscalls == SYSCALLS_ON ||
		   (o->syscalls == SYSCALLS_AUTO && !tracer_armed_count(t, true));
	int base = t->nsites;

	for (size_t i = 0; i < N_SYS_SITES; i++) {
		struct site_status *st = &t->sites[base + i];
		st->name = sys_sites[i].name;
		st->func = sys_sites[i].name + 4; /* "mlock" ... */
		st->gives = sys_sites[i].gives;
		st->opener = false;
		st->module = strdup("syscalls");
		st->mech = MECH_NONE;
		if (!arm)
			snprintf(st->reason, SITE_REASON_MAX,
				 o->syscalls == SYSCALLS_OFF
					 ? "off (--syscalls=off)"
					 : "off: registration sites are armed; syscall tracepoints "
					   "slow every syscall (~40 ns), enable with --syscalls=on");
	}
	t->nsites += N_SYS_SITES;
	if (!arm)
		return 0;

	struct syscalls_bpf *s = syscalls_bpf__open();
	if (!s) {
		fprintf(stderr, "mrtrace: opening the syscall BPF object failed: %s\n",
			strerror(errno));
		return -1;
	}
	TRACER_SET_FILTERS(s->rodata, o);
	bpf_program__set_autoload(s->progs.tp_fork_syscalls, o->follow_pid != 0);
	int err = syscalls_bpf__load(s);
	if (err) {
		for (size_t i = 0; i < N_SYS_SITES; i++)
			snprintf(t->sites[base + i].reason, SITE_REASON_MAX, "BPF load failed: %s",
				 strerror(-err));
		syscalls_bpf__destroy(s);
		return 0;
	}
	if (set_cgroup(s->maps.cgroup_filter, o->cgroup)) {
		syscalls_bpf__destroy(s);
		return -1;
	}
	t->sys = s;
	t->sys_loaded = true;
	for (size_t i = 0; i < N_SYS_SITES; i++) {
		struct site_status *st = &t->sites[base + i];
		struct bpf_program *pe = prog_by_name(s->obj, sys_sites[i].prog_enter);
		struct bpf_program *px = prog_by_name(s->obj, sys_sites[i].prog_exit);
		struct bpf_link *le = pe ? bpf_program__attach(pe) : NULL;
		struct bpf_link *lx = le && px ? bpf_program__attach(px) : NULL;
		if (!le || !lx) {
			snprintf(st->reason, SITE_REASON_MAX, "tracepoint attach failed: %s",
				 strerror(errno));
			bpf_link__destroy(le);
			continue;
		}
		add_link(t, le);
		add_link(t, lx);
		st->mech = MECH_TRACEPOINT;
		snprintf(st->reason, SITE_REASON_MAX, "costly: every syscall ~40 ns slower while armed");
	}
	if (o->follow_pid) {
		struct bpf_link *l = bpf_program__attach(s->progs.tp_fork_syscalls);
		if (!l)
			return -1;
		add_link(t, l);
	}
	return 0;
}

/* ---- libibverbs uprobes ----------------------------------------------------- */

static void uprobe_site_update(struct tracer *t)
{
	struct site_status *st = &t->sites[t->up_site];
	int funcs = 0;
	size_t off = 0;

	for (int i = 0; i < t->up.nlibs; i++)
		funcs += t->up.libs[i].nfuncs;
	st->mech = funcs ? MECH_UPROBE : MECH_NONE;
	st->reason[0] = 0;
	for (int i = 0; i < t->up.nlibs && off < SITE_REASON_MAX; i++)
		if (t->up.libs[i].nfuncs)
			off += snprintf(st->reason + off, SITE_REASON_MAX - off, "%s%s (%d)",
					off ? ", " : "", t->up.libs[i].path, t->up.libs[i].nfuncs);
	if (!funcs)
		snprintf(st->reason, SITE_REASON_MAX, "%s", t->up.error);
}

static void open_uprobes(struct tracer *t, const struct tracer_opts *o)
{
	struct site_status *st = &t->sites[t->nsites];

	t->up_site = t->nsites++;
	st->name = "libibverbs";
	st->func = "ibv_reg_mr*, ibv_reg_dmabuf_mr";
	st->gives = "the API the application called, its arguments and user stack; refusals "
		    "inside libibverbs";
	st->opener = false;
	st->module = strdup("user");
	if (uprobes_open(&t->up, o)) {
		st->mech = MECH_NONE;
		snprintf(st->reason, SITE_REASON_MAX, "%s", t->up.error);
		return;
	}
	uprobe_site_update(t);
}

int tracer_housekeeping(struct tracer *t)
{
	int added = uprobes_scan(&t->up);

	if (added > 0)
		uprobe_site_update(t);
	return added > 0 ? added : 0;
}

int tracer_open(struct tracer *t, const struct tracer_opts *o, tracer_event_fn fn, void *cookie)
{
	struct utsname u;

	memset(t, 0, sizeof(*t));
	if (!uname(&u))
		snprintf(t->kernel, sizeof(t->kernel), "%s", u.release);
	libbpf_set_print(o->verbose ? libbpf_loud : libbpf_quiet);
	ensure_tracefs();
	if (open_regpath(t, o, true) || open_syscalls(t, o))
		return -1;
	open_uprobes(t, o);
	if (!tracer_armed_count(t, false)) {
		fprintf(stderr, "mrtrace: no evidence source could be armed on kernel %s\n",
			t->kernel);
		return -1;
	}
	if (t->reg_loaded)
		t->rb = ring_buffer__new(bpf_map__fd(t->reg->maps.events),
					 (ring_buffer_sample_fn)fn, cookie, NULL);
	if (t->sys_loaded) {
		if (!t->rb)
			t->rb = ring_buffer__new(bpf_map__fd(t->sys->maps.events),
						 (ring_buffer_sample_fn)fn, cookie, NULL);
		else if (ring_buffer__add(t->rb, bpf_map__fd(t->sys->maps.events),
					  (ring_buffer_sample_fn)fn, cookie))
			return -1;
	}
	if (t->up.skel) {
		int fd = uprobes_events_fd(&t->up);
		if (!t->rb)
			t->rb = ring_buffer__new(fd, (ring_buffer_sample_fn)fn, cookie, NULL);
		else if (ring_buffer__add(t->rb, fd, (ring_buffer_sample_fn)fn, cookie))
			return -1;
	}
	if (!t->rb) {
		fprintf(stderr, "mrtrace: ring buffer setup failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int tracer_watch_tgid(struct tracer *t, int tgid)
{
	__u32 k = tgid;
	__u8 one = 1;
	int err = 0;

	if (t->reg_loaded)
		err |= bpf_map_update_elem(bpf_map__fd(t->reg->maps.watched_tgids), &k, &one, 0);
	if (t->sys_loaded)
		err |= bpf_map_update_elem(bpf_map__fd(t->sys->maps.watched_tgids), &k, &one, 0);
	err |= uprobes_watch_tgid(&t->up, tgid);
	return err ? -1 : 0;
}

void tracer_close(struct tracer *t)
{
	ring_buffer__free(t->rb);
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	regpath_bpf__destroy(t->reg);
	syscalls_bpf__destroy(t->sys);
	uprobes_close(&t->up);
	for (int i = 0; i < t->nsites; i++)
		free((void *)t->sites[i].module);
	free_btfs();
	memset(t, 0, sizeof(*t));
}

static void sum_counters(struct bpf_map *map, unsigned long long out[])
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return;
	unsigned long long *vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (__u32 k = 0; k < MRT_CNT_MAX; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
}

void tracer_counters(const struct tracer *t, unsigned long long out[])
{
	memset(out, 0, sizeof(out[0]) * MRT_CNT_MAX);
	if (t->reg_loaded)
		sum_counters(t->reg->maps.counters, out);
	if (t->sys_loaded)
		sum_counters(t->sys->maps.counters, out);
	if (t->up.skel)
		sum_counters(t->up.skel->maps.counters, out);
}

int tracer_armed_count(const struct tracer *t, bool openers_only)
{
	int n = 0;
	for (int i = 0; i < t->nsites; i++)
		if (t->sites[i].mech != MECH_NONE && (!openers_only || t->sites[i].opener))
			n++;
	return n;
}

void tracer_print_sites(const struct tracer *t, FILE *out)
{
	fprintf(out, "%-16s %-10s %-10s %s\n", "SITE", "ARMED", "MODULE", "FUNCTION / NOTE");
	for (int i = 0; i < t->nsites; i++) {
		const struct site_status *s = &t->sites[i];
		fprintf(out, "%-16s %-10s %-10s %s%s%s\n", s->name,
			s->mech == MECH_NONE ? "no" : mech_name(s->mech),
			s->module ? s->module : "-", s->func, s->reason[0] ? ": " : "", s->reason);
	}
}

struct json_object *tracer_sites_json(const struct tracer *t)
{
	struct json_object *a = json_object_new_array();
	for (int i = 0; i < t->nsites; i++) {
		const struct site_status *s = &t->sites[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "site", json_object_new_string(s->name));
		json_object_object_add(o, "function", json_object_new_string(s->func));
		json_object_object_add(o, "module",
				       s->module ? json_object_new_string(s->module) : NULL);
		json_object_object_add(o, "armed", json_object_new_boolean(s->mech != MECH_NONE));
		json_object_object_add(o, "mechanism", json_object_new_string(mech_name(s->mech)));
		json_object_object_add(o, "gives", json_object_new_string(s->gives));
		if (s->reason[0])
			json_object_object_add(o, "note", json_object_new_string(s->reason));
		json_object_array_add(a, o);
	}
	return a;
}

static bool site_armed(const struct tracer *t, const char *name)
{
	for (int i = 0; i < t->nsites; i++)
		if (!strcmp(t->sites[i].name, name))
			return t->sites[i].mech != MECH_NONE;
	return false;
}

void tracer_print_consequences(const struct tracer *t, FILE *out)
{
	if (!tracer_armed_count(t, true)) {
		fprintf(out,
			"mrtrace: no kernel registration site is armed on %s: failed MR "
			"registrations will NOT be seen from the kernel here.\n",
			t->kernel);
		if (site_armed(t, "sys_mlock"))
			fprintf(out, "mrtrace: armed instead: mlock/setrlimit syscall tracepoints "
				     "(the same RLIMIT_MEMLOCK; verdicts from them are about mlock, "
				     "not proof about a registration).\n");
		return;
	}
	if (!site_armed(t, "cap_ipc_lock"))
		fprintf(out, "mrtrace: capable(CAP_IPC_LOCK) is not observed: memlock verdicts "
			     "assume the capability did not apply.\n");
	if (!site_armed(t, "pin"))
		fprintf(out, "mrtrace: page pinning is not observed: pin_* causes fall back to "
			     "'unknown'.\n");
	if (!site_armed(t, "reg_mr"))
		fprintf(out, "mrtrace: the REG_MR command is not observed: EINVAL causes "
			     "(access flags, iova) cannot be told apart.\n");
}
