// SPDX-License-Identifier: GPL-2.0-only
/* gpu_facts.c - read the node's and the process's GPU-memory facts (see
 * gpu_facts.h).  Every path goes through core/sysroot.h, so `check
 * --sysroot` and the unit tests read recorded trees the same way watch
 * reads the live node at a failure. */
#include "proc/gpu_facts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"
#include "core/sysroot.h"
#include "drivers/driver.h"

/* ---- /proc/kallsyms: the peer-memory API and dma-buf MRs --------------------- */

/* The name column of a kallsyms line ("addr type name[\t[module]]"). */
static const char *ksym_name(const char *line)
{
	const char *s = strchr(line, ' ');
	s = s ? strchr(s + 1, ' ') : NULL;
	return s ? s + 1 : NULL;
}

static bool ksym_is(const char *sym, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(sym, name, n) && (sym[n] == '\t' || sym[n] == '\n' || sym[n] == ' ' || !sym[n]);
}

/* One pass over kallsyms (~100k lines: big reads, every read() is slow in a
 * VM).  MLNX_OFED's ib_core exports ib_register_peer_memory_client; an inbox
 * ib_core never does, so its absence with ib_core loaded proves the kernel
 * has no peer-memory API.  ib_umem_dmabuf_get proves dma-buf MRs (ib_uverbs
 * loaded); without ib_uverbs the release decides (kernel_dmabuf_release). */
static void read_kallsyms(const char *root, struct gpu_facts *f)
{
	FILE *k = sr_fopen(root, "/proc/kallsyms");
	bool ib_core = false, uverbs = false, peer = false, dmabuf = false;
	char line[512];

	if (!k)
		return;
	setvbuf(k, NULL, _IOFBF, 1 << 16);
	while (fgets(line, sizeof(line), k)) {
		const char *sym = ksym_name(line);
		if (!sym)
			continue;
		if (ksym_is(sym, "ib_register_peer_memory_client"))
			peer = true;
		else if (ksym_is(sym, "ib_umem_dmabuf_get"))
			dmabuf = true;
		ib_core |= strstr(sym, "[ib_core]") != NULL;
		uverbs |= strstr(sym, "[ib_uverbs]") != NULL;
	}
	fclose(k);
	/* also exported from vmlinux where ib_core is built in */
	if (peer)
		f->peer_api = GPU_YES;
	else if (ib_core)
		f->peer_api = GPU_NO;
	if (dmabuf) {
		f->kernel_dmabuf = GPU_YES;
		snprintf(f->kernel_dmabuf_how, sizeof(f->kernel_dmabuf_how),
			 "ib_umem_dmabuf_get in /proc/kallsyms");
	} else if (uverbs) {
		f->kernel_dmabuf = GPU_NO;
		snprintf(f->kernel_dmabuf_how, sizeof(f->kernel_dmabuf_how),
			 "ib_uverbs loaded without ib_umem_dmabuf_get");
	}
}

/* dma-buf MRs came with 5.12 (docs/design.md section 3). */
static void kernel_dmabuf_release(struct gpu_facts *f)
{
	int maj = 0, min = 0;

	if (f->kernel_dmabuf != GPU_UNKNOWN)
		return;
	if (sscanf(f->kernel, "%d.%d", &maj, &min) != 2) {
		snprintf(f->kernel_dmabuf_how, sizeof(f->kernel_dmabuf_how), "unknown");
		return;
	}
	bool yes = maj > 5 || (maj == 5 && min >= 12);
	f->kernel_dmabuf = yes ? GPU_YES : GPU_NO;
	snprintf(f->kernel_dmabuf_how, sizeof(f->kernel_dmabuf_how), "kernel %d.%d %s 5.12", maj, min,
		 yes ? ">=" : "<");
}

/* ---- peer-memory clients ------------------------------------------------------ */

static void read_peers(const char *root, struct gpu_facts *f)
{
	char **names;
	int n = sr_list(root, "/sys/kernel/mm/memory_peers", &names);

	f->memory_peers_dir = n >= 0;
	for (int i = 0; i < n; i++) {
		if (f->n_peers < GPU_FACTS_PEERS)
			snprintf(f->peers[f->n_peers], sizeof(f->peers[0]), "%.31s", names[i]);
		f->n_peers++;
	}
	sr_free_names(names, n);
	if (f->n_peers > GPU_FACTS_PEERS)
		f->n_peers = GPU_FACTS_PEERS;
	f->nvidia_peermem = sr_exists(root, "/sys/module/nvidia_peermem") != 0;
	sr_read_line(root, "/sys/module/nvidia_peermem/version", f->peermem_version,
		     sizeof(f->peermem_version));
	f->nv_peer_mem = sr_exists(root, "/sys/module/nv_peer_mem") != 0;
}

/* ---- NIC drivers ---------------------------------------------------------------- */

/* Whether the driver implements reg_user_mr_dmabuf (its table says);
 * unknown for a driver mrtrace has no table for. */
static enum gpu_tri driver_dmabuf(const char *drv)
{
	const struct rdma_driver *d = rdma_driver_named(drv);

	return !d ? GPU_UNKNOWN : d->dmabuf ? GPU_YES : GPU_NO;
}

static void read_nics(const char *root, struct gpu_facts *f)
{
	char **names;
	int n = sr_list(root, "/sys/class/infiniband", &names);

	for (int i = 0; i < n && f->n_nics < GPU_FACTS_NICS; i++) {
		struct gpu_nic *d = &f->nics[f->n_nics++];
		char p[512], desc[64] = "";
		snprintf(d->name, sizeof(d->name), "%.31s", names[i]);
		snprintf(p, sizeof(p), "/sys/class/infiniband/%s/device/driver", names[i]);
		if (sr_link_base(root, p, d->driver, sizeof(d->driver))) {
			/* software devices have no PCI parent: they name themselves */
			snprintf(p, sizeof(p), "/sys/class/infiniband/%s/node_desc", names[i]);
			sr_read_line(root, p, desc, sizeof(desc));
			const struct rdma_driver *soft = rdma_driver_soft(d->name, desc);
			snprintf(d->driver, sizeof(d->driver), "%s", soft ? soft->modules[0] : "");
		}
		d->dmabuf = driver_dmabuf(d->driver);
	}
	sr_free_names(names, n);
}

/* ---- the GPU driver and the GPUs ------------------------------------------------ */

/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release ..." */
static void read_driver(const char *root, struct gpu_facts *f)
{
	char line[512];

	if (sr_read_line(root, "/proc/driver/nvidia/version", line, sizeof(line))) {
		/* the module's own version file works where /proc/driver is hidden
		 * (some container runtimes); the flavour is then unknown */
		f->nvidia_driver = !sr_read_line(root, "/sys/module/nvidia/version", f->driver_version,
						 sizeof(f->driver_version));
		return;
	}
	f->nvidia_driver = true;
	f->open_module = strstr(line, "Open Kernel Module") ? GPU_YES : GPU_NO;
	char *save, *tok = strtok_r(line, " \t", &save);
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		unsigned a, b;
		if (sscanf(tok, "%u.%u", &a, &b) == 2 && a >= 100) {
			snprintf(f->driver_version, sizeof(f->driver_version), "%.31s", tok);
			return;
		}
	}
}

/* BAR1 is line 1 of the device's `resource` file ("start end flags"):
 * NVIDIA GPUs put the framebuffer aperture there (BAR0 registers, BAR1
 * framebuffer, BAR3 instance memory). */
static uint64_t bar1_size(const char *root, const char *bdf)
{
	char p[256], buf[1024];
	size_t got = 0;
	unsigned long long s, e, fl;

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/resource", bdf);
	if (sr_read_all(root, p, buf, sizeof(buf), &got))
		return 0;
	char *l = strchr(buf, '\n');
	if (!l || sscanf(l + 1, "%llx %llx %llx", &s, &e, &fl) != 3 || e <= s)
		return 0;
	return e - s + 1;
}

/* "Model: \t\t NVIDIA GeForce RTX 4090" from the driver's per-GPU file. */
static void read_model(const char *root, struct gpu_dev *g)
{
	char p[256], buf[2048];
	size_t got = 0;

	snprintf(p, sizeof(p), "/proc/driver/nvidia/gpus/%s/information", g->bdf);
	if (sr_read_all(root, p, buf, sizeof(buf), &got))
		return;
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "Model:", 6))
			continue;
		l += 6;
		l += strspn(l, " \t");
		size_t n = strcspn(l, "\n");
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
			n--;
		snprintf(g->model, sizeof(g->model), "%.*s", (int)(n < 63 ? n : 63), l);
		return;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int gpu_pci_list(const char *root, char ***bdfs)
{
	char **names = NULL;
	int n = sr_list(root, "/sys/bus/pci/devices", &names), k = 0;

	/* fixed-width hex: byte order is PCI order, as nvidia-smi numbers
	 * them (version order would put 0000:3b before 0000:19) */
	if (n > 0)
		qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++) {
		char p[256];
		uint64_t cls = 0, vendor = 0;
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/class", names[i]);
		bool gpu = !sr_read_u64(root, p, &cls);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", names[i]);
		/* 0x0302xx 3D controller (data-centre GPUs), 0x0300xx VGA
		 * (workstation GPUs); NVSwitches and audio functions are other
		 * classes */
		gpu = gpu && !sr_read_u64(root, p, &vendor) && vendor == 0x10de &&
		      ((cls >> 8) == 0x0302 || (cls >> 8) == 0x0300);
		if (gpu)
			names[k++] = names[i];
		else
			free(names[i]);
	}
	*bdfs = n < 0 ? NULL : names;
	return n < 0 ? n : k;
}

static void read_gpus(const char *root, bool live, struct gpu_facts *f)
{
	char **names;
	int n = gpu_pci_list(root, &names);

	for (int i = 0; i < n; i++) {
		char p[256];
		uint64_t dev = 0;
		f->n_gpus++;
		if (f->n_gpus_kept == GPU_FACTS_GPUS)
			continue;
		struct gpu_dev *g = &f->gpus[f->n_gpus_kept++];
		snprintf(g->bdf, sizeof(g->bdf), "%.15s", names[i]);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", names[i]);
		if (!sr_read_u64(root, p, &dev))
			snprintf(g->device_id, sizeof(g->device_id), "%04llx", (unsigned long long)dev & 0xffff);
		g->bar1_bytes = bar1_size(root, g->bdf);
		read_model(root, g);
		/* NVML only asks the live driver: a recorded tree has none */
		if (live)
			gpu_nvml_query(g->bdf, g);
		g->consumer = gpu_model_consumer(g->model);
	}
	sr_free_names(names, n);
}

void gpu_facts_read_node(const char *root, const char *kernel, struct gpu_facts *f)
{
	bool live = !root || !*root || !strcmp(root, "/");

	f->have = true;
	f->peer_api = f->kernel_dmabuf = GPU_UNKNOWN;
	f->open_module = GPU_UNKNOWN;
	if (kernel && *kernel)
		snprintf(f->kernel, sizeof(f->kernel), "%.63s", kernel);
	else
		sr_read_line(root, "/proc/sys/kernel/osrelease", f->kernel, sizeof(f->kernel));
	read_kallsyms(root, f);
	kernel_dmabuf_release(f);
	read_peers(root, f);
	read_nics(root, f);
	read_driver(root, f);
	read_gpus(root, live, f);
}

/* ---- the process ----------------------------------------------------------------- */

void gpu_facts_read_process(const char *root, int pid, struct gpu_facts *f)
{
	int fd = procfs_open(root, pid, "maps");
	FILE *m = fd >= 0 ? fdopen(fd, "r") : NULL;
	char line[PATH_MAX + 128];

	if (!m) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (fgets(line, sizeof(line), m)) {
		int pos = 0;
		if (sscanf(line, "%*x-%*x %*s %*s %*s %*s %n", &pos) < 0 || !pos)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		const char *b = strrchr(p, '/');
		b = b ? b + 1 : p;
		if (*p != '/' || strncmp(b, "libcuda.so", 10))
			continue;
		snprintf(f->libcuda, sizeof(f->libcuda), "%.255s", p);
		/* libcuda.so.550.90.07: the driver release it belongs to (CUDA
		 * 11.7 came with R515); libcuda.so.1 names none */
		const char *v = b + 10;
		if (*v == '.' && strchr(v + 1, '.'))
			snprintf(f->cuda_driver, sizeof(f->cuda_driver), "%.31s", v + 1);
		break;
	}
	fclose(m);
}

/* ---- which failures are about GPU memory ------------------------------------------- */

bool gpu_record_wants_facts(const struct mrt_event *ev)
{
	int n = ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;

	/* NCCL's init probe (fd -1, length 0) is expected to fail: no facts */
	if (ev->dmabuf_fd == -1 && ev->cmd_length == 0 &&
	    (ev->opener == MRT_SITE_UVERBS_REG_DMABUF || (ev->kind == MRT_EV_USER_CALL &&
							   ev->opener == MRT_API_REG_DMABUF_MR)))
		return false;
	if (ev->kind == MRT_EV_USER_CALL)
		return ev->opener == MRT_API_REG_DMABUF_MR || ev->err == EFAULT;
	if (ev->kind != MRT_EV_REG_FAILURE)
		return false;
	if (ev->opener == MRT_SITE_UVERBS_REG_DMABUF)
		return true;
	for (int i = 0; i < n; i++) {
		const struct mrt_step *s = &ev->steps[i];
		switch (s->site) {
		case MRT_SITE_DMABUF_GET:
		case MRT_SITE_DMABUF_ATTACH:
		case MRT_SITE_DMABUF_PIN:
		case MRT_SITE_DMABUF_MAP:
		case MRT_SITE_PEER_GET:
			return true;
		case MRT_SITE_PIN:
			/* 0x4000 VM_IO, 0x400 VM_PFNMAP: device memory; unknown
			 * flags (before 5.17 without the walk) may be too */
			if (s->ret == -EFAULT && (s->a2 == MRT_VMA_UNKNOWN || (s->a2 != MRT_VMA_NONE &&
										  (s->a2 & 0x4400))))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* A dma-buf's fdinfo (drivers/dma-buf/dma-buf.c dma_buf_show_fdinfo, 5.x-7.x):
 * "size:\t<bytes>" and "exp_name:\t<exporter>"; any other file has neither. */
void gpu_facts_read_dmabuf_fd(const char *root, int pid, int fd, struct gpu_facts *f)
{
	char rel[48], buf[1024];
	const char *p;
	ssize_t n;
	int dfd;

	snprintf(rel, sizeof(rel), "fdinfo/%d", fd);
	dfd = procfs_open(root, pid, rel);
	if (dfd < 0)
		return;
	n = read(dfd, buf, sizeof(buf) - 1); /* bounded: the two lines come first */
	close(dfd);
	if (n <= 0)
		return;
	buf[n] = 0;
	if (!(p = strstr(buf, "\nexp_name:")))
		return;
	sscanf(p + 10, " %31s", f->dmabuf_exporter);
	if ((p = strstr(buf, "\nsize:")))
		f->dmabuf_fd_size = strtoull(p + 6, NULL, 10);
}
