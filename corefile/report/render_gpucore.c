/* SPDX-License-Identifier: MIT */
/*
 * Stage 7 for a GPU core dump read alone (`cudainspect GPUCORE`, docs/CLI.md "GPU cores"): the
 * fault as cuda-gdb focuses it, with what cuda-gdb does not say (the instruction at the error PC
 * and the address it accessed), the devices, contexts and resident grids; or the `warps` view;
 * or one JSON document (docs/JSON.md, "GPU cores").  Every string from the dump is scrubbed
 * (text) or escaped by the JSON writer.  The model is corefile/gpucore/gpucore.h's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/base.h"
#include "gpucore/gpucore.h"
#include "session.h"
#include "source/source.h"

/* ---------------------------------------------------------------------------------------- */
/* Recognising a GPU core by content                                                          */

/* The first 64 bytes of the file at FD as the GPU core would start: the bytes themselves, or
 * what the start of a zstd stream decompresses to.  False when there are not 64 of them. */
static bool file_head(int fd, uint8_t head[64])
{
	uint8_t raw[64 << 10];
	ssize_t n = pread(fd, raw, sizeof raw, 0);
	if (n < 64)
		return false;
	if (!ci_is_zstd(raw, (size_t)n)) {
		memcpy(head, raw, 64);
		return true;
	}
	ZSTD_DStream *zs = ZSTD_createDStream();
	if (!zs)
		return false;
	ZSTD_initDStream(zs);
	ZSTD_inBuffer in = { raw, (size_t)n, 0 };
	ZSTD_outBuffer out = { head, 64, 0 };
	/* 64 KiB of input give the first 64 bytes of any frame this reader accepts; a window
	 * too large only fails here, and the full open says why. */
	while (out.pos < 64 && in.pos < in.size) {
		size_t r = ZSTD_decompressStream(zs, &out, &in);
		if (ZSTD_isError(r) || r == 0)
			break;
	}
	ZSTD_freeDStream(zs);
	return out.pos == 64;
}

bool ci_gpucore_file(const char *path)
{
	unsigned mode = 0;
	int fd = ci_open_regular(path, &mode);
	if (fd < 0)
		return false;
	uint8_t head[64];
	bool yes = file_head(fd, head) && ci_gpucore_sniff(head, sizeof head);
	close(fd);
	return yes;
}

/* ---------------------------------------------------------------------------------------- */
/* Shared pieces                                                                              */

/* The function's name for a person: demangled, scrubbed; "?" when unknown. */
static const char *function_text(const char *raw, char *buf, size_t n)
{
	if (!raw)
		return "?";
	char *dem = ci_demangle(raw);
	ci_scrub(dem ? dem : raw, buf, n);
	free(dem);
	return buf;
}

/* "paged_kv_write+0x110" for PC in W, or the bare address. */
static const char *where_text(uint64_t pc, const struct ci_gpu_where *w, char *buf, size_t n)
{
	char fn[512];
	if (w->module == CI_GPU_NONE)
		snprintf(buf, n, "0x%" PRIx64 " (in no module of the dump)", pc);
	else
		snprintf(buf, n, "0x%" PRIx64 " = %s+0x%" PRIx64, pc,
			 function_text(w->function, fn, sizeof fn), w->offset);
	return buf;
}

static const char *base_reg_text(const struct ci_gpu_access *a, char *buf, size_t n)
{
	if (a->base_reg == 255)
		snprintf(buf, n, "RZ");
	else if (a->base_wide)
		snprintf(buf, n, "R%u:R%u", a->base_reg, a->base_reg + 1);
	else
		snprintf(buf, n, "R%u", a->base_reg);
	return buf;
}

static const char *const access_words[] = {
	[CI_GPU_ACCESS_NONE] = "none",
	[CI_GPU_ACCESS_NO_CODE] = "no_code",
	[CI_GPU_ACCESS_NOT_DECODED] = "not_decoded",
	[CI_GPU_ACCESS_NO_REGISTERS] = "no_registers",
	[CI_GPU_ACCESS_STALE] = "stale",
	[CI_GPU_ACCESS_ADDRESS] = "address",
};

static const char *const fault_kinds[] = { "none", "lane", "warp", "sm", "trap" };

/* Why no address is claimed, one clause. */
static const char *access_why(const struct ci_gpu_access *a)
{
	switch (a->status) {
	case CI_GPU_ACCESS_NO_CODE: return "the code at the error PC is not in the dump";
	case CI_GPU_ACCESS_NOT_DECODED: return "the instruction at the error PC is not a memory access this reader decodes";
	case CI_GPU_ACCESS_NO_REGISTERS: return "the lane's registers are not in the dump";
	case CI_GPU_ACCESS_STALE: return "the lane ran on past the error PC: its registers may have changed";
	default: return "the dump holds no error PC or no faulting lane";
	}
}

const char *ci_gpucore_fault_access_text(const struct ci_gpu_access *a, char *buf, size_t n)
{
	char base[24];
	if (a->status == CI_GPU_ACCESS_ADDRESS) {
		char width[32] = "";
		if (a->width)
			snprintf(width, sizeof width, " of %u bytes", a->width);
		snprintf(buf, n, "%s%s at 0x%" PRIx64 " (%s: %s = 0x%" PRIx64 " %s 0x%" PRIx64 ")", a->kind,
			 width, a->address, a->text, base_reg_text(a, base, sizeof base), a->base_value,
			 a->offset < 0 ? "-" : "+",
			 a->offset < 0 ? (uint64_t)-a->offset : (uint64_t)a->offset);
	} else if (a->status == CI_GPU_ACCESS_STALE || a->status == CI_GPU_ACCESS_NO_REGISTERS) {
		snprintf(buf, n, "%s; address not known (%s)", a->text, access_why(a));
	} else {
		snprintf(buf, n, "address not known (%s)", access_why(a));
	}
	return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Text                                                                                       */

static void text_fault(FILE *out, struct ci_gpucore *gc)
{
	const struct ci_gpu_fault *f = &gc->fault;
	char words[64], fn[512], path[1100], buf[700];
	if (f->kind == CI_GPU_FAULT_NONE) {
		fprintf(out, "No exception was found on the device.\n");
		return;
	}
	const struct ci_gpu_grid *g = f->grid != CI_GPU_NONE ? &gc->grids[f->grid] : NULL;
	fprintf(out, "%s", f->kind == CI_GPU_FAULT_TRAP ? "Trap or breakpoint"
			   : ci_gpu_exception_words(f->exception, words, sizeof words));
	fprintf(out, " in %s", g ? function_text(g->function_name, fn, sizeof fn) : "an unknown kernel");
	if (f->cta != CI_GPU_NONE) {
		const uint32_t *b = gc->ctas[f->cta].block_idx;
		fprintf(out, ", block (%u,%u,%u)", b[0], b[1], b[2]);
	}
	if (f->lane != CI_GPU_NONE) {
		const uint32_t *t = gc->lanes[f->lane].thread_idx;
		fprintf(out, " thread (%u,%u,%u)", t[0], t[1], t[2]);
	}
	fputc('\n', out);
	const struct ci_gpu_where *src = f->error_pc_valid ? &f->error_where : &f->pc_where;
	if (src->line)
		fprintf(out, "  at %s:%u\n", ci_gpu_where_path(src, path, sizeof path), src->line);
	if (f->error_pc_valid)
		fprintf(out, "  error PC %s (the %s's)\n", where_text(f->error_pc, &f->error_where, buf, sizeof buf),
			f->error_pc_from);
	if (f->has_pc)
		fprintf(out, "  halted at %s\n", where_text(f->pc, &f->pc_where, buf, sizeof buf));
	if (f->access.status != CI_GPU_ACCESS_NONE)
		fprintf(out, "  access: %s\n", ci_gpucore_fault_access_text(&f->access, buf, sizeof buf));
	fprintf(out, "  device %u", f->device != CI_GPU_NONE ? gc->devices[f->device].dev_id : 0);
	if (f->sm != CI_GPU_NONE)
		fprintf(out, ", SM %u", gc->sms[f->sm].sm_id);
	if (f->warp != CI_GPU_NONE)
		fprintf(out, ", warp %u", gc->warps[f->warp].warp_id);
	if (f->lane != CI_GPU_NONE)
		fprintf(out, ", lane %u", gc->lanes[f->lane].ln);
	if (g)
		fprintf(out, "; grid %" PRId64 ", <<<(%u,%u,%u),(%u,%u,%u)>>>", (int64_t)g->id, g->grid_dim[0],
			g->grid_dim[1], g->grid_dim[2], g->block_dim[0], g->block_dim[1], g->block_dim[2]);
	fputc('\n', out);
	fprintf(out, "  %zu lanes in %zu warps report an exception, on %zu SMs (found by %s, as cuda-gdb focuses)\n",
		f->lanes_with_exception, f->warps_with_exception, f->sms_with_exception, fault_kinds[f->kind]);
	if (g && g->params_size) {
		fprintf(out, "  parameters (8-byte words):");
		for (uint64_t k = 0; k + 8 <= g->params_size && k < 64; k += 8) {
			uint64_t v;
			if (ci_gpucore_grid_params(gc, f->grid, k, &v))
				fprintf(out, " 0x%" PRIx64, v);
		}
		fputc('\n', out);
	}
}

static void text_summary(FILE *out, struct ci_gpucore *gc, unsigned width)
{
	char a[512], b[512], c[128], flags[256], size[32];
	(void)width;
	fprintf(out, "GPU core dump %s (%s bytes%s", ci_scrub(gc->name, a, sizeof a),
		ci_fmt_count(gc->file_size, size, sizeof size), gc->compressed ? ", zstd" : "");
	if (gc->meta.present)
		fprintf(out, "; driver %u.%u, CUDA %u.%u, flags %s", gc->meta.driver_major, gc->meta.driver_minor,
			gc->meta.cuda_major, gc->meta.cuda_minor,
			gc->meta.flags ? ci_gpu_coredump_flags_text(gc->meta.flags, flags, sizeof flags) : "none");
	fprintf(out, ")\n\n");
	text_fault(out, gc);
	fprintf(out, "\nDevices\n");
	for (size_t d = 0; d < gc->device_count; d++) {
		const struct ci_gpu_device *dev = &gc->devices[d];
		fprintf(out, "  %u  %s (%s), %s, %u SMs, PCI %02x:%02x.0\n", dev->dev_id, ci_scrub(dev->name ? dev->name : "?", a, sizeof a),
			ci_scrub(dev->type ? dev->type : "?", b, sizeof b), ci_scrub(dev->sm_type ? dev->sm_type : "?", c, sizeof c),
			dev->num_sms, dev->pci_bus, dev->pci_dev);
	}
	fprintf(out, "\nContexts\n");
	for (size_t k = 0; k < gc->context_count; k++) {
		const struct ci_gpu_context *cx = &gc->contexts[k];
		fprintf(out, "  0x%" PRIx64 "  device %u, host thread %u, %zu modules\n", cx->id,
			gc->devices[cx->device].dev_id, cx->tid, cx->module_first == CI_GPU_NONE ? 0 : cx->module_count);
	}
	fprintf(out, "\nGrids resident at the dump\n");
	for (size_t g = 0; g < gc->grid_count; g++) {
		const struct ci_gpu_grid *gr = &gc->grids[g];
		const char *status = ci_gpu_grid_status_name(gr->status);
		fprintf(out, "%s grid %" PRId64 "  %s<<<(%u,%u,%u),(%u,%u,%u)>>>  %s, device %u, context 0x%" PRIx64
			", %zu blocks and %zu warps on %zu SMs\n", g == gc->fault.grid ? "*" : " ", (int64_t)gr->id,
			function_text(gr->function_name, a, sizeof a), gr->grid_dim[0], gr->grid_dim[1], gr->grid_dim[2],
			gr->block_dim[0], gr->block_dim[1], gr->block_dim[2], status ? status : "unknown status",
			gc->devices[gr->device].dev_id, gr->context_id, gr->ctas, gr->warps, gr->sms);
	}
	fprintf(out, "\n%zu SMs, %zu blocks, %zu warps, %zu lanes in the dump; `warps` lists the warps\n",
		gc->sm_count, gc->cta_count, gc->warp_count, gc->lane_count);
}

static void text_warps(FILE *out, struct ci_gpucore *gc)
{
	fprintf(out, "%4s %4s %-14s %-14s %-10s %-10s %-18s %s\n", "SM", "Wp", "BlockIdx", "ThreadIdx", "Valid",
		"Active", "PC", "Where / exception");
	for (size_t w = 0; w < gc->warp_count; w++) {
		const struct ci_gpu_warp *wp = &gc->warps[w];
		const struct ci_gpu_cta *cta = &gc->ctas[wp->cta];
		const struct ci_gpu_sm *sm = &gc->sms[cta->sm];
		uint32_t exception;
		size_t first = ci_gpucore_warp_first_lane(gc, w, &exception);
		char block[40], thread[40] = "-", pc[24] = "-", where[600] = "", words[64], fn[512];
		snprintf(block, sizeof block, "(%u,%u,%u)", cta->block_idx[0], cta->block_idx[1], cta->block_idx[2]);
		if (first != CI_GPU_NONE) {
			const struct ci_gpu_lane *ln = &gc->lanes[first];
			struct ci_gpu_where wh;
			snprintf(thread, sizeof thread, "(%u,%u,%u)", ln->thread_idx[0], ln->thread_idx[1], ln->thread_idx[2]);
			snprintf(pc, sizeof pc, "0x%" PRIx64, ln->virtual_pc);
			size_t module = cta->grid != CI_GPU_NONE ? gc->grids[cta->grid].module : CI_GPU_NONE;
			if (ci_gpucore_where(gc, ln->virtual_pc, module, &wh))
				snprintf(where, sizeof where, "%s+0x%" PRIx64, function_text(wh.function, fn, sizeof fn), wh.offset);
		}
		fprintf(out, "%4u %4u %-14s %-14s 0x%08x 0x%08x %-18s %s%s%s\n", sm->sm_id, wp->warp_id, block, thread,
			wp->valid_mask, wp->active_mask, pc, where, exception ? "  " : "",
			exception ? ci_gpu_exception_words(exception, words, sizeof words) : "");
	}
}

/* ---------------------------------------------------------------------------------------- */
/* JSON                                                                                       */

static void json_where(struct ci_json *j, const char *key, uint64_t pc, const struct ci_gpu_where *w)
{
	char path[1100], fn[512];
	ci_json_open(j, key, false);
	ci_json_addr(j, "pc", pc);
	ci_json_str(j, "function", w->module != CI_GPU_NONE ? w->function : NULL);
	ci_json_str(j, "function_demangled", w->module != CI_GPU_NONE ? function_text(w->function, fn, sizeof fn) : NULL);
	if (w->module != CI_GPU_NONE)
		ci_json_u64(j, "offset", w->offset);
	else
		ci_json_null(j, "offset");
	ci_json_str(j, "file", w->line ? ci_gpu_where_path(w, path, sizeof path) : NULL);
	if (w->line)
		ci_json_u64(j, "line", w->line);
	else
		ci_json_null(j, "line");
	ci_json_close(j);
}

static void json_dim(struct ci_json *j, const char *key, const uint32_t v[3])
{
	ci_json_open(j, key, true);
	for (int i = 0; i < 3; i++)
		ci_json_u64(j, NULL, v[i]);
	ci_json_close(j);
}

/* The "fault" object: also the join's (render_json.c, diagnosis.gpu_core.fault). */
void ci_gpucore_json_fault(struct ci_json *j, const char *key, struct ci_gpucore *gc)
{
	const struct ci_gpu_fault *f = &gc->fault;
	char words[64], base[24];
	ci_json_open(j, key, false);
	ci_json_str(j, "found_by", fault_kinds[f->kind]);
	if (f->kind == CI_GPU_FAULT_NONE) {
		ci_json_close(j);
		return;
	}
	ci_json_u64(j, "exception_code", f->exception);
	ci_json_str(j, "exception", ci_gpu_exception_name(f->exception));
	ci_json_str(j, "exception_words", f->kind == CI_GPU_FAULT_TRAP ? NULL
				: ci_gpu_exception_words(f->exception, words, sizeof words));
#define IDX(name, cond, val) do { if (cond) ci_json_u64(j, name, val); else ci_json_null(j, name); } while (0)
	IDX("device", f->device != CI_GPU_NONE, f->device != CI_GPU_NONE ? gc->devices[f->device].dev_id : 0);
	IDX("sm", f->sm != CI_GPU_NONE, f->sm != CI_GPU_NONE ? gc->sms[f->sm].sm_id : 0);
	IDX("warp", f->warp != CI_GPU_NONE, f->warp != CI_GPU_NONE ? gc->warps[f->warp].warp_id : 0);
	IDX("lane", f->lane != CI_GPU_NONE, f->lane != CI_GPU_NONE ? gc->lanes[f->lane].ln : 0);
#undef IDX
	if (f->grid != CI_GPU_NONE) {
		const struct ci_gpu_grid *g = &gc->grids[f->grid];
		ci_json_i64(j, "grid", (int64_t)g->id);
		ci_json_str(j, "kernel", g->function_name);
		char fn[512];
		ci_json_str(j, "kernel_demangled", g->function_name ? function_text(g->function_name, fn, sizeof fn) : NULL);
		json_dim(j, "grid_dim", g->grid_dim);
		json_dim(j, "block_dim", g->block_dim);
	} else {
		ci_json_null(j, "grid");
		ci_json_null(j, "kernel");
	}
	if (f->cta != CI_GPU_NONE)
		json_dim(j, "block", gc->ctas[f->cta].block_idx);
	else
		ci_json_null(j, "block");
	if (f->lane != CI_GPU_NONE)
		json_dim(j, "thread", gc->lanes[f->lane].thread_idx);
	else
		ci_json_null(j, "thread");
	if (f->error_pc_valid) {
		json_where(j, "error_pc", f->error_pc, &f->error_where);
		ci_json_str(j, "error_pc_from", f->error_pc_from);
	} else
		ci_json_null(j, "error_pc");
	if (f->has_pc)
		json_where(j, "halted_pc", f->pc, &f->pc_where);
	else
		ci_json_null(j, "halted_pc");
	const struct ci_gpu_access *a = &f->access;
	ci_json_open(j, "access", false);
	ci_json_str(j, "status", access_words[a->status]);
	ci_json_str(j, "instruction", a->status >= CI_GPU_ACCESS_NO_REGISTERS ? a->text : NULL);
	if (a->status >= CI_GPU_ACCESS_NO_REGISTERS) {
		ci_json_str(j, "kind", a->kind);
		ci_json_u64(j, "width", a->width);
		ci_json_str(j, "base", base_reg_text(a, base, sizeof base));
		ci_json_i64(j, "offset", a->offset);
	}
	if (a->status == CI_GPU_ACCESS_ADDRESS) {
		ci_json_addr(j, "address", a->address);
		ci_json_addr(j, "base_value", a->base_value);
	} else
		ci_json_null(j, "address");
	if (a->status == CI_GPU_ACCESS_STALE)
		ci_json_u64(j, "instructions_after", a->instructions_after);
	ci_json_close(j);
	ci_json_u64(j, "lanes_with_exception", f->lanes_with_exception);
	ci_json_u64(j, "warps_with_exception", f->warps_with_exception);
	ci_json_u64(j, "sms_with_exception", f->sms_with_exception);
	if (f->grid != CI_GPU_NONE && gc->grids[f->grid].params_size) {
		/* Hex strings: a kernel argument may exceed 2^53 (docs/JSON.md, "Numbers"). */
		ci_json_open(j, "param_words_hex", true);
		for (uint64_t k = 0; k + 8 <= gc->grids[f->grid].params_size && k < 64; k += 8) {
			uint64_t v;
			if (ci_gpucore_grid_params(gc, f->grid, k, &v))
				ci_json_hex(j, NULL, v);
		}
		ci_json_close(j);
	}
	ci_json_close(j);
}

static void json_warps(struct ci_json *j, struct ci_gpucore *gc)
{
	ci_json_open(j, "warps", true);
	for (size_t w = 0; w < gc->warp_count; w++) {
		const struct ci_gpu_warp *wp = &gc->warps[w];
		const struct ci_gpu_cta *cta = &gc->ctas[wp->cta];
		uint32_t exception;
		size_t first = ci_gpucore_warp_first_lane(gc, w, &exception);
		ci_json_open(j, NULL, false);
		ci_json_u64(j, "sm", gc->sms[cta->sm].sm_id);
		ci_json_u64(j, "warp", wp->warp_id);
		json_dim(j, "block", cta->block_idx);
		ci_json_u64(j, "valid_mask", wp->valid_mask);
		ci_json_u64(j, "active_mask", wp->active_mask);
		if (first != CI_GPU_NONE) {
			const struct ci_gpu_lane *ln = &gc->lanes[first];
			json_dim(j, "thread", ln->thread_idx);
			ci_json_addr(j, "pc", ln->virtual_pc);
		} else {
			ci_json_null(j, "thread");
			ci_json_null(j, "pc");
		}
		ci_json_str(j, "exception", exception ? ci_gpu_exception_name(exception) : NULL);
		ci_json_close(j);
	}
	ci_json_close(j);
}

static struct ci_error *json_document(FILE *out, struct ci_gpucore *gc)
{
	struct ci_json *j = malloc(sizeof *j);
	if (!j)
		return ci_error_create(CI_ERR_NOMEM, "out of memory writing JSON");
	char flags[256], name[32];
	ci_json_begin(j, out);
	ci_json_u64(j, "version", CI_JSON_SCHEMA_VERSION);
	ci_json_str(j, "kind", "gpu_core");
	ci_json_str(j, "cudainspect_version", CUDAINSPECT_VERSION);
	ci_json_open(j, "gpu_core", false);
	ci_json_str(j, "path", gc->name);
	ci_json_u64(j, "file_size", gc->file_size);
	ci_json_bool(j, "compressed", gc->compressed);
	ci_json_u64(j, "sections", gc->section_count);
	if (gc->meta.present) {
		ci_json_open(j, "producer", false);
		ci_json_str(j, "generator", gc->meta.generator);
		snprintf(name, sizeof name, "%u.%u", gc->meta.driver_major, gc->meta.driver_minor);
		ci_json_str(j, "driver", name);
		snprintf(name, sizeof name, "%u.%u", gc->meta.cuda_major, gc->meta.cuda_minor);
		ci_json_str(j, "cuda", name);
		ci_json_str(j, "flags", ci_gpu_coredump_flags_text(gc->meta.flags, flags, sizeof flags));
		ci_json_u64(j, "timestamp", gc->meta.timestamp);
		ci_json_close(j);
	} else
		ci_json_null(j, "producer");
	ci_json_close(j);
	ci_json_open(j, "devices", true);
	for (size_t d = 0; d < gc->device_count; d++) {
		const struct ci_gpu_device *dev = &gc->devices[d];
		ci_json_open(j, NULL, false);
		ci_json_u64(j, "device", dev->dev_id);
		ci_json_str(j, "name", dev->name);
		ci_json_str(j, "type", dev->type);
		ci_json_str(j, "sm_type", dev->sm_type);
		ci_json_u64(j, "sms", dev->num_sms);
		ci_json_u64(j, "pci_bus", dev->pci_bus);
		ci_json_u64(j, "pci_device", dev->pci_dev);
		ci_json_close(j);
	}
	ci_json_close(j);
	ci_json_open(j, "contexts", true);
	for (size_t k = 0; k < gc->context_count; k++) {
		const struct ci_gpu_context *cx = &gc->contexts[k];
		ci_json_open(j, NULL, false);
		ci_json_addr(j, "id", cx->id);
		ci_json_u64(j, "device", gc->devices[cx->device].dev_id);
		ci_json_u64(j, "tid", cx->tid);
		ci_json_u64(j, "modules", cx->module_first == CI_GPU_NONE ? 0 : cx->module_count);
		ci_json_close(j);
	}
	ci_json_close(j);
	ci_json_open(j, "grids", true);
	for (size_t g = 0; g < gc->grid_count; g++) {
		const struct ci_gpu_grid *gr = &gc->grids[g];
		ci_json_open(j, NULL, false);
		ci_json_i64(j, "grid", (int64_t)gr->id);
		ci_json_u64(j, "device", gc->devices[gr->device].dev_id);
		ci_json_str(j, "kernel", gr->function_name);
		ci_json_str(j, "status", ci_gpu_grid_status_name(gr->status));
		json_dim(j, "grid_dim", gr->grid_dim);
		json_dim(j, "block_dim", gr->block_dim);
		ci_json_addr(j, "context", gr->context_id);
		ci_json_addr(j, "entry", gr->function_entry);
		ci_json_u64(j, "host_tid", gr->host_tid);
		ci_json_u64(j, "blocks_resident", gr->ctas);
		ci_json_u64(j, "warps_resident", gr->warps);
		ci_json_u64(j, "sms", gr->sms);
		ci_json_bool(j, "faulting", g == gc->fault.grid);
		ci_json_close(j);
	}
	ci_json_close(j);
	ci_gpucore_json_fault(j, "fault", gc);
	json_warps(j, gc);
	ci_json_open(j, "warnings", true);
	for (size_t w = 0; w < gc->warnings.count; w++)
		ci_json_str(j, NULL, gc->warnings.items[w]);
	ci_json_close(j);
	struct ci_error *err = ci_json_end(j, "the JSON document");
	free(j);
	return err;
}

/* ---------------------------------------------------------------------------------------- */

struct ci_error *ci_gpucore_render(FILE *out, struct ci_gpucore *gc, enum ci_gpucore_view view, bool json,
				   const struct ci_render_options *ro)
{
	if (json) {
		/* The document reads nothing of the file the open did not (the fault's places were
		 * found then): a shrink is known now. */
		ci_gpucore_check_shrink(gc);
		return json_document(out, gc);
	}
	if (view == CI_GPUCORE_VIEW_WARPS)
		text_warps(out, gc);
	else
		text_summary(out, gc, ro && ro->width > 0 ? (unsigned)ro->width : 100);
	ci_gpucore_check_shrink(gc);
	if (!(ro && ro->quiet)) {
		char w[600];
		for (size_t i = 0; i < gc->warnings.count; i++)
			fprintf(out, "warning: %s\n", ci_scrub(gc->warnings.items[i], w, sizeof w));
	}
	if (fflush(out) || ferror(out))
		return ci_error_create(CI_ERR_IO, "cannot write the report");
	return NULL;
}

struct ci_error *ci_gpucore_report(FILE *out, const char *path, const struct ci_source_options *so,
				   enum ci_gpucore_view view, bool json, const struct ci_render_options *ro)
{
	struct ci_gpucore *gc;
	struct ci_error *err = ci_gpucore_open(path, so, &gc);
	if (err)
		return err;
	err = ci_gpucore_render(out, gc, view, json, ro);
	ci_gpucore_destroy(gc);
	return err;
}
