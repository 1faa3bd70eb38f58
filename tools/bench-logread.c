// SPDX-License-Identifier: GPL-2.0-only
/* bench-logread.c - the log reader's rate (issue 32: a 2 GB merged job
 * log read in bounded memory at disk speed): reads each FILE through
 * log_reader_open, prints its counts and MB/s.  Built by `make
 * $(BUILD)/bench-logread`; tools/gen-merged-log.py writes an input. */
#include <stdio.h>
#include <time.h>

#include "logs/logline.h"

static struct log_event ev;

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		char err[256];
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		struct log_reader *r = log_reader_open(argv[i], err, sizeof(err));
		if (!r) {
			fprintf(stderr, "%s\n", err);
			rc = 1;
			continue;
		}
		while (log_reader_next(r, &ev) == 1)
			;
		clock_gettime(CLOCK_MONOTONIC, &b);
		const struct log_counts *k = log_reader_counts(r);
		double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		printf("%s: %llu lines, %llu bytes: %llu failures, %llu not failures (%llu context), "
		       "%llu unrecognised, %llu records; %.2f s, %.1f MB/s\n",
		       argv[i], (unsigned long long)k->lines, (unsigned long long)k->bytes,
		       (unsigned long long)k->failures, (unsigned long long)k->not_failures,
		       (unsigned long long)k->context, (unsigned long long)k->unrecognised,
		       (unsigned long long)k->records, s, (double)k->bytes / 1e6 / (s > 0 ? s : 1e-9));
		log_reader_free(r);
	}
	return rc;
}
