/* Prints the offsets cudainspect's Python layout tables (include/cudainspect/pylayout.h) name,
 * as "field value" lines, compiled against one interpreter's own internal headers
 * (Py_BUILD_CORE).  tests/python/layout.t builds it for every installed CPython and compares
 * the lines with what the table says (cidecode --py-layout), an independent check of each row. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_MINOR_VERSION >= 11
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif
#include "internal/pycore_code.h"

#define P(name, value) printf("%s %zu\n", name, (size_t)(value))

int main(void)
{
	P("minor", PY_MINOR_VERSION);
	P("runtime.interpreters_head", offsetof(_PyRuntimeState, interpreters.head));
#if PY_MINOR_VERSION <= 11
	P("runtime.tstate_current", offsetof(_PyRuntimeState, gilstate.tstate_current));
#else
	P("runtime.tstate_current", 0);
#endif
	P("interp.next", offsetof(PyInterpreterState, next));
#if PY_MINOR_VERSION == 10
	P("interp.threads_head", offsetof(PyInterpreterState, tstate_head));
#else
	P("interp.threads_head", offsetof(PyInterpreterState, threads.head));
#endif
#if PY_MINOR_VERSION >= 12
	P("interp.gil_locked", offsetof(PyInterpreterState, _gil.locked));
	P("interp.gil_holder", offsetof(PyInterpreterState, _gil.last_holder));
#else
	P("interp.gil_locked", 0);
	P("interp.gil_holder", 0);
#endif
	P("tstate.next", offsetof(PyThreadState, next));
	P("tstate.interp", offsetof(PyThreadState, interp));
#if PY_MINOR_VERSION == 10
	P("tstate.frame", offsetof(PyThreadState, frame));
	P("cframe.current_frame", 0);
#elif PY_MINOR_VERSION <= 12
	P("tstate.frame", offsetof(PyThreadState, cframe));
	P("cframe.current_frame", offsetof(_PyCFrame, current_frame));
#else
	P("tstate.frame", offsetof(PyThreadState, current_frame));
	P("cframe.current_frame", 0);
#endif
	P("tstate.thread_id", offsetof(PyThreadState, thread_id));
#if PY_MINOR_VERSION >= 11
	P("tstate.native_thread_id", offsetof(PyThreadState, native_thread_id));
#else
	P("tstate.native_thread_id", 0);
#endif
#if PY_MINOR_VERSION == 10
	P("frame.code", offsetof(PyFrameObject, f_code));
	P("frame.previous", offsetof(PyFrameObject, f_back));
	P("frame.instr", offsetof(PyFrameObject, f_lasti));
	P("frame.owner", 0);
	P("frame.is_entry", 0);
#else
#if PY_MINOR_VERSION >= 13
	P("frame.code", offsetof(_PyInterpreterFrame, f_executable));
	P("frame.previous", offsetof(_PyInterpreterFrame, previous));
	P("frame.instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	P("frame.code", offsetof(_PyInterpreterFrame, f_code));
	P("frame.previous", offsetof(_PyInterpreterFrame, previous));
	P("frame.instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
	P("frame.owner", offsetof(_PyInterpreterFrame, owner));
#if PY_MINOR_VERSION == 11
	P("frame.is_entry", offsetof(_PyInterpreterFrame, is_entry));
#else
	P("frame.is_entry", 0);
#endif
#endif
	P("code.filename", offsetof(PyCodeObject, co_filename));
	P("code.name", offsetof(PyCodeObject, co_name));
#if PY_MINOR_VERSION >= 11
	P("code.qualname", offsetof(PyCodeObject, co_qualname));
	P("code.code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#else
	P("code.qualname", 0);
	P("code.code_adaptive", 0);
#endif
	P("code.firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("code.linetable", offsetof(PyCodeObject, co_linetable));
	P("unicode.length", offsetof(PyASCIIObject, length));
	P("unicode.state", offsetof(PyASCIIObject, state));
	P("unicode.ascii_size", sizeof(PyASCIIObject));
	P("unicode.compact_size", sizeof(PyCompactUnicodeObject));
	P("bytes.size", offsetof(PyVarObject, ob_size));
	P("bytes.sval", offsetof(PyBytesObject, ob_sval));
#if PY_MINOR_VERSION == 13
	/* The words of _Py_DebugOffsets the reader takes (pylayout.h's ci_py_debug_word). */
#define W(name, field) P("pyd." name, offsetof(_Py_DebugOffsets, field) / 8)
	W("version", version);
	W("free_threaded", free_threaded);
	W("runtime_size", runtime_state.size);
	W("runtime_interpreters_head", runtime_state.interpreters_head);
	W("interp_size", interpreter_state.size);
	W("interp_next", interpreter_state.next);
	W("interp_threads_head", interpreter_state.threads_head);
	W("interp_gil_locked", interpreter_state.gil_runtime_state_locked);
	W("interp_gil_holder", interpreter_state.gil_runtime_state_holder);
	W("tstate_size", thread_state.size);
	W("tstate_next", thread_state.next);
	W("tstate_interp", thread_state.interp);
	W("tstate_current_frame", thread_state.current_frame);
	W("tstate_thread_id", thread_state.thread_id);
	W("tstate_native_thread_id", thread_state.native_thread_id);
	W("frame_size", interpreter_frame.size);
	W("frame_previous", interpreter_frame.previous);
	W("frame_executable", interpreter_frame.executable);
	W("frame_instr_ptr", interpreter_frame.instr_ptr);
	W("frame_owner", interpreter_frame.owner);
	W("code_size", code_object.size);
	W("code_filename", code_object.filename);
	W("code_name", code_object.name);
	W("code_qualname", code_object.qualname);
	W("code_linetable", code_object.linetable);
	W("code_firstlineno", code_object.firstlineno);
	W("code_code_adaptive", code_object.co_code_adaptive);
	W("bytes_size", bytes_object.size);
	W("bytes_ob_size", bytes_object.ob_size);
	W("bytes_ob_sval", bytes_object.ob_sval);
	W("unicode_size", unicode_object.size);
	W("unicode_state", unicode_object.state);
	W("unicode_length", unicode_object.length);
	W("unicode_ascii_size", unicode_object.asciiobject_size);
	P("pyd.words", sizeof(_Py_DebugOffsets) / 8);
#endif
	return 0;
}
