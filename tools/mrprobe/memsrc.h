/* SPDX-License-Identifier: GPL-2.0-only */
/* memsrc.h - the memory a registration points at.
 *
 * Each kind exists to reach one kernel failure path (docs/design.md section 2):
 * anon and malloc reach the memlock check (malloc with its unaligned start),
 * hugetlb an empty pool at pin time, vvar the VM_IO|VM_PFNMAP refusal that
 * GPU BAR memory meets without a peer-memory client, unmapped / prot-none /
 * readonly the other EFAULTs of page pinning, udmabuf and gpu the dma-buf
 * path, which has no memlock accounting at all. */
#ifndef MRPROBE_MEMSRC_H
#define MRPROBE_MEMSRC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"

struct mrbuf {
	enum mem_kind kind;
	uint64_t addr;          /* start to register: a CPU or GPU virtual address */
	uint64_t len;           /* bytes to register */
	int dmabuf_fd;          /* -1 unless registering a dma-buf */
	uint64_t dmabuf_offset;
	char note[200];         /* something the user should know, or "" */
	/* how to give it back */
	void *map;
	size_t maplen;
	void *heap;
	int memfd;
	bool own_dmabuf_fd;
	uint64_t gpu_ptr;
};

/* Provides len bytes of the given kind, starting offset bytes into a fresh
 * mapping where the kind allows it.  want_dmabuf (gpu only) also exports the
 * memory as a dma-buf fd.  user_fd is the --dmabuf-fd value.  Returns 0,
 * or -1 with one sentence in err. */
int mp_mem_get(enum mem_kind kind, uint64_t len, uint64_t offset, bool want_dmabuf, int user_fd,
	    struct mrbuf *b, char *err, size_t errlen);

void mp_mem_put(struct mrbuf *b);

/* The [vvar] mapping of this process from /proc/self/maps.  Returns 0 or -1. */
int mp_find_vvar(uint64_t *start, uint64_t *end);

#endif
