/* SPDX-License-Identifier: MIT */
/*
 * The parser of what the `cuda` GDB commands pipe into cudainspect-gdb-run (gdb-input.h).
 * Bounded and linear in the input; every field is checked; nothing is trusted beyond "this is
 * a candidate".  Fuzzed by tests/plugin/fuzz_gdb_input.c.
 */
#include "gdb-input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line at *P (up to END), without its newline; *P moves past it.  False at the end. */
static bool next_line(const char **p, const char *end, const char **line, size_t *len)
{
	if (*p >= end)
		return false;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

static bool line_is(const char *line, size_t len, const char *s)
{
	return len == strlen(s) && memcmp(line, s, len) == 0;
}

/* Where the last line equal to MARK starts and ends in BUF[0, LEN), or NULL. */
static const char *last_mark(const char *buf, size_t len, const char *mark, const char **after)
{
	const char *found = NULL, *p = buf, *end = buf + len, *line;
	size_t n;
	while (next_line(&p, end, &line, &n))
		if (line_is(line, n, mark)) {
			found = line;
			*after = p;
		}
	return found;
}

static const char *find_in(const char *s, size_t len, const char *what)
{
	size_t w = strlen(what);
	for (size_t i = 0; w <= len && i <= len - w; i++)
		if (memcmp(s + i, what, w) == 0)
			return s + i;
	return NULL;
}

/* Digits at S (up to END) as a nonzero 32-bit number; false if none or too large. */
static bool parse_u32(const char *s, const char *end, uint32_t *v, const char **stop)
{
	uint64_t x = 0;
	const char *p = s;
	while (p < end && *p >= '0' && *p <= '9' && x <= UINT32_MAX)
		x = x * 10 + (uint64_t)(*p++ - '0');
	if (p == s || x == 0 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	if (stop)
		*stop = p;
	return true;
}

/* The LWP of a thread header "Thread 2 (Thread 0x7f.. (LWP 4242) "name"):", or of
 * "Thread 1 (process 4242):" without libthread_db: the first such group, before the name. */
static uint32_t header_lwp(const char *line, size_t len)
{
	static const char *const keys[] = { "(LWP ", "(process " };
	if (len < 7 || memcmp(line, "Thread ", 7) != 0)
		return 0;
	const char *best = NULL;
	size_t key = 0;
	for (size_t k = 0; k < 2; k++) {
		const char *at = find_in(line, len, keys[k]);
		if (at && (!best || at < best)) {
			best = at;
			key = k;
		}
	}
	uint32_t v;
	const char *stop;
	if (!best || !parse_u32(best + strlen(keys[key]), line + len, &v, &stop) ||
	    stop >= line + len || *stop != ')')
		return 0;
	return v;
}

/* "signal SIGNO CODE ADDR 0xHEX" (cudainspect.gdb's printf of $_siginfo). */
static bool parse_signal(const char *line, size_t len, struct cigdb_signal *s)
{
	char buf[128];
	if (len >= sizeof buf || len < 7 || memcmp(line, "signal ", 7) != 0)
		return false;
	memcpy(buf, line, len);
	buf[len] = 0;
	int signo, code, used = 0;
	unsigned long long addr, hex;
	if (sscanf(buf, "signal %d %d %llu 0x%llx%n", &signo, &code, &addr, &hex, &used) != 4 ||
	    (size_t)used != len || addr != hex || signo < 0 || signo > 64)
		return false;
	s->signo = signo;
	s->code = code;
	s->addr = addr;
	return true;
}

/* `info target`: "Local core dump file:" and the path in the next line's "`PATH', file type
 * ..."; "Using the running image of ... process N." or "... (LWP N)." */
static int parse_target(const char *buf, size_t len, struct cigdb_input *in)
{
	const char *p = buf, *end = buf + len, *line;
	size_t n;
	bool core_next = false;
	while (next_line(&p, end, &line, &n)) {
		if (core_next) {
			core_next = false;
			size_t i = 0;
			while (i < n && (line[i] == ' ' || line[i] == '\t'))
				i++;
			const char *tail = NULL;
			for (const char *t = line + i; (t = find_in(t, (size_t)(line + n - t), "', file type "));
			     t++)
				tail = t;
			if (i < n && line[i] == '`' && tail && tail > line + i + 1 &&
			    in->core_count < CIGDB_MAX_CANDIDATES) {
				size_t plen = (size_t)(tail - (line + i + 1));
				char *path = malloc(plen + 1);
				if (!path)
					return -1;
				memcpy(path, line + i + 1, plen);
				path[plen] = 0;
				in->cores[in->core_count++] = path;
			}
			continue;
		}
		if (line_is(line, n, "Local core dump file:")) {
			core_next = true;
			continue;
		}
		const char *using = find_in(line, n, "Using the running image of ");
		if (!using || in->lwp_count >= CIGDB_MAX_CANDIDATES)
			continue;
		const char *rest = using + strlen("Using the running image of ");
		const char *lwp = find_in(rest, (size_t)(line + n - rest), "(LWP ");
		const char *proc = find_in(rest, (size_t)(line + n - rest), "process ");
		uint32_t v;
		if ((lwp && parse_u32(lwp + 5, line + n, &v, NULL)) ||
		    (!lwp && proc && parse_u32(proc + 8, line + n, &v, NULL)))
			in->lwps[in->lwp_count++] = v;
	}
	return 0;
}

static int parse_signals(const char *p, const char *end, struct cigdb_input *in)
{
	const char *line;
	size_t n, cap = 0;
	uint32_t tid = 0;
	while (next_line(&p, end, &line, &n)) {
		uint32_t h = header_lwp(line, n);
		struct cigdb_signal s;
		if (h) {
			tid = h;
		} else if (tid && parse_signal(line, n, &s) && in->signal_count < CIGDB_MAX_THREADS) {
			s.tid = tid;
			tid = 0; /* one signal line per thread header */
			if (in->signal_count == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct cigdb_signal *v = realloc(in->signals, ncap * sizeof *v);
				if (!v)
					return -1;
				in->signals = v;
				cap = ncap;
			}
			in->signals[in->signal_count++] = s;
		}
	}
	return 0;
}

int cigdb_input_parse(const char *buf, size_t len, struct cigdb_input *in)
{
	memset(in, 0, sizeof *in);
	const char *end = buf + len, *sig_after = NULL, *reg_after = NULL, *args_after = NULL;
	const char *sig = last_mark(buf, len, CIGDB_SIGNALS_MARK, &sig_after);
	const char *args = last_mark(buf, len, CIGDB_ARGS_MARK, &args_after);
	/* Everything before our first section is GDB's `info target`. */
	const char *target_end = sig ? sig : args ? args : end;
	if (parse_target(buf, (size_t)(target_end - buf), in))
		goto nomem;
	const char *sections_end = args ? args : end;
	if (sig && sig < sections_end) {
		in->have_state = true;
		const char *reg = last_mark(sig_after, (size_t)(sections_end - sig_after),
					    CIGDB_REGISTERS_MARK, &reg_after);
		if (parse_signals(sig_after, reg ? reg : sections_end, in))
			goto nomem;
		if (reg) {
			in->registers = reg_after;
			in->registers_len = (size_t)(sections_end - reg_after);
		}
	}
	if (args) {
		const char *line;
		size_t n;
		const char *p = args_after;
		in->args = args_after;
		in->args_len = next_line(&p, end, &line, &n) ? n : 0;
	}
	return 0;
nomem:
	cigdb_input_deinit(in);
	return -1;
}

void cigdb_input_deinit(struct cigdb_input *in)
{
	for (size_t i = 0; i < in->core_count; i++)
		free(in->cores[i]);
	free(in->signals);
	memset(in, 0, sizeof *in);
}

/* A signal the program received, not the SIGSTOP of attaching and all-stop nor the SIGTRAP of
 * breakpoints and steps. */
static bool fatal(const struct cigdb_signal *s)
{
	return s->signo != 0 && s->signo != 5 && s->signo != 19;
}

const struct cigdb_signal *cigdb_stop_signal(const struct cigdb_input *in, uint32_t selected)
{
	for (size_t i = 0; selected && i < in->signal_count; i++)
		if (in->signals[i].tid == selected && fatal(&in->signals[i]))
			return &in->signals[i];
	for (size_t i = 0; i < in->signal_count; i++)
		if (fatal(&in->signals[i]))
			return &in->signals[i];
	return NULL;
}

void cigdb_words_free(char **words)
{
	for (size_t i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

int cigdb_split_words(const char *text, size_t len, char ***ret)
{
	char **words = calloc(CIGDB_MAX_WORDS + 1, sizeof *words);
	char *word = malloc(len + 1);
	int n = 0;
	if (!words || !word)
		goto fail;
	size_t i = 0;
	while (i < len) {
		while (i < len && (text[i] == ' ' || text[i] == '\t'))
			i++;
		if (i == len)
			break;
		size_t w = 0;
		char quote = 0;
		for (; i < len; i++) {
			char c = text[i];
			if (quote == '\'') {
				if (c == '\'')
					quote = 0;
				else
					word[w++] = c;
			} else if (quote == '"') {
				if (c == '"')
					quote = 0;
				else if (c == '\\' && i + 1 < len && (text[i + 1] == '"' || text[i + 1] == '\\'))
					word[w++] = text[++i];
				else
					word[w++] = c;
			} else if (c == ' ' || c == '\t') {
				break;
			} else if (c == '\'' || c == '"') {
				quote = c;
			} else if (c == '\\' && i + 1 < len) {
				word[w++] = text[++i];
			} else {
				word[w++] = c;
			}
		}
		if (n == CIGDB_MAX_WORDS)
			goto fail;
		if (!(words[n] = malloc(w + 1)))
			goto fail;
		memcpy(words[n], word, w);
		words[n++][w] = 0;
	}
	free(word);
	*ret = words;
	return n;
fail:
	free(word);
	cigdb_words_free(words);
	return -1;
}
