/* SPDX-License-Identifier: GPL-2.0-only */
/* outfile.h - where a command's records go (watch -o FILE, standard output of
 * watch, check and diff), opened so that it cannot be turned against the
 * root that runs mrtrace and so that no record is lost silently:
 *
 *   - opened only after the options are valid (a usage error creates nothing);
 *   - O_CLOEXEC: a command run by `watch -- CMD` does not inherit it (it
 *     could write forged records through it);
 *   - O_APPEND, never truncated: logrotate's copytruncate works, and a
 *     restarted watch does not erase what an earlier one recorded;
 *   - in a world-writable sticky directory (/tmp), a symlink is not
 *     followed and a file that belongs to another user is refused (another
 *     user could have planted either); a symlink on the way there is
 *     followed only when its owner could be trusted, the rule of the
 *     kernel's fs.protected_symlinks, checked here whatever the sysctl says;
 *   - a symlink (the name itself or a directory on the way) that belongs
 *     to a user other than us and root is followed with that user's
 *     filesystem rights (uid, the link's group): root does not append to a
 *     file the link's owner could not write (a confused deputy);
 *   - opened O_NONBLOCK, so a FIFO with no reader fails at once (ENXIO,
 *     said) instead of holding watch in open(2) before the checks; the
 *     descriptor blocks again afterwards;
 *   - every write error (ENOSPC, EIO, /dev/full, a closed pipe), including
 *     on flush and close, is remembered: outfile_failed() says to stop, and
 *     outfile_close() returns it with a message for a non-zero exit;
 *   - outfile_record() writes one record (a whole line or lines) in one
 *     write(2): a reader, logrotate's copy or a truncation sees whole
 *     records, never a torn one;
 *   - a short write (a full disk) is taken back: a regular file is cut to
 *     where the record began, so it ends after the last whole record; a
 *     file that ends in a torn line anyway (a crash, a failed cut) gets a
 *     newline before the next record, here or in the next run, so a start
 *     record is never glued to a fragment;
 *   - outfile_reopen() (watch, on SIGHUP) opens FILE by its name again,
 *     with every check above, and puts it in place of the old one:
 *     logrotate's rename ("create") mode loses nothing;
 *   - the bytes are checked on the way out: in JSON a byte that is not
 *     UTF-8 becomes \\xNN; in text every control character but newline
 *     and tab, and invalid UTF-8, is escaped (core/escape.h) - a last line
 *     of defence behind the escaping of each value.
 */
#ifndef MRTRACE_CORE_OUTFILE_H
#define MRTRACE_CORE_OUTFILE_H
#include <stddef.h>
#include <stdio.h>

enum outfile_kind { OUTFILE_TEXT, OUTFILE_JSON };

/* path NULL or "-": standard output.  Returns a stream, or NULL with a
 * message in err ("cannot write FILE: ..."). */
FILE *outfile_open(const char *path, enum outfile_kind kind, char *err, size_t errlen);
/* Whether a write to f has failed (the records since are lost). */
int outfile_failed(FILE *f);
/* One record of len bytes in one write(2), after what f holds.  0, or -1
 * (the error is kept: outfile_failed() and outfile_close() say it). */
int outfile_record(FILE *f, const char *buf, size_t len);
/* Opens f's file by its name again (the same checks) and writes there from
 * now on; standard output too when it was a regular file opened for
 * appending (systemd's StandardOutput=append:), by the name it had at
 * outfile_open, made descriptor 1 again; nothing to do for other standard
 * outputs.  0, or -1 with a message in err: the records keep going to the
 * old file. */
int outfile_reopen(FILE *f, char *err, size_t errlen);
/* Flushes and closes f (standard output's descriptor stays open).  0, or
 * -1 with err ("writing FILE: No space left on device"). */
int outfile_close(FILE *f, char *err, size_t errlen);

#endif
