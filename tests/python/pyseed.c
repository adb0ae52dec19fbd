/* Seeds for fuzz_python (tests/python/fuzz_python.c): synthetic memory images of a CPython
 * process laid out with each layout the reader knows (the 3.10, 3.11 and 3.12 rows of
 * include/cudainspect/pylayout.h, and a _Py_DebugOffsets block with 3.13's offsets), each
 * holding one interpreter with two threads of three frames, so that the fuzzer starts from
 * images the walker reads all the way through.  File format: one selector byte (the layout,
 * as the harness reads it), then the image, which the harness maps at PYSEED_BASE.
 *   pyseed DIR */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cudainspect/pylayout.h"

#define PYSEED_BASE 0x100000u
#define IMG 65536
#define CODE_TYPE 0xc0de0000ull

static uint8_t img[IMG];

static void put64(uint32_t off, uint64_t v) { memcpy(img + off, &v, 8); }
static void put32(uint32_t off, uint32_t v) { memcpy(img + off, &v, 4); }
static uint64_t at(uint32_t off) { return PYSEED_BASE + off; }

static uint32_t str(const struct ci_py_layout *l, uint32_t off, const char *s)
{
	put64(off + 8, 0);
	put64(off + l->unicode_length, strlen(s));
	put32(off + l->unicode_state, 1u << 2 | 1u << 5 | 1u << 6);
	memcpy(img + off + l->unicode_ascii_size, s, strlen(s) + 1);
	return off;
}

static void code(const struct ci_py_layout *l, uint32_t off, uint32_t strs, int j)
{
	char name[32];
	put64(off + 8, CODE_TYPE);
	snprintf(name, sizeof name, "Engine.step%d", j);
	put64(off + (l->code_qualname ? l->code_qualname : l->code_name), at(str(l, strs, name)));
	put64(off + l->code_filename, at(str(l, strs + 0x80, "/srv/engine.py")));
	put32(off + l->code_firstlineno, 10 + 10 * (uint32_t)j);
	uint32_t table = strs + 0x100;
	put64(off + l->code_linetable, at(table));
	put64(table + l->bytes_size, 8);
	for (int i = 0; i < 8; i += 2) {
		if (l->linetable_311) {
			img[table + l->bytes_sval + i] = 0x80 | 13 << 3 | 1; /* 2 code units, no columns */
			img[table + l->bytes_sval + i + 1] = 2;              /* line += 1 */
		} else {
			img[table + l->bytes_sval + i] = 4; /* 4 bytes (2 code units) */
			img[table + l->bytes_sval + i + 1] = 1;
		}
	}
}

static void build(const struct ci_py_layout *l)
{
	memset(img, 0, sizeof img);
	const uint32_t interp = 0x1000, ts[2] = { 0x4000, 0x4400 }, cframe = 0x4800;
	put64(l->runtime_interpreters_head, at(interp));
	put64(interp + l->interp_threads_head, at(ts[0]));
	if (l->runtime_tstate_current)
		put64(l->runtime_tstate_current, at(ts[1]));
	if (l->interp_gil_holder) {
		put64(interp + l->interp_gil_holder, at(ts[1]));
		put32(interp + l->interp_gil_locked, 1);
	}
	for (int t = 0; t < 2; t++) {
		put64(ts[t] + l->tstate_interp, at(interp));
		put64(ts[t] + l->tstate_next, t ? 0 : at(ts[1]));
		put64(ts[t] + l->tstate_thread_id, 0x7f0000001000ull * (uint64_t)(t + 1));
		if (l->tstate_native_thread_id)
			put64(ts[t] + l->tstate_native_thread_id, 1000u + (unsigned)t);
		uint32_t first = 0x5000 + (uint32_t)t * 0x400;
		if (l->has_cframe) {
			put64(ts[t] + l->tstate_frame, at(cframe + (uint32_t)t * 0x40));
			put64(cframe + (uint32_t)t * 0x40 + l->cframe_current_frame, at(first));
		} else {
			put64(ts[t] + l->tstate_frame, at(first));
		}
		for (int f = 0; f < 3; f++) {
			uint32_t fr = first + (uint32_t)f * 0x100, co = 0x8000 + (uint32_t)f * 0x400;
			code(l, co, 0xc000 + (uint32_t)f * 0x200, f);
			put64(fr + l->frame_code, at(co));
			put64(fr + l->frame_previous, f < 2 ? at(fr + 0x100) : 0);
			if (l->instr_is_index)
				put32(fr + l->frame_instr, 3);
			else
				put64(fr + l->frame_instr, at(co + l->code_code_adaptive + 6));
			if (l->frame_is_entry)
				img[fr + l->frame_is_entry] = f == 1;
		}
	}
}

/* 3.13's _Py_DebugOffsets (the offsets of the 3.13.0 headers, tests/python/layout.t). */
static const struct ci_py_layout py313 = {
	.minor = 13, .runtime_interpreters_head = 632, .interp_next = 7264,
	.interp_threads_head = 7344, .interp_gil_locked = 7768, .interp_gil_holder = 7760,
	.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 72, .tstate_thread_id = 152,
	.tstate_native_thread_id = 160, .frame_code = 0, .frame_previous = 8, .frame_instr = 56,
	.frame_owner = 70, .code_filename = 112, .code_name = 120, .code_qualname = 128,
	.code_firstlineno = 68, .code_linetable = 136, .code_code_adaptive = 200,
	.unicode_length = 16, .unicode_state = 32, .unicode_ascii_size = 40,
	.unicode_compact_size = 56, .bytes_size = 16, .bytes_sval = 32, .linetable_311 = 1,
	.owner_cstack = 3,
};

static void debug_block(const struct ci_py_layout *l)
{
	uint64_t w[CI_PYD_WORDS] = { 0 };
	memcpy(w, CI_PY_DEBUG_COOKIE, 8);
	w[CI_PYD_VERSION] = 0x030d00f0;
	w[CI_PYD_RUNTIME_SIZE] = w[CI_PYD_INTERP_SIZE] = w[CI_PYD_TSTATE_SIZE] = 16384;
	w[CI_PYD_FRAME_SIZE] = 80;
	w[CI_PYD_CODE_SIZE] = w[CI_PYD_BYTES_SIZE] = w[CI_PYD_UNICODE_SIZE] = 256;
	w[CI_PYD_RUNTIME_INTERPRETERS_HEAD] = l->runtime_interpreters_head;
	w[CI_PYD_INTERP_NEXT] = l->interp_next;
	w[CI_PYD_INTERP_THREADS_HEAD] = l->interp_threads_head;
	w[CI_PYD_INTERP_GIL_LOCKED] = l->interp_gil_locked;
	w[CI_PYD_INTERP_GIL_HOLDER] = l->interp_gil_holder;
	w[CI_PYD_TSTATE_NEXT] = l->tstate_next;
	w[CI_PYD_TSTATE_INTERP] = l->tstate_interp;
	w[CI_PYD_TSTATE_CURRENT_FRAME] = l->tstate_frame;
	w[CI_PYD_TSTATE_THREAD_ID] = l->tstate_thread_id;
	w[CI_PYD_TSTATE_NATIVE_THREAD_ID] = l->tstate_native_thread_id;
	w[CI_PYD_FRAME_PREVIOUS] = l->frame_previous;
	w[CI_PYD_FRAME_EXECUTABLE] = l->frame_code;
	w[CI_PYD_FRAME_INSTR_PTR] = l->frame_instr;
	w[CI_PYD_FRAME_OWNER] = l->frame_owner;
	w[CI_PYD_CODE_FILENAME] = l->code_filename;
	w[CI_PYD_CODE_NAME] = l->code_name;
	w[CI_PYD_CODE_QUALNAME] = l->code_qualname;
	w[CI_PYD_CODE_LINETABLE] = l->code_linetable;
	w[CI_PYD_CODE_FIRSTLINENO] = l->code_firstlineno;
	w[CI_PYD_CODE_CODE_ADAPTIVE] = l->code_code_adaptive;
	w[CI_PYD_BYTES_OB_SIZE] = l->bytes_size;
	w[CI_PYD_BYTES_OB_SVAL] = l->bytes_sval;
	w[CI_PYD_UNICODE_STATE] = l->unicode_state;
	w[CI_PYD_UNICODE_LENGTH] = l->unicode_length;
	w[CI_PYD_UNICODE_ASCII_SIZE] = l->unicode_ascii_size;
	memcpy(img, w, sizeof w);
}

static int write_seed(const char *dir, const char *name, uint8_t selector)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(&selector, 1, 1, f) != 1 || fwrite(img, 1, sizeof img, f) != sizeof img) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pyseed DIR\n");
		return 2;
	}
	int rc = 0;
	for (unsigned i = 0; i < 3; i++) {
		char name[32];
		build(&ci_py_layouts[i]);
		snprintf(name, sizeof name, "py3%u", ci_py_layouts[i].minor);
		rc |= write_seed(argv[1], name, (uint8_t)(i | 4)); /* 4: check PyCode_Type */
	}
	build(&py313);
	debug_block(&py313);
	rc |= write_seed(argv[1], "py313", 3);
	return rc;
}
