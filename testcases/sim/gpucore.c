/* GPU core dumps, as the driver writes them with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1: when a
 * kernel selected by CUDASIM_FAULT faults, the simulator writes a small but valid dump in the
 * driver's format (the one corefile/gpucore.c reads and docs/GPUCORE.md describes) to the file
 * CUDA_COREDUMP_FILE names, then aborts the process as the driver does unless told not to.
 *
 * What the dump holds (docs/SIMULATOR.md, "GPU core dumps"): every device; the faulting context;
 * one module, the faulting kernel's, with a relocated cubin built here (a symbol for the kernel,
 * its code: the faulting load or store at the error PC and an EXIT after it, and a DWARF line
 * table from the PTX's .loc lines or, without them, from the PTX text itself); the grid; every
 * SM, the faulting block on one of them with its warps and lanes; the faulting lane's exception,
 * error PC and halted PC; registers that hold the planted address where CUDASIM_FAULT gives one;
 * the kernel's parameters; and the metadata.  No memory is ever dumped.
 */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The driver's defaults and its bits of CUDA_COREDUMP_GENERATION_FLAGS. */
#define GC_DEFAULT_FILE "core_%t_%h_%p.nvcudmp"
#define GC_SKIP_NONRELOCATED (1u << 0)
#define GC_SKIP_ABORT (1u << 4)

static struct {
	char file[1024];     /* CUDA_COREDUMP_FILE, or the default */
	unsigned flags;
	int no_abort;        /* skip_abort, or CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=0 */
	int progress;        /* CUDA_COREDUMP_SHOW_PROGRESS=1 */
	atomic_int written;  /* one dump per process, as the driver stops at the first exception */
} gc;

static int env_true(const char *v)
{
	return v && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0);
}

CUresult sim_gpucore_configure(void)
{
	if (!env_true(getenv("CUDA_ENABLE_COREDUMP_ON_EXCEPTION")))
		return CUDA_SUCCESS;
	sim.cfg.gpucore = 1;
	const char *file = getenv("CUDA_COREDUMP_FILE");
	snprintf(gc.file, sizeof gc.file, "%s", file && *file ? file : GC_DEFAULT_FILE);
	const char *cpu = getenv("CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION");
	gc.no_abort = cpu && strcmp(cpu, "0") == 0;
	gc.progress = env_true(getenv("CUDA_COREDUMP_SHOW_PROGRESS"));
	/* The flags the 580-series driver accepts; it ignores others with a message. */
	static const struct { const char *name; unsigned bit; } known[] = {
		{"skip_nonrelocated_elf_images", 1u << 0}, {"skip_global_memory", 1u << 1},
		{"skip_shared_memory", 1u << 2}, {"skip_local_memory", 1u << 3},
		{"skip_abort", 1u << 4}, {"skip_constbank_memory", 1u << 5},
	};
	const char *flags = getenv("CUDA_COREDUMP_GENERATION_FLAGS");
	char *list = flags ? strdup(flags) : NULL, *save = NULL;
	for (char *f = list ? strtok_r(list, ",", &save) : NULL; f; f = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < sizeof known / sizeof known[0] && strcmp(f, known[i].name); i++)
			;
		if (i < sizeof known / sizeof known[0])
			gc.flags |= known[i].bit;
		else
			fprintf(stderr, "Ignoring unknown coredump flag '%s'\n", f);
	}
	free(list);
	if (gc.flags & GC_SKIP_ABORT)
		gc.no_abort = 1;
	/* The dump shows the faulting kernel's parameters: launches of watched kernels keep them. */
	for (struct sim_watch *w = sim.cfg.watches; w; w = w->next)
		if (w->nfault && w->name[0] != '.')
			w->needs_args = 1;
	return CUDA_SUCCESS;
}

/* ---- bytes -------------------------------------------------------------------------------- */

struct gc_buf {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

static void put(struct gc_buf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n)
			cap *= 2;
		unsigned char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_le(struct gc_buf *b, uint64_t v, unsigned bytes)
{
	unsigned char le[8];
	for (unsigned i = 0; i < bytes; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, bytes);
}
#define put8(b, v) put_le(b, v, 1)
#define put16(b, v) put_le(b, v, 2)
#define put32(b, v) put_le(b, v, 4)
#define put64(b, v) put_le(b, v, 8)

static void put_uleb(struct gc_buf *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		put8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void put_sleb(struct gc_buf *b, int64_t v)
{
	for (;;) {
		unsigned char c = v & 0x7f;
		v >>= 7;
		int done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		put8(b, c | (done ? 0 : 0x80));
		if (done)
			break;
	}
}

/* Offset of S in string table B (appended). */
static uint32_t put_str(struct gc_buf *b, const char *s)
{
	uint32_t off = (uint32_t)b->n;
	put(b, s, strlen(s) + 1);
	return off;
}

/* ---- ELF files made of sections ------------------------------------------------------------ */

struct gc_sec {
	uint32_t name, type, link, info;
	uint64_t flags, addr, entsize, align;
	struct gc_buf data;
};

struct gc_elf {
	struct gc_sec *secs;
	size_t n, cap;
	struct gc_buf shstr;
	int oom;
};

/* A new section (index returned); its bytes go into the returned section's data. */
static struct gc_sec *add_sec(struct gc_elf *e, const char *name, uint32_t type, uint64_t entsize,
			      uint32_t link, uint32_t info, uint32_t *index)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 32;
		struct gc_sec *s = realloc(e->secs, cap * sizeof *s);
		if (!s) {
			e->oom = 1;
			return NULL;
		}
		e->secs = s;
		e->cap = cap;
	}
	if (e->n == 0) { /* section 0, SHT_NULL */
		e->secs[0] = (struct gc_sec){0};
		put_str(&e->shstr, "");
		e->n = 1;
	}
	struct gc_sec *s = &e->secs[e->n];
	*s = (struct gc_sec){.name = put_str(&e->shstr, name), .type = type, .link = link, .info = info,
			     .entsize = entsize, .align = 8};
	if (index)
		*index = (uint32_t)e->n;
	e->n++;
	return s;
}

static void free_elf(struct gc_elf *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->secs[i].data.p);
	free(e->secs);
	free(e->shstr.p);
}

/* Lay the file out: the ELF header, every section's bytes, .shstrtab, then the section table
 * (last, as the driver writes it). */
static int finish_elf(struct gc_elf *e, uint16_t type, uint32_t eflags, uint32_t version, struct gc_buf *out)
{
	uint32_t shstrndx;
	struct gc_sec *shs = add_sec(e, ".shstrtab", 3 /* SHT_STRTAB */, 0, 0, 0, &shstrndx);
	if (!shs || e->oom)
		return -1;
	put(&shs->data, e->shstr.p, e->shstr.n);
	uint64_t *offs = calloc(e->n, sizeof *offs);
	if (!offs)
		return -1;
	uint64_t off = 64;
	for (size_t i = 1; i < e->n; i++) {
		off = (off + 7) & ~(uint64_t)7;
		offs[i] = off;
		off += e->secs[i].data.n;
	}
	uint64_t shoff = (off + 7) & ~(uint64_t)7;
	static const unsigned char ident[16] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LSB */, 1,
						51 /* ELFOSABI_CUDA */, 7 /* ABI version */};
	put(out, ident, sizeof ident);
	put16(out, type);
	put16(out, 190); /* EM_CUDA */
	put32(out, version);
	put64(out, 0);   /* e_entry */
	put64(out, 0);   /* e_phoff */
	put64(out, shoff);
	put32(out, eflags);
	put16(out, 64);  /* e_ehsize */
	put16(out, 0);
	put16(out, 0);
	put16(out, 64);  /* e_shentsize */
	put16(out, e->n < 0xff00 ? (uint16_t)e->n : 0);
	put16(out, shstrndx < 0xff00 ? (uint16_t)shstrndx : 0xffff);
	for (size_t i = 1; i < e->n; i++) {
		while (out->n < offs[i])
			put8(out, 0);
		put(out, e->secs[i].data.p, e->secs[i].data.n);
	}
	while (out->n < shoff)
		put8(out, 0);
	for (size_t i = 0; i < e->n; i++) {
		const struct gc_sec *s = &e->secs[i];
		/* Section 0 carries the real count and name table index when they do not fit. */
		int big = i == 0 && e->n >= 0xff00;
		put32(out, s->name);
		put32(out, s->type);
		put64(out, s->flags);
		put64(out, s->addr);
		put64(out, i ? offs[i] : 0);
		put64(out, i ? s->data.n : big ? e->n : 0);
		put32(out, big ? shstrndx : s->link);
		put32(out, s->info);
		put64(out, i ? s->align : 0);
		put64(out, s->entsize);
	}
	free(offs);
	return out->oom ? -1 : 0;
}

/* ---- the kernel's cubin ----------------------------------------------------------------------- */

/* sm_90 instructions (checked with nvdisasm; docs/GPUCORE.md): {low 64 bits, high 64 bits}. */
static const uint64_t INSN_LDC_R1[2] = {0x00000a00ff017b82ull, 0x000fe20000000800ull};   /* LDC R1, c[0x0][0x28] */
static const uint64_t INSN_NOP[2] = {0x0000000000007918ull, 0x000fc00000000000ull};
static const uint64_t INSN_EXIT[2] = {0x000000000000794dull, 0x000fea0003800000ull};
static const uint64_t INSN_LDG[2] = {0x0000000402007981ull, 0x000ea2000c1e1900ull};      /* LDG.E R0, desc[UR4][R2.64] */
static const uint64_t INSN_STG[2] = {0x0000000002007986ull, 0x004fe2000c101904ull};      /* STG.E desc[UR4][R2.64], R0 */
static const uint64_t INSN_RED[2] = {0x000000000200798eull, 0x002fe2000c10e184ull};      /* REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R0 */

#define GC_CODE_SIZE 0x100u
#define GC_FAULT_OFFSET 0x80u
#define GC_CODE_BASE 0x7ff000000000ull /* made-up GPU addresses of the module's code */
#define GC_NREGS 8u

/* The source position the dump gives the faulting instruction: the PTX's .loc line of the
 * kernel's first global access, else that access's line in the PTX text ("KERNEL.ptx"). */
static int gc_source(const struct sim_image *img, const struct sim_entry *e, char *file, size_t n, unsigned *line)
{
	if (e->loc_line && img) {
		for (unsigned i = 0; i < img->nfiles; i++)
			if (img->files[i].num == e->loc_file) {
				snprintf(file, n, "%s", img->files[i].name);
				*line = e->loc_line;
				return 1;
			}
	}
	if (e->access_line) {
		snprintf(file, n, "%s.ptx", e->name);
		*line = e->access_line;
		return 1;
	}
	return 0;
}

/* DWARF 2 line table: every address of the function at LINE of FILE. */
static void gc_debug_line(struct gc_buf *b, uint64_t base, const char *path, unsigned line)
{
	char dir[1024];
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 0, path);
	struct gc_buf hdr = {0}, prog = {0};
	put8(&hdr, 1);                       /* minimum_instruction_length */
	put8(&hdr, 1);                       /* default_is_stmt */
	put8(&hdr, (unsigned char)-5);       /* line_base */
	put8(&hdr, 14);                      /* line_range */
	put8(&hdr, 10);                      /* opcode_base */
	static const unsigned char lengths[9] = {0, 1, 1, 1, 1, 0, 0, 0, 1};
	put(&hdr, lengths, sizeof lengths);
	if (*dir)
		put_str(&hdr, dir);
	put8(&hdr, 0);                       /* end of include_directories */
	put_str(&hdr, name);
	put_uleb(&hdr, *dir ? 1 : 0);        /* directory */
	put_uleb(&hdr, 0);                   /* mtime */
	put_uleb(&hdr, 0);                   /* length */
	put8(&hdr, 0);                       /* end of file_names */
	put8(&prog, 0);                      /* DW_LNE_set_address */
	put_uleb(&prog, 9);
	put8(&prog, 2);
	put64(&prog, base);
	put8(&prog, 3);                      /* DW_LNS_advance_line */
	put_sleb(&prog, (int64_t)line - 1);
	put8(&prog, 1);                      /* DW_LNS_copy */
	put8(&prog, 2);                      /* DW_LNS_advance_pc */
	put_uleb(&prog, GC_CODE_SIZE);
	put8(&prog, 0);                      /* DW_LNE_end_sequence */
	put_uleb(&prog, 1);
	put8(&prog, 1);
	put32(b, (uint32_t)(2 + 4 + hdr.n + prog.n)); /* unit_length */
	put16(b, 2);                         /* version */
	put32(b, (uint32_t)hdr.n);           /* header_length */
	put(b, hdr.p, hdr.n);
	put(b, prog.p, prog.n);
	b->oom |= hdr.oom | prog.oom;
	free(hdr.p);
	free(prog.p);
}

/* A cubin with the kernel E at BASE: symbol, code, line table (relocated: absolute addresses;
 * with BASE 0, the image as loaded). */
static int gc_cubin(const struct sim_image *img, const struct sim_entry *e, uint64_t base, const uint64_t *access,
		    struct gc_buf *out)
{
	struct gc_elf elf = {0};
	uint32_t strtab, text;
	struct gc_sec *s = add_sec(&elf, ".strtab", 3, 0, 0, 0, &strtab);
	if (!s)
		return -1;
	put8(&s->data, 0);
	char textname[600];
	snprintf(textname, sizeof textname, ".text.%s", e->name);
	uint32_t sym_text = put_str(&s->data, textname), sym_fn = put_str(&s->data, e->name);
	struct gc_sec *sym = add_sec(&elf, ".symtab", 2 /* SHT_SYMTAB */, 24, strtab, 2, NULL);
	struct gc_sec *code = add_sec(&elf, textname, 1 /* SHT_PROGBITS */, 0, 0, 0, &text);
	if (!sym || !code) {
		free_elf(&elf);
		return -1;
	}
	code = &elf.secs[text];
	code->flags = 0x6; /* SHF_ALLOC | SHF_EXECINSTR */
	code->addr = base;
	code->align = 128;
	for (unsigned off = 0; off < GC_CODE_SIZE; off += 16) {
		const uint64_t *insn = off == 0 ? INSN_LDC_R1
				       : off == GC_FAULT_OFFSET ? (access ? access : INSN_NOP)
				       : off == GC_FAULT_OFFSET + 16 ? INSN_EXIT : INSN_NOP;
		put64(&code->data, insn[0]);
		put64(&code->data, insn[1]);
	}
	sym = &elf.secs[text - 1];
	put(&sym->data, (unsigned char[24]){0}, 24);
	/* The section symbol, then the kernel: FUNC GLOBAL, STO_CUDA_ENTRY (0x10) as nvcc writes. */
	put32(&sym->data, sym_text);
	put8(&sym->data, 3 /* STB_LOCAL, STT_SECTION */);
	put8(&sym->data, 0);
	put16(&sym->data, text);
	put64(&sym->data, base);
	put64(&sym->data, 0);
	put32(&sym->data, sym_fn);
	put8(&sym->data, 0x12 /* STB_GLOBAL, STT_FUNC */);
	put8(&sym->data, 0x10);
	put16(&sym->data, text);
	put64(&sym->data, base);
	put64(&sym->data, GC_CODE_SIZE);
	char file[600];
	unsigned line;
	if (gc_source(img, e, file, sizeof file, &line)) {
		struct gc_sec *dl = add_sec(&elf, ".debug_line", 1, 0, 0, 0, NULL);
		if (dl) {
			dl->align = 1;
			gc_debug_line(&dl->data, base, file, line);
		}
	}
	/* e_flags as nvcc writes them for sm_90; e_version carries the ABI (0x80). */
	int r = finish_elf(&elf, 2 /* ET_EXEC */, 0x5a0d5a, 0x80, out);
	free_elf(&elf);
	return r;
}

/* ---- the dump ----------------------------------------------------------------------------------- */

/* CUDBGException_t for the sticky error a kernel raised. */
static uint32_t gc_exception(const struct sim_fault *f)
{
	switch (f->error) {
	case CUDA_ERROR_ILLEGAL_ADDRESS: return f->xid == 13 ? 5 /* WARP_OUT_OF_RANGE_ADDRESS */ : 14;
	case CUDA_ERROR_ASSERT: return 12;                /* WARP_ASSERT */
	case CUDA_ERROR_HARDWARE_STACK_ERROR: return 9;   /* WARP_HARDWARE_STACK_OVERFLOW */
	case CUDA_ERROR_ILLEGAL_INSTRUCTION: return 4;    /* WARP_ILLEGAL_INSTRUCTION */
	case CUDA_ERROR_MISALIGNED_ADDRESS: return 6;     /* WARP_MISALIGNED_ADDRESS */
	case CUDA_ERROR_INVALID_ADDRESS_SPACE: return 7;  /* WARP_INVALID_ADDRESS_SPACE */
	case CUDA_ERROR_INVALID_PC: return 8;             /* WARP_INVALID_PC */
	default: return 0xffffffffu;                      /* "Device Unknown Exception" */
	}
}

static const char *gc_exception_name(uint32_t x)
{
	switch (x) {
	case 4: return "CUDBG_EXCEPTION_WARP_ILLEGAL_INSTRUCTION";
	case 5: return "CUDBG_EXCEPTION_WARP_OUT_OF_RANGE_ADDRESS";
	case 6: return "CUDBG_EXCEPTION_WARP_MISALIGNED_ADDRESS";
	case 7: return "CUDBG_EXCEPTION_WARP_INVALID_ADDRESS_SPACE";
	case 8: return "CUDBG_EXCEPTION_WARP_INVALID_PC";
	case 9: return "CUDBG_EXCEPTION_WARP_HARDWARE_STACK_OVERFLOW";
	case 12: return "CUDBG_EXCEPTION_WARP_ASSERT";
	case 14: return "CUDBG_EXCEPTION_WARP_ILLEGAL_ADDRESS";
	default: return "CUDBG_EXCEPTION_UNKNOWN";
	}
}

/* The name CUDA_COREDUMP_FILE's template gives: %h host, %p pid, %t seconds since the epoch. */
static void gc_file_name(char *out, size_t n)
{
	char host[256] = "localhost";
	gethostname(host, sizeof host - 1);
	size_t o = 0;
	for (const char *p = gc.file; *p && o + 1 < n; p++) {
		char tmp[300];
		const char *add = NULL;
		if (*p == '%' && p[1]) {
			switch (p[1]) {
			case 'h': add = host; break;
			case 'p': snprintf(tmp, sizeof tmp, "%d", (int)getpid()); add = tmp; break;
			case 't': snprintf(tmp, sizeof tmp, "%lld", (long long)time(NULL)); add = tmp; break;
			case '%': add = "%"; break;
			}
		}
		if (add) {
			int w = snprintf(out + o, n - o, "%s", add);
			o += w > 0 ? ((size_t)w < n - o ? (size_t)w : n - o - 1) : 0;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = 0;
}

#define ROW_DEV 88u
#define ROW_CTX 40u
#define ROW_GRID 136u
#define ROW_SM 48u
#define ROW_CTA 56u
#define ROW_WARP 64u
#define ROW_LANE 56u

static int gc_build(const struct sim_work *w, struct sim_ctx *ctx, struct gc_buf *out, uint32_t *exception)
{
	const struct sim_fault *f = w->fault;
	const struct sim_entry *e = w->u.kernel.entry;
	struct sim_module *module;
	sim_launch_entry(w->u.kernel.func, &module, NULL);
	const struct sim_image *img = module ? module->img
				      : sim_obj_is(w->u.kernel.func, SIM_KIND_KERNEL)
					      ? ((struct sim_kernel *)w->u.kernel.func)->library->img : NULL;
	uint64_t module_handle = module ? (uint64_t)(uintptr_t)module
				 : sim_obj_is(w->u.kernel.func, SIM_KIND_KERNEL)
					 ? (uint64_t)(uintptr_t)((struct sim_kernel *)w->u.kernel.func)->library : 0;
	unsigned entry_index = img ? (unsigned)(e - img->entries) : 0;
	uint64_t base = GC_CODE_BASE + (uint64_t)entry_index * 0x10000, error_pc = base + GC_FAULT_OFFSET;
	const unsigned *gd = w->u.kernel.grid, *bd = w->u.kernel.block;
	uint64_t nblocks = (uint64_t)gd[0] * gd[1] * gd[2], nthreads = (uint64_t)bd[0] * bd[1] * bd[2];
	uint64_t block = f->has_block ? f->block : nblocks - 1, thread = f->has_thread ? f->thread : 0;
	if (block >= nblocks || thread >= nthreads) {
		sim_log("CUDASIM_FAULT: %s %lu is past the launch of %s (%llu blocks of %llu threads): the GPU core "
			"names the last one", block >= nblocks ? "block" : "thread",
			block >= nblocks ? f->block : f->thread, e->name, (unsigned long long)nblocks,
			(unsigned long long)nthreads);
		if (block >= nblocks)
			block = nblocks - 1;
		if (thread >= nthreads)
			thread = nthreads - 1;
	}
	uint32_t bidx[3] = {(uint32_t)(block % gd[0]), (uint32_t)(block / gd[0] % gd[1]), (uint32_t)(block / gd[0] / gd[1])};
	unsigned nsms = 132, sm = (unsigned)(block % nsms);
	unsigned nwarps = (unsigned)((nthreads + 31) / 32), fwarp = (unsigned)(thread / 32), flane = (unsigned)(thread % 32);
	*exception = gc_exception(f);
	uint64_t addr = 0;
	int has_addr = f->xid != 13 && sim_fault_address(w, &addr);
	enum sim_fault_access access = f->access == SIM_ACCESS_DEFAULT ? SIM_ACCESS_READ : f->access;
	const uint64_t *insn = !has_addr ? NULL
			       : access == SIM_ACCESS_WRITE ? INSN_STG : access == SIM_ACCESS_ATOMIC ? INSN_RED : INSN_LDG;

	struct gc_elf elf = {0};
	struct gc_buf strtab = {0};
	put8(&strtab, 0);
	uint32_t s_sm90 = put_str(&strtab, "sm_90"), s_type = put_str(&strtab, "GH100 (cudasim)"),
		 s_gen = put_str(&strtab, "cudasim");
	char name[200];
	int ord = ctx->dev->ordinal;
	uint32_t devtbl, ctxtbl, modtbl, gridtbl, smtbl, ctatbl, wptbl;

	struct gc_sec *s = add_sec(&elf, ".cudbg.devtbl", 0x80000009, ROW_DEV, 0, 0, &devtbl);
	for (int d = 0; s && d < sim.cfg.ndevices; d++) {
		struct gc_buf *b = &elf.secs[devtbl].data;
		put64(b, put_str(&strtab, sim.devices[d].name));
		put64(b, s_type);
		put64(b, s_sm90);
		/* devId, PCI bus and device (cuDeviceGetPCIBusId: 0000:18:00.0 for device 0), SMs,
		 * warps per SM, lanes, registers, predicates, 9.0, 16-byte instructions, status,
		 * uniform registers and predicates, convergence barriers, padding. */
		const uint32_t v[] = {(uint32_t)d, 0x18u + (uint32_t)d, 0, nsms, 64, 32, 255, 8, 9, 0, 16, 0, 63, 8, 16, 0};
		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
			put32(b, v[i]);
	}
	snprintf(name, sizeof name, ".cudbg.ctxtbl.dev%d", ord);
	if ((s = add_sec(&elf, name, 0x8000000a, ROW_CTX, devtbl, (uint32_t)ord, &ctxtbl))) {
		put64(&s->data, (uint64_t)(uintptr_t)ctx);
		put64(&s->data, 0x7fff00000000ull); /* shared, local and global windows */
		put64(&s->data, 0x7ffe00000000ull);
		put64(&s->data, 0);
		put32(&s->data, (uint32_t)ord);
		put32(&s->data, (uint32_t)ctx->tid);
	}
	snprintf(name, sizeof name, ".cudbg.modtbl.dev%d.ctx0", ord);
	if ((s = add_sec(&elf, name, 0x80000010, 8, ctxtbl, 0, &modtbl)))
		put64(&s->data, module_handle);
	snprintf(name, sizeof name, ".cudbg.relfimg.dev%d.ctx0", ord);
	if ((s = add_sec(&elf, name, 0x80000007, 0, modtbl, 0, NULL)) && gc_cubin(img, e, base, insn, &s->data))
		s->data.oom = 1;
	if (!(gc.flags & GC_SKIP_NONRELOCATED)) {
		snprintf(name, sizeof name, ".cudbg.elfimg.dev%d.ctx0", ord);
		if ((s = add_sec(&elf, name, 0x80000006, 0, modtbl, 0, NULL)) && gc_cubin(img, e, 0, insn, &s->data))
			s->data.oom = 1;
	}
	snprintf(name, sizeof name, ".cudbg.gridtbl.dev%d", ord);
	if ((s = add_sec(&elf, name, 0x8000000c, ROW_GRID, devtbl, (uint32_t)ord, &gridtbl))) {
		struct gc_buf *b = &s->data;
		put64(b, w->nth);                                   /* gridId64: the launch's N */
		put64(b, (uint64_t)(uintptr_t)ctx);
		put64(b, (uint64_t)(uintptr_t)w->u.kernel.func);
		put64(b, base);                                     /* functionEntry */
		put64(b, module_handle);
		put64(b, 0);                                        /* parent grid */
		put64(b, 0x210);                                    /* sm_90's parameters in bank 0 */
		const uint32_t v[] = {2 /* application */, 0 /* CPU */, 2 /* Active */, GC_NREGS, gd[0], gd[1], gd[2],
				      bd[0], bd[1], bd[2], 0, (uint32_t)w->u.kernel.tid, 1, 1, 1, 0, 0, 0, 0, 0};
		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
			put32(b, v[i]);
	}
	snprintf(name, sizeof name, ".cudbg.param.dev%d.grid0", ord);
	if ((s = add_sec(&elf, name, 0x80000012, 0, gridtbl, 0, NULL))) {
		for (size_t i = 0; i < e->param_bytes; i++)
			put8(&s->data, 0);
		/* Every parameter of up to 8 bytes, as the kernel sees it (padding stays 0). */
		for (unsigned k = 0; k < e->nparams && k < w->u.kernel.argc && s->data.p; k++)
			if (w->u.kernel.argv && e->params[k].size <= 8 &&
			    e->params[k].offset + e->params[k].size <= s->data.n)
				for (unsigned i = 0; i < e->params[k].size; i++)
					s->data.p[e->params[k].offset + i] = (unsigned char)(w->u.kernel.argv[k] >> (8 * i));
	}
	snprintf(name, sizeof name, ".cudbg.smtbl.dev%d", ord);
	if ((s = add_sec(&elf, name, 0x8000000b, ROW_SM, devtbl, (uint32_t)ord, &smtbl)))
		for (unsigned i = 0; i < nsms; i++) {
			int here = i == sm;
			put32(&s->data, i);
			put32(&s->data, 0);
			put32(&s->data, here ? *exception : 0);
			put32(&s->data, here);
			put64(&s->data, here ? error_pc : 0);
			for (int k = 0; k < 4; k++)
				put32(&s->data, 0);
			put64(&s->data, 0);
		}
	snprintf(name, sizeof name, ".cudbg.ctatbl.dev%d.sm%u", ord, sm);
	if ((s = add_sec(&elf, name, 0x8000000d, ROW_CTA, smtbl, sm, &ctatbl))) {
		put64(&s->data, w->nth);
		/* blockIdx, padding, clusterIdx (0,0,0), padding, clusterDim (1,1,1), padding */
		const uint32_t v[] = {bidx[0], bidx[1], bidx[2], 0, 0, 0, 0, 0, 1, 1, 1, 0};
		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
			put32(&s->data, v[i]);
	}
	snprintf(name, sizeof name, ".cudbg.wptbl.dev%d.sm%u.cta0", ord, sm);
	if ((s = add_sec(&elf, name, 0x8000000e, ROW_WARP, ctatbl, 0, &wptbl)))
		for (unsigned wp = 0; wp < nwarps; wp++) {
			uint64_t left = nthreads - 32ull * wp;
			uint32_t mask = left >= 32 ? 0xffffffffu : (1u << left) - 1;
			int here = wp == fwarp;
			put64(&s->data, here ? error_pc : 0);
			const uint32_t v[] = {wp, mask, mask, 0, (uint32_t)here, 0, GC_NREGS, 0, 0, 0, 0, mask, 0, 0, 0, 0};
			for (size_t i = 0; i < 14; i++)
				put32(&s->data, v[i]);
		}
	for (unsigned wp = 0; wp < nwarps; wp++) {
		uint64_t left = nthreads - 32ull * wp;
		unsigned nlanes = left >= 32 ? 32 : (unsigned)left;
		uint32_t lntbl;
		snprintf(name, sizeof name, ".cudbg.lntbl.dev%d.sm%u.cta0.wp%u", ord, sm, wp);
		if (!(s = add_sec(&elf, name, 0x8000000f, ROW_LANE, wptbl, wp, &lntbl)))
			break;
		for (unsigned ln = 0; ln < nlanes; ln++) {
			uint64_t t = 32ull * wp + ln;
			put64(&s->data, error_pc + 16);                 /* halted right after the access */
			put64(&s->data, GC_FAULT_OFFSET + 16);
			put32(&s->data, ln);
			put32(&s->data, (uint32_t)(t % bd[0]));
			put32(&s->data, (uint32_t)(t / bd[0] % bd[1]));
			put32(&s->data, (uint32_t)(t / bd[0] / bd[1]));
			put32(&s->data, wp == fwarp && ln == flane ? *exception : 0);
			for (int k = 0; k < 3; k++)
				put32(&s->data, 0);
			put32(&s->data, 1);                             /* cbuThreadState: Ready */
			put32(&s->data, 0);
		}
		for (unsigned ln = 0; ln < nlanes; ln++) {
			int faulting = wp == fwarp && ln == flane && has_addr;
			snprintf(name, sizeof name, ".cudbg.regs.dev%d.sm%u.cta0.wp%u.ln%u", ord, sm, wp, ln);
			if (!(s = add_sec(&elf, name, 0x80000005, 4, lntbl, ln, NULL)))
				break;
			const uint32_t r[GC_NREGS] = {0, 0x00fffc60, faulting ? (uint32_t)addr : 0,
						      faulting ? (uint32_t)(addr >> 32) : 0, 0, 0, 0, 0};
			for (unsigned i = 0; i < GC_NREGS; i++)
				put32(&s->data, r[i]);
		}
	}
	if ((s = add_sec(&elf, ".cudbg.meta", 0x80000016, 0, 0, 0, NULL))) {
		/* entsize 0 and one row, as the 580-series driver writes it */
		put64(&s->data, s_gen);
		const uint32_t v[] = {580, 159, 13, 0, gc.flags, (uint32_t)time(NULL)};
		for (size_t i = 0; i < 6; i++)
			put32(&s->data, v[i]);
	}
	if ((s = add_sec(&elf, ".strtab", 3, 0, 0, 0, NULL)))
		put(&s->data, strtab.p, strtab.n);
	int oom = elf.oom || strtab.oom;
	for (size_t i = 0; i < elf.n; i++)
		oom |= elf.secs[i].data.oom;
	for (size_t i = 1; i < elf.n; i++)
		elf.secs[i].flags = 2; /* SHF_ALLOC, as the driver marks them */
	int r = oom ? -1 : finish_elf(&elf, 4 /* ET_CORE */, 0, 1, out);
	free_elf(&elf);
	free(strtab.p);
	return r;
}

void sim_gpucore_fault(const struct sim_work *w, struct sim_ctx *ctx)
{
	if (!sim.cfg.gpucore || atomic_exchange(&gc.written, 1))
		return;
	if (gc.file[0] == '|') {
		sim_log("CUDA_COREDUMP_FILE='%s': piping the GPU core to a command is not simulated; no GPU core "
			"was written", gc.file);
		return;
	}
	struct gc_buf out = {0};
	uint32_t exception = 0;
	char path[2048];
	gc_file_name(path, sizeof path);
	int r = gc_build(w, ctx, &out, &exception);
	if (gc.progress) {
		fprintf(stderr, "coredump: Detected an exception of type %s (%u)\n", gc_exception_name(exception),
			exception == 0xffffffffu ? 0xffffffffu : exception);
		fprintf(stderr, "coredump: Writing ELF file to %s\n", path);
	}
	if (r) {
		sim_log("cannot build the GPU core for %s: out of memory", w->u.kernel.entry->name);
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		size_t done = 0;
		while (fd >= 0 && done < out.n) {
			ssize_t n = write(fd, out.p + done, out.n - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			done += (size_t)n;
		}
		if (fd < 0 || done < out.n)
			sim_log("cannot write the GPU core to %s: %s", path, strerror(errno));
		else if (gc.progress)
			fprintf(stderr, "coredump: All done\n");
		if (fd >= 0)
			close(fd);
	}
	free(out.p);
	if (sim.cfg.verbose)
		sim_log("GPU core of %s (launch #%lu) written to %s", w->u.kernel.entry->name, w->nth, path);
	if (!gc.no_abort)
		abort(); /* the driver aborts the process after the dump (CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION) */
}
