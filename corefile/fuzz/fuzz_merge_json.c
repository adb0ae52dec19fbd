/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the merge's JSON reader (corefile/merge/facts_json.c): arbitrary bytes
 * as the JSON document of another host.  It must refuse or accept them without a crash, a leak
 * or undefined behaviour, and what it accepts must hold together (sorted calls, bounded strings).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ci_job_facts f;
	struct ci_error *err = ci_job_facts_from_json((const char *)data, size, &f);
	if (err) {
		ci_error_destroy(err);
		return 0;
	}
	for (size_t i = 1; i < f.call_count; i++)
		if (f.calls[i - 1].comm_id > f.calls[i].comm_id)
			abort();
	if (strlen(f.host) >= sizeof f.host || !f.headline)
		abort();
	ci_job_facts_deinit(&f);
	return 0;
}
