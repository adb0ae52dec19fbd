/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the GPU core reader (corefile/gpucore/): the input is taken as a
 * file's content (a GPU core, plain or zstd, or anything else) and read as ci_gpucore_open
 * would; every index of the model must point inside it, and what a report would ask is asked
 * (where each warp's PC is, the fault's registers, the lines).  An input that is an ELF image of
 * machine EM_CUDA but not a core (a cubin, as the seeds extracted from dumps are) also goes to
 * the cubin reader and the SASS decoder directly, so that mutations reach the symbol and line
 * tables without having to keep a whole dump intact.  A model read is also rendered as the CLI
 * renders it (summary, warps, JSON) into memory.  Decompression is capped at 64 MiB.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpucore/gpucore.h"
#include "report/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void check_model(struct ci_gpucore *gc)
{
	for (size_t i = 0; i < gc->context_count; i++) {
		CHECK(gc->contexts[i].device < gc->device_count);
		const struct ci_gpu_context *c = &gc->contexts[i];
		CHECK(c->module_first == CI_GPU_NONE || c->module_first + c->module_count <= gc->module_count);
	}
	for (size_t i = 0; i < gc->module_count; i++) {
		CHECK(gc->modules[i].context < gc->context_count);
		uint64_t n;
		const uint8_t *p = ci_gpucore_module_cubin(gc, i, &n);
		volatile uint8_t sink = p && n ? p[0] ^ p[n - 1] : 0;
		(void)sink;
	}
	for (size_t i = 0; i < gc->grid_count; i++) {
		const struct ci_gpu_grid *g = &gc->grids[i];
		CHECK(g->device < gc->device_count);
		CHECK(g->module == CI_GPU_NONE || g->module < gc->module_count);
		CHECK(g->context == CI_GPU_NONE || g->context < gc->context_count);
		if (g->function_name)
			CHECK(strlen(g->function_name) < CI_GPU_MAX_STRING);
	}
	for (size_t i = 0; i < gc->sm_count; i++)
		CHECK(gc->sms[i].device < gc->device_count &&
		      (gc->sms[i].cta_first == CI_GPU_NONE || gc->sms[i].cta_first + gc->sms[i].cta_count <= gc->cta_count));
	for (size_t i = 0; i < gc->cta_count; i++)
		CHECK(gc->ctas[i].sm < gc->sm_count && (gc->ctas[i].grid == CI_GPU_NONE || gc->ctas[i].grid < gc->grid_count));
	for (size_t i = 0; i < gc->warp_count; i++)
		CHECK(gc->warps[i].cta < gc->cta_count &&
		      (gc->warps[i].lane_first == CI_GPU_NONE ||
		       gc->warps[i].lane_first + gc->warps[i].lane_count <= gc->lane_count));
	for (size_t i = 0; i < gc->lane_count; i++)
		CHECK(gc->lanes[i].warp < gc->warp_count);
	const struct ci_gpu_fault *f = &gc->fault;
	CHECK(f->device == CI_GPU_NONE || f->device < gc->device_count);
	CHECK(f->sm == CI_GPU_NONE || f->sm < gc->sm_count);
	CHECK(f->lane == CI_GPU_NONE || f->lane < gc->lane_count);
	CHECK(f->grid == CI_GPU_NONE || f->grid < gc->grid_count);
	char words[64];
	CHECK(strlen(ci_gpu_exception_words(f->exception, words, sizeof words)) < sizeof words);
	/* What the warps view asks: the first lane of each warp (at most 256 warps). */
	for (size_t w = 0; w < gc->warp_count && w < 256; w++) {
		const struct ci_gpu_warp *wp = &gc->warps[w];
		if (wp->lane_first == CI_GPU_NONE || !wp->lane_count)
			continue;
		struct ci_gpu_where wh;
		if (ci_gpucore_where(gc, gc->lanes[wp->lane_first].virtual_pc, CI_GPU_NONE, &wh) && wh.file)
			CHECK(strlen(wh.file) < CI_GPU_MAX_STRING);
		uint32_t v;
		for (uint32_t r = 0; r < 4; r++)
			ci_gpucore_lane_reg(gc, wp->lane_first, r, &v);
		ci_gpucore_warp_ureg(gc, w, 0, &v);
	}
}

static void check_cubin(const uint8_t *data, size_t size)
{
	struct ci_cubin *cb;
	struct ci_error *err = ci_cubin_open("fuzz-cubin", data, size, &cb);
	if (err) {
		ci_error_destroy(err);
		return;
	}
	/* Probe addresses around every section start the image claims. */
	struct ci_gpu_ehdr eh;
	CHECK(ci_gpu_elf_header(data, size, &eh));
	for (uint64_t i = 0; i < eh.shnum && i < 64; i++) {
		struct ci_gpu_shdr sh;
		if (!ci_gpu_elf_shdr(data, size, eh.shoff, i, &sh))
			break;
		for (uint64_t d = 0; d < 0x200; d += 0x10) {
			const char *name, *file, *dir, *warn = NULL;
			uint64_t start;
			uint32_t line;
			ci_cubin_function(cb, sh.addr + d, &name, &start);
			ci_cubin_function_at_entry(cb, sh.addr + d);
			if (ci_cubin_line(cb, sh.addr + d, &file, &dir, &line, &warn))
				CHECK(file && strlen(file) < CI_GPU_MAX_STRING);
			const uint8_t *code = ci_cubin_code(cb, sh.addr + d, 16);
			struct ci_sass_access a;
			if (code)
				for (uint32_t major = 7; major <= 9; major++)
					if (ci_sass_decode_access(major, major == 7 ? 5 : 0, code, &a))
						CHECK(strlen(a.text) < sizeof a.text);
		}
	}
	ci_cubin_destroy(cb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ci_gpu_ehdr eh;
	if (ci_gpu_elf_header(data, size, &eh) && eh.machine == 190 && eh.type != 4 /* ET_CORE */)
		check_cubin(data, size);
	if (size >= 16) {
		struct ci_sass_access a;
		ci_sass_decode_access(9, 0, data, &a);
		ci_sass_decode_access(7, 5, data, &a);
	}
	struct ci_gpucore *gc;
	struct ci_error *err = ci_gpucore_from_memory("fuzz-input", data, size, 64u << 20, &gc);
	if (err) {
		CHECK(err->message[0]);
		ci_error_destroy(err);
		return 0;
	}
	check_model(gc);
	/* What the CLI prints of it: the summary, the warps view and the JSON document. */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (out) {
		struct ci_render_options ro = { .width = 100 };
		for (int json = 0; json < 2; json++)
			for (int view = 0; view < 2 - json; view++) {
				struct ci_error *e2 = ci_gpucore_render(out, gc, (enum ci_gpucore_view)view, json, &ro);
				if (e2)
					ci_error_destroy(e2);
			}
		fclose(out);
		free(text);
	}
	ci_gpucore_destroy(gc);
	return 0;
}
