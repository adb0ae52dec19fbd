/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the core parser: the input is taken as a file's content (ELF core,
 * zstd stream, record file, anything) and goes through source, locate and decode exactly as
 * ci_source_open would send it.  Decompression is capped so that a tiny zstd bomb cannot make a
 * run slow.  The ELF modules the memory shows (ci_source_modules: headers, program headers and
 * build-id notes read from the core) are listed and checked for the promises made about them.
 * Every record is decoded twice, completely and lazily (ci_decode_options.lazy), and the two
 * models must agree entry for entry.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "source/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A lazy model says what a complete one says (abort: libFuzzer keeps the input). */
static void compare(const struct ci_model *full, const struct ci_model *lazy)
{
	if (full->launch_count != lazy->launch_count || full->alloc_count != lazy->alloc_count ||
	    memcmp(full->sections, lazy->sections, sizeof full->sections) != 0 ||
	    full->warnings.count != lazy->warnings.count)
		abort();
	for (size_t i = 0; i < full->warnings.count; i++)
		if (strcmp(full->warnings.items[i], lazy->warnings.items[i]) != 0)
			abort();
	for (size_t i = 0; i < full->launch_count; i++)
		if (memcmp(ci_model_launch(full, i), ci_model_launch(lazy, i), sizeof(struct ci_launch)))
			abort();
	for (size_t i = 0; i < full->alloc_count; i++)
		if (memcmp(ci_model_alloc(full, i), ci_model_alloc(lazy, i), sizeof(struct ci_alloc)))
			abort();
	if (ci_model_launch(lazy, lazy->launch_count) || ci_model_alloc(lazy, lazy->alloc_count))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ci_source *src;
	struct ci_error *err = ci_source_open_memory("fuzz-input", data, size, NULL, 64u << 20, &src);
	if (err) {
		ci_error_destroy(err);
		return 0;
	}
	const struct ci_source_info *info = ci_source_info(src);
	/* Touch what the renderers will read. */
	volatile size_t sink = 0;
	for (size_t i = 0; i < info->mapping_count; i++)
		sink += strlen(info->mappings[i].path);
	if (info->executable)
		sink += strlen(info->executable);
	if (info->psargs)
		sink += strlen(info->psargs);
	struct ci_module *mods;
	size_t nmods;
	if (!ci_source_modules(src, &mods, &nmods)) {
		/* Sorted, not overlapping, within the cap, build-ids within their buffer. */
		if (nmods > CI_MAX_MODULES)
			abort();
		for (size_t i = 0; i < nmods; i++) {
			if (mods[i].start > mods[i].end || mods[i].build_id_len > sizeof mods[i].build_id ||
			    (i && mods[i].start < mods[i - 1].end))
				abort();
			if (mods[i].path)
				sink += strlen(mods[i].path);
		}
		free(mods);
	}
	struct ci_location loc;
	err = ci_locate(src, &loc);
	if (!err) {
		struct ci_model *m, *lazy;
		err = ci_decode(src, &loc, &m);
		if (!err) {
			struct ci_decode_options opts = { .lazy = true };
			if (ci_decode_with(src, &loc, &opts, &lazy))
				abort(); /* it decoded once */
			compare(m, lazy);
			ci_model_destroy(m);
			ci_model_destroy(lazy);
		}
	}
	ci_error_destroy(err);
	ci_source_close(src);
	(void)sink;
	return 0;
}
