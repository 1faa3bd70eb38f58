// SPDX-License-Identifier: GPL-2.0-only
/* kenv.c - the kernel's copy of what places a process (kenv.h). */
#include "watch/kenv.h"

#include <string.h>

void corr_kenv_take(struct corr_kenv *k, const struct mrt_environ *e, size_t len)
{
	k->pid = e->pid;
	k->uid = e->uid;
	k->start_ns = e->start_ns;
	k->exe_ino = e->exe.ino;
	k->exe_dev = e->exe.dev;
	memcpy(k->exe_name, e->exe.name, sizeof(k->exe_name));
	k->exe_name[sizeof(k->exe_name) - 1] = '\0';
	k->nanc = e->nancestors < MRT_ENV_ANCESTORS ? (int)e->nancestors : MRT_ENV_ANCESTORS;
	memcpy(k->anc, e->anc, sizeof(k->anc));
	for (int i = 0; i < MRT_ENV_ANCESTORS; i++)
		k->anc[i].comm[MRT_COMM_LEN - 1] = '\0';
	/* the block stays in the ring's pages (the kernel's, mapped read-only
	 * here, overwritten as the ring wraps): no copy of it is made */
	proc_env_from_kernel(&k->env, e->env, len, e->env_total, e->env_holes, MRT_ENV_CHUNK);
}

bool corr_kenv_same(const struct corr_kenv *k, const struct mrt_event *ev)
{
	if (!ev->start_ns || k->start_ns != ev->start_ns || k->pid != ev->pid)
		return false;
	if (ev->exe_ino && k->exe_ino && ev->exe_ino != k->exe_ino)
		return false;
	return k->uid == ev->uid;
}

void corr_kenv_graft(const struct corr_kenv *k, struct proc_context *ctx)
{
	struct ctx_launcher walked[CTX_MAX_LAUNCHERS];
	int nwalked = 0, from = 0;

	ctx->env = k->env;
	ctx->have |= CTX_HAVE_ENV;
	if (!k->nanc)
		return;
	if ((ctx->have & CTX_HAVE_LAUNCHERS) && ctx->n_launchers > 0) {
		if (ctx->launchers[0].pid == (int)k->anc[0].tgid)
			return; /* /proc walked from the same parent: its chain is longer */
		nwalked = ctx->n_launchers;
		memcpy(walked, ctx->launchers, sizeof(walked));
	}
	/* the parent exited too (/proc walked from further up, or not at all):
	 * the chain as the kernel saw it, then what /proc found above it */
	ctx->n_launchers = 0;
	for (int i = 0; i < k->nanc && i < CTX_MAX_LAUNCHERS; i++) {
		struct ctx_launcher *l = &ctx->launchers[ctx->n_launchers++];
		l->pid = (int)k->anc[i].tgid;
		memcpy(l->comm, k->anc[i].comm, sizeof(l->comm));
		l->comm[sizeof(l->comm) - 1] = '\0';
		l->kind = launcher_classify(l->pid, l->comm, NULL);
		for (int j = 0; j < nwalked; j++)
			if (walked[j].pid == l->pid)
				from = j + 1;
	}
	for (int j = from; j < nwalked && ctx->n_launchers < CTX_MAX_LAUNCHERS; j++)
		ctx->launchers[ctx->n_launchers++] = walked[j];
	if (!nwalked)
		ctx->launchers_truncated = k->nanc == MRT_ENV_ANCESTORS && k->anc[k->nanc - 1].tgid > 1;
	ctx->have |= CTX_HAVE_LAUNCHERS;
}

void corr_kenv_nccl(const struct corr_kenv *k, const struct proc_context *ctx,
		    struct nccl_info *out)
{
	(void)k;
	memset(out, 0, sizeof(*out));
	nccl_rank_from_env(&ctx->env, &out->rank);
}
