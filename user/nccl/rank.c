// SPDX-License-Identifier: GPL-2.0-only
/* rank.c - the rank of a process from its launcher's variables (nccl.h). */
#include "nccl/nccl.h"

#include <stdlib.h>

/* ======================================================================
 * Rank: the launcher's variables, most specific first.
 * ====================================================================== */

static long env_long(const struct ctx_env *env, const char *const *names, const char **which)
{
	for (; *names; names++) {
		const char *v = proc_env_get(env, *names);
		if (!v || !*v)
			continue;
		char *end;
		long x = strtol(v, &end, 10);
		if (*end || x < 0)
			continue;
		if (which)
			*which = *names;
		return x;
	}
	return -1;
}

void nccl_rank_from_env(const struct ctx_env *env, struct nccl_rank *out)
{
	static const char *const rank[] = { "RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "SLURM_PROCID", NULL };
	static const char *const local[] = { "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
					     "SLURM_LOCALID", NULL };
	static const char *const world[] = { "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
					     "SLURM_NTASKS", NULL };
	out->rank_var = NULL;
	out->rank = env_long(env, rank, &out->rank_var);
	out->local_rank = env_long(env, local, NULL);
	out->world_size = env_long(env, world, NULL);
}
