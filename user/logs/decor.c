// SPDX-License-Identifier: GPL-2.0-only
/* decor.c - what launchers, loggers and collectors put in front of a line:
 * Open MPI's `[1,12]<stdout>:`, srun's `12: `, pdsh's `node01: `, ISO 8601
 * and NCCL_DEBUG_TIMESTAMP's `[2026-12-01 10:00:00] ` stamps, syslog's and
 * journalctl's `Dec  1 10:00:00 host tag[pid]: `, the kernel's
 * `[   12.345678] `.  Stripped in any order and nesting (a Slurm log
 * collected by syslog), each giving who or when. */
#include "logs/parse.h"

#include <string.h>
#include <time.h>

static bool dig(char c)
{
	return c >= '0' && c <= '9';
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && dig(*p))
		p++;
	return p;
}

/* [jobid,rank]<stdout>: */
static const char *ompi(const char *s, const char *end, struct log_event *ev)
{
	if (s >= end || *s != '[')
		return NULL;
	const char *a = digits(s + 1, end);
	if (a == s + 1 || a >= end || *a != ',')
		return NULL;
	const char *b = digits(a + 1, end);
	if (b == a + 1 || b >= end || *b != ']')
		return NULL;
	const char *t = b + 1;
	if (!log_starts(t, end, "<stdout>:") && !log_starts(t, end, "<stderr>:"))
		return NULL;
	ev->rank = (int)log_num(a + 1, (size_t)(b - a - 1), 10);
	t += 9;
	return t < end && *t == ' ' ? t + 1 : t;
}

/* seconds since the epoch of a UTC civil date: the count of days by the
 * proleptic Gregorian rules (eras of 400 years), not timegm, which takes
 * the time zone's lock and tables on every line of a log that stamps each
 * one (issue 46: the reader at disk speed).  mon 1-12, day 1-31. */
static int64_t utc_seconds(int64_t year, int mon, int day, int hour, int min, int sec)
{
	year -= mon <= 2;
	int64_t era = (year >= 0 ? year : year - 399) / 400;
	int64_t yoe = year - era * 400;
	int64_t doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	return days * 86400 + hour * 3600 + min * 60 + sec;
}

/* 2026-12-01T10:00:00.123Z, 2026-12-01 10:00:00,123, +01:00; optional [ ] */
static const char *iso(const char *s, const char *end, struct log_event *ev)
{
	bool br = s < end && *s == '[';
	const char *p = s + br;
	if (end - p < 19 || !dig(p[0]) || !dig(p[3]) || p[4] != '-' || p[7] != '-' ||
	    (p[10] != 'T' && p[10] != ' ') || p[13] != ':' || p[16] != ':')
		return NULL;
	int64_t year = log_num(p, 4, 10);
	int mon = (int)log_num(p + 5, 2, 10), mday = (int)log_num(p + 8, 2, 10);
	int hour = (int)log_num(p + 11, 2, 10), min = (int)log_num(p + 14, 2, 10);
	int sec = (int)log_num(p + 17, 2, 10);
	int64_t ns = 0;
	p += 19;
	if (p < end && (*p == '.' || *p == ',')) {
		const char *f = ++p;
		int64_t scale = 1000000000;
		while (p < end && dig(*p)) {
			scale /= 10;
			ns += (*p - '0') * scale;
			p++;
			if (p - f > 9)
				break;
		}
		p = digits(p, end);
	}
	int64_t off = 0;
	if (p < end && *p == 'Z')
		p++;
	else if (end - p >= 6 && (*p == '+' || *p == '-') && p[3] == ':') {
		off = (log_num(p + 1, 2, 10) * 3600 + log_num(p + 4, 2, 10) * 60) * (*p == '-' ? -1 : 1);
		p += 6;
	}
	if (br) {
		if (p >= end || *p != ']')
			return NULL;
		p++;
	}
	if (p < end && *p != ' ')
		return NULL;
	/* a stamp past 2255 or before 1970 (a mangled line) is no time: its
	 * nanoseconds would not fit an int64_t (fuzz_logs: year 2492) */
	/* timegm's normalisation, kept: a month past 12 or a day past the
	 * month's end is carried, a month 0 is the December before */
	int64_t t;
	if (mon >= 1 && mon <= 12)
		t = utc_seconds(year, mon, mday, hour, min, sec) - off;
	else {
		struct tm tm = { .tm_year = (int)year - 1900, .tm_mon = mon - 1, .tm_mday = mday,
				 .tm_hour = hour, .tm_min = min, .tm_sec = sec };
		t = (int64_t)timegm(&tm) - off;
	}
	if (t >= 0 && t < 9000000000LL) {
		ev->has_time = true;
		ev->time_ns = t * 1000000000 + ns;
	}
	return p < end ? p + 1 : p;
}

/* [   12.345678] */
static const char *kstamp(const char *s, const char *end, struct log_event *ev)
{
	if (s >= end || *s != '[')
		return NULL;
	const char *p = s + 1;
	while (p < end && *p == ' ')
		p++;
	const char *a = digits(p, end);
	if (a == p || a >= end || *a != '.')
		return NULL;
	const char *b = digits(a + 1, end);
	if (b == a + 1 || b >= end || *b != ']')
		return NULL;
	/* UCX's "[1700000000.123456] [host:pid:tid]" is not the kernel's */
	if (b + 2 < end && b[1] == ' ' && b[2] == '[')
		return NULL;
	/* seconds since boot and a fraction of at most nanoseconds: anything
	 * longer is not the kernel's stamp (and would overflow) */
	if (a - p > 9 || b - a - 1 > 9)
		return NULL;
	int64_t frac = log_num(a + 1, (size_t)(b - a - 1), 10);
	for (long k = b - a - 1; k < 9; k++)
		frac *= 10;
	ev->has_boot_time = true;
	ev->boot_ns = log_num(p, (size_t)(a - p), 10) * 1000000000 + frac;
	b++;
	return b < end && *b == ' ' ? b + 1 : b;
}

/* dmesg -T's "[Mon Dec  1 10:00:00 2026] " */
static const char *ctime_stamp(const char *s, const char *end)
{
	if (end - s < 26 || s[0] != '[' || s[4] != ' ' || s[8] != ' ')
		return NULL;
	const char *c = memchr(s, ']', (size_t)(end - s) < 32 ? (size_t)(end - s) : 32);
	if (!c || c - s < 24 || c[-5] != ' ' || c[-8] != ':' || c[-11] != ':')
		return NULL;
	return c + 1 < end && c[1] == ' ' ? c + 2 : c + 1;
}

/* Dec  1 10:00:00 host tag[pid]: (syslog, journalctl's short format) */
static const char *syslog_prefix(const char *s, const char *end, struct log_event *ev, bool *kernel)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (end - s < 16 || s[3] != ' ')
		return NULL;
	bool month = false;
	for (int i = 0; i < 12 && !month; i++)
		month = !memcmp(s, months + 3 * i, 3);
	if (!month)
		return NULL;
	const char *p = s + 4;
	while (p < end && *p == ' ')
		p++;
	const char *d = digits(p, end);
	if (d == p || end - d < 10 || d[0] != ' ' || d[3] != ':' || d[6] != ':')
		return NULL;
	p = d + 9;
	if (p < end && *p == '.')
		p = digits(p + 1, end);
	if (p >= end || *p != ' ')
		return NULL;
	const char *h = p + 1, *he = memchr(h, ' ', (size_t)(end - h));
	if (!he)
		return NULL;
	const char *tag = he + 1, *te = log_find(tag, end, ": ");
	if (!te || memchr(tag, ' ', (size_t)(te - tag)))
		return NULL;
	str_copy_n(ev->host, sizeof(ev->host), h, (size_t)(he - h));
	if (log_starts(tag, te, "kernel"))
		*kernel = true;
	const char *br = memchr(tag, '[', (size_t)(te - tag));
	if (br)
		ev->pid = (int)log_num(br + 1, (size_t)(te - br - 1), 10);
	return te + 2;
}

/* srun --label's "12: " */
static const char *srun(const char *s, const char *end, struct log_event *ev)
{
	const char *p = s;
	while (p < end && *p == ' ')
		p++;
	const char *d = digits(p, end);
	if (d == p || d - p > 6 || end - d < 2 || d[0] != ':' || d[1] != ' ')
		return NULL;
	ev->rank = (int)log_num(p, (size_t)(d - p), 10);
	return d + 2;
}

static bool ends_with(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n >= l && !memcmp(s + n - l, lit, l);
}

/* pdsh/clush's "node01: " */
static const char *hostname(const char *s, const char *end, struct log_event *ev)
{
	static const char *const not_hosts[] = { "Error", "Warning", "libibverbs", "libfabric", "UDS",
						 "Traceback", "kernel", "mlx5", "mlx4", "NCCL",
						 "RuntimeError", "WARNING", "ERROR", "INFO", "Note" };
	const char *p = s;
	bool digit = false, upper_only = true;
	while (p < end && (dig(*p) || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-' ||
			   *p == '.' || *p == '_')) {
		digit |= dig(*p);
		upper_only &= !(*p >= 'a' && *p <= 'z');
		p++;
	}
	size_t n = (size_t)(p - s);
	if (!n || n >= 64 || end - p < 2 || p[0] != ':' || p[1] != ' ' || upper_only || !digit)
		return NULL;
	if (ends_with(s, n, "Error") || ends_with(s, n, "Exception") || ends_with(s, n, "Warning"))
		return NULL;
	for (size_t i = 0; i < sizeof(not_hosts) / sizeof(not_hosts[0]); i++)
		if (strlen(not_hosts[i]) == n && !memcmp(s, not_hosts[i], n))
			return NULL;
	str_copy_n(ev->host, sizeof(ev->host), s, n);
	return p + 2;
}

const char *log_strip(const char *s, const char *end, struct log_event *ev, bool *kernel)
{
	for (int round = 0; round < 8; round++) {
		const char *n;
		while (s < end && (*s == ' ' || *s == '\t') && round == 0)
			s++;
		if ((n = ompi(s, end, ev)) || (n = iso(s, end, ev)) ||
		    (n = syslog_prefix(s, end, ev, kernel)) || (n = srun(s, end, ev)) ||
		    (n = hostname(s, end, ev))) {
			s = n;
			continue;
		}
		if ((n = kstamp(s, end, ev)) || (n = ctime_stamp(s, end))) {
			*kernel = true;
			s = n;
			continue;
		}
		break;
	}
	return s;
}
