// SPDX-License-Identifier: GPL-2.0-only
/* clock.c - the monotonic and wall clocks in seconds (clock.h). */
#include "core/clock.h"

#include <time.h>

static double seconds_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double clock_mono_s(void)
{
	return seconds_of(CLOCK_MONOTONIC);
}

double clock_wall_s(void)
{
	return seconds_of(CLOCK_REALTIME);
}
