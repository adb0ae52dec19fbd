/* SPDX-License-Identifier: MIT */
/*
 * The "jitted" code of gdbprobe --jit: linked as a freestanding executable at a fixed address,
 * loaded and registered by gdbprobe as another JIT producer would.  Built at -O0 so the call
 * stays a call and GDB unwinds through it with the object's own CFI.
 */
typedef void (*use_fn)(float *, float *);

void jitted_call(use_fn use, float *live, float *stale);

void jitted_call(use_fn use, float *live, float *stale)
{
	use(live, stale);
}
