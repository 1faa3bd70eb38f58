// SPDX-License-Identifier: GPL-2.0-only
/* info.c - all of nccl.h for one process: library, settings, rank, lint
 * and the default estimate, read once. */
#include "nccl/nccl.h"

#include <stdlib.h>
#include <string.h>

int nccl_info_read(const char *root, const struct proc_context *ctx, struct nccl_info *out)
{
	memset(out, 0, sizeof(*out));
	static const struct ctx_env empty;
	const struct ctx_env *env = ctx->have & CTX_HAVE_ENV ? &ctx->env : &empty;
	int rc_lib = nccl_lib_detect(root, ctx->pid, &out->lib);
	/* getpwuid(getuid()) runs inside the process: use its namespace's uid */
	long uid = ctx->have & CTX_HAVE_NS_UID ? (long)ctx->ns_uid
		   : ctx->have & CTX_HAVE_UID ? (long)ctx->uid : -1;
	nccl_settings_read_for(root, ctx->pid, env, uid, out->lib.found ? &out->lib : NULL, &out->settings);
	nccl_rank_from_env(env, &out->rank);
	nccl_lint_settings_for(&out->settings, out->lib.found ? &out->lib : NULL, &out->lint);
	nccl_estimate(&out->settings, NULL, &out->estimate);
	if (rc_lib < 0 && !(ctx->have & CTX_HAVE_ENV))
		return rc_lib;
	return 0;
}

struct nccl_info *nccl_info_alloc(void)
{
	return calloc(1, sizeof(struct nccl_info));
}
