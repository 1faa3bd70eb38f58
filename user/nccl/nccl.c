// SPDX-License-Identifier: GPL-2.0-only
/* nccl.c - NCCL as seen from outside the process (see nccl.h): which
 * library is mapped and its version, the effective settings and where each
 * came from, the rank, a lint, and the pinned host memory NCCL's network
 * buffers need.  Facts used here are in docs/design.md section 4 and
 * docs/context.md. */
#include "nccl/nccl.h"
#include "nccl/layout.h"
#include "core/procfs.h"
#include "proc/jobfile.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/units.h"

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

/* ======================================================================
 * The mapped library.
 * ====================================================================== */

enum lib_role { LIB_NONE, LIB_NCCL, LIB_NCCL_LIKE, LIB_PLUGIN };

static enum lib_role lib_role(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (!strncmp(b, "libnccl.so", 10))
		return LIB_NCCL;
	/* libnccl-net*.so (network plugins such as aws-ofi-nccl) and the tuner,
	 * profiler and env plugins are not NCCL itself. */
	if (strstr(b, "nccl-net"))
		return LIB_PLUGIN;
	if (!strncmp(b, "libnccl-", 8))
		return LIB_NONE;
	/* A library whose name mentions nccl: a rebuilt or stand-in NCCL. */
	if (!strncmp(b, "lib", 3) && strcasestr(b, "nccl"))
		return LIB_NCCL_LIKE;
	return LIB_NONE;
}

int nccl_lib_detect(const char *root, int pid, struct nccl_lib *out)
{
	memset(out, 0, sizeof(*out));
	int mfd = procfs_open(root, pid, "maps");
	FILE *f = mfd >= 0 ? fdopen(mfd, "r") : NULL;
	if (!f) {
		if (mfd >= 0)
			close(mfd);
		return mfd < 0 ? mfd : -ENOMEM;
	}
	char line[PATH_MAX + 128];
	unsigned long best_start = 0, best_end = 0;
	enum lib_role best = LIB_NONE;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		int pos = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &pos) < 2 || !pos)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		char *del = strstr(p, " (deleted)");
		if (del)
			*del = '\0';
		if (*p != '/')
			continue;	/* [heap], anonymous */
		enum lib_role r = lib_role(p);
		if (r == LIB_PLUGIN && !out->net_plugin[0])
			snprintf(out->net_plugin, sizeof(out->net_plugin), "%s", p);
		/* a real libnccl.so beats a name that merely contains "nccl" */
		if ((r == LIB_NCCL && best != LIB_NCCL) || (r == LIB_NCCL_LIKE && best == LIB_NONE)) {
			best = r;
			best_start = start;
			best_end = end;
			snprintf(out->path, sizeof(out->path), "%s", p);
		}
	}
	fclose(f);
	if (best == LIB_NONE)
		return 0;
	out->found = true;

	/* The path is in the process's mount namespace: open it through its
	 * root as the process would (proc/jobfile.h), then through map_files
	 * (the mapped file itself, even if the path was replaced since). */
	int fd = jobfile_open(root, pid, out->path);
	if (fd >= 0) {
		int rc = nccl_version_scan_fd(fd, out);
		close(fd);
		if (!rc)
			return 0;
	}
	char rel[64];
	snprintf(rel, sizeof(rel), "map_files/%lx-%lx", best_start, best_end);
	if ((fd = procfs_open(root, pid, rel)) >= 0) {
		nccl_version_scan_fd(fd, out);
		close(fd);
	}
	return 0;
}

/* ======================================================================
 * Settings.  NCCL's initEnv (param.cc) runs once, before the first
 * parameter is read: it applies NCCL_CONF_FILE if set and non-empty (since
 * 2.23), else
 * ~/.nccl.conf (home from getpwuid(getuid())), then /etc/nccl.conf, each
 * line with setenv(name, value, 0).  Overwrite 0 means: the environment
 * wins, then the first file, then /etc.  Line rules: a line starting with
 * '#' is skipped, a line without '=' is skipped, the name is everything
 * before the first '=' (no trimming), the value everything after it minus
 * the '\n' (a '\r' stays).
 * ====================================================================== */

const char *nccl_source_name(enum nccl_source src)
{
	switch (src) {
	case NCCL_SRC_DEFAULT: return "default";
	case NCCL_SRC_ENV: return "environment";
	case NCCL_SRC_CONF_FILE: return "NCCL_CONF_FILE";
	case NCCL_SRC_USER_CONF: return "~/.nccl.conf";
	case NCCL_SRC_SYSTEM_CONF: return "/etc/nccl.conf";
	}
	return "unknown";
}

int nccl_source_from_name(const char *name)
{
	for (int s = NCCL_SRC_DEFAULT; s <= NCCL_SRC_SYSTEM_CONF; s++)
		if (!strcmp(nccl_source_name(s), name))
			return s;
	return -1;
}

const struct nccl_setting *nccl_setting_get(const struct nccl_settings *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

/* setenv(name, value, 0) */
static void settings_set(struct nccl_settings *s, const char *name, const char *value, size_t vl,
			 enum nccl_source src, const char *origin)
{
	for (int i = 0; i < s->n; i++) {
		if (!strcmp(s->v[i].name, name)) {
			s->v[i].overridden = true;
			return;
		}
	}
	if (s->n >= NCCL_MAX_SETTINGS) {
		s->truncated = true;
		s->dropped++;
		return;
	}
	struct nccl_setting *v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	if (vl >= sizeof(v->value)) {
		vl = sizeof(v->value) - 1;
		s->truncated = true;
		s->cut++;
	}
	memcpy(v->value, value, vl);
	v->value[vl] = '\0';
	v->source = src;
	snprintf(v->origin, sizeof(v->origin), "%s", origin ? origin : "");
}

static int valid_env_name(const char *n)
{
	if (!*n)
		return 0;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && *n != '_')
			return 0;
	return 1;
}

void nccl_settings_apply_conf(struct nccl_settings *s, const char *text, enum nccl_source src,
			      const char *origin)
{
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		const char *cur = line;
		line = eol ? eol + 1 : NULL;
		if (cur[0] == '#')
			continue;
		const char *eq = memchr(cur, '=', n);
		if (!eq)
			continue;
		char name[1024];
		size_t nl = (size_t)(eq - cur);
		if (nl >= sizeof(name))
			nl = sizeof(name) - 1;
		memcpy(name, cur, nl);
		name[nl] = '\0';
		if (!valid_env_name(name)) {
			/* NCCL still calls setenv with it ("NCCL_DEBUG " with a space),
			 * but no parameter reads that name. */
			if (strstr(name, "NCCL") && s->n_bad_names < 4) {
				snprintf(s->bad_names[s->n_bad_names], sizeof(s->bad_names[0]), "%.*s",
					 (int)sizeof(s->bad_names[0]) - 1, name);
				s->n_bad_names++;
			} else if (strstr(name, "NCCL")) {
				s->bad_names_dropped++;
			}
			continue;
		}
		if (strncmp(name, "NCCL_", 5))
			continue;	/* only NCCL's own settings are kept */
		settings_set(s, name, eq + 1, n - nl - 1, src, origin);
	}
}

/* NCCL's conf files are a few lines; /etc/passwd of a big site is MiBs. */
#define CONF_MAX (64 * 1024)
#define PASSWD_MAX (16 << 20)

/* Reads a file as the process would: through its root, relative names
 * from its working directory, with its credentials, regular files only
 * (proc/jobfile.h).  Returns a malloc'd NUL-terminated buffer, or NULL with
 * *err = -errno. */
static char *read_conf(const char *root, int pid, const char *file, size_t max, char *shown,
		       size_t shownlen, int *err)
{
	char *buf = NULL;
	snprintf(shown, shownlen, "%.*s", (int)shownlen - 1, file);
	*err = jobfile_read(root, pid, file, max, &buf, NULL);
	return *err ? NULL : buf;
}

static void free_conf(char *buf)
{
	if (buf) {
		explicit_bzero(buf, strlen(buf));	/* a conf file may hold more than NCCL_* */
		free(buf);
	}
}

/* Home directory of `uid` from <proc root>/etc/passwd, as getpwuid would
 * answer inside the process (a container has its own passwd). */
static int passwd_home(const char *root, int pid, long uid, char *home, size_t len)
{
	char shown[16];
	int err;
	char *buf = read_conf(root, pid, "/etc/passwd", PASSWD_MAX, shown, sizeof(shown), &err);
	if (!buf)
		return -1;
	int rc = -1;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		/* name:password:uid:gid:gecos:home:shell */
		char *f[7] = { 0 };
		char *p = l;
		int nf = 0;
		while (p && nf < 7)
			f[nf++] = strsep(&p, ":");
		if (nf < 6 || !*f[2])
			continue;
		char *end;
		long u = strtol(f[2], &end, 10);
		if (!*end && u == uid) {
			snprintf(home, len, "%s", f[5]);
			rc = 0;
			break;
		}
	}
	free_conf(buf);
	return rc;
}

int nccl_settings_read(const char *root, int pid, const struct ctx_env *env, long uid,
		       struct nccl_settings *out)
{
	return nccl_settings_read_for(root, pid, env, uid, NULL, out);
}

int nccl_settings_read_for(const char *root, int pid, const struct ctx_env *env, long uid,
			   const struct nccl_lib *lib, struct nccl_settings *out)
{
	memset(out, 0, sizeof(*out));
	/* NCCL_CONF_FILE arrived in 2.23; before that initEnv read only
	 * ~/.nccl.conf and /etc/nccl.conf. */
	bool knows_conf_file = true;
	if (lib && lib->version_known) {
		snprintf(out->nccl_version, sizeof(out->nccl_version), "%s", lib->version);
		knows_conf_file = lib->major > 2 || (lib->major == 2 && lib->minor >= 23);
	}
	const char *conf_file = NULL;
	if (env)
		out->env_dropped = env->dropped;
	if (env) {
		for (int i = 0; i < env->n; i++) {
			const struct ctx_env_var *v = &env->vars[i];
			if (strncmp(v->name, "NCCL_", 5))
				continue;
			settings_set(out, v->name, v->value, strlen(v->value), NCCL_SRC_ENV, "");
			out->cut += v->cut;
			if (!strcmp(v->name, "NCCL_CONF_FILE") && v->value[0])
				conf_file = v->value;
		}
	}
	if (conf_file && !knows_conf_file) {
		out->conf_file_ignored = true;
		conf_file = NULL;
	}
	char *text;
	int err;
	if (conf_file) {
		if ((text = read_conf(root, pid, conf_file, CONF_MAX, out->conf_file,
				      sizeof(out->conf_file), &err))) {
			out->conf_file_read = true;
			nccl_settings_apply_conf(out, text, NCCL_SRC_CONF_FILE, out->conf_file);
			free_conf(text);
		} else {
			out->conf_file_error = err;   /* NCCL skips it too: the lint says so */
		}
	} else if (uid >= 0) {
		char home[256], file[300];
		if (!passwd_home(root, pid, uid, home, sizeof(home))) {
			snprintf(file, sizeof(file), "%s/.nccl.conf", strcmp(home, "/") ? home : "");
			if ((text = read_conf(root, pid, file, CONF_MAX, out->user_conf,
					      sizeof(out->user_conf), &err))) {
				out->user_conf_read = true;
				nccl_settings_apply_conf(out, text, NCCL_SRC_USER_CONF, out->user_conf);
				free_conf(text);
			} else if (err != -ENOENT) {
				out->user_conf_error = err;
			}
		}
	}
	if ((text = read_conf(root, pid, "/etc/nccl.conf", CONF_MAX, out->system_conf,
			      sizeof(out->system_conf), &err))) {
		out->system_conf_read = true;
		nccl_settings_apply_conf(out, text, NCCL_SRC_SYSTEM_CONF, out->system_conf);
		free_conf(text);
	} else if (err != -ENOENT) {
		out->system_conf_error = err;
	}
	return 0;
}

/* ======================================================================
 * Rank: the launcher's variables, most specific first.
 * ====================================================================== */

static long env_long(const struct ctx_env *env, const char *const *names, const char **which)
{
	for (; *names; names++) {
		const char *v = proc_env_get(env, *names);
		if (!v || !*v)
			continue;
		char *end;
		long x = strtol(v, &end, 10);
		if (*end || x < 0)
			continue;
		if (which)
			*which = *names;
		return x;
	}
	return -1;
}

void nccl_rank_from_env(const struct ctx_env *env, struct nccl_rank *out)
{
	static const char *const rank[] = { "RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "SLURM_PROCID", NULL };
	static const char *const local[] = { "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
					     "SLURM_LOCALID", NULL };
	static const char *const world[] = { "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
					     "SLURM_NTASKS", NULL };
	out->rank_var = NULL;
	out->rank = env_long(env, rank, &out->rank_var);
	out->local_rank = env_long(env, local, NULL);
	out->world_size = env_long(env, world, NULL);
}

/* ======================================================================
 * Lint.
 * ====================================================================== */

/* Variables NCCL releases read (2.7 ... 2.30), for the typo check.  Not
 * exhaustive: a name missing here is reported as "unknown", not as wrong. */
static const char *const known_vars[] = {
	"NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_TIMESTAMP_FORMAT",
	"NCCL_DEBUG_TIMESTAMP_LEVELS", "NCCL_WARN_ENABLE_DEBUG_INFO", "NCCL_CONF_FILE",
	"NCCL_SET_THREAD_NAME", "NCCL_SET_STACK_SIZE", "NCCL_HOSTID", "NCCL_COMM_ID",
	"NCCL_SOCKET_IFNAME", "NCCL_SOCKET_FAMILY", "NCCL_SOCKET_NTHREADS", "NCCL_NSOCKS_PERTHREAD",
	"NCCL_SOCKET_RETRY_CNT", "NCCL_SOCKET_RETRY_SLEEP_MSEC",
	"NCCL_IB_DISABLE", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE",
	"NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_IB_SL", "NCCL_IB_TC",
	"NCCL_IB_FIFO_TC", "NCCL_IB_PKEY", "NCCL_IB_USE_INLINE", "NCCL_IB_QPS_PER_CONNECTION",
	"NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_AR_THRESHOLD", "NCCL_IB_PCI_RELAXED_ORDERING",
	"NCCL_IB_ADAPTIVE_ROUTING", "NCCL_IB_ECE_ENABLE", "NCCL_IB_MERGE_VFS", "NCCL_IB_MERGE_NICS",
	"NCCL_IB_RETURN_ASYNC_EVENTS", "NCCL_IB_OOO_RQ", "NCCL_IB_DATA_DIRECT", "NCCL_IB_CUDA_SUPPORT",
	"NCCL_IB_GDR_LEVEL", "NCCL_IB_WARN_RAIL_LOCAL", "NCCL_IB_ROUTABLE_FLID_GID_INDEX",
	"NCCL_IBVERBS_LIB", "NCCL_NET", "NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_PROFILER_PLUGIN",
	"NCCL_ENV_PLUGIN", "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_NET_GDR_C2C",
	"NCCL_NET_SHARED_BUFFERS", "NCCL_NET_SHARED_COMMS", "NCCL_NET_DISABLE_INTRA",
	"NCCL_NET_FORCE_FLUSH", "NCCL_NET_OVERHEAD", "NCCL_NET_MERGE_LEVEL", "NCCL_GDR_FLUSH_DISABLE",
	"NCCL_GDRCOPY_ENABLE", "NCCL_GDRCOPY_FLUSH_ENABLE", "NCCL_GDRCOPY_SYNC_ENABLE",
	"NCCL_GDRCOPY_FIFO_ENABLE", "NCCL_DMABUF_ENABLE", "NCCL_CROSS_NIC",
	"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_P2P_DIRECT_DISABLE", "NCCL_P2P_READ_ENABLE",
	"NCCL_P2P_USE_CUDA_MEMCPY", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_NVL_CHUNKSIZE",
	"NCCL_P2P_PCI_CHUNKSIZE", "NCCL_P2P_LL_THRESHOLD", "NCCL_P2P_PXN_LEVEL", "NCCL_PXN_DISABLE",
	"NCCL_SHM_DISABLE", "NCCL_SHM_USE_CUDA_MEMCPY", "NCCL_SHM_MEMCPY_MODE", "NCCL_SHM_LOCALITY",
	"NCCL_BUFFSIZE", "NCCL_LL_BUFFSIZE", "NCCL_LL128_BUFFSIZE", "NCCL_NTHREADS", "NCCL_LL128_NTHREADS",
	"NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NRINGS", "NCCL_MIN_NRINGS",
	"NCCL_MAX_CTAS", "NCCL_MIN_CTAS", "NCCL_CGA_CLUSTER_SIZE", "NCCL_NCHANNELS_PER_NET_PEER",
	"NCCL_MIN_P2P_NCHANNELS", "NCCL_MAX_P2P_NCHANNELS", "NCCL_CHECKS_DISABLE", "NCCL_CHECK_POINTERS",
	"NCCL_LAUNCH_MODE", "NCCL_IGNORE_DISABLED_P2P", "NCCL_IGNORE_CPU_AFFINITY", "NCCL_ALGO",
	"NCCL_PROTO", "NCCL_TOPO_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_FILE", "NCCL_GRAPH_DUMP_FILE",
	"NCCL_GRAPH_MIXING_SUPPORT", "NCCL_COLLNET_ENABLE", "NCCL_COLLNET_NODE_THRESHOLD",
	"NCCL_NVLS_ENABLE", "NCCL_NVLS_NCHANNELS", "NCCL_NVLS_CHUNKSIZE", "NCCL_NVB_DISABLE",
	"NCCL_RUNTIME_CONNECT", "NCCL_LOCAL_REGISTER", "NCCL_GRAPH_REGISTER", "NCCL_CUMEM_ENABLE",
	"NCCL_CUMEM_HOST_ENABLE", "NCCL_COMM_BLOCKING", "NCCL_MNNVL_ENABLE", "NCCL_MNNVL_UUID",
	"NCCL_MNNVL_CLIQUE_ID", "NCCL_RAS_ENABLE", "NCCL_RAS_ADDR", "NCCL_RAS_TIMEOUT_FACTOR",
	"NCCL_WIN_ENABLE", "NCCL_CTA_POLICY", "NCCL_CREATE_THREAD_CONTEXT", "NCCL_WORK_FIFO_DEPTH",
	"NCCL_WORK_FIFO_BYTES", "NCCL_PROXY_APPEND_BATCH_SIZE", "NCCL_PROXY_DUMP_SIGNAL",
	"NCCL_PROGRESS_APPENDOP_FREQ", "NCCL_ALLOC_P2P_NET_LL_BUFFERS", "NCCL_NVTX_DISABLE",
	"NCCL_TUNER_CONFIG_FILE", "NCCL_PAT_ENABLE", "NCCL_L1_SHARED_MEMORY_CARVEOUT",
	"NCCL_SINGLE_RING_THRESHOLD", "NCCL_LL_THRESHOLD", "NCCL_TREE_THRESHOLD",
	"NCCL_UID_STAGGER_RATE", "NCCL_UID_STAGGER_THRESHOLD", "NCCL_NO_CACHE",
	NULL
};

/* Popular advice names these; no NCCL release reads them. */
static const struct {
	const char *name, *instead, *why;
} nonexistent[] = {
	{ "NCCL_IB_DISABLE_GDR", "NCCL_NET_GDR_LEVEL=LOC",
	  "no NCCL release reads it, so GPUDirect RDMA is NOT disabled; use NCCL_NET_GDR_LEVEL=LOC" },
	{ "NCCL_IB_DISABLE_DIRECT_VERBS", "",
	  "no NCCL release reads it; it changes nothing" },
	{ "NCCL_NCHANNELS", "NCCL_MAX_NCHANNELS",
	  "no NCCL release reads it; the channel count is bounded by NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS" },
};

/* Read by plugins or tools, not by NCCL: out of scope for the typo check. */
static const char *const foreign_prefixes[] = { "NCCL_TESTS_", "NCCL_SHARP_", "NCCL_UCX_", NULL };

bool nccl_var_known(const char *name)
{
	for (const char *const *k = known_vars; *k; k++)
		if (!strcmp(*k, name))
			return true;
	return false;
}

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int sub = diag + (a[i - 1] != b[j - 1]);
			int del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			diag = up;
		}
	}
	return row[lb];
}

const char *nccl_lint_kind_name(enum nccl_lint_kind k)
{
	switch (k) {
	case NCCL_LINT_NONEXISTENT: return "nonexistent_variable";
	case NCCL_LINT_TYPO: return "typo";
	case NCCL_LINT_UNKNOWN: return "unknown_variable";
	case NCCL_LINT_BAD_NAME: return "bad_name";
	case NCCL_LINT_VALUE: return "suspicious_value";
	case NCCL_LINT_IGNORED: return "ignored_by_version";
	case NCCL_LINT_DROPPED: return "not_examined";
	}
	return "unknown";
}

int nccl_lint_kind_from_name(const char *name)
{
	for (int k = NCCL_LINT_NONEXISTENT; k <= NCCL_LINT_DROPPED; k++)
		if (!strcmp(nccl_lint_kind_name(k), name))
			return k;
	return -1;
}

static struct nccl_lint_finding *lint_add(struct nccl_lint *l, enum nccl_lint_kind kind,
					  enum nccl_lint_severity sev, const char *name,
					  const char *suggestion)
{
	if (l->n >= NCCL_MAX_LINTS - 1) {   /* the last slot says how many more */
		l->dropped++;
		return NULL;
	}
	struct nccl_lint_finding *f = &l->f[l->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->severity = sev;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->suggestion, sizeof(f->suggestion), "%s", suggestion ? suggestion : "");
	return f;
}

static const char *where(const struct nccl_setting *s, char *buf, size_t len)
{
	if (s->source == NCCL_SRC_ENV)
		snprintf(buf, len, "environment");
	else
		snprintf(buf, len, "%s", s->origin[0] ? s->origin : nccl_source_name(s->source));
	return buf;
}

/* NCCL reads integers with strtoll(value, NULL, 0): "4M" is 4, "1e6" is 1. */
static int nccl_int(const char *v, long long *out, int *trailing)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 0);
	*trailing = *end != '\0';
	*out = x;
	return end == v || errno ? -1 : 0;
}

static const char *const int_vars[] = {
	"NCCL_BUFFSIZE", "NCCL_LL_BUFFSIZE", "NCCL_LL128_BUFFSIZE", "NCCL_MIN_NCHANNELS",
	"NCCL_MAX_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_NTHREADS",
	"NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_IB_GID_INDEX",
	"NCCL_NCHANNELS_PER_NET_PEER", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_IB_DISABLE", "NCCL_DMABUF_ENABLE",
	"NCCL_NET_GDR_READ", NULL
};

static void lint_value(const struct nccl_setting *s, struct nccl_lint *l)
{
	char w[300], a[32], b[32];
	struct nccl_lint_finding *f;
	size_t vl = strlen(s->value);
	if (vl && s->value[vl - 1] == '\r') {
		if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, NULL)))
			snprintf(f->message, sizeof(f->message),
				 "%s ends with a carriage return (a CRLF file, %s): NCCL keeps it in the value",
				 s->name, where(s, w, sizeof(w)));
		return;
	}
	for (const char *const *iv = int_vars; *iv; iv++) {
		if (strcmp(*iv, s->name))
			continue;
		long long x;
		int trailing;
		if (nccl_int(s->value, &x, &trailing) || trailing) {
			if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, NULL)))
				snprintf(f->message, sizeof(f->message),
					 "%s=%s (%s): NCCL parses integers with strtoll and ignores what follows "
					 "the digits, so this means %lld; write the plain number%s",
					 s->name, s->value, where(s, w, sizeof(w)), x,
					 strstr(s->name, "SIZE") ? " of bytes" : "");
			return;
		}
		if (!strcmp(s->name, "NCCL_BUFFSIZE") && x > 16LL << 20) {
			if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, "NCCL_BUFFSIZE=4194304")))
				snprintf(f->message, sizeof(f->message),
					 "NCCL_BUFFSIZE=%s (%s) is %s per connection (default %s); every network "
					 "connection pins that much more host memory without GDR",
					 s->value, where(s, w, sizeof(w)), fmt_bytes((uint64_t)x, a, sizeof(a)),
					 fmt_bytes(4u << 20, b, sizeof(b)));
		}
		return;
	}
	if (!strcmp(s->name, "NCCL_NET_GDR_LEVEL")) {
		static const char *const levels[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN",
						      "P2C", "PHB", "SYS", "NET", "DIS", NULL };
		long long x;
		int trailing;
		if (!nccl_int(s->value, &x, &trailing) && !trailing)
			return;	/* legacy integer levels */
		for (const char *const *lv = levels; *lv; lv++)
			if (!strcasecmp(*lv, s->value))
				return;
		if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, "NCCL_NET_GDR_LEVEL=LOC")))
			snprintf(f->message, sizeof(f->message),
				 "NCCL_NET_GDR_LEVEL=%s (%s) is not a path type (LOC, PIX, PXB, PHB, SYS, ...)",
				 s->value, where(s, w, sizeof(w)));
	}
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

/* The library's list is trusted when it is whole and plausibly NCCL's own
 * (a stand-in or a stripped build names few or none). */
static bool lib_names_usable(const struct nccl_lib *lib)
{
	return lib && lib->names_complete && lib->n_names >= 8;
}

void nccl_lint_settings(const struct nccl_settings *s, struct nccl_lint *l)
{
	nccl_lint_settings_for(s, NULL, l);
}

void nccl_lint_settings_for(const struct nccl_settings *s, const struct nccl_lib *lib,
			    struct nccl_lint *l)
{
	memset(l, 0, sizeof(*l));
	char w[300];
	struct nccl_lint_finding *f;
	bool by_lib = lib_names_usable(lib);
	const char *ver = lib && lib->version_known ? lib->version : "?";
	for (int i = 0; i < s->n_bad_names; i++)
		if ((f = lint_add(l, NCCL_LINT_BAD_NAME, NCCL_LINT_WARN, s->bad_names[i], NULL)))
			snprintf(f->message, sizeof(f->message),
				 "a conf file sets \"%s\": NCCL takes everything before '=' as the name, "
				 "spaces included, so no parameter reads it",
				 s->bad_names[i]);

	for (int i = 0; i < s->n; i++) {
		const struct nccl_setting *v = &s->v[i];
		int done = 0;
		/* what the mapped library reads is read, whatever lists say */
		if (by_lib && nccl_lib_reads(lib, v->name)) {
			lint_value(v, l);
			continue;
		}
		for (size_t k = 0; k < sizeof(nonexistent) / sizeof(nonexistent[0]); k++) {
			if (strcmp(v->name, nonexistent[k].name))
				continue;
			if ((f = lint_add(l, NCCL_LINT_NONEXISTENT, NCCL_LINT_WARN, v->name, nonexistent[k].instead)))
				snprintf(f->message, sizeof(f->message), "%s=%s (%s): %s", v->name, v->value,
					 where(v, w, sizeof(w)), nonexistent[k].why);
			done = 1;
		}
		if (done)
			continue;
		if (nccl_var_known(v->name) && by_lib) {
			if ((f = lint_add(l, NCCL_LINT_IGNORED, NCCL_LINT_WARN, v->name, NULL)))
				snprintf(f->message, sizeof(f->message),
					 "%s=%.64s (%s) is not read by NCCL %s (the library this process "
					 "mapped names no such variable): it has no effect here", v->name,
					 v->value, where(v, w, sizeof(w)), ver);
			continue;
		}
		if (nccl_var_known(v->name)) {
			lint_value(v, l);
			continue;
		}
		int foreign = 0;
		for (const char *const *p = foreign_prefixes; *p; p++)
			if (!strncmp(v->name, *p, strlen(*p)))
				foreign = 1;
		if (foreign)
			continue;
		/* closest known name (the library's first); short names get less slack */
		const char *best = NULL;
		int bestd = 99;
		for (const char *k = by_lib ? lib->names : ""; *k; k += strlen(k) + 1) {
			int d = strlen(k) > 5 ? edit_distance(v->name + 5, k + 5) : 99;
			if (d < bestd) {
				bestd = d;
				best = k;
			}
		}
		for (const char *const *k = known_vars; *k; k++) {
			int d = edit_distance(v->name + 5, *k + 5);
			if (d < bestd) {
				bestd = d;
				best = *k;
			}
		}
		int slack = strlen(v->name + 5) <= 5 ? 1 : 2;
		if (best && bestd <= slack) {
			if ((f = lint_add(l, NCCL_LINT_TYPO, NCCL_LINT_WARN, v->name, best)))
				snprintf(f->message, sizeof(f->message),
					 "%s (%s) is not read by NCCL%s%s; did you mean %s?", v->name,
					 where(v, w, sizeof(w)), by_lib ? " " : "", by_lib ? ver : "", best);
		} else if (by_lib && (f = lint_add(l, NCCL_LINT_UNKNOWN, NCCL_LINT_INFO, v->name, NULL))) {
			snprintf(f->message, sizeof(f->message),
				 "%s (%s) is not read by NCCL %s (the library this process mapped); a "
				 "plugin may read it", v->name, where(v, w, sizeof(w)), ver);
		} else if (!by_lib && (f = lint_add(l, NCCL_LINT_UNKNOWN, NCCL_LINT_INFO, v->name, NULL))) {
			snprintf(f->message, sizeof(f->message),
				 "%s (%s) is not a variable mrtrace knows (a plugin may read it)", v->name,
				 where(v, w, sizeof(w)));
		}
	}

	const struct nccl_setting *mn = nccl_setting_get(s, "NCCL_MIN_NCHANNELS");
	const struct nccl_setting *mx = nccl_setting_get(s, "NCCL_MAX_NCHANNELS");
	if (mn && mx && atol(mn->value) > atol(mx->value) &&
	    (f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, "NCCL_MIN_NCHANNELS", NULL)))
		snprintf(f->message, sizeof(f->message), "NCCL_MIN_NCHANNELS=%.32s is above NCCL_MAX_NCHANNELS=%.32s",
			 mn->value, mx->value);
	/* A named file NCCL cannot read is a setting that silently does not
	 * apply; one that is not a regular file was not read by mrtrace. */
	const struct { int err; const char *name, *file; enum nccl_lint_severity sev; } unread[] = {
		{ s->conf_file_error, "NCCL_CONF_FILE", s->conf_file, NCCL_LINT_WARN },
		{ s->user_conf_error, "~/.nccl.conf", s->user_conf, NCCL_LINT_INFO },
		{ s->system_conf_error, "/etc/nccl.conf", s->system_conf, NCCL_LINT_INFO },
	};
	for (size_t i = 0; i < sizeof(unread) / sizeof(unread[0]); i++) {
		int e = unread[i].err;
		if (!e || !(f = lint_add(l, NCCL_LINT_VALUE, unread[i].sev, unread[i].name, NULL)))
			continue;
		bool nccl_skips = e == -EACCES || e == -EPERM || e == -ENOENT;
		snprintf(f->message, sizeof(f->message), "%s %s: %s; %s", unread[i].name, unread[i].file,
			 jobfile_strerror(e), nccl_skips ? "NCCL applies none of its settings"
							  : "mrtrace did not read it");
	}
	if (s->conf_file_ignored && (f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, "NCCL_CONF_FILE", NULL)))
		snprintf(f->message, sizeof(f->message),
			 "NCCL_CONF_FILE is set, but NCCL %s predates it (2.23): that file is not read, "
			 "~/.nccl.conf and /etc/nccl.conf are",
			 s->nccl_version);
	const struct nccl_setting *ib = nccl_setting_get(s, "NCCL_IB_DISABLE");
	if (ib && atol(ib->value) == 1 &&
	    (f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_INFO, ib->name, NULL)))
		snprintf(f->message, sizeof(f->message),
			 "NCCL_IB_DISABLE=1 (%s): NCCL does not use InfiniBand/RoCE verbs, so memory "
			 "registrations in this process do not come from NCCL's IB transport",
			 where(ib, w, sizeof(w)));
	/* What was left out is said, never dropped silently. */
	if (s->bad_names_dropped &&
	    (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_WARN, "NCCL_*", NULL)))
		snprintf(f->message, sizeof(f->message),
			 "%d more conf-file lines set a malformed NCCL name (only 4 are listed)",
			 s->bad_names_dropped);
	if (s->dropped && (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_WARN, "NCCL_*", NULL)))
		snprintf(f->message, sizeof(f->message),
			 "%d NCCL_* settings beyond the first %d were not examined: the lint above "
			 "is incomplete", s->dropped, NCCL_MAX_SETTINGS);
	if (s->env_dropped && (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_WARN, "NCCL_*", NULL)))
		snprintf(f->message, sizeof(f->message),
			 "%d NCCL_* and rank variables of the environment beyond the first %d were "
			 "not read: the lint above is incomplete", s->env_dropped, CTX_ENV_MAX);
	if (s->cut && (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_INFO, "NCCL_*", NULL)))
		snprintf(f->message, sizeof(f->message),
			 "%d value%s longer than %d bytes %s cut here: what is shown and judged is "
			 "the start", s->cut, s->cut == 1 ? "" : "s", CTX_ENV_VALUE_MAX - 1,
			 s->cut == 1 ? "is" : "are");
	if (l->dropped) {
		f = &l->f[l->n++];   /* the slot lint_add kept free */
		memset(f, 0, sizeof(*f));
		f->kind = NCCL_LINT_DROPPED;
		f->severity = NCCL_LINT_WARN;
		snprintf(f->name, sizeof(f->name), "NCCL_*");
		snprintf(f->message, sizeof(f->message), "%d more findings not listed (the lint "
			 "holds %d)", l->dropped, NCCL_MAX_LINTS);
	}
}

/* ======================================================================
 * Pinned host memory estimate.  Per network connection NCCL allocates one
 * buffer per protocol (sizes in nccl/layout.h, docs/design.md section 4).
 * LL lives in host memory always; LL128 and Simple live in GPU memory when
 * GPUDirect RDMA is used, else in pinned host memory that counts against
 * RLIMIT_MEMLOCK.
 * ====================================================================== */


static uint64_t size_setting(const struct nccl_settings *s, const char *name, uint64_t def, int *set)
{
	const struct nccl_setting *v = s ? nccl_setting_get(s, name) : NULL;
	long long x;
	int trailing;
	if (!v || nccl_int(v->value, &x, &trailing) || x <= 0)
		return def;
	*set = 1;
	return (uint64_t)x;	/* as NCCL reads it, trailing letters ignored */
}

static int int_setting(const struct nccl_settings *s, const char *name, int def)
{
	const struct nccl_setting *v = s ? nccl_setting_get(s, name) : NULL;
	long long x;
	int trailing;
	if (!v || nccl_int(v->value, &x, &trailing) || x < 0 || x > 1024)
		return def;
	return (int)x;
}

void nccl_estimate(const struct nccl_settings *s, const struct nccl_estimate_params *p,
		   struct nccl_estimate *e)
{
	memset(e, 0, sizeof(*e));
	int set_ll = 0, set_ll128 = 0, set_simple = 0;
	e->ll_bytes = size_setting(s, "NCCL_LL_BUFFSIZE", NCCL_LL_BYTES, &set_ll);
	e->ll128_bytes = size_setting(s, "NCCL_LL128_BUFFSIZE", NCCL_LL128_BYTES, &set_ll128);
	e->simple_bytes = size_setting(s, "NCCL_BUFFSIZE", NCCL_BUFFSIZE_DEFAULT, &set_simple);

	int given_channels = p && p->channels > 0;
	e->channels = given_channels ? p->channels : 2;
	if (!given_channels) {
		/* the user's bounds move NCCL's choice */
		int mn = int_setting(s, "NCCL_MIN_NCHANNELS", 0);
		int mx = int_setting(s, "NCCL_MAX_NCHANNELS", 0);
		if (mn > e->channels)
			e->channels = mn;
		if (mx > 0 && mx < e->channels)
			e->channels = mx;
	}
	e->sends = p && p->sends > 0 ? p->sends : 1;
	e->recvs = p && p->recvs > 0 ? p->recvs : 1;
	e->nics = p && p->nics > 0 ? p->nics : 1;

	const struct nccl_setting *lvl = s ? nccl_setting_get(s, "NCCL_NET_GDR_LEVEL") : NULL;
	e->gdr = lvl && (!strcasecmp(lvl->value, "LOC") || !strcmp(lvl->value, "0")) ? NCCL_GDR_OFF
										      : NCCL_GDR_UNKNOWN;
	const struct nccl_setting *rd = s ? nccl_setting_get(s, "NCCL_NET_GDR_READ") : NULL;
	int gdr_read_off = rd && atoi(rd->value) == 0;

	uint64_t mult = (uint64_t)e->channels * (uint64_t)e->nics;
	e->per_conn_host_no_gdr = e->ll_bytes + e->ll128_bytes + e->simple_bytes;
	e->host_no_gdr = mult * (uint64_t)(e->sends + e->recvs) * e->per_conn_host_no_gdr;
	/* With GDR, receive buffers (and send buffers when GDR read is used)
	 * move to the GPU; LL stays in host memory. */
	uint64_t send_gdr = e->ll_bytes + (gdr_read_off ? e->ll128_bytes + e->simple_bytes : 0);
	e->host_with_gdr = mult * ((uint64_t)e->sends * send_gdr + (uint64_t)e->recvs * e->ll_bytes);
	if (e->gdr == NCCL_GDR_OFF) {
		e->host_min = e->host_max = e->host_no_gdr;
	} else {
		e->host_min = e->host_with_gdr;
		e->host_max = e->host_no_gdr;
	}

	char ll[32], ll128[32], simple[32];
	snprintf(e->assumptions, sizeof(e->assumptions),
		 "%d channel%s%s x (%d send + %d receive) network connection%s x %d NIC%s; per connection "
		 "LL %s + LL128 %s + Simple %s%s; %s; tree, p2p/all-to-all and shared buffers add more, "
		 "so this is a floor",
		 e->channels, e->channels == 1 ? "" : "s", given_channels ? "" : " (assumed)", e->sends,
		 e->recvs, e->sends + e->recvs == 1 ? "" : "s", e->nics, e->nics == 1 ? "" : "s",
		 fmt_bytes(e->ll_bytes, ll, sizeof(ll)), fmt_bytes(e->ll128_bytes, ll128, sizeof(ll128)),
		 fmt_bytes(e->simple_bytes, simple, sizeof(simple)),
		 set_simple || set_ll || set_ll128 ? " (from settings)" : "",
		 e->gdr == NCCL_GDR_OFF ? "GDR off (NCCL_NET_GDR_LEVEL), so LL128 and Simple are pinned host memory"
					: "GDR unknown: the low end assumes GDR, the high end assumes none");
}

/* ======================================================================
 * Everything for one process.
 * ====================================================================== */

int nccl_info_read(const char *root, const struct proc_context *ctx, struct nccl_info *out)
{
	memset(out, 0, sizeof(*out));
	static const struct ctx_env empty;
	const struct ctx_env *env = ctx->have & CTX_HAVE_ENV ? &ctx->env : &empty;
	int rc_lib = nccl_lib_detect(root, ctx->pid, &out->lib);
	/* getpwuid(getuid()) runs inside the process: use its namespace's uid */
	long uid = ctx->have & CTX_HAVE_NS_UID ? (long)ctx->ns_uid
		   : ctx->have & CTX_HAVE_UID ? (long)ctx->uid : -1;
	nccl_settings_read_for(root, ctx->pid, env, uid, out->lib.found ? &out->lib : NULL, &out->settings);
	nccl_rank_from_env(env, &out->rank);
	nccl_lint_settings_for(&out->settings, out->lib.found ? &out->lib : NULL, &out->lint);
	nccl_estimate(&out->settings, NULL, &out->estimate);
	if (rc_lib < 0 && !(ctx->have & CTX_HAVE_ENV))
		return rc_lib;
	return 0;
}
