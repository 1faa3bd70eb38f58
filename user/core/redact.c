// SPDX-License-Identifier: GPL-2.0-only
/* redact.c - credential-like words masked, command lines reduced to what
 * explains a registration (redact.h). */
#include "core/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- what a credential looks like ------------------------------------------ */

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t pl = strlen(p);
	return n >= pl && !memcmp(s, p, pl);
}

/* Vendors' token prefixes: the prefix and at least 16 more characters. */
static const char *const token_prefixes[] = {
	"ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-",
	"xoxa-", "xoxs-", "hf_", "sk-",
};

static bool b64_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '_' || c == '-' || c == '=';
}

/* "AKIA" or "ASIA" and 16 upper-case letters or digits: an AWS access key id */
static bool aws_key_id(const char *s, size_t n)
{
	if (n != 20 || (!has_prefix(s, n, "AKIA") && !has_prefix(s, n, "ASIA")))
		return false;
	for (size_t i = 4; i < n; i++)
		if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A run of base64 or hex characters that no name or number is made of:
 * 32 hex digits and more (hashes, hex keys), or 24 base64 characters and
 * more with digits and both cases (random keys).  '/' is left out: paths
 * would match. */
static bool random_run(const char *s, size_t n)
{
	bool digit = false, upper = false, lower = false, hex = true;

	if (n < 24)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!b64_char((char)c))
			return false;
		digit |= isdigit(c) != 0;
		upper |= isupper(c) != 0;
		lower |= islower(c) != 0;
		hex &= isxdigit(c) != 0;
	}
	return (hex && n >= 32) || (digit && upper && lower);
}

/* header.payload.signature: a JWT starts with eyJ ('{"' in base64url);
 * three long base64url segments that are random runs together are one too */
static bool jwt_like(const char *s, size_t n)
{
	const char *d1 = memchr(s, '.', n), *d2 = d1 ? memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - s)) : NULL;

	if (!d2 || memchr(d2 + 1, '.', n - (size_t)(d2 + 1 - s)))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '.' && !b64_char(s[i]))
			return false;
	if (has_prefix(s, n, "eyJ") && d1 - s >= 10 && d2 - d1 > 10)
		return true;
	/* the dots removed, what is left must look random */
	return n >= 40 && d1 - s >= 10 && d2 - d1 > 10 && n - (size_t)(d2 - s) > 10 &&
	       random_run(d1 + 1, (size_t)(d2 - d1 - 1));
}

/* Standard base64 has '/' too: a run of 32 characters and more of the
 * alphabet with '/' that changes between digit, upper and lower case as
 * often as random text does (a third of its characters and more; a path of
 * words changes once a word) - a key, not a path. */
static bool slashed_b64(const char *s, size_t n)
{
	int changes = 0, prev = 0;
	bool digit = false, upper = false, lower = false;

	if (n < 32 || *s == '/' || *s == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isalnum(c) && c != '+' && c != '/' && c != '=')
			return false;
		int cls = isdigit(c) ? 1 : isupper(c) ? 2 : islower(c) ? 3 : 0;
		digit |= cls == 1;
		upper |= cls == 2;
		lower |= cls == 3;
		changes += cls && prev && cls != prev;
		if (cls)
			prev = cls;
	}
	return digit && upper && lower && (size_t)changes * 3 >= n;
}

bool redact_secret_like(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(token_prefixes) / sizeof(token_prefixes[0]); i++)
		if (has_prefix(s, n, token_prefixes[i]) && n >= strlen(token_prefixes[i]) + 16)
			return true;
	return aws_key_id(s, n) || random_run(s, n) || jwt_like(s, n) || slashed_b64(s, n);
}

bool redact_secret_name(const char *s, size_t n)
{
	static const char *const words[] = {
		/* "pass": --pass, --passphrase, -passin, -passout (openssl) */
		"token", "secret", "pass", "pwd", "key", "auth", "credential", "cookie", "private",
	};
	char name[64];

	while (n && *s == '-')
		s++, n--;
	if (!n || n >= sizeof(name))
		return n != 0; /* a name that long is nobody's option: mask its value */
	for (size_t i = 0; i < n; i++)
		name[i] = (char)tolower((unsigned char)s[i]);
	name[n] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(name, words[i]))
			return true;
	return false;
}

/* ---- the output, never longer than its buffer ---------------------------------- */

struct out {
	char *buf;
	size_t len, cap; /* cap: bytes for text, the NUL not counted */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - o->len)
		n = o->cap - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* One piece of a word (between separators): itself, or the mask. */
static void put_piece(struct out *o, const char *s, size_t n)
{
	if (redact_secret_like(s, n))
		puts_(o, REDACT_MASK);
	else
		put(o, s, n);
}

/* A value: masked whole when it looks like a credential, else each piece
 * between '/', ':', '@', ',', ';', '?', '&' checked alone (a key inside a
 * path or a URL's query), and a URL's user:password@ masked. */
static void put_value(struct out *o, const char *s, size_t n)
{
	const char *scheme = NULL, *at = NULL;

	if (redact_secret_like(s, n)) {
		puts_(o, REDACT_MASK);
		return;
	}
	for (size_t i = 0; i + 3 <= n; i++)
		if (!memcmp(s + i, "://", 3)) {
			scheme = s + i + 3;
			break;
		}
	if (scheme) {
		for (const char *p = scheme; p < s + n && *p != '/'; p++)
			if (*p == '@')
				at = p;
	}
	if (at && memchr(scheme, ':', (size_t)(at - scheme))) {
		put(o, s, (size_t)(scheme - s));
		puts_(o, REDACT_MASK);
		n -= (size_t)(at - s);
		s = at;
	} else if (!scheme) {
		/* user:password@host without a scheme (scp, a DSN): the ':'
		 * before the first '@', no '/' before it */
		const char *a = memchr(s, '@', n), *colon = a ? memchr(s, ':', (size_t)(a - s)) : NULL;
		if (colon && colon > s && !memchr(s, '/', (size_t)(colon - s)) && a > colon + 1) {
			put(o, s, (size_t)(colon - s) + 1);
			puts_(o, REDACT_MASK);
			n -= (size_t)(a - s);
			s = a;
		}
	}
	/* a piece that names a secret before '=' or ':' masks the next one:
	 * a query's second parameter (?a=1&token=X), JSON ({"password":"X"}) */
	bool mask = false;
	while (n) {
		size_t k = strcspn(s, "/:@,;?&=");
		if (k > n)
			k = n;
		if (mask && k)
			puts_(o, REDACT_MASK);
		else
			put_piece(o, s, k);
		mask = k < n && (s[k] == '=' || s[k] == ':') && k && redact_secret_name(s, k);
		if (k < n)
			put(o, s + k, 1), k++;
		s += k, n -= k;
	}
}

/* One word of a string: NAME=value with a secret name keeps NAME= only;
 * any other value as put_value says.  *mask_next: this word was an option
 * whose name is a secret's (--token VALUE), so the next one is masked. */
static void put_word(struct out *o, const char *s, size_t n, bool *mask_next)
{
	const char *eq = memchr(s, '=', n);

	if (*mask_next) {
		*mask_next = false;
		if (n && *s != '-') {
			puts_(o, REDACT_MASK);
			return;
		}
	}
	if (eq && eq > s && redact_secret_like(s, (size_t)(eq - s))) {
		puts_(o, REDACT_MASK); /* base64's '=' padding, not a name */
	} else if (eq && eq > s && redact_secret_name(s, (size_t)(eq - s))) {
		put(o, s, (size_t)(eq - s) + 1);
		puts_(o, REDACT_MASK);
	} else if (eq && eq > s) {
		put(o, s, (size_t)(eq - s) + 1);
		put_value(o, eq + 1, n - (size_t)(eq - s) - 1);
	} else {
		put_value(o, s, n);
	}
	if (!eq && n > 1 && *s == '-' && redact_secret_name(s, n))
		*mask_next = true;
	/* {"password": "X"}: a key of JSON or YAML that names a secret */
	if (!eq && n > 1 && s[n - 1] == ':' && redact_secret_name(s, n - 1))
		*mask_next = true;
}

/* Runs fn over the words of s, rewritten into a copy and back into s. */
static void rewrite(char *s, size_t cap,
		    void (*fn)(struct out *o, const char *w, size_t n, void *st), void *st)
{
	struct out o;

	if (!cap)
		return;
	o.cap = cap - 1;
	o.len = 0;
	if (!(o.buf = malloc(cap))) {
		/* nothing kept is safe; the marker may be cut */
		snprintf(s, cap, "%s", REDACT_DROPPED);
		return;
	}
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, " ");
		if (n)
			fn(&o, p, n, st);
		p += n;
		if (*p)
			p++;
	}
	/* no space left before a word that was cut or dropped */
	while (o.len && o.buf[o.len - 1] == ' ')
		o.len--;
	memcpy(s, o.buf, o.len);
	s[o.len] = '\0';
	memset(o.buf, 0, cap); /* the copy held only what was kept, but still */
	free(o.buf);
}

static void text_word(struct out *o, const char *w, size_t n, void *st)
{
	if (o->len)
		put(o, " ", 1);
	put_word(o, w, n, st);
}

void redact_text(char *s, size_t cap)
{
	bool mask_next = false;

	rewrite(s, cap, text_word, &mask_next);
}

/* ---- command lines -------------------------------------------------------------- */

/* The launcher options kept, with how many arguments follow them when not
 * written --name=value.  Only what says how many processes run where and
 * through which transport: what a registration failure's explanation can
 * use (a rank per GPU, the NIC's binding), nothing that names data. */
static const struct {
	const char *name;
	int nargs;
} kept_opts[] = {
	{ "-m", 1 }, /* python -m torch.distributed.run */
	/* torchrun / torch.distributed.launch */
	{ "--nproc_per_node", 1 }, { "--nproc-per-node", 1 }, { "--nnodes", 1 },
	{ "--node_rank", 1 }, { "--node-rank", 1 }, { "--standalone", 0 },
	{ "--rdzv_backend", 1 }, { "--rdzv-backend", 1 }, { "--max_restarts", 1 },
	{ "--max-restarts", 1 }, { "--master_port", 1 }, { "--master-port", 1 },
	/* mpirun (Open MPI, MPICH, Hydra) */
	{ "-np", 1 }, { "-n", 1 }, { "-N", 1 }, { "-npernode", 1 }, { "--npernode", 1 },
	{ "-ppn", 1 }, { "--map-by", 1 }, { "--bind-to", 1 }, { "--mca", 2 }, { "-mca", 2 },
	/* srun */
	{ "--ntasks", 1 }, { "--ntasks-per-node", 1 }, { "--nodes", 1 }, { "--gpus", 1 },
	{ "--gpus-per-node", 1 }, { "--gpus-per-task", 1 }, { "--mpi", 1 }, { "--cpu-bind", 1 },
	/* deepspeed */
	{ "--num_gpus", 1 }, { "--num_nodes", 1 },
};

/* The commands whose options kept_opts names: elsewhere "-N" or "-n" mean
 * anything (mysql -N -pSECRET, ssh-keygen -N PASSPHRASE), so another
 * program's arguments are all dropped. */
static const char *const launchers[] = {
	"python", "torchrun", "mpirun", "mpiexec", "orterun", "prterun", "srun", "deepspeed",
	"horovodrun", "mpiexec.hydra",
};

static bool launcher(const char *w, size_t n)
{
	const char *b = w;
	for (size_t i = 0; i < n; i++)
		if (w[i] == '/')
			b = w + i + 1;
	size_t bl = n - (size_t)(b - w);
	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		size_t l = strlen(launchers[i]);
		/* python3, python3.11: the name and a version */
		if (bl >= l && !memcmp(b, launchers[i], l) &&
		    strspn(b + l, "0123456789.") == bl - l)
			return true;
	}
	return false;
}

struct cmd_state {
	int word;    /* 0: argv[0] */
	bool launcher; /* argv[0] is one of launchers[] */
	bool mca;    /* the option being kept is --mca NAME VALUE */
	int keep;    /* arguments still to keep: an option's values */
	bool dropped; /* the last argument was dropped (one marker per run) */
	bool x_next; /* the last one was mpirun's -x: keep an NCCL_ variable */
	bool mask_next;
};

static bool nccl_var(const char *w, size_t n)
{
	return has_prefix(w, n, "NCCL_") && n > 5;
}

/* How many arguments a kept option takes after it, or -1: not kept. */
static int kept_option(const char *w, size_t n, bool *inline_value)
{
	const char *eq = memchr(w, '=', n);
	size_t nl = eq ? (size_t)(eq - w) : n;

	*inline_value = eq != NULL;
	for (size_t i = 0; i < sizeof(kept_opts) / sizeof(kept_opts[0]); i++)
		if (strlen(kept_opts[i].name) == nl && !memcmp(kept_opts[i].name, w, nl))
			return eq ? 0 : kept_opts[i].nargs;
	return -1;
}

static void cmd_keep(struct out *o, struct cmd_state *c, const char *w, size_t n)
{
	if (o->len)
		put(o, " ", 1);
	put_word(o, w, n, &c->mask_next);
	c->dropped = false;
}

static void cmd_word(struct out *o, const char *w, size_t n, void *st)
{
	struct cmd_state *c = st;
	bool inl;
	int nargs;

	if (c->word++ == 0) {
		c->launcher = launcher(w, n);
		cmd_keep(o, c, w, n);
		return;
	}
	if (c->keep > 0) {
		/* --mca NAME VALUE: NAME may name a secret (an MCA password) */
		bool secret_value = c->mca && c->keep == 2 && redact_secret_name(w, n);
		c->keep--;
		cmd_keep(o, c, w, n);
		c->mask_next |= secret_value;
		return;
	}
	if (c->x_next) {
		c->x_next = false;
		if (nccl_var(w, n)) {
			cmd_keep(o, c, w, n);
			return;
		}
	} else if (n == 2 && !memcmp(w, "-x", 2)) {
		/* kept only with the NCCL_ variable it exports, dropped below
		 * otherwise (its marker covers the variable too) */
		c->x_next = true;
		cmd_keep(o, c, w, n);
		return;
	} else if (nccl_var(w, n) && memchr(w, '=', n)) {
		cmd_keep(o, c, w, n); /* env NCCL_IB_HCA=mlx5_0 python ... */
		return;
	} else if (c->launcher && (nargs = kept_option(w, n, &inl)) >= 0) {
		c->keep = nargs;
		c->mca = nargs == 2;
		cmd_keep(o, c, w, n);
		return;
	}
	if (!c->dropped) {
		if (o->len)
			put(o, " ", 1);
		puts_(o, REDACT_DROPPED);
	}
	c->dropped = true;
	c->mask_next = false;
}

void redact_cmdline(char *s, size_t cap)
{
	struct cmd_state c = { 0 };

	rewrite(s, cap, cmd_word, &c);
}
