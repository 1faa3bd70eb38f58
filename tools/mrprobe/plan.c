// SPDX-License-Identifier: GPL-2.0-only
/* plan.c - building the registration list (see plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mp_plan_sized(struct plan *p, uint64_t size, unsigned count)
{
	memset(p, 0, sizeof(*p));
	p->v = calloc(count ? count : 1, sizeof(*p->v));
	if (!p->v)
		return -1;
	for (unsigned i = 0; i < count; i++)
		p->v[i].len = size;
	p->n = count;
	return 0;
}

int mp_plan_nccl(struct plan *p, const struct nccl_layout *l, uint64_t page, bool with_gpu)
{
	memset(p, 0, sizeof(*p));
	uint64_t total = nccl_layout_connections(l) * NCCL_NPROTOS;
	p->v = calloc(total ? total : 1, sizeof(*p->v));
	if (!p->v)
		return -1;
	static const char *const dir[] = { "send", "recv" };
	for (unsigned c = 0; c < l->channels; c++)
		for (unsigned peer = 0; peer < l->peers; peer++)
			for (int d = 0; d < 2; d++)
				for (int proto = 0; proto < NCCL_NPROTOS; proto++) {
					bool gpu = nccl_layout_proto_on_gpu(l, (enum nccl_proto)proto);
					if (gpu && !with_gpu) {
						p->skipped_gpu++;
						continue;
					}
					struct plan_entry *e = &p->v[p->n++];
					e->len = nccl_layout_proto_bytes(l, (enum nccl_proto)proto, page);
					e->on_gpu = gpu;
					snprintf(e->label, sizeof(e->label), "ch%u peer%u %s %s", c, peer,
						 dir[d], nccl_layout_proto_name((enum nccl_proto)proto));
				}
	return 0;
}

uint64_t mp_plan_bytes(const struct plan *p)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < p->n; i++)
		sum += p->v[i].len;
	return sum;
}

void mp_plan_free(struct plan *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
