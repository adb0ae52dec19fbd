/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the freed-allocation ranges the JIT reader names (plugin/freed.c): hand-built
 * models whose expected ranges follow from the precedence rules in freed.h (live beats freed,
 * newer free beats older, host modules and host memory are never named).
 */
#include <stdlib.h>
#include <string.h>

#include "../../plugin/freed.h"
#include "../lib/tap.h"

static struct ci_alloc alloc(uint64_t id, uint64_t address, uint64_t size, uint32_t kind)
{
	return (struct ci_alloc){ .seq = id, .id = id, .address = address, .size = size,
				  .kind = kind, .state = CI_ALLOC_FREED };
}

/* Ranges as "start-end:id start-end:id ..." (hex addresses), for one comparison per case. */
static char *ranges_text(struct ci_model *m)
{
	static char buf[1024];
	struct ci_freed_range *r;
	size_t n;
	if (ci_freed_ranges(m, &r, &n))
		return "error";
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, "%s%llx-%llx:%llu", i ? " " : "",
			 (unsigned long long)r[i].start, (unsigned long long)r[i].end,
			 (unsigned long long)r[i].id);
	}
	free(r);
	return buf;
}

int main(void)
{
	plan(7);
	struct ci_alloc live[4], frees[6];
	struct ci_host_module mods[1];
	struct ci_model m = { .allocs = live, .frees = frees, .host_modules = mods };

	m.free_count = 1;
	frees[0] = alloc(7, 0x1000, 0x100, CI_ALLOC_DEVICE);
	is_str(ranges_text(&m), "1000-1100:7", "a lone free is named whole");

	m.alloc_count = 1;
	live[0] = alloc(9, 0x1040, 0x40, CI_ALLOC_DEVICE);
	live[0].state = CI_ALLOC_LIVE;
	is_str(ranges_text(&m), "1000-1040:7 1080-1100:7",
	       "a live allocation inside a freed one splits it; the live part stays unnamed");

	/* Oldest first in the model: id 10 freed before id 11 at an overlapping address. */
	m.alloc_count = 0;
	m.free_count = 2;
	frees[0] = alloc(10, 0x2000, 0x200, CI_ALLOC_DEVICE);
	frees[1] = alloc(11, 0x2100, 0x200, CI_ALLOC_ASYNC);
	is_str(ranges_text(&m), "2000-2100:10 2100-2300:11", "a newer free wins where two overlap");

	m.free_count = 3;
	frees[2] = alloc(12, 0x3000, 0x100, CI_ALLOC_HOST);
	frees[0] = alloc(13, 0x4000, 0x100, CI_ALLOC_HOST_REGISTER);
	frees[1] = alloc(14, 0x5000, 0x100, CI_ALLOC_VMM_RESERVE);
	is_str(ranges_text(&m), "", "freed host memory and reservations are never named");

	m.free_count = 1;
	frees[0] = alloc(15, 0x6000, 0x3000, CI_ALLOC_MANAGED);
	m.host_module_count = 1;
	mods[0] = (struct ci_host_module){ .seq = 1, .start = 0x7000, .end = 0x8000 };
	is_str(ranges_text(&m), "6000-7000:15 8000-9000:15",
	       "a loaded host module's range is never named");
	mods[0].unload_ns = 5;
	is_str(ranges_text(&m), "6000-9000:15", "an unloaded module no longer shields its range");

	/* Several live allocations across one big free, touching and not. */
	m.host_module_count = 0;
	m.alloc_count = 3;
	live[0] = alloc(20, 0x10000, 0x1000, CI_ALLOC_HOST); /* any live kind wins */
	live[1] = alloc(21, 0x11000, 0x1000, CI_ALLOC_DEVICE);
	live[2] = alloc(22, 0x13000, 0x1000, CI_ALLOC_DEVICE);
	frees[0] = alloc(16, 0xf000, 0x6000, CI_ALLOC_DEVICE);
	is_str(ranges_text(&m), "f000-10000:16 12000-13000:16 14000-15000:16",
	       "touching and separate live allocations carve a free into the gaps");
	return done_testing();
}
