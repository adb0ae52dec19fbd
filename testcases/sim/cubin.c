/* Cubins: what the simulator needs of a kernel image is its entries' names and parameter
 * layouts (kernels compute nothing here), and a cubin has them without any SASS being read.
 * A cubin is an ELF64 file: each kernel is a global STT_FUNC symbol whose section is
 * `.text.NAME`; `.nv.info.NAME` (sh_info: that text section's index) holds its attributes, each
 * a 4-byte header {format, attribute, 16-bit value or size}, with a payload of that size when
 * the format is 4 (EIFMT_SVAL).  Read here: EIATTR_KPARAM_INFO (0x17: ordinal, offset, and the
 * size in bits 18-31 of the last word), EIATTR_CBANK_PARAM_SIZE (0x19: the parameters' bytes),
 * EIATTR_MAX_THREADS (0x05) and EIATTR_REQNTID (0x10) (the block-size bound), and from `.nv.info`
 * EIATTR_REGCOUNT (0x2f: symbol, registers).  Static shared memory is the size of
 * `.nv.shared.NAME`, less the 1 KiB sm_90 reserves per block when the cubin has a
 * `.nv.shared.reserved.N` section; module-scope variables are the STT_OBJECT symbols of `.nv.global` and
 * `.nv.global.init`.  This is the layout nvcc 13 and nvJitLink write (checked against the same
 * kernels' PTX in tests/sim/cubin.c).  The image comes without a length, as cuModuleLoadData's
 * does: its extent is taken from the ELF headers and every offset is checked against it.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define CUBIN_MAX_BYTES ((uint64_t)1 << 30)
#define CUBIN_MAX_PARAMS 4096

struct cubin {
	const unsigned char *b;
	uint64_t size;            /* bytes known to be part of the image */
	uint64_t shoff;
	unsigned shnum, shentsize, shstrndx;
};


struct shdr {
	uint32_t name, type, link, info;
	uint64_t flags, offset, size, entsize, align;
};

static int cubin_shdr(const struct cubin *c, unsigned i, struct shdr *s)
{
	if (i >= c->shnum)
		return -1;
	const unsigned char *p = c->b + c->shoff + (uint64_t)i * c->shentsize;
	s->name = sim_le32(p);
	s->type = sim_le32(p + 4);
	s->flags = sim_le64(p + 8);
	s->offset = sim_le64(p + 24);
	s->size = sim_le64(p + 32);
	s->link = sim_le32(p + 40);
	s->info = sim_le32(p + 44);
	s->align = sim_le64(p + 48);
	s->entsize = sim_le64(p + 56);
	/* NOBITS sections (.nv.shared, .nv.global) occupy no bytes of the file. */
	if (s->type != 8 && (s->offset > c->size || s->size > c->size - s->offset))
		return -1;
	return 0;
}

/* The NUL-terminated string at OFF of string section STRTAB, or NULL. */
static const char *cubin_str(const struct cubin *c, unsigned strtab, uint32_t off)
{
	struct shdr s;
	if (cubin_shdr(c, strtab, &s) || s.type != 3 || off >= s.size)
		return NULL;
	const char *p = (const char *)c->b + s.offset + off;
	return memchr(p, 0, s.size - off) ? p : NULL;
}

static const char *cubin_section_name(const struct cubin *c, unsigned i)
{
	struct shdr s;
	return cubin_shdr(c, i, &s) ? NULL : cubin_str(c, c->shstrndx, s.name);
}

/* The image's extent from its headers (section table and every section's bytes), at most LIMIT. */
static int cubin_open(const unsigned char *b, uint64_t limit, struct cubin *c)
{
	memset(c, 0, sizeof *c);
	c->b = b;
	/* e_ident byte by byte, so that a short image stops at its first wrong byte: ELFCLASS64,
	 * little-endian, EV_CURRENT, and a CUDA OS ABI (0x33; 0x41 from nvcc 13) with its version. */
	if (b[4] != 2 || b[5] != 1 || b[6] != 1 || (b[7] != 0x33 && b[7] != 0x41) || !b[8])
		return -1;
	c->shoff = sim_le64(b + 0x28);
	c->shentsize = sim_le16(b + 0x3a);
	c->shnum = sim_le16(b + 0x3c);
	c->shstrndx = sim_le16(b + 0x3e);
	if (c->shentsize < 64 || !c->shnum || c->shoff < 64 || c->shoff > CUBIN_MAX_BYTES)
		return -1;
	c->size = c->shoff + (uint64_t)c->shnum * c->shentsize;
	if (c->size > CUBIN_MAX_BYTES || c->size > limit)
		return -1;
	/* Every section lies inside the image: its extent is the largest end. */
	for (unsigned i = 0; i < c->shnum; i++) {
		const unsigned char *p = b + c->shoff + (uint64_t)i * c->shentsize;
		uint64_t off = sim_le64(p + 24), size = sim_le64(p + 32);
		if (sim_le32(p + 4) == 8)
			continue;
		if (off > CUBIN_MAX_BYTES || size > CUBIN_MAX_BYTES - off)
			return -1;
		if (off + size > c->size)
			c->size = off + size;
	}
	if (c->size > limit)
		return -1;
	return c->shstrndx < c->shnum ? 0 : -1;
}

/* One .nv.info block's attributes: calls FN for each (format, attribute, value, payload). */
static int cubin_attrs(const struct cubin *c, const struct shdr *s,
		       int (*fn)(void *arg, unsigned attr, unsigned value, const unsigned char *data),
		       void *arg)
{
	const unsigned char *p = c->b + s->offset, *end = p + s->size;
	while (end - p >= 4) {
		unsigned fmt = p[0], attr = p[1], v = sim_le16(p + 2);
		if (fmt < 1 || fmt > 4)
			return -1; /* not an attribute list nvcc writes */
		const unsigned char *data = p + 4;
		if (fmt == 4) {
			if ((uint64_t)(end - data) < v)
				return -1;
			p = data + v;
		} else {
			p = data;
			data = NULL;
		}
		if (fn(arg, attr, v, data))
			return -1;
	}
	return 0;
}

struct entry_attrs {
	struct sim_entry *e;
	size_t cbank_size;
	int have_cbank;
};

static int entry_attr(void *arg, unsigned attr, unsigned v, const unsigned char *d)
{
	struct entry_attrs *a = arg;
	struct sim_entry *e = a->e;
	switch (attr) {
	case 0x17: { /* EIATTR_KPARAM_INFO */
		if (!d || v < 12)
			return -1;
		unsigned ordinal = sim_le16(d + 4), offset = sim_le16(d + 6);
		size_t size = sim_le32(d + 8) >> 18;
		if (ordinal >= CUBIN_MAX_PARAMS)
			return -1;
		if (ordinal >= e->nparams) {
			struct sim_param *np = realloc(e->params, (ordinal + 1) * sizeof *np);
			if (!np)
				return -1;
			memset(np + e->nparams, 0, (ordinal + 1 - e->nparams) * sizeof *np);
			e->params = np;
			e->nparams = ordinal + 1;
		}
		e->params[ordinal].offset = offset;
		e->params[ordinal].size = size;
		break;
	}
	case 0x19: /* EIATTR_CBANK_PARAM_SIZE */
		a->cbank_size = v;
		a->have_cbank = 1;
		break;
	case 0x05: /* EIATTR_MAX_THREADS */
	case 0x10: /* EIATTR_REQNTID */
		if (d && v >= 12)
			e->maxntid = sim_le32(d) * sim_le32(d + 4) * sim_le32(d + 8);
		break;
	default:
		break;
	}
	return 0;
}

struct reg_attrs {
	const struct cubin *c;
	struct sim_image *img;
	const uint32_t *entry_sym; /* symbol index of each entry */
};

static int reg_attr(void *arg, unsigned attr, unsigned v, const unsigned char *d)
{
	struct reg_attrs *a = arg;
	if (attr != 0x2f || !d || v < 8) /* EIATTR_REGCOUNT */
		return 0;
	for (unsigned i = 0; i < a->img->nentries; i++)
		if (a->entry_sym[i] == sim_le32(d))
			a->img->entries[i].nregs = sim_le32(d + 4);
	return 0;
}

static int cubin_entries(const struct cubin *c, struct sim_image *img)
{
	unsigned symtab = 0;
	struct shdr sym;
	for (unsigned i = 1; i < c->shnum && !symtab; i++)
		if (!cubin_shdr(c, i, &sym) && sym.type == 2)
			symtab = i;
	if (!symtab || cubin_shdr(c, symtab, &sym) || sym.entsize < 24)
		return -1;
	uint64_t nsyms = sym.size / sym.entsize;
	uint32_t *entry_sym = calloc(nsyms ? nsyms : 1, sizeof *entry_sym);
	img->entries = calloc(nsyms ? nsyms : 1, sizeof *img->entries);
	img->globals = calloc(nsyms ? nsyms : 1, sizeof *img->globals);
	int err = !entry_sym || !img->entries || !img->globals;
	/* sm_90 reserves 1 KiB of shared memory per block for the system; nvcc puts it at the
	 * start of each kernel's .nv.shared section (and names it in .nv.shared.reserved.N). */
	int reserved = 0;
	for (unsigned i = 1; i < c->shnum; i++) {
		const char *in = cubin_section_name(c, i);
		reserved |= in && !strncmp(in, ".nv.shared.reserved.", 20);
	}
	for (uint64_t k = 1; !err && k < nsyms; k++) {
		const unsigned char *s = c->b + sym.offset + k * sym.entsize;
		unsigned type = s[4] & 15, bind = s[4] >> 4, shndx = sim_le16(s + 6);
		const char *name = cubin_str(c, sym.link, sim_le32(s));
		const char *sec = cubin_section_name(c, shndx);
		if (!name || !*name || !sec)
			continue;
		if (type == 2 && bind == 1 && !strncmp(sec, ".text.", 6) && !strcmp(sec + 6, name)) {
			struct sim_entry *e = &img->entries[img->nentries];
			if (!(e->name = strdup(name))) {
				err = 1;
				break;
			}
			entry_sym[img->nentries++] = (uint32_t)k;
			e->nregs = 32; /* unless .nv.info says */
			/* Its attributes, and its static shared memory. */
			struct entry_attrs a = { .e = e };
			struct shdr info;
			for (unsigned i = 1; i < c->shnum && !err; i++) {
				const char *in = cubin_section_name(c, i);
				if (!in || cubin_shdr(c, i, &info))
					continue;
				if (!strncmp(in, ".nv.info.", 9) && !strcmp(in + 9, name) && info.info == shndx)
					err = cubin_attrs(c, &info, entry_attr, &a);
				else if (!strncmp(in, ".nv.shared.", 11) && !strcmp(in + 11, name))
					e->static_shared = info.size >= 1024 && reserved ? info.size - 1024 : info.size;
			}
			size_t end = 0;
			for (unsigned p = 0; p < e->nparams; p++)
				if (e->params[p].offset + e->params[p].size > end)
					end = e->params[p].offset + e->params[p].size;
			e->param_bytes = a.have_cbank ? a.cbank_size : end;
			if (end > e->param_bytes)
				err = 1; /* a parameter past the parameter bank */
		} else if (type == 1 && (!strcmp(sec, ".nv.global") || !strcmp(sec, ".nv.global.init"))) {
			struct sim_global *g = &img->globals[img->nglobals];
			struct shdr gs;
			if (!(g->name = strdup(name))) {
				err = 1;
				break;
			}
			g->size = sim_le64(s + 16);
			g->align = !cubin_shdr(c, shndx, &gs) && gs.align ? gs.align : 8;
			img->nglobals++;
		}
	}
	/* Registers: the module-wide .nv.info names them per function symbol. */
	struct shdr info;
	for (unsigned i = 1; !err && i < c->shnum; i++) {
		const char *in = cubin_section_name(c, i);
		if (in && !strcmp(in, ".nv.info") && !cubin_shdr(c, i, &info)) {
			struct reg_attrs ra = { c, img, entry_sym };
			err = cubin_attrs(c, &info, reg_attr, &ra);
		}
	}
	free(entry_sym);
	return err ? -1 : 0;
}

CUresult sim_cubin_parse(const void *image, uint64_t limit, struct sim_image **ret)
{
	struct cubin c;
	*ret = NULL;
	if (cubin_open(image, limit, &c))
		return CUDA_ERROR_INVALID_IMAGE;
	struct sim_image *img = calloc(1, sizeof *img);
	if (!img)
		return CUDA_ERROR_OUT_OF_MEMORY;
	/* e_flags: the SM in bits 8-15 (sm_90: 0x5a), as nvcc writes it.  SASS runs only on its
	 * major revision at or above its minor: on this sm_90 device, sm_90 cubins only. */
	img->sm = (int)(sim_le32(c.b + 0x30) >> 8 & 0xff);
	if (img->sm != 90) {
		sim_image_destroy(img);
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	}
	if (cubin_entries(&c, img)) {
		sim_image_destroy(img);
		return CUDA_ERROR_INVALID_IMAGE;
	}
	*ret = img;
	return CUDA_SUCCESS;
}
