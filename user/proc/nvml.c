// SPDX-License-Identifier: GPL-2.0-only
/* nvml.c - BAR1 and memory of a GPU from the driver's libnvidia-ml, opened
 * with dlopen like tools/mrprobe opens the CUDA driver API: never required
 * (a node without the library, a container without it, a build machine:
 * the PCI BAR1 from sysfs stays the only number).  See gpu_facts.h. */
#include "proc/gpu_facts.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The NVML ABI, declared here so that no NVIDIA header is needed. */
typedef int nvml_return;            /* nvmlReturn_t; 0 is NVML_SUCCESS */
typedef void *nvml_device;          /* nvmlDevice_t */
struct nvml_bar1 { unsigned long long total, free, used; };   /* nvmlBAR1Memory_t */
struct nvml_memory { unsigned long long total, free, used; }; /* nvmlMemory_t (v1) */

static struct {
	bool tried, ready;
	nvml_return (*by_bus)(const char *bus, nvml_device *dev);
	nvml_return (*bar1)(nvml_device dev, struct nvml_bar1 *out);
	nvml_return (*memory)(nvml_device dev, struct nvml_memory *out);
	nvml_return (*name)(nvml_device dev, char *buf, unsigned len);
} nv;

/* Once per process: the library stays loaded (it keeps the driver's state). */
static bool nvml_open(void)
{
	if (nv.tried)
		return nv.ready;
	nv.tried = true;
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return false;
	nvml_return (*init)(void) = (nvml_return(*)(void))dlsym(lib, "nvmlInit_v2");
	nv.by_bus = (nvml_return(*)(const char *, nvml_device *))dlsym(lib,
		"nvmlDeviceGetHandleByPciBusId_v2");
	nv.bar1 = (nvml_return(*)(nvml_device, struct nvml_bar1 *))dlsym(lib,
		"nvmlDeviceGetBAR1MemoryInfo");
	nv.memory = (nvml_return(*)(nvml_device, struct nvml_memory *))dlsym(lib,
		"nvmlDeviceGetMemoryInfo");
	nv.name = (nvml_return(*)(nvml_device, char *, unsigned))dlsym(lib, "nvmlDeviceGetName");
	if (!init || !nv.by_bus || !nv.bar1 || init() != 0) {
		dlclose(lib);
		return false;
	}
	nv.ready = true;
	return true;
}

int gpu_nvml_query(const char *bdf, struct gpu_dev *out)
{
	nvml_device dev;
	struct nvml_bar1 b;
	struct nvml_memory m;

	if (!nvml_open() || nv.by_bus(bdf, &dev) || nv.bar1(dev, &b))
		return -1;
	out->have_nvml = true;
	out->nvml_bar1_total = b.total;
	out->nvml_bar1_used = b.used;
	if (nv.memory && !nv.memory(dev, &m))
		out->nvml_memory_total = m.total;
	if (!out->model[0] && nv.name) {
		char name[96] = "";
		if (!nv.name(dev, name, sizeof(name)))
			snprintf(out->model, sizeof(out->model), "%.63s", name);
	}
	return 0;
}
