/* SPDX-License-Identifier: GPL-2.0-only */
/* service.h - `mrtrace watch` as a node service: the options and the hooks
 * watch.c calls at its few decisive moments, so the service's outputs
 * (systemd notification, journald entries, Prometheus textfile, Kubernetes
 * and Slurm names, the version stamp, the capability diagnosis) live here
 * and in notify.c, journal.c, metrics.c, not in the tracing loop.
 *
 * Hooks, in the order watch.c calls them:
 *   service_args        first: the configuration file as options (config.h)
 *   service_root        "/" or --host-root, for every /proc and cgroup read
 *   service_cgroup      -c resolved through the host root
 *   service_arm_failed  nothing could be armed: name missing capabilities
 *   service_armed       sites armed: capabilities, metrics, READY=1
 *   service_report      each explained failure: journal entry, metrics
 *   service_annotate    a failure's JSON record: pod names, Slurm job
 *   service_stamp       every JSON record: schema and version
 *   service_tick        each poll round: counters, metrics file when due
 *   service_stopped     at the end: final metrics, STOPPING=1 */
#ifndef MRTRACE_WATCH_SERVICE_H
#define MRTRACE_WATCH_SERVICE_H

#include <argp.h>
#include <json-c/json.h>

#include "report/report.h"
#include "tracer/tracer.h"

/* The service options (--service, --journal, --metrics-textfile, ...), as
 * an argp child of watch's own table. */
extern const struct argp_child service_argp_children[];

/* Rewrites argc/argv with the configuration's options ([watch], and
 * [service] with --service) in front.  0, or 2 (usage error, said). */
int service_args(const struct argp *watch_argp, int *argc, char ***argv);

const char *service_root(void);
/* A relative cgroup (-c) becomes <host-root>/sys/fs/cgroup/<cgroup> with
 * --host-root; otherwise returned unchanged. */
const char *service_cgroup(const char *cgroup);

void service_arm_failed(const struct tracer *t);
void service_armed(const struct tracer *t);
void service_report(const struct report *r);
void service_annotate(struct json_object *o, const struct report *r);
void service_stamp(struct json_object *o);
void service_tick(const struct tracer *t);
void service_stopped(const struct tracer *t);

#endif
