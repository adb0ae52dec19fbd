/* SPDX-License-Identifier: MIT */
/*
 * Record time: CLOCK_MONOTONIC nanoseconds, as every time_ns field of the record says.  Reading
 * the clock is a good part of the launch path's cost (about 20 ns through the vDSO on the
 * reference machine), so where the kernel itself keeps time with an invariant TSC the recorder
 * reads the TSC (rdtsc) and converts it with a rate measured against CLOCK_MONOTONIC: first over
 * the first 20 ms, then again every second from a fresh anchor, which keeps the two clocks
 * within about a microsecond of each other and follows NTP's slewing.  Elsewhere, and until the
 * rate is known, it calls clock_gettime.  Everything here is async-signal-safe.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "recorder.h"

uint64_t ci_time_mark CI_HIDDEN;

#if defined(__x86_64__)
#include <x86intrin.h>

struct ci_tsc_anchor ci_tsc[2] CI_HIDDEN CI_HOT __attribute__((aligned(64)));
int ci_tsc_current CI_HIDDEN CI_HOT;
int ci_tsc_state CI_HIDDEN CI_HOT;
static int ci_tsc_busy;
static uint64_t ci_cal_tsc, ci_cal_mono;

static uint64_t ci_gettime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether the kernel keeps time with the TSC (so it is invariant and synchronised). */
static bool ci_tsc_trusted(void)
{
	char buf[32] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	return n >= 3 && !strncmp(buf, "tsc", 3) && (buf[3] == '\n' || buf[3] == 0);
}

void ci_clock_init(void)
{
	if (ci_tsc_state || !ci_tsc_trusted())
		return;
	ci_cal_mono = ci_gettime();
	ci_cal_tsc = __rdtsc();
	__atomic_store_n(&ci_tsc_state, 1, __ATOMIC_RELEASE);
}

/* Measure the rate since the last calibration point and publish a new anchor. */
static void ci_tsc_anchor(uint64_t tsc, uint64_t mono)
{
	if (tsc <= ci_cal_tsc || mono <= ci_cal_mono)
		return;
	unsigned __int128 m = ((unsigned __int128)(mono - ci_cal_mono) << 32) / (tsc - ci_cal_tsc);
	if (!m || m > UINT64_MAX / 2)
		return;
	int next = !__atomic_load_n(&ci_tsc_current, __ATOMIC_RELAXED);
	struct ci_tsc_anchor *a = &ci_tsc[next];
	a->tsc = tsc;
	a->mono = mono;
	a->mult = (uint64_t)m;
	a->span = (uint64_t)(((unsigned __int128)1000000000ull << 32) / m); /* ticks per second */
	__atomic_store_n(&ci_tsc_current, next, __ATOMIC_RELEASE);
	__atomic_store_n(&ci_tsc_state, 2, __ATOMIC_RELEASE);
	ci_cal_tsc = tsc;
	ci_cal_mono = mono;
}

uint64_t ci_now_slow(void)
{
	uint64_t mono = ci_gettime();
	int state = __atomic_load_n(&ci_tsc_state, __ATOMIC_ACQUIRE);
	if (!state || __atomic_exchange_n(&ci_tsc_busy, 1, __ATOMIC_ACQUIRE))
		return mono;
	uint64_t tsc = __rdtsc();
	/* The first rate after 20 ms of calibration, then a new anchor every second. */
	if (state == 2 || mono - ci_cal_mono >= 20000000)
		ci_tsc_anchor(tsc, mono);
	__atomic_store_n(&ci_tsc_busy, 0, __ATOMIC_RELEASE);
	return mono;
}

#else

void ci_clock_init(void)
{
}

uint64_t ci_now_slow(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
