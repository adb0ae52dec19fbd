/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the untrusted-input plumbing: the bounds-checked cursor, overflow helpers,
 * buffer sources (reads never return partial data), and decoding a synthetic record from a
 * buffer cut at every 64-byte length and with thousands of seeded random byte flips: each
 * attempt must end in a model or a clean error, never a crash (run under ASan in check-asan).
 * Also: a FIFO and a socket given as the input are refused without blocking.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "source/source.h"
#include "synth.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	plan(28);
	const uint8_t bytes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 'a', 'b', 0, 'c' };
	struct ci_bytes b = ci_bytes_make(bytes, sizeof bytes);
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	ok(ci_bytes_u16(&b, &u16) && u16 == 0x0201, "u16 little-endian");
	ok(ci_bytes_u32(&b, &u32) && u32 == 0x06050403, "u32 little-endian");
	ok(ci_bytes_skip(&b, 3), "skip inside");
	const char *s;
	size_t n;
	ok(ci_bytes_cstr(&b, &s, &n) && n == 2 && strcmp(s, "ab") == 0, "cstr");
	ok(!ci_bytes_cstr(&b, &s, &n) && b.bad, "cstr without NUL fails");
	ok(ci_bytes_left(&b) == 0, "failed read leaves the cursor at the end");
	b = ci_bytes_make(bytes, sizeof bytes);
	ok(!ci_bytes_skip(&b, 14) && b.bad, "skip past the end fails");
	b = ci_bytes_make(bytes, 7);
	ok(!ci_bytes_u64(&b, &u64) && u64 == 0 && b.bad, "short u64 fails and reads 0");
	struct ci_bytes sub;
	b = ci_bytes_make(bytes, sizeof bytes);
	ok(ci_bytes_sub(&b, 4, &sub) && sub.len == 4 && b.pos == 4, "sub-cursor");
	ok(!ci_bytes_sub(&b, 100, &sub) && sub.len == 0, "oversized sub-cursor fails");

	uint64_t r;
	ok(!ci_add(UINT64_MAX, 1, &r), "add overflow detected");
	ok(!ci_mul(1ull << 33, 1ull << 31, &r), "mul overflow detected");
	ok(ci_mul(1ull << 20, 1ull << 20, &r) && r == 1ull << 40, "mul");
	ok(ci_range_ok(10, 5, 15) && !ci_range_ok(10, 6, 15) && !ci_range_ok(16, 0, 15), "range_ok");

	/* Buffer sources. */
	struct ci_source *src;
	uint8_t mem[64];
	for (int i = 0; i < 64; i++)
		mem[i] = (uint8_t)i;
	ok(ci_source_from_buffer(mem, sizeof mem, 0x1000, &src) == NULL, "buffer source");
	uint8_t out[16];
	struct ci_error *err = ci_source_read(src, 0x1000 + 60, out, 8);
	ok(err && err->code == CI_ERR_UNAVAILABLE, "read across the end is unavailable, not partial");
	ci_error_destroy(err);
	err = ci_source_read(src, 0x1000 + 8, out, 8);
	ok(!err && out[0] == 8 && out[7] == 15, "read inside");
	ok(ci_source_available(src, 0x1010, 1000) == 48, "available counts to the end");
	err = ci_source_read(src, UINT64_MAX - 2, out, 8);
	ok(err && err->code == CI_ERR_UNAVAILABLE, "wrapping read is refused");
	ci_error_destroy(err);
	ci_source_close(src);
	err = ci_source_from_buffer(mem, 16, UINT64_MAX - 4, &src);
	ok(err != NULL, "wrapping buffer refused");
	ci_error_destroy(err);

	/* Inputs that are not regular files are refused before they are opened: a FIFO without a
	 * writer must not block (SIGALRM ends the test if it does), a socket cannot be opened. */
	char dir[] = "/tmp/ci-test-bytes-XXXXXX", path[64];
	alarm(20);
	if (mkdtemp(dir)) {
		snprintf(path, sizeof path, "%s/fifo", dir);
		err = mkfifo(path, 0600) == 0 ? ci_source_open(path, NULL, &src) : NULL;
		ok(err && err->code == CI_ERR_IO && strstr(err->message, "is a pipe (FIFO)"),
		   "FIFO refused without blocking: %s", err ? err->message : "(opened)");
		ci_error_destroy(err);
		unlink(path);
		snprintf(path, sizeof path, "%s/sock", dir);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
		int sock = socket(AF_UNIX, SOCK_STREAM, 0);
		err = sock >= 0 && bind(sock, (struct sockaddr *)&sa, sizeof sa) == 0
			      ? ci_source_open(path, NULL, &src) : NULL;
		ok(err && err->code == CI_ERR_IO && strstr(err->message, "is a socket"),
		   "socket refused: %s", err ? err->message : "(opened or not made)");
		ci_error_destroy(err);
		if (sock >= 0)
			close(sock);
		unlink(path);
		rmdir(dir);
	} else {
		ok(0, "FIFO refused without blocking (no temporary directory)");
		ok(0, "socket refused (no temporary directory)");
	}
	alarm(0);

	/* A whole synthetic record decodes from a buffer. */
	struct synth_spec spec;
	synth_defaults(&spec);
	size_t size = synth_size(&spec);
	uint8_t *rec = calloc(1, size);
	synth_build(&spec, rec);
	struct ci_model *m = NULL;
	err = ci_decode_buffer(rec, size, &m);
	ok(!err && m && m->launch_count == 10 && m->alloc_count == 5, "synthetic record decodes");
	ci_model_destroy(m);

	/* Every cut: a model (sections missing) or CI_ERR_CORRUPT, nothing else. */
	int bad = 0, models = 0;
	for (size_t len = 0; len <= size; len += 64) {
		m = NULL;
		err = ci_decode_buffer(rec, len, &m);
		if (err) {
			bad += err->code != CI_ERR_CORRUPT && err->code != CI_ERR_NO_RECORD;
			ci_error_destroy(err);
		} else {
			models++;
			uint64_t missing = 0;
			for (int k = 0; k < CI_SECTION_KIND_MAX; k++)
				missing += m->sections[k].missing;
			bad += len < size && missing == 0 && len < size - 4096;
			ci_model_destroy(m);
		}
	}
	ok(bad == 0, "every truncation ends in a model with missing entries or a corrupt error");
	ok(models > 0, "truncated records past the directory still decode (%d did)", models);

	/* Seeded random damage: never a crash, never an unexpected error code. */
	uint8_t *copy = malloc(size);
	int unexpected = 0, decoded = 0;
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(copy, rec, size);
		int flips = 1 + (int)(next_rand() % 8);
		for (int f = 0; f < flips; f++) {
			/* Aim most damage at the header, directory and tables where it matters. */
			size_t at = next_rand() % (iter & 1 ? size : 4096);
			copy[at] = (uint8_t)next_rand();
		}
		m = NULL;
		err = ci_decode_buffer(copy, size, &m);
		if (err) {
			unexpected += err->code != CI_ERR_CORRUPT && err->code != CI_ERR_VERSION &&
				      err->code != CI_ERR_NO_RECORD;
			ci_error_destroy(err);
			continue;
		}
		decoded++;
		/* Everything the model hands out must be usable as documented. */
		for (size_t i = 0; i < m->launch_count; i++) {
			const char *name = ci_model_function_name(m, m->launches[i].function);
			unexpected += name && strlen(name) >= m->strings_size;
			size_t nf;
			const uint64_t *fr = ci_model_stack(m, m->launches[i].stack, &nf);
			unexpected += nf && (fr < m->frames || fr + nf > m->frames + m->frame_count);
		}
		unexpected += m->strings[m->strings_size - 1] != 0;
		ci_model_destroy(m);
	}
	ok(unexpected == 0, "3000 damaged records: no unexpected error or unusable model");
	ok(decoded > 100, "most damaged records still decode (%d)", decoded);
	free(copy);
	free(rec);

	err = ci_decode_buffer("", 0, &m);
	ok(err && err->code == CI_ERR_NO_RECORD, "empty buffer: no record");
	ci_error_destroy(err);
	return done_testing();
}
