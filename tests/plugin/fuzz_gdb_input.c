/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the GDB launcher's input (plugin/gdb-input.h): any bytes as what GDB
 * pipes in (`info target`, signals, registers, the arguments line), then the arguments split
 * into words; every word must lie within the input's length and the candidates be bounded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdb-input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cigdb_input in;
	if (cigdb_input_parse((const char *)data, size, &in))
		return 0;
	if (in.core_count > CIGDB_MAX_CANDIDATES || in.lwp_count > CIGDB_MAX_CANDIDATES ||
	    (in.args && (in.args < (const char *)data || in.args + in.args_len > (const char *)data + size)) ||
	    (in.registers && in.registers + in.registers_len > (const char *)data + size))
		abort();
	cigdb_stop_signal(&in, in.lwp_count ? in.lwps[0] : 0);
	char **words = NULL;
	int n = cigdb_split_words((const char *)data, size, &words);
	for (int i = 0; i < n; i++)
		if (strlen(words[i]) > size)
			abort();
	cigdb_words_free(words);
	cigdb_input_deinit(&in);
	return 0;
}
