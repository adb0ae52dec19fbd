/* SPDX-License-Identifier: MIT */
/*
 * Private interface between the pieces of the `cudainspect` command: main.c (option parsing
 * and the inspect pipeline) and record.c (the `record` subcommand, which runs a program under
 * the recorder and then inspects what it left behind).
 */
#ifndef CUDAINSPECT_CLI_H
#define CUDAINSPECT_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cudainspect/cudainspect.h"

/* One report on INPUT (or a live PID), printed to stdout: the report session of the library. */
struct cli_inspect_args {
	const char *input;
	bool have_pid;
	pid_t pid;
	bool json;
	bool quiet;
	int signal;    /* --signal: the signal the process is stopped at (0: what the input says) */
	uint32_t signal_tid; /* --signal-thread, 0 if not given */
	bool held;     /* --held: a debugger holds the live process stopped */
	const struct ci_render_options *render;
	const struct ci_symbolizer_options *sym;
	uint64_t max_core_size; /* --max-core-size: 0 the default, UINT64_MAX none */
	const char *kernel_log; /* --kernel-log FILE or "-", NULL if not given */
};

/* Returns the process exit code (enum ci_exit). */
int cli_inspect(const struct cli_inspect_args *a);

/* `cudainspect record ...`: ARGV[0] is "record".  Returns the process exit code. */
int cli_record(int argc, char **argv);

/* "cudainspect: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same plus a pointer to --help; returns CI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Decimal or 0x-hex unsigned number, the whole string. */
bool cli_parse_u64(const char *s, uint64_t *ret);
/* --registers FILE ("-": standard input, as GDB's `info registers` per thread, see
 * registers.c) into *RET (free it).  Returns 0, or an exit code after saying why. */
int cli_read_registers(const char *path, struct ci_thread_registers **ret, size_t *count);

#endif /* CUDAINSPECT_CLI_H */
