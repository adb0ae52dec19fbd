/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the core parser: the input is taken as a file's content (ELF core,
 * zstd stream, record file, anything) and goes through source, locate and decode exactly as
 * ci_source_open would send it.  Decompression is capped so that a tiny zstd bomb cannot make a
 * run slow.
 */
#include <stddef.h>
#include <stdint.h>

#include "reader-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	struct ci_location loc;
	err = ci_locate(src, &loc);
	if (!err) {
		struct ci_model *m;
		err = ci_decode(src, &loc, &m);
		if (!err)
			ci_model_destroy(m);
	}
	ci_error_destroy(err);
	ci_source_close(src);
	(void)sink;
	return 0;
}
