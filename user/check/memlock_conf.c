// SPDX-License-Identifier: GPL-2.0-only
/* memlock_conf.c - where a *new* job's RLIMIT_MEMLOCK comes from, read
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
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "core/strmap.h"
#include "core/units.h"

#include <ctype.h>
#include <limits.h>
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

/* ---- systemd's lookup (systemd.unit(5), "Unit File Load Path") ----------- */

/* The system manager's unit search path, highest priority first.  Debian
 * without merged /usr keeps vendor units in /lib/systemd/system. */
static const char *const unit_path[] = {
	"/etc/systemd/system.control", "/run/systemd/system.control", "/run/systemd/transient",
	"/run/systemd/generator.early", "/etc/systemd/system", "/etc/systemd/system.attached",
	"/run/systemd/system", "/run/systemd/system.attached", "/run/systemd/generator",
	"/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system",
	"/run/systemd/generator.late", NULL
};

struct strlist {
	char **v;
	int n, cap;
};

static int sl_add(struct strlist *l, const char *s)
{
	if (l->n == l->cap) {
		int c = l->cap ? l->cap * 2 : 16;
		char **nv = realloc(l->v, (size_t)c * sizeof(*nv));
		if (!nv)
			return -1;
		l->v = nv;
		l->cap = c;
	}
	if (!(l->v[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

static void sl_free(struct strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int by_base(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');
	return strcmp(x ? x + 1 : *(char *const *)a, y ? y + 1 : *(char *const *)b);
}

/* Every *.conf in dirs (given highest priority first): a file name in an
 * earlier directory masks the same name in later ones; the survivors are
 * applied in file-name order, wherever they live. */
static void apply_dropins(const char *root, const struct strlist *dirs, const char *key,
			  struct chk_limit *out)
{
	struct strlist files = { 0 };
	struct strmap seen = { 0 };
	for (int d = 0; d < dirs->n; d++) {
		char **ls;
		int k = sr_list(root, dirs->v[d], &ls);
		for (int i = 0; i < k; i++) {
			size_t l = strlen(ls[i]);
			if (l < 6 || strcmp(ls[i] + l - 5, ".conf"))
				continue;
			char p[PATH_MAX];
			snprintf(p, sizeof(p), "%s/%s", dirs->v[d], ls[i]);
			if (sl_add(&files, p))
				continue;
			const char *base = strrchr(files.v[files.n - 1], '/') + 1;
			if (strmap_add(&seen, base, files.n - 1) != files.n - 1) {
				free(files.v[--files.n]);   /* masked by a higher directory */
			}
		}
		sr_free_names(ls, k);
	}
	if (files.n > 1)
		qsort(files.v, (size_t)files.n, sizeof(*files.v), by_base);
	for (int i = 0; i < files.n; i++)
		apply_key(root, files.v[i], key, out);
	strmap_free(&seen);
	sl_free(&files);
}

/* The drop-in directory names for a unit, in systemd's order: the unit, its
 * template (foo@.service for foo@bar.service), then each dash prefix
 * (a-b-.service, a-.service for a-b-c.service), recursively for each. */
static void dropin_names(const char *name, struct strlist *out)
{
	sl_add(out, name);
	const char *at = strchr(name, '@'), *dot = strrchr(name, '.');
	if (!dot)
		return;
	if (at && at + 1 < dot) {
		char tmpl[256];
		snprintf(tmpl, sizeof(tmpl), "%.*s%s", (int)(at - name + 1), name, dot);
		dropin_names(tmpl, out);
	}
	/* the prefix is the part before '@' (or the type suffix) */
	char prefix[256];
	size_t pl = (size_t)((at ? at : dot) - name);
	if (pl >= sizeof(prefix))
		return;
	memcpy(prefix, name, pl);
	prefix[pl] = '\0';
	char *dash = strrchr(prefix, '-');
	if (dash && dash[1] == '\0') {   /* a trailing dash: chop it once */
		*dash = '\0';
		dash = strrchr(prefix, '-');
	}
	if (!dash || dash == prefix)
		return;
	dash[1] = '\0';
	char up[300];   /* keeps the instance: a-@i.service */
	snprintf(up, sizeof(up), "%s%.*s%s", prefix, at ? (int)(dot - at) : 0, at ? at : "", dot);
	dropin_names(up, out);
}

void chk_systemd_default_memlock(const char *root, struct chk_limit *out)
{
	static const char *const mains[] = {
		"/etc/systemd/system.conf", "/run/systemd/system.conf",
		"/usr/local/lib/systemd/system.conf", "/usr/lib/systemd/system.conf", NULL
	};
	static const char *const dirs[] = {
		"/etc/systemd/system.conf.d", "/run/systemd/system.conf.d",
		"/usr/local/lib/systemd/system.conf.d", "/usr/lib/systemd/system.conf.d", NULL
	};
	memset(out, 0, sizeof(*out));
	/* the main file: the first one that exists (systemd 256+ ships its
	 * defaults in /usr/lib/systemd/system.conf) */
	for (int i = 0; mains[i] && !out->exists; i++)
		if (sr_exists(root, mains[i])) {
			out->exists = true;
			apply_key(root, mains[i], "DefaultLimitMEMLOCK", out);
		}
	out->exists |= sr_exists(root, "/run/systemd/system");
	struct strlist dl = { 0 };
	for (int i = 0; dirs[i]; i++)
		sl_add(&dl, dirs[i]);
	apply_dropins(root, &dl, "DefaultLimitMEMLOCK", out);
	sl_free(&dl);
}

void chk_unit_memlock(const char *root, const char *unit, struct chk_limit *out)
{
	memset(out, 0, sizeof(*out));
	struct strlist names = { 0 }, dirs = { 0 };
	dropin_names(unit, &names);
	char p[PATH_MAX];
	/* the unit file: the first search-path directory that has it (or its
	 * template) */
	for (int d = 0; unit_path[d] && !out->exists; d++)
		for (int k = 0; k < names.n && k < 2 && !out->exists; k++) {
			if (k == 1 && !strchr(names.v[1], '@'))
				break;
			snprintf(p, sizeof(p), "%s/%s", unit_path[d], names.v[k]);
			if (sr_exists(root, p)) {
				out->exists = true;
				apply_key(root, p, "LimitMEMLOCK", out);
			}
		}
	if (!out->exists) {
		sl_free(&names);
		return;
	}
	/* per search path: the unit's and its prefixes' directories; then the
	 * type's (service.d/), the most generic, in every path */
	for (int d = 0; unit_path[d]; d++)
		for (int k = 0; k < names.n; k++) {
			snprintf(p, sizeof(p), "%s/%s.d", unit_path[d], names.v[k]);
			sl_add(&dirs, p);
		}
	const char *type = strrchr(unit, '.');
	if (type && type[1])
		for (int d = 0; unit_path[d]; d++) {
			snprintf(p, sizeof(p), "%s/%s.d", unit_path[d], type + 1);
			sl_add(&dirs, p);
		}
	apply_dropins(root, &dirs, "LimitMEMLOCK", out);
	sl_free(&names);
	sl_free(&dirs);
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
