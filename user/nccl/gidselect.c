// SPDX-License-Identifier: GPL-2.0-only
/* gidselect.c - NCCL's choice of a port's GID index (gidselect.h).
 *
 * The search is NCCL's own, step by step: index 0 is the start, and each
 * later candidate replaces the current choice when it is of the wanted
 * family (and range) while the current one is not, or when it is a valid
 * GID of the wanted family whose RoCE version is the one asked for while
 * the current one's differs or is not valid.  Only for the second test are
 * the two types read, so only then can unreadable gid_attrs stop NCCL. */
#include "nccl/gidselect.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static bool before(const struct nccl_gid_params *p, int major, int minor)
{
	return p->version_known && (p->major < major || (p->major == major && p->minor < minor));
}

/* An integer NCCL parameter: strtoll(v, NULL, 0); unparsable: the default. */
static long long param(const struct nccl_settings *s, const char *name, long long def, bool *set)
{
	const struct nccl_setting *v = s ? nccl_setting_get(s, name) : NULL;
	long long x;
	int trailing;

	if (set)
		*set = false;
	if (!v || !v->value[0] || nccl_parse_int(v->value, &x, &trailing))
		return def;
	if (set)
		*set = true;
	return x;
}

static void note(struct nccl_gid_params *p, const char *text)
{
	size_t n = strlen(p->note);
	snprintf(p->note + n, sizeof(p->note) - n, "%s%s", n ? "; " : "", text);
}

/* NCCL_IB_ADDR_RANGE "addr/len" as envIbAddrRange reads it */
static void addr_range(const char *v, struct nccl_gid_params *p)
{
	char buf[128], *slash;
	long len;

	if (!v || !v[0])
		return;
	snprintf(buf, sizeof(buf), "%.127s", v); /* NCCL copies 128 bytes too */
	if (!(slash = strchr(buf, '/'))) {
		if (before(p, 2, 23))
			p->range_crashes = true;
		else
			note(p, "NCCL_IB_ADDR_RANGE has no '/len': NCCL ignores it");
		return;
	}
	*slash++ = 0;
	if (inet_pton(p->family, buf, p->prefix) != 1) {
		note(p, p->family == AF_INET ? "NCCL_IB_ADDR_RANGE is not an IPv4 address "
					       "(NCCL_IB_ADDR_FAMILY): NCCL ignores it"
					     : "NCCL_IB_ADDR_RANGE is not an IPv6 address: NCCL ignores it");
		return;
	}
	len = strtol(slash, NULL, 10);
	if (len > (p->family == AF_INET ? 32 : 128)) {
		note(p, "NCCL_IB_ADDR_RANGE's length is too long for the family: NCCL ignores it");
		return;
	}
	p->range_set = true;
	p->prefixlen = (int)len;
}

void nccl_gid_params(const struct nccl_settings *s, const struct nccl_lib *lib,
		     struct nccl_gid_params *p)
{
	const struct nccl_setting *fam, *range;

	memset(p, 0, sizeof(*p));
	p->version_known = lib && lib->found && lib->version_known;
	if (p->version_known) {
		p->major = lib->major;
		p->minor = lib->minor;
	}
	p->family = AF_INET;
	p->roce_version = 2;
	p->flid_index = 1;
	if (before(p, 2, 21)) {
		/* NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", 0): nothing else read */
		p->gid_index = param(s, "NCCL_IB_GID_INDEX", 0, &p->gid_index_set);
		return;
	}
	p->gid_index = param(s, "NCCL_IB_GID_INDEX", -1, &p->gid_index_set);
	p->roce_version = param(s, "NCCL_IB_ROCE_VERSION_NUM", 2, NULL);
	p->flid_index = param(s, "NCCL_IB_ROUTABLE_FLID_GID_INDEX", 1, NULL);
	fam = s ? nccl_setting_get(s, "NCCL_IB_ADDR_FAMILY") : NULL;
	if (fam && fam->value[0]) {
		if (!strcmp(fam->value, "AF_INET6"))
			p->family = AF_INET6;
		else if (strcmp(fam->value, "AF_INET"))
			note(p, "NCCL_IB_ADDR_FAMILY is neither AF_INET nor AF_INET6: NCCL uses AF_INET");
	}
	range = s ? nccl_setting_get(s, "NCCL_IB_ADDR_RANGE") : NULL;
	addr_range(range ? range->value : NULL, p);
}

/* ---- NCCL's tests on a GID ------------------------------------------------------- */

static unsigned word(const unsigned char r[16], int i)
{
	return (unsigned)r[4 * i] << 24 | (unsigned)r[4 * i + 1] << 16 | (unsigned)r[4 * i + 2] << 8 |
	       r[4 * i + 3];
}

int nccl_gid_family(const unsigned char r[16])
{
	bool mapped = !(word(r, 0) | word(r, 1) | (word(r, 2) ^ 0xffffu));
	bool mapped_mc = word(r, 0) == 0xff0e0000u && !(word(r, 1) | (word(r, 2) ^ 0xffffu));
	return mapped || mapped_mc ? AF_INET : AF_INET6;
}

static bool link_local(const unsigned char r[16])
{
	return word(r, 0) == 0xfe800000u && word(r, 1) == 0;
}

bool nccl_gid_valid(const unsigned char r[16])
{
	unsigned trailer = word(r, 1) | word(r, 2) | word(r, 3);
	bool configured = !(!(word(r, 0) | trailer) || (word(r, 0) == 0xfe800000u && !trailer));
	return configured && !link_local(r);
}

/* matchGidAddrPrefix: no range matches everything; a negative length nothing */
static bool in_range(const struct nccl_gid_params *p, const unsigned char r[16])
{
	int len = p->range_set ? p->prefixlen : 0;

	if (!p->range_set || len == 0)
		return true;
	if (len < 0)
		return false;
	if (p->family == AF_INET) {
		unsigned mask = len >= 32 ? 0xffffffffu : ~((1u << (32 - len)) - 1);
		return !((word(p->prefix, 0) ^ word(r, 3)) & mask);
	}
	for (int i = 0; len > 0 && i < 4; i++) {
		unsigned mask = len >= 32 ? 0xffffffffu : ~((1u << (32 - len)) - 1);
		if ((word(p->prefix, i) ^ word(r, i)) & mask)
			return false;
		len -= 32;
	}
	return true;
}

/* ---- the search ------------------------------------------------------------------ */

static const unsigned char zero[16];

static const unsigned char *raw_at(const struct gid_table *t, int index)
{
	const struct gid_entry *e = gid_table_entry(t, index);
	return e ? e->raw : zero;
}

static const struct gid_entry *kept(const struct gid_table *t, int index)
{
	for (int i = 0; i < t->n; i++)
		if (t->e[i].index == index)
			return &t->e[i];
	return NULL;
}

/* ncclIbRoceGetVersionNum: false when it stops NCCL */
static bool version_of(const struct gid_table *t, const struct nccl_gid_params *p, int index,
		       int *version, struct nccl_gid_choice *out)
{
	const struct gid_entry *e = kept(t, index);

	if (e && !e->type_errno) {
		if (e->roce_version)
			*version = e->roce_version;
		return true;
	}
	/* an entry the table did not keep is empty: its type reads EINVAL */
	int err = e ? e->type_errno : 22;
	bool open_failed = e && e->type_open_failed;
	if (!open_failed && err == 22 && !before(p, 2, 26))
		return true; /* 2.26+: "not mapped to the container sysfs", next entry */
	out->how = NCCL_GID_FAILS;
	out->index = -1;
	out->fail_index = index;
	out->fail_errno = err;
	out->fail_open = open_failed;
	return false;
}

void nccl_gid_select(const struct gid_table *t, const struct nccl_gid_params *p,
		     struct nccl_gid_choice *out)
{
	memset(out, 0, sizeof(*out));
	out->fail_index = -1;
	out->approximate = t->not_kept > 0;
	bool ib = !strcmp(t->link_layer, "InfiniBand");

	if (ib && !before(p, 2, 22)) {
		/* the FLID rule; NCCL_IB_GID_INDEX is not read on InfiniBand */
		const unsigned char *g = p->flid_index < t->len ? raw_at(t, (int)p->flid_index) : zero;
		out->how = NCCL_GID_IB_FLID;
		out->index = p->flid_index >= 0 && p->flid_index < t->len && (g[4] | g[5]) ? (int)p->flid_index : 0;
		return;
	}
	if (p->gid_index >= 0) {
		out->how = NCCL_GID_PINNED;
		out->index = (int)p->gid_index;
		return;
	}
	if (p->range_crashes) {
		out->how = NCCL_GID_CRASHES;
		out->index = -1;
		return;
	}
	out->how = NCCL_GID_SELECTED;
	out->index = 0;
	for (int c = 1; c < t->len; c++) {
		const unsigned char *cur = raw_at(t, out->index), *cand = raw_at(t, c);
		int fam = nccl_gid_family(cur), cfam = nccl_gid_family(cand);
		bool match = in_range(p, cand);

		if (cfam != fam && cfam == p->family && match) {
			out->index = c;
			continue;
		}
		if (cfam != p->family || !nccl_gid_valid(cand) || !match)
			continue;
		int v = 0, cv = -1;
		if (!version_of(t, p, out->index, &v, out) || !version_of(t, p, c, &cv, out))
			return;
		if ((v != cv || !nccl_gid_valid(cur)) && cv == p->roce_version)
			out->index = c;
	}
}
