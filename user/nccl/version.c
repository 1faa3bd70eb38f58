// SPDX-License-Identifier: GPL-2.0-only
/* version.c - what the mapped library file says about itself (nccl.h): the
 * version literal NCCL builds into .rodata, and the NCCL_* names there
 * (the variables this build reads).  Facts in docs/design.md section 4. */
#include "nccl/nccl.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ======================================================================
 * Version string.  NCCL builds "NCCL version " MAJOR "." MINOR "." PATCH
 * SUFFIX "+cuda" CUDA_MAJOR "." CUDA_MINOR into a literal, so the mapped
 * file holds e.g. "NCCL version 2.21.5+cuda12.4" in .rodata.
 * ====================================================================== */

static const char version_tag[] = "NCCL version ";

/* Parses what follows the tag; 0 on success.  `at_eof`: the buffer ends
 * where the data ends, so the literal may end there too; otherwise a match
 * running into the end of the window may be cut and is refused. */
static int parse_version(const char *p, const char *end, int at_eof, struct nccl_lib *out)
{
	int v[3];
	for (int i = 0; i < 3; i++) {
		if (p >= end || !isdigit((unsigned char)*p))
			return -1;
		long x = 0;
		while (p < end && isdigit((unsigned char)*p) && x < 100000)
			x = x * 10 + (*p++ - '0');
		v[i] = (int)x;
		if (i < 2) {
			if (p >= end || *p != '.')
				return -1;
			p++;
		}
	}
	/* NCCL_SUFFIX (empty in releases, e.g. "a0" in previews), then "+cuda" */
	const char *suffix = p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '~') && p - suffix < 16)
		p++;
	const char *suffix_end = p;
	char cuda[16] = "";
	if (end - p >= 5 && !memcmp(p, "+cuda", 5)) {
		const char *c = p + 5, *c0 = c;
		while (c < end && (isdigit((unsigned char)*c) || *c == '.') && c - c0 < 15)
			c++;
		if (c == c0)
			return -1;
		memcpy(cuda, c0, (size_t)(c - c0));
		cuda[c - c0] = '\0';
		p = c;
	}
	/* The literal ends here; anything else means this was running text. */
	if (p < end ? *p != '\0' : !at_eof)
		return -1;
	out->major = v[0];
	out->minor = v[1];
	out->patch = v[2];
	snprintf(out->version, sizeof(out->version), "%d.%d.%d%.*s", v[0], v[1], v[2],
		 (int)(suffix_end - suffix), suffix);
	snprintf(out->cuda, sizeof(out->cuda), "%s", cuda);
	out->version_known = true;
	return 0;
}

static int scan_window(const char *buf, size_t len, int at_eof, struct nccl_lib *out)
{
	const char *p = buf, *end = buf + len;
	size_t tl = sizeof(version_tag) - 1;
	while ((size_t)(end - p) >= tl) {
		const char *hit = memmem(p, (size_t)(end - p), version_tag, tl);
		if (!hit)
			break;
		if (!parse_version(hit + tl, end, at_eof, out))
			return 0;
		p = hit + 1;
	}
	return -ENOENT;
}

int nccl_version_scan_buf(const char *buf, size_t len, struct nccl_lib *out)
{
	return scan_window(buf, len, 1, out);
}

/* The [offset, size) of .rodata when the file is a 64-bit ELF, else the
 * whole file.  libnccl.so is hundreds of MiB of device code; its strings are
 * a small part of it. */
static void rodata_range(int fd, off_t fsize, off_t *off, off_t *size)
{
	*off = 0;
	*size = fsize;
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum || eh.e_shnum > 4096)
		return;
	Elf64_Shdr strsh;
	if (pread(fd, &strsh, sizeof(strsh), (off_t)(eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(Elf64_Shdr))) !=
	    (ssize_t)sizeof(strsh))
		return;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + (uint64_t)i * sizeof(sh))) != (ssize_t)sizeof(sh))
			return;
		char name[16] = "";
		if (sh.sh_name >= strsh.sh_size)
			continue;
		if (pread(fd, name, sizeof(name) - 1, (off_t)(strsh.sh_offset + sh.sh_name)) <= 0)
			continue;
		if (!strcmp(name, ".rodata") && sh.sh_type == SHT_PROGBITS &&
		    sh.sh_offset + sh.sh_size <= (uint64_t)fsize) {
			*off = (off_t)sh.sh_offset;
			*size = (off_t)sh.sh_size;
			return;
		}
	}
}

int nccl_version_scan_file(const char *path, struct nccl_lib *out)
{
	/* O_NONBLOCK: a FIFO in its place must not block the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int rc = nccl_version_scan_fd(fd, out);
	close(fd);
	return rc;
}

/* NUL-terminated "NCCL_[A-Z0-9_]+" strings in a window: the names NCCL_PARAM
 * and ncclGetEnv literals put in .rodata.  first: the window starts the
 * region, so a name at its very start counts (otherwise the previous window
 * saw it whole). */
static void collect_names(const char *buf, size_t len, bool first, struct nccl_lib *out)
{
	const char *p = buf, *end = buf + len;
	while ((p = memmem(p, (size_t)(end - p), "NCCL_", 5))) {
		const char *start = p;
		p += 5;
		if (start == buf ? !first : start[-1] != '\0')
			continue;
		const char *q = p;
		while (q < end && (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_') &&
		       q - start < CTX_ENV_NAME_MAX - 1)
			q++;
		if (q == p || q >= end || *q != '\0')
			continue;
		size_t nl = (size_t)(q - start);
		char name[CTX_ENV_NAME_MAX];
		memcpy(name, start, nl);
		name[nl] = '\0';
		if (nccl_lib_reads(out, name))
			continue;
		size_t used = 0;
		for (const char *n = out->names; *n; n += strlen(n) + 1)
			used += strlen(n) + 1;
		if (used + nl + 2 > sizeof(out->names)) {
			out->names_complete = false;   /* the lint falls back to its own list */
			continue;
		}
		memcpy(out->names + used, name, nl + 1);
		out->names[used + nl + 1] = '\0';   /* the list ends with an empty name */
		out->n_names++;
	}
}

int nccl_version_scan_fd(int fd, struct nccl_lib *out)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -EINVAL;
	off_t off, size;
	rodata_range(fd, st.st_size, &off, &size);
	/* a file named like libnccl is the job's to choose: a bounded scan */
	enum { SCAN_MAX = 256 << 20 };
	bool whole = size <= SCAN_MAX;
	if (!whole)
		size = SCAN_MAX;
	memset(out->names, 0, sizeof(out->names));
	out->n_names = 0;
	out->names_complete = true;

	/* Chunks overlap by more than the longest version literal or variable
	 * name, so a string crossing a chunk boundary is still seen whole. */
	enum { CHUNK = 1 << 20, OVERLAP = 128 };
	char *buf = malloc(CHUNK + OVERLAP);
	if (!buf)
		return -ENOMEM;
	int rc = -ENOENT;
	size_t carry = 0;
	off_t pos = 0;
	while (pos < size) {
		size_t want = (size_t)(size - pos) < CHUNK ? (size_t)(size - pos) : CHUNK;
		ssize_t n = pread(fd, buf + carry, want, off + pos);
		if (n <= 0) {
			if (n < 0 && rc)
				rc = -errno;
			break;
		}
		bool first = pos == 0;
		pos += n;
		size_t have = carry + (size_t)n;
		/* a literal cut by the window end is seen whole in the next one */
		if (rc && !scan_window(buf, have, pos >= size, out))
			rc = 0;
		collect_names(buf, have, first, out);
		carry = have < OVERLAP ? have : OVERLAP;
		memmove(buf, buf + have - carry, carry);
	}
	free(buf);
	out->names_complete = out->names_complete && whole && pos >= size;
	return rc;
}

bool nccl_lib_reads(const struct nccl_lib *lib, const char *name)
{
	if (!lib || !lib->n_names)
		return false;
	for (const char *p = lib->names; *p; p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}
