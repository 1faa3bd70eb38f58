/* SPDX-License-Identifier: GPL-2.0-only */
/* gpu.h - GPU memory for registration tests, through the CUDA driver API.
 *
 * libcuda.so.1 is loaded with dlopen so that mrprobe builds and runs on
 * machines without CUDA; only --mem gpu needs it.  The few prototypes used
 * are declared in gpu.c rather than taken from cuda.h, which users' machines
 * do not have. */
#ifndef MRPROBE_GPU_H
#define MRPROBE_GPU_H
#include <stddef.h>
#include <stdint.h>

/* Loads the driver, initialises it and retains device 0's primary context.
 * Returns 0, or -1 with one sentence in err. */
int mp_gpu_open(char *err, size_t errlen);

/* cuMemAlloc in the primary context (made current in the calling thread, so
 * the registration thread may differ from the opening one). */
int mp_gpu_alloc(uint64_t len, uint64_t *dptr, char *err, size_t errlen);

/* Exports [dptr, dptr+len) as a dma-buf fd (cuMemGetHandleForAddressRange),
 * the way NCCL does before ibv_reg_dmabuf_mr. */
int mp_gpu_dmabuf_fd(uint64_t dptr, uint64_t len, int *fd, char *err, size_t errlen);

void mp_gpu_free(uint64_t dptr);

#endif
