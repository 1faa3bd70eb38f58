// SPDX-License-Identifier: GPL-2.0-only
/* ports.c - RDMA port and GID changes as port_change records (ports.h).
 *
 * A snapshot per port (state, netdev, the populated GID entries, LID and
 * SM LID, the link counters) is compared with what sysfs says now.  A port
 * that leaves ACTIVE is one record (who held QPs on it then, why: the
 * interface set down or without carrier), its return another (down_ms,
 * and the holders of the moment it went down); a GID entry that empties or
 * changes while the port stays ACTIVE is a gid_change, with the address
 * behind it when rtnetlink said which one went.  Changes of a port that is
 * down are the flap's, not records of their own.
 *
 * Length: over the usual 500 lines: the snapshot and the comparison that
 * makes records out of two snapshots are one state machine (a port down,
 * its return, a GID gone while ACTIVE); sysfs and rtnetlink feed it. */
#include "watch/ports.h"

#include <errno.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mrtrace.h"
#include "core/sysroot.h"
#include "nccl/nccl.h"
#include "proc/context.h"
#include "proc/gidtable.h"
#include "core/clock.h"
#include "proc/rdmares_async.h"

#define IB "/sys/class/infiniband"
#define PORTS_MAX 64
#define ADDR_EVENTS 16
#define SCAN_S 2.0      /* the device list */
#define GID_S 1.0       /* the populated GID entries, LID, SM LID */
#define FULL_S 60.0     /* the whole GID table (new entries) without a reason */
#define PENDING_MAX (2 * PORTS_MAX) /* records waiting for rdma's answer: a switch
				      * reboot's downs, and their returns */
#define KERNEL_GRACE_S 1.0 /* with the kernel's events armed: how long a sysfs state
			    * may differ before sysfs says it (an event missed) */
#define TICK_S 0.1      /* the port states, at most this often: watch's loop turns
			 * faster while records arrive, and a storm must not pay */

static const char *const counter_files[] = {
	"link_downed", "link_error_recovery", "symbol_error", "port_rcv_errors",
	"local_link_integrity_errors",
};
#define NCOUNTERS (sizeof(counter_files) / sizeof(counter_files[0]))

struct port_snap {
	char dev[64];
	unsigned port;
	char link_layer[16], netdev[32];
	char state[24];
	bool active;
	bool seen;               /* found in this scan */
	/* while down: when it went, and the record of that moment */
	double down_at;
	struct record_port_change down;
	struct gid_table gids;
	long long lid, sm_lid;
	/* the counters at the last record (or the first look): value, present */
	unsigned long long cval[NCOUNTERS + 1];
	bool chave[NCOUNTERS + 1];
	double full_at[2];       /* when to read the whole table again (0: not due) */
	/* who held QPs when an address of its netdev went (rtnetlink): the GID
	 * it backed is seen gone up to 1.6 s later, when the QPs that used it
	 * may have failed and their processes exited */
	double held_at;
	struct record_port_change held;
	/* with the kernel's events armed: since when sysfs has shown a state
	 * that no event said (0: none) */
	double differ_since;
};

struct addr_event {
	double t;
	bool deleted;
	char ifname[IF_NAMESIZE];
	char addr[INET6_ADDRSTRLEN];
	int prefixlen;
};

/* A record whose holders come with the answer of the run of `rdma res` in
 * progress (rdmares_async.h): records leave in the order of their changes,
 * each once its holders are known. */
enum pending_how {
	WAIT_RUN,  /* the holders of its port, from the run's answer */
	WAIT_DOWN, /* a return: the holders of its down (entry `from`) */
	HOLD,      /* no record: the port's `held` (an address went, hold_for_addr) */
	READY,     /* to be emitted */
	DONE,      /* nothing to emit */
};

struct pending {
	enum pending_how how;
	unsigned long seq, from;
	double at;               /* when the change was seen */
	bool down;               /* a port that went down: its return copies it */
	bool merge_held;         /* a gid_change: the holders of the moment its address went */
	struct record_port_change rec;
};

struct port_monitor {
	struct ports_io io;
	const char *root;
	int nl;                  /* rtnetlink socket, -1 none */
	bool started;
	double tick_at, scan_at, gid_at, full_at;
	double recheck_at[2];    /* GID entries again after an address event */
	double full_due;         /* and the whole tables once its GID work is done */
	struct addr_event addr[ADDR_EVENTS];
	int naddr;
	int n;
	struct port_snap p[PORTS_MAX];
	/* the kernel's async events (ports_kernel_event): armed now, how many
	 * named a port this monitor could not find */
	bool kernel;
	unsigned long kunmatched;
	unsigned long full;      /* the most ports left out at once (the table full) */
	unsigned long busy;      /* records said at once, holders unknown: PENDING_MAX waited */
	bool full_said;          /* said once on stderr */
	char source[200];
	struct record_port_change rec; /* the one being built */
	struct rdmares_query *q; /* NULL with io.holders (or out of memory) */
	struct pending *pend;    /* a ring of PENDING_MAX */
	int phead, npend;
	unsigned long seq;
};

/* ---- sysfs ----------------------------------------------------------------------- */

static bool read_line(const char *root, const char *fmt, const char *a, unsigned b, const char *c,
		      char *buf, size_t len)
{
	char path[384];
	snprintf(path, sizeof(path), fmt, a, b, c);
	return !sr_read_line(root, path, buf, len);
}

/* "1: DOWN" -> "DOWN" */
static const char *state_word(const char *s)
{
	const char *c = strchr(s, ':');
	if (!c)
		return s;
	for (c++; *c == ' '; c++)
		;
	return c;
}

static void read_state(const char *root, struct port_snap *s, char *word, size_t len)
{
	char b[32];
	if (!read_line(root, IB "/%s/ports/%u/%s", s->dev, s->port, "state", b, sizeof(b)))
		snprintf(b, sizeof(b), "?");
	snprintf(word, len, "%.23s", state_word(b));
}

static long long read_hex(const char *root, const struct port_snap *s, const char *file)
{
	char b[32];
	if (!read_line(root, IB "/%s/ports/%u/%s", s->dev, s->port, file, b, sizeof(b)))
		return -1;
	return strtoll(b, NULL, 0);
}

static void read_counters(const char *root, const struct port_snap *s, unsigned long long *v, bool *have)
{
	char path[384];
	uint64_t x;

	for (size_t i = 0; i < NCOUNTERS; i++) {
		snprintf(path, sizeof(path), IB "/%s/ports/%u/counters/%s", s->dev, s->port, counter_files[i]);
		have[i] = !sr_read_u64(root, path, &x);
		v[i] = have[i] ? x : 0;
	}
	have[NCOUNTERS] = false;
	if (s->netdev[0]) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", s->netdev);
		have[NCOUNTERS] = !sr_read_u64(root, path, &x);
		v[NCOUNTERS] = have[NCOUNTERS] ? x : 0;
	}
}

/* the counters' values now and their growth since the last record */
static void counters_into(struct port_monitor *m, struct port_snap *s, struct record_port_change *c)
{
	unsigned long long v[NCOUNTERS + 1];
	bool have[NCOUNTERS + 1];

	read_counters(m->root, s, v, have);
	c->ncounters = 0;
	for (size_t i = 0; i <= NCOUNTERS && c->ncounters < PORT_COUNTERS_MAX; i++) {
		if (!have[i])
			continue;
		struct port_counter *k = &c->counters[c->ncounters++];
		snprintf(k->name, sizeof(k->name), "%s", i < NCOUNTERS ? counter_files[i] : "carrier_changes");
		k->value = v[i];
		k->delta = s->chave[i] ? (long long)(v[i] - s->cval[i]) : 0;
		s->cval[i] = v[i];
		s->chave[i] = true;
	}
}

/* why a RoCE port left ACTIVE: its interface set down, or up without carrier */
static const char *down_reason(const char *root, const struct port_snap *s)
{
	char path[128], b[32];
	uint64_t flags, carrier;

	if (strcmp(s->link_layer, "Ethernet"))
		return "port_err";
	if (!s->netdev[0])
		return "unknown";
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", s->netdev);
	if (sr_read_line(root, path, b, sizeof(b)))
		return "unknown";
	flags = strtoull(b, NULL, 0);
	if (!(flags & 0x1)) /* IFF_UP */
		return "admin_down";
	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", s->netdev);
	if (sr_read_u64(root, path, &carrier) || !carrier)
		return "carrier_lost";
	return "unknown";
}

/* ---- who held QPs on it ------------------------------------------------------------ */

static void attribute_proc(const char *root, struct port_affected *a)
{
	struct proc_context *ctx = proc_context_alloc(a->pid);
	struct nccl_lib *lib = calloc(1, sizeof(*lib));
	struct nccl_rank rank;

	if (ctx && !proc_context_read(root, a->pid, ctx)) {
		/* the cgroup's job is a fact, the environment's a claim */
		struct job_claim jc;
		job_claim_resolve(ctx->slurm_job, job_claim_parse(proc_env_get(&ctx->env, "SLURM_JOB_ID")), &jc);
		a->slurm_job = jc.job;
		a->job_source = jc.source;
		a->job_claimed = jc.contradicting;
		snprintf(a->pod_uid, sizeof(a->pod_uid), "%s", ctx->pod_uid);
		snprintf(a->container, sizeof(a->container), "%s", ctx->container_id);
		nccl_rank_from_env(&ctx->env, &rank);
		a->rank = rank.rank;
	}
	if (lib && !nccl_lib_detect(root, a->pid, lib) && lib->found) {
		a->nccl_mapped = true;
		if (lib->version_known)
			snprintf(a->nccl, sizeof(a->nccl), "%s", lib->version);
	}
	free(lib);
	free(ctx);
}

static struct port_snap *snap_of(struct port_monitor *m, const char *dev, unsigned port)
{
	for (int i = 0; i < m->n; i++)
		if (m->p[i].port == port && !strcmp(m->p[i].dev, dev))
			return &m->p[i];
	return NULL;
}

static void copy_affected(struct record_port_change *to, const struct record_port_change *from)
{
	to->affected_known = from->affected_known;
	to->affected_why = from->affected_why;
	to->naffected = from->naffected;
	to->affected_dropped = from->affected_dropped;
	to->affected_qps = from->affected_qps;
	memcpy(to->affected, from->affected, sizeof(to->affected));
}

/* The holders of the record's port, now that they can be said: the test's
 * hook, or the last answer of `rdma res`. */
static void affected_into(struct port_monitor *m, struct record_port_change *c)
{
	struct rdma_qp_holders h = { 0 };
	int rc = m->io.holders ? m->io.holders(c->device, c->port, &h)
	       : m->q	       ? rdmares_query_holders(m->q, c->device, c->port, &h)
			       : (h.why = RDMARES_WHY_MEMORY, -1);

	c->affected_known = rc == 0;
	c->affected_why = rc ? (h.why ? h.why : RDMARES_WHY_TOOL) : NULL;
	c->naffected = c->affected_dropped = c->affected_qps = 0;
	if (rc)
		return;
	c->affected_qps = h.qps;
	c->affected_dropped = h.dropped;
	for (int i = 0; i < h.n && c->naffected < PORT_AFFECTED_MAX; i++) {
		struct port_affected *a = &c->affected[c->naffected++];
		memset(a, 0, sizeof(*a));
		a->pid = h.h[i].pid;
		a->qps = h.h[i].qps;
		a->rank = a->slurm_job = a->job_claimed = -1;
		snprintf(a->comm, sizeof(a->comm), "%s", h.h[i].comm);
		(m->io.attribute ? m->io.attribute : attribute_proc)(m->root, a);
	}
}

/* ---- records that wait for the holders ---------------------------------------------- */

static struct pending *pend_at(struct port_monitor *m, int i)
{
	return &m->pend[(m->phead + i) % PENDING_MAX];
}

/* The entry's holders are known now: into its record, and into what
 * waits for them (the port's down record, a return, the held holders). */
static void resolve(struct port_monitor *m, struct pending *e)
{
	struct port_snap *s = snap_of(m, e->rec.device, e->rec.port);

	affected_into(m, &e->rec);
	if (e->how == HOLD) {
		if (s) {
			s->held = e->rec;
			s->held_at = e->at;
		}
		e->how = DONE;
		return;
	}
	/* the holders of the moment the address went, if some have left
	 * since (their QPs failed with it) */
	if (e->merge_held && s && s->held_at > 0 && e->at - s->held_at < 10 &&
	    s->held.affected_known && s->held.naffected > e->rec.naffected)
		copy_affected(&e->rec, &s->held);
	if (e->down) {
		if (s && s->down_at > 0 && s->down.ts_ns == e->rec.ts_ns)
			copy_affected(&s->down, &e->rec);
		for (int i = 0; i < m->npend; i++) {
			struct pending *r = pend_at(m, i);
			if (r->how == WAIT_DOWN && r->from == e->seq) {
				copy_affected(&r->rec, &e->rec);
				r->how = READY;
			}
		}
	}
	e->how = READY;
}

/* The records at the head that are ready, in order. */
static void emit_ready(struct port_monitor *m, ports_emit_fn emit, void *arg)
{
	while (m->npend > 0 && (pend_at(m, 0)->how == READY || pend_at(m, 0)->how == DONE)) {
		struct pending *e = pend_at(m, 0);
		if (e->how == READY)
			emit(arg, &e->rec);
		m->phead = (m->phead + 1) % PENDING_MAX;
		m->npend--;
	}
}

/* A record (or a hold) whose holders are asked now: said at once when they
 * are known and nothing waits before it, else queued until the run of
 * `rdma res` in progress answers.  The loop never waits for the tool. */
static void submit(struct port_monitor *m, const struct record_port_change *c, enum pending_how how,
		   bool down, bool merge_held, double now, ports_emit_fn emit, void *arg)
{
	struct pending *e;

	if (m->npend == PENDING_MAX) { /* bounded: said now, its holders unknown, counted */
		if (how == HOLD)
			return;
		m->busy++;
		m->rec = *c;
		m->rec.affected_known = false;
		m->rec.affected_why = RDMARES_WHY_BUSY;
		m->rec.naffected = m->rec.affected_dropped = m->rec.affected_qps = 0;
		emit(arg, &m->rec);
		return;
	}
	e = pend_at(m, m->npend++);
	e->rec = *c;
	e->how = how;
	e->seq = ++m->seq;
	e->from = 0;
	e->at = now;
	e->down = down;
	e->merge_held = merge_held;
	if (how == WAIT_DOWN) {
		/* the down it returns from still waits: its holders when it has them */
		for (int i = m->npend - 2; i >= 0 && !e->from; i--) {
			struct pending *d = pend_at(m, i);
			if (d->down && d->how == WAIT_RUN && d->rec.port == c->port &&
			    !strcmp(d->rec.device, c->device))
				e->from = d->seq;
		}
		if (!e->from)
			e->how = READY; /* the down's holders are in it already */
	} else if (how != READY && (m->io.holders || !m->q || rdmares_query_ask(m->q, now))) {
		resolve(m, e);
	}
	emit_ready(m, emit, arg);
}

/* Each turn of watch's loop, not only each tick: the tool's output read as
 * it comes, and the records its answer completes. */
static void pump(struct port_monitor *m, double now, ports_emit_fn emit, void *arg)
{
	if (!m->q || !rdmares_query_step(m->q, now))
		return;
	for (int i = 0; i < m->npend; i++) {
		struct pending *e = pend_at(m, i);
		if (e->how == WAIT_RUN || e->how == HOLD)
			resolve(m, e);
	}
	emit_ready(m, emit, arg);
}

/* ---- rtnetlink --------------------------------------------------------------------- */

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool note_addr(struct port_monitor *m, double now, const struct nlmsghdr *h)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	int len = (int)IFA_PAYLOAD(h);
	struct addr_event e = { .t = now, .deleted = h->nlmsg_type == RTM_DELADDR,
				.prefixlen = ifa->ifa_prefixlen };
	const void *addr = NULL;

	for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFA_LOCAL || (a->rta_type == IFA_ADDRESS && !addr))
			addr = RTA_DATA(a);
	if (!addr || !inet_ntop(ifa->ifa_family, addr, e.addr, sizeof(e.addr)))
		return false;
	if (!if_indextoname(ifa->ifa_index, e.ifname))
		snprintf(e.ifname, sizeof(e.ifname), "if%u", ifa->ifa_index);
	memmove(&m->addr[1], &m->addr[0], sizeof(m->addr[0]) * (ADDR_EVENTS - 1));
	m->addr[0] = e;
	if (m->naddr < ADDR_EVENTS)
		m->naddr++;
	return true;
}

static struct record_port_change *rec_start(struct port_monitor *m, const struct port_snap *s,
					    double now, const char *source);

/* An address left a netdev: who holds QPs on its ports now, for the
 * gid_change that follows (check_gids).  Address removals are rare. */
static void hold_for_addr(struct port_monitor *m, double now, ports_emit_fn emit, void *arg)
{
	for (int i = 0; i < m->n; i++) {
		struct port_snap *s = &m->p[i];
		if (!s->netdev[0] || strcmp(s->netdev, m->addr[0].ifname))
			continue;
		struct record_port_change *c = rec_start(m, s, now, "rtnetlink");
		submit(m, c, HOLD, false, false, now, emit, arg);
	}
}

/* Drains the socket: an address event brings the GID check forward (now,
 * and again once the kernel's GID work has run). */
static void nl_drain(struct port_monitor *m, double now, ports_emit_fn emit, void *arg)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	while ((n = recv(m->nl, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == RTM_NEWADDR || h->nlmsg_type == RTM_DELADDR) {
				if (note_addr(m, now, h) && h->nlmsg_type == RTM_DELADDR)
					hold_for_addr(m, now, emit, arg);
				m->recheck_at[0] = now + 0.05;
				m->recheck_at[1] = now + 1.5;
				m->full_due = now + 1.6;
			} else if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK) {
				m->recheck_at[0] = now + 0.05;
			}
		}
	}
	if (n < 0 && errno == ENOBUFS) /* missed some: look at everything */
		m->recheck_at[0] = now;
}

/* ---- the snapshot ---------------------------------------------------------------- */

static void snap_gids(struct port_monitor *m, struct port_snap *s)
{
	gid_table_read(m->root, s->dev, s->port, &s->gids);
	if (!s->netdev[0] && s->gids.n && s->gids.e[0].netdev[0])
		snprintf(s->netdev, sizeof(s->netdev), "%s", s->gids.e[0].netdev);
}

static void snap_new(struct port_monitor *m, struct port_snap *s, const char *dev, unsigned port)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dev, sizeof(s->dev), "%s", dev);
	s->port = port;
	read_line(m->root, IB "/%s/ports/%u/%s", dev, port, "link_layer", s->link_layer,
		  sizeof(s->link_layer));
	read_line(m->root, IB "/%s/ports/%u/%s", dev, port, "gid_attrs/ndevs/0", s->netdev,
		  sizeof(s->netdev));
	read_state(m->root, s, s->state, sizeof(s->state));
	s->active = !strcmp(s->state, "ACTIVE");
	snap_gids(m, s);
	s->lid = read_hex(m->root, s, "lid");
	s->sm_lid = read_hex(m->root, s, "sm_lid");
	read_counters(m->root, s, s->cval, s->chave);
}

static void scan(struct port_monitor *m)
{
	char **devs, **ports, pd[256];
	int nd = sr_list(m->root, IB, &devs);
	unsigned long left = 0;

	for (int i = 0; i < m->n; i++)
		m->p[i].seen = false;
	for (int i = 0; i < nd; i++) {
		snprintf(pd, sizeof(pd), IB "/%s/ports", devs[i]);
		int np = sr_list(m->root, pd, &ports);
		for (int j = 0; j < np; j++) {
			unsigned port = (unsigned)atoi(ports[j]);
			int k = 0;
			while (k < m->n && (strcmp(m->p[k].dev, devs[i]) || m->p[k].port != port))
				k++;
			if (k == m->n) {
				if (m->n == PORTS_MAX) {
					left++;
					continue;
				}
				snap_new(m, &m->p[m->n++], devs[i], port);
			}
			m->p[k].seen = true;
		}
		sr_free_names(ports, np);
	}
	sr_free_names(devs, nd);
	/* more ports than the table holds: the ones beyond have no records;
	 * counted (the stop record's ports_full, the metrics) and said once */
	if (left > m->full)
		m->full = left;
	if (left && !m->full_said) {
		fprintf(stderr,
			"mrtrace: %lu RDMA port%s not watched: the port monitor holds %d "
			"(no port_change records for %s; counted in ports_full)\n",
			left, left == 1 ? " is" : "s are", PORTS_MAX, left == 1 ? "it" : "them");
		m->full_said = true;
	}
	/* a device that went away takes its ports along */
	for (int i = 0; i < m->n;)
		if (!m->p[i].seen)
			m->p[i] = m->p[--m->n];
		else
			i++;
}

/* ---- records ------------------------------------------------------------------------ */

static struct record_port_change *rec_start(struct port_monitor *m, const struct port_snap *s,
					    double now, const char *source)
{
	struct record_port_change *c = &m->rec;

	memset(c, 0, sizeof(*c));
	c->ts_ns = (unsigned long long)(now * 1e9);
	c->source = source;
	snprintf(c->device, sizeof(c->device), "%s", s->dev);
	c->port = s->port;
	snprintf(c->link_layer, sizeof(c->link_layer), "%s", s->link_layer);
	snprintf(c->netdev, sizeof(c->netdev), "%s", s->netdev);
	c->down_ms = -1;
	c->gid_index = -1;
	return c;
}

static void state_changed(struct port_monitor *m, struct port_snap *s, const char *now_state,
			  double now, const char *source, ports_emit_fn emit, void *arg)
{
	bool active = !strcmp(now_state, "ACTIVE");
	struct record_port_change *c = rec_start(m, s, now, source);

	snprintf(c->state, sizeof(c->state), "%s", now_state);
	snprintf(c->previous, sizeof(c->previous), "%s", s->state);
	enum pending_how how = WAIT_RUN;
	bool down = false;
	if (s->active && !active) {
		c->reason = down_reason(m->root, s);
		counters_into(m, s, c);
		s->down = *c; /* its holders once known (resolve) */
		s->down_at = now;
		down = true;
	} else if (!s->active && active && s->down_at > 0) {
		/* the return: why it was down, for how long, who held QPs then */
		c->reason = s->down.reason;
		c->down_ms = (long long)((now - s->down_at) * 1000.0 + 0.5);
		snprintf(c->previous, sizeof(c->previous), "%s", s->down.state);
		copy_affected(c, &s->down);
		how = WAIT_DOWN; /* if the down still waits for them */
		counters_into(m, s, c);
		s->down_at = 0;
		s->full_at[0] = now + 1.0; /* its GIDs come back */
		s->full_at[1] = now + 3.0;
	} else {
		c->reason = active ? "port_active" : down_reason(m->root, s);
		counters_into(m, s, c);
	}
	submit(m, c, how, down, false, now, emit, arg);
	snprintf(s->state, sizeof(s->state), "%s", now_state);
	s->active = active;
	s->differ_since = 0;
}

/* the address behind a GID that went: what rtnetlink said, else the GID's own */
static void gid_address(struct port_monitor *m, const struct port_snap *s, const struct gid_entry *e,
			struct record_port_change *c)
{
	char a[INET6_ADDRSTRLEN];

	if (gid_is_ipv4(e->raw))
		inet_ntop(AF_INET, e->raw + 12, a, sizeof(a));
	else
		snprintf(a, sizeof(a), "%s", e->text);
	for (int i = 0; i < m->naddr; i++)
		if (m->addr[i].deleted && !strcmp(m->addr[i].addr, a)) {
			snprintf(c->address, sizeof(c->address), "%s/%d removed from %s", a,
				 m->addr[i].prefixlen, m->addr[i].ifname);
			c->source = "rtnetlink";
			return;
		}
	snprintf(c->address, sizeof(c->address), "%s no longer on %s", a,
		 e->netdev[0] ? e->netdev : s->netdev[0] ? s->netdev : "the interface");
}

static void check_gids(struct port_monitor *m, struct port_snap *s, double now, const char *source,
		       ports_emit_fn emit, void *arg)
{
	char path[384], line[128];
	bool changed = false;

	for (int i = 0; i < s->gids.n; i++) {
		const struct gid_entry *e = &s->gids.e[i];
		unsigned char raw[16];
		char text[GID_TEXT_MAX];
		if (!e->populated)
			continue;
		snprintf(path, sizeof(path), IB "/%s/ports/%u/gids/%d", s->dev, s->port, e->index);
		if (sr_read_line(m->root, path, line, sizeof(line)) || gid_parse(line, raw, text, sizeof(text)))
			memset(raw, 0, sizeof(raw));
		if (!memcmp(raw, e->raw, 16))
			continue;
		changed = true;
		/* a port that is down loses its GIDs with it: the flap's record says it */
		char st[24];
		read_state(m->root, s, st, sizeof(st));
		if (strcmp(st, "ACTIVE"))
			continue;
		static const unsigned char zero[16];
		struct record_port_change *c = rec_start(m, s, now, source);
		snprintf(c->state, sizeof(c->state), "%s", st);
		snprintf(c->previous, sizeof(c->previous), "%s", st);
		c->reason = "gid_change";
		c->gid_index = e->index;
		snprintf(c->old_gid, sizeof(c->old_gid), "%s", e->text);
		if (memcmp(raw, zero, 16))
			snprintf(c->new_gid, sizeof(c->new_gid), "%s", text);
		snprintf(c->gid_type, sizeof(c->gid_type), "%s", e->type);
		gid_address(m, s, e, c);
		counters_into(m, s, c);
		submit(m, c, WAIT_RUN, false, true, now, emit, arg);
	}
	if (changed)
		snap_gids(m, s);
}

/* Returns how many changes it recorded. */
static int check_lids(struct port_monitor *m, struct port_snap *s, double now, const char *source,
		      ports_emit_fn emit, void *arg)
{
	static const char *const what[2] = { "lid", "sm_lid" };
	long long *old[2] = { &s->lid, &s->sm_lid };
	int n = 0;

	if (strcmp(s->link_layer, "InfiniBand") || !s->active)
		return 0;
	for (int k = 0; k < 2; k++) {
		long long v = read_hex(m->root, s, what[k]);
		if (v < 0 || v == *old[k])
			continue;
		if (*old[k] > 0 && v > 0) {
			struct record_port_change *c = rec_start(m, s, now, source);
			snprintf(c->state, sizeof(c->state), "%s", s->state);
			snprintf(c->previous, sizeof(c->previous), "%s", s->state);
			c->reason = k ? "sm_change" : "lid_change";
			c->old_lid = *old[k];
			c->new_lid = v;
			counters_into(m, s, c);
			submit(m, c, WAIT_RUN, false, false, now, emit, arg);
			n++;
		}
		*old[k] = v;
	}
	return n;
}

void ports_tick(struct port_monitor *m, double now, ports_emit_fn emit, void *arg)
{
	pump(m, now, emit, arg);
	if (m->started && now < m->tick_at)
		return;
	m->tick_at = now + TICK_S - 0.005; /* a tick of the loop a little early still counts */
	if (m->nl >= 0)
		nl_drain(m, now, emit, arg);
	if (!m->started || now >= m->scan_at) {
		scan(m);
		m->scan_at = now + SCAN_S;
	}
	if (!m->started) {
		m->started = true;
		m->gid_at = now + GID_S;
		m->full_at = now + FULL_S;
		return;
	}
	for (int i = 0; i < m->n; i++) {
		struct port_snap *s = &m->p[i];
		char st[24];
		read_state(m->root, s, st, sizeof(st));
		if (!strcmp(st, s->state) || !strcmp(st, "?")) {
			s->differ_since = 0;
			continue;
		}
		/* the kernel's event says it, with the kernel as the source; sysfs
		 * only for what no event said within the grace (one missed) */
		if (m->kernel && !s->differ_since)
			s->differ_since = now;
		if (m->kernel && now - s->differ_since < KERNEL_GRACE_S)
			continue;
		state_changed(m, s, st, now, "sysfs", emit, arg);
	}
	/* the populated entries: every second, and soon after an address event */
	bool gids = now >= m->gid_at;
	for (int k = 0; k < 2; k++)
		if (m->recheck_at[k] && now >= m->recheck_at[k]) {
			m->recheck_at[k] = 0;
			gids = true;
		}
	bool full = now >= m->full_at;
	if (full)
		m->full_at = now + FULL_S;
	if (m->full_due && now >= m->full_due) {
		m->full_due = 0;
		full = true;
	}
	if (gids)
		m->gid_at = now + GID_S;
	for (int i = 0; i < m->n; i++) {
		struct port_snap *s = &m->p[i];
		bool due = full;
		for (int k = 0; k < 2; k++)
			if (s->full_at[k] && now >= s->full_at[k]) {
				s->full_at[k] = 0;
				due = true;
			}
		/* what went is said before the table is read again */
		if (gids || due) {
			check_gids(m, s, now, "sysfs", emit, arg);
			check_lids(m, s, now, "sysfs", emit, arg);
		}
		if (due && s->active)
			snap_gids(m, s); /* learn the entries that appeared */
	}
}

/* ---- the kernel's events ------------------------------------------------------------- */

/* the kernel's enum ib_event_type, as bpf/mrtrace.h names its device and
 * port events */
const char *ports_event_name(unsigned type)
{
	switch (type) {
	case MRT_IBEV_DEVICE_FATAL: return "device_fatal";
	case MRT_IBEV_PORT_ACTIVE: return "port_active";
	case MRT_IBEV_PORT_ERR: return "port_err";
	case MRT_IBEV_LID_CHANGE: return "lid_change";
	case MRT_IBEV_PKEY_CHANGE: return "pkey_change";
	case MRT_IBEV_SM_CHANGE: return "sm_change";
	case MRT_IBEV_CLIENT_REREGISTER: return "client_reregister";
	case MRT_IBEV_GID_CHANGE: return "gid_change";
	default: return NULL;
	}
}

void ports_set_kernel(struct port_monitor *m, bool armed)
{
	if (!m || m->kernel == armed)
		return;
	m->kernel = armed;
	for (int i = 0; i < m->n; i++)
		m->p[i].differ_since = 0;
}

/* A record of the port's state as it is, for an event that is no state
 * change (device fatal, P_Key, an SM without a new LID). */
static void event_record(struct port_monitor *m, struct port_snap *s, const char *reason, double now,
			 ports_emit_fn emit, void *arg)
{
	char st[24];
	struct record_port_change *c;

	read_state(m->root, s, st, sizeof(st));
	c = rec_start(m, s, now, "kernel");
	snprintf(c->state, sizeof(c->state), "%s", strcmp(st, "?") ? st : s->state);
	snprintf(c->previous, sizeof(c->previous), "%s", s->state);
	c->reason = reason;
	if (!strcmp(reason, "sm_change") || !strcmp(reason, "client_reregister")) {
		c->old_lid = c->new_lid = s->sm_lid;
	}
	counters_into(m, s, c);
	bool down = s->active && strcmp(c->state, "ACTIVE");
	if (down) { /* a device fatal takes the port down: its return says for how long */
		s->down = *c;
		s->down_at = now;
		snprintf(s->state, sizeof(s->state), "%s", c->state);
		s->active = false;
		s->differ_since = 0;
	}
	submit(m, c, WAIT_RUN, down, false, now, emit, arg);
}

void ports_kernel_event(struct port_monitor *m, const char *dev, unsigned port, unsigned type,
			double now, ports_emit_fn emit, void *arg)
{
	const char *name = ports_event_name(type);
	struct port_snap *s;
	int found = 0;

	if (!m || !name)
		return; /* not a device or port event (they come to a QP's own handler) */
	if (!m->started) /* the first tick takes the snapshot: this is in it */
		return;
	if (type == MRT_IBEV_DEVICE_FATAL) { /* the whole device: every port of it */
		for (int pass = 0; pass < 2 && !found; pass++) {
			if (pass)
				scan(m);
			for (int i = 0; i < m->n; i++)
				if (!strcmp(m->p[i].dev, dev)) {
					event_record(m, &m->p[i], "device_fatal", now, emit, arg);
					found++;
				}
		}
		if (!found)
			m->kunmatched++;
		return;
	}
	if (!(s = snap_of(m, dev, port))) {
		scan(m); /* a port that appeared since the last scan */
		if (!(s = snap_of(m, dev, port))) {
			m->kunmatched++;
			return;
		}
	}
	switch (type) {
	case MRT_IBEV_PORT_ERR:
		if (s->active) {
			char st[24];
			read_state(m->root, s, st, sizeof(st));
			if (!strcmp(st, "ACTIVE") || !strcmp(st, "?")) /* back already */
				snprintf(st, sizeof(st), "DOWN");
			state_changed(m, s, st, now, "kernel", emit, arg);
		}
		break;
	case MRT_IBEV_PORT_ACTIVE:
		if (!s->active)
			state_changed(m, s, "ACTIVE", now, "kernel", emit, arg);
		break;
	case MRT_IBEV_GID_CHANGE: /* the entries compared now: which went, which came */
		/* the address event behind it came first (the kernel updates its
		 * GID table from a work queue after the address went): read it
		 * now, so the record names the address and its holders then */
		if (m->nl >= 0)
			nl_drain(m, now, emit, arg);
		check_gids(m, s, now, "kernel", emit, arg);
		break;
	case MRT_IBEV_LID_CHANGE:
	case MRT_IBEV_SM_CHANGE:
	case MRT_IBEV_CLIENT_REREGISTER:
		/* the SM spoke without a new LID: said as it is */
		if (!check_lids(m, s, now, "kernel", emit, arg) && type != MRT_IBEV_LID_CHANGE)
			event_record(m, s, name, now, emit, arg);
		break;
	case MRT_IBEV_PKEY_CHANGE:
		event_record(m, s, "pkey_change", now, emit, arg);
		break;
	}
}

unsigned long ports_kernel_unmatched(const struct port_monitor *m)
{
	return m ? m->kunmatched : 0;
}

/* ---- open, close, say ------------------------------------------------------------- */

struct port_monitor *ports_open(const struct ports_io *io)
{
	struct port_monitor *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->io = *io;
	m->pend = calloc(PENDING_MAX, sizeof(*m->pend));
	m->q = io->holders ? NULL : rdmares_query_new("qp", io->rdma_deadline_s);
	if (!m->pend) {
		rdmares_query_free(m->q);
		free(m);
		return NULL;
	}
	m->root = io->root && *io->root ? io->root : "/";
	m->nl = io->netlink ? nl_open() : -1;
	snprintf(m->source, sizeof(m->source),
		 "sysfs ports/N/state every 0.1 s while RDMA devices exist (behind the "
		 "async_event site's events when it is armed), GID entries and LIDs every 1 s%s",
		 m->nl >= 0 ? "; rtnetlink link and address events" : " (rtnetlink refused: no "
								     "address events)");
	return m;
}

void ports_close(struct port_monitor *m)
{
	if (!m)
		return;
	if (m->nl >= 0)
		close(m->nl);
	rdmares_query_free(m->q);
	free(m->pend);
	free(m);
}

void ports_flush(struct port_monitor *m, double now, double grace_s, ports_emit_fn emit, void *arg)
{
	if (!m)
		return;
	/* a run in progress may answer within the grace; then it is killed */
	for (double t0 = now; rdmares_query_running(m->q) && now - t0 < grace_s;) {
		struct pollfd p = { .fd = rdmares_query_fd(m->q), .events = POLLIN };
		poll(&p, p.fd >= 0, 50);
		now = clock_mono_s();
		pump(m, now, emit, arg);
	}
	if (rdmares_query_cancel(m->q))
		pump(m, now, emit, arg);
	for (int i = 0; i < m->npend; i++) /* nothing waits any more */
		if (pend_at(m, i)->how != READY && pend_at(m, i)->how != DONE) {
			pend_at(m, i)->rec.affected_known = false;
			pend_at(m, i)->rec.affected_why = RDMARES_WHY_STOPPED;
			pend_at(m, i)->how = pend_at(m, i)->how == HOLD ? DONE : READY;
		}
	emit_ready(m, emit, arg);
}

int ports_wait_fd(const struct port_monitor *m)
{
	return m ? rdmares_query_fd(m->q) : -1;
}

const char *ports_source(const struct port_monitor *m)
{
	return m->source;
}

bool ports_kernel_armed(const struct port_monitor *m)
{
	return m && m->kernel;
}

bool ports_netlink_armed(const struct port_monitor *m)
{
	return m->nl >= 0;
}

int ports_count(const struct port_monitor *m)
{
	return m->n;
}

unsigned long ports_full(const struct port_monitor *m)
{
	return m ? m->full : 0;
}

unsigned long ports_waiting_full(const struct port_monitor *m)
{
	return m ? m->busy : 0;
}
