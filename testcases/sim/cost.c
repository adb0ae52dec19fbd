/* The simulator's cost model (CUDASIM_COST, docs/SIMULATOR.md "Cost model").
 *
 * The simulated driver answers in tens of nanoseconds; a real one spends microseconds of the
 * calling thread's CPU in each call, and part of that under a lock its other threads wait for.
 * What a recorder adds is only judged right against the real cost, so with CUDASIM_COST=h200
 * each entry point of a kind spends, on the calling thread, the time measured for that kind on
 * an NVIDIA H200 with driver 580.159.04 (testcases/gpu/costprobe on 2026-12-04; the figures are
 * kept in testcases/sim/cost-h200.txt): the serial part inside one process-wide lock (what the
 * same call took per call across 8 threads: their aggregate rate), the rest outside it.  The time
 * is spent spinning on the monotonic clock, so it is CPU time, as the driver's is; it composes
 * with CUDASIM_MODE=null (work still completes inline) and the normal asynchronous mode.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim.h"

/* Nanoseconds per call: serial (under the driver's lock) and parallel, by kind. */
struct sim_cost_row {
	const char *name;
	unsigned serial_ns, parallel_ns;
};

/* H200, driver 580.159.04, CUDA 13.0, Intel host of 16 CPUs (testcases/sim/cost-h200.txt).
 * Launch: 3,798 ns per cuLaunchKernel at 1 thread, 9,723 ns per call per thread at 8 (an
 * aggregate of one per 1,215 ns), and launchstorm's own share of a launch loop at 1 thread
 * (237,192 launches/s plain: 4,216 ns per launch) puts the whole at 4,100.  Stream memory
 * operations: 1,192 ns alone, 1,294 ns after a launch; 7,988 ns at 8 threads (one per 998 ns).
 * Events without timing are almost all serial (138 ns; 1,309 at 8 threads).  Allocation and
 * graph launches serialize completely (8 threads took longer per call than one thread alone).
 * Kinds measured at one thread only keep the launch's split (about 30 % serial). */
static const struct sim_cost_row sim_cost_h200[SIM_COST_KINDS] = {
	[SIM_COST_LAUNCH] = { "launch", 1215, 2885 },
	[SIM_COST_MEMOP] = { "stream memory operation", 1000, 290 },
	[SIM_COST_EVENT_RECORD] = { "event record", 138, 0 },
	[SIM_COST_EVENT_RECORD_TIMING] = { "event record (timing)", 1425, 0 },
	[SIM_COST_QUERY] = { "stream or event query", 100, 240 },
	[SIM_COST_SYNC] = { "synchronize (idle)", 130, 300 },
	[SIM_COST_ALLOC] = { "cuMemAlloc", 1935, 0 },
	[SIM_COST_FREE] = { "cuMemFree", 1935, 0 },
	[SIM_COST_ALLOC_ASYNC] = { "cuMemAllocAsync", 476, 0 },
	[SIM_COST_FREE_ASYNC] = { "cuMemFreeAsync", 476, 0 },
	[SIM_COST_GRAPH_LAUNCH] = { "cuGraphLaunch", 1300, 0 },
	[SIM_COST_COPY] = { "copy", 780, 1820 },
	[SIM_COST_MEMSET] = { "memset", 400, 930 },
	[SIM_COST_CTX_QUERY] = { "current context", 0, 17 },
	[SIM_COST_CAPTURE_QUERY] = { "capture query", 0, 24 },
	[SIM_COST_POINTER_QUERY] = { "pointer attribute", 0, 83 },
	[SIM_COST_NAME_QUERY] = { "function or kernel name", 0, 22 },
};

static const struct sim_cost_row *sim_cost_table;
int sim_cost_active;
static pthread_mutex_t sim_cost_lock = PTHREAD_MUTEX_INITIALIZER;

int sim_cost_configure(const char *v)
{
	if (!v || !*v || !strcmp(v, "none") || !strcmp(v, "0") || !strcmp(v, "off")) {
		sim_cost_table = NULL;
		sim_cost_active = 0;
		return 0;
	}
	if (!strcmp(v, "h200")) {
		sim_cost_table = sim_cost_h200;
		sim_cost_active = 1;
		return 0;
	}
	sim_log("CUDASIM_COST='%s' is unknown; use 'h200' or 'none'", v);
	return -1;
}

const char *sim_cost_model(void)
{
	return sim_cost_table ? "h200" : "none";
}

static uint64_t sim_cost_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sim_cost_spin(unsigned ns)
{
	if (!ns)
		return;
	uint64_t until = sim_cost_now() + ns;
	while (sim_cost_now() < until)
		__asm__ __volatile__("" ::: "memory");
}

void sim_cost_spend(enum sim_cost_kind kind)
{
	const struct sim_cost_row *row = &sim_cost_table[kind];
	if (row->serial_ns) {
		pthread_mutex_lock(&sim_cost_lock);
		sim_cost_spin(row->serial_ns);
		pthread_mutex_unlock(&sim_cost_lock);
	}
	sim_cost_spin(row->parallel_ns);
}

int sim_cost_on(void)
{
	return sim_cost_table != NULL;
}
