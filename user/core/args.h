/* SPDX-License-Identifier: GPL-2.0-only */
/* args.h - command-line numbers, checked the same way in every command: a
 * pid must be one the kernel can hand out (strtol into an int turned
 * 4294967297 into pid 1), a duration a finite positive number of seconds
 * ("nan" compared false with everything and ran forever). */
#ifndef MRTRACE_CORE_ARGS_H
#define MRTRACE_CORE_ARGS_H

/* PID_MAX_LIMIT of 64-bit kernels: no pid is larger. */
#define ARGS_PID_MAX 4194304

/* Decimal 1..ARGS_PID_MAX, nothing after it.  0, or -1. */
int args_pid(const char *s, int *out);
/* A finite number of seconds > 0 (decimals allowed).  0, or -1. */
int args_seconds(const char *s, double *out);

#endif
