/* SPDX-License-Identifier: GPL-2.0-only */
/* elfsym.h - a shared library's symbols (elfsym.c), for the uprobes and
 * for naming the libibverbs function a return address lies in. */
#ifndef MRTRACE_TRACER_ELFSYM_H
#define MRTRACE_TRACER_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file a process named (its maps, a library path), opened for reading by
 * root only if it is a regular file: looked at first through an O_PATH
 * descriptor, so a FIFO is never waited on and a device never opened (a
 * watchdog arms itself when opened).  follow: whether a last symlink is
 * followed (yes for the kernel's own links, /proc/PID/map_files/LO-HI and
 * /proc/self/fd/N; never for a path a process chose).  ino: the inode the
 * maps line or the kernel gave (0: not checked) - another file at that path
 * is refused.  The fd (O_NONBLOCK), or -errno: -EINVAL not a regular file,
 * -ESTALE another inode. */
int tracer_elf_open(const char *path, bool follow, unsigned long long ino);

/* Offset in the file of the default-version definition of `sym` (for
 * uprobes); 0 when absent. */
uint64_t tracer_elf_symbol_offset(const char *path, const char *sym);
uint64_t tracer_elf_symbol_offset_fd(int fd, const char *sym);
/* The name of the function (.dynsym) that holds file offset file_off of the
 * ELF file at path: buf, or NULL. */
const char *tracer_elf_symbol_at(const char *path, uint64_t file_off, char *buf, size_t len);
const char *tracer_elf_symbol_at_fd(int fd, uint64_t file_off, char *buf, size_t len);
/* The path versions open with tracer_elf_open(path, true, 0): whatever a
 * symlink names, only a regular file is opened. */

#endif
