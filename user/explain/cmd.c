// SPDX-License-Identifier: GPL-2.0-only
/* cmd.c - `mrtrace explain FILE...`: the records `mrtrace watch --json`
 * wrote, explained again by this mrtrace's engine, as text or JSON lines.
 * For a record sent from another machine: the kernel evidence and what
 * /proc said travel in the record, the explanation is made here. */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "core/escape.h"
#include "core/outfile.h"
#include "record/port_change.h"
#include "record/record.h"
#include "explain/jobs.h"
#include "proc/jobclaim.h"
#include "explain/logs.h"
#include "explain/stream.h"
#include "logs/logline.h"
#include "mrtrace_docdir.h" /* MRTRACE_DOCDIR: where the docs are installed */
#include "verdict/names.h"

struct explain_args {
	bool json, verbose, all, jobs;
	char **files;
	int nfiles;
	/* the logs' failures: judged by which setting's limit, on whose facts */
	enum inferred_setting setting;
	const char *unit, *facts, *host;
	int pid;
};

static const char doc[] =
	"Explain recorded failures again, and the failures a job's log names.\n"
	"\n"
	"Reads the records `mrtrace watch --json` wrote (JSON Lines; pretty-printed JSON works "
	"too) and explains every failed registration and failed mlock in them again: the "
	"cause with its numbers, why, and the fixes for where the process ran, as `mrtrace "
	"watch` prints them. The usual case: a job failed on a node you cannot log in to; "
	"whoever ran `mrtrace watch --json -o events.jsonl` there sends you the file, and you "
	"run this on it (or run it after upgrading mrtrace, for the newer explanations).\n"
	"\n"
	"Carried from the record: the kernel's evidence (`raw`), the libibverbs call and "
	"whether NCCL was on its stack (`user_call`), what /proc said at the failure "
	"(`process`: memlock limits, VmPin/VmLck, CAP_IPC_LOCK, user namespace, the cgroup "
	"and with it the container, pod, systemd unit or Slurm job, the launchers) and NCCL "
	"(`nccl`: version, rank, settings, lint findings). So the fixes name the same systemd "
	"unit, container runtime, Slurm or mpirun setting as on the node.\n"
	"\n"
	"Not derived again: anything the record does not hold. The process's environment "
	"(never recorded), the user stack (the recorded caller is kept), the launchers' kinds "
	"beyond what their names say, the Slurm step unless the cgroup path names it, where "
	"each NCCL setting came from in records written before `setting_sources`, and the "
	"NCCL lint findings (kept as recorded). The /proc numbers are those of the failure, "
	"not of now; a record without `process` (hand-written, or stripped) gets the generic "
	"fixes.\n"
	"\n"
	"Port changes (port_change: a port down and back, a GID gone) are read back and said "
	"again. Lines that are not failures (start, stop, library_attached, memlock_limit_set) are "
	"skipped and counted; so are NCCL's harmless dma-buf probes (nccl_probe), unless --all. "
	"A malformed line is reported on stderr with its file and line number, and the other "
	"records are still explained. As in `watch`, text shows the first failure of a process "
	"and cause in full and repeats in one line (-v: all in full).\n"
	"\n"
	"With --jobs, the records of many nodes (several files, or one stream from a log "
	"pipeline) are grouped by job (Slurm job id, Kubernetes pod), ordered by wall time, "
	"and each job leads with its first kernel-evidenced cause - a port that went down, a "
	"GID that went (port_change), a failure the kernel proved - and how many processes on "
	"how many nodes failed after it.\n"
	"\n"
	"The logs a job left are read too, detected by content (mixed in one file or many, "
	"compressed with gzip or not): NCCL's debug output with the prefixes launchers add, "
	"the framework lines that wrap it, UCX, libfabric and rdma-core lines, the kernel log. "
	"Each failure a log names is judged without a kernel site: the call and errno, the "
	"causes whose kernel sites can refuse that call so, ranked by what this node says now "
	"(the facts `mrtrace check` reads, for the memlock limit of --setting), each verdict "
	"`inferred` with what it rests on, and the rerun that proves it under that setting "
	"(mrprobe for a registration, ib_send_bw with NCCL's QP and CQ depths, the GID entry "
	"NCCL used, an fallocate in /dev/shm) and the watch to leave on. A log from another "
	"host is judged from the log alone, or from --facts (that node's `check --json`); so is "
	"a line that names no host, unless --host says which node it came from (or -p names a "
	"process here). A kernel line and a line of context (NCCL's device, GPUDirect, a "
	"memlock limit) weigh only on the failures of their own host and job. The "
	"same failure on many ranks of one job is one verdict, led by the first in time; two "
	"jobs in one input (slurm-<id>.out names, srun's and slurmstepd's lines, journald's "
	"fields) are two. Every log line is counted: "
	"a failure, not a failure, or unrecognised (-v lists those); records inside a log are "
	"explained as records.\n"
	"\n"
	"Exit status, as grep's: 0 when a failure was found and explained (a record of "
	"one, or a failure a log names), 1 when none was (said on stderr: \"no failure "
	"found\"), 2 when a line was malformed or a file could not be read (the rest is "
	"still explained), or on a usage error."
	"\v"
	"Examples:\n"
	"  mrtrace explain events.jsonl                  text, as watch prints it\n"
	"  mrtrace explain --json events.jsonl | jq -r .cause\n"
	"  ssh node7 cat /var/tmp/events.jsonl | mrtrace explain -\n"
	"  mrtrace explain -v node*/events.jsonl         with the kernel trails\n"
	"  mrtrace explain --jobs node*/events.jsonl     which node's event killed the job\n"
	"  mrtrace explain --setting slurm slurm-1234.out  the job already died: its log\n"
	"  mrtrace explain --facts node7.json nccl.log dmesg.txt\n"
	"  mrtrace explain --host $(hostname) ib_write_bw.out  a log that names no host: this node's\n"
	"\n"
	"The record format is in " MRTRACE_DOCDIR "/json.md; which logs are read, and how, in "
	MRTRACE_DOCDIR "/logs.md.";

enum { OPT_JSON = 1000, OPT_ALL, OPT_JOBS, OPT_SETTING, OPT_UNIT, OPT_FACTS, OPT_HOST };

static const struct argp_option options[] = {
	{ "json", OPT_JSON, NULL, 0,
	  "One JSON object per record (the `watch --json` format, explained again)", 0 },
	{ "verbose", 'v', NULL, 0, "Every failure in full, with its kernel trail", 0 },
	{ "all", OPT_ALL, NULL, 0, "Also explain NCCL's harmless dma-buf probes", 0 },
	{ "jobs", OPT_JOBS, NULL, 0, "Group the records of many nodes by job, first cause first", 0 },
	{ "setting", OPT_SETTING, "SETTING", 0,
	  "Logs: judge by the memlock limit of slurm, docker, k8s, systemd or shell (default: "
	  "slurm when the log is Slurm's, else shell)", 0 },
	{ "unit", OPT_UNIT, "UNIT", 0, "Logs: the systemd unit the job ran under (--setting systemd)", 0 },
	{ "pid", 'p', "PID", 0, "Logs: judge by this process's limits (a rank of the next run)", 0 },
	{ "facts", OPT_FACTS, "FILE", 0,
	  "Logs: judge by another node's facts (its `mrtrace check --json`)", 0 },
	{ "host", OPT_HOST, "NAME", 0,
	  "Logs: the lines that name no host came from NAME (this node's name: judged by its "
	  "facts; without it they are judged from the log alone)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct explain_args *a = st->input;

	switch (key) {
	case OPT_JSON: a->json = true; break;
	case 'v': a->verbose = true; break;
	case OPT_ALL: a->all = true; break;
	case OPT_JOBS: a->jobs = true; break;
	case OPT_SETTING:
		if ((a->setting = inferred_setting_from_name(arg)) == INF_SET_UNKNOWN)
			argp_error(st, "--setting: slurm, docker, k8s, systemd or shell, not %s", arg);
		break;
	case OPT_UNIT:
		a->unit = arg;
		if (!a->setting)
			a->setting = INF_SET_SYSTEMD;
		break;
	case OPT_FACTS: a->facts = arg; break;
	case OPT_HOST:
		if (!*arg || strlen(arg) > 63 || strpbrk(arg, " \t/"))
			argp_error(st, "--host: a host name, not %s", arg);
		a->host = arg;
		break;
	case 'p': {
		char *end;
		long v = strtol(arg, &end, 10);
		if (*end || v <= 0 || v > INT_MAX)
			argp_error(st, "-p: a process id, not %s", arg);
		a->pid = (int)v;
		break;
	}
	case ARGP_KEY_ARG:
		a->files = &st->argv[st->next - 1];
		a->nfiles = st->argc - st->next + 1;
		st->next = st->argc;
		break;
	case ARGP_KEY_END:
		if (!a->nfiles)
			argp_error(st, "which file? (FILE.jsonl, or - for stdin)");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Lines skipped, by event name, for the closing tally. */
#define SKIP_NAMES 16

struct tally {
	unsigned long explained, harmless_hidden, malformed, setting_differs;
	/* failures found: records of a failure (not a harmless probe, not a
	 * port change) and the log's judged groups; exit 0 when any, else 1 */
	unsigned long found;
	int nskip;
	struct {
		char name[32];
		unsigned long n;
	} skip[SKIP_NAMES + 1]; /* the last one is "other" */
};

static void count_skip(struct tally *t, const char *event)
{
	int i;

	for (i = 0; i < t->nskip; i++)
		if (!strcmp(t->skip[i].name, event))
			break;
	if (i == t->nskip) {
		if (t->nskip == SKIP_NAMES)
			i = SKIP_NAMES;
		else
			t->nskip++;
		snprintf(t->skip[i].name, sizeof(t->skip[i].name), "%s", i == SKIP_NAMES ? "other" : event);
	}
	t->skip[i].n++;
}

struct run {
	const struct explain_args *a;
	FILE *out; /* standard output through the output filter (core/outfile.h) */
	struct tally t;
	struct report_repeats repeats; /* per file: pids of different nodes collide */
	struct record_in rec;
	struct report r;
	struct jobs *jobs; /* --jobs: every record goes there instead (jobs.c) */
	struct explain_logs *logs; /* the logs' failures (logs.c) */
	struct log_counts lc;      /* every log line, summed over the inputs */
	char lc_first_file[128];   /* where the first unrecognised line was */
	bool any_log;
	bool in_journal; /* one_journal_entry is handing its record over */
};

/* One piece of output (a record, the --jobs grouping): built in memory,
 * then through the output filter in one write (core/outfile.h).  Opened
 * NULL: out of memory, said with what is not shown. */
struct piece {
	char *text;
	size_t len;
	FILE *m;
};

static FILE *piece_open(struct piece *p, const char *what)
{
	p->text = NULL;
	p->len = 0;
	if (!(p->m = open_memstream(&p->text, &p->len)))
		fprintf(stderr, "mrtrace explain: out of memory: %s not shown\n", what);
	return p->m;
}

static void piece_write(struct run *run, struct piece *p)
{
	fclose(p->m);
	outfile_record(run->out, p->text, p->len);
	free(p->text);
}

/* Written as watch writes it: through the same filter (valid UTF-8 in
 * JSON, no control character in text), each record in one write, with
 * the record's own envelope (when, where, by which build) kept. */
static void output(struct run *run)
{
	struct report *r = &run->r;
	const struct record_envelope *env = &run->rec.env;
	struct record rec;
	struct piece p;
	FILE *m = piece_open(&p, "a record is");

	if (!m)
		return;
	if (run->a->json) {
		struct json_object *o = record_report_json(r);
		record_envelope_put(o, env);
		fprintf(m, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		/* a storm summary is the last of its count failures; the first
		 * record of its process and cause (the one that opened the
		 * storm rotated away) is shown in full all the same */
		unsigned long n = r->count ? (unsigned long)r->count : 1;
		unsigned long nth = report_repeats_add(&run->repeats, r->ev->pid, r->v.cause, n);
		char when[400] = "";
		if (env->time)
			snprintf(when, sizeof(when), "%s%s%s", env->time, env->host ? " on " : "",
				 env->host ? env->host : "");
		record_of_report(&rec, r, run->a->verbose || nth == n ? 1 : nth);
		record_print_text(m, &rec, run->a->verbose, when);
	}
	piece_write(run, &p);
}

/* A port or GID change: read back and said again by this mrtrace. */
static void one_port_change(struct run *run, const struct record_kind *k, struct json_object *o,
			    const char *file, long line)
{
	struct record_port_change c;
	struct record rec = { .kind = k, .data = &c };
	char err[256];

	if (port_change_from_json(o, &c, err, sizeof(err))) {
		fprintf(stderr, "mrtrace explain: %s:%ld: port_change record: %s\n", esc(file), line,
			esc(err));
		run->t.malformed++;
		return;
	}
	run->t.explained++;
	struct piece p;
	FILE *m = piece_open(&p, "a record is");
	if (!m)
		return;
	if (run->a->json) {
		struct json_object *j = record_to_json(&rec);
		fprintf(m, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
		json_object_put(j);
	} else {
		record_print_text(m, &rec, run->a->verbose, NULL);
	}
	piece_write(run, &p);
}

/* --jobs: the grouping, once every file is read, through the same filter. */
static void jobs_output(struct run *run)
{
	struct piece p;

	if (!piece_open(&p, "the jobs are"))
		return;
	jobs_print(run->jobs, run->a->json, p.m);
	piece_write(run, &p);
}

static void one_value(struct run *run, struct json_object *o, const char *file, long line);

/* A journald entry (`journalctl -o json`, a file or stdin) among JSON
 * values: what an input holds is decided per value, not by its first byte,
 * so a plain export is read as the log reader reads it inside a .gz: its
 * MESSAGE as a line, an MRTRACE_* entry as a record.  False: not one. */
static bool one_journal_entry(struct run *run, struct json_object *o, const char *file, long line)
{
	struct json_object *m;
	struct log_event *ev;
	const char *s;

	if (run->in_journal || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "MESSAGE", &m) ||
	    !(s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) ||
	    !(ev = malloc(sizeof(*ev))))
		return false;
	log_line_parse(s, strlen(s), ev);
	ev->input = file;
	ev->lineno = line;
	run->any_log = true;
	run->lc.lines++;
	switch (ev->kind) {
	case LOG_FAILURE_CALL:
	case LOG_FAILURE_NOCALL:
	case LOG_FAILURE_SUMMARY:
		run->lc.failures++;
		break;
	case LOG_UNRECOGNISED:
		if (!run->lc.unrecognised++) {
			run->lc.first_unrecognised_line = line;
			snprintf(run->lc.first_unrecognised, sizeof(run->lc.first_unrecognised), "%s", ev->raw);
			snprintf(run->lc_first_file, sizeof(run->lc_first_file), "%s", file);
		}
		break;
	case LOG_RECORD:
		run->lc.records++;
		break;
	default:
		run->lc.not_failures++;
	}
	if (ev->kind == LOG_RECORD && ev->json) {
		run->in_journal = true;
		one_value(run, ev->json, file, line);
		run->in_journal = false;
	} else {
		explain_logs_event(run->logs, ev);
	}
	/* log_line_parse hands a record's JSON over; no reader drops it here */
	if (ev->kind == LOG_RECORD)
		json_object_put(ev->json);
	free(ev);
	return true;
}

static void one_value(struct run *run, struct json_object *o, const char *file, long line)
{
	struct record_in *rec = &run->rec;
	const char *event;
	char err[256];
	const struct record_kind *k = record_kind_of_json(o, &event);

	if (!event && one_journal_entry(run, o, file, line))
		return;
	if (!event) {
		fprintf(stderr, "mrtrace explain: %s:%ld: %s\n", esc(file), line,
			json_object_is_type(o, json_type_object)
				? "no \"event\" member: not a record of `mrtrace watch --json`"
				: "not a JSON object");
		run->t.malformed++;
		return;
	}
	if (run->jobs && jobs_add(run->jobs, o)) {
		run->t.explained++;
		if (record_kind_readable(k) && !record_kind_is_probe(k))
			run->t.found++;
		return;
	}
	if (k == &record_kind_port_change) {
		one_port_change(run, k, o, file, line);
		return;
	}
	/* what is not a failure (start, stop, ...), and NCCL's probes unless --all */
	if (!record_kind_readable(k) || (record_kind_is_probe(k) && !run->a->all)) {
		count_skip(&run->t, event);
		return;
	}
	if (record_read(o, rec, err, sizeof(err))) {
		fprintf(stderr, "mrtrace explain: %s:%ld: %s record: %s\n", esc(file), line, esc(event),
			esc(err));
		run->t.malformed++;
		return;
	}
	record_explain(&run->r, &rec->ev, record_in_uev(rec), rec->have_ctx ? &rec->ctx : NULL,
		       rec->have_nccl ? &rec->nccl : NULL, rec->have_gates ? &rec->gates : NULL);
	run->r.ua = rec->ua;
	record_in_keep(&run->r, rec);
	if (run->r.v.harmless && !run->a->all) {
		run->t.harmless_hidden++;
		return;
	}
	if (rec->have_ctx && rec->setting[0]) {
		const char *now = ctx_setting_name(proc_context_setting(&rec->ctx));
		if (strcmp(now, rec->setting)) {
			fprintf(stderr,
				"mrtrace explain: %s:%ld: note: the record says the process ran as %s; "
				"what the record holds reads as %s, and the fixes are for that\n",
				esc(file), line, esc(rec->setting), now);
			run->t.setting_differs++;
		}
	}
	run->t.explained++;
	if (!run->r.v.harmless)
		run->t.found++;
	if (run->logs) {
		/* the record's job as the log reader names it (process.slurm_job;
		 * one its environment alone claims is named a claim there too) */
		struct json_object *proc, *jid, *src;
		char job[40] = "";
		if (json_object_object_get_ex(o, "process", &proc) &&
		    json_object_object_get_ex(proc, "slurm_job", &jid) && json_object_is_type(jid, json_type_int)) {
			bool claimed = json_object_object_get_ex(proc, "slurm_job_source", &src) &&
				       job_source_from_name(json_object_get_string(src)) == JOB_SOURCE_ENVIRONMENT;
			snprintf(job, sizeof(job), "slurm job %" PRId64 "%s", json_object_get_int64(jid),
				 claimed ? JOB_CLAIMED_SUFFIX : "");
		}
		explain_logs_watch(run->logs, rec->env.host, (long)rec->ev.pid, job,
				   cause_name(run->r.v.cause));
	}
	output(run);
}

/* A log (not records): every line through the log reader, its failures to
 * logs.c, records inside it to the record path. */
/* One event of a log, whatever read it */
static void one_log_event(struct run *run, struct log_event *ev, const char *name)
{
	if (ev->kind == LOG_RECORD && ev->json)
		one_value(run, ev->json, name, ev->lineno);
	else if (ev->kind == LOG_UNRECOGNISED && run->a->verbose)
		fprintf(stderr, "mrtrace explain: %s:%ld: unrecognised: %s\n", esc(name), ev->lineno,
			esc(ev->raw));
	else
		explain_logs_event(run->logs, ev);
}

/* A log's counts into the run's tally */
static void log_counts_add(struct run *run, const struct log_reader *lr, const char *name)
{
	const struct log_counts *c = log_reader_counts(lr);

	run->lc.lines += c->lines;
	run->lc.failures += c->failures;
	run->lc.not_failures += c->not_failures;
	run->lc.unrecognised += c->unrecognised;
	run->lc.records += c->records;
	if (c->first_unrecognised_line && !run->lc.first_unrecognised_line) {
		run->lc.first_unrecognised_line = c->first_unrecognised_line;
		snprintf(run->lc.first_unrecognised, sizeof(run->lc.first_unrecognised), "%s",
			 c->first_unrecognised);
		snprintf(run->lc_first_file, sizeof(run->lc_first_file), "%s", name);
	}
}

static int one_log(struct run *run, struct log_reader *lr, const char *name)
{
	struct log_event *ev = malloc(sizeof(*ev));
	int rc;

	if (!ev) {
		fprintf(stderr, "mrtrace explain: out of memory\n");
		return -1;
	}
	run->any_log = true;
	rc = 0;
	/* only a record inside a log writes while the log is read (verdicts
	 * come at the end): the output is asked after those, not per line */
	if (!outfile_failed(run->out))
		while ((rc = log_reader_next(lr, ev)) > 0) {
			one_log_event(run, ev, name);
			if (ev->kind == LOG_RECORD && outfile_failed(run->out))
				break;
		}
	if (rc < 0) {
		fprintf(stderr, "mrtrace explain: %s: %s\n", esc(name), log_reader_error(lr));
		run->t.malformed++;
	}
	log_counts_add(run, lr, name);
	free(ev);
	return 0;
}

/* Records start with "{", or "[" then "{" (an array of them, as jq -s
 * writes); dmesg's "[ 1203.11]" and PyTorch's "[rank3]:" do not. */
static bool starts_records(const unsigned char *b, size_t n)
{
	size_t i = 0;

	while (i < n && isspace(b[i]))
		i++;
	if (i == n)
		return true;
	if (b[i] == '{')
		return true;
	if (b[i] != '[')
		return false;
	for (i++; i < n && isspace(b[i]); i++)
		;
	return i == n || b[i] == '{' || b[i] == ']';
}

/* Whether standard input holds records (its first byte not blank is { or
 * [, as `watch --json` and jq write them) or is a log: 1 records, 0 log,
 * -1 not readable here (the record path then says why, as it always did).
 * Only one byte can be put back: "[" alone cannot tell a JSON array from
 * dmesg's "[ 12.3]", it goes to the record path. */
static int stdin_holds_records(void)
{
	struct stat st;
	int ch;

	/* a device or a socket: the record path refuses it, as before */
	if (fstat(STDIN_FILENO, &st) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)))
		return -1;
	while ((ch = getc(stdin)) != EOF && isspace(ch))
		;
	if (ch == EOF)
		return 1;
	ungetc(ch, stdin);
	/* binary input (a NUL byte) is no log: the record path calls it
	 * malformed and gives up after its junk bound, as before (the log
	 * reader would read /dev/zero through a pipe for ever) */
	if (ch == 0)
		return 1;
	return ch == '{' || ch == '[';
}

/* The same for a named input, from what it starts with (opened once, by
 * log_input_open_head: the name is never opened before its checks), gzip
 * decompressed: a rotated events.jsonl.1.gz is records, read by the record
 * stream (the log reader cut its 15 KB start records at LOG_LINE_MAX into
 * unrecognised lines: issue 48 item C).  A pipe, which cannot be looked at
 * before it is read, keeps the record path; a .gz that could not be looked
 * into, the log path (the reader says why it cannot read it). */
static bool head_holds_records(const struct log_input_head *h, bool gz)
{
	if (!h->known)
		return !gz;
	if (memchr(h->b, 0, h->n))
		return true; /* binary, as above: the record path */
	return starts_records(h->b, h->n);
}

/* An input that starts with a record: records, and the log lines among
 * them (a journald export with the job's output beside it) read as the log
 * reader reads a log, line by line (issue 46 item 4: the whole input was
 * decided by its first byte, and such lines were junk). */
static void replay(struct run *run, struct replay_stream *s, const char *name)
{
	struct log_reader *lr = NULL;
	struct log_event *ev = NULL;
	struct json_object *o;
	char err[512];
	long line;
	int rc;

	memset(&run->repeats, 0, sizeof(run->repeats));
	replay_stream_keep_lines(s, true);
	while (!outfile_failed(run->out) &&
	       (rc = replay_stream_next(s, &o, &line, err, sizeof(err))) != 0) {
		if (rc < 0) {
			fprintf(stderr, "mrtrace explain: %s:%ld: %s\n", esc(name), line, esc(err));
			run->t.malformed++;
			continue;
		}
		if (rc == 2) {
			size_t len;
			const char *text = replay_stream_line(s, &len);
			if (!lr && (!(lr = log_reader_new(NULL, name)) || !(ev = malloc(sizeof(*ev))))) {
				fprintf(stderr, "mrtrace explain: out of memory\n");
				run->t.malformed++;
				break;
			}
			run->any_log = true;
			log_reader_take(lr, text, len, line, ev);
			one_log_event(run, ev, name);
			continue;
		}
		one_value(run, o, name, line);
		json_object_put(o);
	}
	if (lr)
		log_counts_add(run, lr, name);
	log_reader_free(lr);
	free(ev);
}

/* 0, or -1 when the file could not be opened. */
static int one_file(struct run *run, const char *path)
{
	bool in = !strcmp(path, "-");
	const char *name = in ? "(stdin)" : path;
	struct log_input_head head;
	struct replay_stream *s;
	struct log_reader *lr;
	char err[PATH_MAX + 256];
	bool gz = false;
	FILE *f = stdin;
	int rc, records;

	if (in) {
		records = stdin_holds_records();
	} else if (!(f = log_input_open_head(path, &gz, &head, err, sizeof(err)))) {
		/* a missing name says what explain takes: most users have a log */
		int e = errno;
		fprintf(stderr, "mrtrace explain: %s%s\n", esc(err),
			e == ENOENT ? " (give the records of `watch --json`, or the log a job "
					  "left: slurm-*.out, NCCL's output, dmesg)"
					: "");
		return -1;
	} else {
		records = head_holds_records(&head, gz);
	}
	if (records == 0) {
		lr = in ? log_reader_new(stdin, "(stdin)") : log_reader_adopt(f, path, gz, err, sizeof(err));
		if (!lr) {
			fprintf(stderr, "mrtrace explain: %s\n", esc(err));
			return -1;
		}
		memset(&run->repeats, 0, sizeof(run->repeats));
		rc = one_log(run, lr, name);
		log_reader_free(lr);
		return rc;
	}
	s = in ? replay_stream_open(path, err, sizeof(err)) : replay_stream_new(f);
	if (!s) {
		fprintf(stderr, "mrtrace explain: %s\n", in ? esc(err) : "out of memory");
		if (!in)
			fclose(f);
		return -1;
	}
	replay(run, s, name);
	replay_stream_free(s);
	if (!in)
		fclose(f);
	return 0;
}

static void print_tally(const struct tally *t)
{
	unsigned long skipped = 0;

	for (int i = 0; i <= SKIP_NAMES; i++)
		skipped += t->skip[i].n;
	fprintf(stderr, "mrtrace explain: %lu explained, %lu skipped", t->explained, skipped);
	for (int i = 0; i <= SKIP_NAMES; i++)
		if (t->skip[i].n)
			fprintf(stderr, "%s%s %lu", i ? ", " : " (", esc(t->skip[i].name), t->skip[i].n);
	fprintf(stderr, "%s, %lu malformed\n", skipped ? ")" : "", t->malformed);
	if (t->harmless_hidden)
		fprintf(stderr, "mrtrace explain: %lu NCCL dma-buf probe%s (harmless) not shown; "
				"--all shows them\n",
			t->harmless_hidden, t->harmless_hidden == 1 ? "" : "s");
}

/* One judged group of the logs, through the output filter. */
static void logs_piece(void *arg, const char *s, size_t n)
{
	struct run *run = arg;

	outfile_record(run->out, s, n);
}

/* Every log line in one bucket: nothing read is dropped unsaid. */
static void print_log_tally(const struct run *run)
{
	const struct log_counts *c = &run->lc;

	fprintf(stderr,
		"mrtrace explain: log lines: %llu read: %llu failures, %llu not failures, "
		"%llu unrecognised, %llu records\n",
		(unsigned long long)c->lines, (unsigned long long)c->failures,
		(unsigned long long)c->not_failures, (unsigned long long)c->unrecognised,
		(unsigned long long)c->records);
	if (c->first_unrecognised_line)
		fprintf(stderr, "mrtrace explain: first unrecognised: %s:%ld: %s%s\n",
			esc(run->lc_first_file), c->first_unrecognised_line, esc(c->first_unrecognised),
			run->a->verbose ? "" : " (-v lists them all)");
	explain_logs_tally(run->logs, stderr);
}

int cmd_explain(int argc, char **argv)
{
	struct explain_args a = { 0 };
	struct argp argp = { options, parse, "FILE...  (watch records or a job's logs)", doc, 0, 0, 0 };
	struct run *run;
	int ret = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	if (!(run = calloc(1, sizeof(*run)))) {
		fprintf(stderr, "mrtrace explain: out of memory\n");
		return 2;
	}
	run->a = &a;
	char err[PATH_MAX + 256];
	struct explain_logs_opts lo = { .setting = a.setting, .unit = a.unit, .pid = a.pid,
					.facts_file = a.facts, .host = a.host, .verbose = a.verbose,
					.json = a.json };
	if ((a.jobs && !(run->jobs = jobs_new())) || !(run->logs = explain_logs_new(&lo))) {
		fprintf(stderr, "mrtrace explain: out of memory\n");
		jobs_free(run->jobs);
		free(run);
		return 2;
	}
	if (!(run->out = outfile_open(NULL, a.json ? OUTFILE_JSON : OUTFILE_TEXT, err, sizeof(err)))) {
		fprintf(stderr, "mrtrace explain: %s\n", esc(err));
		jobs_free(run->jobs);
		explain_logs_free(run->logs);
		free(run);
		return 2;
	}
	for (int i = 0; i < a.nfiles && !outfile_failed(run->out); i++)
		if (one_file(run, a.files[i]))
			ret = 2;
	if (run->jobs)
		jobs_output(run);
	jobs_free(run->jobs);
	if (run->any_log) {
		int groups = explain_logs_finish(run->logs, logs_piece, run, err, sizeof(err));
		if (groups < 0) {
			fprintf(stderr, "mrtrace explain: %s\n", esc(err));
			ret = 2;
		} else
			run->t.found += (unsigned long)groups;
	}
	/* an explanation that did not reach its reader is none: said, exit 2 */
	if (outfile_close(run->out, err, sizeof(err))) {
		fprintf(stderr, "mrtrace explain: %s\n", esc(err));
		ret = 2;
	}
	print_tally(&run->t);
	if (run->any_log)
		print_log_tally(run);
	explain_logs_free(run->logs);
	if (run->t.malformed)
		ret = 2;
	/* like grep: 0 a failure found (and explained), 1 none, 2 an error
	 * (which wins: what could not be read may have held one) */
	if (!ret && !run->t.found) {
		fprintf(stderr, "mrtrace explain: no failure found%s\n",
			run->t.harmless_hidden ? " (only harmless probes, which --all shows)" : "");
		ret = 1;
	}
	free(run);
	return ret;
}
