/* SPDX-License-Identifier: MIT */
/*
 * cudainspect.so, a GDB JIT reader (`jit-reader-load cudainspect.so`; docs/GDB.md).  GDB's only
 * C plugin interface hands this reader every object an inferior registers through
 * __jit_debug_descriptor.  The recorder registers its flight record that way; when one arrives
 * (from a core, an attached process or a process started under GDB) the reader decodes it with
 * libcudainspect and prints the same one-screen summary as `cudainspect CORE`.  Device pointers
 * need no help from here: the recorder's symbol image (recorder/symimage.c), an ELF object that
 * GDB's own reader loads, names live allocations (`<cuda_alloc_42+16>`) and recent frees
 * (`<cuda_freed_42+16>`).  When no record arrives the reader says why (target.c).  Everything
 * that is not a flight record goes back to GDB untouched (GDB_FAIL), so other JIT producers and
 * the symbol image keep working.
 */
#include <gdb/jit-reader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"
#include "target.h"

GDB_DECLARE_GPL_COMPATIBLE_READER

/* What this reader has seen since it was loaded. */
struct reader_state {
	unsigned records;          /* flight records delivered */
	bool told_none;            /* the "no flight record" line was printed */
};

static int output_width(void)
{
	/* Readline exports GDB's screen width as COLUMNS. */
	const char *c = getenv("COLUMNS");
	long w = c ? strtol(c, NULL, 10) : 0;
	return w >= 40 && w <= 10000 ? (int)w : 100;
}

static bool output_color(void)
{
	const char *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb") != 0;
}

/* Print the summary of the record in MEMORY (a report session on GDB's copy), or say why it
 * cannot be made. */
static void record_summarize(const void *memory, size_t size)
{
	/* The reader gets a copy of the bytes, not their address; the header says where they were. */
	struct ci_input in = { .buffer = memory, .buffer_size = size };
	if (size >= sizeof(struct ci_header))
		in.buffer_base = ((const struct ci_header *)memory)->record_base;
	struct ci_request req = {
		.render = { .view = CI_VIEW_SUMMARY, .width = output_width(), .color = output_color() },
		/* Symbols for recorded stacks are best effort: without them the summary shows
		 * addresses. */
		.symbols_optional = true,
	};
	struct ci_report *report = NULL;
	fflush(stdout);
	struct ci_error *err = ci_report_create(&in, &req, &report);
	if (err) {
		printf("cudainspect: GDB handed over a flight record (%zu bytes) that cannot be "
		       "decoded: %s\n", size, err->message);
		ci_error_destroy(err);
		fflush(stdout);
		return;
	}
	/* A process started under GDB registers its record before it has done anything: a line
	 * says so instead of a summary of nothing. */
	const struct ci_model *model = ci_report_model(report);
	if (model->header.state == CI_STATE_LIVE && model->sections[CI_SEC_LAUNCHES].head == 0 &&
	    model->error_count == 0) {
		printf("cudainspect: flight record registered by pid %u (no launches or errors yet); "
		       "`cuda summary` reports on it at any stop\n", model->header.pid);
	} else {
		if ((err = ci_report_print(stdout, report))) {
			printf("cudainspect: cannot print the summary: %s\n", err->message);
			ci_error_destroy(err);
		}
		printf("cudainspect: host thread stacks: `bt`, `thread apply all bt`; full report: "
		       "`cuda summary` (commands from cudainspect.gdb)\n");
	}
	fflush(stdout);
	ci_report_destroy(report);
}

static enum gdb_status reader_read(struct gdb_reader_funcs *self, struct gdb_symbol_callbacks *cb,
				   void *memory, long memory_sz)
{
	struct reader_state *st = self->priv_data;
	if (memory_sz < CI_RECORD_MAGIC_LEN || memcmp(memory, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN))
		return GDB_FAIL; /* not ours: GDB's ELF reader (or nobody) takes it */
	st->records++;
	record_summarize(memory, (size_t)memory_sz);
	/* An object with no symbols: device pointers, live and freed, are named by the symbol
	 * image, whose minimal symbols `info symbol` also finds (recorder/symimage.h). */
	cb->object_close(cb, cb->object_open(cb));
	/* Claimed even when undecodable, so GDB does not add "not an object file" to our message. */
	return GDB_SUCCESS;
}

/* This reader unwinds nothing.  GDB asks it first for every frame, which makes the first
 * question a convenient moment to say that no flight record arrived (and, if the core or
 * process has one all the same, why): by then GDB has read every JIT entry of the core or
 * process it stopped in. */
static enum gdb_status reader_unwind(struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
	struct reader_state *st = self->priv_data;
	if (!st->records && !st->told_none) {
		st->told_none = true;
		char msg[8192];
		cigdb_no_record_explain(getpid(), msg, sizeof msg);
		printf("%s\n", msg);
		fflush(stdout);
	}
	return GDB_FAIL;
}

static struct gdb_frame_id reader_frame_id(struct gdb_reader_funcs *self,
					   struct gdb_unwind_callbacks *cb)
{
	return (struct gdb_frame_id){ 0, 0 };
}

static void reader_destroy(struct gdb_reader_funcs *self)
{
	free(self->priv_data);
	free(self);
}

__attribute__((visibility("default"))) struct gdb_reader_funcs *gdb_init_reader(void)
{
	struct gdb_reader_funcs *funcs = calloc(1, sizeof(*funcs));
	struct reader_state *st = calloc(1, sizeof(*st));
	if (!funcs || !st) {
		free(funcs);
		free(st);
		return NULL;
	}
	*funcs = (struct gdb_reader_funcs){
		.reader_version = GDB_READER_INTERFACE_VERSION,
		.priv_data = st,
		.read = reader_read,
		.unwind = reader_unwind,
		.get_frame_id = reader_frame_id,
		.destroy = reader_destroy,
	};
	printf("cudainspect %s: JIT reader loaded; it summarizes the flight record when GDB finds "
	       "one\n", CUDAINSPECT_VERSION);
	fflush(stdout);
	return funcs;
}
