// SPDX-License-Identifier: GPL-2.0-only
/* test_gpu.c - GPU memory's facts (proc/gpu_facts.h) and what they decide.
 *
 *  - the readers on check's recorded trees (tests/fixtures/check): the peer
 *    -memory API from kallsyms, the clients in memory_peers, the NVIDIA
 *    driver and flavour, each GPU's BAR1 from its PCI resource file and its
 *    model from the driver's information file;
 *  - the judges: peer memory unsupported / no_client / registered, what
 *    blocks dma-buf and in which order (the process's NCCL included);
 *  - which records are worth the facts (never NCCL's harmless probe);
 *  - the evidence members written and read back unchanged (facts_json.h);
 *  - the correlator: NCCL's probe outcome in a process, told with the
 *    device-memory failure that follows it as one chain;
 *  - the records the VM case gpumem and failures:shm wrote on 6.12
 *    (tests/fixtures/trails: pin_device_memory.gpumem-*.6.12.json, shm-private), replayed
 *    with the facts they carry. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "verdict/explain.h"
#include "proc/facts_json.h"
#include "proc/gpu_facts.h"
#include "record/record.h"
#include "watch/correlate.h"

static struct gpu_facts *facts_of(const char *tree)
{
	static struct gpu_facts f;

	memset(&f, 0, sizeof(f));
	gpu_facts_read_node(fixture_path("check", tree), NULL, &f);
	return &f;
}

static void test_read_trees(void **state)
{
	(void)state;
	struct gpu_facts *f = facts_of("h100");

	assert_true(f->have);
	assert_string_equal(f->kernel, "6.8.0-45-generic");
	/* an inbox ib_core (in kallsyms) without ib_register_peer_memory_client */
	assert_int_equal(f->peer_api, GPU_NO);
	assert_false(f->memory_peers_dir);
	assert_true(f->nvidia_peermem);
	assert_string_equal(f->peermem_version, "550.90.07");
	assert_int_equal(gpu_peer_state(f), GPU_PEER_UNSUPPORTED);
	assert_int_equal(f->kernel_dmabuf, GPU_YES);
	assert_int_equal(f->n_nics, 8);
	assert_string_equal(f->nics[0].driver, "mlx5_core");
	assert_int_equal(f->nics[0].dmabuf, GPU_YES);
	assert_string_equal(f->driver_version, "550.90.07");
	assert_int_equal(f->open_module, GPU_YES);
	assert_int_equal(f->n_gpus, 8);
	assert_int_equal(f->gpus[0].bar1_bytes, 128ULL << 30);
	assert_string_equal(f->gpus[0].model, "NVIDIA H100 80GB HBM3");
	assert_false(f->gpus[0].consumer);
	assert_false(f->gpus[0].have_nvml); /* a recorded tree: NVML is never asked */

	f = facts_of("workstation");
	assert_int_equal(f->n_gpus, 2);
	assert_string_equal(f->gpus[0].model, "NVIDIA GeForce RTX 4090");
	assert_true(f->gpus[0].consumer);
	assert_int_equal(f->gpus[0].bar1_bytes, 256ULL << 20);
	assert_string_equal(f->gpus[1].model, "Tesla T4");
	assert_false(f->gpus[1].consumer);

	f = facts_of("portdown");
	assert_int_equal(f->open_module, GPU_NO);
	assert_string_equal(f->driver_version, "535.104.05");
	assert_false(f->nvidia_peermem);
}

static void test_peer_states(void **state)
{
	(void)state;
	struct gpu_facts f = { .have = true, .peer_api = GPU_UNKNOWN };

	assert_int_equal(gpu_peer_state(NULL), GPU_PEER_UNKNOWN);
	assert_int_equal(gpu_peer_state(&f), GPU_PEER_UNKNOWN); /* ib_core not loaded */
	f.peer_api = GPU_NO;
	assert_int_equal(gpu_peer_state(&f), GPU_PEER_UNSUPPORTED);
	/* MLNX_OFED's ib_core makes the directory whether or not a client came */
	f.memory_peers_dir = true;
	assert_int_equal(gpu_peer_state(&f), GPU_PEER_NO_CLIENT);
	f.memory_peers_dir = false;
	f.peer_api = GPU_YES;
	assert_int_equal(gpu_peer_state(&f), GPU_PEER_NO_CLIENT);
	f.n_peers = 1;
	snprintf(f.peers[0], sizeof(f.peers[0]), "nv_mem");
	assert_int_equal(gpu_peer_state(&f), GPU_PEER_REGISTERED);
	assert_string_equal(gpu_peer_name(GPU_PEER_NO_CLIENT), "no_client");
	assert_string_equal(gpu_peer_name(GPU_PEER_UNSUPPORTED), "unsupported");
}

static struct gpu_facts good_node(void)
{
	struct gpu_facts f = { .have = true, .peer_api = GPU_NO, .kernel_dmabuf = GPU_YES,
			       .n_nics = 1, .nvidia_driver = true, .open_module = GPU_YES };
	snprintf(f.kernel, sizeof(f.kernel), "6.8.0-45-generic");
	snprintf(f.nics[0].name, sizeof(f.nics[0].name), "mlx5_0");
	snprintf(f.nics[0].driver, sizeof(f.nics[0].driver), "mlx5_core");
	f.nics[0].dmabuf = GPU_YES;
	snprintf(f.driver_version, sizeof(f.driver_version), "550.90.07");
	return f;
}

static void test_dmabuf_blockers(void **state)
{
	(void)state;
	struct gpu_facts f = good_node();
	struct gpu_dmabuf_state d;
	char buf[512];
	static struct nccl_info n;

	gpu_dmabuf_judge(&f, NULL, &d);
	assert_int_equal(d.blocked, 0);
	assert_false(d.unknown);
	assert_string_equal(gpu_dmabuf_name(&d), "available");

	/* the NIC: a driver without reg_user_mr_dmabuf, named */
	f.n_nics = 2;
	snprintf(f.nics[1].name, sizeof(f.nics[1].name), "rxe0");
	snprintf(f.nics[1].driver, sizeof(f.nics[1].driver), "rdma_rxe");
	f.nics[1].dmabuf = GPU_NO;
	gpu_dmabuf_judge(&f, NULL, &d);
	assert_string_equal(gpu_dmabuf_name(&d), "nic_driver");
	assert_string_equal(d.nics, "rxe0 (rdma_rxe)");
	assert_non_null(strstr(gpu_dmabuf_missing(&f, NULL, &d, buf, sizeof(buf)), "rxe0 (rdma_rxe)"));
	/* the kernel comes first, the others are listed too */
	f.kernel_dmabuf = GPU_NO;
	snprintf(f.driver_version, sizeof(f.driver_version), "470.256.02");
	gpu_dmabuf_judge(&f, NULL, &d);
	assert_string_equal(gpu_dmabuf_name(&d), "kernel");
	assert_int_equal(d.blocked, GPU_DMABUF_KERNEL | GPU_DMABUF_NIC_DRIVER | GPU_DMABUF_GPU_DRIVER);
	gpu_dmabuf_missing(&f, NULL, &d, buf, sizeof(buf));
	assert_non_null(strstr(buf, "5.12"));
	assert_non_null(strstr(buf, "470.256.02"));

	/* the process: an old libcuda, NCCL before 2.13, NCCL_DMABUF_ENABLE=0 */
	f = good_node();
	snprintf(f.cuda_driver, sizeof(f.cuda_driver), "470.82.01");
	gpu_dmabuf_judge(&f, NULL, &d);
	assert_string_equal(gpu_dmabuf_name(&d), "cuda_driver");
	f.cuda_driver[0] = '\0';
	memset(&n, 0, sizeof(n));
	n.lib.found = n.lib.version_known = true;
	n.lib.major = 2;
	n.lib.minor = 12;
	snprintf(n.lib.version, sizeof(n.lib.version), "2.12.12");
	n.settings.n = 1;
	snprintf(n.settings.v[0].name, sizeof(n.settings.v[0].name), "NCCL_DMABUF_ENABLE");
	snprintf(n.settings.v[0].value, sizeof(n.settings.v[0].value), "0");
	gpu_dmabuf_judge(&f, &n, &d);
	assert_int_equal(d.blocked, GPU_DMABUF_NCCL_VERSION | GPU_DMABUF_NCCL_DISABLED);
	assert_string_equal(gpu_dmabuf_name(&d), "nccl_version");
	n.lib.minor = 21;
	gpu_dmabuf_judge(&f, &n, &d);
	assert_string_equal(gpu_dmabuf_name(&d), "nccl_disabled");
	/* NCCL's probe refused in this process: the NIC, whatever the driver */
	f.probe = (struct gpu_probe){ .seen = true, .err = EOPNOTSUPP };
	f.nics[0].dmabuf = GPU_UNKNOWN;
	gpu_dmabuf_judge(&f, NULL, &d);
	assert_true(d.blocked & GPU_DMABUF_NIC_DRIVER);
	/* no driver at all */
	f = good_node();
	f.nvidia_driver = false;
	f.driver_version[0] = '\0';
	gpu_dmabuf_judge(&f, NULL, &d);
	assert_string_equal(gpu_dmabuf_name(&d), "gpu_driver");
	assert_int_equal(gpu_driver_major("550.90.07"), 550);
	assert_int_equal(gpu_driver_major(""), 0);
	assert_true(gpu_model_consumer("NVIDIA GeForce RTX 3090"));
	assert_true(gpu_model_consumer("NVIDIA TITAN RTX"));
	assert_false(gpu_model_consumer("Tesla T4"));
}

static void test_wants_facts(void **state)
{
	(void)state;
	static struct mrt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_REG_FAILURE;
	ev.opener = MRT_SITE_UVERBS_REG_MR;
	ev.dmabuf_fd = -1;
	ev.nsteps = 1;
	ev.steps[0] = (struct mrt_step){ .site = MRT_SITE_PIN, .ret = -EFAULT, .a2 = 0x4044fb };
	assert_true(gpu_record_wants_facts(&ev)); /* VM_IO|VM_PFNMAP */
	ev.steps[0].a2 = MRT_VMA_NONE;
	assert_false(gpu_record_wants_facts(&ev)); /* unmapped: not device memory */
	ev.steps[0] = (struct mrt_step){ .site = MRT_SITE_UMEM_GET, .ret = -ENOMEM };
	assert_false(gpu_record_wants_facts(&ev)); /* memlock */
	/* NCCL's probe, from the kernel and from libibverbs: no facts */
	ev.opener = MRT_SITE_UVERBS_REG_DMABUF;
	ev.cmd_length = 0;
	assert_false(gpu_record_wants_facts(&ev));
	ev.cmd_length = 32 << 20;
	ev.dmabuf_fd = 87;
	assert_true(gpu_record_wants_facts(&ev));
	ev.kind = MRT_EV_USER_CALL;
	ev.opener = MRT_API_REG_DMABUF_MR;
	ev.dmabuf_fd = -1;
	ev.cmd_length = 0;
	assert_false(gpu_record_wants_facts(&ev));
	ev.dmabuf_fd = 5;
	assert_true(gpu_record_wants_facts(&ev));
	ev.kind = MRT_EV_FAILURE;
	assert_false(gpu_record_wants_facts(&ev));
}

static void test_evidence_round_trip(void **state)
{
	(void)state;
	static struct gate_facts g, back;
	struct gpu_facts *f = &g.gpu;

	memset(&g, 0, sizeof(g));
	*f = good_node();
	f->memory_peers_dir = true;
	f->n_peers = 1;
	snprintf(f->peers[0], sizeof(f->peers[0]), "nv_mem");
	f->nvidia_peermem = true;
	snprintf(f->peermem_version, sizeof(f->peermem_version), "550.90.07");
	snprintf(f->kernel_dmabuf_how, sizeof(f->kernel_dmabuf_how), "ib_umem_dmabuf_get in /proc/kallsyms");
	f->n_gpus = f->n_gpus_kept = 1;
	snprintf(f->gpus[0].bdf, sizeof(f->gpus[0].bdf), "0000:3b:00.0");
	snprintf(f->gpus[0].device_id, sizeof(f->gpus[0].device_id), "1eb8");
	snprintf(f->gpus[0].model, sizeof(f->gpus[0].model), "Tesla T4");
	f->gpus[0].bar1_bytes = 256 << 20;
	f->gpus[0].have_nvml = true;
	f->gpus[0].nvml_bar1_total = 256 << 20;
	f->gpus[0].nvml_bar1_used = 240 << 20;
	f->gpus[0].nvml_memory_total = 15ULL << 30;
	snprintf(f->libcuda, sizeof(f->libcuda), "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07");
	snprintf(f->cuda_driver, sizeof(f->cuda_driver), "550.90.07");
	f->probe = (struct gpu_probe){ .seen = true, .err = EBADF, .ts_ns = 123456789 };
	g.shm_owner = GATE_SHM_PRIVATE;
	g.shm_dev = 88;
	g.host_shm_dev = 26;
	snprintf(g.shm_source, sizeof(g.shm_source), "tmpfs");

	struct json_object *rec = json_object_new_object(), *e = json_object_new_object();
	json_object_object_add(rec, "evidence", e);
	facts_evidence_add(e, &g, NULL);
	struct json_object *x;
	assert_true(json_object_object_get_ex(e, "peer_memory", &x));
	assert_string_equal(json_object_get_string(x), "registered");
	assert_true(json_object_object_get_ex(e, "dmabuf", &x));
	assert_string_equal(json_object_get_string(x), "available");
	assert_true(json_object_object_get_ex(e, "bar1_used_bytes", &x));
	assert_int_equal(json_object_get_uint64(x), 240 << 20);
	/* through text, as a recorded file is */
	struct json_object *again = json_tokener_parse(json_object_to_json_string(rec));
	memset(&back, 0, sizeof(back));
	assert_true(facts_evidence_read(again, &back));
	assert_memory_equal(&back.gpu, &g.gpu, sizeof(g.gpu));
	assert_int_equal(back.shm_owner, GATE_SHM_PRIVATE);
	assert_int_equal(back.shm_dev, 88);
	assert_int_equal(back.host_shm_dev, 26);
	assert_string_equal(back.shm_source, "tmpfs");
	json_object_put(rec);
	json_object_put(again);
	/* nothing to say: nothing written, nothing read */
	memset(&g, 0, sizeof(g));
	rec = json_object_new_object();
	e = json_object_new_object();
	json_object_object_add(rec, "evidence", e);
	facts_evidence_add(e, &g, NULL);
	assert_int_equal(json_object_object_length(e), 0);
	assert_false(facts_evidence_read(rec, &back));
	json_object_put(rec);
}

/* ---- the correlator: the probe and the fallback as one chain ----------------- */

static double t_now;
static int gates_reads;
static char last_expl[VERDICT_TEXT_MAX], last_primary[FIX_TEXT_MAX];
static enum cause last_cause;
static int reports;

static double c_now(void *arg) { (void)arg; return t_now; }
static unsigned long long c_start(void *arg, int pid) { (void)arg; (void)pid; return 1000; }
static int c_context(void *arg, int pid, struct proc_context *ctx)
{
	(void)arg;
	proc_context_init(ctx, pid);
	return 0;
}
static int c_nccl(void *arg, const struct proc_context *ctx, struct nccl_info *n)
{
	(void)arg;
	(void)ctx;
	(void)n;
	return -ENOENT;
}
static char *c_maps(void *arg, int pid) { (void)arg; (void)pid; return NULL; }
/* the stock VM's node: no peer-memory API, rxe without dma-buf */
static void c_gates(void *arg, int pid, const struct mrt_event *ev, struct gate_facts *g)
{
	(void)arg;
	(void)pid;
	(void)ev;
	gates_reads++;
	memset(g, 0, sizeof(*g));
	g->gpu = good_node();
	snprintf(g->gpu.nics[0].name, sizeof(g->gpu.nics[0].name), "rxe0");
	snprintf(g->gpu.nics[0].driver, sizeof(g->gpu.nics[0].driver), "rdma_rxe");
	g->gpu.nics[0].dmabuf = GPU_NO;
}
static void c_sink(void *arg, const struct report *r, unsigned long nth)
{
	(void)arg;
	(void)nth;
	reports++;
	last_cause = r->v.cause;
	snprintf(last_expl, sizeof(last_expl), "%s", r->v.explanation);
	snprintf(last_primary, sizeof(last_primary), "%s", r->v.fixes.n ? r->v.fixes.items[0].text : "");
}

static void test_probe_then_fallback(void **state)
{
	(void)state;
	struct corr_ops ops = { .now = c_now, .start_time = c_start, .read_context = c_context,
				.read_nccl = c_nccl, .read_gates = c_gates, .read_maps = c_maps,
				.sink = c_sink };
	struct corr_config cfg = { .keep_harmless = true };
	struct corr *c = corr_new(&ops, &cfg);
	static struct mrt_event probe, pin;

	assert_non_null(c);
	/* NCCL's probe, refused inside libibverbs (rxe's provider) */
	memset(&probe, 0, sizeof(probe));
	probe.kind = MRT_EV_USER_CALL;
	probe.pid = probe.tid = 4242;
	probe.opener = MRT_API_REG_DMABUF_MR;
	probe.dmabuf_fd = -1;
	probe.ts_ns = 10ULL * 1000000000;
	corr_push(c, &probe);
	assert_int_equal(reports, 1);
	assert_int_equal(last_cause, CAUSE_DMABUF_UNSUPPORTED);
	assert_int_equal(gates_reads, 0); /* the probe needs no facts */

	/* 1.5 s later the plain registration of device memory */
	memset(&pin, 0, sizeof(pin));
	pin.kind = MRT_EV_REG_FAILURE;
	pin.pid = 4242;
	pin.tid = 4250;
	pin.err = EFAULT;
	pin.opener = MRT_SITE_UVERBS_REG_MR;
	pin.dmabuf_fd = -1;
	pin.ts_ns = probe.ts_ns + 1500ULL * 1000000;
	pin.nsteps = 2;
	pin.steps[0] = (struct mrt_step){ .site = MRT_SITE_PIN, .ret = -EFAULT, .a0 = 0x7f0000001000,
					 .a1 = 4, .a2 = 0x4044fb };
	pin.steps[1] = (struct mrt_step){ .site = MRT_SITE_UVERBS_REG_MR, .ret = -EFAULT };
	corr_push(c, &pin);
	assert_int_equal(reports, 2);
	assert_int_equal(gates_reads, 1);
	assert_int_equal(last_cause, CAUSE_PIN_DEVICE_MEMORY);
	if (!strstr(last_expl, "dma-buf probe in this process failed with EOPNOTSUPP 1500 ms earlier") ||
	    !strstr(last_expl, "fell back"))
		fail_msg("no chain: %s", last_expl);
	assert_non_null(strstr(last_expl, "no peer-memory API"));
	assert_non_null(strstr(last_primary, "dma-buf"));
	assert_null(strstr(last_primary, "modprobe nvidia-peermem"));

	/* another process: no probe of its own, no chain */
	pin.pid = 5151;
	corr_push(c, &pin);
	assert_null(strstr(last_expl, "probe in this process"));
	corr_free(c);
}

/* ---- the fixes read the process's NCCL ---------------------------------------- */

static void test_fixes_follow_nccl(void **state)
{
	(void)state;
	static struct gate_facts g;
	static struct nccl_info n;
	static struct fix_list l;
	struct fix_input in = { .cause = CAUSE_PIN_DEVICE_MEMORY, .gates = &g, .nccl = &n };

	memset(&g, 0, sizeof(g));
	g.gpu = good_node();
	memset(&n, 0, sizeof(n));
	n.lib.found = n.lib.version_known = true;
	n.lib.major = 2;
	n.lib.minor = 21;
	n.settings.n = 1;
	snprintf(n.settings.v[0].name, sizeof(n.settings.v[0].name), "NCCL_DMABUF_ENABLE");
	snprintf(n.settings.v[0].value, sizeof(n.settings.v[0].value), "0");
	assert_true(fixes_for(&in, &l) > 0);
	/* dma-buf works on the node; the job turned it off */
	assert_non_null(strstr(l.items[0].text, "NCCL_DMABUF_ENABLE=0 turns it off"));
	bool unset = false, stopgap = false;
	for (int i = 0; i < l.n; i++) {
		unset |= strstr(l.items[i].text, "Unset NCCL_DMABUF_ENABLE=0") != NULL;
		stopgap |= l.items[i].kind == FIX_STOPGAP;
	}
	assert_true(unset && stopgap);
	/* GPUDirect RDMA already off: no such stopgap, a note instead */
	n.settings.n = 2;
	snprintf(n.settings.v[1].name, sizeof(n.settings.v[1].name), "NCCL_NET_GDR_LEVEL");
	snprintf(n.settings.v[1].value, sizeof(n.settings.v[1].value), "LOC");
	fixes_for(&in, &l);
	stopgap = false;
	bool note = false;
	for (int i = 0; i < l.n; i++) {
		stopgap |= l.items[i].kind == FIX_STOPGAP;
		note |= l.items[i].kind == FIX_NOTE && strstr(l.items[i].text, "NCCL_NET_GDR_LEVEL=LOC is set");
	}
	assert_false(stopgap);
	assert_true(note);
}

/* ---- recorded on 6.12: the facts come back with the record ------------------- */

static struct verdict replayed;
static struct gate_facts replayed_gates;

static const struct verdict *replay(const char *stem)
{
	char name[128], err[256];
	static struct mrt_event ev;

	snprintf(name, sizeof(name), "%s.json", stem);
	struct json_object *rec = json_object_from_file(fixture_path("trails", name));
	if (!rec)
		fail_msg("%s: not readable", name);
	assert_int_equal(record_raw_from_json(rec, &ev, err, sizeof(err)), 0);
	assert_true(record_gates_from_json(rec, &replayed_gates));
	if (ev.kind == MRT_EV_FAILURE)
		explain_failure(&ev, NULL, &replayed_gates, &replayed);
	else
		explain_registration(&ev, NULL, NULL, &replayed_gates, &replayed);
	/* the replay says what the live tracer said */
	struct json_object *x;
	assert_true(json_object_object_get_ex(rec, "summary", &x));
	assert_string_equal(replayed.summary, json_object_get_string(x));
	assert_true(json_object_object_get_ex(rec, "fixes", &x));
	assert_int_equal(json_object_array_length(x), replayed.fixes.n);
	json_object_put(rec);
	return &replayed;
}

static bool fix_says(const struct verdict *v, enum fix_kind kind, const char *what)
{
	for (int i = 0; i < v->fixes.n; i++)
		if (v->fixes.items[i].kind == kind && strstr(v->fixes.items[i].text, what))
			return true;
	return false;
}

static void test_recorded_on_612(void **state)
{
	(void)state;
	const struct verdict *v = replay("pin_device_memory.gpumem-stock.6.12");
	assert_int_equal(v->cause, CAUSE_PIN_DEVICE_MEMORY);
	assert_int_equal(gpu_peer_state(&replayed_gates.gpu), GPU_PEER_UNSUPPORTED);
	assert_true(fix_says(v, FIX_PRIMARY, "dma-buf"));
	assert_true(fix_says(v, FIX_PRIMARY, "rxe0 (rdma_rxe)"));
	assert_false(fix_says(v, FIX_PRIMARY, "modprobe nvidia-peermem"));
	assert_true(fix_says(v, FIX_ALTERNATIVE, "MLNX_OFED or DOCA-OFED"));

	v = replay("pin_device_memory.gpumem-chain.6.12");
	assert_true(replayed_gates.gpu.probe.seen);
	assert_int_equal(replayed_gates.gpu.probe.err, EOPNOTSUPP);
	assert_non_null(strstr(v->explanation, "dma-buf probe in this process failed with EOPNOTSUPP"));

	v = replay("pin_device_memory.gpumem-noclient.6.12");
	assert_int_equal(gpu_peer_state(&replayed_gates.gpu), GPU_PEER_NO_CLIENT);
	assert_true(fix_says(v, FIX_PRIMARY, "modprobe nvidia-peermem"));

	v = replay("pin_device_memory.gpumem-registered.6.12");
	assert_int_equal(gpu_peer_state(&replayed_gates.gpu), GPU_PEER_REGISTERED);
	assert_true(fix_says(v, FIX_PRIMARY, "nv_mem is registered"));

	v = replay("shm_exhausted.shm-private.6.12");
	assert_int_equal(v->cause, CAUSE_SHM_EXHAUSTED);
	assert_int_equal(replayed_gates.shm_owner, GATE_SHM_PRIVATE);
	assert_true(fix_says(v, FIX_PRIMARY, "--shm-size"));
	assert_false(fix_says(v, FIX_PRIMARY, "/etc/fstab"));
}

/* EINVAL from ib_umem_dmabuf_get before any attach: the range past the
 * dma-buf's end (its fdinfo size), proven with the size, inferred without,
 * not this cause when the range fits; the fdinfo reader over a tree */
static void test_dmabuf_range(void **state)
{
	(void)state;
	char err[256], tree[] = "/tmp/mrt-dmabuf-XXXXXX", path[512];
	struct json_object *rec =
		json_object_from_file(fixture_path("trails", "dmabuf_range.expandable-segments-mlx5.synthetic.json"));
	struct mrt_event ev;
	struct gate_facts g;
	struct verdict v;

	assert_non_null(rec);
	assert_int_equal(record_raw_from_json(rec, &ev, err, sizeof(err)), 0);
	memset(&g, 0, sizeof(g));
	assert_true(record_gates_from_json(rec, &g));
	json_object_put(rec);
	assert_int_equal(g.gpu.dmabuf_fd_size, 2097152);
	explain_registration(&ev, NULL, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_DMABUF_RANGE);
	assert_int_equal(v.certainty, CERT_PROVEN);
	assert_non_null(strstr(v.summary, "bytes 0..67108864 of dma-buf fd 93, which holds 2097152 "
					  "bytes (exporter nvidia): past its end by 65011712"));
	assert_true(fix_says(&v, FIX_PRIMARY, "expandable_segments"));
	assert_true(fix_says(&v, FIX_ALTERNATIVE, "NCCL_DMABUF_ENABLE=0"));
	/* the size unknown: the range is only inferred */
	g.gpu.dmabuf_fd_size = 0;
	explain_registration(&ev, NULL, NULL, &g, &v);
	assert_int_equal(v.cause, CAUSE_DMABUF_RANGE);
	assert_int_equal(v.certainty, CERT_INFERRED);
	/* the range fits: some other EINVAL, not this cause */
	g.gpu.dmabuf_fd_size = 67108864;
	explain_registration(&ev, NULL, NULL, &g, &v);
	assert_int_not_equal(v.cause, CAUSE_DMABUF_RANGE);
	/* fdinfo of a dma-buf, as /proc shows it */
	assert_non_null(mkdtemp(tree));
	snprintf(path, sizeof(path), "%s/proc/77/fdinfo", tree);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && printf 'pos:\\t0\\nflags:\\t02\\nmnt_id:\\t16\\n"
		 "ino:\\t1041\\nsize:\\t2097152\\ncount:\\t1\\nexp_name:\\tudmabuf\\nname:\\t\\n' > %s/5 && "
		 "printf 'pos:\\t0\\nflags:\\t02\\n' > %s/6", path, path, path);
	assert_int_equal(system(cmd), 0);
	struct gpu_facts f;
	memset(&f, 0, sizeof(f));
	gpu_facts_read_dmabuf_fd(tree, 77, 5, &f);
	assert_int_equal(f.dmabuf_fd_size, 2097152);
	assert_string_equal(f.dmabuf_exporter, "udmabuf");
	memset(&f, 0, sizeof(f));
	gpu_facts_read_dmabuf_fd(tree, 77, 6, &f); /* no dma-buf */
	assert_int_equal(f.dmabuf_fd_size, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_trees),
		cmocka_unit_test(test_peer_states),
		cmocka_unit_test(test_dmabuf_blockers),
		cmocka_unit_test(test_wants_facts),
		cmocka_unit_test(test_evidence_round_trip),
		cmocka_unit_test(test_probe_then_fallback),
		cmocka_unit_test(test_fixes_follow_nccl),
		cmocka_unit_test(test_recorded_on_612),
		cmocka_unit_test(test_dmabuf_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
