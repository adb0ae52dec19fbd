/* libFuzzer harness for the Python walker (corefile/python.c, python_core.c's merge): the
 * input is a selector byte and a memory image mapped at PYSEED_BASE, read by the walker as a
 * core's memory.  Selector bits 0-1: the layout (the 3.10, 3.11, 3.12 rows, or 3: the
 * _Py_DebugOffsets block at the start of the image); bit 2: code objects must have the type
 * word at image offset 8 (PyCode_Type); bits 3-7: how many native frames, every other one an
 * eval frame, the first thread's Python frames are merged into.  Seeds: tests/python/pyseed.c.
 * Every string the walker returns is read to its end, every line decoded. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudainspect/cudainspect.h"
#include "symbolize/symbolize.h"

#define PYSEED_BASE 0x100000u

struct image {
	const uint8_t *p;
	size_t len;
};

static bool image_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = arg;
	if (addr < PYSEED_BASE || addr - PYSEED_BASE > im->len || len > im->len - (addr - PYSEED_BASE))
		return false;
	memcpy(buf, im->p + (addr - PYSEED_BASE), len);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	struct image im = { data + 1, size - 1 };
	struct ci_py_memory mem = { image_read, &im };
	struct ci_py_layout l;
	const struct ci_py_layout *lay;
	uint32_t version = 0;
	if ((sel & 3) == 3) {
		uint64_t w[CI_PYD_WORDS];
		if (im.len < sizeof(w))
			return 0;
		memcpy(w, im.p, sizeof(w));
		if (ci_py_layout_from_debug_offsets(w, &l, &version))
			return 0;
		lay = &l;
	} else {
		lay = &ci_py_layouts[sel & 3];
	}
	uint64_t code_type = 0;
	if ((sel & 4) && im.len >= 16)
		memcpy(&code_type, im.p + 8, 8);
	struct ci_py_state *st = ci_py_walk(&mem, lay, version, PYSEED_BASE, code_type);
	if (!st)
		return 0;
	size_t total = 0;
	for (size_t i = 0; i < st->thread_count; i++) {
		const struct ci_py_thread *t = &st->threads[i];
		for (size_t k = 0; k < t->frame_count; k++) {
			total += t->frames[k].function ? strlen(t->frames[k].function) : 0;
			total += t->frames[k].file ? strlen(t->frames[k].file) : 0;
		}
		total += t->note ? strlen(t->note) : 0;
	}
	if (st->thread_count) {
		size_t n = sel >> 3;
		struct ci_frame *frames = calloc(n ? n : 1, sizeof(*frames));
		for (size_t i = 0; frames && i < n; i++)
			frames[i].function = strdup(i % 2 ? "_PyEval_EvalFrameDefault" : "native");
		size_t count = n;
		char *note = NULL;
		if (frames && ci_py_merge(&st->threads[0], &frames, &count, &note) == 0)
			for (size_t i = 0; i < count; i++)
				total += frames[i].function ? strlen(frames[i].function) : 0;
		for (size_t i = 0; frames && i < count; i++) {
			free(frames[i].function);
			free(frames[i].file);
		}
		free(frames);
		free(note);
	}
	/* The line decoders on the image's tail as a table. */
	if (im.len > 2)
		total += (size_t)ci_py_line(lay, im.p + 2, im.len - 2, im.p[0], im.p[1]);
	ci_py_state_destroy(st);
	return total == (size_t)-1;
}
