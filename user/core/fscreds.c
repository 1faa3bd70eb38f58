// SPDX-License-Identifier: GPL-2.0-only
/* fscreds.c - per-thread filesystem identity (see fscreds.h). */
#include "core/fscreds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* "Key:\t..." at the start of a line. */
static const char *field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return p + kl + 1;
	return NULL;
}

/* The 4th number of "Uid:\treal\teffective\tsaved\tfs". */
static int fourth(const char *v, unsigned long *out)
{
	char *end;
	for (int i = 0; i < 4; i++) {
		errno = 0;
		unsigned long x = strtoul(v, &end, 10);
		if (end == v || errno)
			return -EINVAL;
		*out = x;
		v = end;
	}
	return 0;
}

int fscreds_parse_status(const char *status, struct fscreds *out)
{
	memset(out, 0, sizeof(*out));
	const char *u = field(status, "Uid"), *g = field(status, "Gid"), *gr = field(status, "Groups");
	unsigned long uid, gid;
	if (!u || !g || !gr || fourth(u, &uid) || fourth(g, &gid))
		return -EINVAL;
	out->uid = (uid_t)uid;
	out->gid = (gid_t)gid;
	size_t cap = 0;
	const char *p = gr;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || !*p)
			break;
		char *end;
		unsigned long x = strtoul(p, &end, 10);
		if (end == p)
			break;
		if ((size_t)out->ngroups == cap) {
			cap = cap ? cap * 2 : 16;
			gid_t *ng = realloc(out->groups, cap * sizeof(gid_t));
			if (!ng) {
				fscreds_free(out);
				return -ENOMEM;
			}
			out->groups = ng;
		}
		out->groups[out->ngroups++] = (gid_t)x;
		p = end;
	}
	return 0;
}

void fscreds_free(struct fscreds *c)
{
	free(c->groups);
	c->groups = NULL;
	c->ngroups = 0;
}

/* setfsuid/setfsgid return the previous value and never fail visibly: the
 * value is read back to know whether it took. */
static uid_t fsuid_now(void)
{
	return (uid_t)syscall(SYS_setfsuid, -1);
}

static gid_t fsgid_now(void)
{
	return (gid_t)syscall(SYS_setfsgid, -1);
}

int fscreds_assume(const struct fscreds *c, struct fscreds_saved *s)
{
	memset(s, 0, sizeof(*s));
	if (geteuid() != 0)
		return 0;
	s->uid = fsuid_now();
	s->gid = fsgid_now();
	int n = getgroups(0, NULL);
	if (n < 0)
		return -errno;
	s->groups = malloc(((size_t)n + 1) * sizeof(gid_t));
	if (!s->groups)
		return -ENOMEM;
	s->ngroups = getgroups(n, s->groups);
	if (s->ngroups < 0 || syscall(SYS_setgroups, (size_t)c->ngroups, c->groups)) {
		int e = errno;
		free(s->groups);
		s->groups = NULL;
		return -e;
	}
	s->switched = true;
	syscall(SYS_setfsgid, c->gid);
	syscall(SYS_setfsuid, c->uid);
	if (fsuid_now() != c->uid || fsgid_now() != c->gid) {
		fscreds_restore(s);
		return -EPERM;
	}
	return 0;
}

void fscreds_restore(struct fscreds_saved *s)
{
	if (!s->switched)
		return;
	/* uid first: back to 0 raises the file capabilities again */
	syscall(SYS_setfsuid, s->uid);
	syscall(SYS_setfsgid, s->gid);
	syscall(SYS_setgroups, (size_t)s->ngroups, s->groups);
	free(s->groups);
	memset(s, 0, sizeof(*s));
}
