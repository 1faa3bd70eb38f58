// SPDX-License-Identifier: GPL-2.0-only
/* journal.c - journald's native protocol, written out (journal.h). */
#include "watch/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/version.h"
#include "proc/jobclaim.h"
#include "record/kind.h"

static void put(struct journal_entry *e, const void *p, size_t n)
{
	if (e->oom)
		return;
	if (e->len + n > e->cap) {
		size_t cap = e->cap ? e->cap : 1024;
		while (cap < e->len + n)
			cap *= 2;
		char *b = realloc(e->buf, cap);
		if (!b) {
			e->oom = 1;
			return;
		}
		e->buf = b;
		e->cap = cap;
	}
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

void journal_add(struct journal_entry *e, const char *name, const char *value)
{
	size_t vl = strlen(value);

	put(e, name, strlen(name));
	if (!memchr(value, '\n', vl)) {
		put(e, "=", 1);
		put(e, value, vl);
	} else {
		/* NAME\n, the length as 64-bit little endian, the bytes, \n */
		unsigned char le[8];
		uint64_t l = vl;
		for (int i = 0; i < 8; i++)
			le[i] = (unsigned char)(l >> (8 * i));
		put(e, "\n", 1);
		put(e, le, 8);
		put(e, value, vl);
	}
	put(e, "\n", 1);
}

void journal_addf(struct journal_entry *e, const char *name, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	journal_add(e, name, buf);
}

static int send_memfd(int sock, const struct sockaddr_un *sa, socklen_t salen,
		      const struct journal_entry *e)
{
	int fd = memfd_create("mrtrace-journal", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, e->buf, e->len) != (ssize_t)e->len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		int err = errno ? errno : EIO;
		close(fd);
		return -err;
	}
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct msghdr m = { .msg_name = (void *)sa, .msg_namelen = salen,
			    .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	ssize_t n = sendmsg(sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
	int err = errno;
	close(fd);
	return n < 0 ? -err : 0;
}

int journal_send(struct journal_entry *e, const char *socket_path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int rc = 0;

	if (!socket_path)
		socket_path = JOURNAL_SOCKET;
	if (e->oom || strlen(socket_path) >= sizeof(sa.sun_path)) {
		rc = e->oom ? -ENOMEM : -ENAMETOOLONG;
		goto out;
	}
	strcpy(sa.sun_path, socket_path);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	socklen_t salen = sizeof(sa);
	/* never waits: a journal that stops reading would otherwise hold
	 * watch's loop in unix_wait_for_peer (issue 24 row 1); its entry is
	 * lost instead, and the caller counts it */
	if (sendto(fd, e->buf, e->len, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sa, salen) < 0) {
		rc = -errno;
		if (rc == -EMSGSIZE || rc == -ENOBUFS)
			rc = send_memfd(fd, &sa, salen, e);
	}
	close(fd);
out:
	free(e->buf);
	memset(e, 0, sizeof(*e));
	return rc;
}

int journal_report(const char *socket_path, const struct record *rec)
{
	const struct report *r = rec->data;
	const struct mrt_event *ev = r->ev;
	const char *event = record_event_name(rec);
	struct journal_entry e = { 0 };
	char *text = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&text, &tlen);

	if (m) {
		report_print_text(m, r, false);
		fclose(m);
	}
	/* the explanation ends with a newline: journald keeps what it gets */
	while (text && tlen && text[tlen - 1] == '\n')
		text[--tlen] = 0;
	journal_add(&e, "MESSAGE", text && *text ? text : r->v.summary);
	free(text);
	journal_add(&e, "PRIORITY", record_journal_priority(rec));
	/* the JSON record's "severity", for pipelines that read the fields only */
	journal_add(&e, "MRTRACE_SEVERITY", record_severity(rec));
	/* fixed per event kind, so `journalctl MESSAGE_ID=...` finds them all */
	journal_add(&e, "MESSAGE_ID", record_message_id(rec));
	journal_add(&e, "SYSLOG_IDENTIFIER", "mrtrace");
	journal_add(&e, "MRTRACE_EVENT", event);
	journal_add(&e, "MRTRACE_CAUSE", cause_name(r->v.cause));
	journal_add(&e, "MRTRACE_OP", r->api ? r->api : "?");
	journal_add(&e, "MRTRACE_ERRNO", errno_name(r->v.err));
	journal_addf(&e, "MRTRACE_PID", "%u", ev->pid);
	journal_addf(&e, "MRTRACE_TID", "%u", ev->tid);
	if (ev->ns_pid) {
		journal_addf(&e, "MRTRACE_NS_PID", "%u", ev->ns_pid);
		journal_addf(&e, "MRTRACE_NS_TID", "%u", ev->ns_tid);
	}
	if (r->count) /* a storm summary: this many identical failures */
		journal_addf(&e, "MRTRACE_COUNT", "%llu", r->count);
	journal_add(&e, "MRTRACE_COMM", ev->comm);
	journal_addf(&e, "MRTRACE_UID", "%u", ev->uid);
	journal_add(&e, "MRTRACE_CERTAINTY", r->v.certainty == CERT_PROVEN ? "proven" : "inferred");
	journal_add(&e, "MRTRACE_SUMMARY", r->v.summary);
	journal_add(&e, "MRTRACE_VERSION", mrt_version());
	/* the job as the JSON record says it: a claim is marked one */
	struct job_claim jc;
	job_claim_resolve(r->ctx ? r->ctx->slurm_job : -1, r->have_slurm_job ? r->slurm_job : -1, &jc);
	if (jc.job >= 0) {
		journal_addf(&e, "MRTRACE_SLURM_JOB", "%ld", jc.job);
		journal_add(&e, "MRTRACE_SLURM_JOB_SOURCE", job_source_name(jc.source));
	}
	if (jc.contradicting >= 0)
		journal_addf(&e, "MRTRACE_SLURM_JOB_CLAIMED", "%ld", jc.contradicting);
	if (r->ctx && r->ctx->systemd_unit[0])
		journal_add(&e, "MRTRACE_SYSTEMD_UNIT", r->ctx->systemd_unit);
	if (r->ctx && r->ctx->container_id[0])
		journal_add(&e, "MRTRACE_CONTAINER_ID", r->ctx->container_id);
	if (r->k8s && r->k8s->pod[0]) {
		journal_add(&e, "MRTRACE_K8S_NAMESPACE", r->k8s->ns);
		journal_add(&e, "MRTRACE_K8S_POD", r->k8s->pod);
		if (r->k8s->container[0])
			journal_add(&e, "MRTRACE_K8S_CONTAINER", r->k8s->container);
	}
	return journal_send(&e, socket_path);
}
