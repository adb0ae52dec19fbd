/* SPDX-License-Identifier: MIT */
/*
 * gpucore-dump: print what the reader's GPU core parser (corefile/gpucore/gpucore.c) makes of a
 * GPU core dump, as stable "key: value" lines for the tests in tests/gpucore/ (people read GPU
 * cores with the CLI, `cudainspect GPUCORE`).  Not installed.
 *
 *   gpucore-dump [--modules] [--max-core-size BYTES] [--save-cubin N PATH] FILE
 *
 * --save-cubin writes the relocated cubin of module N (0-based, in the order --modules lists)
 * to PATH, for the fuzzer's seeds and for nvdisasm.
 *
 * Exit status: 0 with a report, 3 when the file cannot be read as a GPU core (the message on
 * stderr), 2 for bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudainspect/cudainspect.h"
#include "gpucore/gpucore.h"

static const char *s(const char *str, char *buf, size_t n)
{
	return str ? ci_scrub(str, buf, n) : "?";
}

static void print_where(const char *key, uint64_t pc, const struct ci_gpu_where *w)
{
	char fn[1024], path[2100];
	printf("%s: 0x%" PRIx64, key, pc);
	if (w->module != CI_GPU_NONE)
		printf(" %s+0x%" PRIx64, s(w->function, fn, sizeof fn), w->offset);
	printf("\n");
	if (w->line)
		printf("%s_source: %s:%u\n", key, ci_gpu_where_path(w, path, sizeof path), w->line);
}

static void print_fault(struct ci_gpucore *gc)
{
	const struct ci_gpu_fault *f = &gc->fault;
	char words[64], name[1024];
	static const char *const kinds[] = { "none", "lane", "warp", "sm", "trap" };
	if (f->kind == CI_GPU_FAULT_NONE) {
		printf("exception: none (no exception was found on the device)\n");
		return;
	}
	if (f->kind == CI_GPU_FAULT_TRAP)
		printf("exception: trap (a warp stopped at a trap or breakpoint)\n");
	else
		printf("exception: %s (%s, %u)\n", ci_gpu_exception_words(f->exception, words, sizeof words),
		       ci_gpu_exception_name(f->exception) ? ci_gpu_exception_name(f->exception) : "?", f->exception);
	printf("found_by: %s\n", kinds[f->kind]);
	if (f->device != CI_GPU_NONE)
		printf("device: %u\n", gc->devices[f->device].dev_id);
	if (f->sm != CI_GPU_NONE)
		printf("sm: %u\n", gc->sms[f->sm].sm_id);
	if (f->warp != CI_GPU_NONE)
		printf("warp: %u\n", gc->warps[f->warp].warp_id);
	if (f->lane != CI_GPU_NONE)
		printf("lane: %u\n", gc->lanes[f->lane].ln);
	if (f->grid != CI_GPU_NONE) {
		const struct ci_gpu_grid *g = &gc->grids[f->grid];
		printf("grid: %" PRId64 "\n", (int64_t)g->id);
		printf("kernel: %s\n", s(g->function_name, name, sizeof name));
		printf("grid_dim: (%u,%u,%u)\n", g->grid_dim[0], g->grid_dim[1], g->grid_dim[2]);
		/* The parameter memory, as 8-byte words (at most 8). */
		for (uint64_t k = 0; k + 8 <= g->params_size && k < 64; k += 8) {
			uint64_t v;
			if (ci_gpucore_grid_params(gc, f->grid, k, &v))
				printf("param_word %llu: 0x%" PRIx64 "\n", (unsigned long long)(k / 8), v);
		}
		printf("block_dim: (%u,%u,%u)\n", g->block_dim[0], g->block_dim[1], g->block_dim[2]);
	}
	if (f->cta != CI_GPU_NONE) {
		const uint32_t *b = gc->ctas[f->cta].block_idx;
		printf("block: (%u,%u,%u)\n", b[0], b[1], b[2]);
	}
	if (f->lane != CI_GPU_NONE) {
		const uint32_t *t = gc->lanes[f->lane].thread_idx;
		printf("thread: (%u,%u,%u)\n", t[0], t[1], t[2]);
	}
	if (f->error_pc_valid) {
		print_where("error_pc", f->error_pc, &f->error_where);
		printf("error_pc_from: %s\n", f->error_pc_from);
	}
	if (f->has_pc)
		print_where("pc", f->pc, &f->pc_where);
	const struct ci_gpu_access *a = &f->access;
	if (a->have_insn) {
		uint64_t lo = 0, hi = 0;
		for (int i = 7; i >= 0; i--) {
			lo = lo << 8 | a->insn[i];
			hi = hi << 8 | a->insn[8 + i];
		}
		printf("instruction_bytes: 0x%016" PRIx64 " 0x%016" PRIx64 "\n", hi, lo);
	}
	switch (a->status) {
	case CI_GPU_ACCESS_NONE:
		break;
	case CI_GPU_ACCESS_NO_CODE:
		printf("address: not known (the code at the error PC is not in the dump)\n");
		break;
	case CI_GPU_ACCESS_NOT_DECODED:
		printf("address: not known (the instruction at the error PC is not a memory access this reader decodes)\n");
		break;
	case CI_GPU_ACCESS_NO_REGISTERS:
		printf("instruction: %s\n", a->text);
		printf("address: not known (the lane's registers are not in the dump)\n");
		break;
	case CI_GPU_ACCESS_STALE:
	case CI_GPU_ACCESS_ADDRESS: {
		char base[24];
		if (a->base_reg == 255)
			snprintf(base, sizeof base, "RZ");
		else if (a->base_wide)
			snprintf(base, sizeof base, "R%u:R%u", a->base_reg, a->base_reg + 1);
		else
			snprintf(base, sizeof base, "R%u", a->base_reg);
		printf("instruction: %s\n", a->text);
		if (a->status == CI_GPU_ACCESS_ADDRESS)
			printf("address: 0x%" PRIx64 "\n", a->address);
		else
			printf("address: not known (the registers are from %u instructions after the error PC; "
			       "they would give 0x%" PRIx64 ")\n", a->instructions_after, a->address);
		printf("access: %s", a->kind);
		if (a->width)
			printf(" of %u bytes", a->width);
		printf(", %s = 0x%" PRIx64 " %s 0x%" PRIx64 "\n", base, a->base_value, a->offset < 0 ? "-" : "+",
		       a->offset < 0 ? (uint64_t)-a->offset : (uint64_t)a->offset);
		break;
	}
	}
	printf("spread: %zu lanes in %zu warps report an exception; %zu SMs\n", f->lanes_with_exception,
	       f->warps_with_exception, f->sms_with_exception);
}

int main(int argc, char **argv)
{
	bool modules = false;
	struct ci_source_options opts = { 0 };
	const char *save_path = NULL;
	size_t save_module = 0;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--modules") == 0)
			modules = true;
		else if (strcmp(argv[i], "--save-cubin") == 0 && i + 2 < argc)
			save_module = strtoul(argv[i + 1], NULL, 0), save_path = argv[i + 2], i += 2;
		else if (strcmp(argv[i], "--max-core-size") == 0 && i + 1 < argc)
			opts.max_core_size = strtoull(argv[++i], NULL, 0);
		else
			break;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: gpucore-dump [--modules] [--max-core-size BYTES] "
			"[--save-cubin N PATH] FILE\n");
		return 2;
	}
	struct ci_gpucore *gc;
	struct ci_error *err = ci_gpucore_open(argv[i], &opts, &gc);
	if (err) {
		fprintf(stderr, "gpucore-dump: %s\n", err->message);
		int code = ci_error_exit(err->code);
		ci_error_destroy(err);
		return code;
	}
	if (save_path) {
		uint64_t n;
		const uint8_t *p = ci_gpucore_module_cubin(gc, save_module, &n);
		FILE *out = p ? fopen(save_path, "wb") : NULL;
		int ok = out && fwrite(p, 1, (size_t)n, out) == n;
		if (out && fclose(out))
			ok = 0;
		ci_gpucore_destroy(gc);
		if (!ok)
			fprintf(stderr, "gpucore-dump: %s\n", p ? "cannot write the cubin" : "no such module, or no cubin");
		return ok ? 0 : 1;
	}
	char a[1024], b[1024], c[256], flags[256];
	printf("file: %s\n", s(argv[i], a, sizeof a));
	printf("compressed: %s\n", gc->compressed ? "yes" : "no");
	printf("sections: %" PRIu64 "\n", gc->section_count);
	if (gc->meta.present)
		printf("producer: %s, driver %u.%u, CUDA %u.%u, flags 0x%x (%s), time %u\n",
		       s(gc->meta.generator, a, sizeof a), gc->meta.driver_major, gc->meta.driver_minor,
		       gc->meta.cuda_major, gc->meta.cuda_minor, gc->meta.flags,
		       ci_gpu_coredump_flags_text(gc->meta.flags, flags, sizeof flags), gc->meta.timestamp);
	for (size_t d = 0; d < gc->device_count; d++) {
		const struct ci_gpu_device *dev = &gc->devices[d];
		printf("device %u: %s (%s), %s, %u SMs, %u warps/SM, %u lanes/warp, %u registers/lane, PCI %02x:%02x.0\n",
		       dev->dev_id, s(dev->name, a, sizeof a), s(dev->type, b, sizeof b), s(dev->sm_type, c, sizeof c),
		       dev->num_sms, dev->warps_per_sm, dev->lanes_per_warp, dev->regs_per_lane, dev->pci_bus, dev->pci_dev);
	}
	for (size_t k = 0; k < gc->context_count; k++) {
		const struct ci_gpu_context *cx = &gc->contexts[k];
		printf("context 0x%016" PRIx64 ": device %u, host thread %u, %zu modules\n", cx->id,
		       gc->devices[cx->device].dev_id, cx->tid, cx->module_first == CI_GPU_NONE ? 0 : cx->module_count);
	}
	printf("modules: %zu\n", gc->module_count);
	if (modules)
		for (size_t m = 0; m < gc->module_count; m++)
			printf("module 0x%016" PRIx64 ": context 0x%016" PRIx64 ", relocated cubin %" PRIu64 " bytes%s\n",
			       gc->modules[m].handle, gc->contexts[gc->modules[m].context].id, gc->modules[m].cubin_size,
			       gc->modules[m].image_size ? ", image as loaded" : "");
	for (size_t g = 0; g < gc->grid_count; g++) {
		const struct ci_gpu_grid *gr = &gc->grids[g];
		const char *status = ci_gpu_grid_status_name(gr->status), *type = ci_gpu_kernel_type_name(gr->kernel_type);
		printf("grid %" PRId64 ": device %u, %s, %s, grid (%u,%u,%u), block (%u,%u,%u), %s, launched by the %s, "
		       "entry 0x%" PRIx64 ", %zu blocks and %zu warps resident on %zu SMs\n",
		       (int64_t)gr->id, gc->devices[gr->device].dev_id, s(gr->function_name, a, sizeof a),
		       status ? status : "?", gr->grid_dim[0], gr->grid_dim[1], gr->grid_dim[2], gr->block_dim[0],
		       gr->block_dim[1], gr->block_dim[2], type ? type : "?", gr->origin ? "GPU" : "CPU",
		       gr->function_entry, gr->ctas, gr->warps, gr->sms);
	}
	printf("sms: %zu\nctas: %zu\nwarps: %zu\nlanes: %zu\nmemory_ranges: %zu\n", gc->sm_count, gc->cta_count,
	       gc->warp_count, gc->lane_count, gc->memory_count);
	print_fault(gc);
	for (size_t w = 0; w < gc->warnings.count; w++)
		printf("warning: %s\n", s(gc->warnings.items[w], a, sizeof a));
	ci_gpucore_destroy(gc);
	return 0;
}
