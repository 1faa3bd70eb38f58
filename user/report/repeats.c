// SPDX-License-Identifier: GPL-2.0-only
/* repeats.c - which occurrence of a (process, cause) pair a failure is, so
 * text output explains the first in full and repeats in one line. */
#include "report/report.h"

unsigned long report_repeats_add(struct report_repeats *t, unsigned int pid, int cause,
				 unsigned long n)
{
	for (int i = 0; i < t->n; i++)
		if (t->seen[i].pid == pid && t->seen[i].cause == cause)
			return t->seen[i].count += n;
	if (t->n < REPORT_REPEATS_MAX) {
		t->seen[t->n].pid = pid;
		t->seen[t->n].cause = cause;
		t->seen[t->n].count = n;
		t->n++;
	}
	return n;
}

unsigned long report_repeats_count(struct report_repeats *t, unsigned int pid, int cause)
{
	return report_repeats_add(t, pid, cause, 1);
}
