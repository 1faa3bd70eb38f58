// SPDX-License-Identifier: GPL-2.0-only
/* inferred_common.c - what inferred.c (the candidates) and inferred_rerun.c
 * (the proof) both use: the family of a call, and the sentences a verdict
 * rests on and says to check next.  Pure, as inferred.c. */
#include "verdict/inferred.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Families of calls: which kernel sites stand behind them. */
static const struct {
	const char *needle, *family;
} families[] = {
	{ "reg_dmabuf_mr", "reg_mr" }, { "reg_mr", "reg_mr" },     { "CREATE_MKEY", "reg_mr" },
	/* a provider's registration pins through ib_umem_get as ibv_reg_mr:
	 * libfabric's fi_mr_reg/fi_mr_regattr/fi_mr_regv (EFA, verbs) */
	{ "fi_mr_reg", "reg_mr" },
	{ "create_cq", "create_cq" },  { "create_qp", "create_qp" }, { "create_srq", "create_qp" },
	{ "alloc_pd", "create_qp" },   { "modify_qp", "modify_qp" }, { "open_device", "open_device" },
	{ "get_device_list", "open_device" }, { "uverbs", "open_device" },
	{ "shm", "shm" },              { "fallocate", "shm" },       { "ftruncate", "shm" },
	{ "query_gid", "modify_qp" },  { "fd_import", "fd_import" }, { "pidfd_getfd", "fd_import" },
	/* mlock(2), mlock2, mlockall: RLIMIT_MEMLOCK as a registration's pin */
	{ "mlock", "mlock" },
};

const char *inferred_call_family(const char *call)
{
	for (size_t i = 0; call && i < sizeof(families) / sizeof(families[0]); i++)
		if (strstr(call, families[i].needle))
			return families[i].family;
	return "other";
}

void inferred_rest(struct inferred *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nrests == INFERRED_MAX_RESTS)
		return;
	va_start(ap, fmt);
	vsnprintf(o->rests_on[o->nrests++], INFERRED_TEXT, fmt, ap);
	va_end(ap);
}

void inferred_next(struct inferred *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nnext == INFERRED_MAX_NEXT)
		return;
	va_start(ap, fmt);
	vsnprintf(o->next[o->nnext++], INFERRED_TEXT, fmt, ap);
	va_end(ap);
}


void inferred_weigh(struct inferred *o, const char *cause, int d)
{
	for (int i = 0; i < o->ncand; i++)
		if (!strcmp(o->cand[i].cause, cause))
			o->cand[i].score += d;
}

bool inferred_has(const struct inferred *o, const char *cause)
{
	for (int i = 0; i < o->ncand; i++)
		if (!strcmp(o->cand[i].cause, cause))
			return true;
	return false;
}
