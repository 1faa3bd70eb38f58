/* SPDX-License-Identifier: GPL-2.0-only */
/* gidselect.h - the GID index NCCL's IB transport will use on a port, as
 * the NCCL version the job loads implements it (docs/design.md, "NCCL
 * facts"; read in NVIDIA/nccl's net_ib code, 2.3 to 2.30):
 *
 *   - before 2.21: NCCL_IB_GID_INDEX, default 0; nothing else is read;
 *   - 2.21 and later: NCCL_IB_GID_INDEX >= 0 pins the index (on RoCE;
 *     from 2.22 InfiniBand ports ignore it and take
 *     NCCL_IB_ROUTABLE_FLID_GID_INDEX, default 1, when that GID carries a
 *     FLID, else 0); unset (-1) NCCL searches the table from index 0 for
 *     an entry of NCCL_IB_ADDR_FAMILY (AF_INET, or AF_INET6), inside
 *     NCCL_IB_ADDR_RANGE ("addr/len"), not link-local, of RoCE version
 *     NCCL_IB_ROCE_VERSION_NUM (2), reading gid_attrs/types/I of the
 *     candidates itself: an open that fails stops NCCL (ncclSystemError),
 *     a read that fails too up to 2.25, and from 2.26 a read failing with
 *     EINVAL (a container's sysfs) only skips the entry;
 *   - 2.21 and 2.22 crash on an NCCL_IB_ADDR_RANGE without '/'.
 *
 * Pure: a recorded table (proc/gidtable.h) and settings in, the choice out. */
#ifndef MRTRACE_NCCL_GIDSELECT_H
#define MRTRACE_NCCL_GIDSELECT_H
#include <stdbool.h>

#include "nccl/nccl.h"
#include "proc/gidtable.h"

struct nccl_gid_params {
	bool version_known;          /* else the newest rules are applied */
	int major, minor;
	long long gid_index;         /* NCCL_IB_GID_INDEX as NCCL parses it; -1 unset (2.21+) */
	bool gid_index_set;          /* the setting exists (and parses) */
	int family;                  /* AF_INET or AF_INET6 */
	bool range_set;              /* NCCL_IB_ADDR_RANGE parsed and in use */
	bool range_crashes;          /* 2.21/2.22 and no '/' in it */
	unsigned char prefix[16];    /* AF_INET: the address in prefix[0..3] */
	int prefixlen;
	long long roce_version;      /* NCCL_IB_ROCE_VERSION_NUM, default 2 */
	long long flid_index;        /* NCCL_IB_ROUTABLE_FLID_GID_INDEX, default 1 */
	char note[256];              /* what NCCL ignores or refuses in these settings */
};

/* The parameters a process's settings give, for its NCCL version (lib may
 * be NULL or of unknown version: the newest rules). */
void nccl_gid_params(const struct nccl_settings *s, const struct nccl_lib *lib,
		     struct nccl_gid_params *p);

enum nccl_gid_how {
	NCCL_GID_PINNED = 0,         /* NCCL_IB_GID_INDEX (or the old default 0) */
	NCCL_GID_SELECTED,           /* NCCL's own search (2.21+) */
	NCCL_GID_IB_FLID,            /* an InfiniBand port (2.22+): the FLID rule */
	NCCL_GID_FAILS,              /* the search stops NCCL with ncclSystemError */
	NCCL_GID_CRASHES,            /* 2.21/2.22: NCCL_IB_ADDR_RANGE without '/' */
};

struct nccl_gid_choice {
	enum nccl_gid_how how;
	int index;                   /* the index NCCL uses; -1 with FAILS/CRASHES */
	/* FAILS: the types/I NCCL could not open or read, and the errno */
	int fail_index, fail_errno;
	bool fail_open;
	bool approximate;            /* populated entries beyond what the table kept */
};

/* The index NCCL uses on the port whose table is t. */
void nccl_gid_select(const struct gid_table *t, const struct nccl_gid_params *p,
		     struct nccl_gid_choice *out);

/* NCCL's tests on one GID: its address family (an IPv4-mapped address,
 * unicast or multicast, is AF_INET), configured (not zero, not the bare
 * fe80:: prefix) and link-local. */
int nccl_gid_family(const unsigned char raw[16]);
bool nccl_gid_valid(const unsigned char raw[16]);

#endif
