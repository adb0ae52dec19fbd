/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: a stand-in for the recorder library that only exports the pointer the reader's
 * "exported symbol" locate method looks for.  Built as libcudainspect-rec-synth.so so that its
 * NT_FILE name looks like the recorder's; crasher --mode=symbol dlopens it and stores the
 * record's address in it.
 */
#include "cudainspect/record.h"

__attribute__((visibility("default"))) void *cudainspect_record;
