/* SPDX-License-Identifier: GPL-2.0-only */
/* options.h - mrprobe's command line: what to register, from which memory,
 * with which API and flags, under which privileges. */
#ifndef MRPROBE_OPTIONS_H
#define MRPROBE_OPTIONS_H
#include <stdbool.h>
#include <stdint.h>

#include "names.h"
#include "nccl/layout.h"

#define DEFAULT_SIZE (16ull << 20)
/* More registrations than this is a typo, not a job: refuse before allocating. */
#define MAX_REGISTRATIONS 1000000u

struct mrprobe_opts {
	const char *device;      /* -d; NULL: the first device */
	enum mr_api api;
	bool api_set;
	unsigned access;         /* --access; else NCCL's flags */
	bool access_set;
	bool relaxed_ordering;
	bool remote_atomic;
	int64_t iova_offset;     /* iova = addr + iova_offset */
	uint64_t size;           /* bytes per registration */
	bool size_set;
	unsigned count;
	bool count_set;
	struct nccl_layout nccl;
	bool nccl_set;           /* any --nccl-* option: sizes come from NCCL's layout */
	double hold;             /* seconds to keep MRs registered before exiting */
	bool find_max;
	enum mem_kind mem;
	bool mem_set;
	uint64_t offset;         /* start this many bytes into the mapping */
	int dmabuf_fd;           /* with mem == MEM_DMABUF_FD */
	bool thread;
	bool as_nobody;
	bool drop_ipc_lock;
	uint64_t memlock;        /* UINT64_MAX: unlimited */
	bool memlock_set;
	bool json;
	bool keep_going;
	bool nccl_probe;         /* NCCL's dma-buf probe first, in this process */
	bool no_device;          /* only allocate (and export) the memory: no RDMA device */
};

/* Parses argv into *o (defaults first).  argp_flags go to argp_parse: 0 in
 * main (argp prints the error and exits with status 2), ARGP_NO_EXIT |
 * ARGP_NO_ERRS in tests.  Returns 0 or an errno value (EINVAL). */
int mp_opts_parse(int argc, char **argv, unsigned argp_flags, struct mrprobe_opts *o);

/* The access flags the registrations use: --access, or NCCL's flags, plus
 * relaxed ordering / remote atomic when asked for. */
unsigned mp_opts_access(const struct mrprobe_opts *o);

#endif
