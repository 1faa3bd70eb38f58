/* SPDX-License-Identifier: GPL-2.0-only */
/* procfs.h - the primitives every /proc and sysfs reader shares: a path
 * under a root (the live system is "/", tests and `check --sysroot` use
 * recorded trees) and bounded reads of small files.
 *
 * Under a recorded tree every name is resolved inside it (core/beneath.h):
 * a symlink out of the tree, "..", a FIFO, a device or an endless file in
 * it cannot make mrtrace read outside it, block or read forever. */
#ifndef MRTRACE_CORE_PROCFS_H
#define MRTRACE_CORE_PROCFS_H
#include <stddef.h>
#include <sys/stat.h>

/* "<root>/proc/<pid>/<rel>", or "<root>/<rel>" when pid < 0.
 * Returns 0, or -ENAMETOOLONG. */
int procfs_path(char *buf, size_t len, const char *root, int pid, const char *rel);
/* Reads at most len-1 bytes of a live path and NUL-terminates; returns the
 * byte count or -errno. */
long procfs_read(const char *path, char *buf, size_t len);

/* The same for <root>/proc/<pid>/<rel> (pid < 0: <root>/<rel>), inside a
 * recorded root, regular files only there. */
int procfs_open(const char *root, int pid, const char *rel);
/* A file a process mapped, through the kernel's link to it
 * (<root>/proc/<pid>/map_files/LO-HI, rel "map_files/LO-HI"): opened only
 * when it is a regular file.  The link is followed to an O_PATH descriptor
 * first (nothing opened, nothing waited on), checked with fstat, then that
 * same inode reopened O_RDONLY|O_NONBLOCK through /proc/self/fd: a mapped
 * device node (a user may map any device they can open, named anything) is
 * never opened by root.  The fd, or -errno (-EINVAL: not a regular file). */
int procfs_open_mapped(const char *root, int pid, const char *rel);
long procfs_read_at(const char *root, int pid, const char *rel, char *buf, size_t len);
/* readlink() of it (the link's own text, NUL-terminated); length or -errno. */
long procfs_readlink(const char *root, int pid, const char *rel, char *buf, size_t len);
/* A directory of it, opened for reading (readdir) inside the tree. */
int procfs_open_dir(const char *root, int pid, const char *rel);
/* stat() of it, following a last symlink inside the tree. */
int procfs_stat(const char *root, int pid, const char *rel, struct stat *st);

#endif
