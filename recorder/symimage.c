/* SPDX-License-Identifier: MIT */
/*
 * The symbol image (see symimage.h): ELF executables with no code, laid out once at record
 * creation and then patched in place, one slot at a time, as allocations come and go.
 *
 * Each part (every offset 8-byte aligned, all fixed by the part's slot count):
 *   ELF header | section headers | .shstrtab | .note.cudainspect | .symtab | .strtab
 * Section headers: 0 null, 1 .shstrtab, 2 .symtab, 3 .strtab, 4 .note.cudainspect, then one
 * SHT_NOBITS ".cuda_alloc" (or, in an image of frees, ".cuda_freed") section per slot.  The
 * note says which part of how many slots this is and of which kind, so that set/clear can
 * bounds-check a slot against the whole image.  Within a part, symbol 1 + S and section
 * PART_FIRST_SLOT + S belong to the part's slot S.  Parts are full (CI_SYMIMAGE_PART_SLOTS)
 * except the last, so a slot's part and its offset follow from the slot number alone.
 *
 * A slot in use has its section flagged SHF_ALLOC with the allocation's range and its symbol
 * named; an unused slot has a non-ALLOC section and a symbol with name offset 0, both of which
 * GDB skips.  Publishing order: hide, then range and name, then the flags, then the name
 * offset, each a single aligned store, so a reader sees either the old or the new value of
 * every field and at worst one missing symbol.
 */
#include "symimage.h"

#include <elf.h>
#include <string.h>

#if defined(__x86_64__)
#define CI_SYMIMAGE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define CI_SYMIMAGE_MACHINE EM_AARCH64
#else
#error "symimage: add this architecture's EM_* value"
#endif

enum {
	SHX_NULL,
	SHX_SHSTRTAB,
	SHX_SYMTAB,
	SHX_STRTAB,
	SHX_NOTE,
	PART_FIRST_SLOT, /* section of the part's slot 0 */
};

/* Section names, each at a fixed offset of .shstrtab. */
static const char shstrtab[] = "\0.shstrtab\0.symtab\0.strtab\0.note.cudainspect\0" CI_SYMIMAGE_SECTION
			       "\0" CI_SYMIMAGE_FREED_SECTION;
enum {
	NAME_SHSTRTAB = 1,
	NAME_SYMTAB = NAME_SHSTRTAB + sizeof(".shstrtab"),
	NAME_STRTAB = NAME_SYMTAB + sizeof(".symtab"),
	NAME_NOTE = NAME_STRTAB + sizeof(".strtab"),
	NAME_SLOT = NAME_NOTE + sizeof(".note.cudainspect"),
	NAME_FREED_SLOT = NAME_SLOT + sizeof(CI_SYMIMAGE_SECTION),
};

/* The part's note: owner "cudainspect", type 1. */
struct part_note {
	Elf64_Nhdr nhdr;
	char owner[12];         /* "cudainspect", NUL, 4-byte padded */
	uint32_t capacity;      /* slots in the whole image */
	uint32_t part;          /* this part's index */
	uint32_t first_slot;    /* slot number of this part's slot 0 */
	uint32_t slots;         /* slots in this part */
	uint32_t kind;          /* enum ci_symimage_kind */
	uint32_t pad;
};

_Static_assert(PART_FIRST_SLOT + CI_SYMIMAGE_PART_SLOTS < 32768,
	       "GDB keeps section indices in a signed 16-bit field");
_Static_assert(sizeof(CI_SYMIMAGE_PREFIX) == sizeof(CI_SYMIMAGE_FREED_PREFIX),
	       "a slot's number is written at the same place whatever the image's kind");

struct part_layout {
	uint64_t sections; /* headers, null section included */
	uint64_t shdr_off, shstr_off, note_off, sym_off, str_off, size;
};

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

static void part_layout(uint32_t slots, struct part_layout *l)
{
	l->sections = PART_FIRST_SLOT + (uint64_t)slots;
	l->shdr_off = sizeof(Elf64_Ehdr);
	l->shstr_off = l->shdr_off + l->sections * sizeof(Elf64_Shdr);
	l->note_off = align8(l->shstr_off + sizeof(shstrtab));
	l->sym_off = align8(l->note_off + sizeof(struct part_note));
	l->str_off = l->sym_off + (1 + (uint64_t)slots) * sizeof(Elf64_Sym);
	l->size = align8(l->str_off + 1 + (uint64_t)slots * CI_SYMIMAGE_NAME_WIDTH);
}

static uint64_t full_part_size(void)
{
	struct part_layout l;
	part_layout(CI_SYMIMAGE_PART_SLOTS, &l);
	return l.size;
}

uint32_t ci_symimage_part_count(uint32_t alloc_capacity)
{
	return (uint32_t)(((uint64_t)alloc_capacity + CI_SYMIMAGE_PART_SLOTS - 1) /
			  CI_SYMIMAGE_PART_SLOTS);
}

bool ci_symimage_part(uint32_t alloc_capacity, uint32_t part, size_t *offset, size_t *size)
{
	if (part >= ci_symimage_part_count(alloc_capacity))
		return false;
	uint32_t slots = alloc_capacity - part * CI_SYMIMAGE_PART_SLOTS;
	if (slots > CI_SYMIMAGE_PART_SLOTS)
		slots = CI_SYMIMAGE_PART_SLOTS;
	struct part_layout l;
	part_layout(slots, &l);
	*offset = (size_t)(part * full_part_size());
	*size = (size_t)l.size;
	return true;
}

size_t ci_symimage_size(uint32_t alloc_capacity)
{
	uint32_t n = ci_symimage_part_count(alloc_capacity);
	size_t offset, size;
	if (n == 0 || !ci_symimage_part(alloc_capacity, n - 1, &offset, &size))
		return 0;
	return offset + size;
}

static Elf64_Shdr *part_shdr(char *part, uint64_t index)
{
	return (Elf64_Shdr *)(part + sizeof(Elf64_Ehdr)) + index;
}

static void part_init(char *part, uint32_t capacity, uint32_t index, uint32_t slots,
		      enum ci_symimage_kind kind)
{
	bool freed = kind == CI_SYMIMAGE_FREED;
	struct part_layout l;
	part_layout(slots, &l);

	Elf64_Ehdr *eh = (Elf64_Ehdr *)part;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	/* ET_EXEC: symbol values are absolute addresses, which is what GDB's JIT loader assumes. */
	eh->e_type = ET_EXEC;
	eh->e_machine = CI_SYMIMAGE_MACHINE;
	eh->e_version = EV_CURRENT;
	eh->e_shoff = l.shdr_off;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (Elf64_Half)l.sections;
	eh->e_shstrndx = SHX_SHSTRTAB;

	Elf64_Shdr *sh = part_shdr(part, 0);
	sh[SHX_SHSTRTAB] = (Elf64_Shdr){
		.sh_name = NAME_SHSTRTAB, .sh_type = SHT_STRTAB,
		.sh_offset = l.shstr_off, .sh_size = sizeof(shstrtab), .sh_addralign = 1,
	};
	sh[SHX_SYMTAB] = (Elf64_Shdr){
		.sh_name = NAME_SYMTAB, .sh_type = SHT_SYMTAB,
		.sh_offset = l.sym_off, .sh_size = (1 + (uint64_t)slots) * sizeof(Elf64_Sym),
		.sh_link = SHX_STRTAB, .sh_info = 1 /* every symbol is global */,
		.sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym),
	};
	sh[SHX_STRTAB] = (Elf64_Shdr){
		.sh_name = NAME_STRTAB, .sh_type = SHT_STRTAB, .sh_offset = l.str_off,
		.sh_size = 1 + (uint64_t)slots * CI_SYMIMAGE_NAME_WIDTH, .sh_addralign = 1,
	};
	sh[SHX_NOTE] = (Elf64_Shdr){
		.sh_name = NAME_NOTE, .sh_type = SHT_NOTE, .sh_offset = l.note_off,
		.sh_size = sizeof(struct part_note), .sh_addralign = 4,
	};
	memcpy(part + l.shstr_off, shstrtab, sizeof(shstrtab));
	struct part_note *note = (struct part_note *)(part + l.note_off);
	*note = (struct part_note){
		.nhdr = { .n_namesz = sizeof("cudainspect"), .n_descsz = 24, .n_type = 1 },
		.owner = "cudainspect", .capacity = capacity, .part = index,
		.first_slot = index * CI_SYMIMAGE_PART_SLOTS, .slots = slots, .kind = kind,
	};

	Elf64_Sym *sym = (Elf64_Sym *)(part + l.sym_off);
	char *names = part + l.str_off + 1;
	for (uint32_t s = 0; s < slots; s++) {
		sh[PART_FIRST_SLOT + s] = (Elf64_Shdr){
			.sh_name = freed ? NAME_FREED_SLOT : NAME_SLOT, .sh_type = SHT_NOBITS,
			.sh_addralign = 1,
		};
		sym[1 + s] = (Elf64_Sym){
			.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			.st_shndx = (Elf64_Half)(PART_FIRST_SLOT + s),
		};
		memcpy(names + (size_t)s * CI_SYMIMAGE_NAME_WIDTH,
		       freed ? CI_SYMIMAGE_FREED_PREFIX : CI_SYMIMAGE_PREFIX,
		       sizeof(CI_SYMIMAGE_PREFIX) - 1);
	}
}

void ci_symimage_init_kind(void *image, size_t size, uint32_t alloc_capacity,
			   enum ci_symimage_kind kind)
{
	size_t need = ci_symimage_size(alloc_capacity);
	if (!image || need == 0 || size < need)
		return;
	size_t offset, part_size;
	for (uint32_t p = 0; ci_symimage_part(alloc_capacity, p, &offset, &part_size); p++) {
		uint32_t slots = alloc_capacity - p * CI_SYMIMAGE_PART_SLOTS;
		part_init((char *)image + offset, alloc_capacity, p,
			  slots < CI_SYMIMAGE_PART_SLOTS ? slots : CI_SYMIMAGE_PART_SLOTS, kind);
	}
}

void ci_symimage_init(void *image, size_t size, uint32_t capacity)
{
	ci_symimage_init_kind(image, size, capacity, CI_SYMIMAGE_LIVE);
}

/* The slot's pieces, or false when IMAGE is not laid out by ci_symimage_init or SLOT is out of
 * its range.  Reads only fields written once at init. */
static bool symimage_slot(void *image, uint32_t slot, Elf64_Shdr **sec, Elf64_Sym **sym,
			  char **name)
{
	if (!image || memcmp(image, ELFMAG, SELFMAG) != 0)
		return false;
	/* Part 0's note bounds the slot before anything past part 0 is touched. */
	const struct part_note *note =
		(const struct part_note *)((char *)image + part_shdr(image, SHX_NOTE)->sh_offset);
	if (slot >= note->capacity)
		return false;
	char *part = (char *)image + (size_t)(slot / CI_SYMIMAGE_PART_SLOTS) * full_part_size();
	uint32_t s = slot % CI_SYMIMAGE_PART_SLOTS;
	Elf64_Shdr *symtab = part_shdr(part, SHX_SYMTAB);
	Elf64_Shdr *strtab = part_shdr(part, SHX_STRTAB);
	if (symtab->sh_size / sizeof(Elf64_Sym) <= 1 + (uint64_t)s)
		return false;
	*sec = part_shdr(part, PART_FIRST_SLOT + (uint64_t)s);
	*sym = (Elf64_Sym *)(part + symtab->sh_offset) + 1 + s;
	*name = part + strtab->sh_offset + 1 + (size_t)s * CI_SYMIMAGE_NAME_WIDTH;
	return true;
}

void ci_symimage_set(void *image, uint32_t slot, uint64_t id, uint64_t address, uint64_t size)
{
	Elf64_Shdr *sec;
	Elf64_Sym *sym;
	char *name;
	if (size == 0 || address + size < address || !symimage_slot(image, slot, &sec, &sym, &name))
		return;

	/* Hide the slot while it changes: a reader sees the old symbol, none, or the new one. */
	__atomic_store_n(&sym->st_name, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sec->sh_flags, 0, __ATOMIC_RELEASE);

	char digits[20];
	int n = 0;
	do {
		digits[n++] = (char)('0' + id % 10);
		id /= 10;
	} while (id);
	char *p = name + sizeof(CI_SYMIMAGE_PREFIX) - 1;
	while (n)
		*p++ = digits[--n];
	*p = '\0';

	__atomic_store_n(&sec->sh_addr, address, __ATOMIC_RELAXED);
	__atomic_store_n(&sec->sh_size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&sym->st_value, address, __ATOMIC_RELAXED);
	__atomic_store_n(&sym->st_size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&sec->sh_flags, (Elf64_Xword)(SHF_ALLOC | SHF_WRITE), __ATOMIC_RELEASE);
	/* The name field lies at the same place in every part. */
	__atomic_store_n(&sym->st_name,
			 (Elf64_Word)(1 + (size_t)(slot % CI_SYMIMAGE_PART_SLOTS) *
					      CI_SYMIMAGE_NAME_WIDTH),
			 __ATOMIC_RELEASE);
}

void ci_symimage_clear(void *image, uint32_t slot)
{
	Elf64_Shdr *sec;
	Elf64_Sym *sym;
	char *name;
	if (!symimage_slot(image, slot, &sec, &sym, &name))
		return;
	__atomic_store_n(&sym->st_name, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sec->sh_flags, 0, __ATOMIC_RELEASE);
}

bool ci_symimage_get(const void *image, uint32_t slot, uint64_t *address, uint64_t *size)
{
	Elf64_Shdr *sec;
	Elf64_Sym *sym;
	char *name;
	if (!symimage_slot((void *)image, slot, &sec, &sym, &name) ||
	    !__atomic_load_n(&sym->st_name, __ATOMIC_ACQUIRE) ||
	    !(__atomic_load_n(&sec->sh_flags, __ATOMIC_ACQUIRE) & SHF_ALLOC))
		return false;
	*address = __atomic_load_n(&sym->st_value, __ATOMIC_RELAXED);
	*size = __atomic_load_n(&sym->st_size, __ATOMIC_RELAXED);
	return true;
}
