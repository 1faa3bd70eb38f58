// SPDX-License-Identifier: GPL-2.0-only
/* lint.c - what is wrong with a process's NCCL settings (nccl.h): variables
 * no release reads, typos, values NCCL reads differently than meant, files
 * it cannot read, and what was left out. */
#include "nccl/nccl.h"
#include "proc/jobfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/units.h"

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

/* The finding's message; one that does not fit its 320 bytes is cut. */
static void lint_say(struct nccl_lint_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void lint_say(struct nccl_lint_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
}

/* where a setting came from: "environment" or the file that set it */
static const char *where(const struct nccl_setting *s)
{
	if (s->source == NCCL_SRC_ENV)
		return "environment";
	return s->origin[0] ? s->origin : nccl_source_name(s->source);
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
	char a[32], b[32];
	struct nccl_lint_finding *f;
	size_t vl = strlen(s->value);
	if (vl && s->value[vl - 1] == '\r') {
		if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, NULL)))
			lint_say(f,
				 "%s ends with a carriage return (a CRLF file, %s): NCCL keeps it in the value",
				 s->name, where(s));
		return;
	}
	for (const char *const *iv = int_vars; *iv; iv++) {
		if (strcmp(*iv, s->name))
			continue;
		long long x;
		int trailing;
		if (nccl_parse_int(s->value, &x, &trailing) || trailing) {
			if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, NULL)))
				lint_say(f,
					 "%s=%s (%s): NCCL parses integers with strtoll and ignores what follows "
					 "the digits, so this means %lld; write the plain number%s",
					 s->name, s->value, where(s), x,
					 strstr(s->name, "SIZE") ? " of bytes" : "");
			return;
		}
		if (!strcmp(s->name, "NCCL_BUFFSIZE") && x > 16LL << 20) {
			if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, "NCCL_BUFFSIZE=4194304")))
				lint_say(f,
					 "NCCL_BUFFSIZE=%s (%s) is %s per connection (default %s); every network "
					 "connection pins that much more host memory without GDR",
					 s->value, where(s), fmt_bytes((uint64_t)x, a, sizeof(a)),
					 fmt_bytes(4u << 20, b, sizeof(b)));
		}
		return;
	}
	if (!strcmp(s->name, "NCCL_NET_GDR_LEVEL")) {
		static const char *const levels[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN",
						      "P2C", "PHB", "SYS", "NET", "DIS", NULL };
		long long x;
		int trailing;
		if (!nccl_parse_int(s->value, &x, &trailing) && !trailing)
			return;	/* legacy integer levels */
		for (const char *const *lv = levels; *lv; lv++)
			if (!strcasecmp(*lv, s->value))
				return;
		if ((f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, s->name, "NCCL_NET_GDR_LEVEL=LOC")))
			lint_say(f,
				 "NCCL_NET_GDR_LEVEL=%s (%s) is not a path type (LOC, PIX, PXB, PHB, SYS, ...)",
				 s->value, where(s));
	}
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
	struct nccl_lint_finding *f;
	bool by_lib = lib_names_usable(lib);
	const char *ver = lib && lib->version_known ? lib->version : "?";
	for (int i = 0; i < s->n_bad_names; i++)
		if ((f = lint_add(l, NCCL_LINT_BAD_NAME, NCCL_LINT_WARN, s->bad_names[i], NULL)))
			lint_say(f,
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
				lint_say(f, "%s=%s (%s): %s", v->name, v->value,
					 where(v), nonexistent[k].why);
			done = 1;
		}
		if (done)
			continue;
		if (nccl_var_known(v->name) && by_lib) {
			if ((f = lint_add(l, NCCL_LINT_IGNORED, NCCL_LINT_WARN, v->name, NULL)))
				lint_say(f,
					 "%s=%.64s (%s) is not read by NCCL %s (the library this process "
					 "mapped names no such variable): it has no effect here", v->name,
					 v->value, where(v), ver);
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
				lint_say(f,
					 "%s (%s) is not read by NCCL%s%s; did you mean %s?", v->name,
					 where(v), by_lib ? " " : "", by_lib ? ver : "", best);
		} else if (by_lib && (f = lint_add(l, NCCL_LINT_UNKNOWN, NCCL_LINT_INFO, v->name, NULL))) {
			lint_say(f,
				 "%s (%s) is not read by NCCL %s (the library this process mapped); a "
				 "plugin may read it", v->name, where(v), ver);
		} else if (!by_lib && (f = lint_add(l, NCCL_LINT_UNKNOWN, NCCL_LINT_INFO, v->name, NULL))) {
			lint_say(f,
				 "%s (%s) is not a variable mrtrace knows (a plugin may read it)", v->name,
				 where(v));
		}
	}

	const struct nccl_setting *mn = nccl_setting_get(s, "NCCL_MIN_NCHANNELS");
	const struct nccl_setting *mx = nccl_setting_get(s, "NCCL_MAX_NCHANNELS");
	if (mn && mx && atol(mn->value) > atol(mx->value) &&
	    (f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, "NCCL_MIN_NCHANNELS", NULL)))
		lint_say(f, "NCCL_MIN_NCHANNELS=%.32s is above NCCL_MAX_NCHANNELS=%.32s",
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
		lint_say(f, "%s %s: %s; %s", unread[i].name, unread[i].file,
			 jobfile_strerror(e), nccl_skips ? "NCCL applies none of its settings"
							  : "mrtrace did not read it");
	}
	if (s->conf_file_ignored && (f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_WARN, "NCCL_CONF_FILE", NULL)))
		lint_say(f,
			 "NCCL_CONF_FILE is set, but NCCL %s predates it (2.23): that file is not read, "
			 "~/.nccl.conf and /etc/nccl.conf are",
			 s->nccl_version);
	const struct nccl_setting *ib = nccl_setting_get(s, "NCCL_IB_DISABLE");
	if (ib && atol(ib->value) == 1 &&
	    (f = lint_add(l, NCCL_LINT_VALUE, NCCL_LINT_INFO, ib->name, NULL)))
		lint_say(f,
			 "NCCL_IB_DISABLE=1 (%s): NCCL does not use InfiniBand/RoCE verbs, so memory "
			 "registrations in this process do not come from NCCL's IB transport",
			 where(ib));
	/* What was left out is said, never dropped silently. */
	if (s->bad_names_dropped &&
	    (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_WARN, "NCCL_*", NULL)))
		lint_say(f,
			 "%d more conf-file lines set a malformed NCCL name (only 4 are listed)",
			 s->bad_names_dropped);
	if (s->dropped && (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_WARN, "NCCL_*", NULL)))
		lint_say(f,
			 "%d NCCL_* settings beyond the first %d were not examined: the lint above "
			 "is incomplete", s->dropped, NCCL_MAX_SETTINGS);
	if (s->env_dropped && (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_WARN, "NCCL_*", NULL)))
		lint_say(f,
			 "%d NCCL_* and rank variables of the environment beyond the first %d were "
			 "not read: the lint above is incomplete", s->env_dropped, CTX_ENV_MAX);
	if (s->cut && (f = lint_add(l, NCCL_LINT_DROPPED, NCCL_LINT_INFO, "NCCL_*", NULL)))
		lint_say(f,
			 "%d value%s longer than %d bytes %s cut here: what is shown and judged is "
			 "the start", s->cut, s->cut == 1 ? "" : "s", CTX_ENV_VALUE_MAX - 1,
			 s->cut == 1 ? "is" : "are");
	if (l->dropped) {
		f = &l->f[l->n++];   /* the slot lint_add kept free */
		memset(f, 0, sizeof(*f));
		f->kind = NCCL_LINT_DROPPED;
		f->severity = NCCL_LINT_WARN;
		snprintf(f->name, sizeof(f->name), "NCCL_*");
		lint_say(f, "%d more findings not listed (the lint "
			 "holds %d)", l->dropped, NCCL_MAX_LINTS);
	}
}
