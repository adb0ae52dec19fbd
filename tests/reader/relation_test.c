/* SPDX-License-Identifier: MIT */
/*
 * The fault page against the arguments (corefile/diagnose/xid.c, ci_fault_relate; docs/USAGE.md,
 * "The fault page against the arguments"), with the numbers of the first H200 run
 * (shared/gpu/): what each relation is comes from the run's own record of the bug, not from the
 * code under test.
 *
 * - Triton paged_kv_write stored to its first argument + 2^41 (the planted bug; docs/GPUCORE.md:
 *   the GPU core's store address 0x81d206010900 = arg 0x7fd206000000 + 2^41 + 4 x (132 x 128 +
 *   64)) into a 16 MiB buffer that starts at the argument: the page 0x81d206010000 is 2^41 +
 *   65,536 B from the argument, 131,072 x the 16 MiB from the buffer's start.
 * - miniengine --fault oob (pid 1554): the Xid 31 page 0xbfe2_b1200000 (xid-lines-h200-
 *   580.159.04.txt line 404); paged_attention's arg 2 0x7fe2b1600100 is 256 B past the end of
 *   #50 (0x7fe2b1400000, 2,097,152 B; run-2026-12-04/faults/oob/recorded/report.txt): the page is
 *   33,554,431 x 2 MiB from #50's start, exactly.
 * - compute-sanitizer's "nearest allocation of 512 bytes", 2,198,891,157,377 B below the Triton
 *   store: a 512 B buffer that far away fits in no way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/tap.h"
#include "diagnose/diagnose.h"
#include "model.h"

/* Whether S starts with START. */
static void like_start(const char *s, const char *start, const char *name)
{
	if (!ok(s && strncmp(s, start, strlen(start)) == 0, "%s", name))
		printf("# got '%s', want it to start with '%s'\n", s ? s : "(null)", start);
}

static struct ci_attribution arg(uint32_t i, uint64_t address, const struct ci_alloc *al,
				 enum ci_relation rel)
{
	return (struct ci_attribution){ .arg = i, .address = address, .alloc = al, .relation = rel };
}

static void test_triton(void)
{
	struct ci_alloc buf = { .id = 12, .address = 0x7fd206000000ull, .size = 16ull << 20 };
	struct ci_attribution a = arg(0, 0x7fd206000000ull, &buf, CI_REL_INSIDE);
	ci_fault_relate(&a, 0x81d206010000ull);
	ok(a.fault_related, "Triton: related");
	is_int(a.fault_fit, CI_FIT_POWER_OF_TWO, "Triton: the page fits arg 0 by a power of two");
	is_int(a.fault_from_arg, (int64_t)((1ull << 41) + 65536), "Triton: page - arg = 2^41 + 65,536");
	is_int(a.fault_pow2, 41, "Triton: k = 41");
	is_int(a.fault_pow2_rest, 65536, "Triton: rest 65,536");
	is_int(a.fault_multiple, 131072, "Triton: 2^41 is 131,072 x the 16 MiB buffer");
	is_int(a.fault_multiple_rest, 65536, "Triton: + 65,536 from its start");
	is_int(a.fault_from_end, (int64_t)((1ull << 41) + 65536 - (16ull << 20)), "Triton: from the end");

	/* The GPU core's exact address, not the page: the same relation, the rest 67,840. */
	a = arg(0, 0x7fd206000000ull, &buf, CI_REL_INSIDE);
	ci_fault_relate(&a, 0x81d206010900ull);
	is_int(a.fault_pow2_rest, 67840, "Triton, the core's address: rest 4 x (132 x 128 + 64)");

	/* The same store from an argument that points 4 MiB into the buffer: still 2^41, the rest
	 * within the buffer's size (the kernel's own offset). */
	a = arg(1, 0x7fd206400000ull, &buf, CI_REL_INSIDE);
	ci_fault_relate(&a, 0x81d206010000ull);
	is_int(a.fault_fit, CI_FIT_POWER_OF_TWO, "Triton, an interior argument: a power of two");
	is_int(a.fault_pow2_rest, 65536 - (4 << 20), "Triton, an interior argument: rest -4 MiB + 64 KiB");

	/* A 512 B buffer 2,198,891,157,377 B below the store (compute-sanitizer's neighbour): 2^41
	 * give or take 64 KiB does not reach it. */
	uint64_t store = 0x81d206010900ull, far = store - 2198891157377ull - 512;
	struct ci_alloc small = { .id = 3, .address = far, .size = 512 };
	a = arg(0, far, &small, CI_REL_INSIDE);
	ci_fault_relate(&a, 0x81d206010000ull);
	is_int(a.fault_fit, CI_FIT_NONE, "the 512 B neighbour compute-sanitizer named: no fit");
	is_int(a.fault_pow2, -1, "... not a power of two away");
	is_int(a.fault_multiple, 0, "... and no multiple (under 1 MiB)");
}

static void test_miniengine(void)
{
	struct ci_alloc kv = { .id = 50, .address = 0x7fe2b1400000ull, .size = 2097152 };
	struct ci_attribution a = arg(2, 0x7fe2b1600100ull, &kv, CI_REL_PAST_END);
	ci_fault_relate(&a, 0xbfe2b1200000ull);
	is_int(a.fault_fit, CI_FIT_MULTIPLE, "miniengine oob: the page fits arg 2 by a multiple");
	is_int(a.fault_multiple, 33554431, "miniengine oob: 33,554,431 x 2 MiB from #50's start");
	is_int(a.fault_multiple_rest, 0, "miniengine oob: exactly");
	is_int(a.fault_from_arg, (int64_t)(0xbfe2b1200000ull - 0x7fe2b1600100ull), "miniengine oob: from arg 2");
	is_int(a.fault_pow2, -1, "miniengine oob: 2^46 - 4 MiB - 256 is no power of two within 2 MiB");
	/* arg 3, 65,792 B past #50's end, the same allocation: the same multiple. */
	a = arg(3, 0x7fe2b1610100ull, &kv, CI_REL_PAST_END);
	ci_fault_relate(&a, 0xbfe2b1200000ull);
	is_int(a.fault_fit, CI_FIT_MULTIPLE, "miniengine oob: arg 3 fits too (the same allocation)");
}

static void test_edges(void)
{
	struct ci_alloc al = { .id = 1, .address = 0x7f0000000000ull, .size = 1 << 20 };
	struct ci_attribution a;
	/* Within one size past the end, and before the start. */
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address + (1 << 20) + (512 << 10));
	is_int(a.fault_fit, CI_FIT_REACH, "512 KiB past the end of a 1 MiB buffer: reach");
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address + (2 << 20) + 4096);
	is_int(a.fault_fit, CI_FIT_NONE, "one size and a page past the end: out of reach, no "
					 "clean multiple");
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address + (2 << 20));
	is_int(a.fault_fit, CI_FIT_MULTIPLE, "exactly 2 sizes from the start: a multiple");
	is_int(a.fault_multiple, 2, "... q = 2");
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address - (1 << 20));
	is_int(a.fault_fit, CI_FIT_REACH, "one size before the start: reach");
	/* Multiples: the page right before the q-th boundary holds an access just below it. */
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address + 5 * (1ull << 20) - 4096);
	is_int(a.fault_multiple, 5, "the page before 5 x 1 MiB: q = 5");
	is_int(a.fault_multiple_rest, -4096, "... rest -4,096");
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address - 7 * (1ull << 20));
	is_int(a.fault_multiple, -7, "7 MiB below the start: q = -7");
	a = arg(0, al.address, &al, CI_REL_INSIDE);
	ci_fault_relate(&a, al.address + 5 * (1ull << 20) + 8192);
	is_int(a.fault_fit, CI_FIT_NONE, "5 x 1 MiB + 8 KiB: no clean multiple");
	/* Negative powers of two; too close to be one. */
	a = arg(0, 0x7f0000000000ull, NULL, CI_REL_UNKNOWN);
	ci_fault_relate(&a, 0x7f0000000000ull - (1ull << 40));
	is_int(a.fault_pow2, 40, "arg - 2^40: k = 40");
	is_int(a.fault_from_arg, -(int64_t)(1ull << 40), "... from the argument -2^40");
	is_int(a.fault_pow2_rest, 0, "... rest 0");
	is_int(a.fault_from_start, 0, "... no allocation, no distances from it");
	a = arg(0, 0x7f0000000000ull, NULL, CI_REL_UNKNOWN);
	ci_fault_relate(&a, 0x7f0000000000ull + (32ull << 20));
	is_int(a.fault_pow2, -1, "2^25 from the argument: too close to be told from chance");
	/* 2^k - x, x under the slack: the nearer power (2^30 - 16 KiB). */
	a = arg(0, 0x7f0000000000ull, NULL, CI_REL_UNKNOWN);
	ci_fault_relate(&a, 0x7f0000000000ull + (1ull << 30) - 16384);
	is_int(a.fault_pow2, 30, "2^30 - 16 KiB: k = 30");
	is_int(a.fault_pow2_rest, -16384, "... rest -16,384");
	/* Hostile: the page at the top of the address space, the argument at 0. */
	a = arg(0, 0x1000, NULL, CI_REL_UNKNOWN);
	ci_fault_relate(&a, 0xfffffffffffff000ull);
	ok(a.fault_pow2 < 63, "a page 2^64 - 8 KiB away: no overflow");
	struct ci_alloc huge = { .id = 2, .address = 0x1000, .size = UINT64_MAX - 0x1000 };
	a = arg(0, 0x1000, &huge, CI_REL_INSIDE);
	ci_fault_relate(&a, 0xfffffffffffff000ull);
	is_int(a.fault_multiple, 0, "an allocation of 2^64 bytes: no multiple");
}

/* Element sizes from a C++ kernel's parameter list (base/demangle.c, ci_param_element): the
 * names as g++ mangles them, the types as c++filt prints them. */
static void test_elements(void)
{
	/* cuBLAS's splitKreduce_kernel<32, 16, int, float, float, float, float, true, false,
	 * false>(cublasSplitKParams<float>, float const*, float const*, float*, float const*, float
	 * const*, float const*, float const*, float*, void*, long, void*, int*) */
	char *name = ci_demangle("_Z19splitKreduce_kernelILi32ELi16EiffffLb1ELb0ELb0EEv18cublasSplitKParamsIT5_"
				 "EPKT2_PKT3_PT4_S5_S5_S5_S5_PS1_PvlSB_Pi");
	char type[24];
	if (!ok(name != NULL, "splitKreduce: demangled")) {
		return;
	}
	is_int(ci_param_element(name, 0, type, sizeof type), 0, "splitKreduce arg 0: a struct by value");
	is_int(ci_param_element(name, 1, type, sizeof type), 4, "splitKreduce arg 1: float const*, 4");
	is_str(type, "float", "... float");
	is_int(ci_param_element(name, 9, type, sizeof type), 0, "splitKreduce arg 9: void*, no size");
	is_int(ci_param_element(name, 12, type, sizeof type), 4, "splitKreduce arg 12: int*, 4");
	is_int(ci_param_element(name, 13, type, sizeof type), 0, "splitKreduce arg 13: there is none");
	free(name);
	/* attn(float const*, __half*, int, float4*, S*, float**) */
	name = ci_demangle("_Z4attnPKfP6__halfiP6float4P1SPPf");
	if (name) {
		is_int(ci_param_element(name, 1, type, sizeof type), 2, "attn arg 1: __half*, 2");
		is_int(ci_param_element(name, 2, type, sizeof type), 0, "attn arg 2: int, no pointer");
		is_int(ci_param_element(name, 3, type, sizeof type), 16, "attn arg 3: float4*, 16");
		is_int(ci_param_element(name, 4, type, sizeof type), 0, "attn arg 4: a struct pointer");
		is_int(ci_param_element(name, 5, type, sizeof type), 0, "attn arg 5: float**, a pointer's pointer");
	} else {
		ok(0, "attn: demangled");
	}
	free(name);
	/* Triton's and extern "C" names, and hostile ones. */
	is_int(ci_param_element("paged_kv_write", 0, type, sizeof type), 0, "Triton: no parameter list");
	is_int(ci_param_element("", 0, type, sizeof type), 0, "empty");
	is_int(ci_param_element(NULL, 0, type, sizeof type), 0, "NULL");
	is_int(ci_param_element(")", 0, type, sizeof type), 0, "a lone )");
	is_int(ci_param_element("k(float*))", 0, type, sizeof type), 0, "unbalanced");
	is_int(ci_param_element("k(((float*)", 0, type, sizeof type), 0, "unclosed");
	is_int(ci_param_element("k(float * const)", 0, type, sizeof type), 4, "float * const: 4");
	is_int(ci_param_element("k(const double* __restrict__)", 0, type, sizeof type), 8,
	       "const double* __restrict__: 8");
	is_int(ci_param_element("k(std::array<float*, 2ul>)", 0, type, sizeof type), 0,
	       "an array of pointers by value: none");
	/* The relation in elements, as the report words it. */
	struct ci_alloc buf = { .id = 12, .address = 0x7fd206000000ull, .size = 16ull << 20 };
	struct ci_attribution a = arg(1, 0x7fd206000000ull, &buf, CI_REL_INSIDE);
	ci_fault_relate(&a, 0x81d206010000ull);
	a.element_size = 4;
	snprintf(a.element_type, sizeof a.element_type, "float");
	char text[256];
	ci_fault_fit_phrase(&a, text, sizeof text);
	like_start(text, "arg 1 + 2,199,023,321,088 B = 549,755,830,272 float elements (2^41",
		   "the page in float elements");
	a.element_size = 8;
	a.fault_from_arg += 4;
	snprintf(a.element_type, sizeof a.element_type, "double");
	ci_fault_fit_phrase(&a, text, sizeof text);
	like_start(text, "arg 1 + 2,199,023,321,092 B = 274,877,915,136 double elements + 4 B",
		   "not a whole number of elements: the rest in bytes");
}

int main(void)
{
	test_elements();
	test_triton();
	test_miniengine();
	test_edges();
	return done_testing();
}
