// SPDX-License-Identifier: GPL-2.0-only
/* remote_addr.c - reads the RoCE address resolution step of a failed
 * modify_qp / create_ah.  What the kernel saw follows from where in
 * rdma_resolve_ip's path the errno comes from (drivers/infiniband/core/
 * addr.c, the same in 5.10 .. 7.2): the route lookup in the netdev's
 * namespace returns ENETUNREACH (no route) or EHOSTUNREACH (an unreachable
 * or prohibit route) before any neighbour is asked; ENODATA from the
 * neighbour lookup is retried until the resolver's 1 s timeout, which
 * becomes ETIMEDOUT (the neighbour never answered); ENODEV is a GID whose
 * netdev is gone, or a route through loopback with no device owning the
 * address. */
#include "verdict/remote_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc/gidtable.h"
#include "verdict/verdict.h"

bool remote_addr_of(const struct mrt_event *ev, struct remote_addr *r)
{
	int i = trail_first_failed(ev, MRT_SITE_ADDR_RESOLVE);
	const struct mrt_step *s;

	memset(r, 0, sizeof(*r));
	if (i < 0)
		return false;
	s = &ev->steps[i];
	r->err = -s->ret;
	/* the step holds the GID's bytes as the kernel stored them */
	memcpy(r->gid, &s->a0, 8);
	memcpy(r->gid + 8, &s->a1, 8);
	if (!inet_ntop(AF_INET6, r->gid, r->gid_text, sizeof(r->gid_text)))
		snprintf(r->gid_text, sizeof(r->gid_text), "?");
	if (gid_is_ipv4(r->gid))
		inet_ntop(AF_INET, r->gid + 12, r->ip, sizeof(r->ip));
	else
		snprintf(r->ip, sizeof(r->ip), "%s", r->gid_text);
	r->netns = (unsigned int)(s->a2 >> 32);
	r->ifindex = (unsigned int)s->a2;
	/* op_limits[1..2]: the netdev's name, NUL-padded (IFNAMSIZ 16) */
	memcpy(r->netdev, &ev->op_limits[1], sizeof(r->netdev) - 1);
	for (size_t k = 0; k < sizeof(r->netdev) - 1; k++)
		if (r->netdev[k] && (r->netdev[k] < 0x21 || r->netdev[k] > 0x7e))
			r->netdev[k] = '?'; /* a name is hostile input like any other */
	switch (r->err) {
	case ENETUNREACH: r->route = "none"; r->neighbour = "not_tried"; break;
	case EHOSTUNREACH: r->route = "unreachable"; r->neighbour = "not_tried"; break;
	case ETIMEDOUT: r->route = "found"; r->neighbour = "unanswered"; break;
	default: r->route = "unknown"; r->neighbour = "unknown"; break;
	}
	return true;
}
