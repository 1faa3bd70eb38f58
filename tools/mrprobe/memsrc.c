// SPDX-License-Identifier: GPL-2.0-only
/* memsrc.c - memory sources (see memsrc.h). */
#include "memsrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include "gpu.h"
#include "core/pages.h"
#include "core/units.h"

/* Bytes of a mapping that holds offset + len, never empty (mmap refuses 0). */
static size_t map_len(uint64_t len, uint64_t offset, uint64_t align)
{
	uint64_t n = pages_round_up(offset + len, align);
	return n ? (size_t)n : (size_t)align;
}

static uint64_t huge_page_size(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb ? kb * 1024 : 2ull << 20;
}

int mp_find_vvar(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int rc = -1;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		/* "[vvar]" exactly: 6.x kernels also have "[vvar_vclock]". */
		if (n >= 6 && !strcmp(line + n - 6, "[vvar]") && sscanf(line, "%llx-%llx", &s, &e) == 2) {
			*start = s;
			*end = e;
			rc = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return rc;
}

static int get_mapping(struct mrbuf *b, uint64_t len, uint64_t offset, int prot, char *err, size_t errlen)
{
	size_t n = map_len(len, offset, page_size());
	void *p = mmap(NULL, n, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		char h[32];
		snprintf(err, errlen, "mmap of %s failed (%s)", fmt_bytes(n, h, sizeof(h)), strerror(errno));
		return -1;
	}
	b->map = p;
	b->maplen = n;
	b->addr = (uint64_t)(uintptr_t)p + offset;
	return 0;
}

static int get_hugetlb(struct mrbuf *b, uint64_t len, uint64_t offset, char *err, size_t errlen)
{
	uint64_t hp = huge_page_size();
	size_t n = map_len(len, offset, hp);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB;
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, flags, -1, 0);
	char h[32], hs[32];
	if (p == MAP_FAILED && errno == ENOMEM) {
		/* The pool cannot reserve the pages, so mmap fails before the RDMA
		 * stack sees anything.  Without a reservation the mapping succeeds
		 * and the hugetlb fault fails inside pin_user_pages instead: the
		 * kernel path this source exists to reach. */
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, flags | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED)
			snprintf(b->note, sizeof(b->note),
				 "hugetlb: the pool cannot hold %s of %s pages (mmap MAP_HUGETLB: ENOMEM); "
				 "mapped with MAP_NORESERVE instead, so pinning fails in the kernel",
				 fmt_bytes(n, h, sizeof(h)), fmt_bytes(hp, hs, sizeof(hs)));
	}
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "hugetlb mapping of %s failed (%s)", fmt_bytes(n, h, sizeof(h)),
			 strerror(errno));
		return -1;
	}
	b->map = p;
	b->maplen = n;
	b->addr = (uint64_t)(uintptr_t)p + offset;
	return 0;
}

static int get_vvar(struct mrbuf *b, uint64_t len, char *err, size_t errlen)
{
	uint64_t s, e;
	if (mp_find_vvar(&s, &e)) {
		snprintf(err, errlen, "this process has no [vvar] mapping in /proc/self/maps");
		return -1;
	}
	b->addr = s;
	/* Registering past its end would fail for a different reason (no VMA). */
	if (len > e - s) {
		char h[32], v[32];
		b->len = e - s;
		snprintf(b->note, sizeof(b->note), "vvar: [vvar] is %s, registering that instead of %s",
			 fmt_bytes(e - s, v, sizeof(v)), fmt_bytes(len, h, sizeof(h)));
	}
	return 0;
}

static int get_udmabuf(struct mrbuf *b, uint64_t len, char *err, size_t errlen)
{
	size_t n = map_len(len, 0, page_size());
	b->memfd = memfd_create("mrprobe-udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (b->memfd < 0 || ftruncate(b->memfd, (off_t)n) ||
	    fcntl(b->memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		snprintf(err, errlen, "memfd for udmabuf failed (%s)", strerror(errno));
		return -1;
	}
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open /dev/udmabuf (%s)%s", strerror(e),
			 e == ENOENT ? ": no udmabuf driver (modprobe udmabuf; CONFIG_UDMABUF)" : "");
		return -1;
	}
	struct udmabuf_create req = { .memfd = (__u32)b->memfd, .flags = UDMABUF_FLAGS_CLOEXEC,
				      .offset = 0, .size = n };
	int fd = ioctl(dev, UDMABUF_CREATE, &req);
	int e = errno;
	close(dev);
	if (fd < 0) {
		char h[32];
		snprintf(err, errlen, "UDMABUF_CREATE of %s failed (%s)%s", fmt_bytes(n, h, sizeof(h)),
			 strerror(e),
			 e == EINVAL ? ": udmabuf refuses buffers above its size_limit_mb (64 by default)" : "");
		return -1;
	}
	b->dmabuf_fd = fd;
	b->own_dmabuf_fd = true;
	return 0;
}

static int get_gpu(struct mrbuf *b, uint64_t len, bool want_dmabuf, char *err, size_t errlen)
{
	/* Page-rounded: dma-buf export wants whole pages. */
	size_t n = map_len(len, 0, page_size());
	if (mp_gpu_open(err, errlen) || mp_gpu_alloc(n, &b->gpu_ptr, err, errlen))
		return -1;
	b->addr = b->gpu_ptr;
	if (want_dmabuf) {
		if (mp_gpu_dmabuf_fd(b->gpu_ptr, n, &b->dmabuf_fd, err, errlen))
			return -1;
		b->own_dmabuf_fd = true;
	}
	return 0;
}

int mp_mem_get(enum mem_kind kind, uint64_t len, uint64_t offset, bool want_dmabuf, int user_fd,
	    struct mrbuf *b, char *err, size_t errlen)
{
	*b = (struct mrbuf){ .kind = kind, .len = len, .dmabuf_fd = -1, .memfd = -1 };
	int rc = 0;
	switch (kind) {
	case MEM_ANON:
		rc = get_mapping(b, len, offset, PROT_READ | PROT_WRITE, err, errlen);
		break;
	case MEM_PROT_NONE:
		rc = get_mapping(b, len, offset, PROT_NONE, err, errlen);
		break;
	case MEM_READONLY:
		rc = get_mapping(b, len, offset, PROT_READ, err, errlen);
		break;
	case MEM_UNMAPPED:
		rc = get_mapping(b, len, offset, PROT_READ | PROT_WRITE, err, errlen);
		if (rc == 0) {
			munmap(b->map, b->maplen);
			b->map = NULL;
		}
		break;
	case MEM_MALLOC:
		/* glibc serves this size with mmap and returns base + 16: the
		 * unaligned start real code registers. */
		b->heap = malloc(len ? len : 1);
		if (!b->heap) {
			snprintf(err, errlen, "malloc(%llu) failed", (unsigned long long)len);
			rc = -1;
		}
		b->addr = (uint64_t)(uintptr_t)b->heap;
		break;
	case MEM_HUGETLB:
		rc = get_hugetlb(b, len, offset, err, errlen);
		break;
	case MEM_VVAR:
		rc = get_vvar(b, len, err, errlen);
		break;
	case MEM_UDMABUF:
		rc = get_udmabuf(b, len, err, errlen);
		break;
	case MEM_GPU:
		rc = get_gpu(b, len, want_dmabuf, err, errlen);
		break;
	case MEM_DMABUF_FD:
		b->dmabuf_fd = user_fd;
		break;
	}
	if (rc)
		mp_mem_put(b);
	return rc;
}

void mp_mem_put(struct mrbuf *b)
{
	if (b->map)
		munmap(b->map, b->maplen);
	free(b->heap);
	if (b->own_dmabuf_fd && b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	if (b->memfd >= 0)
		close(b->memfd);
	if (b->gpu_ptr)
		mp_gpu_free(b->gpu_ptr);
	b->map = NULL;
	b->heap = NULL;
	b->own_dmabuf_fd = false;
	b->memfd = -1;
	b->gpu_ptr = 0;
}
