/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: write a synthetic flight record file (synth.h) with the chosen entries and
 * damage, as a recorder snapshot would.  `mkrecord [OPTIONS] OUT`; --truncate=N writes only the
 * first N bytes.  See synth_options_help() for the record options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

int main(int argc, char **argv)
{
	struct synth_spec spec;
	synth_defaults(&spec);
	const char *out = NULL;
	long long truncate_at = -1;
	for (int i = 1; i < argc; i++) {
		if (synth_parse_option(&spec, argv[i]))
			continue;
		if (strncmp(argv[i], "--truncate=", 11) == 0)
			truncate_at = atoll(argv[i] + 11);
		else if (strncmp(argv[i], "--kernel-log=", 13) == 0) {
			/* The file's text becomes the record's KERNEL_LOG section. */
			FILE *k = fopen(argv[i] + 13, "rb");
			static char text[1 << 20];
			if (!k) {
				perror(argv[i] + 13);
				return 2;
			}
			spec.kernel_log_len = fread(text, 1, sizeof text, k);
			spec.kernel_log = text;
			fclose(k);
		}
		else if (strcmp(argv[i], "--help") == 0) {
			printf("usage: mkrecord [OPTIONS] OUT\n%s  --truncate=N --kernel-log=FILE\n",
			       synth_options_help());
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "mkrecord: unknown option %s\n", argv[i]);
			return 2;
		} else
			out = argv[i];
	}
	if (!out) {
		fprintf(stderr, "usage: mkrecord [OPTIONS] OUT\n");
		return 2;
	}
	if (spec.thread_tids[0] == 4242)
		spec.thread_tids[0] = spec.pid;
	size_t size = synth_size(&spec);
	unsigned char *buf = calloc(1, size);
	if (!buf)
		return 1;
	synth_build(&spec, buf);
	if (truncate_at >= 0 && (size_t)truncate_at < size)
		size = (size_t)truncate_at;
	FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	if (!f || fwrite(buf, 1, size, f) != size || (f != stdout && fclose(f))) {
		perror(out);
		return 1;
	}
	free(buf);
	return 0;
}
