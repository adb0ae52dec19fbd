/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the GPU core reader (corefile/gpucore/), run by tests/gpucore/units.t:
 *
 *   test-gpucore DUMP CUBIN     the SASS decoder against nvdisasm's readings, the words, and then
 *                               DUMP (a GPU core the simulator wrote) and CUBIN (a cubin) cut at
 *                               every length and damaged at every byte: each read either
 *                               succeeds or fails with a message, and never crashes (run under
 *                               ASan in make check-asan)
 *   test-gpucore --line OBJECT  print FILE:LINE for the first address of OBJECT's code that its
 *                               line table has (OBJECT: a linked ELF file of any machine, read as
 *                               if it were a cubin)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpucore/gpucore.h"
#include "tap.h"

/* Instructions nvcc 13.0 wrote and nvdisasm 13.5 read (tests/gpucore/README in docs/GPUCORE.md,
 * "Instructions"): {major, minor, low word, high word, our text, bytes, base register, offset}. */
static const struct sass_case {
	unsigned major, minor;
	uint64_t lo, hi;
	const char *text;         /* NULL: not decoded */
	unsigned width, base;
	int64_t offset;
} sass_cases[] = {
	/* The H200 fixture's faulting store: STG.E desc[UR4][R6.64], R5 */
	{ 9, 0, 0x0000000506007986ull, 0x004fe2000c101904ull, "STG.E [R6.64], R5", 4, 6, 0 },
	{ 9, 0, 0x0000000402027981ull, 0x002f22000c1e1900ull, "LDG.E R2, [R2.64]", 4, 2, 0 },
	{ 9, 0, 0x0c35000402027981ull, 0x000ea2000c1e1b00ull, "LDG.E.64 R2, [R2.64+0xc3500]", 8, 2, 0xc3500 },
	{ 9, 0, 0x0000000404047981ull, 0x000ea2000c1e1d00ull, "LDG.E.128 R4, [R4.64]", 16, 4, 0 },
	{ 9, 0, 0x0000000402037981ull, 0x000ea2000c1e1100ull, "LDG.E.U8 R3, [R2.64]", 1, 2, 0 },
	{ 9, 0, 0x0000000402037981ull, 0x000ea2000c1e1700ull, "LDG.E.S16 R3, [R2.64]", 2, 2, 0 },
	{ 9, 0, 0x0000080204007986ull, 0x004fe2000c101b04ull, "STG.E.64 [R4.64+0x8], R2", 8, 4, 8 },
	{ 9, 0, 0x000010070207798aull, 0x004ea800081ee1c4ull, "ATOM.E R7, [R2.64+0x10], R7", 0, 2, 0x10 },
	{ 9, 0, 0x00002009020379a8ull, 0x002ee200081ee1c4ull, "ATOMG.E R3, [R2.64+0x20], R9", 0, 2, 0x20 },
	{ 9, 0, 0x061a80070200798eull, 0x002fe2000d10e384ull, "REDG.E [R2.64+0x61a80], R7", 0, 2, 0x61a80 },
	{ 8, 0, 0x0000040402167981ull, 0x000ea8000c1e1900ull, "LDG.E R22, [R2.64+0x4]", 4, 2, 4 },
	{ 8, 6, 0x000024050200798eull, 0x000fe2000c10e184ull, "RED.E [R2.64+0x24], R5", 0, 2, 0x24 },
	{ 7, 5, 0x0000100002077381ull, 0x000ea800001ee900ull, "LDG.E R7, [R2+0x10]", 4, 2, 0x10 },
	{ 7, 5, 0x0000080204007386ull, 0x004fe2000010eb00ull, "STG.E.64 [R4+0x8], R2", 8, 4, 8 },
	/* Not decoded: a uniform-register address on sm_75, LDC, EXIT, NOP, an unknown SM. */
	{ 7, 5, 0x00000404ff347981ull, 0x000ea8000c1ee900ull, NULL, 0, 0, 0 },
	{ 9, 0, 0x00000a00ff017b82ull, 0x000fe20000000800ull, NULL, 0, 0, 0 },
	{ 9, 0, 0x000000000000794dull, 0x000fea0003800000ull, NULL, 0, 0, 0 },
	{ 9, 0, 0x0000000000007918ull, 0x000fc00000000000ull, NULL, 0, 0, 0 },
	{ 10, 0, 0x0000000506007986ull, 0x004fe2000c101904ull, NULL, 0, 0, 0 },
};

static void le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_sass(void)
{
	for (size_t i = 0; i < sizeof sass_cases / sizeof sass_cases[0]; i++) {
		const struct sass_case *c = &sass_cases[i];
		uint8_t insn[16];
		le(insn, c->lo);
		le(insn + 8, c->hi);
		struct ci_sass_access a;
		bool got = ci_sass_decode_access(c->major, c->minor, insn, &a);
		if (!c->text) {
			ok(!got, "sm_%u%u 0x%016llx: not decoded", c->major, c->minor, (unsigned long long)c->lo);
			continue;
		}
		if (!ok(got && strcmp(a.text, c->text) == 0 && a.width == c->width && a.base_reg == c->base &&
			a.offset == c->offset && a.base_wide, "sm_%u%u: %s", c->major, c->minor, c->text))
			printf("# got %s '%s' width %u base %u offset %lld\n", got ? "yes" : "no", got ? a.text : "",
			       a.width, a.base_reg, (long long)a.offset);
	}
}

static void test_words(void)
{
	char buf[256];
	is_str(ci_gpu_exception_words(14, buf, sizeof buf), "Warp Illegal Address", "exception 14 in cuda-gdb's words");
	is_str(ci_gpu_exception_words(5, buf, sizeof buf), "Warp Out-of-range Address", "exception 5");
	is_str(ci_gpu_exception_words(30, buf, sizeof buf), "Warp Mmu Fault", "exception 30 from its name");
	is_str(ci_gpu_exception_words(0xffffffffu, buf, sizeof buf), "Device Unknown Exception", "exception ~0");
	is_str(ci_gpu_exception_words(999, buf, sizeof buf), "unknown exception 999", "an exception not in the table");
	is_str(ci_gpu_coredump_flags_text(0x8000001f, buf, sizeof buf),
	       "skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory,skip_abort,log_only",
	       "generation flags named");
	is_str(ci_gpu_grid_status_name(2), "Active", "grid status 2");
	ok(!ci_gpu_grid_status_name(6), "grid status 6 has no name");
	char small[40];
	is_str(ci_gpu_coredump_flags_text(0x3, small, sizeof small), "skip_nonrelocated_elf_images",
	       "flags cut where they do not fit: whole names only");
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
	if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* Read the N bytes at P as a GPU core; 1 when it parsed, 0 when it failed with a message, -1 for
 * an error without one. */
static int try_dump(const uint8_t *p, size_t n)
{
	struct ci_gpucore *gc;
	struct ci_error *err = ci_gpucore_from_memory("test", p, n, 1u << 20, &gc);
	if (err) {
		int r = err->message[0] ? 0 : -1;
		ci_error_destroy(err);
		return r;
	}
	/* What a report asks. */
	char words[64];
	ci_gpu_exception_words(gc->fault.exception, words, sizeof words);
	for (size_t w = 0; w < gc->warp_count; w++) {
		struct ci_gpu_where wh;
		if (gc->warps[w].lane_first != CI_GPU_NONE && gc->warps[w].lane_count)
			ci_gpucore_where(gc, gc->lanes[gc->warps[w].lane_first].virtual_pc, CI_GPU_NONE, &wh);
	}
	ci_gpucore_destroy(gc);
	return 1;
}

static int try_cubin(const uint8_t *p, size_t n, uint64_t pc)
{
	struct ci_cubin *cb;
	struct ci_error *err = ci_cubin_open("test", p, n, &cb);
	if (err) {
		ci_error_destroy(err);
		return 0;
	}
	const char *name, *file, *dir, *warn = NULL;
	uint64_t start;
	uint32_t line;
	ci_cubin_function(cb, pc, &name, &start);
	ci_cubin_line(cb, pc, &file, &dir, &line, &warn);
	ci_cubin_code(cb, pc, 16);
	ci_cubin_destroy(cb);
	return 1;
}

/* Change the first section header of type TYPE in a copy of the dump: field at OFF (4 bytes) set
 * to VALUE; read it; the error's message, or "" and the first warning (or "") when it read. */
static void patched(const uint8_t *dump, size_t n, uint32_t type, unsigned off, uint32_t value, char *msg, size_t len)
{
	uint8_t *copy = malloc(n);
	memcpy(copy, dump, n);
	struct ci_gpu_ehdr eh;
	snprintf(msg, len, "no such section");
	if (ci_gpu_elf_header(copy, n, &eh))
		for (uint64_t i = 0; i < eh.shnum; i++) {
			struct ci_gpu_shdr sh;
			if (ci_gpu_elf_shdr(copy, n, eh.shoff, i, &sh) && sh.type == type) {
				uint8_t *h = copy + eh.shoff + i * 64 + off;
				for (int k = 0; k < 4; k++)
					h[k] = (uint8_t)(value >> (8 * k));
				struct ci_gpucore *gc;
				struct ci_error *err = ci_gpucore_from_memory("patched", copy, n, 0, &gc);
				if (err) {
					snprintf(msg, len, "%s", err->message);
					ci_error_destroy(err);
				} else {
					msg[0] = 0;
					for (size_t w = 0; w < gc->warnings.count; w++)
						snprintf(msg + strlen(msg), len - strlen(msg), "%s%s", w ? " | " : "",
							 gc->warnings.items[w]);
					ci_gpucore_destroy(gc);
				}
				break;
			}
		}
	free(copy);
}

static void test_tables(const uint8_t *dump, size_t n)
{
	char msg[600];
	patched(dump, n, 0x80000009, 4, 0x80000099, msg, sizeof msg);
	ok(strstr(msg, "without a device table") != NULL, "no device table: refused (%s)", msg);
	patched(dump, n, 0x8000000f, 40, 1, msg, sizeof msg);
	ok(strstr(msg, "links (sh_link) to section 1") != NULL, "a lane table linked to a wrong parent: a warning (%s)", msg);
	patched(dump, n, 0x8000000f, 44, 1000, msg, sizeof msg);
	ok(strstr(msg, "names row 1000 (sh_info)") != NULL, "a lane table naming a row its parent lacks: a warning (%s)", msg);
	patched(dump, n, 0x8000000e, 56, 0, msg, sizeof msg);
	ok(strstr(msg, "row size 0") != NULL, "a warp table with rows of 0 bytes: a warning (%s)", msg);
	patched(dump, n, 0x8000000e, 56, 40, msg, sizeof msg);
	ok(strstr(msg, "not a whole number of 40-byte rows") != NULL || !msg[0],
	   "rows of 40 bytes (an older driver's warp rows): read, fields past them as 0 (%s)", msg[0] ? msg : "no warning");
	patched(dump, n, 0x80000005, 24, 0xfffffff0u, msg, sizeof msg);
	ok(strstr(msg, "past the end of the file") != NULL, "registers past the end of the file: a warning (%s)", msg);
}

static void test_damage(const char *dump_path, const char *cubin_path)
{
	size_t n, cn;
	uint8_t *dump = slurp(dump_path, &n), *cubin = slurp(cubin_path, &cn);
	if (!ok(dump && cubin, "read %s and %s", dump_path, cubin_path))
		return;
	ok(try_dump(dump, n) == 1, "the simulator's GPU core reads");
	test_tables(dump, n);
	int bad = 0, parsed = 0;
	for (size_t len = 0; len < n; len++) {
		int r = try_dump(dump, len);
		bad += r < 0;
		parsed += r == 1;
	}
	/* The section table is last: a GPU core cut anywhere loses it. */
	ok(bad == 0 && parsed == 0, "cut at each of %zu lengths: refused with a message every time (%d read)", n, parsed);
	uint8_t *copy = malloc(n);
	bad = parsed = 0;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 2; k++) {
			memcpy(copy, dump, n);
			copy[i] = k ? (uint8_t)(copy[i] + 1) : (uint8_t)~copy[i];
			int r = try_dump(copy, n);
			bad += r < 0;
			parsed += r == 1;
		}
	}
	ok(bad == 0, "each of %zu bytes damaged two ways: read or refused with a message (%d read)", n, parsed);
	free(copy);

	struct ci_gpu_ehdr eh;
	uint64_t pc = 0;
	if (ci_gpu_elf_header(cubin, cn, &eh))
		for (uint64_t i = 0; i < eh.shnum; i++) {
			struct ci_gpu_shdr sh;
			if (ci_gpu_elf_shdr(cubin, cn, eh.shoff, i, &sh) && (sh.flags & 4) && sh.addr)
				pc = sh.addr + 0x80;
		}
	ok(try_cubin(cubin, cn, pc), "the cubin reads");
	parsed = 0;
	for (size_t len = 0; len < cn; len++)
		parsed += try_cubin(cubin, len, pc);
	ok(1, "the cubin cut at each of %zu lengths (%d read)", cn, parsed);
	copy = malloc(cn);
	parsed = 0;
	for (size_t i = 0; i < cn; i++)
		for (int k = 0; k < 3; k++) {
			memcpy(copy, cubin, cn);
			copy[i] = k == 0 ? (uint8_t)~copy[i] : k == 1 ? (uint8_t)(copy[i] + 1) : 0x80;
			parsed += try_cubin(copy, cn, pc);
		}
	ok(1, "the cubin damaged at each of %zu bytes three ways (%d read)", cn, parsed);
	free(copy);
	free(dump);
	free(cubin);
}

/* The line of the lowest address in OBJECT's line table, the object read as a cubin (its
 * e_machine set to EM_CUDA in a copy). */
static int line_of(const char *path)
{
	size_t n;
	uint8_t *p = slurp(path, &n);
	if (!p || n < 20) {
		fprintf(stderr, "test-gpucore: cannot read %s\n", path);
		return 2;
	}
	p[18] = 190;
	p[19] = 0;
	struct ci_cubin *cb;
	struct ci_error *err = ci_cubin_open(path, p, n, &cb);
	if (err) {
		fprintf(stderr, "test-gpucore: %s\n", err->message);
		return 1;
	}
	/* The first address of an executable section with a line. */
	int rc = 1;
	struct ci_gpu_ehdr eh;
	ci_gpu_elf_header(p, n, &eh);
	for (uint64_t i = 0; rc && i < eh.shnum; i++) {
		struct ci_gpu_shdr sh;
		if (!ci_gpu_elf_shdr(p, n, eh.shoff, i, &sh) || !(sh.flags & 4 /* SHF_EXECINSTR */))
			continue;
		for (uint64_t a = sh.addr; a < sh.addr + sh.size; a++) {
			const char *file, *dir, *warn = NULL;
			uint32_t line;
			if (ci_cubin_line(cb, a, &file, &dir, &line, &warn)) {
				printf("%s:%u\n", file, line);
				rc = 0;
				break;
			}
			if (warn)
				fprintf(stderr, "test-gpucore: %s\n", warn);
		}
	}
	ci_cubin_destroy(cb);
	free(p);
	return rc;
}

/* A plain GPU core cut to nothing after it was opened (a dump still being written, or replaced):
 * the registers the reader reads lazily, past the new end, read as zeros under the SIGBUS guard
 * instead of killing it, and the reader says the file shrank. */
static void test_shrink(const char *dump_path)
{
	size_t n = 0;
	uint8_t *p = slurp(dump_path, &n);
	char tmp[] = "/tmp/ci-gpucore-shrink.XXXXXX";
	int fd = mkstemp(tmp);
	bool wrote = p && fd >= 0 && write(fd, p, n) == (ssize_t)n;
	free(p);
	struct ci_gpucore *gc = NULL;
	struct ci_error *err = wrote ? ci_gpucore_open(tmp, NULL, &gc) : NULL;
	if (!ok(wrote && !err && gc && gc->fault.lane != CI_GPU_NONE, "shrink: a copy of the dump opens, with a faulting lane")) {
		ci_error_destroy(err);
		ci_gpucore_destroy(gc);
		for (int i = 0; i < 3; i++)
			ok(false, "shrink: not tried");
		if (fd >= 0)
			close(fd), unlink(tmp);
		return;
	}
	ok(!ci_gpucore_check_shrink(gc), "shrink: nothing said while the file is whole");
	uint32_t v = 0xdeadbeef;
	ok(ftruncate(fd, 0) == 0 && (ci_gpucore_lane_reg(gc, gc->fault.lane, 2, &v), v == 0),
	   "shrink: a register past the new end reads as 0 (no SIGBUS)");
	bool said = ci_gpucore_check_shrink(gc);
	ok(said && gc->warnings.count && strstr(gc->warnings.items[gc->warnings.count - 1], "shrank while it was read"),
	   "shrink: the reader says the file shrank");
	ci_gpucore_destroy(gc);
	close(fd);
	unlink(tmp);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--line") == 0)
		return line_of(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: test-gpucore DUMP CUBIN | test-gpucore --line OBJECT\n");
		return 2;
	}
	plan((int)(sizeof sass_cases / sizeof sass_cases[0]) + 9 + 7 + 6 + 4);
	test_sass();
	test_words();
	test_damage(argv[1], argv[2]);
	test_shrink(argv[1]);
	return done_testing();
}
