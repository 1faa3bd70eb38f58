// SPDX-License-Identifier: GPL-2.0-only
/* klog.c - a module's load errors from the kernel log, for check's
 * peer-memory item (peermarkers.c): "nvidia_peermem: disagrees about version
 * of symbol ib_register_peer_memory_client", "nvidia_peermem: Unknown symbol
 * ... (err -22)", nvidia-peermem's own "error while registering".
 *
 * The log is /dev/kmsg below the root: on the node the character device,
 * whose every read() returns one record ("prio,seq,usec,flags;text\n" and
 * " KEY=value" continuation lines), in a recorded tree a regular file of the
 * same records.  Both are read as one stream of lines, bounded in bytes and
 * records, non-blocking (EAGAIN is the end of the ring; EPIPE means records
 * were overwritten while reading: go on).  Reading it needs CAP_SYSLOG where
 * kernel.dmesg_restrict is set: the caller says "not readable" then. */
#include "check/areas.h"
#include "core/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define KLOG_MAX_BYTES (16u << 20)   /* a large ring is 16 MiB: more is not a log */
#define KLOG_MAX_RECORDS 200000
#define KLOG_RECORD 8192             /* the kernel refuses a read() smaller than a record */

/* Whether a record's text is one of the module's load errors. */
static bool load_error(const char *text, const char *const *mods)
{
	for (const char *const *m = mods; *m; m++) {
		size_t n = strlen(*m);
		if (strncmp(text, *m, n) || (text[n] != ':' && text[n] != ' '))
			continue;
		return strstr(text, "disagrees about version of symbol") || strstr(text, "Unknown symbol") ||
		       strstr(text, "error while registering") || strstr(text, "Invalid module format") ||
		       strstr(text, "version magic");
	}
	return false;
}

/* Keeps the text (printable ASCII only: the record is the kernel's, its
 * words may be anybody's), the newest last, each distinct once. */
static void keep(struct chk_klog *out, const char *text)
{
	char clean[CHK_KLOG_LINE];
	size_t n = 0;
	for (const char *p = text; *p && *p != '\n' && n + 1 < sizeof(clean); p++)
		clean[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	clean[n] = '\0';
	for (int i = 0; i < out->n; i++)
		if (!strcmp(out->lines[i], clean)) {
			/* seen again: move it last, it is the newest */
			for (int j = i; j + 1 < out->n; j++)
				memcpy(out->lines[j], out->lines[j + 1], sizeof(out->lines[0]));
			memcpy(out->lines[out->n - 1], clean, sizeof(clean));
			return;
		}
	if (out->n == CHK_KLOG_LINES) {
		memmove(out->lines[0], out->lines[1], sizeof(out->lines[0]) * (CHK_KLOG_LINES - 1));
		out->n--;
		out->dropped++;
	}
	memcpy(out->lines[out->n++], clean, sizeof(clean));
}

static void line(struct chk_klog *out, char *s, const char *const *mods)
{
	if (*s == ' ')                   /* " SUBSYSTEM=..." of the record before */
		return;
	char *semi = strchr(s, ';');
	const char *text = s;
	/* "6,1234,5678901,-[,caller=T1];text": the text follows the
	 * header's ';' (a header has no space) */
	if (semi && *s >= '0' && *s <= '9' && !memchr(s, ' ', (size_t)(semi - s)))
		text = semi + 1;
	out->records++;
	if (load_error(text, mods))
		keep(out, text);
}

int chk_klog_module_errors(const char *root, const char *const *mods, struct chk_klog *out)
{
	char buf[KLOG_RECORD * 2];
	size_t have = 0, total = 0;

	memset(out, 0, sizeof(*out));
	int fd = sr_open(root, "/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return out->error = fd;
	while (total < KLOG_MAX_BYTES && out->records < KLOG_MAX_RECORDS) {
		if (have >= sizeof(buf) - KLOG_RECORD) {
			/* a line longer than a record: not the kernel's, drop it */
			have = 0;
		}
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EPIPE)
			continue;
		if (r <= 0) {
			/* EAGAIN: the end of the ring; anything else ends it too */
			if (r < 0 && errno != EAGAIN)
				out->error = -errno;
			break;
		}
		total += (size_t)r;
		have += (size_t)r;
		buf[have] = '\0';
		char *s = buf, *nl;
		while ((nl = memchr(s, '\n', have - (size_t)(s - buf)))) {
			*nl = '\0';
			line(out, s, mods);
			s = nl + 1;
		}
		have -= (size_t)(s - buf);
		memmove(buf, s, have);
	}
	if (have && total < KLOG_MAX_BYTES) {
		buf[have] = '\0';
		line(out, buf, mods);
	}
	out->truncated = total >= KLOG_MAX_BYTES || out->records >= KLOG_MAX_RECORDS;
	close(fd);
	return out->error;
}
