/* SPDX-License-Identifier: GPL-2.0-only */
/* ustack_raw.h - the return addresses among the raw words of a user stack
 * (struct mrt_ustack_raw: copied by the kernel at a failed REG_MR where it
 * cannot scan them itself, before 5.17). */
#ifndef MRTRACE_USTACK_RAW_H
#define MRTRACE_USTACK_RAW_H

#include <stdint.h>

/* The words, from the stack pointer up, that lie in an executable mapping
 * of a file in maps_text (the lines of /proc/PID/maps, as execmaps_read()
 * keeps them): at most max of them into out, innermost first.  With ino
 * and off (NULL: not wanted), each one's file as the maps line names it
 * (its inode number) and its offset in that file - what the kernel's scan
 * finds with bpf_find_vma on 5.17+, so that a frame is named by its file
 * after the process is gone.  Returns how many. */
/* A file's code the kernel placed itself: libibverbs', sent with the words
 * (struct mrt_ustack_raw, lib_*): lo..hi mapped from file offset off. */
struct ustack_code {
	uint64_t lo, hi, off, ino;
};

/* As above, with lib (NULL, or hi 0: none) tried before the maps: a
 * process gone before its maps were read (maps_text NULL or "") still has
 * its libibverbs frames found. */
int ustack_raw_frames(const char *maps_text, const struct ustack_code *lib, const uint64_t *words,
		      int nwords, uint64_t *out, uint64_t *ino, uint64_t *off, int max);

#endif
