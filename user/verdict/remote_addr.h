/* SPDX-License-Identifier: GPL-2.0-only */
/* remote_addr.h - the RoCE address resolution a failed modify_qp / create_ah
 * carries (MRT_SITE_ADDR_RESOLVE, bpf/regpath/failure_sites.bpf.c): the
 * remote GID, the source GID's netdev and its network namespace, and what
 * the kernel's errno says it saw of the route and the neighbour. */
#ifndef MRTRACE_VERDICT_REMOTE_ADDR_H
#define MRTRACE_VERDICT_REMOTE_ADDR_H

#include <stdbool.h>

#include "mrtrace.h"

struct remote_addr {
	int err;                  /* positive errno of the resolution */
	unsigned char gid[16];    /* the remote GID, as the address vector held it */
	char gid_text[48];        /* "::ffff:10.0.0.2", "fe80::1" */
	char ip[48];              /* the address it stands for ("10.0.0.2") */
	char netdev[16];          /* the source GID's netdev, "" when it had none */
	unsigned int ifindex;     /* in netns */
	unsigned int netns;       /* the netdev's network namespace inode, 0 unknown */
	const char *route;        /* "none", "unreachable", "found", "unknown" */
	const char *neighbour;    /* "unanswered", "not_tried", "unknown" */
};

/* The failed resolution step of ev, or false when it has none. */
bool remote_addr_of(const struct mrt_event *ev, struct remote_addr *out);

#endif
