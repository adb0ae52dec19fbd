/*
 * The launch-storm contract: every launch that build/launchstorm makes is a pure function of
 * (thread index t, per-thread counter i), so a consumer that finds a launch in a flight record
 * can recompute all of it from the parameters and tell a complete entry from a torn or mixed
 * one.  i starts at 1 on each thread and grows by 1 per launch.  Kernel: storm_probe, whose
 * parameters are laid out as
 *     offset 0  u64 i
 *     offset 8  u32 i * 7 (truncated to 32 bits)
 *     offset 12 s32 t
 *     offset 16 u64 storm_check(t, i)
 *     offset 24 u64 device pointer `out` (one buffer, the same for every launch of a run)
 * Launch shape: grid (i % 1000 + 1, t + 1, 1), block ((i % 8 + 1) * 32, 1, 1), shared memory
 * (i % 4) * 256 bytes, on the thread's own stream.  docs/ENGINES.md repeats this.
 */
#ifndef ENGINE_STORM_H
#define ENGINE_STORM_H

#include <stdint.h>

#define STORM_KERNEL "storm_probe"
#define STORM_PARAM_BYTES 32

struct storm_launch {
	uint32_t grid[3], block[3], shared_mem;
	uint64_t i;
	uint32_t i7;
	int32_t thread;
	uint64_t check;
};

static inline uint64_t storm_check(uint32_t t, uint64_t i)
{
	return ((uint64_t)t << 56) ^ (i * 0x9E3779B97F4A7C15ULL);
}

static inline void storm_launch_for(uint32_t t, uint64_t i, struct storm_launch *l)
{
	l->grid[0] = (uint32_t)(i % 1000 + 1);
	l->grid[1] = t + 1;
	l->grid[2] = 1;
	l->block[0] = (uint32_t)(i % 8 + 1) * 32;
	l->block[1] = 1;
	l->block[2] = 1;
	l->shared_mem = (uint32_t)(i % 4) * 256;
	l->i = i;
	l->i7 = (uint32_t)(i * 7);
	l->thread = (int32_t)t;
	l->check = storm_check(t, i);
}

#endif /* ENGINE_STORM_H */
