/* SPDX-License-Identifier: MIT */
/*
 * What the `cuda` GDB commands (cudainspect.gdb) hand their launcher, cudainspect-gdb-run, on
 * its standard input, parsed: GDB's `info target` (which names the core file or the live
 * process), for a live process GDB holds each thread's stop signal and registers, and last the
 * command's own arguments as GDB stored them (one line, raw).  All of it is untrusted text: an
 * executable or thread name can hold newlines and look like anything, so the parser only
 * proposes candidates (the launcher checks them against the descriptors and tracees GDB really
 * has), takes the last of each section marker (GDB prints ours after the target's text, and no
 * thread name is long enough to hold one; the arguments always come last, and GDB's state is
 * used only for a live process the launcher has checked GDB holds), and never lets a byte of it
 * reach a shell.
 */
#ifndef CUDAINSPECT_PLUGIN_GDB_INPUT_H
#define CUDAINSPECT_PLUGIN_GDB_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The section markers cudainspect.gdb prints (longer than a thread name can be). */
#define CIGDB_SIGNALS_MARK "@@cudainspect-gdb-signals@@"
#define CIGDB_REGISTERS_MARK "@@cudainspect-gdb-registers@@"
#define CIGDB_ARGS_MARK "@@cudainspect-gdb-args@@"

/* Most candidates, threads and words kept (the rest are counted and ignored). */
#define CIGDB_MAX_CANDIDATES 16
#define CIGDB_MAX_THREADS 65536
#define CIGDB_MAX_WORDS 256

/* A thread's stop signal as GDB's $_siginfo shows it. */
struct cigdb_signal {
	uint32_t tid;             /* the LWP */
	int signo, code;
	uint64_t addr;
};

struct cigdb_input {
	/* `info target`: paths after "Local core dump file:" and pids of "Using the running image
	 * of ... process N" / "(LWP N)", in the order GDB printed them. */
	char *cores[CIGDB_MAX_CANDIDATES];
	size_t core_count;
	uint32_t lwps[CIGDB_MAX_CANDIDATES];
	size_t lwp_count;
	/* GDB's state of a live process it holds (the signals section was there). */
	bool have_state;
	struct cigdb_signal *signals;
	size_t signal_count;
	const char *registers;    /* the registers section, verbatim (points into the input) */
	size_t registers_len;
	/* The command's arguments, raw (points into the input); NULL without the section. */
	const char *args;
	size_t args_len;
};

/* Parse LEN bytes of BUF (kept alive by the caller while IN is used).  Returns 0, or -1 when out
 * of memory. */
int cigdb_input_parse(const char *buf, size_t len, struct cigdb_input *in);
void cigdb_input_deinit(struct cigdb_input *in);

/* The thread whose signal GDB stopped the process for: SELECTED (the LWP `info target` names, the
 * current thread) if it received a signal a program receives, else the first such thread; 0 when
 * none did (the SIGSTOP of attaching and GDB's own SIGTRAPs do not count). */
const struct cigdb_signal *cigdb_stop_signal(const struct cigdb_input *in, uint32_t selected);

/* Split LEN bytes of TEXT (a command's arguments as GDB stored them) into words as GDB groups
 * them and a shell would unquote them, with nothing expanded: unquoted blanks separate words;
 * '...' is literal; "..." is literal but for \" and \\; a backslash elsewhere takes the next
 * byte literally; an unterminated quote runs to the end.  *WORDS (malloc'd, NULL-terminated,
 * each malloc'd; free with cigdb_words_free) gets at most CIGDB_MAX_WORDS words.  Returns the
 * number of words, or -1 when out of memory or there are too many. */
int cigdb_split_words(const char *text, size_t len, char ***words);
void cigdb_words_free(char **words);

#endif
