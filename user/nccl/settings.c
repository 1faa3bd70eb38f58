// SPDX-License-Identifier: GPL-2.0-only
/* settings.c - the effective NCCL_* settings of a process and where each came
 * from (nccl.h; docs/context.md), and the way NCCL reads an integer
 * setting. */
#include "nccl/nccl.h"
#include "proc/jobfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Settings.  NCCL's initEnv (param.cc) runs once, before the first
 * parameter is read: it applies NCCL_CONF_FILE if set and non-empty (since
 * 2.23), else
 * ~/.nccl.conf (home from getpwuid(getuid())), then /etc/nccl.conf, each
 * line with setenv(name, value, 0).  Overwrite 0 means: the environment
 * wins, then the first file, then /etc.  Line rules: a line starting with
 * '#' is skipped, a line without '=' is skipped, the name is everything
 * before the first '=' (no trimming), the value everything after it minus
 * the '\n' (a '\r' stays).
 * ====================================================================== */

const char *nccl_source_name(enum nccl_source src)
{
	switch (src) {
	case NCCL_SRC_DEFAULT: return "default";
	case NCCL_SRC_ENV: return "environment";
	case NCCL_SRC_CONF_FILE: return "NCCL_CONF_FILE";
	case NCCL_SRC_USER_CONF: return "~/.nccl.conf";
	case NCCL_SRC_SYSTEM_CONF: return "/etc/nccl.conf";
	}
	return "unknown";
}

int nccl_source_from_name(const char *name)
{
	for (int s = NCCL_SRC_DEFAULT; s <= NCCL_SRC_SYSTEM_CONF; s++)
		if (!strcmp(nccl_source_name(s), name))
			return s;
	return -1;
}

const struct nccl_setting *nccl_setting_get(const struct nccl_settings *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

/* setenv(name, value, 0) */
static void settings_set(struct nccl_settings *s, const char *name, const char *value, size_t vl,
			 enum nccl_source src, const char *origin)
{
	for (int i = 0; i < s->n; i++) {
		if (!strcmp(s->v[i].name, name)) {
			s->v[i].overridden = true;
			return;
		}
	}
	if (s->n >= NCCL_MAX_SETTINGS) {
		s->truncated = true;
		s->dropped++;
		return;
	}
	struct nccl_setting *v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	if (vl >= sizeof(v->value)) {
		vl = sizeof(v->value) - 1;
		s->truncated = true;
		s->cut++;
	}
	memcpy(v->value, value, vl);
	v->value[vl] = '\0';
	v->source = src;
	snprintf(v->origin, sizeof(v->origin), "%s", origin ? origin : "");
}

static int valid_env_name(const char *n)
{
	if (!*n)
		return 0;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && *n != '_')
			return 0;
	return 1;
}

void nccl_settings_apply_conf(struct nccl_settings *s, const char *text, enum nccl_source src,
			      const char *origin)
{
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		const char *cur = line;
		line = eol ? eol + 1 : NULL;
		if (cur[0] == '#')
			continue;
		const char *eq = memchr(cur, '=', n);
		if (!eq)
			continue;
		char name[1024];
		size_t nl = (size_t)(eq - cur);
		if (nl >= sizeof(name))
			nl = sizeof(name) - 1;
		memcpy(name, cur, nl);
		name[nl] = '\0';
		if (!valid_env_name(name)) {
			/* NCCL still calls setenv with it ("NCCL_DEBUG " with a space),
			 * but no parameter reads that name. */
			if (strstr(name, "NCCL") && s->n_bad_names < 4) {
				snprintf(s->bad_names[s->n_bad_names], sizeof(s->bad_names[0]), "%.*s",
					 (int)sizeof(s->bad_names[0]) - 1, name);
				s->n_bad_names++;
			} else if (strstr(name, "NCCL")) {
				s->bad_names_dropped++;
			}
			continue;
		}
		if (strncmp(name, "NCCL_", 5))
			continue;	/* only NCCL's own settings are kept */
		settings_set(s, name, eq + 1, n - nl - 1, src, origin);
	}
}

/* NCCL's conf files are a few lines; /etc/passwd of a big site is MiBs. */
#define CONF_MAX (64 * 1024)
#define PASSWD_MAX (16 << 20)

/* Reads a file as the process would: through its root, relative names
 * from its working directory, with its credentials, regular files only
 * (proc/jobfile.h).  Returns a malloc'd NUL-terminated buffer, or NULL with
 * *err = -errno. */
static char *read_conf(const char *root, int pid, const char *file, size_t max, char *shown,
		       size_t shownlen, int *err)
{
	char *buf = NULL;
	snprintf(shown, shownlen, "%.*s", (int)shownlen - 1, file);
	*err = jobfile_read(root, pid, file, max, &buf, NULL);
	return *err ? NULL : buf;
}

static void free_conf(char *buf)
{
	if (buf) {
		explicit_bzero(buf, strlen(buf));	/* a conf file may hold more than NCCL_* */
		free(buf);
	}
}

/* Home directory of `uid` from <proc root>/etc/passwd, as getpwuid would
 * answer inside the process (a container has its own passwd). */
static int passwd_home(const char *root, int pid, long uid, char *home, size_t len)
{
	char shown[16];
	int err;
	char *buf = read_conf(root, pid, "/etc/passwd", PASSWD_MAX, shown, sizeof(shown), &err);
	if (!buf)
		return -1;
	int rc = -1;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		/* name:password:uid:gid:gecos:home:shell */
		char *f[7] = { 0 };
		char *p = l;
		int nf = 0;
		while (p && nf < 7)
			f[nf++] = strsep(&p, ":");
		if (nf < 6 || !*f[2])
			continue;
		char *end;
		long u = strtol(f[2], &end, 10);
		if (!*end && u == uid) {
			snprintf(home, len, "%s", f[5]);
			rc = 0;
			break;
		}
	}
	free_conf(buf);
	return rc;
}

int nccl_settings_read(const char *root, int pid, const struct ctx_env *env, long uid,
		       struct nccl_settings *out)
{
	return nccl_settings_read_for(root, pid, env, uid, NULL, out);
}

int nccl_settings_read_for(const char *root, int pid, const struct ctx_env *env, long uid,
			   const struct nccl_lib *lib, struct nccl_settings *out)
{
	memset(out, 0, sizeof(*out));
	/* NCCL_CONF_FILE arrived in 2.23; before that initEnv read only
	 * ~/.nccl.conf and /etc/nccl.conf. */
	bool knows_conf_file = true;
	if (lib && lib->version_known) {
		snprintf(out->nccl_version, sizeof(out->nccl_version), "%s", lib->version);
		knows_conf_file = lib->major > 2 || (lib->major == 2 && lib->minor >= 23);
	}
	const char *conf_file = NULL;
	if (env)
		out->env_dropped = env->dropped;
	if (env) {
		for (int i = 0; i < env->n; i++) {
			const struct ctx_env_var *v = &env->vars[i];
			if (strncmp(v->name, "NCCL_", 5))
				continue;
			settings_set(out, v->name, v->value, strlen(v->value), NCCL_SRC_ENV, "");
			out->cut += v->cut;
			if (!strcmp(v->name, "NCCL_CONF_FILE") && v->value[0])
				conf_file = v->value;
		}
	}
	if (conf_file && !knows_conf_file) {
		out->conf_file_ignored = true;
		conf_file = NULL;
	}
	char *text;
	int err;
	if (conf_file) {
		if ((text = read_conf(root, pid, conf_file, CONF_MAX, out->conf_file,
				      sizeof(out->conf_file), &err))) {
			out->conf_file_read = true;
			nccl_settings_apply_conf(out, text, NCCL_SRC_CONF_FILE, out->conf_file);
			free_conf(text);
		} else {
			out->conf_file_error = err;   /* NCCL skips it too: the lint says so */
		}
	} else if (uid >= 0) {
		char home[256], file[300];
		if (!passwd_home(root, pid, uid, home, sizeof(home))) {
			snprintf(file, sizeof(file), "%s/.nccl.conf", strcmp(home, "/") ? home : "");
			if ((text = read_conf(root, pid, file, CONF_MAX, out->user_conf,
					      sizeof(out->user_conf), &err))) {
				out->user_conf_read = true;
				nccl_settings_apply_conf(out, text, NCCL_SRC_USER_CONF, out->user_conf);
				free_conf(text);
			} else if (err != -ENOENT) {
				out->user_conf_error = err;
			}
		}
	}
	if ((text = read_conf(root, pid, "/etc/nccl.conf", CONF_MAX, out->system_conf,
			      sizeof(out->system_conf), &err))) {
		out->system_conf_read = true;
		nccl_settings_apply_conf(out, text, NCCL_SRC_SYSTEM_CONF, out->system_conf);
		free_conf(text);
	} else if (err != -ENOENT) {
		out->system_conf_error = err;
	}
	return 0;
}

/* strtoll(value, NULL, 0), as NCCL does (nccl.h) */
int nccl_parse_int(const char *v, long long *out, int *trailing)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 0);
	*trailing = *end != '\0';
	*out = x;
	return end == v || errno ? -1 : 0;
}
