/*
 * launchstorm: T threads each launch storm_probe as fast as they can on their own stream, for a
 * count or a duration, with every grid, block, shared-memory and parameter value derived from
 * the thread index and a per-thread counter (storm.h).  A consumer of the flight record can
 * therefore check every recorded launch for internal consistency, which is how the recorder's
 * ThreadSanitizer and kill -9 tests tell complete entries from torn ones.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "storm.h"

#define MAX_THREADS 64

static struct {
	unsigned threads;
	unsigned long long launches; /* per thread; 0 with --seconds means unbounded */
	unsigned seconds;
	unsigned sync_every;
	int ptsz, bootstrap, quiet;
} opt = {.threads = 4, .launches = 10000, .sync_every = 256};

static CUcontext ctx;
static CUfunction probe;
static CUdeviceptr out;
static pthread_barrier_t start;
static uint64_t deadline_ns;

struct storm_thread {
	pthread_t thread;
	unsigned index;
	unsigned long long done;
};

static void *storm_main(void *arg)
{
	struct storm_thread *s = arg;
	char name[16];
	snprintf(name, sizeof name, "storm-%u", s->index);
	pthread_setname_np(pthread_self(), name);
	CHECK(drv.CtxSetCurrent(ctx));
	CUstream stream = NULL; /* --ptsz: the thread's per-thread default stream */
	if (!opt.ptsz)
		CHECK(drv.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	if (engine_verbose)
		fprintf(stderr, "launchstorm: thread %u is tid %d, stream %p\n", s->index,
			(int)engine_tid(), (void *)stream);
	pthread_barrier_wait(&start);

	for (uint64_t i = 1; opt.launches == 0 || i <= opt.launches; i++) {
		struct storm_launch l;
		storm_launch_for(s->index, i, &l);
		void *params[] = {&l.i, &l.i7, &l.thread, &l.check, &out};
		CHECK(drv.LaunchKernel(probe, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
				       l.block[2], l.shared_mem, stream, params, NULL));
		s->done = i;
		/* Bound the queue; a simulated stream would otherwise hold every launch. */
		if (opt.sync_every && i % opt.sync_every == 0)
			CHECK(drv.StreamSynchronize(stream));
		if (deadline_ns && i % 64 == 0 && engine_now_ns() >= deadline_ns)
			break;
	}
	CHECK(drv.StreamSynchronize(stream));
	if (stream)
		CHECK(drv.StreamDestroy(stream));
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: launchstorm [OPTIONS]\n"
		"T threads launch storm_probe as fast as they can on their own streams; every\n"
		"launch's shape and parameters derive from (thread, counter): see storm.h and\n"
		"docs/ENGINES.md.\n"
		"\n"
		"  --threads N     launching threads (default 4, at most %d)\n"
		"  --launches N    launches per thread (default 10000; 0 = no limit, needs --seconds)\n"
		"  --seconds N     stop each thread after N seconds\n"
		"  --sync-every K  synchronize the stream every K launches (default 256, 0 = at end)\n"
		"  --ptsz          per-thread default streams through the _ptsz entry points\n"
		"  --bootstrap     reach the driver through dlsym + cuGetProcAddress like cudart\n"
		"  --quiet         print nothing but errors\n"
		"  --verbose       print thread ids and streams\n"
		"  --help          this text\n"
		"\n"
		"Exit status: 0 done; 1 setup failed; 2 bad usage; CUDA errors abort.\n",
		MAX_THREADS);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"threads", required_argument, NULL, 't'},
		{"launches", required_argument, NULL, 'n'},
		{"seconds", required_argument, NULL, 's'},
		{"sync-every", required_argument, NULL, 'k'},
		{"ptsz", no_argument, NULL, 'p'},
		{"bootstrap", no_argument, NULL, 'b'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	engine_prog = "launchstorm";
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't': opt.threads = engine_parse_ulong("--threads", optarg, 1, MAX_THREADS); break;
		case 'n': opt.launches = engine_parse_ulong("--launches", optarg, 0, ~0ul); break;
		case 's': opt.seconds = engine_parse_ulong("--seconds", optarg, 1, 86400); break;
		case 'k': opt.sync_every = engine_parse_ulong("--sync-every", optarg, 0, ~0u); break;
		case 'p': opt.ptsz = 1; break;
		case 'b': opt.bootstrap = 1; break;
		case 'q': opt.quiet = 1; break;
		case 'v': engine_verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: fprintf(stderr, "launchstorm: see --help for the options\n"); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "launchstorm: unexpected argument '%s'; see --help\n", argv[optind]);
		return 2;
	}
	if (opt.launches == 0 && opt.seconds == 0) {
		fprintf(stderr, "launchstorm: --launches 0 runs forever; give --seconds too\n");
		return 2;
	}
	if (opt.quiet)
		engine_verbose = 0;

	if (opt.bootstrap) {
		if (drv_open_bootstrap(opt.ptsz, engine_verbose))
			return 1;
	} else {
		drv_open_direct(opt.ptsz);
	}
	CUdevice dev;
	CUmodule module;
	CHECK(drv.Init(0));
	CHECK(drv.DeviceGet(&dev, 0));
	CHECK(drv.DevicePrimaryCtxRetain(&ctx, dev));
	CHECK(drv.CtxSetCurrent(ctx));
	CHECK(engine_load_kernels(&module, opt.quiet));
	CHECK(drv.ModuleGetFunction(&probe, module, STORM_KERNEL));
	CHECK(drv.MemAlloc(&out, MAX_THREADS * sizeof(uint64_t)));

	struct storm_thread threads[MAX_THREADS];
	pthread_barrier_init(&start, NULL, opt.threads + 1);
	for (unsigned t = 0; t < opt.threads; t++) {
		threads[t] = (struct storm_thread){.index = t};
		if (pthread_create(&threads[t].thread, NULL, storm_main, &threads[t]))
			engine_die(1, "cannot start thread %u", t);
	}
	uint64_t t0 = engine_now_ns();
	if (opt.seconds)
		deadline_ns = t0 + opt.seconds * 1000000000ull;
	pthread_barrier_wait(&start);
	unsigned long long total = 0;
	for (unsigned t = 0; t < opt.threads; t++) {
		pthread_join(threads[t].thread, NULL);
		total += threads[t].done;
	}
	double secs = (engine_now_ns() - t0) / 1e9;

	CHECK(drv.MemFree(out));
	CHECK(drv.ModuleUnload(module));
	CHECK(drv.DevicePrimaryCtxRelease(dev));
	if (!opt.quiet)
		printf("launchstorm: %u threads, %llu launches in %.3f s (%.0f launches/s), door %s\n",
		       opt.threads, total, secs, secs > 0 ? total / secs : 0.0, drv.door);
	return 0;
}
