// SPDX-License-Identifier: GPL-2.0-only
/* ustack.c - map user stack addresses to the libraries that hold them. */
#include "proc/ustack.h"
#include "proc/execmaps.h"
#include "drivers/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Libraries that sit between the caller and the kernel: never "the caller". */
static bool is_plumbing(const char *path)
{
	const char *b = basename_of(path);
	return !strncmp(b, "libibverbs", 10) || !strncmp(b, "libc.so", 7) ||
	       !strncmp(b, "libc-", 5) || !strncmp(b, "ld-linux", 8) || rdma_driver_provider(b);
}

void ustack_attribute_maps(const char *maps, const uint64_t *ips, int n, struct ustack_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->resolved = true;
	for (int i = 0; i < n; i++) {
		const char *line = maps;
		if (!ips[i])
			break;
		out->frames++;
		while (line && *line) {
			unsigned long long lo, hi;
			char path[256] = "";
			const char *eol = strchr(line, '\n');
			if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255[^\n]", &lo, &hi, path) >= 2 &&
			    ips[i] >= lo && ips[i] < hi) {
				if (strstr(basename_of(path), "libnccl"))
					out->via_nccl = true;
				if (!out->caller[0] && path[0] == '/' && !is_plumbing(path))
					snprintf(out->caller, sizeof(out->caller), "%s", path);
				break;
			}
			line = eol ? eol + 1 : NULL;
		}
	}
}

void ustack_attribute(int pid, const uint64_t *ips, int n, struct ustack_attr *out)
{
	char p[64];
	char *maps;
	bool cut;

	memset(out, 0, sizeof(*out));
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	/* return addresses lie in code: the executable mappings, bounded */
	if (!(maps = execmaps_read(p, &cut)))
		return;
	ustack_attribute_maps(maps, ips, n, out);
	free(maps);
}
