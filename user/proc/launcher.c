// SPDX-License-Identifier: GPL-2.0-only
/* launcher.c - the chain of processes that started this one.  The fix for
 * a memlock limit depends on who set it: a limit is inherited from the
 * parent, so the launcher chain (torchrun <- srun <- slurmstepd, or
 * orted <- sshd) says where to change it. */
#include "proc/launcher.h"

#include "core/procfs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct comm_rule {
	const char *comm;
	int prefix;		/* match the start only (comm is cut at 15 bytes) */
	enum ctx_launcher_kind kind;
};

static const struct comm_rule comm_rules[] = {
	{ "torchrun", 0, CTX_L_TORCHRUN },
	{ "deepspeed", 0, CTX_L_DEEPSPEED },
	{ "mpirun", 0, CTX_L_MPIRUN },
	{ "mpiexec", 1, CTX_L_MPIRUN },		/* mpiexec, mpiexec.hydra */
	{ "orterun", 0, CTX_L_MPIRUN },
	{ "prterun", 0, CTX_L_MPIRUN },
	{ "orted", 0, CTX_L_MPI_DAEMON },
	{ "prted", 0, CTX_L_MPI_DAEMON },
	{ "hydra_pmi_proxy", 1, CTX_L_MPI_DAEMON },
	{ "srun", 0, CTX_L_SRUN },
	{ "slurmstepd", 0, CTX_L_SLURMSTEPD },
	{ "sshd", 1, CTX_L_SSHD },		/* sshd, sshd-session (OpenSSH 9.8+) */
	{ "containerd-shim", 1, CTX_L_CONTAINERD_SHIM },
	{ "conmon", 0, CTX_L_CONMON },
	{ "kubelet", 0, CTX_L_KUBELET },
	{ "bash", 0, CTX_L_SHELL }, { "sh", 0, CTX_L_SHELL }, { "zsh", 0, CTX_L_SHELL },
	{ "dash", 0, CTX_L_SHELL }, { "fish", 0, CTX_L_SHELL }, { "ksh", 0, CTX_L_SHELL },
	{ "tcsh", 0, CTX_L_SHELL }, { "csh", 0, CTX_L_SHELL },
	{ "sudo", 0, CTX_L_SUDO }, { "su", 0, CTX_L_SUDO }, { "runuser", 0, CTX_L_SUDO },
};

static const char *base_name(const char *s, size_t n, size_t *outn)
{
	const char *b = s;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			b = s + i + 1;
	*outn = n - (size_t)(b - s);
	return b;
}

static int token_is(const char *t, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(t, word, n);
}

/* python launchers keep comm "python3": look at argv.  cmdline has NULs
 * already turned into spaces, so split on spaces. */
static enum ctx_launcher_kind classify_python(const char *cmdline)
{
	const char *tok[4];
	size_t len[4];
	int nt = 0;
	for (const char *p = cmdline; *p && nt < 4;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		tok[nt] = p;
		len[nt] = strcspn(p, " ");
		p += len[nt];
		nt++;
	}
	if (nt < 2)
		return CTX_L_OTHER;
	int arg = 1;
	/* skip interpreter flags such as -u, -O, -X opt */
	while (arg < nt && tok[arg][0] == '-' && !token_is(tok[arg], len[arg], "-m"))
		arg++;
	if (arg < nt && token_is(tok[arg], len[arg], "-m") && arg + 1 < nt) {
		const char *m = tok[arg + 1];
		size_t ml = len[arg + 1];
		if ((ml >= 21 && !memcmp(m, "torch.distributed.run", 21)) ||
		    (ml >= 24 && !memcmp(m, "torch.distributed.launch", 24)))
			return CTX_L_TORCHRUN;
		if (ml >= 18 && !memcmp(m, "deepspeed.launcher", 18))
			return CTX_L_DEEPSPEED;
		return CTX_L_OTHER;
	}
	if (arg < nt) {
		size_t bn;
		const char *b = base_name(tok[arg], len[arg], &bn);
		if (token_is(b, bn, "torchrun"))
			return CTX_L_TORCHRUN;
		if (token_is(b, bn, "deepspeed"))
			return CTX_L_DEEPSPEED;
	}
	return CTX_L_OTHER;
}

enum ctx_launcher_kind launcher_classify(int pid, const char *comm, const char *cmdline)
{
	if (!comm)
		comm = "";
	if (!strcmp(comm, "systemd")) {
		if (pid == 1)
			return CTX_L_SYSTEMD;
		if (cmdline && strstr(cmdline, "--user"))
			return CTX_L_SYSTEMD_USER;
		return CTX_L_OTHER;
	}
	for (size_t i = 0; i < sizeof(comm_rules) / sizeof(comm_rules[0]); i++) {
		const struct comm_rule *r = &comm_rules[i];
		if (r->prefix ? !strncmp(comm, r->comm, strlen(r->comm)) : !strcmp(comm, r->comm))
			return r->kind;
	}
	if (!strncmp(comm, "python", 6) && cmdline)
		return classify_python(cmdline);
	if (pid == 1 && cmdline && strstr(cmdline, "systemd"))
		return CTX_L_SYSTEMD;	/* /sbin/init -> systemd with a renamed comm */
	return CTX_L_OTHER;
}

/* /proc/PID/stat: "pid (comm) state ppid ..." where comm may hold spaces and
 * parentheses, so it ends at the LAST ')'. */
static int read_stat(const char *root, int pid, char *comm, size_t commlen, int *ppid)
{
	char buf[1024];
	long n = procfs_read_at(root, pid, "stat", buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ENOENT;
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	size_t cl = (size_t)(close - open - 1);
	if (cl >= commlen)
		cl = commlen - 1;
	memcpy(comm, open + 1, cl);
	comm[cl] = '\0';
	char state;
	if (sscanf(close + 1, " %c %d", &state, ppid) != 2)
		return -EINVAL;
	return 0;
}

static void read_cmdline(const char *root, int pid, char *buf, size_t len)
{
	buf[0] = '\0';
	long n = procfs_read_at(root, pid, "cmdline", buf, len);
	for (long i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

int launchers_read(const char *root, int pid, int ppid, struct ctx_launcher *out, int max,
		   bool *truncated)
{
	int n = 0;
	*truncated = false;
	if (ppid <= 0) {
		char comm[64];
		if (read_stat(root, pid, comm, sizeof(comm), &ppid))
			return -ESRCH;
	}
	int seen_pid1 = 0;
	pid = ppid;
	while (pid > 0 && !seen_pid1) {
		if (n == max) {
			*truncated = true;	/* a loop or a very deep tree */
			break;
		}
		char comm[64], cmd[256];
		int next;
		if (read_stat(root, pid, comm, sizeof(comm), &next))
			break;	/* the ancestor exited meanwhile: keep what we have */
		read_cmdline(root, pid, cmd, sizeof(cmd));
		struct ctx_launcher *l = &out[n++];
		l->pid = pid;
		size_t cl = strnlen(comm, sizeof(l->comm) - 1);	/* comm is 15 bytes at most */
		memcpy(l->comm, comm, cl);
		l->comm[cl] = '\0';
		l->kind = launcher_classify(pid, comm, cmd);
		seen_pid1 = pid == 1;
		pid = next;
	}
	return n;
}

const char *ctx_launcher_name(enum ctx_launcher_kind k)
{
	static const char *const names[CTX_L__COUNT] = {
		[CTX_L_OTHER] = "other",
		[CTX_L_TORCHRUN] = "torchrun",
		[CTX_L_DEEPSPEED] = "deepspeed",
		[CTX_L_MPIRUN] = "mpirun",
		[CTX_L_MPI_DAEMON] = "mpi_daemon",
		[CTX_L_SRUN] = "srun",
		[CTX_L_SLURMSTEPD] = "slurmstepd",
		[CTX_L_SYSTEMD] = "systemd",
		[CTX_L_SYSTEMD_USER] = "systemd_user",
		[CTX_L_SSHD] = "sshd",
		[CTX_L_CONTAINERD_SHIM] = "containerd_shim",
		[CTX_L_CONMON] = "conmon",
		[CTX_L_KUBELET] = "kubelet",
		[CTX_L_SHELL] = "shell",
		[CTX_L_SUDO] = "sudo",
	};
	return (unsigned)k < CTX_L__COUNT && names[k] ? names[k] : "other";
}
