/* SPDX-License-Identifier: MIT */
/*
 * The few SASS instructions a GPU core's fault needs decoded: global and generic loads, stores
 * and atomics with a register address, so that the address an access went to can be read back
 * from the faulting lane's registers (a GPU core records no fault address).
 *
 * NVIDIA does not document the encoding.  What is decoded here was checked against nvdisasm
 * 13.5 on cubins that nvcc 13.0 wrote for sm_75, sm_80, sm_86, sm_89 and sm_90 (loads and stores
 * of 1 to 16 bytes, signed and unsigned, constant-cache loads, strong/volatile ones, atomics and
 * reductions with and without a result, immediate offsets up to 0x61a80): every operand below
 * agreed with nvdisasm's text on every instruction of those kinds in them (docs/GPUCORE.md,
 * "Instructions").  Anything else, uniform-register addresses included, is "not decoded": the
 * caller then shows the raw instruction and claims no address.
 *
 * The fields (128-bit instruction, little endian, lo = bits 0-63, hi = bits 64-127):
 *   lo[0:12)  opcode          lo[12:15) guard predicate (7 = PT), lo[15] its negation
 *   lo[16:24) destination     lo[24:32) address register Ra (255 = RZ)
 *   lo[32:40) data register   lo[40:64) signed byte offset
 *   hi[8]     .E (64-bit extended address)
 *   hi[9:12)  size of a load or store: U8, S8, U16, S16, 32, 64, 128
 *   hi[12]    sm_80+ loads and stores: the address register is a 64-bit pair ([Ra.64])
 */
#include <stdio.h>
#include <string.h>

#include "gpucore/gpucore.h"

enum form { F_LOAD, F_STORE, F_ATOM, F_RED, F_CAS };

struct sass_op {
	uint16_t opcode;
	enum form form;
	const char *name;
};

/* sm_80 (Ampere) to sm_90 (Hopper). */
static const struct sass_op ops_sm80[] = {
	{ 0x981, F_LOAD, "LDG" },
	{ 0x986, F_STORE, "STG" },
	{ 0x98a, F_ATOM, "ATOM" },
	{ 0x9a8, F_ATOM, "ATOMG" },
	{ 0x3a9, F_CAS, "ATOMG" },
	{ 0x98e, F_RED, "RED" },     /* REDG on sm_90 */
	{ 0x9a6, F_RED, "REDG" },    /* sm_90: floating-point reductions */
};

/* sm_75 (Turing): 0x981/0x986 take a uniform register there, and are not decoded. */
static const struct sass_op ops_sm75[] = {
	{ 0x381, F_LOAD, "LDG" },
	{ 0x386, F_STORE, "STG" },
	{ 0x38a, F_ATOM, "ATOM" },
	{ 0x3a8, F_ATOM, "ATOMG" },
	{ 0x3a9, F_CAS, "ATOMG" },
	{ 0x98e, F_RED, "RED" },
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void reg_name(uint32_t r, char *buf, size_t n)
{
	if (r == 255)
		snprintf(buf, n, "RZ");
	else
		snprintf(buf, n, "R%u", r);
}

bool ci_sass_decode_access(uint32_t major, uint32_t minor, const uint8_t insn[16], struct ci_sass_access *ret)
{
	memset(ret, 0, sizeof *ret);
	uint64_t lo = le64(insn), hi = le64(insn + 8);
	const struct sass_op *table;
	size_t n;
	bool turing = major == 7 && minor == 5;
	if (turing) {
		table = ops_sm75;
		n = sizeof ops_sm75 / sizeof ops_sm75[0];
	} else if (major == 8 || major == 9) {
		table = ops_sm80;
		n = sizeof ops_sm80 / sizeof ops_sm80[0];
	} else {
		return false;
	}
	const struct sass_op *op = NULL;
	for (size_t i = 0; i < n; i++)
		if (table[i].opcode == (lo & 0xfff))
			op = &table[i];
	if (!op || !(hi >> 8 & 1))
		return false; /* without .E the address is 32-bit: not among the checked encodings */
	bool wide = true;
	uint32_t width = 0;
	static const uint32_t widths[8] = { 1, 1, 2, 2, 4, 8, 16, 0 };
	static const char *const suffix[8] = { ".U8", ".S8", ".U16", ".S16", "", ".64", ".128", ".?" };
	uint32_t size_field = (uint32_t)(hi >> 9 & 7);
	if (op->form == F_LOAD || op->form == F_STORE) {
		width = widths[size_field];
		if (!turing)
			wide = hi >> 12 & 1;
		if (!wide)
			return false;
	}
	const char *name = op->name;
	if (op->form == F_RED && major == 9 && op->opcode == 0x98e)
		name = "REDG";
	ret->op = name;
	ret->kind = op->form == F_LOAD ? "read" : op->form == F_STORE ? "write" : "atomic";
	ret->width = width;
	ret->base_reg = (uint32_t)(lo >> 24 & 0xff);
	ret->base_wide = wide;
	int64_t off = (int64_t)(lo >> 40 & 0xffffff);
	if (off & 0x800000)
		off -= 0x1000000;
	ret->offset = off;
	uint32_t dst = (uint32_t)(lo >> 16 & 0xff), data = (uint32_t)(lo >> 32 & 0xff);
	ret->dst_reg = op->form == F_LOAD || op->form == F_ATOM || op->form == F_CAS ? (int32_t)dst : -1;
	if (ret->dst_reg == 255)
		ret->dst_reg = -1;

	char guard[16] = "", base[8], d[8], s[8], addr[48];
	uint32_t pg = (uint32_t)(lo >> 12 & 7);
	bool neg = lo >> 15 & 1;
	if (pg != 7 || neg)
		snprintf(guard, sizeof guard, "@%sP%s ", neg ? "!" : "", pg == 7 ? "T" : (char[2]){ (char)('0' + pg), 0 });
	reg_name(ret->base_reg, base, sizeof base);
	reg_name(dst, d, sizeof d);
	reg_name(data, s, sizeof s);
	char offtext[24] = "";
	if (off > 0)
		snprintf(offtext, sizeof offtext, "+0x%llx", (unsigned long long)off);
	else if (off < 0)
		snprintf(offtext, sizeof offtext, "-0x%llx", (unsigned long long)-off);
	snprintf(addr, sizeof addr, "[%s%s%s]", base, wide && !turing ? ".64" : "", offtext);
	switch (op->form) {
	case F_LOAD:
		snprintf(ret->text, sizeof ret->text, "%s%s.E%s %s, %s", guard, name, suffix[size_field], d, addr);
		break;
	case F_STORE:
		snprintf(ret->text, sizeof ret->text, "%s%s.E%s %s, %s", guard, name, suffix[size_field], addr, s);
		break;
	case F_ATOM:
	case F_CAS:
		snprintf(ret->text, sizeof ret->text, "%s%s.E%s %s, %s, %s", guard, name,
			 op->form == F_CAS ? ".CAS" : "", d, addr, s);
		break;
	case F_RED:
		snprintf(ret->text, sizeof ret->text, "%s%s.E %s, %s", guard, name, addr, s);
		break;
	}
	return true;
}
