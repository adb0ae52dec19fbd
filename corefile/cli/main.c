/* SPDX-License-Identifier: MIT */
/*
 * The `cudainspect` command: a thin front end over libcudainspect.  `cudainspect record ...`
 * runs a program under the recorder (record.c); `cudainspect merge ...` puts the records of a
 * whole job side by side (merge.c); anything else inspects a core, a record file or a
 * live process (inspect.c).
 */
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "record") == 0)
		return cli_record(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return cli_merge(argc - 1, argv + 1);
	return cli_inspect_main(argc, argv);
}
