// SPDX-License-Identifier: GPL-2.0-only
/* elfsym.c - a shared library's symbols, by libelf (elfsym.h): where a
 * function starts in the file (for a uprobe), and which function holds a
 * file offset (for a return address the kernel found). */
#include "tracer/elfsym.h"

#include "core/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tracer_elf_open(const char *path, bool follow, unsigned long long ino)
{
	int pfd = open(path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	struct stat st;
	int fd = fstat(pfd, &st) ? -errno : !S_ISREG(st.st_mode) ? -EINVAL
		 : ino && st.st_ino != ino ? -ESTALE : beneath_reopen_regular(pfd);
	close(pfd);
	return fd;
}

/* ---- ELF: symbol -> file offset ------------------------------------------- */

uint64_t tracer_elf_symbol_offset(const char *path, const char *sym)
{
	int fd = tracer_elf_open(path, true, 0);
	if (fd < 0)
		return 0;
	uint64_t off = tracer_elf_symbol_offset_fd(fd, sym);
	close(fd);
	return off;
}

uint64_t tracer_elf_symbol_offset_fd(int fd, const char *sym)
{
	uint64_t vaddr = 0, off = 0;
	bool found_default = false;

	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return 0;
	Elf_Scn *scn = NULL, *dynsym = NULL, *versym = NULL;
	GElf_Shdr sh, dynsh = { 0 };
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			versym = scn;
		}
	}
	if (dynsym) {
		Elf_Data *d = elf_getdata(dynsym, NULL);
		Elf_Data *vd = versym ? elf_getdata(versym, NULL) : NULL;
		size_t n = dynsh.sh_entsize ? dynsh.sh_size / dynsh.sh_entsize : 0;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			const char *name = elf_strptr(e, dynsh.sh_link, s.st_name);
			if (!name || strcmp(name, sym))
				continue;
			GElf_Versym v = 0;
			if (vd)
				gelf_getversym(vd, i, &v);
			/* a hidden version (sym@OLD) only when no default (sym@@NEW) exists */
			bool is_default = !(v & 0x8000);
			if (!vaddr || (is_default && !found_default)) {
				vaddr = s.st_value;
				found_default = is_default;
			}
		}
	}
	size_t nph = 0;
	if (vaddr && !elf_getphdrnum(e, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
				off = vaddr - ph.p_vaddr + ph.p_offset;
				break;
			}
		}
	}
	elf_end(e);
	return off;
}

/* ---- ELF: file offset -> the function that holds it ------------------------ */

const char *tracer_elf_symbol_at(const char *path, uint64_t file_off, char *buf, size_t len)
{
	int fd = tracer_elf_open(path, true, 0);
	if (fd < 0)
		return NULL;
	const char *found = tracer_elf_symbol_at_fd(fd, file_off, buf, len);
	close(fd);
	return found;
}

const char *tracer_elf_symbol_at_fd(int fd, uint64_t file_off, char *buf, size_t len)
{
	const char *found = NULL;

	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return NULL;
	uint64_t vaddr = 0;
	bool mapped = false;
	size_t nph = 0;
	if (!elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph && !mapped; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD && file_off >= ph.p_offset &&
			    file_off < ph.p_offset + ph.p_filesz) {
				vaddr = file_off - ph.p_offset + ph.p_vaddr;
				mapped = true;
			}
		}
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (mapped && !found && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || vaddr < sym.st_value ||
			    vaddr >= sym.st_value + sym.st_size)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (name) {
				snprintf(buf, len, "%s", name);
				found = buf;
				break;
			}
		}
	}
	elf_end(e);
	return found;
}
