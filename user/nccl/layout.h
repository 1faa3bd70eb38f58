/* SPDX-License-Identifier: GPL-2.0-only */
/* nccl_layout.h - how much memory NCCL's network transport registers, and where.
 *
 * docs/design.md section 4: every network connection owns one buffer per protocol,
 *     LL      512 KiB    always pinned host memory
 *     LL128   4,915,200  GPU memory with GPUDirect RDMA, else pinned host memory
 *     Simple  NCCL_BUFFSIZE (default 4 MiB), placed like LL128
 * and NCCL registers each buffer with its own ibv_reg_mr* call, page-aligned.
 * One channel connects to each peer twice (a send and a receive connection),
 * so the registrations total
 *     channels x (sends + receives = 2 x peers) x (LL + LL128 + Simple)
 * which is 4 x 9.2 MiB = 36.8 MiB for 2 channels to 1 peer with defaults.
 * p2p pools and the per-NIC copies of a merged device come on top of this. */
#ifndef MRPROBE_NCCL_LAYOUT_H
#define MRPROBE_NCCL_LAYOUT_H
#include <stdbool.h>
#include <stdint.h>

/* LL: 8 lines per thread x 512 threads x 8 steps x 16-byte fifo lines. */
#define NCCL_LL_BYTES (512ull * 1024)
/* LL128: 120 elements per thread x 640 threads x 8 steps x 8 bytes. */
#define NCCL_LL128_BYTES 4915200ull
#define NCCL_BUFFSIZE_DEFAULT (4ull << 20)

enum nccl_proto { NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE, NCCL_NPROTOS };

struct nccl_layout {
	unsigned channels;  /* NCCL_MIN/MAX_NCHANNELS end up here */
	unsigned peers;     /* network peers each channel connects to */
	uint64_t buffsize;  /* NCCL_BUFFSIZE */
	bool gdr;           /* GPUDirect RDMA: LL128/Simple in GPU memory */
};

const char *nccl_layout_proto_name(enum nccl_proto p);

/* Registered length of protocol p's buffer: its size rounded up to whole
 * pages, because NCCL registers page-aligned ranges. */
uint64_t nccl_layout_proto_bytes(const struct nccl_layout *l, enum nccl_proto p, uint64_t page);

/* True when protocol p's buffer lives in GPU memory (never for LL). */
bool nccl_layout_proto_on_gpu(const struct nccl_layout *l, enum nccl_proto p);

/* channels x 2 x peers. */
uint64_t nccl_layout_connections(const struct nccl_layout *l);

/* Bytes registered per connection, all protocols. */
uint64_t nccl_layout_conn_bytes(const struct nccl_layout *l, uint64_t page);

/* Bytes registered in total, and the part in pinned host memory (the part
 * that counts against RLIMIT_MEMLOCK). */
uint64_t nccl_layout_total_bytes(const struct nccl_layout *l, uint64_t page);
uint64_t nccl_layout_host_bytes(const struct nccl_layout *l, uint64_t page);

#endif
