// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_proc.c - libFuzzer harness: the /proc parsers on a recorded tree
 * whose files the input fills (status, stat, limits, cmdline, cgroup,
 * uid_map, environ, maps, in that order, separated by the byte 0x1e), and
 * the strings parsed straight from memory (cgroup paths, a stack's maps). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nccl/nccl.h"
#include "proc/context.h"
#include "proc/launcher.h"
#include "proc/ustack.h"

static char tree[64];
static const char *const files[] = { "status", "stat", "limits", "cmdline", "cgroup", "uid_map",
				     "environ", "maps" };

static int init(void)
{
	snprintf(tree, sizeof(tree), "/tmp/mrtrace-fuzz-proc-XXXXXX");
	if (!mkdtemp(tree))
		return -1;
	char p[128];
	snprintf(p, sizeof(p), "%s/proc", tree);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/7", tree);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/1", tree);
	mkdir(p, 0755);
	return 0;
}

static void put(const char *name, const uint8_t *d, size_t n)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/proc/7/%s", tree, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (n && write(fd, d, n) < 0)
		n = 0;
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready)
		ready = init() ? -1 : 1;
	if (ready < 0)
		abort();
	size_t start = 0;
	int k = 0;
	for (size_t i = 0; i <= size && k < 8; i++)
		if (i == size || data[i] == 0x1e) {
			put(files[k++], data + start, i - start);
			start = i + 1;
		}
	for (; k < 8; k++)
		put(files[k], NULL, 0);

	static struct proc_context c;
	static struct nccl_info n;
	if (proc_context_read(tree, 7, &c) == 0)
		nccl_info_read(tree, &c, &n);

	/* the same bytes as one string, for the parsers that take text */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	proc_context_init(&c, 7);
	proc_context_parse_cgroup(text, &c);
	uint64_t ips[4] = { 0x1000, 0x7f0000001000ULL, 0x400123, 0 };
	struct ustack_attr ua;
	ustack_attribute_maps(text, ips, 4, &ua);
	launcher_classify(1, text, text);
	free(text);
	return 0;
}
