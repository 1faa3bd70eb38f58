// SPDX-License-Identifier: GPL-2.0-only
/* test_context.c - proc_context_read and friends against the recorded /proc
 * trees in tests/fixtures/proc (written by make_fixtures.py). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_path.h"

#include "proc/context.h"
#include "core/procfs.h"

#define DOCKER_ID "3f1e2d4c5b6a79880716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b3c"
#define K8S_ID "9b8a7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"
#define PODMAN_ID "c0ffee00deadbeef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char *fixture(const char *scenario)
{
	return fixture_path("proc", scenario);
}

static struct proc_context *read_ctx(const char *scenario, int pid)
{
	struct proc_context *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	assert_int_equal(proc_context_read(fixture(scenario), pid, c), 0);
	return c;
}

static const char *launcher_comm(const struct proc_context *c, int i)
{
	assert_true(i < c->n_launchers);
	return c->launchers[i].comm;
}

/* ---- scenarios ----------------------------------------------------------- */

static void test_docker(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("docker", 4242);
	uint32_t want = CTX_HAVE_EXE | CTX_HAVE_CMDLINE | CTX_HAVE_COMM | CTX_HAVE_UID | CTX_HAVE_MEMLOCK |
			CTX_HAVE_MEMLOCK_HARD | CTX_HAVE_VMPIN | CTX_HAVE_VMLCK | CTX_HAVE_CAPS |
			CTX_HAVE_USERNS | CTX_HAVE_CGROUP | CTX_HAVE_PPID | CTX_HAVE_LAUNCHERS |
			CTX_HAVE_ENV | CTX_HAVE_NSPID;
	assert_int_equal(c->have & want, want);
	assert_string_equal(c->exe, "/usr/bin/python3.10");
	assert_string_equal(c->cmdline, "python3 train.py --epochs 3");
	assert_string_equal(c->comm, "python3");
	assert_int_equal(c->ppid, 4100);
	assert_int_equal(c->ns_pid, 57);
	assert_int_equal(c->uid, 0);
	assert_true(c->memlock_soft == 8388608);
	assert_true(c->memlock_hard == 8388608);
	assert_true(c->vm_pin == 8192ULL * 1024);
	assert_true(c->vm_lck == 0);
	assert_true(c->cap_eff == 0xa80425fbULL);
	assert_false(c->cap_ipc_lock);
	assert_false(c->in_userns);
	assert_true(c->uid_map_identity);
	assert_string_equal(c->cgroup_path, "/system.slice/docker-" DOCKER_ID ".scope");
	assert_int_equal(c->runtime, CTX_RT_DOCKER);
	assert_string_equal(c->container_id, DOCKER_ID);
	assert_string_equal(c->pod_uid, "");
	assert_string_equal(c->systemd_unit, "");	/* docker-*.scope is no unit of ours */
	assert_int_equal(c->slurm_job, -1);
	assert_int_equal(c->n_launchers, 2);
	assert_string_equal(launcher_comm(c, 0), "containerd-shim");
	assert_int_equal(c->launchers[0].kind, CTX_L_CONTAINERD_SHIM);
	assert_int_equal(c->launchers[1].pid, 1);
	assert_int_equal(c->launchers[1].kind, CTX_L_SYSTEMD);
	assert_int_equal(proc_context_setting(c), CTX_SET_DOCKER);
	free(c);
}

static void test_k8s_containerd(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("k8s_containerd", 5151);
	assert_string_equal(c->pod_uid, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d");
	assert_int_equal(c->runtime, CTX_RT_CONTAINERD);
	assert_string_equal(c->container_id, K8S_ID);
	assert_string_equal(c->systemd_unit, "");
	assert_true(c->memlock_soft == 65536);
	assert_int_equal(c->uid, 1000);
	assert_int_equal(c->ns_uid, 1000);	/* identity map */
	assert_string_equal(c->cmdline, "/usr/bin/python3 -u train.py");
	assert_non_null(proc_context_launcher(c, CTX_L_TORCHRUN));
	assert_int_equal(proc_context_launcher(c, CTX_L_TORCHRUN)->pid, 5100);
	assert_non_null(proc_context_launcher(c, CTX_L_CONTAINERD_SHIM));
	assert_int_equal(proc_context_setting(c), CTX_SET_KUBERNETES);
	char chain[128];
	assert_string_equal(proc_context_launcher_chain(c, chain, sizeof(chain)),
			    "python3(5100) <- containerd-shim(5000) <- systemd(1)");
	free(c);
}

static void test_systemd_service(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("systemd_service", 777);
	assert_string_equal(c->systemd_unit, "trainer.service");
	assert_false(c->systemd_user_unit);
	assert_int_equal(c->runtime, CTX_RT_NONE);
	assert_int_equal(c->uid, 998);
	assert_string_equal(c->exe, "/opt/job/bin/trainer");
	assert_true(c->memlock_soft == 65536 && c->memlock_hard == 65536);
	assert_true(c->vm_pin == 64 * 1024);
	assert_int_equal(c->n_launchers, 1);
	assert_int_equal(c->launchers[0].kind, CTX_L_SYSTEMD);
	assert_int_equal(proc_context_setting(c), CTX_SET_SYSTEMD_SERVICE);
	/* INVOCATION_ID is systemd's, not on the allow-list */
	assert_null(proc_env_get(&c->env, "INVOCATION_ID"));
	assert_string_equal(proc_env_get(&c->env, "NCCL_CONF_FILE"), "/opt/job/nccl.conf");
	free(c);
}

static void test_slurm_step(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("slurm_step", 3010);
	assert_int_equal(c->slurm_job, 4711);
	assert_string_equal(c->slurm_step, "0");
	/* hybrid v1: "0::/" is empty, the systemd hierarchy names the unit */
	assert_string_equal(c->cgroup_path, "/system.slice/slurmd.service");
	assert_string_equal(c->systemd_unit, "slurmd.service");
	assert_true(c->memlock_soft == 65536);
	assert_true(c->memlock_hard == CTX_UNLIMITED);
	assert_int_equal(c->launchers[0].kind, CTX_L_SLURMSTEPD);
	assert_int_equal(proc_context_setting(c), CTX_SET_SLURM);
	assert_string_equal(proc_env_get(&c->env, "SLURM_PROCID"), "5");
	assert_null(proc_env_get(&c->env, "SLURM_JOB_NAME"));
	free(c);
}

static void test_rootless_podman(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("rootless_podman", 9001);
	assert_true(c->have & CTX_HAVE_USERNS);
	assert_true(c->in_userns);
	assert_false(c->uid_map_identity);
	assert_true(c->cap_ipc_lock);	/* --cap-add IPC_LOCK, which does not count here */
	assert_int_equal(c->uid, 1000);		/* the host's view */
	assert_true(c->have & CTX_HAVE_NS_UID);
	assert_int_equal(c->ns_uid, 0);		/* root inside: "0 1000 1" */
	assert_int_equal(c->runtime, CTX_RT_PODMAN);
	assert_string_equal(c->container_id, PODMAN_ID);
	assert_string_equal(c->systemd_unit, "");
	assert_int_equal(c->ns_pid, 1);
	assert_int_equal(c->n_launchers, 3);
	assert_int_equal(c->launchers[0].kind, CTX_L_CONMON);
	assert_int_equal(c->launchers[1].kind, CTX_L_SYSTEMD_USER);
	assert_int_equal(c->launchers[2].kind, CTX_L_SYSTEMD);
	assert_int_equal(proc_context_setting(c), CTX_SET_USERNS);
	free(c);
}

static void test_mpirun_sshd(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("mpirun_sshd", 6100);
	assert_int_equal(c->n_launchers, 4);
	assert_int_equal(c->launchers[0].kind, CTX_L_MPI_DAEMON);
	assert_int_equal(c->launchers[1].kind, CTX_L_SSHD);
	assert_int_equal(c->launchers[2].kind, CTX_L_SSHD);
	assert_int_equal(proc_context_setting(c), CTX_SET_MPI_REMOTE);
	assert_string_equal(c->systemd_unit, "");	/* session-12.scope */
	char chain[128];
	assert_string_equal(proc_context_launcher_chain(c, chain, sizeof(chain)),
			    "prted(6050) <- sshd(6040) <- sshd(900) <- systemd(1)");
	free(c);
}

static void test_shell(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("shell", 3333);
	assert_true(c->memlock_soft == 8388608);
	assert_true(c->memlock_hard == CTX_UNLIMITED);
	assert_int_equal(c->launchers[0].kind, CTX_L_SHELL);
	assert_int_equal(c->runtime, CTX_RT_NONE);
	assert_string_equal(c->systemd_unit, "");
	assert_int_equal(proc_context_setting(c), CTX_SET_SHELL);
	free(c);
}

static void test_exited_process(void **state)
{
	(void)state;
	struct proc_context c;
	assert_int_equal(proc_context_read(fixture("docker"), 31337, &c), -ESRCH);
	assert_int_equal(proc_context_read(fixture("docker"), 0, &c), -EINVAL);
}

/* ---- the environment allow-list ------------------------------------------ */

static void test_env_allow_list(void **state)
{
	(void)state;
	assert_true(proc_env_allowed("NCCL_DEBUG"));
	assert_true(proc_env_allowed("RANK"));
	assert_true(proc_env_allowed("OMPI_COMM_WORLD_LOCAL_RANK"));
	assert_true(proc_env_allowed("SLURM_PROCID"));
	assert_false(proc_env_allowed("NCCL_"));
	assert_false(proc_env_allowed("XNCCL_FOO"));
	assert_false(proc_env_allowed("RANKS"));
	assert_false(proc_env_allowed("MASTER_ADDR"));
	assert_false(proc_env_allowed("HOME"));
	assert_false(proc_env_allowed("AWS_SECRET_ACCESS_KEY"));
}

static void test_env_values(void **state)
{
	(void)state;
	struct proc_context *c = read_ctx("docker", 4242);
	assert_int_equal(c->env.n, 5);	/* NCCL_DEBUG RANK LOCAL_RANK WORLD_SIZE NCCL_TOPO_FILE */
	assert_string_equal(proc_env_get(&c->env, "NCCL_DEBUG"), "INFO");
	assert_string_equal(proc_env_get(&c->env, "RANK"), "3");
	assert_string_equal(proc_env_get(&c->env, "LOCAL_RANK"), "3");
	assert_string_equal(proc_env_get(&c->env, "WORLD_SIZE"), "16");
	assert_null(proc_env_get(&c->env, "PATH"));
	assert_null(proc_env_get(&c->env, "MASTER_ADDR"));
	/* NCCL_TOPO_FILE is longer than a value slot: cut and flagged */
	assert_int_equal(strlen(proc_env_get(&c->env, "NCCL_TOPO_FILE")), CTX_ENV_VALUE_MAX - 1);
	assert_true(c->env.truncated);
	free(c);
}

static bool contains(const void *buf, size_t len, const char *needle)
{
	return memmem(buf, len, needle, strlen(needle)) != NULL;
}

/* Every fixture environment holds values containing "FIXTURESECRET" under
 * names that are not allowed (and one hidden in a value, one longer than the
 * parse buffer).  None may reach the struct, in any field. */
static void test_secret_not_read(void **state)
{
	(void)state;
	static const struct {
		const char *scenario;
		int pid;
	} all[] = { { "docker", 4242 }, { "k8s_containerd", 5151 }, { "systemd_service", 777 },
		    { "slurm_step", 3010 }, { "rootless_podman", 9001 }, { "mpirun_sshd", 6100 },
		    { "shell", 3333 } };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		/* the fixture really holds the secret (or this test proves nothing) */
		char path[PATH_MAX + 256], buf[16384];
		snprintf(path, sizeof(path), "%s/proc/%d/environ", fixture(all[i].scenario), all[i].pid);
		long n = procfs_read(path, buf, sizeof(buf));
		assert_true(n > 0);
		assert_true(contains(buf, (size_t)n, "FIXTURESECRET"));

		struct proc_context *c = read_ctx(all[i].scenario, all[i].pid);
		assert_true(c->have & CTX_HAVE_ENV);
		assert_true(c->env.n > 0);
		assert_false(contains(c, sizeof(*c), "FIXTURESECRET"));
		assert_false(contains(c, sizeof(*c), "AWS_SECRET"));
		assert_false(contains(c, sizeof(*c), "HF_TOKEN"));
		assert_null(proc_env_get(&c->env, "EVIL"));
		free(c);

		struct ctx_env env;
		assert_int_equal(proc_env_read(fixture(all[i].scenario), all[i].pid, &env), 0);
		assert_false(contains(&env, sizeof(env), "FIXTURESECRET"));
	}
}

/* ---- cgroup text -------------------------------------------------------- */

static struct proc_context parse(const char *text)
{
	struct proc_context c;
	proc_context_init(&c, 1234);
	proc_context_parse_cgroup(text, &c);
	return c;
}

static void test_cgroup_variants(void **state)
{
	(void)state;
	struct proc_context c;

	c = parse("0::/docker/" DOCKER_ID "\n");	/* cgroupfs driver */
	assert_int_equal(c.runtime, CTX_RT_DOCKER);
	assert_string_equal(c.container_id, DOCKER_ID);

	c = parse("0::/kubepods/burstable/pod1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/" K8S_ID "\n");
	assert_int_equal(c.runtime, CTX_RT_UNKNOWN);
	assert_string_equal(c.pod_uid, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d");
	assert_string_equal(c.container_id, K8S_ID);
	assert_int_equal(proc_context_setting(&c), CTX_SET_KUBERNETES);

	c = parse("0::/kubepods.slice/kubepods-pod1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d.slice/crio-" K8S_ID
		  ".scope\n");
	assert_int_equal(c.runtime, CTX_RT_CRIO);
	assert_string_equal(c.pod_uid, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d");

	c = parse("0::/kubepods.slice/kubepods-besteffort.slice/crio-conmon-" K8S_ID ".scope\n");
	assert_int_equal(c.runtime, CTX_RT_NONE);	/* the monitor, not the container */

	c = parse("0::/system.slice/nerdctl-" K8S_ID ".scope\n");
	assert_int_equal(c.runtime, CTX_RT_CONTAINERD);
	assert_string_equal(c.systemd_unit, "");

	c = parse("0::/system.slice/slurmstepd.scope/job_88/step_batch/user/task_0\n");
	assert_int_equal(c.slurm_job, 88);
	assert_string_equal(c.slurm_step, "batch");
	assert_string_equal(c.systemd_unit, "");

	c = parse("0::/user.slice/user-1000.slice/user@1000.service/app.slice/jupyter.service\n");
	assert_string_equal(c.systemd_unit, "jupyter.service");
	assert_true(c.systemd_user_unit);
	assert_int_equal(proc_context_setting(&c), CTX_SET_SYSTEMD_USER);

	c = parse("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-tmux-42.scope\n");
	assert_string_equal(c.systemd_unit, "");

	c = parse("0::/system.slice/trainer.service/payload\n");	/* delegated subtree */
	assert_string_equal(c.systemd_unit, "trainer.service");

	c = parse("0::/user.slice/user-1000.slice/session-3.scope\n");
	assert_string_equal(c.systemd_unit, "");
	assert_int_equal(proc_context_setting(&c), CTX_SET_SHELL);

	c = parse("0::/\n");	/* inside a cgroup namespace: nothing to learn */
	assert_string_equal(c.cgroup_path, "/");
	assert_int_equal(c.runtime, CTX_RT_NONE);
	assert_int_equal(proc_context_setting(&c), CTX_SET_UNKNOWN);

	c = parse("");
	assert_false(c.have & CTX_HAVE_CGROUP);
}

/* ---- launchers ---------------------------------------------------------- */

static void test_launcher_classify(void **state)
{
	(void)state;
	assert_int_equal(launcher_classify(10, "torchrun", NULL), CTX_L_TORCHRUN);
	assert_int_equal(launcher_classify(10, "python3", "python3 -m torch.distributed.run --nproc 8 t.py"),
			 CTX_L_TORCHRUN);
	assert_int_equal(launcher_classify(10, "python", "python -u -m torch.distributed.launch t.py"),
			 CTX_L_TORCHRUN);
	assert_int_equal(launcher_classify(10, "python3.10", "/usr/bin/python3.10 /usr/local/bin/deepspeed t.py"),
			 CTX_L_DEEPSPEED);
	assert_int_equal(launcher_classify(10, "python3", "python3 -m deepspeed.launcher.launch --world_info=x"),
			 CTX_L_DEEPSPEED);
	assert_int_equal(launcher_classify(10, "python3", "python3 train.py --deepspeed"), CTX_L_OTHER);
	assert_int_equal(launcher_classify(10, "mpirun", NULL), CTX_L_MPIRUN);
	assert_int_equal(launcher_classify(10, "mpiexec.hydra", NULL), CTX_L_MPIRUN);
	assert_int_equal(launcher_classify(10, "orted", NULL), CTX_L_MPI_DAEMON);
	assert_int_equal(launcher_classify(10, "hydra_pmi_proxy", NULL), CTX_L_MPI_DAEMON);
	assert_int_equal(launcher_classify(10, "srun", NULL), CTX_L_SRUN);
	assert_int_equal(launcher_classify(10, "slurmstepd", NULL), CTX_L_SLURMSTEPD);
	assert_int_equal(launcher_classify(10, "sshd-session", NULL), CTX_L_SSHD);
	assert_int_equal(launcher_classify(10, "containerd-shim", NULL), CTX_L_CONTAINERD_SHIM);
	assert_int_equal(launcher_classify(10, "conmon", NULL), CTX_L_CONMON);
	assert_int_equal(launcher_classify(10, "kubelet", NULL), CTX_L_KUBELET);
	assert_int_equal(launcher_classify(1, "systemd", "/sbin/init"), CTX_L_SYSTEMD);
	assert_int_equal(launcher_classify(1500, "systemd", "/lib/systemd/systemd --user"), CTX_L_SYSTEMD_USER);
	assert_int_equal(launcher_classify(1500, "systemd", "/sbin/init"), CTX_L_OTHER);
	assert_int_equal(launcher_classify(10, "bash", "-bash"), CTX_L_SHELL);
	assert_int_equal(launcher_classify(10, "sudo", NULL), CTX_L_SUDO);
	assert_int_equal(launcher_classify(10, "deepspeed", NULL), CTX_L_DEEPSPEED);
}

/* ---- temporary trees ------------------------------------------------------ */

static void put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A ppid loop (corrupt tree or pid reuse mid-walk) must stop at the bound. */
static void test_launcher_loop_is_bounded(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-ctx-XXXXXX";
	assert_non_null(mkdtemp(dir));
	put(dir, "proc/10/stat", "10 (a) S 11 0 0\n");
	put(dir, "proc/11/stat", "11 (b) S 10 0 0\n");
	put(dir, "proc/12/stat", "12 (python3) S 10 0 0\n");
	put(dir, "proc/12/status", "Name:\tpython3\nPPid:\t10\n");
	struct proc_context c;
	assert_int_equal(proc_context_read(dir, 12, &c), 0);
	assert_int_equal(c.n_launchers, CTX_MAX_LAUNCHERS);
	assert_true(c.launchers_truncated);
	/* nothing else was there: nothing else is claimed */
	assert_false(c.have & (CTX_HAVE_MEMLOCK | CTX_HAVE_UID | CTX_HAVE_CGROUP | CTX_HAVE_ENV | CTX_HAVE_USERNS));
	rm_rf(dir);
}

/* The comm field may hold spaces and parentheses. */
static void test_stat_comm_with_parens(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-ctx-XXXXXX";
	assert_non_null(mkdtemp(dir));
	put(dir, "proc/20/stat", "20 (my (odd) job) S 1 0 0\n");
	put(dir, "proc/20/status", "Name:\tmy (odd) job\nPPid:\t21\n");
	put(dir, "proc/21/stat", "21 (we ird) S 1 0 0\n");
	put(dir, "proc/1/stat", "1 (systemd) S 0 0 0\n");
	struct proc_context c;
	assert_int_equal(proc_context_read(dir, 20, &c), 0);
	assert_int_equal(c.n_launchers, 2);
	assert_string_equal(c.launchers[0].comm, "we ird");
	assert_int_equal(c.launchers[1].pid, 1);
	rm_rf(dir);
}

/* The process has exited: only what the BPF event carried, plus the cgroup
 * found by its id (the directory inode on cgroup v2). */
static void test_from_event(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-ctx-XXXXXX";
	assert_non_null(mkdtemp(dir));
	put(dir, "sys/fs/cgroup/system.slice/docker-" DOCKER_ID ".scope/cgroup.procs", "");
	put(dir, "sys/fs/cgroup/user.slice/user-1000.slice/session-1.scope/cgroup.procs", "");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/system.slice/docker-" DOCKER_ID ".scope", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);

	struct proc_context_event ev = { .pid = 4242, .uid = 0, .memlock_cur = 8388608,
					  .cgroup_id = st.st_ino, .comm = "python3",
					  .have = CTX_HAVE_UID | CTX_HAVE_MEMLOCK | CTX_HAVE_CGROUP_ID |
						  CTX_HAVE_COMM };
	struct proc_context c;
	proc_context_from_event(dir, &ev, &c);
	assert_int_equal(c.pid, 4242);
	assert_true(c.memlock_soft == 8388608);
	assert_string_equal(c.comm, "python3");
	assert_string_equal(c.cgroup_path, "/system.slice/docker-" DOCKER_ID ".scope");
	assert_int_equal(c.runtime, CTX_RT_DOCKER);
	assert_int_equal(proc_context_setting(&c), CTX_SET_DOCKER);
	/* never invented */
	assert_false(c.have & (CTX_HAVE_MEMLOCK_HARD | CTX_HAVE_EXE | CTX_HAVE_CMDLINE | CTX_HAVE_CAPS |
			       CTX_HAVE_USERNS | CTX_HAVE_ENV | CTX_HAVE_LAUNCHERS | CTX_HAVE_VMPIN));

	/* an id that matches nothing: the id is kept, the path stays unknown */
	ev.cgroup_id = 1;
	proc_context_from_event(dir, &ev, &c);
	assert_true(c.have & CTX_HAVE_CGROUP_ID);
	assert_false(c.have & CTX_HAVE_CGROUP);
	assert_int_equal(proc_context_setting(&c), CTX_SET_UNKNOWN);

	/* nothing but a uid */
	ev.have = CTX_HAVE_UID;
	proc_context_from_event(NULL, &ev, &c);
	assert_int_equal(c.have, CTX_HAVE_UID);
	assert_int_equal(c.slurm_job, -1);
	rm_rf(dir);
}

/* A hybrid host (cgroup v1 controllers, v2 at sys/fs/cgroup/unified) as
 * CI's machines are: an exited process's cgroup is found in the v2
 * hierarchy and its path reads as /proc/PID/cgroup's "0::" line, relative
 * to that hierarchy, so the pod and container are still named. */
static void test_from_event_hybrid_host(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-ctx-XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *pod = "kubepods.slice/kubepods-besteffort.slice/"
			  "kubepods-besteffort-pod3f7c2a1e_8b4d_4e6f_9a0b_1c2d3e4f5a6b.slice/"
			  "cri-containerd-" DOCKER_ID ".scope";
	char rel[600], path[PATH_MAX];
	put(dir, "sys/fs/cgroup/memory/cgroup.procs", "");
	put(dir, "sys/fs/cgroup/unified/cgroup.controllers", "");
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/unified/%s/cgroup.procs", pod);
	put(dir, rel, "");
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/unified/%s", dir, pod);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);

	struct proc_context_event ev = { .pid = 14048, .cgroup_id = st.st_ino,
					  .have = CTX_HAVE_CGROUP_ID };
	struct proc_context c;
	proc_context_from_event(dir, &ev, &c);
	snprintf(rel, sizeof(rel), "/%s", pod);
	assert_string_equal(c.cgroup_path, rel);
	assert_int_equal(c.runtime, CTX_RT_CONTAINERD);
	assert_int_equal(proc_context_setting(&c), CTX_SET_KUBERNETES);
	rm_rf(dir);
}

/* A process gone at once: its launchers are walked from the parent the
 * kernel recorded, while that parent is the same process (its start time);
 * a parent pid reused by another program gives no launchers at all. */
static void test_from_event_launchers_via_parent(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-ctx-XXXXXX";
	long hz = sysconf(_SC_CLK_TCK);
	assert_non_null(mkdtemp(dir));
	/* starttime is field 22 */
	put(dir, "proc/300/stat", "300 (torchrun) S 200 0 0 0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 4500 0\n");
	put(dir, "proc/300/cmdline", "/usr/bin/python3\0/usr/bin/torchrun\0train.py\0");
	put(dir, "proc/200/stat", "200 (bash) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 100 0\n");
	put(dir, "proc/1/stat", "1 (systemd) S 0 0 0 0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0\n");
	struct proc_context_event ev = { .pid = 301, .uid = 1000, .have = CTX_HAVE_UID, .ppid = 300,
					  .pstart_ns = 4500ULL * (1000000000ULL / (unsigned long long)hz),
					  .start_ns = 4600ULL * (1000000000ULL / (unsigned long long)hz) };
	struct proc_context c;
	proc_context_from_event(dir, &ev, &c);
	assert_int_equal(c.unavailable, CTX_GONE);
	assert_true(c.have & CTX_HAVE_LAUNCHERS);
	assert_int_equal(c.n_launchers, 3);
	assert_int_equal(c.launchers[0].pid, 300);
	assert_int_equal(c.launchers[0].kind, CTX_L_TORCHRUN);
	assert_int_equal(proc_context_setting(&c), CTX_SET_SHELL);
	/* the parent's pid is another process now */
	ev.pstart_ns += 1000000000ULL;
	proc_context_from_event(dir, &ev, &c);
	assert_false(c.have & CTX_HAVE_LAUNCHERS);
	assert_int_equal(c.n_launchers, 0);
	rm_rf(dir);
}

/* /proc/PID checked against the record's identity: another process with
 * the pid, another program since an exec, another user. */
static void test_identity(void **state)
{
	(void)state;
	unsigned long long tick = 1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK);
	struct proc_context c;
	proc_context_init(&c, 77);
	c.have = CTX_HAVE_START | CTX_HAVE_UID | CTX_HAVE_EXE_INO;
	c.start_ticks = 5000;
	c.uid = 1000;
	c.exe_ino = 1234;
	struct proc_context_event ev = { .pid = 77, .uid = 1000, .have = CTX_HAVE_UID,
					  .start_ns = 5000 * tick + tick / 2, .exe_ino = 1234 };
	assert_int_equal(proc_context_identity(&c, &ev), CTX_AVAILABLE);
	assert_null(ctx_unavailable_text(CTX_AVAILABLE));
	ev.start_ns = 4999 * tick;
	assert_int_equal(proc_context_identity(&c, &ev), CTX_PID_REUSED);
	assert_string_equal(ctx_unavailable_name(CTX_PID_REUSED), "pid_reused");
	ev.start_ns = 5000 * tick;
	ev.exe_ino = 99;
	assert_int_equal(proc_context_identity(&c, &ev), CTX_EXECED);
	ev.exe_ino = 1234;
	ev.uid = 0;
	assert_int_equal(proc_context_identity(&c, &ev), CTX_EXECED);
	/* without the kernel's start time, another uid is another process */
	ev.start_ns = 0;
	assert_int_equal(proc_context_identity(&c, &ev), CTX_PID_REUSED);
	/* what one side does not know decides nothing */
	ev.uid = 1000;
	ev.exe_ino = 0;
	c.have = 0;
	ev.start_ns = 1;
	assert_int_equal(proc_context_identity(&c, &ev), CTX_AVAILABLE);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(ctx_runtime_name(CTX_RT_CRIO), "cri-o");
	assert_string_equal(ctx_setting_name(CTX_SET_SYSTEMD_SERVICE), "systemd_service");
	assert_string_equal(ctx_setting_name(CTX_SET_USERNS), "user_namespace");
	assert_string_equal(ctx_launcher_name(CTX_L_MPI_DAEMON), "mpi_daemon");
	char p[64];
	assert_int_equal(procfs_path(p, sizeof(p), "/", 7, "limits"), 0);
	assert_string_equal(p, "/proc/7/limits");
	assert_int_equal(procfs_path(p, sizeof(p), "/tmp/x/", -1, "etc/passwd"), 0);
	assert_string_equal(p, "/tmp/x/etc/passwd");
	assert_int_equal(procfs_path(p, 8, "/tmp/x", 7, "limits"), -ENAMETOOLONG);
}

/* The live system: our own process must read without surprises. */
static void test_self(void **state)
{
	(void)state;
	struct proc_context c;
	assert_int_equal(proc_context_read("/", getpid(), &c), 0);
	assert_true(c.have & CTX_HAVE_MEMLOCK);
	assert_true(c.have & CTX_HAVE_COMM);
	assert_int_equal(c.uid, getuid());
	assert_true(c.n_launchers >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_k8s_containerd),
		cmocka_unit_test(test_systemd_service),
		cmocka_unit_test(test_slurm_step),
		cmocka_unit_test(test_rootless_podman),
		cmocka_unit_test(test_mpirun_sshd),
		cmocka_unit_test(test_shell),
		cmocka_unit_test(test_exited_process),
		cmocka_unit_test(test_env_allow_list),
		cmocka_unit_test(test_env_values),
		cmocka_unit_test(test_secret_not_read),
		cmocka_unit_test(test_cgroup_variants),
		cmocka_unit_test(test_launcher_classify),
		cmocka_unit_test(test_launcher_loop_is_bounded),
		cmocka_unit_test(test_stat_comm_with_parens),
		cmocka_unit_test(test_from_event),
		cmocka_unit_test(test_from_event_hybrid_host),
		cmocka_unit_test(test_from_event_launchers_via_parent),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
