// SPDX-License-Identifier: GPL-2.0-only
/* test_ports.c - watch's port monitor (watch/ports.h) over a sysfs tree
 * made in a temporary directory and changed between ticks: a carrier lost
 * and back (down_ms, the holders of the moment it went down), an
 * interface set down, a GID entry that empties under an ACTIVE port, and
 * the GIDs a down port loses (the flap's, no record of their own). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>
#include <limits.h>

#include "fake_rdma.h"
#include "fixture_path.h"

#include "record/kind.h"
#include "record/port_change.h"
#include "proc/rdmares_async.h"
#include "proc/rdmares_res.h"
#include "watch/ports.h"

static char root[] = "/tmp/mrtrace-ports-XXXXXX";
static struct record_port_change got[8];
static int ngot;

static void put(const char *rel, const char *text)
{
	char p[512], cmd[600];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#define PORT "sys/class/infiniband/rxe0/ports/1/"
#define GID0 "fe80:0000:0000:0000:5054:00ff:fe12:3456\n"
#define GID1 "0000:0000:0000:0000:0000:ffff:0a37:0001\n"
#define ZERO "0000:0000:0000:0000:0000:0000:0000:0000\n"

static int holders(const char *dev, unsigned port, struct rdma_qp_holders *out)
{
	memset(out, 0, sizeof(*out));
	if (strcmp(dev, "rxe0") || port != 1)
		return -1;
	out->n = 1;
	out->qps = 2;
	out->h[0] = (struct rdma_qp_holder){ .pid = 4242, .comm = "ibv_rc_pingpong", .qps = 2 };
	return 0;
}

static void attribute(const char *r, struct port_affected *a)
{
	(void)r;
	a->slurm_job = 991;
}

static void emit(void *arg, const struct record_port_change *c)
{
	(void)arg;
	assert_true(ngot < 8);
	got[ngot++] = *c;
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(root));
	put(PORT "state", "4: ACTIVE\n");
	put(PORT "link_layer", "Ethernet\n");
	put(PORT "gids/0", GID0);
	put(PORT "gids/1", GID1);
	put(PORT "gids/2", ZERO);
	put(PORT "gid_attrs/types/0", "RoCE v2\n");
	put(PORT "gid_attrs/types/1", "RoCE v2\n");
	put(PORT "gid_attrs/ndevs/0", "dummy0\n");
	put(PORT "gid_attrs/ndevs/1", "dummy0\n");
	put("sys/class/net/dummy0/flags", "0x1003\n");
	put("sys/class/net/dummy0/carrier", "1\n");
	put("sys/class/net/dummy0/carrier_changes", "2\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_flap_and_gid(void **state)
{
	(void)state;
	struct ports_io io = { .root = root, .holders = holders, .attribute = attribute };
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	assert_false(ports_netlink_armed(m));
	ports_tick(m, 100.0, emit, NULL); /* the snapshot */
	assert_int_equal(ports_count(m), 1);
	ports_tick(m, 100.1, emit, NULL);
	assert_int_equal(ngot, 0);
	/* a loop that turns faster (records arriving) does not read more often */
	put(PORT "state", "1: DOWN\n");
	ports_tick(m, 100.12, emit, NULL);
	assert_int_equal(ngot, 0);

	/* carrier lost: one record, with the holders */
	put(PORT "state", "1: DOWN\n");
	put("sys/class/net/dummy0/carrier", "0\n");
	put("sys/class/net/dummy0/carrier_changes", "3\n");
	put(PORT "gids/1", ZERO); /* a down port loses its GIDs: no record of their own */
	ports_tick(m, 100.2, emit, NULL);
	ports_tick(m, 101.5, emit, NULL);
	assert_int_equal(ngot, 1);
	assert_string_equal(got[0].state, "DOWN");
	assert_string_equal(got[0].previous, "ACTIVE");
	assert_string_equal(got[0].reason, "carrier_lost");
	assert_string_equal(got[0].netdev, "dummy0");
	assert_int_equal(got[0].down_ms, -1);
	assert_true(got[0].affected_known);
	assert_int_equal(got[0].naffected, 1);
	assert_int_equal(got[0].affected_qps, 2);
	assert_int_equal(got[0].affected[0].slurm_job, 991);
	assert_int_equal(got[0].ncounters, 1);
	assert_string_equal(got[0].counters[0].name, "carrier_changes");
	assert_int_equal(got[0].counters[0].delta, 1);

	/* back after 3.0 s: down_ms, the reason it was down, the holders then */
	put(PORT "state", "4: ACTIVE\n");
	put("sys/class/net/dummy0/carrier", "1\n");
	put(PORT "gids/1", GID1);
	ports_tick(m, 103.2, emit, NULL);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[1].state, "ACTIVE");
	assert_string_equal(got[1].previous, "DOWN");
	assert_string_equal(got[1].reason, "carrier_lost");
	assert_int_equal(got[1].down_ms, 3000);
	assert_int_equal(got[1].naffected, 1);
	char sum[512];
	port_change_summary(&got[1], sum, sizeof(sum));
	assert_string_equal(sum, "rxe0 port 1 went DOWN (carrier lost on dummy0) for 3.0 s; "
				 "1 process held 2 QPs on it");

	/* its GIDs are learnt again, then one empties under the ACTIVE port */
	ports_tick(m, 104.3, emit, NULL);
	ports_tick(m, 106.3, emit, NULL);
	assert_int_equal(ngot, 2);
	put(PORT "gids/1", ZERO);
	ports_tick(m, 107.4, emit, NULL);
	assert_int_equal(ngot, 3);
	assert_string_equal(got[2].reason, "gid_change");
	assert_int_equal(got[2].gid_index, 1);
	assert_string_equal(got[2].old_gid, "::ffff:10.55.0.1");
	assert_string_equal(got[2].new_gid, "");
	assert_string_equal(got[2].gid_type, "RoCE v2");
	assert_string_equal(got[2].address, "10.55.0.1 no longer on dummy0");
	assert_int_equal(got[2].down_ms, -1);
	port_change_summary(&got[2], sum, sizeof(sum));
	assert_non_null(strstr(sum, "lost GID index 1 ::ffff:10.55.0.1 (RoCE v2): 10.55.0.1 no longer on dummy0"));

	/* the interface set down */
	put(PORT "state", "1: DOWN\n");
	put("sys/class/net/dummy0/flags", "0x1002\n");
	ports_tick(m, 108.0, emit, NULL);
	assert_int_equal(ngot, 4);
	assert_string_equal(got[3].reason, "admin_down");

	/* the record as JSON and text */
	struct record rec = { .kind = &record_kind_port_change, .data = &got[1] };
	struct json_object *o = record_to_json(&rec), *x;
	assert_true(json_object_object_get_ex(o, "down_ms", &x));
	assert_int_equal(json_object_get_int64(x), 3000);
	assert_true(json_object_object_get_ex(o, "affected", &x));
	assert_int_equal(json_object_array_length(x), 1);
	json_object_put(o);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_true(record_print_text(f, &rec, false, "12:03:05 on n1"));
	fclose(f);
	assert_non_null(strstr(text, "infiniband: rxe0 port 1 went DOWN (carrier lost on dummy0) for 3.0 s"));
	assert_non_null(strstr(text, "pid 4242 (ibv_rc_pingpong): 2 QPs, Slurm job 991"));
	assert_non_null(strstr(text, "IBV_WC_RETRY_EXC_ERR"));
	free(text);
	ports_close(m);
}

/* The kernel's async events (the async_event site) as the monitor's source:
 * a port error and its return said at once with source "kernel", a flap
 * faster than a look, a GID event, a device fatal error (its return only
 * from sysfs, after the grace: an event missed), an SM reregister and a
 * P_Key change that sysfs cannot show; events of QPs ignored, an unknown
 * device counted. */
static void test_kernel_events(void **state)
{
	(void)state;
	struct ports_io io = { .root = root, .holders = holders, .attribute = attribute };
	char sum[512];

	put(PORT "state", "4: ACTIVE\n");
	put(PORT "gids/1", GID1);
	put("sys/class/net/dummy0/flags", "0x1003\n");
	put("sys/class/net/dummy0/carrier", "1\n");
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	ports_set_kernel(m, true);
	assert_true(ports_kernel_armed(m));
	ports_tick(m, 200.0, emit, NULL); /* the snapshot */
	ngot = 0;

	/* sysfs sees the port down first: no record until the event says it */
	put(PORT "state", "1: DOWN\n");
	put("sys/class/net/dummy0/carrier", "0\n");
	ports_tick(m, 200.1, emit, NULL);
	assert_int_equal(ngot, 0);
	ports_kernel_event(m, "rxe0", 1, 10 /* IB_EVENT_PORT_ERR */, 200.15, emit, NULL);
	assert_int_equal(ngot, 1);
	assert_string_equal(got[0].source, "kernel");
	assert_string_equal(got[0].reason, "carrier_lost");
	assert_string_equal(got[0].state, "DOWN");
	assert_int_equal(got[0].naffected, 1);
	ports_tick(m, 201.5, emit, NULL); /* sysfs agrees: nothing more */
	assert_int_equal(ngot, 1);
	put(PORT "state", "4: ACTIVE\n");
	put("sys/class/net/dummy0/carrier", "1\n");
	ports_kernel_event(m, "rxe0", 1, 9 /* IB_EVENT_PORT_ACTIVE */, 202.15, emit, NULL);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[1].source, "kernel");
	assert_int_equal(got[1].down_ms, 2000);
	assert_string_equal(got[1].reason, "carrier_lost");

	/* down and back between two looks: both from the events */
	ports_kernel_event(m, "rxe0", 1, 10, 203.0, emit, NULL);
	ports_kernel_event(m, "rxe0", 1, 9, 203.05, emit, NULL);
	ports_tick(m, 203.2, emit, NULL);
	assert_int_equal(ngot, 4);
	assert_string_equal(got[2].state, "DOWN");
	assert_int_equal(got[3].down_ms, 50);

	/* a GID event: the entries compared at once */
	ngot = 0;
	put(PORT "gids/1", ZERO);
	ports_kernel_event(m, "rxe0", 1, 18 /* IB_EVENT_GID_CHANGE */, 204.0, emit, NULL);
	assert_int_equal(ngot, 1);
	assert_string_equal(got[0].reason, "gid_change");
	assert_string_equal(got[0].source, "kernel");
	assert_int_equal(got[0].gid_index, 1);
	ports_tick(m, 205.1, emit, NULL); /* the periodic look finds nothing new */
	assert_int_equal(ngot, 1);

	/* a device fatal error: every port of the device, an error */
	put(PORT "state", "1: DOWN\n");
	ports_kernel_event(m, "rxe0", 0, 8 /* IB_EVENT_DEVICE_FATAL */, 206.0, emit, NULL);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[1].reason, "device_fatal");
	assert_string_equal(got[1].source, "kernel");
	assert_string_equal(got[1].state, "DOWN");
	assert_string_equal(got[1].previous, "ACTIVE");
	struct record rec = { .kind = &record_kind_port_change, .data = &got[1] };
	assert_string_equal(record_severity(&rec), "error");
	port_change_summary(&got[1], sum, sizeof(sum));
	assert_string_equal(sum, "rxe0 port 1 went DOWN (device fatal error); 1 process holds 2 QPs on it");
	/* it comes back without an event (one missed): sysfs says so after the grace */
	put(PORT "state", "4: ACTIVE\n");
	ports_tick(m, 207.0, emit, NULL);
	ports_tick(m, 207.5, emit, NULL);
	assert_int_equal(ngot, 2);
	ports_tick(m, 208.1, emit, NULL);
	assert_int_equal(ngot, 3);
	assert_string_equal(got[2].source, "sysfs");
	assert_string_equal(got[2].reason, "device_fatal");
	assert_int_equal(got[2].down_ms, 2100);

	/* what sysfs cannot show */
	ngot = 0;
	ports_kernel_event(m, "rxe0", 1, 17 /* IB_EVENT_CLIENT_REREGISTER */, 209.0, emit, NULL);
	ports_kernel_event(m, "rxe0", 1, 12 /* IB_EVENT_PKEY_CHANGE */, 209.1, emit, NULL);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[0].reason, "client_reregister");
	assert_string_equal(got[1].reason, "pkey_change");
	port_change_summary(&got[1], sum, sizeof(sum));
	assert_string_equal(sum, "rxe0 port 1: its P_Key table changed; 1 process holds 2 QPs on it");
	/* a QP's event is not the monitor's; an unknown device is counted */
	ports_kernel_event(m, "rxe0", 1, 1 /* IB_EVENT_QP_FATAL */, 209.2, emit, NULL);
	assert_int_equal(ngot, 2);
	assert_int_equal(ports_kernel_unmatched(m), 0);
	ports_kernel_event(m, "mlx5_9", 1, 10, 209.3, emit, NULL);
	assert_int_equal(ports_kernel_unmatched(m), 1);
	assert_int_equal(ngot, 2);
	assert_null(ports_event_name(1));
	assert_string_equal(ports_event_name(8), "device_fatal");

	/* the record read back keeps the new reason */
	struct record r2 = { .kind = &record_kind_port_change, .data = &got[0] };
	struct json_object *o = record_to_json(&r2);
	struct record_port_change back;
	char err[128];
	assert_int_equal(port_change_from_json(o, &back, err, sizeof(err)), 0);
	assert_string_equal(back.reason, "client_reregister");
	assert_string_equal(back.source, "kernel");
	json_object_put(o);

	/* disarmed: sysfs alone, at the next look */
	ports_set_kernel(m, false);
	put(PORT "state", "1: DOWN\n");
	ports_tick(m, 210.0, emit, NULL);
	assert_int_equal(ngot, 3);
	assert_string_equal(got[2].source, "sysfs");
	put(PORT "state", "4: ACTIVE\n");
	put(PORT "gids/1", GID1);
	ports_close(m);
}

/* `rdma -j res show qp` as iproute2 6.1 prints it: the kernel's own QPs
 * (no pid) are not a job's */
static void test_rdmares_parse(void **state)
{
	(void)state;
	static const char out[] =
		"[{\"ifindex\":3,\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":1,\"type\":\"GSI\","
		"\"state\":\"RTS\",\"sq-psn\":0,\"comm\":\"[ib_core]\"},"
		"{\"ifindex\":3,\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":17,\"rqpn\":18,\"type\":\"RC\","
		"\"state\":\"RTS\",\"pid\":812,\"comm\":\"ibv_rc_pingpong\"},"
		"{\"ifindex\":3,\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":18,\"rqpn\":17,\"type\":\"RC\","
		"\"state\":\"RTS\",\"pid\":815,\"comm\":\"python3\"},"
		"{\"ifindex\":3,\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":19,\"type\":\"RC\","
		"\"state\":\"INIT\",\"pid\":815,\"comm\":\"python3\"},"
		"{\"ifindex\":4,\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":20,\"type\":\"RC\","
		"\"state\":\"RTS\",\"pid\":900,\"comm\":\"other\"}]";
	struct rdma_qp_holders h;
	assert_int_equal(rdmares_parse_qp(out, "rxe0", 1, &h), 0);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.qps, 3);
	assert_int_equal(h.h[0].pid, 812);
	assert_string_equal(h.h[0].comm, "ibv_rc_pingpong");
	assert_int_equal(h.h[1].qps, 2);
	assert_int_equal(rdmares_parse_qp(out, "rxe0", 2, &h), 0);
	assert_int_equal(h.n, 0);
	assert_int_equal(rdmares_parse_qp("not json", "rxe0", 1, &h), -1);
}

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* rxe0 port 1 ACTIVE with its carrier, as setup() made it */
static void port_active(void)
{
	put(PORT "state", "4: ACTIVE\n");
	put("sys/class/net/dummy0/flags", "0x1003\n");
	put("sys/class/net/dummy0/carrier", "1\n");
}

/* Ticks as watch's loop turns (every 20 ms here) until n records have come
 * or secs have passed; each tick must return at once: the loop that calls
 * it also drains the ring buffer.  The longest tick, in seconds. */
static double tick_until(struct port_monitor *m, int n, double secs)
{
	double t0 = mono(), longest = 0;
	while (ngot < n && mono() - t0 < secs) {
		double a = mono();
		ports_tick(m, a, emit, NULL);
		if (mono() - a > longest)
			longest = mono() - a;
		usleep(20000);
	}
	return longest;
}

/* A switch reboot takes ports down exactly when failures burst, and a
 * busy node's `rdma res` takes seconds: the port monitor must not wait for
 * it inside the loop that drains the ring buffer (it did: every tick of a
 * change ran the tool to its end).  A stand-in that answers after 2 s: the
 * ticks of the down and of the return come back at once, and the records
 * come later, in order, with the holders the tool named. */
static void test_slow_rdma_does_not_block(void **state)
{
	(void)state;
	char dir[64];
	fake_rdma(dir, sizeof(dir),
		  "sleep 2; printf '[{\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":17,\"type\":\"RC\","
		  "\"pid\":4242,\"comm\":\"python3\"}]'");
	port_active();
	ngot = 0;
	struct ports_io io = { .root = root, .attribute = attribute };
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	ports_tick(m, mono(), emit, NULL); /* the snapshot */
	sleep(1); /* no earlier answer of the tool serves this change */

	put(PORT "state", "1: DOWN\n");
	put("sys/class/net/dummy0/carrier", "0\n");
	double t0 = mono(), t_down = t0;
	ports_tick(m, t0, emit, NULL);
	double took = mono() - t0;
	if (took > 0.5)
		fail_msg("the tick of the port change took %.2f s: it waited for rdma", took);
	assert_int_equal(ngot, 0); /* its record waits for the holders */
	assert_true(ports_wait_fd(m) >= 0);
	usleep(300000);
	/* back while the tool still runs: the return waits for its down */
	port_active();
	t0 = mono();
	ports_tick(m, t0, emit, NULL);
	assert_true(mono() - t0 < 0.5);
	assert_int_equal(ngot, 0);

	double longest = tick_until(m, 2, 8.0);
	if (longest > 0.5)
		fail_msg("a tick took %.2f s while rdma ran", longest);
	assert_int_equal(ngot, 2);
	assert_true(mono() - t_down >= 1.5); /* they did wait for the tool */
	assert_string_equal(got[0].state, "DOWN");
	assert_string_equal(got[0].reason, "carrier_lost");
	assert_true(got[0].affected_known);
	assert_int_equal(got[0].naffected, 1);
	assert_int_equal(got[0].affected[0].pid, 4242);
	assert_string_equal(got[0].affected[0].comm, "python3");
	assert_int_equal(got[0].affected[0].slurm_job, 991);
	assert_string_equal(got[1].state, "ACTIVE");
	assert_true(got[1].down_ms >= 250);
	assert_true(got[1].affected_known);
	assert_int_equal(got[1].naffected, 1);
	assert_int_equal(got[1].affected[0].pid, 4242);
	assert_int_equal(ports_wait_fd(m), -1);
	assert_int_equal(fake_rdma_runs(dir), 1);
	ports_close(m);
	fake_rdma_gone(dir);
	ngot = 0;
}

/* A tool that does not answer is killed at the deadline: the record comes
 * then, its holders unknown and why; the next change runs it again. */
static void test_stuck_rdma_killed(void **state)
{
	(void)state;
	char dir[64];
	fake_rdma(dir, sizeof(dir), "echo $$ > $(dirname $0)/pid; exec sleep 3600");
	port_active();
	ngot = 0;
	struct ports_io io = { .root = root, .attribute = attribute, .rdma_deadline_s = 0.5 };
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	ports_tick(m, mono(), emit, NULL);
	usleep(120000);
	put(PORT "state", "1: DOWN\n");
	double t0 = mono();
	double longest = tick_until(m, 1, 5.0);
	assert_true(longest < 0.5);
	assert_int_equal(ngot, 1);
	assert_true(mono() - t0 < 2.0);
	assert_false(got[0].affected_known);
	assert_non_null(got[0].affected_why);
	assert_string_equal(got[0].affected_why, RDMARES_WHY_SLOW);
	char sum[512];
	port_change_summary(&got[0], sum, sizeof(sum));
	assert_non_null(strstr(sum, RDMARES_WHY_SLOW));
	/* the tool is gone */
	char path[128];
	snprintf(path, sizeof(path), "%s/pid", dir);
	FILE *f = fopen(path, "r");
	int pid = 0;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	fclose(f);
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), -1);
	ports_close(m);
	fake_rdma_gone(dir);
	ngot = 0;
}

/* watch stops while a record waits for the tool: it is written all the
 * same (after a short grace), its holders unknown and why, the tool gone. */
static void test_flush_at_stop(void **state)
{
	(void)state;
	char dir[64];
	fake_rdma(dir, sizeof(dir), "exec sleep 3600");
	port_active();
	ngot = 0;
	struct ports_io io = { .root = root, .attribute = attribute };
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	ports_tick(m, mono(), emit, NULL);
	usleep(120000);
	put(PORT "state", "1: DOWN\n");
	ports_tick(m, mono(), emit, NULL);
	assert_int_equal(ngot, 0);
	double t0 = mono();
	ports_flush(m, t0, 0.3, emit, NULL);
	assert_true(mono() - t0 < 2.0);
	assert_int_equal(ngot, 1);
	assert_false(got[0].affected_known);
	assert_string_equal(got[0].affected_why, RDMARES_WHY_STOPPED);
	assert_int_equal(ports_wait_fd(m), -1);
	ports_close(m);
	fake_rdma_gone(dir);
	ngot = 0;
}

/* The query run to its end, as watch's loop turns (each step never waits). */
static void query_answer(struct rdmares_query *q, double secs)
{
	double t0 = mono();
	while (rdmares_query_running(q) && mono() - t0 < secs) {
		double a = mono();
		rdmares_query_step(q, a);
		assert_true(mono() - a < 0.5);
		usleep(5000);
	}
	assert_false(rdmares_query_running(q));
}

/* A switch reboot takes every port down at once: the holders of 8 ports
 * cost one run of the tool, and its whole output is read (1 MiB of other
 * QPs before the one held on rxe0 port 1; it was cut at 256 KiB, and the
 * tool ran once per port), through the pipe and the parse in pieces. */
static void test_rdmares_burst(void **state)
{
	(void)state;
	char dir[64];
	struct rdma_qp_holders h;
	fake_rdma(dir, sizeof(dir),
		  "printf '['; i=0; while [ $i -lt 9000 ]; do printf '{\"ifname\":\"mlx5_9\",\"port\":1,"
		  "\"lqpn\":%d,\"type\":\"RC\",\"state\":\"RTS\",\"pid\":77,\"comm\":\"x\","
		  "\"pad\":\"%080d\"},' $i 0; i=$((i+1)); done; "
		  "printf '{\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":5,\"pid\":4242,\"comm\":\"python3\"}]'");
	struct rdmares_query *q = rdmares_query_new("qp", 0);
	assert_non_null(q);
	assert_false(rdmares_query_ask(q, mono())); /* a run starts */
	assert_true(rdmares_query_fd(q) >= 0);
	assert_false(rdmares_query_ask(q, mono())); /* the next port joins it */
	query_answer(q, 20);
	for (unsigned port = 1; port <= 8; port++) {
		assert_true(rdmares_query_ask(q, mono())); /* the answer serves the burst */
		assert_int_equal(rdmares_query_holders(q, "rxe0", port, &h), 0);
		assert_int_equal(h.n, port == 1 ? 1 : 0);
	}
	assert_int_equal(rdmares_query_holders(q, "rxe0", 1, &h), 0);
	assert_int_equal(h.h[0].pid, 4242);
	assert_int_equal(rdmares_query_holders(q, "mlx5_9", 1, &h), 0);
	assert_int_equal(h.qps, 9000);
	assert_int_equal(fake_rdma_runs(dir), 1);
	fake_rdma_gone(dir);
	/* a tool that fails: unknown, and why */
	fake_rdma(dir, sizeof(dir), "exit 1");
	sleep(2);
	assert_false(rdmares_query_ask(q, mono()));
	query_answer(q, 10);
	assert_int_equal(rdmares_query_holders(q, "rxe0", 1, &h), -1);
	assert_non_null(h.why);
	assert_string_equal(h.why, RDMARES_WHY_TOOL);
	/* output that is not the JSON expected */
	fake_rdma_gone(dir);
	fake_rdma(dir, sizeof(dir), "echo '[{\"ifname\": oops'");
	sleep(2);
	assert_false(rdmares_query_ask(q, mono()));
	query_answer(q, 10);
	assert_int_equal(rdmares_query_holders(q, "rxe0", 1, &h), -1);
	assert_string_equal(h.why, RDMARES_WHY_JSON);
	rdmares_query_free(q);
	fake_rdma_gone(dir);
}

static volatile sig_atomic_t ticks;
static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/* watch's SIGHUP (reopen -o FILE) and its stop signals arrive whenever
 * they like: one that interrupts the read of the tool's output must not
 * cut the answer (a read that failed with EINTR ended it: the rest was
 * lost, the tool killed by SIGPIPE, the holders "unknown").  A timer's
 * signal, with a handler without SA_RESTART, every 20 ms while the tool
 * pauses between two halves of its output. */
static void test_rdmares_read_interrupted(void **state)
{
	(void)state;
	char dir[64];
	const char *why = NULL;
	struct sigaction sa = { .sa_handler = on_tick }, old; /* no SA_RESTART */
	struct itimerval every = { .it_interval = { 0, 20000 }, .it_value = { 0, 20000 } }, off = { 0 };

	fake_rdma(dir, sizeof(dir),
		  "printf '[{\"ifname\":\"rxe0\",'; sleep 0.5; printf '\"port\":1}]'");
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	ticks = 0;
	assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
	struct json_object *a = rdmares_res("qp", &why);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_true(ticks > 5); /* the wait was interrupted, many times */
	if (!a)
		fprintf(stderr, "rdmares_res: %s\n", why ? why : "?");
	assert_non_null(a);
	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
			    "[{\"ifname\":\"rxe0\",\"port\":1}]");
	json_object_put(a);
	fake_rdma_gone(dir);
}

/* A tool that does not answer is killed after RDMARES_WAIT_S: the refusal
 * that asked waits no longer (popen waited for it without end), and
 * within the reuse window the next asker gets the same "no answer" at
 * once instead of a second wait. */
static void test_rdmares_res_bounded(void **state)
{
	(void)state;
	char dir[64];
	const char *why = NULL;

	fake_rdma(dir, sizeof(dir), "exec sleep 3600");
	double t0 = mono();
	struct json_object *a = rdmares_res("cq", &why);
	double took = mono() - t0;
	assert_null(a);
	assert_non_null(why);
	assert_string_equal(why, RDMARES_WHY_SLOW);
	if (took < RDMARES_WAIT_S - 0.1 || took > RDMARES_WAIT_S + 2)
		fail_msg("rdmares_res waited %.2f s", took);
	t0 = mono();
	assert_null(rdmares_res("cq", &why));
	assert_true(mono() - t0 < 0.5);
	assert_int_equal(fake_rdma_runs(dir), 1);
	/* a type outside the four is never run */
	assert_null(rdmares_res("qp; reboot", &why));
	assert_int_equal(fake_rdma_runs(dir), 1);
	fake_rdma_gone(dir);
}

/* Text from another node's record (explain reads port_change records back)
 * reaches the operator's terminal: a comm, a netdev, a device name, a pod
 * holding U+202E (RIGHT-TO-LEFT OVERRIDE, e2 80 ae) or ESC is printed
 * escaped, never raw (issue 34, item 13). */
static void test_text_escapes_bidi_and_esc(void **state)
{
	(void)state;
	static struct record_port_change c;
	memset(&c, 0, sizeof(c));
	snprintf(c.device, sizeof(c.device), "mlx5\033[2J_0");
	c.port = 1;
	snprintf(c.state, sizeof(c.state), "DOWN");
	snprintf(c.previous, sizeof(c.previous), "ACTIVE");
	snprintf(c.link_layer, sizeof(c.link_layer), "Ethernet");
	snprintf(c.netdev, sizeof(c.netdev), "eth\xe2\x80\xae" "0");
	c.reason = "admin_down";
	c.down_ms = -1;
	c.gid_index = -1;
	c.affected_known = true;
	c.naffected = 1;
	c.affected_qps = 2;
	c.affected[0] = (struct port_affected){ .pid = 7, .qps = 2, .rank = -1, .slurm_job = -1,
						.nccl_mapped = true };
	snprintf(c.affected[0].comm, sizeof(c.affected[0].comm), "py\xe2\x80\xaethon\033]0;x");
	snprintf(c.affected[0].nccl, sizeof(c.affected[0].nccl), "2.21\033[31m");
	snprintf(c.affected[0].pod_uid, sizeof(c.affected[0].pod_uid), "pod\xe2\x80\xae\033");
	c.ncounters = 1;
	snprintf(c.counters[0].name, sizeof(c.counters[0].name), "link\033[8m_downed");
	struct record rec = { .kind = &record_kind_port_change, .data = &c };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_true(rec.kind->to_text(f, &rec, true, "12:00:00\xe2\x80\xae"));
	fclose(f);
	if (strchr(text, '\033') || strstr(text, "\xe2\x80\xae"))
		fail_msg("raw ESC or U+202E in:\n%s", text);
	assert_non_null(strstr(text, "py\\u202ethon\\e]0;x"));
	assert_non_null(strstr(text, "eth\\u202e0"));
	free(text);
}

/* The reason travels with the record and back. */
static void test_affected_reason_round_trip(void **state)
{
	(void)state;
	struct json_object *o = json_tokener_parse(
		"{\"event\":\"port_change\",\"device\":\"rxe0\",\"port\":1,\"state\":\"DOWN\","
		"\"affected_known\":false,\"affected_unknown_reason\":\"" RDMARES_WHY_BIG "\"}");
	static struct record_port_change c;
	char err[256], sum[512];
	assert_non_null(o);
	assert_int_equal(port_change_from_json(o, &c, err, sizeof(err)), 0);
	assert_non_null(c.affected_why);
	assert_string_equal(c.affected_why, RDMARES_WHY_BIG);
	port_change_summary(&c, sum, sizeof(sum));
	assert_non_null(strstr(sum, "could not be read (rdma res: " RDMARES_WHY_BIG ")"));
	struct record rec = { .kind = &record_kind_port_change, .data = &c };
	struct json_object *back = record_kind_port_change.to_json(&rec), *x;
	assert_true(json_object_object_get_ex(back, "affected_unknown_reason", &x));
	assert_string_equal(json_object_get_string(x), RDMARES_WHY_BIG);
	json_object_put(back);
	json_object_put(o);
	/* the reason of a tool killed at its deadline reads back as itself */
	o = json_tokener_parse("{\"event\":\"port_change\",\"device\":\"rxe0\",\"port\":1,"
			       "\"state\":\"DOWN\",\"affected_known\":false,"
			       "\"affected_unknown_reason\":\"" RDMARES_WHY_SLOW "\"}");
	assert_int_equal(port_change_from_json(o, &c, err, sizeof(err)), 0);
	assert_string_equal(c.affected_why, RDMARES_WHY_SLOW);
	json_object_put(o);
}

/* every recorded port_change reads back, its reason that of its file
 * name, and says the same summary when written again */
static void test_fixtures_replay(void **state)
{
	(void)state;
	char dir[PATH_MAX + 128], path[PATH_MAX + 400], err[256];
	struct dirent *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s", fixture_path("ports", "README.md"));
	*strrchr(dir, '/') = '\0';
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		size_t l = strlen(d->d_name);
		if (l < 6 || strcmp(d->d_name + l - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		struct json_object *o = json_object_from_file(path), *x;
		struct record_port_change c, c2;
		assert_non_null(o);
		if (port_change_from_json(o, &c, err, sizeof(err)))
			fail_msg("%s: %s", d->d_name, err);
		char reason[64];
		snprintf(reason, sizeof(reason), "%s", d->d_name);
		*strchr(reason, '.') = 0;
		assert_string_equal(c.reason, reason);
		struct record rec = { .kind = &record_kind_port_change, .data = &c };
		struct json_object *again = record_to_json(&rec);
		assert_true(json_object_object_get_ex(o, "summary", &x));
		struct json_object *y;
		assert_true(json_object_object_get_ex(again, "summary", &y));
		assert_string_equal(json_object_get_string(y), json_object_get_string(x));
		assert_int_equal(port_change_from_json(again, &c2, err, sizeof(err)), 0);
		assert_int_equal(c2.naffected, c.naffected);
		assert_int_equal(c2.down_ms, c.down_ms);
		assert_string_equal(c2.reason, c.reason);
		json_object_put(again);
		json_object_put(o);
		n++;
	}
	closedir(dp);
	assert_true(n >= 3);
	/* a member of the wrong type is named */
	struct json_object *bad = json_tokener_parse("{\"event\":\"port_change\",\"device\":\"rxe0\","
						     "\"state\":\"DOWN\",\"down_ms\":\"x\"}");
	struct record_port_change c;
	assert_int_equal(port_change_from_json(bad, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "down_ms"));
	json_object_put(bad);
}

/* (The stand-in tools that never answer sleep an hour, and are killed by
 * what they test: one of 60 s answered, empty, when arm64's emulation beside
 * another guest took longer than that for the 140 changes below.) */

/* A port that flaps faster than `rdma res` answers: at most 128 records
 * wait for their holders; each one beyond is written at once with its
 * holders unknown and why, and counted (port_waiting_full: the stop record
 * and the metrics).  Nothing is lost, every change has its record. */
static int nbusy, nall;
static void emit_count(void *arg, const struct record_port_change *c)
{
	(void)arg;
	nall++;
	if (!c->affected_known && c->affected_why && !strcmp(c->affected_why, RDMARES_WHY_BUSY))
		nbusy++;
}

static void test_waiting_full_counted(void **state)
{
	(void)state;
	char dir[64];
	fake_rdma(dir, sizeof(dir), "exec sleep 3600"); /* never answers while the port flaps */
	port_active();
	struct ports_io io = { .root = root, .attribute = attribute, .rdma_deadline_s = 1000 };
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	double t = mono();
	nbusy = nall = 0;
	ports_tick(m, t, emit_count, NULL); /* the snapshot */
	for (int i = 0; i < 70; i++) { /* 140 changes: 70 downs, 70 returns */
		put(PORT "state", "1: DOWN\n");
		put("sys/class/net/dummy0/carrier", "0\n");
		ports_tick(m, t += 0.2, emit_count, NULL);
		port_active();
		ports_tick(m, t += 0.2, emit_count, NULL);
	}
	assert_int_equal(nall, 140 - 128); /* the rest wait for the tool */
	assert_int_equal(nbusy, 140 - 128);
	assert_int_equal(ports_waiting_full(m), 140 - 128);
	/* at stop the waiting ones are written too (holders unknown: stopped) */
	ports_flush(m, t, 0, emit_count, NULL);
	assert_int_equal(nall, 140);
	assert_int_equal(ports_waiting_full(m), 140 - 128);
	ports_close(m);
	fake_rdma_gone(dir);
}

/* A node with more ports than the monitor's table (64): the ports beyond
 * are counted (ports_full, the stop record and the metrics have it) and said
 * once on stderr, not skipped silently (issue 34, item 13). */
static void test_ports_beyond_table_counted(void **state)
{
	(void)state;
	char p[512];
	/* rxe0 port 1 is there already: 69 more ports on three devices */
	for (int d = 1; d <= 3; d++)
		for (int k = 1; k <= 23; k++) {
			snprintf(p, sizeof(p), "%s/sys/class/infiniband/mlx5_%d/ports/%d", root, d, k);
			char cmd[600];
			snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
			assert_int_equal(system(cmd), 0);
		}
	struct ports_io io = { .root = root, .holders = holders, .attribute = attribute };
	struct port_monitor *m = ports_open(&io);
	assert_non_null(m);
	assert_int_equal(ports_full(m), 0);
	/* stderr to a file: said once, however many scans */
	char errpath[] = "/tmp/mrtrace-ports-err-XXXXXX";
	int efd = mkstemp(errpath);
	assert_true(efd >= 0);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(efd, 2), 2);
	ports_tick(m, 500.0, emit, NULL);
	ports_tick(m, 503.0, emit, NULL); /* the device list again (every 2 s) */
	ports_tick(m, 506.0, emit, NULL);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	assert_int_equal(ports_count(m), 64);
	assert_int_equal(ports_full(m), 70 - 64);
	char text[1024] = "";
	ssize_t n = pread(efd, text, sizeof(text) - 1, 0);
	close(efd);
	unlink(errpath);
	assert_true(n > 0);
	text[n] = 0;
	const char *first = strstr(text, "not watched");
	assert_non_null(first);
	assert_null(strstr(first + 1, "not watched"));
	assert_non_null(strstr(text, "6 RDMA ports"));
	ports_close(m);
	snprintf(p, sizeof(p), "rm -rf '%s'/sys/class/infiniband/mlx5_*", root);
	assert_int_equal(system(p), 0);
	ngot = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flap_and_gid),
		cmocka_unit_test(test_kernel_events),
		cmocka_unit_test(test_rdmares_parse),
		cmocka_unit_test(test_rdmares_burst),
		cmocka_unit_test(test_rdmares_read_interrupted),
		cmocka_unit_test(test_rdmares_res_bounded),
		cmocka_unit_test(test_slow_rdma_does_not_block),
		cmocka_unit_test(test_stuck_rdma_killed),
		cmocka_unit_test(test_flush_at_stop),
		cmocka_unit_test(test_affected_reason_round_trip),
		cmocka_unit_test(test_fixtures_replay),
		cmocka_unit_test(test_ports_beyond_table_counted),
		cmocka_unit_test(test_waiting_full_counted),
		cmocka_unit_test(test_text_escapes_bidi_and_esc),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
