// SPDX-License-Identifier: GPL-2.0-only
/* estimate.c - the pinned host memory NCCL's network buffers need (nccl.h), to
 * show beside the memlock limit. */
#include "nccl/nccl.h"
#include "nccl/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/units.h"

/* ======================================================================
 * Pinned host memory estimate.  Per network connection NCCL allocates one
 * buffer per protocol (sizes in nccl/layout.h, docs/design.md section 4).
 * LL lives in host memory always; LL128 and Simple live in GPU memory when
 * GPUDirect RDMA is used, else in pinned host memory that counts against
 * RLIMIT_MEMLOCK.
 * ====================================================================== */

static uint64_t size_setting(const struct nccl_settings *s, const char *name, uint64_t def, int *set)
{
	const struct nccl_setting *v = s ? nccl_setting_get(s, name) : NULL;
	long long x;
	int trailing;
	if (!v || nccl_parse_int(v->value, &x, &trailing) || x <= 0)
		return def;
	*set = 1;
	return (uint64_t)x;	/* as NCCL reads it, trailing letters ignored */
}

static int int_setting(const struct nccl_settings *s, const char *name, int def)
{
	const struct nccl_setting *v = s ? nccl_setting_get(s, name) : NULL;
	long long x;
	int trailing;
	if (!v || nccl_parse_int(v->value, &x, &trailing) || x < 0 || x > 1024)
		return def;
	return (int)x;
}

void nccl_estimate(const struct nccl_settings *s, const struct nccl_estimate_params *p,
		   struct nccl_estimate *e)
{
	memset(e, 0, sizeof(*e));
	int set_ll = 0, set_ll128 = 0, set_simple = 0;
	e->ll_bytes = size_setting(s, "NCCL_LL_BUFFSIZE", NCCL_LL_BYTES, &set_ll);
	e->ll128_bytes = size_setting(s, "NCCL_LL128_BUFFSIZE", NCCL_LL128_BYTES, &set_ll128);
	if (p && p->buffsize) {
		e->simple_bytes = p->buffsize;  /* "what if": the setting as the caller says */
		set_simple = 1;
	} else {
		e->simple_bytes = size_setting(s, "NCCL_BUFFSIZE", NCCL_BUFFSIZE_DEFAULT, &set_simple);
	}

	int given_channels = p && p->channels > 0;
	e->channels = given_channels ? p->channels : 2;
	if (!given_channels) {
		/* the user's bounds move NCCL's choice */
		int mn = int_setting(s, "NCCL_MIN_NCHANNELS", 0);
		int mx = int_setting(s, "NCCL_MAX_NCHANNELS", 0);
		if (mn > e->channels)
			e->channels = mn;
		if (mx > 0 && mx < e->channels)
			e->channels = mx;
	}
	e->sends = p && p->sends > 0 ? p->sends : 1;
	e->recvs = p && p->recvs > 0 ? p->recvs : 1;
	e->nics = p && p->nics > 0 ? p->nics : 1;

	const struct nccl_setting *lvl = s ? nccl_setting_get(s, "NCCL_NET_GDR_LEVEL") : NULL;
	e->gdr = lvl && (!strcasecmp(lvl->value, "LOC") || !strcmp(lvl->value, "0")) ? NCCL_GDR_OFF
										      : NCCL_GDR_UNKNOWN;
	const struct nccl_setting *rd = s ? nccl_setting_get(s, "NCCL_NET_GDR_READ") : NULL;
	int gdr_read_off = rd && atoi(rd->value) == 0;

	uint64_t mult = (uint64_t)e->channels * (uint64_t)e->nics;
	e->per_conn_host_no_gdr = e->ll_bytes + e->ll128_bytes + e->simple_bytes;
	e->host_no_gdr = mult * (uint64_t)(e->sends + e->recvs) * e->per_conn_host_no_gdr;
	/* With GDR, receive buffers (and send buffers when GDR read is used)
	 * move to the GPU; LL stays in host memory. */
	uint64_t send_gdr = e->ll_bytes + (gdr_read_off ? e->ll128_bytes + e->simple_bytes : 0);
	e->host_with_gdr = mult * ((uint64_t)e->sends * send_gdr + (uint64_t)e->recvs * e->ll_bytes);
	if (e->gdr == NCCL_GDR_OFF) {
		e->host_min = e->host_max = e->host_no_gdr;
	} else {
		e->host_min = e->host_with_gdr;
		e->host_max = e->host_no_gdr;
	}

	char ll[32], ll128[32], simple[32];
	snprintf(e->assumptions, sizeof(e->assumptions),
		 "%d channel%s%s x (%d send + %d receive) network connection%s x %d NIC%s; per connection "
		 "LL %s + LL128 %s + Simple %s%s; %s; tree, p2p/all-to-all and shared buffers add more, "
		 "so this is a floor",
		 e->channels, e->channels == 1 ? "" : "s", given_channels ? "" : " (assumed)", e->sends,
		 e->recvs, e->sends + e->recvs == 1 ? "" : "s", e->nics, e->nics == 1 ? "" : "s",
		 fmt_bytes(e->ll_bytes, ll, sizeof(ll)), fmt_bytes(e->ll128_bytes, ll128, sizeof(ll128)),
		 fmt_bytes(e->simple_bytes, simple, sizeof(simple)),
		 set_simple || set_ll || set_ll128 ? " (from settings)" : "",
		 e->gdr == NCCL_GDR_OFF ? "GDR off (NCCL_NET_GDR_LEVEL), so LL128 and Simple are pinned host memory"
					: "GDR unknown: the low end assumes GDR, the high end assumes none");
}
