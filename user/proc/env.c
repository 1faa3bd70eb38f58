// SPDX-License-Identifier: GPL-2.0-only
/* env.c - the allow-listed environment of a process (see context.h):
 * NCCL_* and the variables that name its rank, nothing else. */
#include "proc/context.h"
#include "core/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- allow-listed environment ---------------------------------------------
 * The environment of a training job holds credentials (cloud keys, tokens).
 * We keep NCCL_* and the variables that say which rank this is, and nothing
 * else: every other entry only ever passes through the two stack buffers
 * below, which are wiped before returning.  No stdio: its buffers would hold
 * copies we could not wipe. */

static const char *const env_allow[] = {
	/* torchrun / torchelastic */
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
	"TORCHELASTIC_RUN_ID",
	/* Open MPI, MPICH/PMI, PMIx */
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALRANKID",
	"OMPI_COMM_WORLD_NODE_RANK", "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE", "PMIX_NAMESPACE",
	"PMIX_LOCAL_RANK", "MPI_LOCALNRANKS",
	/* Slurm */
	"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID",
	"SLURM_JOBID", "SLURM_STEPID", "SLURM_NODEID", "SLURM_JOB_UID",
	"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_CLUSTER_NAME",
	/* which GPUs it sees */
	"CUDA_VISIBLE_DEVICES",
	/* Kubernetes: the downward API names its manifests commonly give them,
	 * and the pod hostname (no secret in any) */
	"POD_NAME", "POD_NAMESPACE", "NODE_NAME", "KUBERNETES_POD_NAME", "KUBERNETES_NAMESPACE",
	"JOB_COMPLETION_INDEX",
};

bool proc_env_allowed(const char *name)
{
	if (!strncmp(name, "NCCL_", 5) && name[5])
		return true;
	for (size_t i = 0; i < sizeof(env_allow) / sizeof(env_allow[0]); i++)
		if (!strcmp(name, env_allow[i]))
			return true;
	return false;
}

const char *proc_env_get(const struct ctx_env *env, const char *name)
{
	for (int i = 0; i < env->n; i++)
		if (!strcmp(env->vars[i].name, name))
			return env->vars[i].value;
	return NULL;
}

/* One "NAME=value" entry (not NUL-terminated, `cut` when it was longer than
 * the entry buffer).  Copies it only if the name is allowed. */
static void env_consider(struct ctx_env *out, const char *entry, size_t len, int cut)
{
	const char *eq = memchr(entry, '=', len);
	if (!eq || eq == entry)
		return;
	size_t nl = (size_t)(eq - entry);
	if (nl >= CTX_ENV_NAME_MAX)
		return;		/* no allowed name is that long */
	char name[CTX_ENV_NAME_MAX];
	memcpy(name, entry, nl);
	name[nl] = '\0';
	if (!proc_env_allowed(name))
		return;
	if (out->n >= CTX_ENV_MAX) {
		out->truncated = true;
		out->dropped++;
		return;
	}
	struct ctx_env_var *v = &out->vars[out->n++];
	memcpy(v->name, name, nl + 1);
	size_t vl = len - nl - 1;
	if (vl >= sizeof(v->value) || cut) {
		out->truncated = true;
		v->cut = true;
		if (vl >= sizeof(v->value))
			vl = sizeof(v->value) - 1;
	}
	memcpy(v->value, eq + 1, vl);
	v->value[vl] = '\0';
}

int proc_env_read(const char *root, int pid, struct ctx_env *out)
{
	memset(out, 0, sizeof(*out));
	int fd = procfs_open(root, pid, "environ");
	if (fd < 0)
		return fd;

	char chunk[4096], entry[4096];
	size_t elen = 0;
	int cut = 0, err = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] == '\0') {
				env_consider(out, entry, elen, cut);
				explicit_bzero(entry, elen);
				elen = 0;
				cut = 0;
			} else if (elen < sizeof(entry)) {
				entry[elen++] = chunk[i];
			} else {
				cut = 1;
			}
		}
	}
	if (elen)		/* a last entry without its NUL */
		env_consider(out, entry, elen, cut);
	explicit_bzero(entry, sizeof(entry));
	explicit_bzero(chunk, sizeof(chunk));
	close(fd);
	return err;
}

/* ---- a block copied by the kernel (bpf/environ.bpf.h) ------------------------
 * The same allow-list over bytes in memory: entries are handed to
 * env_consider() in place (it copies only allowed names), so nothing else
 * of the block is ever copied here.  A block cut at its start or end (the
 * copy's bound, a chunk the kernel could not read) has a partial entry
 * there: dropped and counted, never taken - "LOCAL_RANK=3" cut at its
 * start would read as RANK=3. */
int proc_env_parse(struct ctx_env *out, const char *block, size_t len, unsigned int flags)
{
	size_t at = 0;
	int cut = 0;
	bool first = true;

	while (at < len) {
		const char *nul = memchr(block + at, '\0', len - at);
		size_t end = nul ? (size_t)(nul - block) : len;

		if ((first && (flags & ENV_BLOCK_HEAD_CUT)) || (!nul && (flags & ENV_BLOCK_TAIL_CUT))) {
			cut += end > at;
			out->cut_entries += end > at;
		} else {
			env_consider(out, block + at, end - at, 0);
		}
		first = false;
		at = end + 1;
	}
	return cut;
}

int proc_env_from_kernel(struct ctx_env *out, const char *block, size_t len, size_t total,
			 unsigned int holes, size_t chunk)
{
	int cut = 0;

	memset(out, 0, sizeof(*out));
	if (!chunk)
		return -1;
	/* runs of chunks that were read, each parsed alone */
	for (size_t a = 0; a < len;) {
		size_t i = a / chunk;
		if (i < 32 && (holes & (1u << i))) {
			a += chunk;
			continue;
		}
		size_t b = a;
		while (b < len && !((b / chunk) < 32 && (holes & (1u << (b / chunk)))))
			b += chunk;
		if (b > len)
			b = len;
		unsigned int flags = (a > 0 ? ENV_BLOCK_HEAD_CUT : 0) |
				     (b < len || total > len ? ENV_BLOCK_TAIL_CUT : 0);
		cut += proc_env_parse(out, block + a, b - a, flags);
		a = b;
	}
	if (holes || total > len)
		out->kernel_cut = true;
	return cut;
}
