// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_elf.c - libFuzzer harness: the library reader that runs on whatever
 * file a job maps under a libnccl name: the ELF section table (.rodata),
 * the version literal and the NCCL_* names, from a file and from memory. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nccl/nccl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0 && (fd = memfd_create("libnccl.so.2", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return 0;
	static struct nccl_lib lib;
	memset(&lib, 0, sizeof(lib));
	nccl_version_scan_fd(fd, &lib);
	/* the names must be a well-formed list: every entry a NUL-terminated name */
	int n = 0;
	for (const char *p = lib.names; *p; p += strlen(p) + 1)
		n++;
	if (n != lib.n_names)
		abort();
	memset(&lib, 0, sizeof(lib));
	nccl_version_scan_buf((const char *)data, size, &lib);
	return 0;
}
