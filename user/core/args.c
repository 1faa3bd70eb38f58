// SPDX-License-Identifier: GPL-2.0-only
/* args.c - pids and durations from the command line (see args.h). */
#include "core/args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int args_pid(const char *s, int *out)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;   /* no sign, no spaces, no "+1" */
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < 1 || v > ARGS_PID_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int args_seconds(const char *s, double *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}
