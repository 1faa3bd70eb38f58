/* SPDX-License-Identifier: GPL-2.0-only */
/* names.h - the registration APIs and memory sources mrprobe can use, and
 * their names on the command line and in the output. */
#ifndef MRPROBE_NAMES_H
#define MRPROBE_NAMES_H

enum mr_api {
	API_REG_MR,  /* ibv_reg_mr: NCCL without relaxed ordering */
	API_IOVA2,   /* ibv_reg_mr_iova2, iova = addr: NCCL with relaxed ordering */
	API_DMABUF,  /* ibv_reg_dmabuf_mr: NCCL's GPU buffers with dma-buf */
};

enum mem_kind {
	MEM_ANON,      /* mmap(MAP_ANONYMOUS): page-aligned host memory */
	MEM_MALLOC,    /* malloc(): glibc's unaligned start */
	MEM_HUGETLB,   /* MAP_HUGETLB */
	MEM_VVAR,      /* the [vvar] mapping: VM_IO|VM_PFNMAP, like a GPU BAR */
	MEM_UNMAPPED,  /* an address range just munmap'd: no VMA */
	MEM_PROT_NONE, /* PROT_NONE mapping */
	MEM_READONLY,  /* PROT_READ mapping, registered with write access */
	MEM_UDMABUF,   /* dma-buf from /dev/udmabuf over a memfd */
	MEM_GPU,       /* cuMemAlloc through a dlopen'd libcuda.so.1 */
	MEM_DMABUF_FD, /* a dma-buf fd number given by the user (--dmabuf-fd) */
};

/* Command-line spelling ("iova2") and the verbs function ("ibv_reg_mr_iova2"). */
const char *mp_api_arg(enum mr_api a);
const char *mp_api_name(enum mr_api a);
/* Accepts either spelling; returns 0 or -1. */
int mp_api_parse(const char *s, enum mr_api *out);

const char *mp_mem_name(enum mem_kind m);
int mp_mem_parse(const char *s, enum mem_kind *out);

#endif
