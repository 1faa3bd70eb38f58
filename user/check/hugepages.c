// SPDX-License-Identifier: GPL-2.0-only
/* hugepages.c - hugetlb pools per page size.
 *
 * Hugepages matter to registration only when the buffer being registered is
 * hugetlb memory: pinning it faults pages in from the pool, and an empty pool
 * makes pin_user_pages fail (EFAULT), not ENOMEM.  NCCL does not need them.
 * So an unused pool is fine, and an exhausted one is a warning for processes
 * that use it, not a cause of errno 12. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "core/units.h"

#include <string.h>

#define HP_DIR "/sys/kernel/mm/hugepages"

static uint64_t rd(const char *root, const char *dir, const char *f, bool *ok)
{
	char p[512];
	uint64_t v = 0;
	snprintf(p, sizeof(p), HP_DIR "/%s/%s", dir, f);
	if (sr_read_u64(root, p, &v))
		*ok = false;
	return v;
}

void check_hugepages(struct chk_report *r)
{
	json_object *sec = chk_section(r, "hugepages");
	json_object *pools = json_object_new_array();
	json_object_object_add(sec, "pools", pools);
	char **names;
	int n = sr_list(r->opt.root, HP_DIR, &names);
	if (n <= 0) {
		chk_add(r, "hugepages", "hugepages", CHK_UNKNOWN, CHK_CLS_ENV, "pools",
			"%s unreadable", HP_DIR);
		return;
	}
	for (int i = 0; i < n; i++) {
		unsigned long kb;
		if (sscanf(names[i], "hugepages-%lukB", &kb) != 1)
			continue;
		bool ok = true;
		uint64_t total = rd(r->opt.root, names[i], "nr_hugepages", &ok);
		uint64_t free_ = rd(r->opt.root, names[i], "free_hugepages", &ok);
		uint64_t resv = rd(r->opt.root, names[i], "resv_hugepages", &ok);
		uint64_t surplus = rd(r->opt.root, names[i], "surplus_hugepages", &ok);
		uint64_t over = rd(r->opt.root, names[i], "nr_overcommit_hugepages", &ok);
		uint64_t size = (uint64_t)kb * 1024;

		json_object *o = json_object_new_object();
		json_object_object_add(o, "size_bytes", json_object_new_int64((int64_t)size));
		json_object_object_add(o, "total", json_object_new_int64((int64_t)total));
		json_object_object_add(o, "free", json_object_new_int64((int64_t)free_));
		json_object_object_add(o, "reserved", json_object_new_int64((int64_t)resv));
		json_object_object_add(o, "surplus", json_object_new_int64((int64_t)surplus));
		json_object_object_add(o, "overcommit", json_object_new_int64((int64_t)over));
		json_object_array_add(pools, o);

		char id[64], title[48], sz[32], tb[32];
		fmt_bytes(size, sz, sizeof(sz));
		snprintf(id, sizeof(id), "hugepages.%lukB", kb);
		snprintf(title, sizeof(title), "%.20s pages", sz);
		if (!ok) {
			chk_add(r, "hugepages", id, CHK_UNKNOWN, CHK_CLS_ENV, title, "unreadable");
			continue;
		}
		if (total == 0 && over == 0 && surplus == 0) {
			chk_add(r, "hugepages", id, CHK_OK, CHK_CLS_ENV, title,
				"none configured (not needed by NCCL)");
			continue;
		}
		/* Free pages already promised to mappings (reserved) are not
		 * available to anyone else. */
		uint64_t avail = free_ > resv ? free_ - resv : 0;
		bool exhausted = avail == 0 && over <= surplus;
		struct chk_item *it = chk_add(
			r, "hugepages", id, exhausted ? CHK_WARN : CHK_OK, CHK_CLS_ENV, title,
			"%llu total (%s), %llu free, %llu reserved, %llu surplus, overcommit %llu",
			(unsigned long long)total, fmt_bytes(total * size, tb, sizeof(tb)),
			(unsigned long long)free_, (unsigned long long)resv,
			(unsigned long long)surplus, (unsigned long long)over);
		if (exhausted) {
			chk_note(it, "The pool is used up: a process that registers hugetlb memory "
				 "it has not touched yet fails in pin_user_pages (EFAULT, cause "
				 "pin_hugetlb), not with ENOMEM.");
			chk_fix(it, "Raise vm.nr_hugepages (or nr_overcommit_hugepages) for this size, "
				"or find the user: grep -l huge /proc/*/smaps.");
		}
	}
	sr_free_names(names, n);
}
