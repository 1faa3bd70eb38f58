// SPDX-License-Identifier: GPL-2.0-only
/* gpu.c - CUDA driver API through dlopen (see gpu.h). */
#include "gpu.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

/* The CUDA driver ABI, declared here so that no CUDA header is needed. */
typedef int cu_result;          /* CUresult; 0 is CUDA_SUCCESS */
typedef int cu_device;          /* CUdevice */
typedef void *cu_context;       /* CUcontext */
typedef unsigned long long cu_ptr; /* CUdeviceptr */
#define CU_RANGE_HANDLE_DMA_BUF_FD 1 /* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD */

static struct {
	bool ready;
	cu_context ctx;
	cu_result (*init)(unsigned flags);
	cu_result (*device_get)(cu_device *dev, int ordinal);
	cu_result (*primary_ctx_retain)(cu_context *ctx, cu_device dev);
	cu_result (*ctx_set_current)(cu_context ctx);
	cu_result (*mem_alloc)(cu_ptr *p, size_t len);
	cu_result (*mem_free)(cu_ptr p);
	cu_result (*get_handle)(void *handle, cu_ptr p, size_t len, int type, unsigned long long flags);
	cu_result (*error_name)(cu_result r, const char **name);
} cu;

static const char *cu_err(cu_result r)
{
	static char buf[32];
	const char *name = NULL;
	if (cu.error_name && cu.error_name(r, &name) == 0 && name)
		return name;
	snprintf(buf, sizeof(buf), "CUresult %d", r);
	return buf;
}

int mp_gpu_open(char *err, size_t errlen)
{
	if (cu.ready)
		return 0;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(err, errlen,
			 "GPU memory needs the NVIDIA driver, but libcuda.so.1 could not be loaded (%s)",
			 dlerror());
		return -1;
	}
	/* The _v2 names are what cuda.h maps cuMemAlloc/cuMemFree to. */
	cu.init = (cu_result(*)(unsigned))dlsym(lib, "cuInit");
	cu.device_get = (cu_result(*)(cu_device *, int))dlsym(lib, "cuDeviceGet");
	cu.primary_ctx_retain =
		(cu_result(*)(cu_context *, cu_device))dlsym(lib, "cuDevicePrimaryCtxRetain");
	cu.ctx_set_current = (cu_result(*)(cu_context))dlsym(lib, "cuCtxSetCurrent");
	cu.mem_alloc = (cu_result(*)(cu_ptr *, size_t))dlsym(lib, "cuMemAlloc_v2");
	cu.mem_free = (cu_result(*)(cu_ptr))dlsym(lib, "cuMemFree_v2");
	cu.get_handle = (cu_result(*)(void *, cu_ptr, size_t, int, unsigned long long))dlsym(
		lib, "cuMemGetHandleForAddressRange");
	cu.error_name = (cu_result(*)(cu_result, const char **))dlsym(lib, "cuGetErrorName");
	if (!cu.init || !cu.device_get || !cu.primary_ctx_retain || !cu.ctx_set_current ||
	    !cu.mem_alloc || !cu.mem_free) {
		snprintf(err, errlen, "libcuda.so.1 was loaded but lacks the driver API mrprobe uses "
				      "(cuInit, cuMemAlloc_v2, ...): the driver is too old or not NVIDIA's");
		return -1;
	}
	cu_device dev;
	cu_result r = cu.init(0);
	if (r == 0)
		r = cu.device_get(&dev, 0);
	if (r == 0)
		r = cu.primary_ctx_retain(&cu.ctx, dev);
	if (r) {
		snprintf(err, errlen, "the NVIDIA driver is installed but no GPU is usable (%s)", cu_err(r));
		return -1;
	}
	cu.ready = true;
	return 0;
}

int mp_gpu_alloc(uint64_t len, uint64_t *dptr, char *err, size_t errlen)
{
	cu_ptr p = 0;
	cu_result r = cu.ctx_set_current(cu.ctx);
	if (r == 0)
		r = cu.mem_alloc(&p, (size_t)len);
	if (r) {
		snprintf(err, errlen, "cuMemAlloc(%llu bytes) failed (%s)", (unsigned long long)len,
			 cu_err(r));
		return -1;
	}
	*dptr = p;
	return 0;
}

int mp_gpu_dmabuf_fd(uint64_t dptr, uint64_t len, int *fd, char *err, size_t errlen)
{
	if (!cu.get_handle) {
		snprintf(err, errlen, "this libcuda.so.1 has no cuMemGetHandleForAddressRange (CUDA 11.7+ "
				      "drivers), so GPU memory cannot be exported as a dma-buf");
		return -1;
	}
	int handle = -1;
	cu_result r = cu.ctx_set_current(cu.ctx);
	if (r == 0)
		r = cu.get_handle(&handle, dptr, (size_t)len, CU_RANGE_HANDLE_DMA_BUF_FD, 0);
	if (r) {
		snprintf(err, errlen, "cuMemGetHandleForAddressRange(dma-buf) failed (%s)", cu_err(r));
		return -1;
	}
	*fd = handle;
	return 0;
}

void mp_gpu_free(uint64_t dptr)
{
	if (cu.ready && dptr) {
		cu.ctx_set_current(cu.ctx);
		cu.mem_free(dptr);
	}
}
