/* SPDX-License-Identifier: GPL-2.0-only */
/* commands.h - the subcommands main.c dispatches to.  Each parses its own
 * arguments with argp (argv[0] is the subcommand name) and returns the
 * process exit status. */
#ifndef MRTRACE_COMMANDS_H
#define MRTRACE_COMMANDS_H

int cmd_watch(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_explain(int argc, char **argv);

#endif
