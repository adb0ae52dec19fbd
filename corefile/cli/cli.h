/* SPDX-License-Identifier: MIT */
/*
 * Private interface between the pieces of the `cudainspect` command: main.c (which command),
 * inspect.c (option parsing and the report), record.c (the `record` subcommand, which runs a
 * program under the recorder and then inspects what it left behind), and what they share.
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
	bool json_full; /* --json=full: every launch, allocation and free */
	bool quiet;
	int signal;    /* --signal: the signal the process is stopped at (0: what the input says) */
	uint32_t signal_tid; /* --signal-thread, 0 if not given */
	bool held;     /* --held: a debugger holds the live process stopped */
	const struct ci_render_options *render;
	const struct ci_symbolizer_options *sym;
	uint64_t max_core_size; /* --max-core-size: 0 the default, UINT64_MAX none */
	const char *kernel_log; /* --kernel-log FILE or "-", NULL if not given */
	const char *gpu_core;   /* --gpu-core FILE, NULL if not given */
	const char *source_name; /* what INPUT is called when it is a spooled copy ("-"), or NULL */
	const char *trace;      /* --trace FILE or "-", NULL if not given */
	const char *timeline;   /* --timeline FILE or "-", NULL if not given */
};

/* Returns the process exit code (enum ci_exit). */
int cli_inspect(const struct cli_inspect_args *a);
/* `cudainspect [OPTIONS] INPUT [VIEW]`: the whole command line.  Returns the exit code. */
int cli_inspect_main(int argc, char **argv);
/* A core without a flight record (WHY is the reader's error): print what its host side shows
 * (norecord.c); nothing for other inputs. */
/* KLOG: the process's kernel-log lines for the JSON document (ci_kernel_log_unrecorded), or NULL. */
struct ci_evidence;
void cli_no_record_report(const struct cli_inspect_args *a, const struct ci_error *why,
			  const struct ci_evidence *klog);

/* `cudainspect merge ...`: ARGV[0] is "merge".  Returns the process exit code. */
int cli_merge(int argc, char **argv);

/* `cudainspect record ...`: ARGV[0] is "record".  Returns the process exit code. */
int cli_record(int argc, char **argv);
/* The recorder library `record` preloads (record.c): libcudainspect-rec.so next to this
 * executable (the build tree), or in ../lib, ../lib/cudainspect or ../lib/x86_64-linux-gnu
 * (an install, the wheel's lib/ beside bin/), resolved to an absolute path (free it); NULL when
 * none is readable. */
char *cli_find_recorder(void);
#define CLI_RECORDER_LIB "libcudainspect-rec.so"

/* pipe.c: standard input (`cudainspect -`) or coredumpctl's newest core matching MATCH
 * (--coredump; its crash on one line first, on stderr when JSON) copied into a temporary file
 * by ci_spool under SO's bounds; *PATH_RET (free it) opens the copy.  0, or an exit code after
 * saying why. */
int cli_spool_stdin(const struct ci_source_options *so, char **path_ret);
int cli_coredump(const char *match, const struct ci_source_options *so, bool json,
		 char **path_ret);

/* `record` after its child PID (COMM) died: the kernel log's NVIDIA lines of it since FROM_US
 * (CLOCK_MONOTONIC µs, cli_klog_now_us), read like the recorder does (CUDAINSPECT_KMSG), into
 * the file BESIDE + ".kernel-log" (record_klog.c).  Its path (free it), or NULL when there were
 * none, the log cannot be read (a note unless QUIET) or BESIDE is NULL. */
char *cli_record_kernel_log(pid_t pid, const char *comm, uint64_t from_us, const char *beside,
			    bool quiet);
uint64_t cli_klog_now_us(void);
/* INPUT + SUFFIX when that is a regular file of this user with one name (what `record` leaves
 * beside a core: ".kernel-log", ".gpucore"), malloc'd; else NULL. */
char *cli_beside_file(const char *input, const char *suffix);
#define CLI_KERNEL_LOG_SUFFIX ".kernel-log"
#define CLI_GPU_CORE_SUFFIX ".gpucore"

/* `--pid PID --gpu-core-trigger` (gpucore_trigger.c): write to the GPU core pipe PID's CUDA
 * driver watches, so that it dumps the GPU now.  Returns the exit code (0 written; 3 no pipe,
 * not enabled, unreadable process), after saying what happened. */
int cli_gpucore_trigger(pid_t pid, bool quiet);

/* messages.c: "cudainspect: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same plus a pointer to --help; returns CI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Decimal or 0x-hex unsigned number, the whole string. */
bool cli_parse_u64(const char *s, uint64_t *ret);
/* --registers FILE ("-": standard input, as GDB's `info registers` per thread, see
 * registers.c) into *RET (free it).  Returns 0, or an exit code after saying why. */
int cli_read_registers(const char *path, struct ci_thread_registers **ret, size_t *count);

#endif /* CUDAINSPECT_CLI_H */
