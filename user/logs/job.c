// SPDX-License-Identifier: GPL-2.0-only
/* job.c - which job a line belongs to (logline.h, ev->job).
 *
 * Slurm's SLURM_JOB_ID is in the job's environment, not in its output, so
 * a merged log of two jobs (`cat slurm-*.out`, a console kept across runs)
 * says its job only where something printed it: the input's name (sbatch's
 * default `slurm-%j.out`, `slurm-%A_%a.out` of an array task, or a name
 * holding `job-12345`), srun's and salloc's own lines (`srun: job 12345
 * queued ...`, `salloc: Granted job allocation 12345`), slurmstepd's
 * `*** JOB 12345 ON node01 CANCELLED ***` (and the node it names), a
 * script that echoed `SLURM_JOB_ID=12345`, and journald's fields
 * (json.c).  The reader keeps the last one an input named for the lines
 * after it.
 *
 * The job is written as `mrtrace explain --jobs` writes it ("slurm job
 * 12345"), so that the two say the same job the same way. */
#include "logs/parse.h"

#include <stdio.h>
#include <string.h>

static bool dig(char c)
{
	return c >= '0' && c <= '9';
}

static const char *digits_end(const char *p, const char *end)
{
	while (p < end && dig(*p))
		p++;
	return p;
}

/* "12345" or "12345_7" (an array task) at s: its length, 0 none */
static size_t job_id_len(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && dig(*p) && p - s < 12)
		p++;
	if (p == s)
		return 0;
	if (p + 1 < end && *p == '_' && dig(p[1])) {
		const char *q = ++p;
		while (p < end && dig(*p) && p - q < 8)
			p++;
	}
	/* a number that goes on (more digits, a letter) is not a job id */
	if (p < end && (dig(*p) || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return 0;
	return (size_t)(p - s);
}

static void set_job(char *job, size_t len, const char *id, size_t n)
{
	snprintf(job, len, "slurm job %.*s", (int)n, id);
}

/* the id after lit when the line starts with it, 0 none */
static size_t after(const char *s, const char *end, const char *lit, const char **id)
{
	if (!log_starts(s, end, lit))
		return 0;
	*id = s + strlen(lit);
	return job_id_len(*id, end);
}

static bool host_char(char c)
{
	return dig(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '.' ||
	       c == '_';
}

/* the node of slurmstepd's line, p just after the job id (Slurm's
 * slurmstepd/req.c and step_terminate_monitor.c, "*** %s ON %s ..." with
 * %s "JOB %u" or "STEP <job>.<step>[+<het component>]"):
 *   *** JOB 123 ON node01 CANCELLED AT <time> DUE TO TIME LIMIT ***
 *   *** STEP 123.0 ON node01 FAILED (non-zero exit code or other failure mode) ***
 *   *** JOB 123 STEPD TERMINATED ON node01 AT <time> DUE TO ... ***
 * The node is the word right after the job or step and before the rest of
 * the line, nowhere else: " ON " anywhere on the line names no host. */
static void stepd_host(const char *p, const char *end, bool step, struct log_event *ev)
{
	if (step) {
		const char *q;
		if (p >= end || *p != '.' || (q = digits_end(p + 1, end)) == p + 1)
			return;
		p = q;
		if (p < end && *p == '+') {
			if ((q = digits_end(p + 1, end)) == p + 1)
				return;
			p = q;
		}
	}
	if (log_starts(p, end, " ON "))
		p += 4;
	else if (log_starts(p, end, " STEPD TERMINATED ON "))
		p += 21;
	else
		return;
	const char *h = p;
	while (p < end && host_char(*p))
		p++;
	/* the line goes on after the node: " CANCELLED", " FAILED", " AT" */
	if (p == h || p >= end || *p != ' ' || (size_t)(p - h) >= sizeof(ev->host))
		return;
	str_copy_n(ev->host, sizeof(ev->host), h, (size_t)(p - h));
}

bool log_parse_job(const char *s, const char *end, struct log_event *ev)
{
	static const char *const starts[] = {
		"srun: job ", /* queued and waiting / has been allocated resources */
		"salloc: Granted job allocation ",
		"salloc: job ",
		"Submitted batch job ",
		"SLURM_JOB_ID=",
		"SLURM_JOBID=",
		"export SLURM_JOB_ID=",
		"slurmstepd: error: *** JOB ",
		"slurmstepd: error: *** STEP ", /* 12345.0: the job is before the dot */
	};
	const char *id = NULL;
	size_t n = 0;

	if (s >= end || !memchr("sSe", *s, 3))
		return false;
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]) && !n; i++) {
		n = after(s, end, starts[i], &id);
	}
	if (!n)
		return false;
	set_job(ev->job, sizeof(ev->job), id, n);
	ev->kind = LOG_CONTEXT;
	ev->ctx = LOG_CTX_JOB;
	/* slurmstepd's cancel line names the node it ran on */
	bool step = log_starts(s, end, "slurmstepd: error: *** STEP ");
	if ((step || log_starts(s, end, "slurmstepd: error: *** JOB ")) && !ev->host[0])
		stepd_host(id + n, end, step, ev);
	return true;
}

void log_job_from_name(const char *path, char *job, size_t len)
{
	const char *base = path ? strrchr(path, '/') : NULL, *end, *p;
	size_t n;

	job[0] = '\0';
	if (!path)
		return;
	base = base ? base + 1 : path;
	end = base + strlen(base);
	/* sbatch's slurm-%j.out, slurm-%A_%a.out (and their rotations) */
	if (log_starts(base, end, "slurm-") && (n = job_id_len(base + 6, end)) &&
	    (base[6 + n] == '.' || !base[6 + n])) {
		set_job(job, len, base + 6, n);
		return;
	}
	/* a name the user chose with %j in it: "job-12345", "job_12345", "job.12345" */
	for (p = base; (p = log_find(p, end, "job")); p += 3) {
		if (p + 4 <= end && (p[3] == '-' || p[3] == '_' || p[3] == '.') &&
		    (n = job_id_len(p + 4, end))) {
			set_job(job, len, p + 4, n);
			return;
		}
	}
}
