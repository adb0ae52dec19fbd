/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect merge [OPTIONS] INPUT...`: one report for the records of a whole NCCL job
 * (docs/CLI.md, "merge"), a thin front end over ci_merge_* (corefile/merge/).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

static const char merge_usage[] =
	"Usage: cudainspect merge [OPTIONS] INPUT...\n"
	"\n"
	"One report for a whole multi-GPU job: the records of its ranks side by side.\n"
	"Says each rank's host, pid, device and state (faulted, API error, hung in\n"
	"collective #k, exited), which rank failed first (by the communicator's\n"
	"collective numbers, then by time), which collective the others wait in and\n"
	"which ranks never arrived there, collectives that differ between ranks (a\n"
	"desync), a fault on a peer's memory after that peer exited, and the failing\n"
	"rank's own diagnosis.\n"
	"\n"
	"INPUT  a core, a snapshot (.cisnap), a persistent record (.cirec), a JSON\n"
	"       document written by `cudainspect --json` (schema 5 or later, e.g. on\n"
	"       another host), or a directory holding them (core*, *.core, *.cisnap,\n"
	"       *.cirec, *.json; 4 levels deep).  Several inputs of one process keep the\n"
	"       newest; damaged inputs, missing ranks and other jobs are named, never\n"
	"       fatal.\n"
	"\n"
	"Options:\n"
	"  -j, --json              one JSON document (docs/JSON.md, \"The merge document\")\n"
	"  -w, --width N           text width (default: the terminal's, else 100)\n"
	"  -h, --help              this help\n"
	"\n"
	"Exit status: 0 the report was printed (also with bad inputs among good ones);\n"
	"2 bad flags or no INPUT; 3 no input could be used (the report says why);\n"
	"1 out of memory.\n";

int cli_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "width", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	unsigned width = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":jw:h", longopts, NULL)) != -1) {
		uint64_t v;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'w':
			if (!cli_parse_u64(optarg, &v) || v < 40 || v > 1000)
				return cli_usage_error("--width needs a number of columns from 40 to 1000");
			width = (unsigned)v;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			return CI_EXIT_OK;
		case ':':
			return cli_usage_error("merge: option %s needs an argument", argv[optind - 1]);
		default:
			return cli_usage_error("merge: unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("merge needs at least one INPUT (cores, snapshots, record "
				       "files, JSON documents or directories)");
	if (!width) {
		struct winsize ws;
		width = isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
				ws.ws_col >= 40 ? ws.ws_col : 100;
	}
	/* Symbols as for `cudainspect INPUT` (the crash signature hashes the launch site), but a
	 * core from another host whose files are not here still merges. */
	struct ci_request req = { .symbols_optional = true };
	struct ci_merge *merge = NULL;
	struct ci_error *err = ci_merge_create(&req, &merge);
	for (int i = optind; !err && i < argc; i++)
		err = ci_merge_add(merge, argv[i]);
	if (!err)
		err = ci_merge_render(stdout, merge, json, width);
	int rc = CI_EXIT_OK;
	if (err) {
		cli_error("%s", err->message);
		rc = ci_error_exit(err->code);
		ci_error_destroy(err);
	} else if (!ci_merge_usable_count(merge)) {
		cli_error("merge: none of the %zu input(s) could be read", ci_merge_input_count(merge));
		rc = CI_EXIT_BAD_INPUT;
	}
	ci_merge_destroy(merge);
	return rc;
}
