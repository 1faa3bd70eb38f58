// SPDX-License-Identifier: GPL-2.0-only
/* gidtable.c - a port's GID table from sysfs (gidtable.h).
 *
 * sysfs prints an empty entry as all zeros; reading the type or netdev of
 * one fails (the kernel has no attributes for it), which is why only the
 * populated entries and index 0 are kept with their attributes. */
#include "proc/gidtable.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"

#define IB "/sys/class/infiniband"

int gid_parse(const char *s, unsigned char raw[16], char *text, size_t len)
{
	int n = 0;

	memset(raw, 0, 16);
	for (const char *p = s; *p && *p != '\n' && n < 32; p++) {
		int v;
		if (*p == ':')
			continue;
		if (*p >= '0' && *p <= '9')
			v = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			v = (*p | 0x20) - 'a' + 10;
		else
			return -1;
		raw[n / 2] |= (unsigned char)(n % 2 ? v : v << 4);
		n++;
	}
	if (n != 32)
		return -1;
	if (text && !inet_ntop(AF_INET6, raw, text, (socklen_t)len))
		snprintf(text, len, "?");
	return 0;
}

bool gid_is_ipv4(const unsigned char r[16])
{
	static const unsigned char pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !memcmp(r, pre, 12);
}

bool gid_is_link_local(const unsigned char r[16])
{
	static const unsigned char pre[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 };
	return !memcmp(r, pre, 8);
}

static bool all_zero(const unsigned char r[16])
{
	for (int i = 0; i < 16; i++)
		if (r[i])
			return false;
	return true;
}

/* types/I as NCCL reads it: open, then one read; which of them failed */
static void read_type(const char *root, const char *path, struct gid_entry *e)
{
	char buf[32] = "";
	int fd = sr_open(root, path, O_RDONLY);

	if (fd < 0) {
		e->type_errno = -fd;
		e->type_open_failed = true;
		return;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int err = errno;
	close(fd);
	if (n < 0) {
		e->type_errno = err;
		return;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	snprintf(e->type, sizeof(e->type), "%s", buf);
	/* NCCL's own test: a "v1" or "v2" type by prefix */
	if (!strncmp(buf, "IB/RoCE v1", 10) || !strncmp(buf, "RoCE v1", 7))
		e->roce_version = 1;
	else if (!strncmp(buf, "RoCE v2", 7))
		e->roce_version = 2;
}

int gid_table_read(const char *root, const char *device, unsigned port, struct gid_table *t)
{
	char dir[256], p[384], line[128];
	char **names;

	memset(t, 0, sizeof(*t));
	snprintf(t->device, sizeof(t->device), "%s", device);
	t->port = port;
	t->len = -1;
	if (!device[0] || strchr(device, '/') || !strcmp(device, ".."))
		return -EINVAL;
	snprintf(p, sizeof(p), IB "/%s/ports/%u/link_layer", device, port);
	sr_read_line(root, p, t->link_layer, sizeof(t->link_layer));
	snprintf(dir, sizeof(dir), IB "/%s/ports/%u/gids", device, port);
	int n = sr_list(root, dir, &names);
	if (n < 0)
		return n;
	t->len = n;
	/* sr_list sorts in version order: index order */
	for (int i = 0; i < n; i++) {
		struct gid_entry e = { .index = atoi(names[i]) };
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (sr_read_line(root, p, line, sizeof(line)) ||
		    gid_parse(line, e.raw, e.text, sizeof(e.text)))
			memset(e.raw, 0, sizeof(e.raw));
		e.populated = !all_zero(e.raw);
		t->populated += e.populated;
		if (!e.populated && e.index != 0)
			continue;
		if (t->n >= GID_TABLE_MAX) {
			t->not_kept++;
			continue;
		}
		if (!e.populated)
			snprintf(e.text, sizeof(e.text), "::");
		snprintf(p, sizeof(p), IB "/%s/ports/%u/gid_attrs/types/%s", device, port, names[i]);
		read_type(root, p, &e);
		snprintf(p, sizeof(p), IB "/%s/ports/%u/gid_attrs/ndevs/%s", device, port, names[i]);
		if (sr_read_line(root, p, e.netdev, sizeof(e.netdev)))
			e.netdev[0] = 0;
		t->e[t->n++] = e;
	}
	sr_free_names(names, n);
	return 0;
}

const struct gid_entry *gid_table_entry(const struct gid_table *t, int index)
{
	for (int i = 0; i < t->n; i++)
		if (t->e[i].index == index)
			return t->e[i].populated ? &t->e[i] : NULL;
	return NULL;
}
