/* SPDX-License-Identifier: GPL-2.0-only */
/* vma_file.h - the file a process maps at an address, and the mount it
 * lies on: /proc/PID/maps and /proc/PID/mountinfo, read with bounds.
 *
 * For a registration the kernel refused because its buffer maps a file on
 * a DAX file system (pin_fsdax): the kernel's record says the VMA is fs-dax
 * (MRT_VMA_FSDAX); these facts say which file, on which device, and how the
 * file system was mounted, so the fix can name them.  Both files are the
 * process's to shape (a path with spaces or 4,000 bytes, tens of thousands
 * of mappings or mounts): lines are read one at a time, a line longer than
 * any path is skipped, and no more than VMA_FILE_MAX_LINES are read of each.
 * Nothing the process maps is opened. */
#ifndef MRTRACE_PROC_VMA_FILE_H
#define MRTRACE_PROC_VMA_FILE_H
#include <stdbool.h>
#include <stdint.h>

#define VMA_FILE_MAX_LINES 262144 /* of each file (max_map_count is 65,530 by default) */
#define VMA_FILE_LINE_MAX 4352    /* a line: PATH_MAX + the fields */

struct vma_file {
	bool read;              /* a file is known: from the kernel's record or the maps */
	bool from_kernel;       /* major, minor, ino and name from the kernel's record */
	int maps_error;         /* the maps did not name it: their errno, ENOENT no such line */
	uint64_t start, end;    /* the mapping, from the maps (0: not read) */
	char path[256];         /* as maps prints it ("" not read), cut to fit */
	char name[32];          /* the kernel's dentry name (the path's last component) */
	unsigned int major, minor; /* the file's device (s_dev) */
	unsigned long long ino;
	/* the mount of that device: in the process's mountinfo, or, once the
	 * process is gone, in pid 1's (host_table) */
	bool mount_found, host_table;
	char mount_point[256], fstype[32], source[128], options[256];
	bool dax;               /* its super options ask for DAX (dax, dax=always, dax=inode) */
};

/* One maps line ("lo-hi perms off MA:MI ino   path"): true when it holds
 * addr, *out filled from it.  Exposed for the tests. */
bool vma_file_maps_line(const char *line, uint64_t addr, struct vma_file *out);
/* One mountinfo line for out's device: true when it is that device's mount,
 * out's mount fields filled.  Exposed for the tests. */
bool vma_file_mount_line(const char *line, struct vma_file *out);
/* Whether super options ("rw,dax=always,...") ask for DAX. */
bool vma_file_options_dax(const char *options);

/* The file the kernel's record names (mrt_event.vma_dev, vma_ino,
 * vma_name: dev 0 none), then <root>/proc/<pid>/maps for the mapping at
 * addr (its path, when it is that inode), then the mountinfo of the
 * process, or of pid 1 when the process is gone, for the device.  Never
 * fails: out->read false when neither the record nor the maps name a file. */
void vma_file_read(const char *root, int pid, uint64_t addr, unsigned long long kdev,
		   unsigned long long kino, const char *kname, struct vma_file *out);

#endif
