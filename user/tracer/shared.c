// SPDX-License-Identifier: GPL-2.0-only
/* shared.c - the maps, fork follower and .rodata every BPF object shares
 * (shared.h).  The first object that loads owns the maps; the ones after
 * it are handed their fds before they load, so user space reads one ring
 * buffer and sums one counter map whichever objects are armed. */
#include "tracer/shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/pages.h"

static const char *const shared_names[SHARED_MAPS] = {
	[SHARED_EVENTS] = "events",
	[SHARED_COUNTERS] = "counters",
	[SHARED_WATCHED] = "watched_tgids",
	[SHARED_CGROUP] = "cgroup_filter",
	[SHARED_STORMS] = "storms",
	[SHARED_STORM_ACKS] = "storm_acks",
	[SHARED_FOLD_NOTES] = "fold_notes",
	[SHARED_ENVIRONS] = "environs",
};

/* Every object carries one pair (MRT_FORK_FOLLOWER, bpf/common.bpf.h). */
#define FORK_SEC "raw_tracepoint/sched_process_fork"
#define EXIT_SEC "tracepoint/sched/sched_process_exit"

void tracer_shared_init(struct tracer_shared *s, const struct tracer_opts *o)
{
	for (int i = 0; i < SHARED_MAPS; i++)
		s->fd[i] = -1;
	s->fork = NULL;
	s->exit = NULL;
	s->opts = o;
}

void tracer_shared_close(struct tracer_shared *s)
{
	bpf_link__destroy(s->fork);
	bpf_link__destroy(s->exit);
	s->fork = NULL;
	s->exit = NULL;
	for (int i = 0; i < SHARED_MAPS; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

bool tracer_shared_is(const char *name)
{
	for (int i = 0; i < SHARED_MAPS; i++)
		if (!strcmp(shared_names[i], name))
			return true;
	return false;
}

static struct bpf_program *program_in(struct bpf_object *obj, const char *sec)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		if (!strcmp(bpf_program__section_name(p), sec))
			return p;
	return NULL;
}

static struct bpf_program *fork_follower(struct bpf_object *obj)
{
	return program_in(obj, FORK_SEC);
}

int tracer_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t len)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *m, *ro = NULL;
	size_t size = 0;
	const char *data;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__is_internal(m) && strstr(bpf_map__name(m), ".rodata"))
			ro = m;
	if (!btf || !ro || !(data = bpf_map__initial_value(ro, &size)))
		return -ENOENT;
	int sec = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	const struct btf_type *t = sec > 0 ? btf__type_by_id(btf, sec) : NULL;
	const struct btf_var_secinfo *vs = t ? btf_var_secinfos(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, vs++) {
		const struct btf_type *v = btf__type_by_id(btf, vs->type);
		if (strcmp(btf__name_by_offset(btf, v->name_off), var))
			continue;
		if (vs->size != len || vs->offset + len > size)
			return -EINVAL;
		/* the initial value is libbpf's (const to us): a copy, changed, set */
		char *copy = malloc(size);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, size);
		memcpy(copy + vs->offset, val, len);
		int e = bpf_map__set_initial_value(ro, copy, size);
		free(copy);
		return e;
	}
	return -ENOENT;
}

/* The .rodata of bpf/common.bpf.h. */
static void common_rodata(struct bpf_object *obj, const struct tracer_opts *o)
{
	int tgid = o->pid, shift = __builtin_ctzll(page_size());
	bool tree = o->follow_pid != 0, cgroup = o->cgroup != NULL;

	tracer_rodata_set(obj, "targ_tgid", &tgid, sizeof(tgid));
	tracer_rodata_set(obj, "filter_tgid_map", &tree, sizeof(tree));
	tracer_rodata_set(obj, "filter_cgroup", &cgroup, sizeof(cgroup));
	tracer_rodata_set(obj, "page_shift", &shift, sizeof(shift));
}

int tracer_shared_prepare(struct tracer_shared *s, struct bpf_object *obj)
{
	bool owner = s->fd[SHARED_EVENTS] < 0;
	struct bpf_program *fork = fork_follower(obj), *exit = program_in(obj, EXIT_SEC);

	common_rodata(obj, s->opts);
	if (fork)
		bpf_program__set_autoload(fork, owner && s->opts->follow_pid);
	if (exit)
		bpf_program__set_autoload(exit, owner && s->opts->follow_pid);
	if (owner)
		return 0;
	for (int i = 0; i < SHARED_MAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, shared_names[i]);
		int err = m ? bpf_map__reuse_fd(m, s->fd[i]) : -ENOENT;
		if (err)
			return err;
	}
	return 0;
}

/* Where cgroup v2 is mounted: /sys/fs/cgroup on unified hosts,
 * /sys/fs/cgroup/unified on hybrid ones. */
static void cgroup2_root(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[1024], type[64];

	snprintf(buf, len, "/sys/fs/cgroup");
	if (!f)
		return;
	while (fscanf(f, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			break;
		}
	fclose(f);
}

int tracer_cgroup_open(const char *cgroup, char *err, size_t errlen)
{
	char path[4096], root[1024];

	if (cgroup[0] == '/' && !access(cgroup, F_OK)) {
		snprintf(path, sizeof(path), "%s", cgroup);
	} else {
		cgroup2_root(root, sizeof(root));
		snprintf(path, sizeof(path), "%s/%s", root, cgroup[0] == '/' ? cgroup + 1 : cgroup);
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "cgroup %.200s: %s (give a cgroup v2 directory)", path,
			 strerror(errno));
	return fd;
}

/* Points the BPF_MAP_TYPE_CGROUP_ARRAY at a cgroup v2 directory given as a
 * path or relative to the cgroup2 mount. */
static int set_cgroup_filter(int map_fd, const char *cgroup, char *err, size_t errlen)
{
	__u32 zero = 0;
	int fd = tracer_cgroup_open(cgroup, err, errlen);

	if (fd < 0)
		return -1;
	int rc = bpf_map_update_elem(map_fd, &zero, &fd, BPF_ANY);
	close(fd);
	if (rc)
		snprintf(err, errlen, "cgroup filter %.200s: %s (cgroup v2 only)", cgroup,
			 strerror(errno));
	return rc ? -1 : 0;
}

int tracer_shared_adopt(struct tracer_shared *s, struct bpf_object *obj, char *err, size_t errlen)
{
	if (s->fd[SHARED_EVENTS] >= 0)
		return 0;
	for (int i = 0; i < SHARED_MAPS; i++) {
		int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, shared_names[i]));
		s->fd[i] = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (s->fd[i] < 0) {
			snprintf(err, errlen, "map %s: %s", shared_names[i], strerror(errno));
			return -1;
		}
	}
	if (s->opts->cgroup && set_cgroup_filter(s->fd[SHARED_CGROUP], s->opts->cgroup, err, errlen))
		return -1;
	if (s->opts->follow_pid) {
		struct bpf_program *fork = fork_follower(obj), *exit = program_in(obj, EXIT_SEC);
		s->fork = fork ? bpf_program__attach(fork) : NULL;
		if (!s->fork) {
			snprintf(err, errlen, "cannot follow forks (sched_process_fork): %s",
				 strerror(fork ? errno : ENOENT));
			return -1;
		}
		s->exit = exit ? bpf_program__attach(exit) : NULL;
		if (!s->exit) {
			snprintf(err, errlen, "cannot follow exits (sched_process_exit): %s",
				 strerror(exit ? errno : ENOENT));
			return -1;
		}
	}
	return 0;
}
