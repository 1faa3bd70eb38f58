// SPDX-License-Identifier: GPL-2.0-only
/* names.c - API and memory-source names (see names.h). */
#include "names.h"

#include <string.h>

static const char *const api_args[] = { "reg_mr", "iova2", "dmabuf" };
static const char *const api_names[] = { "ibv_reg_mr", "ibv_reg_mr_iova2", "ibv_reg_dmabuf_mr" };
static const char *const mem_names[] = { "anon", "malloc", "hugetlb", "vvar", "unmapped",
					 "prot-none", "readonly", "udmabuf", "gpu", "dmabuf-fd" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *mp_api_arg(enum mr_api a)
{
	return (unsigned)a < COUNT(api_args) ? api_args[a] : "?";
}

const char *mp_api_name(enum mr_api a)
{
	return (unsigned)a < COUNT(api_names) ? api_names[a] : "?";
}

int mp_api_parse(const char *s, enum mr_api *out)
{
	for (unsigned i = 0; i < COUNT(api_args); i++)
		if (!strcmp(s, api_args[i]) || !strcmp(s, api_names[i])) {
			*out = (enum mr_api)i;
			return 0;
		}
	return -1;
}

const char *mp_mem_name(enum mem_kind m)
{
	return (unsigned)m < COUNT(mem_names) ? mem_names[m] : "?";
}

int mp_mem_parse(const char *s, enum mem_kind *out)
{
	/* dmabuf-fd is chosen by --dmabuf-fd, not by name. */
	for (unsigned i = 0; i < COUNT(mem_names); i++)
		if (i != MEM_DMABUF_FD && !strcmp(s, mem_names[i])) {
			*out = (enum mem_kind)i;
			return 0;
		}
	if (!strcmp(s, "prot_none") || !strcmp(s, "protnone")) {
		*out = MEM_PROT_NONE;
		return 0;
	}
	return -1;
}
