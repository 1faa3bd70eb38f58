/* SPDX-License-Identifier: GPL-2.0-only */
/* nccl.h - what NCCL a process runs and how it is configured: the mapped
 * libnccl (library.c) and its version (version.c), the effective NCCL_*
 * settings with where each came from (settings.c), the rank (rank.c), a
 * lint of the settings (lint.c), and an estimate of the pinned host memory
 * NCCL's network buffers need, to show beside the memlock limit
 * (estimate.c); all of it for one process: info.c.
 *
 * Plain data, no BPF.  Same `root` convention as context.h.
 */
#ifndef MRTRACE_NCCL_H
#define MRTRACE_NCCL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/context.h"

/* ---- the library (library.c, version.c) ----------------------------------- */
#define NCCL_LIB_NAMES_MAX 16384   /* ~300 names of ~25 bytes in NCCL 2.2x */
struct nccl_lib {
	bool found;                 /* a libnccl (or stand-in) is mapped */
	char path[256];             /* as in /proc/PID/maps (process's mount ns) */
	bool version_known;
	char version[48];           /* "2.21.5" (with any suffix NCCL was built with) */
	int major, minor, patch;
	char cuda[16];              /* "12.4" */
	char net_plugin[256];       /* a mapped libnccl-net*.so, if any */
	/* The NCCL_* names in the library's read-only data: the variables this
	 * build reads (NCCL_PARAM and ncclGetEnv literals), NUL-separated.  The
	 * lint trusts them only when the whole .rodata was scanned and they all
	 * fit (names_complete). */
	int n_names;
	bool names_complete;
	char names[NCCL_LIB_NAMES_MAX];
};

/* Looks for libnccl in <root>/proc/<pid>/maps and scans the file for its
 * version string (through <root>/proc/<pid>/root/<path>, then map_files).
 * 0 (see out->found), or -errno when maps is unreadable. */
int nccl_lib_detect(const char *root, int pid, struct nccl_lib *out);

/* Finds "NCCL version X.Y.Z[suffix]+cudaA.B" in a file (the .rodata section
 * when it is ELF, else the whole file).  0 if found, -ENOENT if not,
 * -EINVAL when it is not a regular file, -errno. */
int nccl_version_scan_file(const char *path, struct nccl_lib *out);
int nccl_version_scan_fd(int fd, struct nccl_lib *out);
/* Same on a memory buffer. */
int nccl_version_scan_buf(const char *buf, size_t len, struct nccl_lib *out);

/* ---- peer-memory markers (gdrmarkers.c) ------------------------------------ */
/* The files NCCL's IB transport tests (access F_OK) to decide that a
 * peer-memory client is there; finding none, it turns GPUDirect RDMA off
 * unless dma-buf works.  Which ones depends on the release. */
enum nccl_peer_marker {
	NCCL_PEER_NV_MEM = 1 << 0,             /* memory_peers/nv_mem/version: every release */
	NCCL_PEER_NV_MEM_NC = 1 << 1,          /* memory_peers/nv_mem_nc/version: 2.22+ */
	NCCL_PEER_NVIDIA_PEERMEM_DIR = 1 << 2, /* memory_peers/nvidia-peermem/version: 2.9.8 .. 2.21 */
	NCCL_PEER_MODULE = 1 << 3,             /* /sys/module/nvidia_peermem/version: 2.23+ */
};
#define NCCL_PEER_MARKERS 4
/* The markers this library looks for (NCCL_PEER_*), 0 when its version is
 * unknown. */
unsigned nccl_peer_markers(const struct nccl_lib *lib);
/* The file one marker flag names, "" for another value. */
const char *nccl_peer_marker_path(unsigned flag);

/* ---- settings (settings.c) ---------------------------------------------------- */
enum nccl_source {
	NCCL_SRC_DEFAULT = 0,       /* not set anywhere */
	NCCL_SRC_ENV,               /* the process environment */
	NCCL_SRC_CONF_FILE,         /* the file NCCL_CONF_FILE names */
	NCCL_SRC_USER_CONF,         /* ~/.nccl.conf (home from the process root's passwd) */
	NCCL_SRC_SYSTEM_CONF,       /* /etc/nccl.conf */
};

#define NCCL_MAX_SETTINGS 256       /* beyond: counted in `dropped`, said by the lint */
struct nccl_setting {
	char name[CTX_ENV_NAME_MAX];
	char value[CTX_ENV_VALUE_MAX];
	enum nccl_source source;    /* the winner */
	char origin[256];           /* file path for file sources, "" for env */
	bool overridden;            /* a lower-precedence source also set it */
};

struct nccl_settings {
	int n;
	bool truncated;             /* dropped or cut */
	int dropped;                /* NCCL_* settings beyond NCCL_MAX_SETTINGS, not examined */
	int cut;                    /* values longer than CTX_ENV_VALUE_MAX-1 bytes, cut */
	int env_dropped;            /* allowed environment variables the reader did not keep */
	struct nccl_setting v[NCCL_MAX_SETTINGS];
	/* which files were read (for "settings came from ..." lines) */
	bool conf_file_read, user_conf_read, system_conf_read;
	char conf_file[256], user_conf[256], system_conf[256];
	/* why a file was not read (-errno; 0 = read, or absent where that is
	 * normal): the job could not read it, not a regular file, too large */
	int conf_file_error, user_conf_error, system_conf_error;
	/* variables set in a file with a malformed name, e.g. "NCCL_DEBUG " */
	int n_bad_names, bad_names_dropped;
	char bad_names[4][CTX_ENV_NAME_MAX];
	/* NCCL_CONF_FILE is set but the mapped NCCL (< 2.23) does not read it */
	bool conf_file_ignored;
	char nccl_version[48];      /* the version the rules were applied for, "" = unknown */
};

/* Builds the effective settings the way NCCL's initEnv does: the environment
 * first, then NCCL_CONF_FILE if set and non-empty (NCCL 2.23+; else
 * ~/.nccl.conf), then
 * /etc/nccl.conf, each applied with setenv(..., overwrite=0).  So the
 * environment wins over every file, and the user file wins over /etc.
 * Files are read as the process would read them (proc/jobfile.h): inside
 * its root, with its credentials, regular files of at most 64 KiB only.
 * `env` may come from proc_env_read(); `uid` picks the passwd entry and is
 * the uid inside the process's user namespace (proc_context.ns_uid), -1 =
 * skip ~/.nccl.conf. */
int nccl_settings_read(const char *root, int pid, const struct ctx_env *env, long uid,
		       struct nccl_settings *out);
/* Same, for a known library: NCCL_CONF_FILE exists since NCCL 2.23; older
 * releases ignore it and read ~/.nccl.conf (conf_file_ignored is set).
 * lib == NULL or an unknown version behaves like nccl_settings_read. */
int nccl_settings_read_for(const char *root, int pid, const struct ctx_env *env, long uid,
			   const struct nccl_lib *lib, struct nccl_settings *out);
/* Applies one conf file's text with NCCL's parsing rules (tests, callers). */
void nccl_settings_apply_conf(struct nccl_settings *s, const char *text,
			      enum nccl_source src, const char *origin);
const struct nccl_setting *nccl_setting_get(const struct nccl_settings *s, const char *name);
const char *nccl_source_name(enum nccl_source src);
/* A setting's integer as NCCL reads it, strtoll(value, NULL, 0): "4M" is 4,
 * "1e6" is 1.  *trailing says whether something followed the digits.
 * 0, or -1 when there are no digits or the number overflows. */
int nccl_parse_int(const char *v, long long *out, int *trailing);
/* The other way: the value, or -1 for a name it never returns (one table
 * for both directions). */
int nccl_source_from_name(const char *name);

/* ---- rank (rank.c) -------------------------------------------------------- */
struct nccl_rank {
	long rank, local_rank, world_size;  /* -1 when unknown */
	const char *rank_var;               /* which variable gave it (static string) */
};
void nccl_rank_from_env(const struct ctx_env *env, struct nccl_rank *out);

/* ---- lint (lint.c) -------------------------------------------------------- */
enum nccl_lint_kind {
	NCCL_LINT_NONEXISTENT,   /* a name no NCCL release reads (popular advice) */
	NCCL_LINT_TYPO,          /* close to a known name */
	NCCL_LINT_UNKNOWN,       /* not known to mrtrace, no close match (plugins read their own) */
	NCCL_LINT_BAD_NAME,      /* conf-file line whose name has spaces etc. */
	NCCL_LINT_VALUE,         /* suspicious or unparsable value */
	NCCL_LINT_IGNORED,       /* known to some NCCL, not read by the library this process mapped */
	NCCL_LINT_DROPPED,       /* the lint or the settings table was full: what was left out */
};
enum nccl_lint_severity { NCCL_LINT_INFO, NCCL_LINT_WARN };

#define NCCL_MAX_LINTS 300   /* the last slot says how many more there were */
struct nccl_lint_finding {
	enum nccl_lint_kind kind;
	enum nccl_lint_severity severity;
	char name[CTX_ENV_NAME_MAX];
	char suggestion[CTX_ENV_NAME_MAX + 16]; /* "NCCL_NET_GDR_LEVEL=LOC", or "" */
	char message[320];
};
struct nccl_lint {
	int n;
	int dropped;             /* findings not listed (one NCCL_LINT_DROPPED finding says it) */
	struct nccl_lint_finding f[NCCL_MAX_LINTS];
};
void nccl_lint_settings(const struct nccl_settings *s, struct nccl_lint *out);
/* Same, knowing the library the process mapped: a variable its .rodata
 * names is read by it (never unknown or a typo), a variable mrtrace knows
 * but the library does not name is "ignored by this version".  lib NULL or
 * without a complete name list: as nccl_lint_settings. */
void nccl_lint_settings_for(const struct nccl_settings *s, const struct nccl_lib *lib,
			    struct nccl_lint *out);
/* Whether the library's .rodata names this variable (false when unknown). */
bool nccl_lib_reads(const struct nccl_lib *lib, const char *name);
/* Whether NCCL (some release) reads this variable. */
bool nccl_var_known(const char *name);
const char *nccl_lint_kind_name(enum nccl_lint_kind k);
/* The other way: the value, or -1 for a name it never returns (one table
 * for both directions). */
int nccl_lint_kind_from_name(const char *name);

/* ---- pinned-memory estimate (estimate.c) ------------------------------------ */
enum nccl_gdr { NCCL_GDR_UNKNOWN = 0, NCCL_GDR_OFF };

/* Shape of the job; zeros mean "use the default" (documented in docs/context.md). */
struct nccl_estimate_params {
	int channels;     /* default 2, clamped by NCCL_MIN/MAX_NCHANNELS */
	int sends;        /* network send connections per channel, default 1 (ring) */
	int recvs;        /* network receive connections per channel, default 1 */
	int nics;         /* NICs a buffer is registered on (merged devices), default 1 */
	uint64_t buffsize; /* Simple buffer bytes as if NCCL_BUFFSIZE said so; 0: the settings' */
};

struct nccl_estimate {
	uint64_t ll_bytes, ll128_bytes, simple_bytes;  /* per connection */
	int channels, sends, recvs, nics;
	enum nccl_gdr gdr;
	uint64_t per_conn_host_no_gdr;  /* LL + LL128 + Simple */
	uint64_t host_no_gdr;    /* pinned host bytes if GDR is not used */
	uint64_t host_with_gdr;  /* pinned host bytes if GDR is used (LL only, plus
				    send buffers when NCCL_NET_GDR_READ=0) */
	/* What to print beside the memlock limit: [host_min, host_max].
	 * GDR forced off (NCCL_NET_GDR_LEVEL=LOC/0) -> both = host_no_gdr;
	 * otherwise min = host_with_gdr, max = host_no_gdr. */
	uint64_t host_min, host_max;
	char assumptions[512];
};
void nccl_estimate(const struct nccl_settings *s, const struct nccl_estimate_params *p,
		   struct nccl_estimate *out);

/* ---- all of it (info.c) ------------------------------------------------------ */
/* About 310 KB (the settings and lint tables, the library's names): it
 * lives on the heap (nccl_info_alloc) and is passed by pointer, never
 * copied or put on a stack. */
struct nccl_info {
	struct nccl_lib lib;
	struct nccl_settings settings;
	struct nccl_rank rank;
	struct nccl_lint lint;
	struct nccl_estimate estimate;
};
/* Library, settings (from ctx->env when CTX_HAVE_ENV, uid from ctx), rank,
 * lint and the default estimate.  0, or -errno when nothing could be read. */
int nccl_info_read(const char *root, const struct proc_context *ctx, struct nccl_info *out);
/* A zeroed nccl_info on the heap (nothing found yet); NULL when out of
 * memory.  Release with free(). */
struct nccl_info *nccl_info_alloc(void);

#endif
