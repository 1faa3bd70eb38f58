// SPDX-License-Identifier: GPL-2.0-only
/* k8s.c - pod names from the kubelet's log directories (k8s.h). */
#include "proc/k8s.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/sysroot.h"

/* "ns_pod_uid" -> ns, pod when uid matches. */
static int split_pod_dir(const char *name, const char *uid, struct k8s_names *out)
{
	const char *u1 = strchr(name, '_');
	const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
	if (!u1 || !u2 || strcmp(u2 + 1, uid))
		return -1;
	if ((size_t)(u1 - name) >= sizeof(out->ns) || (size_t)(u2 - u1 - 1) >= sizeof(out->pod))
		return -1;
	snprintf(out->ns, sizeof(out->ns), "%.*s", (int)(u1 - name), name);
	snprintf(out->pod, sizeof(out->pod), "%.*s", (int)(u2 - u1 - 1), u1 + 1);
	return 0;
}

/* "<pod>_<ns>_<container>-<id>.log": the container's name, when pod, ns
 * and id match. */
static int container_from_link(const char *name, const struct k8s_names *n, const char *id,
			       char *out, size_t len)
{
	size_t nl = strlen(name), il = strlen(id), pl = strlen(n->pod), sl = strlen(n->ns);
	if (!il || nl < pl + sl + il + 8 || strcmp(name + nl - 4, ".log"))
		return -1;
	const char *dash = name + nl - 4 - il - 1;
	if (*dash != '-' || strncmp(dash + 1, id, il))
		return -1;
	if (strncmp(name, n->pod, pl) || name[pl] != '_' || strncmp(name + pl + 1, n->ns, sl) ||
	    name[pl + 1 + sl] != '_')
		return -1;
	const char *c = name + pl + sl + 2;
	if (c >= dash || (size_t)(dash - c) >= len)
		return -1;
	snprintf(out, len, "%.*s", (int)(dash - c), c);
	return 0;
}

int k8s_names_lookup(const char *root, const char *pod_uid, const char *container_id,
		     struct k8s_names *out)
{
	char uid[64], dir[600];
	char **names = NULL;
	int n, rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!pod_uid || !*pod_uid || strlen(pod_uid) >= sizeof(uid))
		return -EINVAL;
	/* the kubelet writes the UID with dashes */
	snprintf(uid, sizeof(uid), "%s", pod_uid);
	for (char *p = uid; *p; p++)
		if (*p == '_')
			*p = '-';

	n = sr_list(root, "/var/log/pods", &names);
	for (int i = 0; i < n && rc; i++)
		if (!split_pod_dir(names[i], uid, out)) {
			rc = 0;
			snprintf(dir, sizeof(dir), "/var/log/pods/%.500s", names[i]);
		}
	if (n > 0)
		sr_free_names(names, n);
	if (rc)
		return rc;

	/* the container: by its id in /var/log/containers, else the only one */
	if (container_id && *container_id) {
		n = sr_list(root, "/var/log/containers", &names);
		for (int i = 0; i < n && !out->container[0]; i++)
			container_from_link(names[i], out, container_id, out->container,
					    sizeof(out->container));
		if (n > 0)
			sr_free_names(names, n);
	}
	if (!out->container[0]) {
		n = sr_list(root, dir, &names);
		if (n == 1 && strlen(names[0]) < sizeof(out->container))
			snprintf(out->container, sizeof(out->container), "%s", names[0]);
		if (n > 0)
			sr_free_names(names, n);
	}
	return 0;
}
