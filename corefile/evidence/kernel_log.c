/* SPDX-License-Identifier: MIT */
/*
 * Kernel-log parser: finds the NVIDIA driver's "NVRM: Xid" lines in dmesg, /dev/kmsg, journal,
 * syslog and bug-report text, parses each driver era's prefix and the bodies of the Xids a crash
 * reader meets (31 MMU fault, 13 SM exceptions, 43, 45, 154...), and decides which lines belong
 * to a process (ci_klog_select).  The grammar and its sources are in docs/KERNEL-LOG.md.
 *
 * The input is hostile.  It is read line by line through one bounded cursor type (struct cur);
 * every line is looked at once, in linear time, with no recursion; lines, items and kept text are
 * capped, and what is skipped is counted.  Lines without "NVRM: " cost one substring search.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cudainspect/cudainspect.h"
#include "evidence.h"
#include "utf8.h"

#define KLOG_DEFAULT_MAX_LINE  (16u << 10)
#define KLOG_DEFAULT_MAX_ITEMS 100000u
#define KLOG_DEFAULT_MAX_TEXT  (64u << 20)
#define KLOG_DEFAULT_MAX_GUNZIP (4ull << 30)
#define KLOG_GPU_MAX 256
#define KLOG_PART_MAX 64           /* part names are cut to this many bytes */
#define US_PER_S 1000000ll
#define COMPANION_US US_PER_S      /* Xid 13 and the Xid 43 naming its pid: "within the same second" */
#define ANY_ZONE_US (14 * 3600 * US_PER_S)

/* Internal failure states (0 = none), turned into a struct ci_error at the end of a parse. */
enum { KERR_NONE, KERR_NOMEM, KERR_CORRUPT };

/* ---------------------------------------------------------------------------------------- */
/* Kept text: append-only blocks that never move, so items can point into them.             */

struct text_block {
	struct text_block *next;
	size_t used, size;
	char data[];
};

struct ci_klog_text {
	struct text_block *head;
	size_t total;              /* bytes handed out */
	size_t limit;
};

enum { TEXT_OK, TEXT_FULL, TEXT_NOMEM };

/* A NUL-terminated copy of s[0..n) in the log's text, or NULL with *why set. */
static char *text_dup(struct ci_klog_text *t, const char *s, size_t n, int *why)
{
	if (n >= t->limit || t->total > t->limit - n - 1) {
		*why = TEXT_FULL;
		return NULL;
	}
	struct text_block *b = t->head;
	if (!b || b->size - b->used < n + 1) {
		/* Blocks grow from 4 KiB to 64 KiB: small logs stay small. */
		size_t size = b ? (b->size < (32u << 10) ? b->size * 2 : (64u << 10)) : (4u << 10);
		if (size < n + 1)
			size = n + 1;
		b = malloc(sizeof(*b) + size);
		if (!b) {
			*why = TEXT_NOMEM;
			return NULL;
		}
		b->used = 0;
		b->size = size;
		b->next = t->head;
		t->head = b;
	}
	char *r = b->data + b->used;
	memcpy(r, s, n);
	r[n] = 0;
	b->used += n + 1;
	t->total += n + 1;
	return r;
}

static void text_free(struct ci_klog_text *t)
{
	if (!t)
		return;
	for (struct text_block *b = t->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t);
}

/* ---------------------------------------------------------------------------------------- */
/* A bounded cursor over untrusted text.                                                      */

struct cur {
	const char *p, *e;
};

static inline struct cur cur_make(const char *p, size_t n) { return (struct cur){ p, p + n }; }
static inline size_t cur_left(const struct cur *c) { return (size_t)(c->e - c->p); }
static inline int cur_peek(const struct cur *c) { return c->p < c->e ? (unsigned char)*c->p : -1; }
static inline bool is_digit(int ch) { return ch >= '0' && ch <= '9'; }
static inline bool is_space(int ch) { return ch == ' ' || ch == '\t'; }
static inline int hex_val(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}
static inline bool is_word(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '_';
}

static bool cur_eat_n(struct cur *c, const char *lit, size_t n)
{
	if (cur_left(c) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}
/* Literals only: their length is known at compile time. */
#define cur_eat(c, lit) cur_eat_n((c), "" lit, sizeof(lit) - 1)

static void cur_spaces(struct cur *c)
{
	while (c->p < c->e && is_space(*c->p))
		c->p++;
}

/* 1 to maxdig decimal digits; false (cursor unmoved) if none or too many. */
static bool cur_dec(struct cur *c, unsigned maxdig, uint64_t *v)
{
	const char *p = c->p;
	uint64_t x = 0;
	unsigned n = 0;
	while (p < c->e && is_digit(*p)) {
		if (++n > maxdig)
			return false;
		x = x * 10 + (uint64_t)(*p++ - '0');
	}
	if (!n)
		return false;
	c->p = p;
	*v = x;
	return true;
}

/* 1 to maxdig hex digits (maxdig <= 16). */
static bool cur_hex(struct cur *c, unsigned maxdig, uint64_t *v, unsigned *ndig)
{
	const char *p = c->p;
	uint64_t x = 0;
	unsigned n = 0;
	int h;
	while (p < c->e && (h = hex_val((unsigned char)*p)) >= 0) {
		if (++n > maxdig)
			return false;
		x = x << 4 | (uint64_t)h;
		p++;
	}
	if (!n)
		return false;
	c->p = p;
	*v = x;
	if (ndig)
		*ndig = n;
	return true;
}

/* Fixed number of decimal digits. */
static bool cur_digits(struct cur *c, unsigned n, int *v)
{
	if (cur_left(c) < n)
		return false;
	int x = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!is_digit(c->p[i]))
			return false;
		x = x * 10 + (c->p[i] - '0');
	}
	c->p += n;
	*v = x;
	return true;
}

/* The word at the cursor ([A-Za-z0-9_]+), copied into buf (cut to fit); false if none. */
static bool cur_word(struct cur *c, char *buf, size_t size)
{
	const char *s = c->p;
	while (c->p < c->e && is_word((unsigned char)*c->p))
		c->p++;
	size_t n = (size_t)(c->p - s);
	if (!n)
		return false;
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return true;
}

static const char *find(const char *p, const char *e, const char *lit)
{
	return e > p ? memmem(p, (size_t)(e - p), lit, strlen(lit)) : NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Calendar arithmetic without the C library's time zone.                                     */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (era-based formula). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in_month(int64_t y, int m)
{
	static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

/* Inverse of days_from_civil, for the year-less times (year 2000 base). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

struct civil {
	int64_t year;
	int mon, day, hour, min, sec;
	uint32_t usec;
};

static bool civil_valid(const struct civil *t)
{
	return t->mon >= 1 && t->mon <= 12 && t->day >= 1 && t->day <= days_in_month(t->year, t->mon) &&
	       t->hour <= 23 && t->min <= 59 && t->sec <= 60;
}

static int64_t civil_us(const struct civil *t)
{
	int64_t s = days_from_civil(t->year, t->mon, t->day) * 86400 + t->hour * 3600 + t->min * 60 + t->sec;
	return s * US_PER_S + t->usec;
}

static int month_from_name(struct cur *c)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (cur_left(c) < 3)
		return 0;
	for (int i = 0; i < 12; i++)
		if (memcmp(c->p, names + 3 * i, 3) == 0) {
			c->p += 3;
			return i + 1;
		}
	return 0;
}

/* "hh:mm:ss" */
static bool cur_clock(struct cur *c, struct civil *t)
{
	return cur_digits(c, 2, &t->hour) && cur_eat(c, ":") && cur_digits(c, 2, &t->min) &&
	       cur_eat(c, ":") && cur_digits(c, 2, &t->sec);
}

/* Fraction digits after '.' or ',' as microseconds (nanoseconds are cut). */
static void cur_fraction(struct cur *c, uint32_t *usec)
{
	if (cur_left(c) < 2 || (*c->p != '.' && *c->p != ',') || !is_digit(c->p[1]))
		return;
	c->p++;
	uint32_t v = 0;
	unsigned n = 0;
	while (c->p < c->e && is_digit(*c->p)) {
		if (n < 6) {
			v = v * 10 + (uint32_t)(*c->p - '0');
			n++;
		}
		c->p++;
	}
	while (n++ < 6)
		v *= 10;
	*usec = v;
}

/* "Mmm dd" or "Mmm  d" (RFC 3164, journalctl short). */
static bool cur_month_day(struct cur *c, struct civil *t)
{
	struct cur s = *c;
	if (!(t->mon = month_from_name(&s)) || !cur_eat(&s, " "))
		return false;
	if (cur_peek(&s) == ' ')
		s.p++;
	uint64_t d;
	if (!cur_dec(&s, 2, &d) || !cur_eat(&s, " "))
		return false;
	t->day = (int)d;
	*c = s;
	return true;
}

/* ISO 8601 / RFC 3339: YYYY-MM-DD[T ]hh:mm:ss[.frac][Z|±hh[:]mm].  *zoned says whether a zone
 * was given; the result is UTC when it was, the local reading otherwise. */
static bool cur_iso(struct cur *c, int64_t *us, bool *zoned)
{
	struct cur s = *c;
	struct civil t = { 0 };
	int y;
	if (!cur_digits(&s, 4, &y) || !cur_eat(&s, "-") || !cur_digits(&s, 2, &t.mon) || !cur_eat(&s, "-") ||
	    !cur_digits(&s, 2, &t.day) || (cur_peek(&s) != 'T' && cur_peek(&s) != ' '))
		return false;
	s.p++;
	t.year = y;
	if (!cur_clock(&s, &t))
		return false;
	cur_fraction(&s, &t.usec);
	if (!civil_valid(&t))
		return false;
	int64_t off = 0;
	*zoned = false;
	if (cur_eat(&s, "Z")) {
		*zoned = true;
	} else if (cur_peek(&s) == '+' || cur_peek(&s) == '-') {
		int sign = *s.p == '-' ? -1 : 1, hh, mm;
		struct cur z = s;
		z.p++;
		if (cur_digits(&z, 2, &hh) && (cur_eat(&z, ":"), cur_digits(&z, 2, &mm)) && hh <= 23 && mm <= 59) {
			off = sign * (hh * 3600 + mm * 60);
			*zoned = true;
			s = z;
		}
	}
	*us = civil_us(&t) - off * US_PER_S;
	*c = s;
	return true;
}

/* "[ 1234.567890]" : seconds since boot, with optional leading spaces. */
static bool cur_bracket_mono(struct cur *c, uint64_t *us)
{
	struct cur s = *c;
	uint64_t sec;
	uint32_t frac = 0;
	if (!cur_eat(&s, "["))
		return false;
	cur_spaces(&s);
	if (!cur_dec(&s, 12, &sec) || cur_peek(&s) != '.')
		return false;
	cur_fraction(&s, &frac);
	if (!cur_eat(&s, "]"))
		return false;
	*us = sec * (uint64_t)US_PER_S + frac;
	*c = s;
	return true;
}

/* "[Tue Mar  2 10:11:12 2021]" (dmesg -T: ctime without the newline). */
static bool cur_bracket_ctime(struct cur *c, int64_t *us)
{
	struct cur s = *c;
	struct civil t = { 0 };
	int y;
	if (!cur_eat(&s, "[") || cur_left(&s) < 4)
		return false;
	s.p += 3; /* weekday */
	if (!cur_eat(&s, " ") || !cur_month_day(&s, &t) || !cur_clock(&s, &t) || !cur_eat(&s, " ") ||
	    !cur_digits(&s, 4, &y) || !cur_eat(&s, "]"))
		return false;
	t.year = y;
	if (!civil_valid(&t))
		return false;
	*us = civil_us(&t);
	*c = s;
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading lines: straight from the buffer, or through zlib with a bounded window.             */

struct lines {
	const unsigned char *in;
	size_t in_len, pos;
	size_t max_line;
	struct ci_klog_stats *st;
	/* gzip */
	bool gz, gz_done, gz_init, skipping, any_output;
	z_stream zs;
	unsigned char *win;
	size_t win_size, start, end;
	uint64_t max_out, out_total; /* across members: zlib's total_out restarts with each */
	/* The text a returned line lies in: it stays put until the next refill (gen changes). */
	const char *region_end;
	uint64_t gen;
	int err;                   /* KERR_* once the source failed */
};

/* Inflate more into the window after the kept bytes. */
static void lines_fill(struct lines *l)
{
	l->gen++;
	if (l->start) {
		memmove(l->win, l->win + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
	}
	size_t room = l->win_size - l->end;
	if (l->out_total >= l->max_out) {
		l->st->decompress_capped = true;
		l->gz_done = true;
		return;
	}
	if (room > l->max_out - l->out_total)
		room = (size_t)(l->max_out - l->out_total);
	while (room && !l->gz_done) {
		/* zlib counts input in uInt: feed at most 1 GiB at a time. */
		if (l->zs.avail_in == 0) {
			size_t left = l->in_len - (size_t)(l->zs.next_in - l->in);
			l->zs.avail_in = (uInt)(left > (1u << 30) ? (1u << 30) : left);
		}
		l->zs.next_out = l->win + l->end;
		l->zs.avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
		uInt before = l->zs.avail_out;
		int rc = inflate(&l->zs, Z_NO_FLUSH);
		size_t got = before - l->zs.avail_out;
		l->end += got;
		l->out_total += got;
		room -= got;
		if (got)
			l->any_output = true;
		if (rc == Z_STREAM_END) {
			/* nvidia-bug-report.sh gzips each section on its own: members follow members. */
			if (l->zs.avail_in >= 2 && l->zs.next_in[0] == 0x1f && l->zs.next_in[1] == 0x8b) {
				inflateReset(&l->zs);
				continue;
			}
			l->gz_done = true; /* trailing bytes that are not a member are ignored */
		} else if (rc == Z_MEM_ERROR) {
			l->err = KERR_NOMEM;
			l->gz_done = true;
		} else if (rc == Z_OK) {
			if (got)
				return;
		} else { /* data error, or the stream ends early (Z_BUF_ERROR with no input left) */
			if (!l->any_output)
				l->err = KERR_CORRUPT;
			l->st->gzip_damaged = true;
			l->gz_done = true;
		}
		if (got)
			return;
	}
	if (l->out_total >= l->max_out && !l->gz_done) {
		l->st->decompress_capped = true;
		l->gz_done = true;
	}
}

/* The next line without its newline (and without a trailing CR).  Returns false at the end.
 * Lines over max_line are counted and skipped. */
static bool lines_next(struct lines *l, const char **line, size_t *len)
{
	for (;;) {
		const char *s;
		size_t n;
		if (!l->gz) {
			if (l->pos >= l->in_len)
				return false;
			s = (const char *)l->in + l->pos;
			const char *nl = memchr(s, '\n', l->in_len - l->pos);
			n = nl ? (size_t)(nl - s) : l->in_len - l->pos;
			l->pos += n + (nl != NULL);
			l->st->bytes += n + (nl != NULL);
		} else {
			const char *w = (const char *)l->win;
			const char *nl = l->end > l->start ? memchr(w + l->start, '\n', l->end - l->start) : NULL;
			if (!nl) {
				if (l->skipping || l->end - l->start > l->max_line) {
					l->skipping = true; /* inside an over-long line: drop what we have */
					l->st->bytes += l->end - l->start;
					l->start = l->end = 0;
				}
				if (l->gz_done) {
					if (l->skipping) {
						l->skipping = false;
						l->st->lines++;
						l->st->lines_too_long++;
						return false;
					}
					if (l->end == l->start)
						return false;
					s = w + l->start;
					n = l->end - l->start;
					l->start = l->end;
					l->st->bytes += n;
				} else {
					lines_fill(l);
					continue;
				}
			} else {
				s = w + l->start;
				n = (size_t)(nl - s);
				l->start += n + 1;
				l->st->bytes += n + 1;
				if (l->skipping) {
					l->skipping = false;
					l->st->lines++;
					l->st->lines_too_long++;
					continue;
				}
			}
		}
		l->st->lines++;
		if (n > l->max_line) {
			l->st->lines_too_long++;
			continue;
		}
		if (n && s[n - 1] == '\r')
			n--;
		l->region_end = l->gz ? (const char *)l->win + l->end : (const char *)l->in + l->in_len;
		*line = s;
		*len = n;
		return true;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* What one line says around its message.                                                     */

struct line_info {
	enum ci_klog_format fmt;
	struct ci_klog_time t;
	const char *host;
	size_t host_len;
	char boot_id[33];
	const char *msg;          /* the kernel message (into the line or the scratch buffer) */
	size_t msg_len;
};

/* "HOST kernel: " or "kernel: ", then an optional "[ s.us] ".  Sets the host; false when the
 * tag is not the kernel's. */
static bool parse_host_tag(struct cur *c, struct line_info *li, bool printk_bracket)
{
	struct cur s = *c;
	const char *h = s.p;
	while (s.p < s.e && *s.p != ' ')
		s.p++;
	size_t hn = (size_t)(s.p - h);
	if (hn == 7 && memcmp(h, "kernel:", 7) == 0) {
		hn = 0;
	} else {
		if (!cur_eat(&s, " ") || !cur_eat(&s, "kernel:"))
			return false;
	}
	cur_spaces(&s);
	if (hn) {
		li->host = h;
		li->host_len = hn;
	}
	uint64_t mono;
	if (printk_bracket && cur_bracket_mono(&s, &mono)) {
		li->t.mono_source = CI_KLOG_MONO_PRINTK;
		li->t.mono_us = mono;
		cur_spaces(&s);
	}
	*c = s;
	return true;
}

/* dmesg -x "kern  :warn  : " and Talos' "kern: warning: " facility/level words. */
static void skip_facility_level(struct cur *c)
{
	static const char *const facilities[] = { "kern", "user", "daemon", "syslog" };
	struct cur s = *c;
	bool fac = false;
	for (size_t i = 0; i < sizeof facilities / sizeof *facilities; i++)
		if (cur_eat_n(&s, facilities[i], strlen(facilities[i]))) {
			fac = true;
			break;
		}
	if (!fac)
		return;
	cur_spaces(&s);
	if (!cur_eat(&s, ":"))
		return;
	cur_spaces(&s);
	char level[16];
	if (!cur_word(&s, level, sizeof level))
		return;
	cur_spaces(&s);
	if (!cur_eat(&s, ":"))
		return;
	cur_spaces(&s);
	*c = s;
}

/* Recognise the prefix [0, msg) of a text line. */
static void parse_prefix(const char *line, size_t n, struct line_info *li)
{
	struct cur c = cur_make(line, n);
	uint64_t v, mono;
	int64_t us;
	bool zoned;
	li->fmt = CI_KLOG_FMT_UNKNOWN;
	/* "<4>": dmesg -r, or a syslog priority; "<4>1 " starts RFC 5424. */
	if (cur_peek(&c) == '<') {
		struct cur s = c;
		s.p++;
		if (cur_dec(&s, 3, &v) && cur_eat(&s, ">")) {
			c = s;
			if (cur_eat(&s, "1 ") && cur_iso(&s, &us, &zoned)) {
				/* RFC 5424: TIME HOST APP PROCID MSGID SD MSG */
				li->fmt = CI_KLOG_FMT_RFC5424;
				li->t.wall = zoned ? CI_KLOG_WALL_UTC : CI_KLOG_WALL_LOCAL;
				li->t.wall_us = us;
				if (cur_eat(&s, " ")) {
					const char *h = s.p;
					while (s.p < s.e && *s.p != ' ')
						s.p++;
					if (s.p - h != 1 || *h != '-') {
						li->host = h;
						li->host_len = (size_t)(s.p - h);
					}
				}
				return;
			}
		}
	}
	/* Talos prefixes the node: "172.20.0.2: kern: warning: [2024-…Z]: ". */
	const char *colon = memchr(c.p, ':', cur_left(&c));
	if (colon && cur_left(&c) > (size_t)(colon - c.p) + 6 && memcmp(colon + 1, " kern", 5) == 0 &&
	    !memchr(c.p, ' ', (size_t)(colon - c.p))) {
		li->host = c.p;
		li->host_len = (size_t)(colon - c.p);
		c.p = colon + 2;
	}
	skip_facility_level(&c);
	if (cur_peek(&c) == '[') {
		if (cur_bracket_mono(&c, &mono)) {
			li->t.mono_source = CI_KLOG_MONO_PRINTK;
			li->t.mono_us = mono;
			li->fmt = CI_KLOG_FMT_DMESG;
			cur_spaces(&c);
			struct line_info tag = *li;
			/* journalctl -o short-monotonic puts the host and tag after the time, and the
			 * time is journald's reception time, not the kernel's stamp. */
			if (parse_host_tag(&c, &tag, false)) {
				*li = tag;
				li->fmt = CI_KLOG_FMT_JOURNAL_MONOTONIC;
				li->t.mono_source = CI_KLOG_MONO_JOURNAL;
			}
			return;
		}
		if (cur_bracket_ctime(&c, &us)) {
			li->fmt = CI_KLOG_FMT_DMESG_CTIME;
			li->t.wall = CI_KLOG_WALL_LOCAL;
			li->t.wall_us = us;
			return;
		}
		struct cur s = c;
		s.p++;
		if (cur_iso(&s, &us, &zoned) && cur_eat(&s, "]")) { /* Talos: "[2024-...Z]: " */
			li->fmt = CI_KLOG_FMT_ISO;
			li->t.wall = zoned ? CI_KLOG_WALL_UTC : CI_KLOG_WALL_LOCAL;
			li->t.wall_us = us;
		}
		return;
	}
	struct civil t = { .year = 2000 };
	struct cur s = c;
	if (cur_month_day(&s, &t) && cur_clock(&s, &t) && (cur_fraction(&s, &t.usec), cur_eat(&s, " ")) &&
	    civil_valid(&t)) {
		li->fmt = CI_KLOG_FMT_SYSLOG;
		li->t.wall = CI_KLOG_WALL_LOCAL_NO_YEAR;
		li->t.wall_us = civil_us(&t);
		parse_host_tag(&s, li, true);
		return;
	}
	if (cur_iso(&c, &us, &zoned)) {
		li->t.wall = zoned ? CI_KLOG_WALL_UTC : CI_KLOG_WALL_LOCAL;
		li->t.wall_us = us;
		li->fmt = CI_KLOG_FMT_DMESG_ISO;
		if (cur_eat(&c, " ") && parse_host_tag(&c, li, true))
			li->fmt = CI_KLOG_FMT_ISO;
	}
}

/* kmsg: "prio,seq,usec,flags[,more];text".  Returns the text's offset, or 0 if not kmsg. */
static size_t parse_kmsg_header(const char *line, size_t n, struct line_info *li)
{
	struct cur c = cur_make(line, n);
	uint64_t prio, seq, usec;
	if (!cur_dec(&c, 4, &prio) || !cur_eat(&c, ",") || !cur_dec(&c, 20, &seq) || !cur_eat(&c, ",") ||
	    !cur_dec(&c, 20, &usec) || !cur_eat(&c, ","))
		return 0;
	const char *semi = memchr(c.p, ';', cur_left(&c));
	/* The flags field is one of "-", "c", "+" (older kernels); more fields may follow. */
	if (!semi || semi == c.p || (*c.p != '-' && *c.p != 'c' && *c.p != '+'))
		return 0;
	li->fmt = CI_KLOG_FMT_KMSG;
	li->t.mono_source = CI_KLOG_MONO_PRINTK;
	li->t.mono_us = usec;
	return (size_t)(semi + 1 - line);
}

/* Undo kmsg's "\xNN" escapes into out (which has room for n bytes). */
static size_t kmsg_unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		int h1, h2;
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && (h1 = hex_val((unsigned char)s[i + 2])) >= 0 &&
		    (h2 = hex_val((unsigned char)s[i + 3])) >= 0) {
			out[o++] = (char)(h1 << 4 | h2);
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	return o;
}

/* ---------------------------------------------------------------------------------------- */
/* journalctl -o json: one flat object per line.                                              */

struct json_fields {
	const char *msg;
	size_t msg_len;
	bool has_msg;
	const char *host;
	size_t host_len;
	char boot_id[33];
	bool has_rt, has_mono, has_src_mono;
	uint64_t rt, mono, src_mono;
};

static bool json_hex4(struct cur *c, uint32_t *v)
{
	if (cur_left(c) < 4)
		return false;
	uint32_t x = 0;
	for (int i = 0; i < 4; i++) {
		int h = hex_val((unsigned char)c->p[i]);
		if (h < 0)
			return false;
		x = x << 4 | (uint32_t)h;
	}
	c->p += 4;
	*v = x;
	return true;
}

/* A JSON string at the cursor (after its opening quote is checked here), decoded into out when
 * out is not NULL.  An escape never grows the text, so out needs the encoded length. */
static bool json_string(struct cur *c, char *out, size_t *out_len)
{
	if (!cur_eat(c, "\""))
		return false;
	size_t o = 0;
	while (c->p < c->e) {
		unsigned char ch = (unsigned char)*c->p++;
		if (ch == '"') {
			if (out_len)
				*out_len = o;
			return true;
		}
		if (ch != '\\') {
			if (out)
				out[o] = (char)ch;
			o++;
			continue;
		}
		if (c->p >= c->e)
			return false;
		char e = *c->p++, r;
		uint32_t cp;
		switch (e) {
		case '"': r = '"'; break;
		case '\\': r = '\\'; break;
		case '/': r = '/'; break;
		case 'b': r = '\b'; break;
		case 'f': r = '\f'; break;
		case 'n': r = '\n'; break;
		case 'r': r = '\r'; break;
		case 't': r = '\t'; break;
		case 'u':
			if (!json_hex4(c, &cp))
				return false;
			if (cp >= 0xd800 && cp <= 0xdbff && cur_left(c) >= 6 && c->p[0] == '\\' && c->p[1] == 'u') {
				struct cur s = *c;
				s.p += 2;
				uint32_t lo;
				if (json_hex4(&s, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					*c = s;
				}
			}
			/* "\uXXXX" is 6 bytes and UTF-8 at most 4: decoding never overtakes the input. */
			if (out)
				o += ci_utf8_encode(cp, 0xfffd, out + o); /* invalid: U+FFFD */
			else
				o += 4;
			continue;
		default: return false;
		}
		if (out)
			out[o] = r;
		o++;
	}
	return false;
}

/* A journal number: a string of digits, or a bare number. */
static bool json_u64(struct cur *c, uint64_t *v)
{
	struct cur s = *c;
	bool quoted = cur_eat(&s, "\"");
	if (!cur_dec(&s, 20, v) || (quoted && !cur_eat(&s, "\"")))
		return false;
	*c = s;
	return true;
}

/* Skip any value without recursion: brackets are counted, strings stepped over. */
static bool json_skip(struct cur *c)
{
	unsigned depth = 0;
	do {
		cur_spaces(c);
		int ch = cur_peek(c);
		if (ch == '"') {
			if (!json_string(c, NULL, NULL))
				return false;
		} else if (ch == '{' || ch == '[') {
			if (++depth > 4096)
				return false;
			c->p++;
		} else if (ch == '}' || ch == ']') {
			if (!depth)
				return false;
			depth--;
			c->p++;
		} else if (ch == ',' || ch == ':') {
			if (!depth)
				return false;
			c->p++;
		} else if (ch >= 0 && (is_word(ch) || ch == '-' || ch == '+' || ch == '.')) {
			while (c->p < c->e && (is_word((unsigned char)*c->p) || *c->p == '-' || *c->p == '+' || *c->p == '.'))
				c->p++;
		} else {
			return false;
		}
	} while (depth);
	return true;
}

/* MESSAGE as an array of byte values (journald's form for text that is not clean UTF-8). */
static bool json_bytes(struct cur *c, char *out, size_t *out_len)
{
	if (!cur_eat(c, "["))
		return false;
	size_t o = 0;
	cur_spaces(c);
	if (cur_eat(c, "]")) {
		*out_len = 0;
		return true;
	}
	for (;;) {
		uint64_t v;
		cur_spaces(c);
		if (!cur_dec(c, 3, &v) || v > 255)
			return false;
		out[o++] = (char)v; /* each value took at least two input bytes with its comma */
		cur_spaces(c);
		if (cur_eat(c, "]"))
			break;
		if (!cur_eat(c, ","))
			return false;
	}
	*out_len = o;
	return true;
}

static void boot_id_set(char *dst, const char *s, size_t n)
{
	char id[33];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 33; i++) {
		int ch = (unsigned char)s[i];
		if (ch == '-')
			continue;
		if (hex_val(ch) < 0)
			return;
		id[k++] = (char)(ch >= 'A' && ch <= 'F' ? ch + 32 : ch);
	}
	if (k != 32)
		return;
	memcpy(dst, id, 32);
	dst[32] = 0;
}

/* Parse a journal object; strings land in scratch (which has room for the line). */
static bool parse_json(const char *line, size_t n, char *scratch, struct json_fields *f)
{
	struct cur c = cur_make(line, n);
	size_t used = 0;
	cur_spaces(&c);
	if (!cur_eat(&c, "{"))
		return false;
	cur_spaces(&c);
	if (cur_eat(&c, "}"))
		return true;
	for (;;) {
		char key[32];
		size_t klen;
		cur_spaces(&c);
		/* Keys of interest are short; a longer key is decoded into scratch and ignored. */
		struct cur k = c;
		if (!json_string(&k, NULL, &klen))
			return false;
		if (klen < sizeof key) {
			json_string(&c, key, &klen);
			key[klen] = 0;
		} else {
			c = k;
			key[0] = 0;
		}
		cur_spaces(&c);
		if (!cur_eat(&c, ":"))
			return false;
		cur_spaces(&c);
		bool ok;
		size_t len;
		if (strcmp(key, "MESSAGE") == 0) {
			char *o = scratch + used;
			ok = cur_peek(&c) == '[' ? json_bytes(&c, o, &len) : json_string(&c, o, &len);
			if (ok) {
				f->msg = o;
				f->msg_len = len;
				f->has_msg = true;
				used += len;
			}
		} else if (strcmp(key, "_HOSTNAME") == 0) {
			char *o = scratch + used;
			if ((ok = json_string(&c, o, &len))) {
				f->host = o;
				f->host_len = len;
				used += len;
			}
		} else if (strcmp(key, "_BOOT_ID") == 0) {
			char *o = scratch + used;
			if ((ok = json_string(&c, o, &len)))
				boot_id_set(f->boot_id, o, len);
		} else if (strcmp(key, "__REALTIME_TIMESTAMP") == 0) {
			ok = (f->has_rt = json_u64(&c, &f->rt)) || json_skip(&c);
		} else if (strcmp(key, "__MONOTONIC_TIMESTAMP") == 0) {
			ok = (f->has_mono = json_u64(&c, &f->mono)) || json_skip(&c);
		} else if (strcmp(key, "_SOURCE_MONOTONIC_TIMESTAMP") == 0) {
			ok = (f->has_src_mono = json_u64(&c, &f->src_mono)) || json_skip(&c);
		} else {
			ok = json_skip(&c);
		}
		if (!ok)
			return false;
		cur_spaces(&c);
		if (cur_eat(&c, "}"))
			return true;
		if (!cur_eat(&c, ","))
			return false;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* The Xid message itself.                                                                    */

static const char *const warp_errors[][2] = {
	/* Warp ESR error codes, from nouveau's gf100/gv100 GR trap decoders; 0x17 pairs with
	 * Blackwell's "MMU Fault" text (docs/KERNEL-LOG.md). */
	{ "\x09", "Illegal Instruction Encoding" },
	{ "\x0b", "Illegal Instruction Parameter" },
	{ "\x0d", "Out Of Range Register" },
	{ "\x0e", "Out Of Range Address" },
	{ "\x0f", "Misaligned Address" },
	{ "\x10", "Invalid Address Space" },
	{ "\x12", "Invalid Constant Address" },
	{ "\x17", "MMU Fault" },
};

static const char *warp_error_name(uint16_t code)
{
	for (size_t i = 0; i < sizeof warp_errors / sizeof *warp_errors; i++)
		if ((unsigned char)warp_errors[i][0][0] == code)
			return warp_errors[i][1];
	return NULL;
}

/* "Ch 0000003a", "ch 12", "channel 0x00000201", "chid 5": the first such word in the body. */
static bool parse_channel(const char *p, const char *e, uint32_t *ret)
{
	static const char *const words[] = { "channel", "chid", "Ch", "ch" };
	for (const char *s = p; s < e; s++) {
		if ((*s != 'c' && *s != 'C') || (s > p && is_word((unsigned char)s[-1])))
			continue;
		for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
			struct cur c = { s, e };
			if (!cur_eat_n(&c, words[i], strlen(words[i])) || (!cur_eat(&c, " ") && !cur_eat(&c, "=")))
				continue;
			uint64_t v;
			unsigned nd;
			bool hex = cur_eat(&c, "0x");
			struct cur d = c;
			if (!cur_hex(&c, 8, &v, &nd) || (cur_peek(&c) >= 0 && is_word(cur_peek(&c))))
				continue;
			/* %08x fields are hex without "0x"; a shorter all-digit number is decimal. */
			uint64_t dv;
			if (!hex && nd != 8 && cur_dec(&d, 8, &dv) && d.p == c.p)
				v = dv;
			*ret = (uint32_t)v;
			return true;
		}
	}
	return false;
}

static void copy_word(char *dst, size_t size, struct cur *c)
{
	if (!cur_word(c, dst, size))
		dst[0] = 0;
}

static void parse_mmu(struct ci_xid *x, const char *p, const char *e)
{
	struct ci_xid_mmu *m = &x->mmu;
	const char *s;
	struct cur c;
	uint64_t v;
	if ((s = find(p, e, "intr "))) {
		c = (struct cur){ s + 5, e };
		if (cur_hex(&c, 8, &v, NULL)) {
			m->has_intr = true;
			m->intr = (uint32_t)v;
		}
	}
	if ((s = find(p, e, "ENGINE "))) {
		c = (struct cur){ s + 7, e };
		copy_word(m->engine, sizeof m->engine, &c);
		/* Then [GPCn] [TPCn] CLIENT up to "faulted". */
		for (int i = 0; i < 4; i++) {
			cur_spaces(&c);
			if (cur_left(&c) >= 7 && memcmp(c.p, "faulted", 7) == 0)
				break;
			char w[32];
			if (!cur_word(&c, w, sizeof w))
				break;
			size_t digits = strlen(w + 3);
			if ((strncmp(w, "GPC", 3) == 0 || strncmp(w, "TPC", 3) == 0) && digits && digits <= 4 &&
			    strspn(w + 3, "0123456789") == digits) {
				*(w[0] == 'G' ? &m->gpc : &m->tpc) = (int32_t)strtol(w + 3, NULL, 10);
			} else {
				memcpy(m->client, w, sizeof m->client);
			}
		}
	}
	if ((s = find(p, e, "faulted @ "))) {
		c = (struct cur){ s + 10, e };
		uint64_t lo;
		unsigned nd;
		if (cur_eat(&c, "0x") && cur_hex(&c, 16, &v, &nd)) {
			if (cur_eat(&c, "_")) {
				if (v <= 0xffffffffu && cur_hex(&c, 8, &lo, NULL)) {
					m->has_address = m->address_split = true;
					m->address = v << 32 | lo;
				}
			} else {
				m->has_address = true;
				m->address = v;
			}
		}
	}
	if ((s = find(p, e, "Fault is of type "))) {
		c = (struct cur){ s + 17, e };
		copy_word(m->fault_type, sizeof m->fault_type, &c);
		cur_spaces(&c);
		copy_word(m->access_type, sizeof m->access_type, &c);
		if (strncmp(m->access_type, "ACCESS_TYPE_", 12) != 0)
			m->access_type[0] = 0;
		const char *a = m->access_type;
		m->physical = strstr(a, "_PHYS_") != NULL;
		m->access = strstr(a, "PREFETCH") ? CI_XID_ACCESS_PREFETCH
			  : strstr(a, "ATOMIC")   ? CI_XID_ACCESS_ATOMIC
			  : strstr(a, "WRITE")    ? CI_XID_ACCESS_WRITE
			  : strstr(a, "READ")     ? CI_XID_ACCESS_READ
						  : CI_XID_ACCESS_UNKNOWN;
	}
	const char *eng = m->engine;
	bool graphics = strcmp(eng, "GRAPHICS") == 0 || (eng[0] == 'G' && eng[1] == 'R' && is_digit(eng[2]));
	if (eng[0] == 'C' && eng[1] == 'E' && is_digit(eng[2]))
		m->unit = CI_XID_UNIT_COPY;
	else if (graphics && strncmp(m->client, "GPCCLIENT_T1_", 13) == 0)
		m->unit = CI_XID_UNIT_SM;
	else if (graphics)
		m->unit = CI_XID_UNIT_GRAPHICS;
	else if (eng[0])
		m->unit = CI_XID_UNIT_OTHER;
	if (!m->has_address || !m->fault_type[0] || !m->access_type[0])
		x->flags |= CI_XID_BODY_PARTIAL;
}

/* "(GPC 1, TPC 2[, SM 0])" */
static bool parse_gpc_tpc(struct cur *c, struct ci_xid_gr *g)
{
	uint64_t v;
	struct cur s = *c;
	if (!cur_eat(&s, "(GPC ") || !cur_dec(&s, 4, &v))
		return false;
	g->gpc = (int32_t)v;
	if (cur_eat(&s, ", TPC ") && cur_dec(&s, 4, &v)) {
		g->tpc = (int32_t)v;
		if (cur_eat(&s, ", SM ") && cur_dec(&s, 4, &v))
			g->sm = (int32_t)v;
	}
	if (!cur_eat(&s, ")"))
		return false;
	*c = s;
	return true;
}

static void parse_gr(struct ci_xid *x, const char *p, const char *e)
{
	struct ci_xid_gr *g = &x->gr;
	const char *s;
	if ((s = find(p, e, "ESR "))) {
		struct cur c = { s + 4, e };
		g->kind = CI_XID_GR_ESR;
		while (g->n_esr < CI_XID_ESR_MAX) {
			uint64_t r, v;
			cur_spaces(&c);
			if (!cur_eat(&c, "0x") || !cur_hex(&c, 8, &r, NULL) || !cur_eat(&c, "=") || !cur_eat(&c, "0x") ||
			    !cur_hex(&c, 8, &v, NULL))
				break;
			g->esr[g->n_esr].reg = (uint32_t)r;
			g->esr[g->n_esr].value = (uint32_t)v;
			g->n_esr++;
		}
		if (!g->n_esr)
			x->flags |= CI_XID_BODY_PARTIAL;
		uint32_t r0 = g->n_esr ? g->esr[0].reg : 0;
		/* The warp ESR is …648 per TPC before Volta and …730 + 0x80·SM from Volta on. */
		if (g->n_esr && ((r0 & 0xfff) == 0x648 || (r0 & 0x7f) == 0x30)) {
			g->has_warp_code = true;
			g->warp_code = (uint16_t)(g->esr[0].value & 0xffff);
			g->warp_error = warp_error_name(g->warp_code);
		}
		return;
	}
	if (!(s = find(p, e, "Exception on ")) || !find(p, s, "Graphics")) {
		if (find(p, e, "Graphics"))
			g->kind = CI_XID_GR_OTHER;
		return;
	}
	g->kind = find(p, s, "SM Warp") ? CI_XID_GR_WARP : find(p, s, "SM Global") ? CI_XID_GR_GLOBAL : CI_XID_GR_OTHER;
	struct cur c = { s + 13, e };
	if (!parse_gpc_tpc(&c, g)) {
		x->flags |= CI_XID_BODY_PARTIAL;
		return;
	}
	if (!cur_eat(&c, ": ")) {
		x->flags |= CI_XID_BODY_PARTIAL;
		return;
	}
	size_t n = cur_left(&c);
	if (n >= sizeof g->error)
		n = sizeof g->error - 1;
	memcpy(g->error, c.p, n);
	g->error[n] = 0;
}

/* "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" */
static void parse_recovery(struct ci_xid *x, const char *p, const char *e)
{
	const char *s = find(p, e, " to 0x");
	uint64_t v;
	struct cur c = { s ? s + 6 : e, e };
	if (s && cur_hex(&c, 8, &v, NULL))
		x->recovery_action = (int32_t)v;
}

/* Parse a message that starts with "NVRM: Xid (" into x (strings not yet copied: the caller
 * copies name and body).  Returns false for a line without a PCI id and Xid number. */
struct xid_text {
	const char *name, *body;
	size_t name_len, body_len;
};

static bool parse_xid(const char *msg, size_t n, struct ci_xid *x, struct xid_text *tx)
{
	struct cur c = cur_make(msg, n);
	uint64_t a, b, d, v;
	if (!cur_eat(&c, "NVRM: Xid ("))
		return false;
	x->pci_prefix = cur_eat(&c, "PCI:");
	if (!cur_hex(&c, 8, &a, NULL) || !cur_eat(&c, ":") || !cur_hex(&c, 2, &b, NULL))
		return false;
	if (cur_eat(&c, ":")) {
		if (!cur_hex(&c, 2, &d, NULL))
			return false;
		x->pci = (struct ci_klog_pci){ (uint32_t)a, (uint8_t)b, (uint8_t)d };
	} else {
		if (a > 0xff)
			return false;
		x->pci = (struct ci_klog_pci){ 0, (uint8_t)a, (uint8_t)b };
	}
	if (cur_eat(&c, ".")) /* a function is never printed, but tolerate one */
		cur_hex(&c, 1, &v, NULL);
	if (cur_eat(&c, " GPU-I:") && cur_dec(&c, 4, &v)) {
		x->gpu_instance = (int32_t)v;
		if (cur_eat(&c, " GPU-CI:") && cur_dec(&c, 4, &v))
			x->compute_instance = (int32_t)v;
	}
	if (!cur_eat(&c, "):"))
		return false;
	cur_spaces(&c);
	if (!cur_dec(&c, 10, &v) || v > UINT32_MAX)
		return false;
	x->xid = (uint32_t)v;
	cur_eat(&c, ",");
	cur_spaces(&c);
	if (cur_eat(&c, "pid=")) {
		if (cur_dec(&c, 10, &v) && v <= UINT32_MAX) {
			x->pid_form = CI_XID_PID_NUMBER;
			x->pid = (uint32_t)v;
		} else if (cur_eat(&c, "'<unknown>'") || cur_eat(&c, "<unknown>")) {
			x->pid_form = CI_XID_PID_UNKNOWN;
		} else {
			while (c.p < c.e && *c.p != ',')
				c.p++;
			x->pid_form = CI_XID_PID_UNKNOWN;
		}
		cur_eat(&c, ",");
		cur_spaces(&c);
	}
	if (cur_eat(&c, "name=")) {
		/* A comm is at most 15 bytes and may hold spaces and commas: it ends at the first
		 * ", " (the driver's separator), or at the end of a line cut short. */
		const char *s = c.p, *sep = find(c.p, c.e, ", ");
		const char *end = sep ? sep : c.e;
		if (end - s == 9 && memcmp(s, "<unknown>", 9) == 0) {
			x->name_unknown = true;
		} else {
			tx->name = s;
			tx->name_len = (size_t)(end - s);
		}
		c.p = sep ? sep + 2 : c.e;
	}
	const char *body = c.p, *end = c.e;
	while (end > body && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	/* 570.124.04+: " caused by previous Xid N" closes the body (so only its tail is searched). */
	const char *tail = end - body > 40 ? end - 40 : body;
	const char *cb = find(tail, end, " caused by previous Xid ");
	if (cb) {
		struct cur k = { cb + 24, end };
		if (cur_dec(&k, 10, &v) && k.p == end && v <= INT32_MAX) {
			x->caused_by = (int32_t)v;
			end = cb;
		}
	}
	tx->body = body;
	tx->body_len = (size_t)(end - body);
	uint32_t ch;
	if (parse_channel(body, end, &ch)) {
		x->has_channel = true;
		x->channel = ch;
	}
	if (x->xid == 31)
		parse_mmu(x, body, end);
	else if (x->xid == 13)
		parse_gr(x, body, end);
	else if (x->xid == 154)
		parse_recovery(x, body, end);
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* The parse.                                                                                 */

/* Where the next occurrence of a needle lies in the current text region: one search serves
 * every line up to the hit, so lines without it cost nothing. */
struct hint {
	const char *at;           /* the hit, or NULL: none before `end` */
	const char *from, *end;
	uint64_t gen;
	bool valid;
};

struct parse {
	struct ci_klog *log;
	const struct lines *src;
	struct hint nvrm, linux_version, json_bytes;
	bool text_full;           /* max_text reached: later Xid lines are counted, not parsed */
	struct ci_klog_text *text;
	size_t max_items, cap_items, cap_gpus;
	char *scratch;            /* max_line bytes: decoded JSON and kmsg text */
	int err;                  /* KERR_* of the first failure */
	/* State carried from line to line. */
	char boot_id[33];         /* from the last journal "-- Boot ID --" marker */
	char json_boot[33];       /* boot id of the previous JSON line */
	bool seg_timed;           /* the current boot segment has had a timed line */
	const char *part;         /* bug-report part, in kept text */
	bool section_next;        /* a bug-report separator was just seen */
	bool scanning;            /* inside the bug report's "Scanning kernel log files" section */
	const char *last_host;    /* kept copy of the last host name, reused while it repeats */
	uint32_t part_first_seg;  /* boot_seq at the start of the current part */
	size_t part_first_item;
};

static void new_boot_segment(struct parse *ps)
{
	if (ps->seg_timed) {
		ps->log->stats.boot_segments++;
		ps->seg_timed = false;
	}
}

/* A part of the log ends (a bug-report section, or the input): its items learn whether it
 * showed one boot, which decides whether their monotonic times may be compared without a boot
 * id. */
static void finish_part(struct parse *ps)
{
	struct ci_klog *log = ps->log;
	if (log->stats.boot_segments == ps->part_first_seg)
		for (size_t i = ps->part_first_item; i < log->count; i++)
			log->items[i].flags |= CI_XID_ONE_BOOT;
	ps->part_first_item = log->count;
	ps->part_first_seg = log->stats.boot_segments;
}

static char *keep(struct parse *ps, const char *s, size_t n)
{
	int why = TEXT_OK;
	char *r = text_dup(ps->text, s, n, &why);
	if (!r && why == TEXT_NOMEM && !ps->err)
		ps->err = KERR_NOMEM;
	return r;
}

static bool all_underscores(const char *line, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (line[i] != '_')
			return false;
	return true;
}

/* The bug report's own structure: separators, section titles and sub-part headers. */
static bool bug_report_line(struct parse *ps, const char *line, size_t n)
{
	if (n >= 20 && all_underscores(line, n)) {
		ps->section_next = true;
		return true;
	}
	if (ps->section_next) {
		if (!n)
			return true;
		ps->section_next = false;
		ps->scanning = false;
		finish_part(ps);
		ps->seg_timed = false;
		const char *name = NULL;
		size_t len = n;
		if (n == 6 && memcmp(line, "dmesg:", 6) == 0) {
			name = "dmesg";
			len = 5;
		} else if (n >= 27 && memcmp(line, "Scanning kernel log files", 25) == 0) {
			ps->scanning = true;
			ps->part = NULL;
			return true;
		} else {
			name = line;
		}
		if (len > KLOG_PART_MAX)
			len = KLOG_PART_MAX;
		ps->part = keep(ps, name, len);
		return true; /* a title is not a log line */
	}
	/* "  /var/log/kern.log:" and "  journalctl -b -1:" open the scan section's parts. */
	if (ps->scanning && n > 3 && line[0] == ' ' && line[1] == ' ' && line[n - 1] == ':' &&
	    (line[2] == '/' || (n - 3 >= 10 && memcmp(line + 2, "journalctl", 10) == 0))) {
		finish_part(ps);
		ps->seg_timed = false;
		size_t len = n - 3 > KLOG_PART_MAX ? KLOG_PART_MAX : n - 3;
		ps->part = keep(ps, line + 2, len);
		return true;
	}
	return false;
}

/* journalctl's "-- Boot 0123…ef --" and "-- Reboot --" separators. */
static bool journal_marker(struct parse *ps, const char *line, size_t n)
{
	struct cur c = cur_make(line, n);
	if (!cur_eat(&c, "-- "))
		return false;
	if (cur_eat(&c, "Boot ")) {
		const char *id = c.p;
		while (c.p < c.e && *c.p != ' ')
			c.p++;
		new_boot_segment(ps);
		ps->seg_timed = true; /* the marker itself opens a boot: the next one is another */
		ps->boot_id[0] = 0;
		boot_id_set(ps->boot_id, id, (size_t)(c.p - id));
		return true;
	}
	if (cur_eat(&c, "Reboot --")) {
		new_boot_segment(ps);
		ps->seg_timed = true;
		ps->boot_id[0] = 0;
		return true;
	}
	return true; /* "-- Logs begin at …", "-- No entries --": nothing to keep */
}

static void add_gpu(struct parse *ps, const char *msg, size_t n)
{
	struct cur c = cur_make(msg, n);
	uint64_t a, b, d;
	if (!cur_eat(&c, "NVRM: GPU at PCI:") || !cur_hex(&c, 8, &a, NULL) || !cur_eat(&c, ":") ||
	    !cur_hex(&c, 2, &b, NULL) || !cur_eat(&c, ":") || !cur_hex(&c, 2, &d, NULL) || !cur_eat(&c, ": "))
		return;
	if (!cur_eat(&c, "GPU-"))
		return;
	struct ci_klog *log = ps->log;
	struct ci_klog_pci pci = { (uint32_t)a, (uint8_t)b, (uint8_t)d };
	const char *u = c.p - 4;
	while (c.p < c.e && (is_word((unsigned char)*c.p) || *c.p == '-'))
		c.p++;
	size_t un = (size_t)(c.p - u);
	struct ci_klog_gpu g = { .pci = pci, .line = log->stats.lines };
	if (un >= sizeof g.uuid)
		un = sizeof g.uuid - 1;
	memcpy(g.uuid, u, un);
	for (size_t i = 0; i < log->gpu_count; i++)
		if (ci_klog_pci_equal(log->gpus[i].pci, pci) && strcmp(log->gpus[i].uuid, g.uuid) == 0)
			return;
	if (log->gpu_count == KLOG_GPU_MAX) {
		log->stats.gpus_dropped++;
		return;
	}
	if (log->gpu_count == ps->cap_gpus) {
		size_t cap = ps->cap_gpus ? ps->cap_gpus * 2 : 8;
		struct ci_klog_gpu *p = realloc(log->gpus, cap * sizeof *p);
		if (!p) {
			ps->err = KERR_NOMEM;
			return;
		}
		log->gpus = p;
		ps->cap_gpus = cap;
	}
	log->gpus[log->gpu_count++] = g;
}

static bool add_xid(struct parse *ps, const char *line, size_t n, const struct line_info *li)
{
	struct ci_klog *log = ps->log;
	log->stats.xid_lines++;
	if (log->count >= ps->max_items || ps->text_full) { /* not parsed: the caps bound the work too */
		log->stats.dropped++;
		return false;
	}
	struct ci_xid x = {
		.line = log->stats.lines,
		.format = li->fmt,
		.boot_seq = log->stats.boot_segments - 1,
		.time = li->t,
		.duplicate_of = SIZE_MAX,
		.gpu_instance = -1,
		.compute_instance = -1,
		.caused_by = -1,
		.recovery_action = -1,
		.mmu = { .gpc = -1, .tpc = -1 },
		.gr = { .gpc = -1, .tpc = -1, .sm = -1 },
	};
	struct xid_text tx = { 0 };
	if (!parse_xid(li->msg, li->msg_len, &x, &tx)) {
		log->stats.malformed++;
		return false;
	}
	memcpy(x.boot_id, li->boot_id, sizeof x.boot_id);
	size_t raw_len = n;
	if (raw_len > CI_KLOG_RAW_MAX) {
		raw_len = CI_KLOG_RAW_MAX;
		x.flags |= CI_XID_RAW_CUT;
	}
	x.part = ps->part;
	x.raw = keep(ps, line, raw_len);
	x.message = keep(ps, li->msg, li->msg_len);
	x.body = keep(ps, tx.body, tx.body_len);
	bool ok = x.raw && x.message && x.body;
	if (ok && tx.name)
		ok = (x.name = keep(ps, tx.name, tx.name_len)) != NULL;
	if (ok && li->host) {
		const char *h = ps->last_host;
		if (h && strlen(h) == li->host_len && memcmp(h, li->host, li->host_len) == 0)
			x.host = h;
		else
			ok = (x.host = ps->last_host = keep(ps, li->host, li->host_len)) != NULL;
	}
	if (!ok) {
		log->stats.dropped++;
		ps->text_full = true;
		return false;
	}
	if (log->count == ps->cap_items) {
		size_t cap = ps->cap_items ? ps->cap_items * 2 : 64;
		struct ci_xid *p = realloc(log->items, cap * sizeof *p);
		if (!p) {
			ps->err = KERR_NOMEM;
			return false;
		}
		log->items = p;
		ps->cap_items = cap;
	}
	log->items[log->count++] = x;
	log->stats.per_format[x.format]++;
	return true;
}

/* The message is known: an Xid, a GPU's UUID, or nothing to keep. */
static void handle_message(struct parse *ps, const char *line, size_t n, struct line_info *li)
{
	const char *nv = find(li->msg, li->msg + li->msg_len, "NVRM: ");
	if (!nv)
		return;
	li->msg_len -= (size_t)(nv - li->msg);
	li->msg = nv;
	while (li->msg_len && (li->msg[li->msg_len - 1] == '\n' || li->msg[li->msg_len - 1] == '\r'))
		li->msg_len--;
	if (li->msg_len >= 11 && memcmp(nv, "NVRM: Xid (", 11) == 0)
		add_xid(ps, line, n, li);
	else if (li->msg_len >= 17 && memcmp(nv, "NVRM: GPU at PCI:", 17) == 0)
		add_gpu(ps, li->msg, li->msg_len);
}

/* The first `lit` inside [line, line + n), found through the hint. */
static const char *find_hinted(struct parse *ps, struct hint *h, const char *line, size_t n, const char *lit,
			       size_t lit_len)
{
	const struct lines *l = ps->src;
	const char *end = l->region_end;
	if (!h->valid || h->gen != l->gen || line < h->from || h->end != end || (h->at && h->at < line)) {
		h->at = memmem(line, (size_t)(end - line), lit, lit_len);
		h->from = line;
		h->end = end;
		h->gen = l->gen;
		h->valid = true;
	}
	/* A needle without a newline cannot straddle the line's end. */
	return h->at && h->at < line + n ? h->at : NULL;
}

/* A JSON line: track boot changes cheaply, parse fully only when it may hold a message. */
static void json_line(struct parse *ps, const char *line, size_t n, const char *nv)
{
	struct ci_klog *log = ps->log;
	const char *b = memmem(line, n, "\"_BOOT_ID\":\"", 12);
	if (b && (size_t)(line + n - b) >= 12 + 32) {
		char id[33] = "";
		boot_id_set(id, b + 12, 32);
		if (id[0] && ps->json_boot[0] && strcmp(id, ps->json_boot) != 0)
			log->stats.boot_segments++;
		if (id[0])
			memcpy(ps->json_boot, id, sizeof id);
	}
	ps->seg_timed = true;
	if (!nv && !find_hinted(ps, &ps->json_bytes, line, n, "\"MESSAGE\":[", 11))
		return;
	struct json_fields f = { 0 };
	if (!parse_json(line, n, ps->scratch, &f) || !f.has_msg) {
		log->stats.json_bad++;
		return;
	}
	struct line_info li = { .fmt = CI_KLOG_FMT_JOURNAL_JSON, .msg = f.msg, .msg_len = f.msg_len,
				.host = f.host, .host_len = f.host_len };
	memcpy(li.boot_id, f.boot_id, sizeof li.boot_id);
	/* _SOURCE_MONOTONIC_TIMESTAMP is the kernel's own stamp; __MONOTONIC_TIMESTAMP journald's. */
	if (f.has_src_mono) {
		li.t.mono_source = CI_KLOG_MONO_PRINTK;
		li.t.mono_us = f.src_mono;
	} else if (f.has_mono) {
		li.t.mono_source = CI_KLOG_MONO_JOURNAL;
		li.t.mono_us = f.mono;
	}
	if (f.has_rt && f.rt <= INT64_MAX) {
		li.t.wall = CI_KLOG_WALL_UTC;
		li.t.wall_us = (int64_t)f.rt;
	}
	handle_message(ps, line, n, &li);
}

static void process_line(struct parse *ps, const char *line, size_t n)
{
	struct ci_klog *log = ps->log;
	if (!log->stats.bug_report && n >= 35 && memcmp(line, "Start of NVIDIA bug report log file", 35) == 0) {
		log->stats.bug_report = true;
		return;
	}
	if (log->stats.bug_report && bug_report_line(ps, line, n))
		return;
	if (!n)
		return;
	if (n >= 3 && line[0] == '-' && line[1] == '-' && line[2] == ' ' && journal_marker(ps, line, n))
		return;
	const char *nv = find_hinted(ps, &ps->nvrm, line, n, "NVRM: ", 6);
	if (line[0] == '{') {
		json_line(ps, line, n, nv);
		return;
	}
	struct line_info li = { .fmt = CI_KLOG_FMT_UNKNOWN };
	memcpy(li.boot_id, ps->boot_id, sizeof li.boot_id);
	/* The kernel's first message opens a new boot in dmesg, kmsg and syslog files. */
	if (!nv) {
		if (find_hinted(ps, &ps->linux_version, line, n < 96 ? n : 96, "Linux version ", 14)) {
			size_t off = is_digit(line[0]) ? parse_kmsg_header(line, n, &li) : 0;
			if (!off)
				parse_prefix(line, n, &li);
			if (li.t.mono_source == CI_KLOG_MONO_PRINTK && li.t.mono_us < (uint64_t)US_PER_S)
				new_boot_segment(ps);
		}
		ps->seg_timed = true;
		return;
	}
	ps->seg_timed = true;
	size_t off = is_digit(line[0]) ? parse_kmsg_header(line, n, &li) : 0;
	if (off) {
		li.msg_len = kmsg_unescape(line + off, n - off, ps->scratch);
		li.msg = ps->scratch;
	} else {
		parse_prefix(line, (size_t)(nv - line), &li);
		li.msg = nv;
		li.msg_len = (size_t)(line + n - nv);
	}
	handle_message(ps, line, n, &li);
}

/* In a bug report the same lines come from kern.log, the journal and dmesg: the k-th copy of
 * a line in a later part is marked a duplicate of the k-th in the first part that had it. */
struct dup_slot {
	size_t head, tail, cursor;
	const char *first_part, *cur_part;
	bool used;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int mark_duplicates(struct ci_klog *log)
{
	size_t n = log->count, cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	struct dup_slot *tab = calloc(cap, sizeof *tab);
	size_t *next = malloc(n * sizeof *next);
	if (!tab || !next) {
		free(tab);
		free(next);
		return KERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct ci_xid *x = &log->items[i];
		size_t h = (size_t)fnv1a(x->message) & (cap - 1);
		while (tab[h].used && strcmp(log->items[tab[h].head].message, x->message) != 0)
			h = (h + 1) & (cap - 1);
		struct dup_slot *s = &tab[h];
		next[i] = SIZE_MAX;
		if (!s->used) {
			*s = (struct dup_slot){ i, i, SIZE_MAX, x->part, x->part, true };
		} else if (x->part == s->first_part) {
			next[s->tail] = i;
			s->tail = i;
		} else {
			if (x->part != s->cur_part) {
				s->cur_part = x->part;
				s->cursor = s->head;
			}
			if (s->cursor != SIZE_MAX) {
				x->flags |= CI_XID_DUPLICATE;
				x->duplicate_of = s->cursor;
				s->cursor = next[s->cursor];
			}
		}
	}
	free(tab);
	free(next);
	return 0;
}

struct ci_error *ci_klog_parse(const void *buf, size_t len, const struct ci_klog_options *opts,
			       struct ci_klog **ret)
{
	struct ci_klog_options o = opts ? *opts : (struct ci_klog_options){ 0 };
	if (!o.max_line)
		o.max_line = KLOG_DEFAULT_MAX_LINE;
	if (!o.max_items)
		o.max_items = KLOG_DEFAULT_MAX_ITEMS;
	if (!o.max_text)
		o.max_text = KLOG_DEFAULT_MAX_TEXT;
	if (!o.max_decompressed)
		o.max_decompressed = KLOG_DEFAULT_MAX_GUNZIP;
	if (o.max_line > (256u << 20))
		o.max_line = 256u << 20;
	struct ci_klog *log = calloc(1, sizeof *log);
	struct ci_klog_text *text = calloc(1, sizeof *text);
	char *scratch = malloc(o.max_line + 1);
	struct lines l = { .in = buf, .in_len = buf ? len : 0, .max_line = o.max_line };
	struct ci_error *err = NULL;
	if (!log || !text || !scratch)
		goto nomem;
	text->limit = o.max_text;
	log->text_ = text;
	log->stats.boot_segments = 1;
	l.st = &log->stats;
	if (l.in_len >= 2 && l.in[0] == 0x1f && l.in[1] == 0x8b) {
		l.gz = true;
		log->stats.gzip = true;
		l.max_out = o.max_decompressed;
		l.win_size = o.max_line + (256u << 10);
		if (!(l.win = malloc(l.win_size)) || inflateInit2(&l.zs, 15 + 16) != Z_OK)
			goto nomem;
		l.gz_init = true;
		l.zs.next_in = (Bytef *)l.in;
	}
	struct parse ps = { .log = log, .src = &l, .text = text, .max_items = o.max_items, .scratch = scratch,
			    .part_first_seg = log->stats.boot_segments };
	const char *line;
	size_t n;
	for (;;) {
		if (!lines_next(&l, &line, &n) || ps.err)
			break;
		process_line(&ps, line, n);
	}
	finish_part(&ps);
	if (!ps.err && l.err)
		ps.err = l.err;
	if (!ps.err && log->stats.bug_report && log->count > 1)
		ps.err = mark_duplicates(log);
	if (ps.err == KERR_NOMEM)
		goto nomem;
	if (ps.err == KERR_CORRUPT) {
		err = ci_error_create(CI_ERR_CORRUPT,
				      "the kernel log starts like gzip (1f 8b) but does not inflate; "
				      "give the uncompressed text, or check that the file was copied whole");
		goto fail;
	}
	if (l.gz_init)
		inflateEnd(&l.zs);
	free(l.win);
	free(scratch);
	*ret = log;
	return NULL;
nomem:
	err = ci_error_create(CI_ERR_NOMEM, "out of memory while reading a kernel log of %zu bytes", len);
fail:
	if (l.gz_init)
		inflateEnd(&l.zs);
	free(l.win);
	free(scratch);
	if (log)
		ci_klog_destroy(log);
	else
		text_free(text);
	return err;
}

void ci_klog_destroy(struct ci_klog *log)
{
	if (!log)
		return;
	text_free(log->text_);
	free(log->items);
	free(log->gpus);
	free(log);
}

/* ---------------------------------------------------------------------------------------- */
/* Selection.                                                                                 */

bool ci_klog_pci_parse(const char *s, struct ci_klog_pci *ret)
{
	if (!s)
		return false;
	struct cur c = cur_make(s, strlen(s));
	uint64_t g[3], v;
	int n = 0;
	while (n < 3) {
		if (!cur_hex(&c, 8, &g[n], NULL))
			return false;
		n++;
		if (!cur_eat(&c, ":"))
			break;
	}
	if (n < 2)
		return false;
	if (cur_eat(&c, ".") && !cur_hex(&c, 1, &v, NULL))
		return false;
	if (cur_left(&c))
		return false;
	uint64_t dom = n == 3 ? g[0] : 0, bus = g[n - 2], dev = g[n - 1];
	if (dom > UINT32_MAX || bus > 0xff || dev > 0xff)
		return false;
	*ret = (struct ci_klog_pci){ (uint32_t)dom, (uint8_t)bus, (uint8_t)dev };
	return true;
}

struct proc_view {
	const struct ci_klog_process *p;
	struct ci_klog_pci *pci;
	size_t npci;
	char boot_id[33];
	int64_t mono_from, mono_to, wall_from, wall_to;  /* with the slack */
};

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static int64_t year_of(int64_t us)
{
	int64_t days = us / (86400 * US_PER_S) - (us % (86400 * US_PER_S) < 0), y;
	int m, d;
	civil_from_days(days, &y, &m, &d);
	return y;
}

/* -1: not comparable; 0: outside; 1: inside. */
static int wall_check(const struct ci_klog_time *t, const struct proc_view *v, enum ci_klog_basis *basis)
{
	const struct ci_klog_process *p = v->p;
	if (!p->has_wall || t->wall == CI_KLOG_WALL_NONE)
		return -1;
	int64_t w = t->wall_us, from = v->wall_from, to = v->wall_to;
	if (t->wall == CI_KLOG_WALL_UTC) {
		*basis = CI_KLOG_BASIS_WALL_UTC;
		return from <= w && w <= to;
	}
	int64_t lo, hi; /* the range of offsets the reading may carry */
	if (p->has_utc_offset) {
		*basis = CI_KLOG_BASIS_WALL_LOCAL;
		lo = hi = (int64_t)p->utc_offset_s * US_PER_S;
	} else {
		*basis = CI_KLOG_BASIS_WALL_ANY_ZONE;
		lo = -ANY_ZONE_US;
		hi = ANY_ZONE_US;
	}
	if (t->wall == CI_KLOG_WALL_LOCAL)
		return sat_add(w, -hi) <= to && sat_add(w, -lo) >= from;
	/* No year: try each year the window touches. */
	int64_t y0 = year_of(sat_add(from, lo)), y1 = year_of(sat_add(to, hi));
	if (y1 - y0 > 2 || y0 < 1 || y1 > 9999)
		return 1; /* a window of years (or out of the calendar) cannot narrow a date without its year */
	int64_t day = w / (86400 * US_PER_S), tod = w % (86400 * US_PER_S), yy;
	int m, d;
	civil_from_days(day, &yy, &m, &d);
	for (int64_t y = y0; y <= y1; y++) {
		if (d > days_in_month(y, m))
			continue;
		int64_t u = days_from_civil(y, m, d) * 86400 * US_PER_S + tod;
		if (sat_add(u, -hi) <= to && sat_add(u, -lo) >= from)
			return 1;
	}
	return 0;
}

static bool mono_comparable(const struct ci_xid *x, const struct proc_view *v)
{
	if (x->boot_id[0] && v->boot_id[0])
		return strcmp(x->boot_id, v->boot_id) == 0;
	return (x->flags & CI_XID_ONE_BOOT) != 0;
}

/* The time verdict for an item: -1 no comparable clock, 0 outside, 1 inside (every comparable
 * clock must agree: time only narrows).  *basis is the most precise clock used. */
static int time_check(const struct ci_xid *x, const struct proc_view *v, enum ci_klog_basis *basis)
{
	const struct ci_klog_process *p = v->p;
	int verdict = -1;
	*basis = CI_KLOG_BASIS_NONE;
	enum ci_klog_basis wb = CI_KLOG_BASIS_NONE;
	int w = wall_check(&x->time, v, &wb);
	if (w >= 0) {
		verdict = w;
		*basis = wb;
	}
	if (p->has_mono && x->time.mono_source != CI_KLOG_MONO_NONE && mono_comparable(x, v)) {
		int64_t m = x->time.mono_us > INT64_MAX ? INT64_MAX : (int64_t)x->time.mono_us;
		int in = v->mono_from <= m && m <= v->mono_to;
		verdict = verdict < 0 ? in : (verdict && in);
		*basis = CI_KLOG_BASIS_MONO;
	}
	return verdict;
}

enum who { WHO_NOBODY, WHO_US_PID, WHO_US_NAME, WHO_OTHER_PID, WHO_OTHER_NAME, WHO_OUR_NAME_NO_TIME };

static bool name_matches(const struct ci_xid *x, const struct ci_klog_process *p)
{
	size_t n = strlen(x->name);
	for (size_t i = 0; i < p->name_count; i++) {
		const char *want = p->names ? p->names[i] : NULL;
		if (!want)
			continue;
		size_t wn = strnlen(want, 15);
		if (wn == n && memcmp(want, x->name, n) == 0)
			return true;
	}
	return false;
}

/* Who the line itself names, given its time verdict. */
static enum who line_names(const struct ci_xid *x, const struct ci_klog_process *p, int time)
{
	bool name_ok = x->name && name_matches(x, p);
	if (x->pid_form == CI_XID_PID_NUMBER) {
		if ((p->pid && x->pid == p->pid) || (p->host_pid && x->pid == p->host_pid))
			return WHO_US_PID;
		if (name_ok && time == 1)
			return WHO_US_NAME;
		return WHO_OTHER_PID;
	}
	if (x->name) {
		if (!name_ok)
			return WHO_OTHER_NAME;
		return time == 1 ? WHO_US_NAME : WHO_OUR_NAME_NO_TIME;
	}
	return WHO_NOBODY;
}

static bool pci_known(const struct proc_view *v, struct ci_klog_pci pci)
{
	for (size_t i = 0; i < v->npci; i++)
		if (ci_klog_pci_equal(v->pci[i], pci))
			return true;
	return false;
}

/* |a - b| when the two lines' times can be compared with each other, else -1. */
static int64_t line_distance(const struct ci_xid *a, const struct ci_xid *b)
{
	if (a->time.mono_source && b->time.mono_source && a->boot_seq == b->boot_seq &&
	    strcmp(a->boot_id, b->boot_id) == 0) {
		uint64_t x = a->time.mono_us, y = b->time.mono_us;
		uint64_t d = x > y ? x - y : y - x;
		return d > INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	if (a->time.wall && a->time.wall == b->time.wall) {
		int64_t d = sat_add(a->time.wall_us, -b->time.wall_us);
		return d < 0 ? (d == INT64_MIN ? INT64_MAX : -d) : d;
	}
	return -1;
}

/* For every line, the nearest line before and after it on the same GPU that names a pid or
 * a name: two passes with a small table of GPUs (a hostile log with more GPUs than the table
 * holds just finds fewer companions). */
#define COMPANION_GPUS 64
static void find_named_neighbours(const struct ci_klog *log, size_t *prev, size_t *next)
{
	for (int dir = 0; dir < 2; dir++) {
		struct { struct ci_klog_pci pci; size_t last; } tab[COMPANION_GPUS];
		size_t ntab = 0;
		size_t *out = dir ? next : prev;
		for (size_t k = 0; k < log->count; k++) {
			size_t i = dir ? log->count - 1 - k : k;
			const struct ci_xid *x = &log->items[i];
			size_t t = 0;
			while (t < ntab && !ci_klog_pci_equal(tab[t].pci, x->pci))
				t++;
			out[i] = t < ntab ? tab[t].last : SIZE_MAX;
			if (x->pid_form == CI_XID_PID_NUMBER || x->name) {
				if (t == ntab && ntab < COMPANION_GPUS)
					tab[ntab++].pci = x->pci;
				if (t < ntab)
					tab[t].last = i;
			}
		}
	}
}

/* The monotonic time of X in microseconds, or -1 when it has none comparable with the
 * process's clock. */
static int64_t mono_of(const struct ci_xid *x, const struct ci_klog_match *r)
{
	if (r->basis != CI_KLOG_BASIS_MONO || x->time.mono_source == CI_KLOG_MONO_NONE)
		return -1;
	return x->time.mono_us > INT64_MAX ? INT64_MAX : (int64_t)x->time.mono_us;
}

/* What the rules by pid, name and time left, settled by what the process knows of itself
 * (issue: a shared machine's log holds the Xid lines of many processes, often of the same name):
 *  - the process's own pid in the log: a line of another pid that matched by name alone is
 *    another process of that name (not_own);
 *  - a line of another pid (or of none) stamped before the process started is not its own
 *    (before_start; one second of tolerance for the start's clock-tick resolution);
 *  - matched by name alone, several processes' faults: the one nearest before the process's
 *    first sticky error is its (a fault precedes the error it causes), else the nearest after;
 *    the others are farther.
 * Lines that belonged only through a line now rejected (companion) follow it. */
static void settle_identity(const struct ci_klog *log, const struct ci_klog_process *p,
			    struct ci_klog_match *m)
{
	size_t n = log->count;
	bool own_pid = false;
	for (size_t i = 0; i < n; i++)
		own_pid = own_pid || (m[i].belongs && m[i].rule == CI_KLOG_RULE_PID);
	int64_t start = p->start_mono_us ? (int64_t)(p->start_mono_us > INT64_MAX ? INT64_MAX : p->start_mono_us) - 1000000 : -1;
	for (size_t i = 0; i < n; i++) {
		const struct ci_xid *x = &log->items[i];
		struct ci_klog_match *r = &m[i];
		if (!r->belongs || r->rule == CI_KLOG_RULE_PID)
			continue;
		int64_t t = mono_of(x, r);
		if (r->rule == CI_KLOG_RULE_NAME_TIME && own_pid && x->pid_form == CI_XID_PID_NUMBER) {
			r->belongs = false;
			r->reject = CI_KLOG_REJECT_NOT_OWN;
		} else if (start >= 0 && t >= 0 && t < start) {
			r->belongs = false;
			r->reject = CI_KLOG_REJECT_BEFORE_START;
		}
	}
	/* Name alone: one process's lines (by their pid) nearest the sticky error. */
	if (!own_pid && p->sticky_mono_us) {
		int64_t sticky = p->sticky_mono_us > INT64_MAX ? INT64_MAX : (int64_t)p->sticky_mono_us;
		size_t best = SIZE_MAX;
		int64_t best_key = INT64_MAX;
		for (size_t i = 0; i < n; i++) {
			const struct ci_xid *x = &log->items[i];
			int64_t t = mono_of(x, &m[i]);
			if (!m[i].belongs || m[i].rule != CI_KLOG_RULE_NAME_TIME ||
			    x->pid_form != CI_XID_PID_NUMBER || t < 0)
				continue;
			/* Before the error: its distance; after: after every line before it. */
			int64_t key = t <= sticky ? sticky - t : INT64_MAX / 2 + (t - sticky);
			if (key < best_key) {
				best_key = key;
				best = i;
			}
		}
		for (size_t i = 0; best != SIZE_MAX && i < n; i++) {
			const struct ci_xid *x = &log->items[i];
			if (m[i].belongs && m[i].rule == CI_KLOG_RULE_NAME_TIME &&
			    x->pid_form == CI_XID_PID_NUMBER && x->pid != log->items[best].pid) {
				m[i].belongs = false;
				m[i].reject = CI_KLOG_REJECT_FARTHER;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = m[i].companion;
		if (m[i].belongs && m[i].rule == CI_KLOG_RULE_COMPANION && c < n && !m[c].belongs) {
			m[i].belongs = false;
			m[i].reject = CI_KLOG_REJECT_COMPANION;
		}
	}
}

struct ci_error *ci_klog_select(const struct ci_klog *log, const struct ci_klog_process *proc,
				struct ci_klog_match **ret)
{
	static const struct ci_klog_process none;
	static const struct ci_klog empty;
	const struct ci_klog_process *p = proc ? proc : &none;
	if (!log)
		log = &empty;
	struct proc_view v = { .p = p };
	size_t n = log->count;
	struct ci_klog_match *m = calloc(n ? n : 1, sizeof *m);
	size_t *prev = malloc((n ? n : 1) * sizeof *prev), *next = malloc((n ? n : 1) * sizeof *next);
	v.pci = calloc(p->pci_count ? p->pci_count : 1, sizeof *v.pci);
	int *times = malloc((n ? n : 1) * sizeof *times);
	if (!m || !prev || !next || !v.pci || !times) {
		free(m);
		free(prev);
		free(next);
		free(v.pci);
		free(times);
		return ci_error_create(CI_ERR_NOMEM, "out of memory while matching %zu kernel-log lines", n);
	}
	for (size_t i = 0; i < p->pci_count; i++)
		if (p->pci_bus_ids && ci_klog_pci_parse(p->pci_bus_ids[i], &v.pci[v.npci]))
			v.npci++;
	if (p->boot_id)
		boot_id_set(v.boot_id, p->boot_id, strlen(p->boot_id));
	int64_t slack = p->slack_us > INT64_MAX ? INT64_MAX : (int64_t)p->slack_us;
	int64_t mf = p->mono_from_us > INT64_MAX ? INT64_MAX : (int64_t)p->mono_from_us;
	int64_t mt = p->mono_to_us > INT64_MAX ? INT64_MAX : (int64_t)p->mono_to_us;
	v.mono_from = sat_add(mf, -slack);
	v.mono_to = sat_add(mt, slack);
	v.wall_from = sat_add(p->wall_from_us, -slack);
	v.wall_to = sat_add(p->wall_to_us, slack);
	find_named_neighbours(log, prev, next);
	for (size_t i = 0; i < n; i++)
		times[i] = time_check(&log->items[i], &v, &m[i].basis);
	for (size_t i = 0; i < n; i++) {
		const struct ci_xid *x = &log->items[i];
		struct ci_klog_match *r = &m[i];
		r->companion = SIZE_MAX;
		r->in_window = times[i] == 1;
		if (v.npci && !pci_known(&v, x->pci)) {
			r->reject = CI_KLOG_REJECT_GPU;
			continue;
		}
		if (x->boot_id[0] && v.boot_id[0] && strcmp(x->boot_id, v.boot_id) != 0) {
			r->reject = CI_KLOG_REJECT_BOOT;
			continue;
		}
		if (times[i] == 0) {
			r->reject = CI_KLOG_REJECT_TIME;
			continue;
		}
		enum who w = line_names(x, p, times[i]);
		switch (w) {
		case WHO_US_PID:
			r->belongs = true;
			r->rule = CI_KLOG_RULE_PID;
			continue;
		case WHO_US_NAME:
			r->belongs = true;
			r->rule = CI_KLOG_RULE_NAME_TIME;
			continue;
		case WHO_OTHER_PID:
			r->reject = CI_KLOG_REJECT_PID;
			continue;
		case WHO_OTHER_NAME:
			r->reject = CI_KLOG_REJECT_NAME;
			continue;
		case WHO_OUR_NAME_NO_TIME:
			r->reject = CI_KLOG_REJECT_UNPROVEN;
			continue;
		case WHO_NOBODY:
			break;
		}
		/* Neither pid nor name (Xid 13 on 570+, 79...): the nearest line that names one on
		 * the same GPU within a second decides, if there is one. */
		size_t best = SIZE_MAX;
		int64_t best_d = COMPANION_US + 1;
		size_t cand[2] = { prev[i], next[i] };
		for (int k = 0; k < 2; k++) {
			if (cand[k] == SIZE_MAX)
				continue;
			int64_t d = line_distance(x, &log->items[cand[k]]);
			if (d >= 0 && d < best_d) {
				best_d = d;
				best = cand[k];
			}
		}
		if (best != SIZE_MAX) {
			enum who cw = times[best] == 0 ? WHO_OTHER_PID : line_names(&log->items[best], p, times[best]);
			if (cw == WHO_US_PID || cw == WHO_US_NAME) {
				r->belongs = true;
				r->rule = CI_KLOG_RULE_COMPANION;
				r->companion = best;
				continue;
			}
			if (cw == WHO_OTHER_PID || cw == WHO_OTHER_NAME) {
				r->reject = CI_KLOG_REJECT_COMPANION;
				r->companion = best;
				continue;
			}
		}
		if (v.npci && times[i] == 1) {
			r->belongs = true;
			r->rule = CI_KLOG_RULE_GPU_TIME;
			continue;
		}
		r->reject = CI_KLOG_REJECT_UNPROVEN;
	}
	settle_identity(log, p, m);
	free(prev);
	free(next);
	free(v.pci);
	free(times);
	*ret = m;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Names.                                                                                     */

const char *ci_klog_format_name(enum ci_klog_format f)
{
	switch (f) {
#define CI_KLOG_FORMAT_CASE(e, name, what) case e: return name;
	CI_KLOG_FORMATS(CI_KLOG_FORMAT_CASE)
#undef CI_KLOG_FORMAT_CASE
	case CI_KLOG_FMT_COUNT: break;
	}
	return "?";
}

#define CI_KLOG_NAME_CASE(e, name, what) case e: return name;
#define CI_KLOG_TEXT_CASE(e, name, what) case e: return what;
const char *ci_klog_rule_name(enum ci_klog_rule r)
{
	switch (r) { CI_KLOG_RULES(CI_KLOG_NAME_CASE) }
	return "?";
}
const char *ci_klog_rule_text(enum ci_klog_rule r)
{
	switch (r) { CI_KLOG_RULES(CI_KLOG_TEXT_CASE) }
	return "?";
}
const char *ci_klog_reject_name(enum ci_klog_reject r)
{
	switch (r) { CI_KLOG_REJECTS(CI_KLOG_NAME_CASE) }
	return "?";
}
const char *ci_klog_reject_text(enum ci_klog_reject r)
{
	switch (r) { CI_KLOG_REJECTS(CI_KLOG_TEXT_CASE) }
	return "?";
}
#undef CI_KLOG_NAME_CASE
#undef CI_KLOG_TEXT_CASE

const char *ci_xid_category_name(enum ci_xid_category c)
{
	switch (c) {
	case CI_XID_CAT_UNKNOWN: return "unknown";
	case CI_XID_CAT_APP: return "application";
	case CI_XID_CAT_TEARDOWN: return "teardown";
	case CI_XID_CAT_HARDWARE: return "hardware";
	case CI_XID_CAT_DRIVER: return "driver";
	case CI_XID_CAT_RECOVERY: return "recovery";
	}
	return "?";
}

/* Numbers and tags from the driver's nverror.h (open-gpu-kernel-modules); meanings in our words,
 * from the tags, the open bodies and NVIDIA's Xid catalog (docs/KERNEL-LOG.md). */
static const struct ci_xid_kind xid_kinds[] = {
	{ 13, "ROBUST_CHANNEL_GR_EXCEPTION", CI_XID_CAT_APP,
	  "graphics engine exception: an SM warp error in a kernel (bad instruction, out-of-range or misaligned address); the line has no address" },
	{ 31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", CI_XID_CAT_APP,
	  "GPU MMU fault: an access to an unmapped or protected page of GPU virtual memory" },
	{ 32, "ROBUST_CHANNEL_PBDMA_ERROR", CI_XID_CAT_APP, "invalid or corrupted push buffer stream" },
	{ 43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", CI_XID_CAT_APP,
	  "the driver reset a channel after an application fault (names the channel's process)" },
	{ 44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", CI_XID_CAT_APP, "graphics engine fault during a context switch" },
	{ 45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", CI_XID_CAT_TEARDOWN,
	  "the driver removed a context's remaining channels (after a fault, or as the process exits)" },
	{ 46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", CI_XID_CAT_APP, "GPU timeout" },
	{ 48, "ROBUST_CHANNEL_GPU_ECC_DBE", CI_XID_CAT_HARDWARE, "uncorrectable (double-bit) ECC error in GPU memory" },
	{ 62, "PMU_HALT_ERROR", CI_XID_CAT_DRIVER, "the GPU's power-management unit halted" },
	{ 63, "INFOROM_PAGE_RETIREMENT_EVENT", CI_XID_CAT_HARDWARE,
	  "a GPU memory page was retired or a row marked for remapping (takes effect after a reset)" },
	{ 64, "INFOROM_PAGE_RETIREMENT_FAILURE", CI_XID_CAT_HARDWARE, "retiring a GPU memory page or remapping a row failed" },
	{ 69, "ROBUST_CHANNEL_GR_CLASS_ERROR", CI_XID_CAT_APP, "graphics engine class error (an invalid method)" },
	{ 74, "NVLINK_ERROR", CI_XID_CAT_HARDWARE, "NVLink error (the link to a peer GPU or switch)" },
	{ 79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", CI_XID_CAT_HARDWARE,
	  "the GPU stopped answering on PCIe; later lines about it are noise" },
	{ 92, "EXCESSIVE_SBE_INTERRUPTS", CI_XID_CAT_HARDWARE, "many correctable ECC errors" },
	{ 94, "ROBUST_CHANNEL_CONTAINED_ERROR", CI_XID_CAT_HARDWARE,
	  "contained memory error: only the applications using the bad memory must restart" },
	{ 95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", CI_XID_CAT_HARDWARE, "uncontained memory error: the GPU must be reset" },
	{ 109, NULL, CI_XID_CAT_APP, "context-switch timeout: a kernel or an engine stopped responding (often after a fault)" },
	{ 119, "GSP_RPC_TIMEOUT", CI_XID_CAT_DRIVER,
	  "the GPU's firmware (GSP) did not answer the driver in time; the pid is whoever's call timed out" },
	{ 120, "GSP_ERROR", CI_XID_CAT_DRIVER, "error inside the GPU's firmware (GSP); its pc is a firmware address" },
	{ 140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", CI_XID_CAT_HARDWARE, "an uncorrectable ECC error escaped containment" },
	{ 154, "GPU_RECOVERY_ACTION_CHANGED", CI_XID_CAT_RECOVERY,
	  "the GPU's recovery action changed: what it needs now (none, reset, reboot, drain)" },
};

const struct ci_xid_kind *ci_xid_describe(uint32_t xid)
{
	for (size_t i = 0; i < sizeof xid_kinds / sizeof *xid_kinds; i++)
		if (xid_kinds[i].xid == xid)
			return &xid_kinds[i];
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Events                                                                                     */

uint64_t ci_klog_gap_us(const struct ci_xid *x, const struct ci_xid *y)
{
	const struct ci_klog_time *s = &x->time, *t = &y->time;
	if (s->mono_source != CI_KLOG_MONO_NONE && s->mono_source == t->mono_source)
		return t->mono_us >= s->mono_us ? t->mono_us - s->mono_us : s->mono_us - t->mono_us;
	if (s->wall != CI_KLOG_WALL_NONE && s->wall == t->wall)
		return t->wall_us >= s->wall_us ? (uint64_t)t->wall_us - (uint64_t)s->wall_us
						: (uint64_t)s->wall_us - (uint64_t)t->wall_us;
	return UINT64_MAX;
}

static bool same_gpu(const struct ci_xid *x, const struct ci_xid *y)
{
	return x->pci.domain == y->pci.domain && x->pci.bus == y->pci.bus &&
	       x->pci.device == y->pci.device;
}

/* Whether the process's lines A and B (A before B in the log) are one event: on the same GPU,
 * within CI_KLOG_EVENT_GAP_US on a clock both have, or (without one) next to each other. */
static bool same_event(const struct ci_klog *log, size_t a, size_t b)
{
	const struct ci_xid *x = &log->items[a], *y = &log->items[b];
	if (!same_gpu(x, y))
		return false;
	uint64_t gap = ci_klog_gap_us(x, y);
	return gap != UINT64_MAX ? gap <= CI_KLOG_EVENT_GAP_US : b == a + 1;
}

size_t ci_klog_group(const struct ci_klog *log, struct ci_klog_match *match)
{
	/* The process's latest line on each GPU (lines of several GPUs may interleave). */
	enum { GPUS = 64 };
	size_t last[GPUS], gpus = 0, events = 0;
	for (size_t i = 0; i < log->count; i++) {
		const struct ci_xid *x = &log->items[i];
		match[i].event = SIZE_MAX;
		if (!match[i].belongs)
			continue;
		if (x->flags & CI_XID_DUPLICATE) {
			if (x->duplicate_of < i)
				match[i].event = match[x->duplicate_of].event;
			continue;
		}
		size_t g = 0;
		while (g < gpus && !same_gpu(&log->items[last[g]], x))
			g++;
		match[i].event = g < gpus && same_event(log, last[g], i) ? match[last[g]].event
									 : events++;
		if (g < gpus || gpus < GPUS)
			last[g < gpus ? g : gpus++] = i;
	}
	return events;
}
