/* SPDX-License-Identifier: GPL-2.0-only */
/* elfsym.h - a shared library's symbols (elfsym.c), for the uprobes and
 * for naming the libibverbs function a return address lies in. */
#ifndef MRTRACE_TRACER_ELFSYM_H
#define MRTRACE_TRACER_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/* Offset in the file of the default-version definition of `sym` (for
 * uprobes); 0 when absent. */
uint64_t tracer_elf_symbol_offset(const char *path, const char *sym);
/* The name of the function (.dynsym) that holds file offset file_off of the
 * ELF file at path: buf, or NULL. */
const char *tracer_elf_symbol_at(const char *path, uint64_t file_off, char *buf, size_t len);

#endif
