/* SPDX-License-Identifier: GPL-2.0-only */
/* gidtable.h - one port's GID table as sysfs shows it
 * (/sys/class/infiniband/DEV/ports/N/gids/I, gid_attrs/types/I,
 * gid_attrs/ndevs/I), read below a root: "/" live, a recorded tree, or a
 * process's own root (/proc/PID/root) to see what the job itself can read.
 *
 * Kept: index 0 always (NCCL starts its search there, populated or not)
 * and every populated entry up to GID_TABLE_MAX; the rest is counted.  For
 * each kept entry the GID's 16 bytes, its type and netdev, and how reading
 * the type went (NCCL opens and reads types/I itself: a failure there is
 * NCCL's failure, nccl/gidselect.c).  Plain data: verdict/, nccl/ and the
 * record writers read it without sysfs. */
#ifndef MRTRACE_PROC_GIDTABLE_H
#define MRTRACE_PROC_GIDTABLE_H
#include <stdbool.h>
#include <stddef.h>

#define GID_TABLE_MAX 32
#define GID_TEXT_MAX 48   /* "ffff:...:ffff" and more */

struct gid_entry {
	int index;
	unsigned char raw[16];
	bool populated;             /* non-zero */
	char text[GID_TEXT_MAX];    /* compact: "fe80::5054:ff:fe12:3456", "::ffff:10.0.0.1" */
	char type[16];              /* "RoCE v2", "IB/RoCE v1"; "" not read */
	int roce_version;           /* 1, 2; 0 unknown (InfiniBand, unreadable type) */
	/* reading types/I: 0 read; else the errno, and whether it was the
	 * open (NCCL fails at once) or the read that failed */
	int type_errno;
	bool type_open_failed;
	char netdev[32];            /* gid_attrs/ndevs/I; "" none or unreadable */
};

struct gid_table {
	char device[64];
	unsigned port;
	char link_layer[16];        /* "Ethernet", "InfiniBand", "" unread */
	int len;                    /* entries in gids/ (the port's gid_tbl_len); -1 unreadable */
	int populated;              /* entries holding a GID */
	int n;                      /* kept in e[] (index order) */
	int not_kept;               /* populated entries beyond GID_TABLE_MAX */
	struct gid_entry e[GID_TABLE_MAX];
};

/* Reads the table of device/port below root (NULL or "/": live).  0, or
 * -errno when the port's gids directory cannot be listed (t->len -1). */
int gid_table_read(const char *root, const char *device, unsigned port, struct gid_table *t);

/* The kept entry at index, NULL when it was empty (or not kept). */
const struct gid_entry *gid_table_entry(const struct gid_table *t, int index);

/* Parses sysfs's "fe80:0000:0000:0000:5054:00ff:fe12:3456" into 16 bytes
 * (and the compact text).  0, or -1 when it is not a GID. */
int gid_parse(const char *sysfs, unsigned char raw[16], char *text, size_t len);

/* What a GID is, the way RoCE uses it: an IPv4-mapped address
 * (::ffff:a.b.c.d), IPv6 link-local (fe80::/64), or another IPv6 address. */
bool gid_is_ipv4(const unsigned char raw[16]);
bool gid_is_link_local(const unsigned char raw[16]);

#endif
