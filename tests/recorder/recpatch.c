/* SPDX-License-Identifier: MIT */
/*
 * recpatch FILE FIELD=VALUE...: rewrite header fields of a record file in place, to forge the
 * files a hostile user could plant (recordcli.t).  Fields: pid, origin, state,
 * write_generation, start_realtime_ns (decimal or 0x-hex).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudainspect/record.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		size_t offset, size;
	} fields[] = {
		{ "pid", offsetof(struct ci_header, pid), 4 },
		{ "origin", offsetof(struct ci_header, origin), 4 },
		{ "state", offsetof(struct ci_header, state), 4 },
		{ "write_generation", offsetof(struct ci_header, write_generation), 8 },
		{ "start_realtime_ns", offsetof(struct ci_header, start_realtime_ns), 8 },
	};
	FILE *f = argc > 2 ? fopen(argv[1], "r+b") : NULL;
	if (!f) {
		fprintf(stderr, "usage: recpatch FILE FIELD=VALUE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		size_t k = 0, n = sizeof fields / sizeof fields[0];
		size_t len = strcspn(argv[i], "=");
		while (k < n && (strlen(fields[k].name) != len || strncmp(argv[i], fields[k].name, len)))
			k++;
		if (k == n || !argv[i][len]) {
			fprintf(stderr, "recpatch: unknown field in %s\n", argv[i]);
			return 2;
		}
		uint64_t v = strtoull(argv[i] + len + 1, NULL, 0);
		uint8_t b[8];
		for (size_t j = 0; j < 8; j++)
			b[j] = (uint8_t)(v >> (8 * j)); /* little-endian, as the format is */
		if (fseek(f, (long)fields[k].offset, SEEK_SET) ||
		    fwrite(b, 1, fields[k].size, f) != fields[k].size)
			return 1;
	}
	return fclose(f) ? 1 : 0;
}
