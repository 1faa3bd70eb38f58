// SPDX-License-Identifier: GPL-2.0-only
/* rdmares.c - QP holders from the kernel's resource tracking (rdmares.h). */
#include "proc/rdmares.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

static long member(struct json_object *o, const char *k)
{
	struct json_object *x;
	return json_object_object_get_ex(o, k, &x) && json_object_is_type(x, json_type_int)
		       ? (long)json_object_get_int64(x) : -1;
}

void rdmares_holders_of(struct json_object *a, const char *device, unsigned port,
		       struct rdma_qp_holders *out)
{
	memset(out, 0, sizeof(*out));
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
}

/* The array, or NULL when the text is not one. */
static struct json_object *parse_array(const char *json)
{
	struct json_object *a = json_tokener_parse(json);

	if (a && json_object_is_type(a, json_type_array))
		return a;
	json_object_put(a);
	return NULL;
}

int rdmares_parse_qp(const char *json, const char *device, unsigned port, struct rdma_qp_holders *out)
{
	struct json_object *a = parse_array(json);

	memset(out, 0, sizeof(*out));
	if (!a) {
		out->why = RDMARES_WHY_JSON;
		return -1;
	}
	rdmares_holders_of(a, device, port, out);
	json_object_put(a);
	return 0;
}
