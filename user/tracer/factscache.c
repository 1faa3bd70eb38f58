// SPDX-License-Identifier: GPL-2.0-only
/* factscache.c - kernel facts on disk (factscache.h): a header with the
 * format, the mrtrace version, the key and a checksum, then struct
 * tracer_facts as it is in memory (the file is only ever read by the same
 * binary: the key holds its hash).  No fsync: a file torn by a crash fails
 * its checksum and is gathered again. */
#include "tracer/factscache.h"

#include "core/atomicfile.h"
#include "core/regfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define FACTSCACHE_MAGIC "MRTFACTS"
/* 2: tracer_func_facts.tramp_errno (2026-12-06) */
#define FACTSCACHE_FORMAT 2u

struct factscache_header {
	char magic[8];
	uint32_t format;
	uint32_t payload; /* sizeof(struct tracer_facts) */
	char version[64];
	struct factscache_key key;
	uint64_t sum; /* FNV-1a of this header (sum = 0) and the payload */
};

struct factscache_file {
	struct factscache_header h;
	struct tracer_facts f;
};

uint64_t factscache_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---- the key ----------------------------------------------------------------------- */

/* The GNU build id among the kernel's ELF notes (n_namesz, n_descsz,
 * n_type, then name and desc each padded to 4 bytes), as hex; false if
 * there is none. */
static bool read_build_id(const char *notes, char *out, size_t len)
{
	unsigned char buf[4096];
	size_t n, off = 0;
	int fd = open(notes, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	ssize_t got = read(fd, buf, sizeof(buf));
	close(fd);
	if (got <= 0)
		return false;
	n = (size_t)got;
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name = off + 12, desc = name + ((namesz + 3u) & ~3u);
		size_t next = desc + ((descsz + 3u) & ~3u);
		if (namesz > n || descsz > n || next > n)
			return false;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(buf + name, "GNU", 4) &&
		    descsz && descsz * 2 < len) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", buf[desc + i]);
			return true;
		}
		off = next;
	}
	return false;
}

/* Names and sizes of the loaded modules ("name size refcount ..."): a
 * module loaded or replaced since changes the hash; the order of the lines
 * does not (a module unloaded and loaded again moves to the top of
 * /proc/modules, and is the same set again: its facts found again). */
static int hash_modules(const char *path, uint64_t *out)
{
	FILE *m = fopen(path, "re");
	char line[1024];
	uint64_t sum = 0;

	if (!m)
		return errno == ENOENT ? (*out = FACTSCACHE_HASH0, 0) : -1; /* no modules at all */
	while (fgets(line, sizeof(line), m)) {
		size_t a = strcspn(line, " ");
		size_t b = line[a] ? strcspn(line + a + 1, " \n") : 0;
		sum += factscache_hash(FACTSCACHE_HASH0, line, a + 1 + b);
	}
	fclose(m);
	*out = factscache_hash(FACTSCACHE_HASH0, &sum, sizeof(sum));
	return 0;
}

int factscache_key(struct factscache_key *k, const char *notes, const char *modules,
		   uint64_t asked, char *err, size_t errlen)
{
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (uname(&u)) {
		snprintf(err, errlen, "uname: %s", strerror(errno));
		return -1;
	}
	snprintf(k->release, sizeof(k->release), "%s", u.release);
	if (!read_build_id(notes ? notes : "/sys/kernel/notes", k->build, sizeof(k->build)))
		snprintf(k->build, sizeof(k->build), "%s", u.version);
	if (hash_modules(modules ? modules : "/proc/modules", &k->modules)) {
		snprintf(err, errlen, "%s: %s", modules ? modules : "/proc/modules",
			 strerror(errno));
		return -1;
	}
	k->asked = asked;
	return 0;
}

int factscache_path(char *buf, size_t len, const char *dir, const struct factscache_key *k)
{
	const char *env = getenv("MRTRACE_CACHE_DIR");

	if (!dir)
		dir = env && *env ? env : FACTSCACHE_DIR;
	/* a release is a file name: no '/' (uname -r never has one) */
	if (!k->release[0] || strchr(k->release, '/'))
		return -1;
	/* and the binary: two builds on one kernel each keep their own file;
	 * and the module set: a set seen before (the RDMA modules loading
	 * after a boot-time watch, a driver reloaded) is found again */
	return (size_t)snprintf(buf, len, "%s/%s-%016llx-%016llx.facts", dir, k->release,
				(unsigned long long)k->asked, (unsigned long long)k->modules) < len
		       ? 0
		       : -1;
}

int factscache_prune(const char *dir, const struct factscache_key *k, int keep)
{
	const char *env = getenv("MRTRACE_CACHE_DIR");
	char prefix[192], path[PATH_MAX];
	struct {
		char name[256];
		time_t mtime;
	} *files = NULL;
	int n = 0, cap = 0, removed = 0;
	struct dirent *e;
	DIR *d;

	if (!dir)
		dir = env && *env ? env : FACTSCACHE_DIR;
	snprintf(prefix, sizeof(prefix), "%s-%016llx-", k->release, (unsigned long long)k->asked);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		if (strncmp(e->d_name, prefix, strlen(prefix)) || len < 6 || len >= 256 ||
		    strcmp(e->d_name + len - 6, ".facts"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			void *more = realloc(files, (cap = cap ? 2 * cap : 16) * sizeof(*files));
			if (!more)
				break;
			files = more;
		}
		snprintf(files[n].name, sizeof(files[n].name), "%s", e->d_name);
		files[n++].mtime = st.st_mtime;
	}
	closedir(d);
	/* the oldest go until `keep` are left */
	while (n > keep) {
		int old = 0;
		for (int i = 1; i < n; i++)
			if (files[i].mtime < files[old].mtime)
				old = i;
		snprintf(path, sizeof(path), "%s/%s", dir, files[old].name);
		removed += !unlink(path);
		files[old] = files[--n];
	}
	free(files);
	return removed;
}

/* ---- reading ----------------------------------------------------------------------- */

static bool terminated(const char *s, size_t size)
{
	return memchr(s, 0, size) != NULL;
}

/* A bool read from a file must be 0 or 1 before it is used as one. */
static bool boolean(const bool *b)
{
	unsigned char c;

	memcpy(&c, b, 1);
	return c <= 1;
}

#define STR_OK(s) terminated((s), sizeof(s))

/* Every count in range, every string terminated, every bool and enum a
 * value it can hold. */
static bool facts_sane(const struct tracer_facts *f)
{
	if (f->nfuncs < 0 || f->nfuncs > TRACER_FACTS_FUNCS || f->ntps < 0 ||
	    f->ntps > TRACER_FACTS_TPS || f->ntypes < 0 || f->ntypes > TRACER_FACTS_TYPES ||
	    f->nfeatures < 0 || f->nfeatures > TRACER_FACTS_FEATURES || !STR_OK(f->kernel) ||
	    !STR_OK(f->btf_file) || !boolean(&f->kprobes) || !boolean(&f->module_btf))
		return false;
	for (int i = 0; i < f->nfuncs; i++) {
		const struct tracer_func_facts *ff = &f->funcs[i];
		if (!STR_OK(ff->name) || !STR_OK(ff->ksym_module) || !STR_OK(ff->btf_module) ||
		    !STR_OK(ff->tramp_why) || !boolean(&ff->in_kallsyms) ||
		    !boolean(&ff->notrace) || !boolean(&ff->in_btf) || ff->ksym_count < 0 ||
		    ff->tramp_errno < 0 ||
		    (ff->tramp != TRAMP_UNTRIED && ff->tramp != TRAMP_OK &&
		     ff->tramp != TRAMP_REFUSED))
			return false;
	}
	for (int i = 0; i < f->ntps; i++)
		if (!STR_OK(f->tps[i].name) || !boolean(&f->tps[i].exists))
			return false;
	for (int i = 0; i < f->ntypes; i++)
		if (!STR_OK(f->types[i].name) || !STR_OK(f->types[i].btf_module) ||
		    !boolean(&f->types[i].in_file))
			return false;
	for (int i = 0; i < f->nfeatures; i++)
		if (!STR_OK(f->features[i].name) || !boolean(&f->features[i].present))
			return false;
	return true;
}

static uint64_t file_sum(const struct factscache_file *c)
{
	struct factscache_header h = c->h;

	h.sum = 0;
	return factscache_hash(factscache_hash(FACTSCACHE_HASH0, &h, sizeof(h)), &c->f,
			       sizeof(c->f));
}

int factscache_load(const char *path, const struct factscache_key *k, const char *version,
		    struct tracer_facts *f, char *why, size_t whylen)
{
	struct factscache_file *c = NULL;
	struct stat st;
	/* a regular file only, opened without blocking: a FIFO planted here
	 * would otherwise hold open(2) until somebody writes to it */
	int fd = regfile_open(path, O_NOFOLLOW);
	const char *bad = NULL;

	if (fd < 0) {
		snprintf(why, whylen, "%s", fd == -ENOENT ? "absent" : regfile_strerror(fd));
		return -1;
	}
	/* root reads it: only a file of its own that nobody else may write */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		bad = "not trusted (owner or mode)";
		goto out;
	}
	if (!(c = malloc(sizeof(*c)))) {
		bad = "out of memory";
		goto out;
	}
	ssize_t n = read(fd, c, sizeof(*c));
	if (n < (ssize_t)sizeof(c->h) || memcmp(c->h.magic, FACTSCACHE_MAGIC, 8)) {
		bad = "corrupt";
		goto out;
	}
	if (c->h.format != FACTSCACHE_FORMAT || strncmp(c->h.version, version, sizeof(c->h.version))) {
		snprintf(why, whylen, "from mrtrace %.*s (format %u)", (int)sizeof(c->h.version),
			 c->h.version, c->h.format);
		goto miss;
	}
	if (n != (ssize_t)sizeof(*c) || st.st_size != (off_t)sizeof(*c) ||
	    c->h.payload != sizeof(c->f) || c->h.sum != file_sum(c) || !facts_sane(&c->f)) {
		bad = "corrupt";
		goto out;
	}
	if (memcmp(&c->h.key, k, sizeof(*k))) {
		bad = "for another kernel or module set";
		goto out;
	}
	*f = c->f;
	free(c);
	close(fd);
	return 0;
out:
	snprintf(why, whylen, "%s", bad);
miss:
	free(c);
	close(fd);
	return -1;
}

/* ---- writing ----------------------------------------------------------------------- */

/* mkdir -p of path's directory. */
static int make_parent(const char *path)
{
	char dir[PATH_MAX];

	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir))
		return -1;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

int factscache_store(const char *path, const struct factscache_key *k, const char *version,
		     const struct tracer_facts *f, char *err, size_t errlen)
{
	struct factscache_file *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(c->h.magic, FACTSCACHE_MAGIC, 8);
	c->h.format = FACTSCACHE_FORMAT;
	c->h.payload = sizeof(c->f);
	snprintf(c->h.version, sizeof(c->h.version), "%s", version);
	c->h.key = *k;
	c->f = *f;
	c->h.sum = file_sum(c);
	if (make_parent(path)) {
		snprintf(err, errlen, "cannot create the directory of %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	int e = atomic_write_file(path, c, sizeof(*c), 0644);
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		goto fail;
	}
	free(c);
	return 0;
fail:
	free(c);
	return -1;
}
