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
	/* Slurm */
	"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID",
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
