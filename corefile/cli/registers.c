/* SPDX-License-Identifier: MIT */
/*
 * `--registers FILE`: the registers of each thread of a live process that GDB holds, as GDB
 * prints them with plain commands (docs/GDB.md):
 *
 *   thread apply all -s frame apply level 0 -q info registers rip rsp rbp rbx ... r11
 *
 * that is, per thread a header "Thread 2 (Thread 0x7f... (LWP 1234) "name"):" (or
 * "Thread 1 (process 1234):" without libthread_db) followed by lines "rip  0x401136  ...".
 * The text is untrusted: lines are bounded (a longer one is skipped whole), anything that is
 * neither a thread header nor a register line of a known x86-64 register is ignored, and the
 * file and the thread count are capped.  Threads lacking rip or rsp are kept; the symbolizer
 * warns about them and lists them without frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define REG_LINE_MAX 512                /* longer lines are not GDB's: skipped */
#define REG_FILE_MAX (64u << 20)        /* bytes read at most */
#define REG_THREADS_MAX 8192          /* threads kept (a duplicate check is linear per header) */

/* x86-64 DWARF register numbers (include/cudainspect/cudainspect.h). */
static const char *const reg_names[CI_REGS_X86_64] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
	"r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

/* Reads one line of at most REG_LINE_MAX - 1 characters into BUF (without the newline).
 * Returns 1 for a line, 0 for a line that was too long (consumed and dropped), -1 at the end.
 * *TOTAL counts the bytes read. */
static int read_line(FILE *f, char *buf, size_t *total)
{
	size_t n = 0;
	bool long_line = false;
	int c;
	while ((c = getc(f)) != EOF) {
		(*total)++;
		if (c == '\n')
			break;
		if (n + 1 < REG_LINE_MAX)
			buf[n++] = (char)c;
		else
			long_line = true;
		if (*total >= REG_FILE_MAX)
			break;
	}
	buf[n] = '\0';
	if (c == EOF && n == 0 && !long_line)
		return -1;
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	return long_line ? 0 : 1;
}

/* A decimal thread id of 1 to INT32_MAX at S, followed by ')'. */
static uint32_t parse_tid(const char *s)
{
	uint64_t v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9' && p - s < 10)
		v = v * 10 + (uint64_t)(*p++ - '0');
	return p > s && *p == ')' && v > 0 && v <= INT32_MAX ? (uint32_t)v : 0;
}

/* The LWP of a `thread apply` header, or 0 if LINE is not one.  The first "(LWP " counts:
 * the thread's name, which the program chooses, comes after it. */
static uint32_t header_tid(const char *line)
{
	if (strncmp(line, "Thread ", 7) != 0 || line[7] < '1' || line[7] > '9')
		return 0;
	size_t len = strlen(line);
	if (len < 2 || strcmp(line + len - 2, "):") != 0)
		return 0;
	const char *lwp = strstr(line, "(LWP ");
	if (lwp)
		return parse_tid(lwp + 5);
	const char *proc = strstr(line, "(process ");
	return proc ? parse_tid(proc + 9) : 0;
}

/* "NAME 0xHEX ..." with NAME a known register: its number and value. */
static bool register_line(const char *line, int *reg, uint64_t *value)
{
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t nl = strcspn(p, " \t");
	int r = -1;
	for (int i = 0; i < CI_REGS_X86_64; i++)
		if (strlen(reg_names[i]) == nl && strncmp(p, reg_names[i], nl) == 0)
			r = i;
	if (r < 0)
		return false;
	p += nl;
	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] != '0' || p[1] != 'x')
		return false;
	p += 2;
	uint64_t v = 0;
	int digits = 0;
	for (;; p++, digits++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (digits >= 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || (*p && *p != ' ' && *p != '\t'))
		return false;
	*reg = r;
	*value = v;
	return true;
}

int cli_read_registers(const char *path, struct ci_thread_registers **ret, size_t *count)
{
	*ret = NULL;
	*count = 0;
#ifndef __x86_64__
	cli_error("--registers: unwinding from given registers is supported on x86-64 only");
	return CI_EXIT_USAGE;
#endif
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "re");
	if (!f) {
		cli_error("--registers %s: %s", path, strerror(errno));
		return CI_EXIT_BAD_INPUT;
	}
	char line[REG_LINE_MAX];
	struct ci_thread_registers *v = NULL, *cur = NULL;
	size_t n = 0, cap = 0, total = 0;
	int r, rc = CI_EXIT_OK;
	while ((r = read_line(f, line, &total)) >= 0) {
		if (total >= REG_FILE_MAX) {
			cli_error("--registers %s: larger than %u MiB, not GDB's register listing", path,
				  REG_FILE_MAX >> 20);
			rc = CI_EXIT_BAD_INPUT;
			break;
		}
		if (r == 0)
			continue;
		uint32_t tid = header_tid(line);
		if (tid) {
			cur = NULL;
			if (n >= REG_THREADS_MAX)
				continue; /* past the cap: ignored, at no cost per line */
			for (size_t i = 0; i < n && !cur; i++)
				if (v[i].tid == tid)
					cur = &v[i];
			if (cur)
				continue;
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct ci_thread_registers *nv = realloc(v, ncap * sizeof(*nv));
				if (!nv) {
					cli_error("out of memory reading --registers %s", path);
					rc = CI_EXIT_INTERNAL;
					break;
				}
				v = nv;
				cap = ncap;
			}
			cur = &v[n++];
			memset(cur, 0, sizeof(*cur));
			cur->tid = tid;
			continue;
		}
		int reg;
		uint64_t value;
		if (cur && register_line(line, &reg, &value)) {
			cur->regs[reg] = value;
			cur->valid |= 1u << reg;
		}
	}
	if (!rc && ferror(f)) {
		cli_error("--registers %s: %s", path, strerror(errno ? errno : EIO));
		rc = CI_EXIT_BAD_INPUT;
	}
	if (!is_stdin)
		fclose(f);
	if (!rc && n == 0) {
		cli_error("--registers %s: no thread registers in it (expected GDB's `thread apply all "
			  "info registers` output, a \"Thread N (... (LWP TID) ...):\" line before each "
			  "thread's registers)", path);
		rc = CI_EXIT_BAD_INPUT;
	}
	if (rc) {
		free(v);
		return rc;
	}
	*ret = v;
	*count = n;
	return CI_EXIT_OK;
}
