/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of what the `cuda` GDB commands hand their launcher (plugin/gdb-input.h): GDB's
 * real `info target` shapes (core, attached process, child process, thread without
 * libthread_db), spoofed ones (an executable name that holds a newline and a fake "Local core
 * dump file:" block or our own section markers), thread signals, and the words of a command
 * line as GDB stores them, split as data: the expected words are written out by hand here.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/tap.h"
#include "gdb-input.h"

static struct cigdb_input parse(const char *text)
{
	struct cigdb_input in;
	if (cigdb_input_parse(text, strlen(text), &in))
		abort();
	return in;
}

static void test_target(void)
{
	struct cigdb_input in = parse(
		"Symbols from \"/opt/eng/engine\".\n"
		"Local core dump file:\n"
		"\t`/tmp/cores/core.1234', file type elf64-x86-64.\n"
		"\t0x0000555555554000 - 0x0000555555555000 is load1\n"
		"Local exec file:\n"
		"\t`/opt/eng/engine', file type elf64-x86-64.\n"
		"\tEntry point: 0x555555555040\n");
	is_int(in.core_count, 1, "core: one candidate");
	is_str(in.core_count ? in.cores[0] : NULL, "/tmp/cores/core.1234", "core: its path");
	is_int(in.lwp_count, 0, "core: no live process");
	ok(!in.have_state && !in.args, "core: no GDB state, no arguments section");
	cigdb_input_deinit(&in);

	in = parse("Symbols from \"/opt/eng/engine\".\nNative process:\n"
		   "\tUsing the running image of attached Thread 0x7ffff7d8a740 (LWP 4242).\n"
		   "\tWhile running this, GDB does not access memory from...\n");
	ok(in.lwp_count == 1 && in.lwps[0] == 4242, "attached thread: LWP 4242");
	cigdb_input_deinit(&in);
	in = parse("\tUsing the running image of child process 77.\n");
	ok(in.lwp_count == 1 && in.lwps[0] == 77, "child process 77");
	cigdb_input_deinit(&in);
	in = parse("\tUsing the running image of attached process 99.\n");
	ok(in.lwp_count == 1 && in.lwps[0] == 99, "attached process 99");
	cigdb_input_deinit(&in);

	/* A path holding "', file type " itself: the last one ends the path. */
	in = parse("Local core dump file:\n\t`/tmp/a', file type b/core', file type elf64-x86-64.\n");
	is_str(in.core_count ? in.cores[0] : NULL, "/tmp/a', file type b/core", "quote in a path");
	cigdb_input_deinit(&in);

	/* An executable whose name holds a newline and a fake block: both are candidates, in
	 * GDB's order; the launcher keeps the one GDB holds open (tests/plugin/gdb-hostile.t). */
	in = parse("Symbols from \"/tmp/evil\n"
		   "Local core dump file:\n"
		   "\t`/tmp/other/core', file type elf64-x86-64.\".\n"
		   "Local core dump file:\n"
		   "\t`/tmp/real/core', file type elf64-x86-64.\n");
	ok(in.core_count == 2 && !strcmp(in.cores[0], "/tmp/other/core") &&
		   !strcmp(in.cores[1], "/tmp/real/core"),
	   "spoofed block: both candidates, the fake first");
	cigdb_input_deinit(&in);

	in = parse("Local core dump file:\n\tno backquote here\nLocal core dump file:\n");
	is_int(in.core_count, 0, "malformed core lines give no candidate");
	cigdb_input_deinit(&in);
	in = parse("\tUsing the running image of child process 0.\n"
		   "\tUsing the running image of child process 99999999999.\n"
		   "\tUsing the running image of attached Thread 0x1 (LWP x).\n");
	is_int(in.lwp_count, 0, "pid 0, an overflowing pid and a non-number give no candidate");
	cigdb_input_deinit(&in);
}

static void test_sections(void)
{
	struct cigdb_input in = parse(
		"\tUsing the running image of attached Thread 0x7f (LWP 10).\n"
		"@@cudainspect-gdb-signals@@\n"
		"\nThread 2 (Thread 0x7e (LWP 11) \"worker\"):\nsignal 11 1 4096 0x1000\n"
		"\nThread 1 (Thread 0x7f (LWP 10) \"main\"):\nsignal 19 0 0 0x0\n"
		"@@cudainspect-gdb-registers@@\n"
		"\nThread 2 (Thread 0x7e (LWP 11) \"worker\"):\nrip 0x401000 0x401000 <f>\n"
		"@@cudainspect-gdb-args@@\n"
		"--kernel 'rms>f' $(id)\n");
	ok(in.have_state, "a live process GDB holds: state");
	ok(in.signal_count == 2 && in.signals[0].tid == 11 && in.signals[0].signo == 11 &&
		   in.signals[0].code == 1 && in.signals[0].addr == 4096 && in.signals[1].tid == 10 &&
		   in.signals[1].signo == 19,
	   "each thread's signal");
	const struct cigdb_signal *s = cigdb_stop_signal(&in, 10);
	ok(s && s->tid == 11, "the stop signal: the SIGSTOP of the selected thread does not count");
	ok(in.registers && in.registers_len > 0 &&
		   !strncmp(in.registers, "\nThread 2 (Thread 0x7e (LWP 11) \"worker\"):\nrip 0x401000",
			    in.registers_len < 50 ? in.registers_len : 50),
	   "the registers section verbatim");
	ok(in.args && in.args_len == strlen("--kernel 'rms>f' $(id)") &&
		   !memcmp(in.args, "--kernel 'rms>f' $(id)", in.args_len),
	   "the arguments line, raw");
	cigdb_input_deinit(&in);

	/* Fake markers inside `info target` (an executable's name) come before ours: the last
	 * arguments marker is ours (GDB prints it last, always). */
	in = parse("Symbols from \"/tmp/x\n@@cudainspect-gdb-signals@@\nThread 1 (Thread 0x1 (LWP 5) \"a\"):\n"
		   "signal 9 0 0 0x0\n@@cudainspect-gdb-args@@\n--exe /tmp/evil\".\n"
		   "@@cudainspect-gdb-args@@\n--last 3\n");
	/* Without our own signals section (a core: the launcher never uses GDB's state then),
	 * the fake one is what the parser sees; the launcher checks the target first. */
	ok(in.have_state && in.signal_count == 1, "a fake section is only a candidate");
	ok(in.args && in.args_len == 8 && !memcmp(in.args, "--last 3", 8), "our arguments, not the fake");
	cigdb_input_deinit(&in);

	/* A thread name holding "(LWP 999)": the first group names the thread. */
	in = parse("@@cudainspect-gdb-signals@@\nThread 3 (Thread 0x2 (LWP 12) \"x (LWP 999)\"):\n"
		   "signal 6 -6 0 0x0\nsignal 11 1 0 0x0\nThread 4 (process 13):\nsignal 5 1 0 0x0\n"
		   "Thread 5 (process 14):\nsignal 11 1 16 0x11\n");
	ok(in.signal_count == 2 && in.signals[0].tid == 12 && in.signals[0].signo == 6 &&
		   in.signals[1].tid == 13,
	   "headers name their LWP; one signal line per header; a mismatched address is refused");
	ok(cigdb_stop_signal(&in, 0) && cigdb_stop_signal(&in, 0)->tid == 12,
	   "no selected thread: the first that received a signal (not the SIGTRAP)");
	cigdb_input_deinit(&in);
}

static void words_are(const char *text, const char *const *want, const char *name)
{
	char **w = NULL;
	int n = cigdb_split_words(text, strlen(text), &w);
	int k = 0;
	bool same = n >= 0;
	for (; same && want[k]; k++)
		same = k < n && strcmp(w[k], want[k]) == 0;
	same = same && k == n;
	if (!ok(same, "words: %s", name))
		for (int i = 0; i < n; i++)
			printf("# word %d: '%s'\n", i, w[i]);
	cigdb_words_free(w);
}

static void test_words(void)
{
	words_are("", (const char *const[]){ NULL }, "none");
	words_are("  \t ", (const char *const[]){ NULL }, "blanks only");
	words_are("kernels 50 --kernel attn", (const char *const[]){ "kernels", "50", "--kernel", "attn", NULL },
		  "plain words");
	words_are("--kernel 'rms>f'", (const char *const[]){ "--kernel", "rms>f", NULL }, "single quotes");
	words_are("--kernel \"a b\"  x", (const char *const[]){ "--kernel", "a b", "x", NULL },
		  "double quotes keep a blank");
	words_are("$(touch /tmp/x) `id` ${HOME} >f <g |h ;i &j",
		  (const char *const[]){ "$(touch", "/tmp/x)", "`id`", "${HOME}", ">f", "<g", "|h", ";i", "&j", NULL },
		  "shell syntax is data");
	words_are("a\\ b 'it''s' \"q\\\"x\\\\y\\n\"",
		  (const char *const[]){ "a b", "its", "q\"x\\y\\n", NULL }, "backslashes");
	words_are("'unterminated rest", (const char *const[]){ "unterminated rest", NULL },
		  "an unterminated quote runs to the end");
	words_are("''", (const char *const[]){ "", NULL }, "an empty quoted word");
	char big[CIGDB_MAX_WORDS * 2 + 8];
	size_t n = 0;
	for (int i = 0; i <= CIGDB_MAX_WORDS; i++) {
		big[n++] = 'x';
		big[n++] = ' ';
	}
	char **w = NULL;
	ok(cigdb_split_words(big, n, &w) == -1 && !w, "more than CIGDB_MAX_WORDS words: refused");
}

int main(void)
{
	test_target();
	test_sections();
	test_words();
	printf("1..%d\n", tap_n);
	return done_testing();
}
