// SPDX-License-Identifier: GPL-2.0-only
/* rdmares.c - QP holders from the kernel's resource tracking (rdmares.h). */
#include "proc/rdmares.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static long member(struct json_object *o, const char *k)
{
	struct json_object *x;
	return json_object_object_get_ex(o, k, &x) && json_object_is_type(x, json_type_int)
		       ? (long)json_object_get_int64(x) : -1;
}

int rdmares_parse_qp(const char *json, const char *device, unsigned port, struct rdma_qp_holders *out)
{
	struct json_object *a = json_tokener_parse(json);

	memset(out, 0, sizeof(*out));
	if (!a || !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *x;
		long pid = member(e, "pid"), p = member(e, "port");
		if (!json_object_is_type(e, json_type_object) || pid <= 0 ||
		    !json_object_object_get_ex(e, "ifname", &x) || !json_object_is_type(x, json_type_string) ||
		    strcmp(json_object_get_string(x), device) || (port && p >= 0 && (unsigned long)p != port))
			continue;
		out->qps++;
		int j = 0;
		while (j < out->n && out->h[j].pid != pid)
			j++;
		if (j == out->n) {
			if (out->n == (int)(sizeof(out->h) / sizeof(out->h[0]))) {
				out->dropped++;
				continue;
			}
			out->n++;
			out->h[j].pid = (int)pid;
			out->h[j].qps = 0;
			out->h[j].comm[0] = 0;
			if (json_object_object_get_ex(e, "comm", &x) && json_object_is_type(x, json_type_string))
				snprintf(out->h[j].comm, sizeof(out->h[j].comm), "%s", json_object_get_string(x));
		}
		out->h[j].qps++;
	}
	json_object_put(a);
	return 0;
}

int rdmares_qp_holders(const char *device, unsigned port, struct rdma_qp_holders *out)
{
	static char buf[1 << 18];
	size_t n;
	FILE *p = popen("rdma -j res show qp 2>/dev/null", "re");

	memset(out, 0, sizeof(*out));
	if (!p)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, p);
	int st = pclose(p);
	buf[n] = 0;
	/* no QP at all prints nothing: that is an answer when the tool succeeded */
	if (st == 0 && buf[strspn(buf, " \t\r\n")] == 0)
		return 0;
	return rdmares_parse_qp(buf, device, port, out);
}
