// SPDX-License-Identifier: GPL-2.0-only
/* nccl_layout.c - NCCL's per-connection buffer layout (see nccl_layout.h). */
#include "nccl/layout.h"

#include "core/pages.h"

const char *nccl_layout_proto_name(enum nccl_proto p)
{
	switch (p) {
	case NCCL_PROTO_LL: return "LL";
	case NCCL_PROTO_LL128: return "LL128";
	case NCCL_PROTO_SIMPLE: return "Simple";
	default: return "?";
	}
}

uint64_t nccl_layout_proto_bytes(const struct nccl_layout *l, enum nccl_proto p, uint64_t page)
{
	switch (p) {
	case NCCL_PROTO_LL: return pages_round_up(NCCL_LL_BYTES, page);
	case NCCL_PROTO_LL128: return pages_round_up(NCCL_LL128_BYTES, page);
	case NCCL_PROTO_SIMPLE: return pages_round_up(l->buffsize, page);
	default: return 0;
	}
}

bool nccl_layout_proto_on_gpu(const struct nccl_layout *l, enum nccl_proto p)
{
	/* docs/design.md section 4: LL stays in host memory even with GDR. */
	return l->gdr && p != NCCL_PROTO_LL;
}

uint64_t nccl_layout_connections(const struct nccl_layout *l)
{
	return (uint64_t)l->channels * 2 * l->peers;
}

uint64_t nccl_layout_conn_bytes(const struct nccl_layout *l, uint64_t page)
{
	uint64_t sum = 0;
	for (int p = 0; p < NCCL_NPROTOS; p++)
		sum += nccl_layout_proto_bytes(l, (enum nccl_proto)p, page);
	return sum;
}

uint64_t nccl_layout_total_bytes(const struct nccl_layout *l, uint64_t page)
{
	return nccl_layout_connections(l) * nccl_layout_conn_bytes(l, page);
}

uint64_t nccl_layout_host_bytes(const struct nccl_layout *l, uint64_t page)
{
	uint64_t per_conn = 0;
	for (int p = 0; p < NCCL_NPROTOS; p++)
		if (!nccl_layout_proto_on_gpu(l, (enum nccl_proto)p))
			per_conn += nccl_layout_proto_bytes(l, (enum nccl_proto)p, page);
	return nccl_layout_connections(l) * per_conn;
}
