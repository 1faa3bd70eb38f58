// SPDX-License-Identifier: GPL-2.0-only
/* options.c - argp definition and the consistency rules between options
 * (see options.h).  Everything a user can get wrong is rejected here, before
 * any privilege is dropped or device opened, with exit status 2. */
#include "options.h"

#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "core/units.h"

enum {
	OPT_API = 256,
	OPT_ACCESS,
	OPT_RELAXED,
	OPT_ATOMIC,
	OPT_IOVA_OFFSET,
	OPT_NCCL_CHANNELS,
	OPT_NCCL_PEERS,
	OPT_NCCL_BUFFSIZE,
	OPT_NCCL_GDR,
	OPT_HOLD,
	OPT_FIND_MAX,
	OPT_GPU,
	OPT_OFFSET,
	OPT_DMABUF_FD,
	OPT_THREAD,
	OPT_AS_NOBODY,
	OPT_DROP_IPC_LOCK,
	OPT_MEMLOCK,
	OPT_KEEP_GOING,
	OPT_NCCL_PROBE,
	OPT_NO_DEVICE,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to register:", 1 },
	{ "device", 'd', "NAME", 0, "RDMA device (default: the first one, as ibv_devices lists them)", 1 },
	{ "size", 's', "BYTES", 0, "Bytes per registration: 65536, 64K, 9.2M, 1G (default 16M)", 1 },
	{ "count", 'n', "N", 0, "Register N buffers of --size, all kept registered (default 1)", 1 },
	{ "nccl-channels", OPT_NCCL_CHANNELS, "N", 0,
	  "Derive the sizes from NCCL's network buffers: N channels (default 1)", 1 },
	{ "nccl-peers", OPT_NCCL_PEERS, "P", 0, "Network peers per channel (default 1)", 1 },
	{ "nccl-buffsize", OPT_NCCL_BUFFSIZE, "BYTES", 0, "NCCL_BUFFSIZE, the Simple buffer (default 4M)", 1 },
	{ "nccl-gdr", OPT_NCCL_GDR, NULL, 0,
	  "GPUDirect RDMA: LL128 and Simple live in GPU memory (registered only with --gpu)", 1 },
	{ "find-max", OPT_FIND_MAX, NULL, 0,
	  "Bisect the largest single registration the current limits allow (to the page); "
	  "--size caps the search (default: half of MemAvailable)", 1 },
	{ "hold", OPT_HOLD, "SECONDS", 0,
	  "Keep the MRs registered this long before exiting (Ctrl-C ends early), so they "
	  "accumulate like a live job's and a tracer can look", 1 },
	{ "keep-going", OPT_KEEP_GOING, NULL, 0,
	  "Try every registration; by default mrprobe stops at the first failure, as NCCL does", 1 },

	{ NULL, 0, NULL, 0, "How to register:", 2 },
	{ "api", OPT_API, "API", 0,
	  "reg_mr | iova2 | dmabuf (default iova2, NCCL's call with relaxed ordering; dmabuf with "
	  "--mem udmabuf or --dmabuf-fd)", 2 },
	{ "access", OPT_ACCESS, "LIST", 0,
	  "Replace NCCL's flags (local-write,remote-write,remote-read) with names joined by ',' "
	  "or a number such as 0x7; invalid combinations are passed on to the kernel", 2 },
	{ "relaxed-ordering", OPT_RELAXED, NULL, 0, "Add IBV_ACCESS_RELAXED_ORDERING", 2 },
	{ "remote-atomic", OPT_ATOMIC, NULL, 0, "Add IBV_ACCESS_REMOTE_ATOMIC (NCCL 2.28.7+)", 2 },
	{ "iova-offset", OPT_IOVA_OFFSET, "N", 0,
	  "Pass iova = addr + N; an N that is not a multiple of the page size makes the iova's "
	  "page offset differ from the address's (EINVAL)", 2 },

	{ NULL, 0, NULL, 0, "Which memory:", 3 },
	{ "mem", 'm', "KIND", 0,
	  "anon (default) | malloc | hugetlb | vvar | unmapped | prot-none | readonly | udmabuf | gpu", 3 },
	{ "gpu", OPT_GPU, NULL, 0, "Same as --mem gpu (needs the NVIDIA driver's libcuda.so.1)", 3 },
	{ "offset", OPT_OFFSET, "BYTES", 0,
	  "Start the buffer this many bytes into its mapping (anon, hugetlb, prot-none, readonly, "
	  "unmapped), to test unaligned starts", 3 },
	{ "dmabuf-fd", OPT_DMABUF_FD, "FD", 0,
	  "Register this dma-buf fd (offset 0, length --size or 0, access --access or 0); -1 is "
	  "NCCL's init probe ibv_reg_dmabuf_mr(pd,0,0,0,-1,0)", 3 },
	{ "no-device", OPT_NO_DEVICE, NULL, 0,
	  "Allocate (and with --api dmabuf export) the memory only, register nothing: "
	  "GPU memory and its dma-buf on a machine without an RDMA device", 3 },
	{ "nccl-probe", OPT_NCCL_PROBE, NULL, 0,
	  "First make NCCL's init probe ibv_reg_dmabuf_mr(pd,0,0,0,-1,0) in this process, as "
	  "NCCL does before it chooses how to register GPU memory", 3 },

	{ NULL, 0, NULL, 0, "As whom (applied in this order, before the device is opened):", 4 },
	{ "memlock", OPT_MEMLOCK, "BYTES", 0,
	  "Set RLIMIT_MEMLOCK soft = hard = BYTES ('unlimited' too); raising it needs "
	  "CAP_SYS_RESOURCE", 4 },
	{ "drop-ipc-lock", OPT_DROP_IPC_LOCK, NULL, 0,
	  "Drop CAP_IPC_LOCK (effective, permitted, inheritable, ambient, bounding)", 4 },
	{ "as-nobody", OPT_AS_NOBODY, NULL, 0, "Switch to user nobody, group nogroup (needs root)", 4 },
	{ "thread", OPT_THREAD, NULL, 0,
	  "Register from a second thread, as NCCL's proxy thread does", 4 },

	{ NULL, 0, NULL, 0, "Output:", 5 },
	{ "json", 'j', NULL, 0, "One JSON object per line (events setup, mr, trial, find_max, summary)", 5 },
	{ 0 }
};

static const char doc[] =
	"mrprobe -- register memory the way NCCL does and report what the kernel said.\n\n"
	"One line per registration: index, size and pages, bytes pinned so far by this "
	"process's MRs, OK or FAIL with the errno.  Exit status: 0 every registration "
	"succeeded, 1 one failed, 2 usage or setup error (no RDMA device, bad option...)."
	"\v"
	"Examples:\n"
	"  mrprobe -d rxe0\n"
	"      one 16 MiB registration with NCCL's flags\n"
	"  mrprobe --size 9.2M --count 64 --hold 60\n"
	"      64 MRs that stay registered together for a minute, like a live job\n"
	"  mrprobe --nccl-channels 4 --nccl-peers 2\n"
	"      NCCL's network buffers: 4 x 2 x 2 connections x 9.2 MiB = 147 MiB\n"
	"  mrprobe --memlock 64K --as-nobody\n"
	"      the classic ENOMEM: an unprivileged job under a 64 KiB limit\n"
	"  mrprobe --memlock 0 --as-nobody\n"
	"      limit 0 and no CAP_IPC_LOCK: EPERM before anything is pinned\n"
	"  mrprobe --memlock 64K --drop-ipc-lock\n"
	"      root without CAP_IPC_LOCK obeys the limit as well\n"
	"  mrprobe --memlock 40M --as-nobody --find-max\n"
	"      the largest registration that still fits, to the page\n"
	"  mrprobe --mem malloc\n"
	"      a malloc'd 16 MiB buffer starts 16 bytes into a page: 4097 pages\n"
	"  mrprobe --mem vvar\n"
	"      VM_IO|VM_PFNMAP memory, as GPU memory without nvidia-peermem: EFAULT\n"
	"  mrprobe --mem readonly\n"
	"      write access to a read-only mapping: EFAULT\n"
	"  mrprobe --access remote-write\n"
	"      REMOTE_WRITE without LOCAL_WRITE: EINVAL\n"
	"  mrprobe --iova-offset 16\n"
	"      the iova's page offset differs from the address's: EINVAL\n"
	"  mrprobe --dmabuf-fd -1\n"
	"      NCCL's init probe: EBADF, or EOPNOTSUPP without dma-buf support\n"
	"  mrprobe --nccl-probe --mem vvar\n"
	"      NCCL's probe, then device memory registered by address: the fallback NCCL takes\n"
	"  mrprobe --mem udmabuf\n"
	"      a real dma-buf through ibv_reg_dmabuf_mr (rxe: EOPNOTSUPP)\n"
	"  mrprobe --gpu --api dmabuf\n"
	"      GPU memory the way NCCL registers it (needs an NVIDIA GPU)\n"
	"  mrprobe --json | jq -c 'select(.result==\"FAIL\")'\n"
	"      only the failures, as JSON\n\n"
	"Sizes take K, M, G, T suffixes in binary units (9.2M = 9.2 x 2^20 bytes).  The NCCL "
	"layout registers per connection LL 512 KiB + LL128 4,915,200 B + Simple NCCL_BUFFSIZE, "
	"channels x 2 x peers connections; see docs/mrprobe.md.";

static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_int64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* Cross-option rules, once every option is known. */
static int check_combination(struct argp_state *st, struct mrprobe_opts *o)
{
	if (o->nccl_set && (o->size_set || o->count_set)) {
		argp_error(st, "--nccl-* derives the sizes from NCCL's layout; drop --size/--count");
		return EINVAL;
	}
	if (o->find_max && (o->nccl_set || o->count_set)) {
		argp_error(st, "--find-max searches one registration size; drop --count/--nccl-*");
		return EINVAL;
	}
	if (!o->api_set)
		o->api = (o->mem == MEM_UDMABUF || o->mem == MEM_DMABUF_FD) ? API_DMABUF : API_IOVA2;
	if ((o->mem == MEM_UDMABUF || o->mem == MEM_DMABUF_FD) && o->api != API_DMABUF) {
		argp_error(st, "a dma-buf (--mem udmabuf, --dmabuf-fd) registers only with --api dmabuf");
		return EINVAL;
	}
	if (o->api == API_DMABUF && !o->nccl_set && o->mem != MEM_UDMABUF && o->mem != MEM_GPU &&
	    o->mem != MEM_DMABUF_FD) {
		argp_error(st, "--api dmabuf needs a dma-buf: add --mem udmabuf, --gpu or --dmabuf-fd FD");
		return EINVAL;
	}
	if (o->nccl_set && (o->mem == MEM_UDMABUF || o->mem == MEM_DMABUF_FD)) {
		argp_error(st, "--nccl-* registers host (and with --gpu GPU) buffers; "
			       "use --api dmabuf --gpu for NCCL's dma-buf path");
		return EINVAL;
	}
	if (o->find_max && o->api == API_DMABUF) {
		argp_error(st, "--find-max measures memlock-accounted registrations; dma-buf MRs are "
			       "not accounted");
		return EINVAL;
	}
	if (o->iova_offset && o->api == API_REG_MR) {
		argp_error(st, "ibv_reg_mr takes no iova; use --api iova2 (or dmabuf) with --iova-offset");
		return EINVAL;
	}
	if (o->offset && o->mem != MEM_ANON && o->mem != MEM_HUGETLB && o->mem != MEM_PROT_NONE &&
	    o->mem != MEM_READONLY && o->mem != MEM_UNMAPPED) {
		argp_error(st, "--offset applies to --mem anon, hugetlb, prot-none, readonly or unmapped");
		return EINVAL;
	}
	if (o->nccl_set) {
		uint64_t regs = nccl_layout_connections(&o->nccl) * NCCL_NPROTOS;
		if (regs > MAX_REGISTRATIONS) {
			argp_error(st, "the NCCL layout asks for %llu registrations; mrprobe stops at %u",
				   (unsigned long long)regs, MAX_REGISTRATIONS);
			return EINVAL;
		}
	}
	if (o->mem == MEM_DMABUF_FD && !o->size_set)
		o->size = 0; /* NCCL's probe registers length 0 */
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct mrprobe_opts *o = st->input;
	const char *bad;

	switch (key) {
	case 'd':
		o->device = arg;
		break;
	case 's':
		if (parse_bytes(arg, &o->size) || o->size == UINT64_MAX) {
			argp_error(st, "--size: '%s' is not a size (try 65536, 64K, 9.2M, 1G)", arg);
			return EINVAL;
		}
		o->size_set = true;
		break;
	case 'n':
		if (parse_uint(arg, 1, MAX_REGISTRATIONS, &o->count)) {
			argp_error(st, "--count: '%s' is not a number from 1 to %u", arg, MAX_REGISTRATIONS);
			return EINVAL;
		}
		o->count_set = true;
		break;
	case OPT_NCCL_CHANNELS:
		if (parse_uint(arg, 1, 1024, &o->nccl.channels)) {
			argp_error(st, "--nccl-channels: '%s' is not a number from 1 to 1024", arg);
			return EINVAL;
		}
		o->nccl_set = true;
		break;
	case OPT_NCCL_PEERS:
		if (parse_uint(arg, 1, 65536, &o->nccl.peers)) {
			argp_error(st, "--nccl-peers: '%s' is not a number from 1 to 65536", arg);
			return EINVAL;
		}
		o->nccl_set = true;
		break;
	case OPT_NCCL_BUFFSIZE:
		if (parse_bytes(arg, &o->nccl.buffsize) || o->nccl.buffsize == 0 ||
		    o->nccl.buffsize > (64ull << 30)) {
			argp_error(st, "--nccl-buffsize: '%s' is not a size from 1 B to 64G", arg);
			return EINVAL;
		}
		o->nccl_set = true;
		break;
	case OPT_NCCL_GDR:
		o->nccl.gdr = true;
		o->nccl_set = true;
		break;
	case OPT_FIND_MAX:
		o->find_max = true;
		break;
	case OPT_HOLD: {
		char *end;
		errno = 0;
		o->hold = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->hold >= 0) || o->hold > 1e9) {
			argp_error(st, "--hold: '%s' is not a number of seconds", arg);
			return EINVAL;
		}
		break;
	}
	case OPT_KEEP_GOING:
		o->keep_going = true;
		break;
	case OPT_NCCL_PROBE:
		o->nccl_probe = true;
		break;
	case OPT_NO_DEVICE:
		o->no_device = true;
		break;
	case OPT_API:
		if (mp_api_parse(arg, &o->api)) {
			argp_error(st, "--api: '%s' is not reg_mr, iova2 or dmabuf", arg);
			return EINVAL;
		}
		o->api_set = true;
		break;
	case OPT_ACCESS:
		if (mp_access_parse(arg, &o->access, &bad)) {
			argp_error(st, "--access: cannot read '%s' at '%s'; use a number or names from: %s",
				   arg, bad, mp_access_names_help());
			return EINVAL;
		}
		o->access_set = true;
		break;
	case OPT_RELAXED:
		o->relaxed_ordering = true;
		break;
	case OPT_ATOMIC:
		o->remote_atomic = true;
		break;
	case OPT_IOVA_OFFSET:
		if (parse_int64(arg, &o->iova_offset)) {
			argp_error(st, "--iova-offset: '%s' is not an integer", arg);
			return EINVAL;
		}
		break;
	case 'm':
		if (o->mem == MEM_DMABUF_FD) {
			argp_error(st, "--dmabuf-fd and --mem both choose the memory; use one");
			return EINVAL;
		}
		if (mp_mem_parse(arg, &o->mem)) {
			argp_error(st, "--mem: '%s' is not one of anon, malloc, hugetlb, vvar, unmapped, "
				       "prot-none, readonly, udmabuf, gpu", arg);
			return EINVAL;
		}
		o->mem_set = true;
		break;
	case OPT_GPU:
		if (o->mem == MEM_DMABUF_FD) {
			argp_error(st, "--dmabuf-fd and --gpu both choose the memory; use one");
			return EINVAL;
		}
		o->mem = MEM_GPU;
		o->mem_set = true;
		break;
	case OPT_OFFSET:
		if (parse_bytes(arg, &o->offset) || o->offset > (1ull << 30)) {
			argp_error(st, "--offset: '%s' is not a size up to 1G", arg);
			return EINVAL;
		}
		break;
	case OPT_DMABUF_FD: {
		int64_t fd;
		if (parse_int64(arg, &fd) || fd < -1 || fd > INT_MAX) {
			argp_error(st, "--dmabuf-fd: '%s' is not a file descriptor (or -1)", arg);
			return EINVAL;
		}
		o->dmabuf_fd = (int)fd;
		if (o->mem_set) {
			argp_error(st, "--dmabuf-fd and --mem both choose the memory; use one");
			return EINVAL;
		}
		o->mem = MEM_DMABUF_FD;
		break;
	}
	case OPT_MEMLOCK:
		if (parse_bytes(arg, &o->memlock)) {
			argp_error(st, "--memlock: '%s' is not a size (try 0, 64K, 40M, unlimited)", arg);
			return EINVAL;
		}
		o->memlock_set = true;
		break;
	case OPT_DROP_IPC_LOCK:
		o->drop_ipc_lock = true;
		break;
	case OPT_AS_NOBODY:
		o->as_nobody = true;
		break;
	case OPT_THREAD:
		o->thread = true;
		break;
	case 'j':
		o->json = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		return check_combination(st, o);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };

int mp_opts_parse(int argc, char **argv, unsigned argp_flags, struct mrprobe_opts *o)
{
	*o = (struct mrprobe_opts){
		.size = DEFAULT_SIZE,
		.count = 1,
		.nccl = { .channels = 1, .peers = 1, .buffsize = NCCL_BUFFSIZE_DEFAULT },
		.mem = MEM_ANON,
		.dmabuf_fd = -1,
	};
	/* Usage errors exit with 2, like setup failures; 1 means "a registration failed". */
	argp_err_exit_status = 2;
	return argp_parse(&argp, argc, argv, argp_flags, NULL, o);
}

unsigned mp_opts_access(const struct mrprobe_opts *o)
{
	unsigned a = o->access_set ? o->access : o->mem == MEM_DMABUF_FD ? 0 : ACCESS_NCCL;
	if (o->relaxed_ordering)
		a |= IBV_ACCESS_RELAXED_ORDERING;
	if (o->remote_atomic)
		a |= IBV_ACCESS_REMOTE_ATOMIC;
	return a;
}
