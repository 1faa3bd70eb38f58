// SPDX-License-Identifier: GPL-2.0-only
/* check_memlock_conf.c - where a *new* job's RLIMIT_MEMLOCK comes from, read
 * from configuration files rather than from any running process:
 *   - systemd: DefaultLimitMEMLOCK (system.conf and its drop-ins) and the
 *     LimitMEMLOCK of the units that start jobs (slurmd, containerd, ...);
 *   - pam_limits: /etc/security/limits.conf and limits.d (ssh sessions, and
 *     so mpirun's remote daemons);
 *   - Docker: default-ulimits in /etc/docker/daemon.json;
 *   - Slurm: PropagateResourceLimits, which hands the *submitting* shell's
 *     limit to the job.
 * Each reader reports what it found and where, so the text can say "8 MiB
 * (not set: systemd's built-in default)" rather than a bare number. */
#include "check/check.h"
#include "core/sysroot.h"
#include "core/units.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CONF_MAX 65536

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t l = strlen(s);
	while (l && isspace((unsigned char)s[l - 1]))
		s[--l] = '\0';
	return s;
}

int chk_parse_systemd_limit(const char *v, uint64_t *soft, uint64_t *hard)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	char *s = trim(buf);
	/* systemd accepts "SOFT:HARD" or one value for both. */
	char *colon = strchr(s, ':');
	if (colon) {
		*colon = '\0';
		return (parse_bytes(trim(s), soft) || parse_bytes(trim(colon + 1), hard)) ? -1 : 0;
	}
	if (parse_bytes(s, soft))
		return -1;
	*hard = *soft;
	return 0;
}

/* Applies every "Key=value" line of one file (sections are not tracked: the
 * keys we look for exist in one section only).  Later lines win, like
 * systemd's own parser. */
static void apply_key(const char *root, const char *path, const char *key, struct chk_limit *out)
{
	static char text[CONF_MAX];
	if (sr_read_all(root, path, text, sizeof(text), NULL))
		return;
	size_t kl = strlen(key);
	char *save, *line = strtok_r(text, "\n", &save);
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		char *s = trim(line);
		if (*s == '#' || *s == ';' || strncmp(s, key, kl) || s[kl] != '=')
			continue;
		uint64_t so, h;
		if (!s[kl + 1]) {
			/* "Key=" resets to the default. */
			out->set = false;
			snprintf(out->source, sizeof(out->source), "%s (reset)", path);
		} else if (!chk_parse_systemd_limit(s + kl + 1, &so, &h)) {
			out->set = true;
			out->soft = so;
			out->hard = h;
			snprintf(out->source, sizeof(out->source), "%s", path);
		}
	}
}

/* Drop-in directories in systemd's priority order: a file name in an
 * earlier directory masks the same name in later ones; the survivors are
 * applied in file-name order. */
static void apply_dropins(const char *root, const char *const *dirs, const char *key,
			  struct chk_limit *out)
{
	char *names[128], *paths[128];
	int n = 0;
	for (int d = 0; dirs[d]; d++) {
		char **ls;
		int k = sr_list(root, dirs[d], &ls);
		for (int i = 0; i < k && n < 128; i++) {
			size_t l = strlen(ls[i]);
			if (l < 6 || strcmp(ls[i] + l - 5, ".conf"))
				continue;
			bool masked = false;
			for (int j = 0; j < n; j++)
				masked |= !strcmp(names[j], ls[i]);
			if (masked)
				continue;
			char p[512];
			snprintf(p, sizeof(p), "%s/%s", dirs[d], ls[i]);
			names[n] = strdup(ls[i]);
			paths[n] = strdup(p);
			if (!names[n] || !paths[n]) {
				free(names[n]);
				free(paths[n]);
				continue;
			}
			n++;
		}
		sr_free_names(ls, k);
	}
	/* insertion sort by file name: a handful of entries */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j]; names[j] = names[j - 1]; names[j - 1] = t;
			t = paths[j]; paths[j] = paths[j - 1]; paths[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		apply_key(root, paths[i], key, out);
		free(names[i]);
		free(paths[i]);
	}
}

void chk_systemd_default_memlock(const char *root, struct chk_limit *out)
{
	static const char *const dirs[] = {
		"/etc/systemd/system.conf.d", "/run/systemd/system.conf.d",
		"/usr/local/lib/systemd/system.conf.d", "/usr/lib/systemd/system.conf.d", NULL
	};
	memset(out, 0, sizeof(*out));
	out->exists = sr_exists(root, "/etc/systemd/system.conf") ||
		      sr_exists(root, "/usr/lib/systemd/system.conf") ||
		      sr_exists(root, "/run/systemd/system");
	apply_key(root, "/etc/systemd/system.conf", "DefaultLimitMEMLOCK", out);
	apply_dropins(root, dirs, "DefaultLimitMEMLOCK", out);
}

void chk_unit_memlock(const char *root, const char *unit, struct chk_limit *out)
{
	static const char *const unit_dirs[] = {
		"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
		"/usr/lib/systemd/system", "/lib/systemd/system", NULL
	};
	memset(out, 0, sizeof(*out));
	char p[512];
	for (int d = 0; unit_dirs[d] && !out->exists; d++) {
		snprintf(p, sizeof(p), "%s/%s", unit_dirs[d], unit);
		if (sr_exists(root, p)) {
			out->exists = true;
			apply_key(root, p, "LimitMEMLOCK", out);
		}
	}
	if (!out->exists)
		return;
	char dd[6][256];
	const char *dirs[6];
	int k = 0;
	for (int d = 0; unit_dirs[d] && k < 5; d++, k++) {
		snprintf(dd[k], sizeof(dd[k]), "%s/%s.d", unit_dirs[d], unit);
		dirs[k] = dd[k];
	}
	dirs[k] = NULL;
	apply_dropins(root, dirs, "LimitMEMLOCK", out);
}

int chk_parse_limits_conf(const char *text, const char *source, struct chk_limits_entry *out,
			  int max)
{
	int n = 0, lineno = 0;
	const char *p = text;
	while (*p && n < max) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) ? l : sizeof(line) - 1), p);
		p += l + (e ? 1 : 0);
		lineno++;
		char *h = strchr(line, '#');
		if (h)
			*h = '\0';
		char dom[64], type[16], item[32], val[64];
		if (sscanf(line, "%63s %15s %31s %63s", dom, type, item, val) != 4)
			continue;
		if (strcasecmp(item, "memlock"))
			continue;
		uint64_t v;
		/* limits.conf counts memlock in KiB; "unlimited"/"infinity"/-1 */
		if (!strcasecmp(val, "unlimited") || !strcasecmp(val, "infinity") || !strcmp(val, "-1"))
			v = UINT64_MAX;
		else {
			char *end;
			unsigned long long k = strtoull(val, &end, 10);
			if (*end || end == val)
				continue;
			v = k > UINT64_MAX / 1024 ? UINT64_MAX : k * 1024;
		}
		struct chk_limits_entry *en = &out[n++];
		memset(en, 0, sizeof(*en));
		snprintf(en->domain, sizeof(en->domain), "%s", dom);
		snprintf(en->type, sizeof(en->type), "%s", type);
		en->value = v;
		en->line = lineno;
		snprintf(en->source, sizeof(en->source), "%s", source);
	}
	return n;
}

int chk_limits_conf_read(const char *root, struct chk_limits_entry *out, int max)
{
	static char text[CONF_MAX];
	int n = 0;
	if (!sr_read_all(root, "/etc/security/limits.conf", text, sizeof(text), NULL))
		n += chk_parse_limits_conf(text, "/etc/security/limits.conf", out, max);
	char **ls;
	int k = sr_list(root, "/etc/security/limits.d", &ls);
	for (int i = 0; i < k && n < max; i++) {
		size_t l = strlen(ls[i]);
		/* pam_limits reads only *.conf from the directory */
		if (l < 6 || strcmp(ls[i] + l - 5, ".conf"))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "/etc/security/limits.d/%s", ls[i]);
		if (!sr_read_all(root, p, text, sizeof(text), NULL))
			n += chk_parse_limits_conf(text, p, out + n, max - n);
	}
	sr_free_names(ls, k);
	return n;
}

int chk_docker_default_memlock(const char *root, struct chk_limit *out)
{
	static char text[CONF_MAX];
	memset(out, 0, sizeof(*out));
	if (sr_read_all(root, "/etc/docker/daemon.json", text, sizeof(text), NULL))
		return -1;
	out->exists = true;
	snprintf(out->source, sizeof(out->source), "/etc/docker/daemon.json");
	json_object *doc = json_tokener_parse(text), *du, *ml, *v;
	if (!doc)
		return -2;
	if (json_object_object_get_ex(doc, "default-ulimits", &du) &&
	    json_object_object_get_ex(du, "memlock", &ml)) {
		/* Docker's -1 means unlimited, values are bytes. */
		int64_t s = json_object_object_get_ex(ml, "Soft", &v) ? json_object_get_int64(v) : 0;
		int64_t h = json_object_object_get_ex(ml, "Hard", &v) ? json_object_get_int64(v) : s;
		out->set = true;
		out->soft = s < 0 ? UINT64_MAX : (uint64_t)s;
		out->hard = h < 0 ? UINT64_MAX : (uint64_t)h;
	}
	json_object_put(doc);
	return 0;
}

int chk_slurm_propagates_memlock(const char *root, char *source, size_t len)
{
	static char text[CONF_MAX];
	static const char *const files[] = { "/etc/slurm/slurm.conf", "/etc/slurm-llnl/slurm.conf",
					     "/usr/local/etc/slurm.conf", NULL };
	for (int f = 0; files[f]; f++) {
		if (sr_read_all(root, files[f], text, sizeof(text), NULL))
			continue;
		snprintf(source, len, "%s", files[f]);
		/* Default PropagateResourceLimits=ALL: srun/sbatch copy the
		 * submitting shell's soft limits into the job. */
		int prop = 1;
		char *save, *line = strtok_r(text, "\n", &save);
		for (; line; line = strtok_r(NULL, "\n", &save)) {
			char *s = trim(line);
			if (*s == '#')
				continue;
			if (!strncasecmp(s, "PropagateResourceLimitsExcept=", 30)) {
				if (strcasestr(s + 30, "MEMLOCK") || strcasestr(s + 30, "ALL"))
					prop = 0;
			} else if (!strncasecmp(s, "PropagateResourceLimits=", 24)) {
				const char *v = s + 24;
				prop = !strncasecmp(v, "NONE", 4) ? 0 :
				       (!strncasecmp(v, "ALL", 3) || strcasestr(v, "MEMLOCK")) ? 1 : 0;
			}
		}
		return prop;
	}
	return -1;
}
