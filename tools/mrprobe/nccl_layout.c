/* nccl_layout.c - NCCL's per-connection buffer layout (see nccl_layout.h). */
#include "nccl_layout.h"

#include "pages.h"

const char *mp_nccl_proto_name(enum nccl_proto p)
{
	switch (p) {
	case NCCL_PROTO_LL: return "LL";
	case NCCL_PROTO_LL128: return "LL128";
	case NCCL_PROTO_SIMPLE: return "Simple";
	default: return "?";
	}
}

uint64_t mp_nccl_proto_bytes(const struct nccl_layout *l, enum nccl_proto p, uint64_t page)
{
	switch (p) {
	case NCCL_PROTO_LL: return mp_round_up(NCCL_LL_BYTES, page);
	case NCCL_PROTO_LL128: return mp_round_up(NCCL_LL128_BYTES, page);
	case NCCL_PROTO_SIMPLE: return mp_round_up(l->buffsize, page);
	default: return 0;
	}
}

bool mp_nccl_proto_on_gpu(const struct nccl_layout *l, enum nccl_proto p)
{
	/* DESIGN.md section 2: LL stays in host memory even with GDR. */
	return l->gdr && p != NCCL_PROTO_LL;
}

uint64_t mp_nccl_connections(const struct nccl_layout *l)
{
	return (uint64_t)l->channels * 2 * l->peers;
}

uint64_t mp_nccl_conn_bytes(const struct nccl_layout *l, uint64_t page)
{
	uint64_t sum = 0;
	for (int p = 0; p < NCCL_NPROTOS; p++)
		sum += mp_nccl_proto_bytes(l, (enum nccl_proto)p, page);
	return sum;
}

uint64_t mp_nccl_total_bytes(const struct nccl_layout *l, uint64_t page)
{
	return mp_nccl_connections(l) * mp_nccl_conn_bytes(l, page);
}

uint64_t mp_nccl_host_bytes(const struct nccl_layout *l, uint64_t page)
{
	uint64_t per_conn = 0;
	for (int p = 0; p < NCCL_NPROTOS; p++)
		if (!mp_nccl_proto_on_gpu(l, (enum nccl_proto)p))
			per_conn += mp_nccl_proto_bytes(l, (enum nccl_proto)p, page);
	return mp_nccl_connections(l) * per_conn;
}
