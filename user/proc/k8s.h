/* SPDX-License-Identifier: GPL-2.0-only */
/* k8s.h - a Kubernetes pod's namespace, name and container name, from what
 * the node already has: no API server.
 *
 * The cgroup path gives the pod UID and the container ID (context.h).  The
 * kubelet names its log directories after them:
 *   /var/log/pods/<namespace>_<pod>_<pod-uid>/<container>/<restart>.log
 *   /var/log/containers/<pod>_<namespace>_<container>-<container-id>.log
 * Namespaces, pod and container names are DNS labels/subdomains, which
 * cannot contain '_', so splitting on it is exact. */
#ifndef MRTRACE_PROC_K8S_H
#define MRTRACE_PROC_K8S_H

#include <stddef.h>

struct k8s_names {
	char ns[64];
	char pod[254];
	char container[64]; /* "" when the container could not be told */
};

/* Looks below root (NULL or "/": the live node; "/host" in the DaemonSet).
 * pod_uid may use '-' or '_' (the systemd cgroup driver writes '_');
 * container_id may be "" (then the container is named only when the pod
 * has exactly one).  0 found (at least ns and pod), -ENOENT, -EINVAL. */
int k8s_names_lookup(const char *root, const char *pod_uid, const char *container_id,
		     struct k8s_names *out);

#endif
