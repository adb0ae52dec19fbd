/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for names.c and errors.c: CUresult names, texts and stickiness, the enum words
 * the JSON output depends on, error codes to exit codes, and warning lists.  With arguments
 * (CUresult values) it prints "VALUE NAME STICKY" lines instead, so names.t can compare the
 * whole table with cuda.h read independently by sed.
 */
#include <stdlib.h>

#include "source/source.h"
#include "tap.h"

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			int32_t v = (int32_t)strtol(argv[i], NULL, 0);
			printf("%d %s %d\n", v, ci_cuda_result_name(v), ci_cuda_result_is_sticky(v));
		}
		return 0;
	}
	plan(33);
	is_str(ci_cuda_result_name(700), "CUDA_ERROR_ILLEGAL_ADDRESS", "700 is CUDA_ERROR_ILLEGAL_ADDRESS");
	is_str(ci_cuda_result_text(700), "an illegal memory access was encountered", "700 text as users see it");
	ok(ci_cuda_result_is_sticky(700), "illegal address is sticky");
	ok(ci_cuda_result_is_sticky(719), "launch failure is sticky");
	ok(ci_cuda_result_is_sticky(710), "device assert is sticky (context unusable)");
	ok(!ci_cuda_result_is_sticky(1), "invalid value is not sticky");
	ok(!ci_cuda_result_is_sticky(2), "out of memory is not sticky");
	ok(!ci_cuda_result_is_sticky(701), "too many resources is not sticky");
	is_str(ci_cuda_result_name(0), "CUDA_SUCCESS", "0 is CUDA_SUCCESS");
	is_str(ci_cuda_result_name(999), "CUDA_ERROR_UNKNOWN", "999 is CUDA_ERROR_UNKNOWN");
	is_str(ci_cuda_result_name(12345), "CUresult 12345", "unknown value named by number");
	ok(strstr(ci_cuda_result_text(12345), "12345") != NULL, "unknown value text has the number");
	is_str(ci_cuda_result_text(2), "out of memory", "2 text");
	/* No short text: the first sentence of cuda.h's comment for CUDA_ERROR_NOT_PERMITTED's
	 * neighbour 802, which says "This indicates that the system is not yet ready...". */
	ok(strncmp(ci_cuda_result_text(802), "the system is not yet ready", 27) == 0,
	   "802 text from cuda.h's comment: %s", ci_cuda_result_text(802));

	is_str(ci_alloc_kind_name(CI_ALLOC_DEVICE), "device", "alloc kind device");
	is_str(ci_alloc_kind_name(CI_ALLOC_VMM_CREATE), "vmm_create", "alloc kind vmm_create");
	is_str(ci_alloc_kind_name(0), "unknown", "alloc kind 0 unknown");
	is_str(ci_alloc_kind_name(4000000000u), "unknown", "alloc kind huge unknown");
	is_str(ci_launch_api_name(CI_LAUNCH_GRAPH), "graph", "launch api graph");
	is_str(ci_event_kind_name(CI_EV_FORK), "fork", "event fork");
	is_str(ci_event_kind_name(CI_EV_STREAM_WAIT_EVENT), "stream_wait_event", "event stream_wait_event");
	is_str(ci_stream_kind_name(CI_STREAM_PER_THREAD), "per_thread", "stream per_thread");
	is_str(ci_crumb_status_name(CI_CRUMB_OK), "ok", "crumb ok");
	is_str(ci_crumb_status_name(CI_CRUMB_NO_SLOT), "no_slot", "crumb no_slot");

	is_int(ci_error_exit(CI_ERR_NO_RECORD), 4, "no record exits 4");
	is_int(ci_error_exit(CI_ERR_CORRUPT), 3, "corrupt exits 3");
	is_int(ci_error_exit(CI_ERR_VERSION), 3, "version exits 3");
	is_int(ci_error_exit(CI_ERR_USAGE), 2, "usage exits 2");
	is_int(ci_error_exit(CI_ERR_NOMEM), 1, "nomem exits 1");
	is_str(ci_error_code_name(CI_ERR_UNAVAILABLE), "CI_ERR_UNAVAILABLE", "code name");

	char longer[1000];
	memset(longer, 'x', sizeof longer - 1);
	longer[sizeof longer - 1] = 0;
	struct ci_error *err = ci_error_create(CI_ERR_IO, "%s", longer);
	ok(strlen(err->message) == sizeof err->message - 1 &&
	   strcmp(err->message + sizeof err->message - 4, "...") == 0, "long message cut with ...");
	ci_error_destroy(err);
	ci_error_destroy(NULL);

	struct ci_warnings w = { 0 };
	ci_warnings_add(&w, "one %d", 1);
	ci_warnings_add(&w, "two");
	ok(w.count == 2 && strcmp(w.items[0], "one 1") == 0, "warnings collect");
	ci_warnings_deinit(&w);
	ok(w.count == 0 && w.items == NULL, "warnings deinit");
	return done_testing();
}
