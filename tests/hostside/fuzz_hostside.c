/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the host-side report of a core without a flight record
 * (corefile/hostside.c, hostside_render.c): the input is taken as a core file's content and,
 * when it opens as a core, goes through ci_hostside_create (unwinding, the abort message, the
 * C++ exception, the CUDA libraries) and both renderers and the GDB banner's gist, as the CLI
 * and the plugin run them.  Files the core names are opened only when they are regular files,
 * so the inputs' mapping paths reach no device.  tests/hostside/fuzz.t runs it in `make check`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	struct ci_source *src;
	struct ci_error *err = ci_source_open_memory("fuzz-input", data, size, NULL, 64u << 20, &src);
	if (err) {
		ci_error_destroy(err);
		return 0;
	}
	struct ci_hostside *h = NULL;
	err = ci_hostside_create(src, NULL, &h);
	if (!err) {
		char gist[2048];
		ci_hostside_render(null, h, false, "no record", 80, NULL);
		ci_hostside_render(null, h, true, "no record", 80, NULL);
		ci_hostside_gist(h, gist, sizeof gist);
		if (h->thread_count && h->cuda_thread_count > h->thread_count)
			abort();
	}
	ci_error_destroy(err);
	ci_hostside_destroy(h);
	ci_source_close(src);
	return 0;
}
