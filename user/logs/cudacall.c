// SPDX-License-Identifier: GPL-2.0-only
/* cudacall.c - a CUDA driver or runtime memory call that a line says failed:
 * "cuMemGetHandleForAddressRange failed: CUDA_ERROR_NOT_SUPPORTED",
 * "cudaIpcOpenMemHandle returned 201", UCX's "cuMemGetAddressRange(...)
 * failed: invalid argument".  The names are data: cuda_call and cuda_error
 * rows of user/logs/calls.tsv, read from NVIDIA's cuda.h,
 * cuda_runtime_api.h and driver_types.h by tools/call-names.py.
 *
 * What such a line carries is the CUDA driver's error (a CUresult or
 * cudaError_t: 801 is CUDA_ERROR_NOT_SUPPORTED, not an errno), so it is
 * never read as a kernel refusal: it is a context line of the job
 * (LOG_CTX_CUDA) with the call and the error's name.  What the call does to
 * memory (log_cuda_call_what) is the judge's to weigh: a dma-buf export that
 * is not supported means the job's GPU memory cannot be registered through
 * dma-buf (user/explain/logs.c). */
#include "logs/parse.h"
#include "logs/prefilter.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct cuda_call {
	const char *name, *what;
} cuda_calls[] = {
#define LOG_CUDA_CALL(n, w) { n, w },
#define LOG_CUDA_ERROR(n, v)
#include "log_cuda.h"
#undef LOG_CUDA_CALL
#undef LOG_CUDA_ERROR
};

static const struct cuda_error {
	const char *name;
	int number;
} cuda_errors[] = {
#define LOG_CUDA_CALL(n, w)
#define LOG_CUDA_ERROR(n, v) { n, v },
#include "log_cuda.h"
#undef LOG_CUDA_CALL
#undef LOG_CUDA_ERROR
};

/* the families of the names above: one scan of the line for all */
static const char *const prefixes[] = { "cuMem", "cuPointer", "cuIpc", "cudaIpc", "cudaMalloc",
					"cudaHost", "cudaPointer" };

static bool ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int name_cmp(const void *key, const void *row)
{
	return strcmp(key, *(const char *const *)row);
}

static const struct cuda_call *find_call(const char *name)
{
	return bsearch(name, cuda_calls, sizeof(cuda_calls) / sizeof(cuda_calls[0]), sizeof(cuda_calls[0]),
		       name_cmp);
}

const char *log_cuda_call_what(const char *call)
{
	const struct cuda_call *c = call ? find_call(call) : NULL;
	return c && strcmp(c->what, "-") ? c->what : NULL;
}

bool log_cuda_error_unsupported(const char *err)
{
	/* CUDA_ERROR_NOT_SUPPORTED, cudaErrorNotSupported, and the driver's
	 * own text for it ("operation not supported", cuGetErrorString) */
	return err && (strstr(err, "NOT_SUPPORTED") || strstr(err, "NotSupported") ||
		       strcasestr(err, "not supported"));
}

/* the error's name at p ("CUDA_ERROR_NOT_SUPPORTED", "cudaErrorMemoryAllocation"), NULL none */
static const struct cuda_error *error_at(const char *p, const char *end)
{
	char name[64];
	const char *q = p;

	while (q < end && ident(*q))
		q++;
	if ((size_t)(q - p) >= sizeof(name))
		return NULL;
	str_copy_n(name, sizeof(name), p, (size_t)(q - p));
	return bsearch(name, cuda_errors, sizeof(cuda_errors) / sizeof(cuda_errors[0]), sizeof(cuda_errors[0]),
		       name_cmp);
}

/* the error a line prints after the call: a CUresult/cudaError_t name, else
 * a number after "error", "ret", "returned", "code" or "=" named by the
 * table (the driver's name for it: CUDA_ERROR_*), else the text after the
 * last ": " (cuGetErrorString's, as UCX prints it); false: none */
static bool error_after(const char *p, const char *end, char *out, size_t outlen)
{
	for (const char *q = p; q < end; q++) {
		if ((q > p && ident(q[-1])) || (*q != 'C' && *q != 'c'))
			continue;
		const struct cuda_error *e = error_at(q, end);
		if (e) {
			str_copy_n(out, outlen, e->name, strlen(e->name));
			return true;
		}
	}
	static const char *const markers[] = { "error ", "error: ", "error=", "ret ", "ret=", "ret:", "returned ",
					       "code ", "code: ", "= ", "(" };
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		const char *m = log_find(p, end, markers[i]);
		if (!m)
			continue;
		const char *d = m + strlen(markers[i]), *e = d;
		while (e < end && *e >= '0' && *e <= '9')
			e++;
		if (e == d || e - d > 6 || (e < end && ident(*e)))
			continue;
		long long v = log_num(d, (size_t)(e - d), 10);
		for (size_t k = 0; k < sizeof(cuda_errors) / sizeof(cuda_errors[0]); k++)
			if (cuda_errors[k].number == v && v && !strncmp(cuda_errors[k].name, "CUDA_ERROR_", 11)) {
				str_copy_n(out, outlen, cuda_errors[k].name, strlen(cuda_errors[k].name));
				return true;
			}
	}
	const char *c = NULL;
	for (const char *q = p; (q = log_find(q, end, ": ")); q += 2)
		c = q + 2;
	if (c && c < end && log_find_nocase(p, end, "fail")) {
		str_copy_n(out, outlen, c, (size_t)(end - c));
		return true;
	}
	return false;
}

static struct log_anchors anchors;

/* built before the reader's twin starts (log_anycall_prepare calls it) */
void log_cudacall_prepare(void)
{
	if (!anchors.built) {
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			log_anchors_add(&anchors, prefixes[i], strlen(prefixes[i]));
		log_anchors_build(&anchors);
	}
}

static bool any_prefix(const char *s, const char *end)
{
	log_cudacall_prepare();
	return log_anchors_any(&anchors, s, end);
}

bool log_parse_cuda_call(const char *s, const char *end, struct log_event *ev)
{
	if (!any_prefix(s, end))
		return false;
	for (const char *p = s; p + 2 < end; p++) {
		if (p[0] != 'c' || p[1] != 'u' || (p > s && ident(p[-1])))
			continue;
		const char *q = p;
		while (q < end && ident(*q))
			q++;
		char call[48];
		if ((size_t)(q - p) >= sizeof(call))
			continue;
		str_copy_n(call, sizeof(call), p, (size_t)(q - p));
		if (!find_call(call))
			continue;
		/* it must say it failed, or name the error */
		char err[sizeof(ev->cuda_error)];
		if (!error_after(q, end, err, sizeof(err)))
			continue;
		if (!log_find_nocase(q, end, "fail") && !log_find_nocase(q, end, "error") &&
		    !log_find(q, end, "CUDA_ERROR_") && !log_find(q, end, "returned"))
			continue;
		ev->kind = LOG_CONTEXT;
		ev->ctx = LOG_CTX_CUDA;
		str_copy_n(ev->call, sizeof(ev->call), call, strlen(call));
		str_copy_n(ev->cuda_error, sizeof(ev->cuda_error), err, strlen(err));
		ev->op = OP_NONE;
		ev->err = 0;
		return true;
	}
	return false;
}
