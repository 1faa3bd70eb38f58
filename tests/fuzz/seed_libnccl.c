// SPDX-License-Identifier: GPL-2.0-only
/* seed_libnccl.c - built into a small shared library as a seed for
 * fuzz_elf: a real ELF file with a .rodata section that holds NCCL's version
 * literal and the NCCL_* names NCCL_PARAM would put there. */
const char *const seed_strings[] = {
	"NCCL version 2.21.5+cuda12.4", "NCCL_IB_HCA", "NCCL_DEBUG", "NCCL_BUFFSIZE",
	"NCCL_NET_GDR_LEVEL", "NCCL_SOCKET_IFNAME", "NCCL_P2P_LEVEL", "NCCL_ALGO", "NCCL_PROTO",
	"NCCL_%s is not a name", "not NCCL_IN_TEXT",
};
