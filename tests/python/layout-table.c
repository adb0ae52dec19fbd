/* Prints include/cudainspect/pylayout.h's row for 3.MINOR (argv[1]) in the format of
 * tests/python/layout-probe.c, and for 13 the _Py_DebugOffsets word indices the reader uses;
 * tests/python/layout.t compares the two. */
#include <stdio.h>
#include <stdlib.h>

#include "cudainspect/pylayout.h"

#define P(name, value) printf("%s %zu\n", name, (size_t)(value))

int main(int argc, char **argv)
{
	unsigned minor = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
	const struct ci_py_layout *l = NULL;
	for (size_t i = 0; i < sizeof(ci_py_layouts) / sizeof(ci_py_layouts[0]); i++)
		if (ci_py_layouts[i].minor == minor)
			l = &ci_py_layouts[i];
	if (minor == 13) {
#define W(name, word) P("pyd." name, word)
		W("version", CI_PYD_VERSION);
		W("free_threaded", CI_PYD_FREE_THREADED);
		W("runtime_size", CI_PYD_RUNTIME_SIZE);
		W("runtime_interpreters_head", CI_PYD_RUNTIME_INTERPRETERS_HEAD);
		W("interp_size", CI_PYD_INTERP_SIZE);
		W("interp_next", CI_PYD_INTERP_NEXT);
		W("interp_threads_head", CI_PYD_INTERP_THREADS_HEAD);
		W("interp_gil_locked", CI_PYD_INTERP_GIL_LOCKED);
		W("interp_gil_holder", CI_PYD_INTERP_GIL_HOLDER);
		W("tstate_size", CI_PYD_TSTATE_SIZE);
		W("tstate_next", CI_PYD_TSTATE_NEXT);
		W("tstate_interp", CI_PYD_TSTATE_INTERP);
		W("tstate_current_frame", CI_PYD_TSTATE_CURRENT_FRAME);
		W("tstate_thread_id", CI_PYD_TSTATE_THREAD_ID);
		W("tstate_native_thread_id", CI_PYD_TSTATE_NATIVE_THREAD_ID);
		W("frame_size", CI_PYD_FRAME_SIZE);
		W("frame_previous", CI_PYD_FRAME_PREVIOUS);
		W("frame_executable", CI_PYD_FRAME_EXECUTABLE);
		W("frame_instr_ptr", CI_PYD_FRAME_INSTR_PTR);
		W("frame_owner", CI_PYD_FRAME_OWNER);
		W("code_size", CI_PYD_CODE_SIZE);
		W("code_filename", CI_PYD_CODE_FILENAME);
		W("code_name", CI_PYD_CODE_NAME);
		W("code_qualname", CI_PYD_CODE_QUALNAME);
		W("code_linetable", CI_PYD_CODE_LINETABLE);
		W("code_firstlineno", CI_PYD_CODE_FIRSTLINENO);
		W("code_code_adaptive", CI_PYD_CODE_CODE_ADAPTIVE);
		W("bytes_size", CI_PYD_BYTES_SIZE);
		W("bytes_ob_size", CI_PYD_BYTES_OB_SIZE);
		W("bytes_ob_sval", CI_PYD_BYTES_OB_SVAL);
		W("unicode_size", CI_PYD_UNICODE_SIZE);
		W("unicode_state", CI_PYD_UNICODE_STATE);
		W("unicode_length", CI_PYD_UNICODE_LENGTH);
		W("unicode_ascii_size", CI_PYD_UNICODE_ASCII_SIZE);
		P("pyd.words", CI_PYD_WORDS);
		return 0;
	}
	if (!l)
		return 1;
	P("minor", l->minor);
	P("runtime.interpreters_head", l->runtime_interpreters_head);
	P("runtime.tstate_current", l->runtime_tstate_current);
	P("interp.next", l->interp_next);
	P("interp.threads_head", l->interp_threads_head);
	P("interp.gil_locked", l->interp_gil_locked);
	P("interp.gil_holder", l->interp_gil_holder);
	P("tstate.next", l->tstate_next);
	P("tstate.interp", l->tstate_interp);
	P("tstate.frame", l->tstate_frame);
	P("cframe.current_frame", l->cframe_current_frame);
	P("tstate.thread_id", l->tstate_thread_id);
	P("tstate.native_thread_id", l->tstate_native_thread_id);
	P("frame.code", l->frame_code);
	P("frame.previous", l->frame_previous);
	P("frame.instr", l->frame_instr);
	P("frame.owner", l->frame_owner);
	P("frame.is_entry", l->frame_is_entry);
	P("code.filename", l->code_filename);
	P("code.name", l->code_name);
	P("code.qualname", l->code_qualname);
	P("code.code_adaptive", l->code_code_adaptive);
	P("code.firstlineno", l->code_firstlineno);
	P("code.linetable", l->code_linetable);
	P("unicode.length", l->unicode_length);
	P("unicode.state", l->unicode_state);
	P("unicode.ascii_size", l->unicode_ascii_size);
	P("unicode.compact_size", l->unicode_compact_size);
	P("bytes.size", l->bytes_size);
	P("bytes.sval", l->bytes_sval);
	return 0;
}
