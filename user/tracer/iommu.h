/* SPDX-License-Identifier: GPL-2.0-only */
/* iommu.h - whether an IOMMU translates DMA on this machine (iommu.c). */
#ifndef MRTRACE_TRACER_IOMMU_H
#define MRTRACE_TRACER_IOMMU_H

#include <stdbool.h>

/* True when some iommu group of /sys/kernel/iommu_groups has a translating
 * default domain ("DMA" or "DMA-FQ"; not "identity", "blocked" or no IOMMU
 * at all).  Then a registration's ENOMEM past the memlock check, with every
 * VMA of the range pinnable, may be the IOVA space running out as well as a
 * failed migration of a long-term pin: ib_umem_get's exit does not say
 * which (bpf/regpath/umem.bpf.c; --hot-sites probes the functions). */
bool tracer_iommu_translates(void);

/* The same over a directory laid out as /sys/kernel/iommu_groups (tests). */
bool tracer_iommu_translates_at(const char *groups_dir);

#endif
