// SPDX-License-Identifier: GPL-2.0-only
/* fixes_registration.c - the fixes of a failed registration's causes past
 * memlock (fix_generators.h): page pinning, DMA mapping, a dma-buf fd, the
 * mlx5 firmware, the command's own checks, the rdma cgroup (GPU memory's
 * own causes are fixes_gpu.c's).  Most do not depend
 * on where the job runs; a few follow the evidence the verdict was decided
 * on (the decisive step, the access bits, who refused a dma-buf MR). */
#include "verdict/fix_generators.h"
#include "verdict/rdma_cgroup.h"
#include "proc/gates.h"
#include "core/escape.h"

#include <string.h>

void fixes_pin_hugetlb(const struct fix_input *in, struct fix_list *out)
{
	(void)in;
	fix_add(out, FIX_PRIMARY,
	    "Reserve huge pages before the job: `echo N > "
	    "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages` (or the 1 GiB size), "
	    "or set vm.nr_overcommit_hugepages; check `mrtrace check` hugepages.");
	fix_add(out, FIX_ALTERNATIVE,
	    "Or stop allocating this buffer from hugetlbfs (unset the allocator's huge page "
	    "option).");
}

/* From the node's CMA pageblocks read at the failure (gates->cma): a
 * kexec handover's scratch memory wants the boot changed, as `mrtrace
 * check` (cma.pageblocks) says; ordinary CMA leaves ZONE_MOVABLE and
 * memory pressure; unread facts leave the generic advice. */
void fixes_pin_migrate(const struct fix_input *in, struct fix_list *out)
{
	enum cma_state st = in->gates ? cma_facts_state(&in->gates->cma) : CMA_STATE_UNKNOWN;

	if (st == CMA_STATE_HIDDEN)
		fix_add(out, FIX_PRIMARY,
		    "Boot without kexec handover (no kho=on on the kernel command line), or with a "
		    "smaller kho_scratch=, so that pinned buffers come from ordinary pageblocks; "
		    "`grep -i cma /proc/meminfo` and the CMA column of /proc/pagetypeinfo show the "
		    "split (`mrtrace check`: cma.pageblocks).");
	else if (st == CMA_STATE_ORDINARY)
		fix_add(out, FIX_PRIMARY,
		    "CMA is not the cause here (its pageblocks are what CmaTotal says): look at "
		    "ZONE_MOVABLE on the kernel command line (movablecore=, kernelcore=, "
		    "movable_node: `grep -A2 'zone *Movable' /proc/zoneinfo`) and at memory "
		    "pressure on the NUMA node (`numastat -m`).");
	else
		fix_add(out, FIX_PRIMARY,
		    "Look at movable_node / kernelcore= / movablecore= and CMA settings on the "
		    "kernel command line, and at memory pressure on the NUMA node (%s); the "
		    "node's CMA pageblocks were not readable at the failure: `mrtrace check` as "
		    "root compares them with CmaTotal (cma.pageblocks).",
		    "grep -i -e cma -e movable /proc/meminfo");
	fix_add(out, FIX_ALTERNATIVE, "Retry after dropping caches or compacting memory: "
				"`echo 1 > /proc/sys/vm/compact_memory`.");
}

/* From the file and mount read at the failure (gates->vma_file): the mount
 * point and its DAX option are named; without them the generic commands. */
void fixes_pin_fsdax(const struct fix_input *in, struct fix_list *out)
{
	const struct vma_file *f = in->gates && in->gates->vma_file.read ? &in->gates->vma_file : NULL;
	bool per_file = f && f->mount_found && strstr(f->options, "dax=inode");
	/* paths are the process's to name: escaped for the terminal */
	const char *point = f && f->mount_found ? esc(f->mount_point) : "the file system";
	const char *file = f && f->path[0] ? esc(f->path) : f && f->name[0] ? esc(f->name) : "FILE";
	fix_add(out, FIX_PRIMARY,
	    "Register ordinary memory instead: allocate the buffer anonymously (or from hugetlbfs) "
	    "and copy to and from %s, or give the application device DAX (`ndctl "
	    "create-namespace -m devdax`: a /dev/daxN.M character device, whose pages the kernel "
	    "does pin long-term).", file);
	if (per_file)
		fix_add(out, FIX_ALTERNATIVE,
		    "%s is mounted dax=inode: clear the file's DAX flag (`xfs_io -c 'chattr -x' %s`; "
		    "it takes effect once no process has the file open) so it goes through the page "
		    "cache, whose pages can be pinned.", point, file);
	else
		fix_add(out, FIX_ALTERNATIVE,
		    "Or mount %s without DAX (`-o dax=never`, or dax=inode and the file's DAX flag "
		    "cleared) so the file goes through the page cache, whose pages can be pinned: "
		    "the file system then loses direct access for every file.", point);
}

void fixes_pin_fault(const struct fix_input *in, struct fix_list *out)
{
	(void)in;
	fix_add(out, FIX_PRIMARY,
	    "Register only memory the process has mapped with read/write access for the whole "
	    "range (check the buffer's lifetime: a use-after-free of a registered buffer "
	    "looks like this).");
	fix_add(out, FIX_ALTERNATIVE,
	    "If this is GPU memory passed as a host pointer, see pin_device_memory: "
	    "nvidia-peermem or dma-buf is needed.");
}

void fixes_dma_map_iova(const struct fix_input *in, struct fix_list *out)
{
	(void)in;
	fix_add(out, FIX_PRIMARY,
	    "Boot with the IOMMU in passthrough for the NIC (iommu=pt, or "
	    "intel_iommu=on iommu=pt), which is what RDMA vendors recommend for HPC nodes.");
	fix_add(out, FIX_ALTERNATIVE,
	    "If the NIC is limited to a small DMA window, check BAR/IOVA layout (pci=realloc, "
	    "above-4G decoding in firmware) and the driver's DMA mask.");
}

/* Only the kernel's ib_umem_dmabuf_get says the fd was the trouble; a
 * library call's EBADF alone is NCCL's probe as often as a bug. */
void fixes_dmabuf_bad_fd(const struct fix_input *in, struct fix_list *out)
{
	if (in->ev && in->ev->kind == MRT_EV_USER_CALL)
		return;
	fix_add(out, FIX_PRIMARY, "Pass a dma-buf fd exported by the GPU driver "
			    "(cuMemGetHandleForAddressRange) and keep it open until the "
			    "registration returns.");
}

/* The firmware's status at the decisive mlx5_cmd_exec step (a1; the
 * syndrome is a2) names the limit or the lookup. */
void fixes_mlx5_firmware(const struct fix_input *in, struct fix_list *out)
{
	if (!in->ev || !in->v || in->v->decisive_step < 0 || in->v->decisive_step >= MRT_TRAIL_MAX)
		return;
	const struct mrt_step *s = &in->ev->steps[in->v->decisive_step];
	if (s->a1 == 0x8)
		fix_add(out, FIX_PRIMARY,
		    "LIM_ERR: a firmware resource limit (MKeys or translation entries) is "
		    "reached; reduce the number/size of MRs (NCCL_BUFFSIZE, channels) or "
		    "check the NIC's profile (mlxconfig) and firmware version.");
	else
		fix_add(out, FIX_PRIMARY,
		    "Look up syndrome 0x%llx for this opcode in the firmware release notes; "
		    "`dmesg` shows mlx5_cmd_out_err with the same syndrome.",
		    (unsigned long long)s->a2);
	fix_add(out, FIX_ALTERNATIVE, "Update the NIC firmware to the version matching the driver "
				"(`mrtrace check` shows fw_ver per device).");
}

/* EAGAIN from the firmware's NO_RES_ERR: retry, and if it stays, fewer keys. */
void fixes_reg_retry(const struct fix_input *in, struct fix_list *out)
{
	fix_add(out, FIX_PRIMARY,
	    "Retry the registration after a short back-off: EAGAIN is the kernel's \"try "
	    "again\" and nothing below the application retries it (a framework that treats "
	    "every ibv_reg_mr failure as fatal stops the job on it).");
	fix_add(out, FIX_ALTERNATIVE,
	    "If it keeps failing the HCA is short of memory keys or firmware memory: fewer, "
	    "larger registrations (NCCL's registration cache, NCCL_BUFFSIZE, fewer channels), "
	    "and `dmesg` for mlx5 page-request (MANAGE_PAGES) errors on that device.");
	(void)in;
}

/* The device is dead until reset: what brings it back, and where it says why. */
void fixes_device_fatal(const struct fix_input *in, struct fix_list *out)
{
	fix_add(out, FIX_PRIMARY,
	    "Reset the device, then restart the job (its QPs and MRs are gone): mlx5 recovers "
	    "by itself when health recovery is on (`devlink health show` reporter fw_fatal, "
	    "auto_recover true), else `devlink dev reload pci/<BDF>` or reload mlx5_core.");
	fix_add(out, FIX_ALTERNATIVE,
	    "Find why it died before resetting: `dmesg` (mlx5 health syndrome, \"device's health "
	    "compromised\", PCI/AER errors) and `devlink health dump show pci/<BDF> reporter "
	    "fw_fatal`; drain the node if it repeats (firmware or hardware fault).");
	(void)in;
}

void fixes_bad_access_flags(const struct fix_input *in, struct fix_list *out)
{
	bool unknown = in->ev && ib_access_unknown(in->ev->cmd_access);

	fix_add(out, FIX_PRIMARY, "%s",
	    unknown ? "Drop the unsupported flag (e.g. IBV_ACCESS_RELAXED_ORDERING on a "
		      "kernel without it: NCCL_IB_PCI_RELAXED_ORDERING=0), or update the "
		      "kernel/driver."
		    : "Add IBV_ACCESS_LOCAL_WRITE whenever REMOTE_WRITE or REMOTE_ATOMIC "
		      "is requested.");
}

void fixes_iova_misaligned(const struct fix_input *in, struct fix_list *out)
{
	(void)in;
	fix_add(out, FIX_PRIMARY,
	    "Pass an iova with the same page offset as the buffer (NCCL passes iova = addr "
	    "to ibv_reg_mr_iova2); a plugin or wrapper that rewrites iova must keep the "
	    "offset.");
}

/* A charge seen failing in the trail names the resource; a refusal judged
 * from the errno and the cgroup's rdma.max (inferred) names the cgroup. */
void fixes_rdma_cgroup_limit(const struct fix_input *in, struct fix_list *out)
{
	if (in->v && in->v->certainty == CERT_INFERRED) {
		const struct gate_facts *g = in->gates;
		fix_add(out, FIX_PRIMARY, "Raise the limit in rdma.max of %s (or the container "
					  "runtime's rdma limits).",
			g && g->have_rdmacg ? g->rdmacg_path : "the process's cgroup");
		return;
	}
	bool handle = in->ev && rdma_cgroup_charges_handle(in->ev);
	fix_add(out, FIX_PRIMARY,
	    "Raise %s in the cgroup's rdma.max (e.g. `echo \"<dev> %s=max\" > "
	    "/sys/fs/cgroup/<cgroup>/rdma.max`), or in the container runtime's rdma limits.",
	    handle ? "hca_handle" : "hca_object", handle ? "hca_handle" : "hca_object");
	fix_add(out, FIX_ALTERNATIVE, "Check for leaked verbs objects: compare rdma.current with the "
				"number of MRs the job should hold.");
}
