/* SPDX-License-Identifier: MIT */
/*
 * Stands in for GDB around the JIT reader (plugin/jit_reader.c), so that the reader's handling
 * of whatever bytes an inferior registers runs without GDB, and under ASan/UBSan in
 * `make check-asan` (GDB itself cannot load an instrumented plugin).  For each FILE it calls
 * the reader's read() as GDB would with the file's bytes and prints what the reader gave GDB:
 *
 *   reader-harness [--unwind [--hold CORE]] FILE...
 *   == FILE: status success|fail
 *   block START END NAME            one per block (symbol) the reader opened
 *   symtab FILE-NAME                the file its symbol table names (must exist)
 *
 * --unwind asks the reader to unwind a frame after the files, as GDB does on its first stop;
 * --hold keeps CORE open meanwhile, as GDB keeps the core it debugs.
 * The reader's own output (banner, summary) is interleaved on stdout as in GDB.
 */
#include <fcntl.h>
#include <gdb/jit-reader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gdb_object { int symtabs; };
struct gdb_symtab { int blocks; };
struct gdb_block { int unused; };

static struct gdb_object the_object;
static struct gdb_symtab the_symtab;
static struct gdb_block the_block;

static struct gdb_object *h_object_open(struct gdb_symbol_callbacks *cb)
{
	return &the_object;
}

static struct gdb_symtab *h_symtab_open(struct gdb_symbol_callbacks *cb, struct gdb_object *obj,
					const char *file_name)
{
	printf("symtab %s%s\n", file_name ? file_name : "(null)",
	       file_name && access(file_name, R_OK) == 0 ? "" : " (missing)");
	return &the_symtab;
}

static struct gdb_block *h_block_open(struct gdb_symbol_callbacks *cb, struct gdb_symtab *symtab,
				      struct gdb_block *parent, GDB_CORE_ADDR begin,
				      GDB_CORE_ADDR end, const char *name)
{
	printf("block 0x%lx 0x%lx %s\n", begin, end, name ? name : "(null)");
	return &the_block;
}

static void h_symtab_close(struct gdb_symbol_callbacks *cb, struct gdb_symtab *symtab)
{
}

static void h_object_close(struct gdb_symbol_callbacks *cb, struct gdb_object *obj)
{
}

static void h_line_mapping_add(struct gdb_symbol_callbacks *cb, struct gdb_symtab *symtab,
			       int nlines, struct gdb_line_mapping *lines)
{
	printf("lines %d\n", nlines);
}

static enum gdb_status h_target_read(GDB_CORE_ADDR target_mem, void *gdb_buf, int len)
{
	return GDB_FAIL;
}

static struct gdb_reg_value *h_reg_get(struct gdb_unwind_callbacks *cb, int regnum)
{
	struct gdb_reg_value *v = calloc(1, sizeof(*v) + 8);
	v->size = 8;
	v->free = (gdb_reg_value_free *)free;
	return v;
}

static void h_reg_set(struct gdb_unwind_callbacks *cb, int regnum, struct gdb_reg_value *val)
{
	if (val && val->free)
		val->free(val);
}

int main(int argc, char **argv)
{
	int unwind = 0, first = 1, held = -1;
	if (argc > 1 && strcmp(argv[1], "--unwind") == 0) {
		unwind = 1;
		first = 2;
		if (argc > 3 && strcmp(argv[2], "--hold") == 0) {
			held = open(argv[3], O_RDONLY | O_CLOEXEC);
			if (held < 0) {
				perror(argv[3]);
				return 1;
			}
			first = 4;
		}
	}
	struct gdb_reader_funcs *funcs = gdb_init_reader();
	if (!funcs || funcs->reader_version != GDB_READER_INTERFACE_VERSION) {
		printf("init failed\n");
		return 1;
	}
	struct gdb_symbol_callbacks cb = {
		.object_open = h_object_open, .symtab_open = h_symtab_open,
		.block_open = h_block_open, .symtab_close = h_symtab_close,
		.object_close = h_object_close, .line_mapping_add = h_line_mapping_add,
		.target_read = h_target_read,
	};
	for (int i = first; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			funcs->destroy(funcs);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		long size = ftell(f);
		rewind(f);
		/* GDB hands over an exact-size heap copy: so does this (ASan sees any overrun). */
		void *mem = malloc(size ? (size_t)size : 1);
		if (!mem || fread(mem, 1, (size_t)size, f) != (size_t)size) {
			printf("cannot read %s\n", argv[i]);
			free(mem);
			fclose(f);
			funcs->destroy(funcs);
			return 1;
		}
		fclose(f);
		fflush(stdout);
		enum gdb_status st = funcs->read(funcs, &cb, mem, size);
		fflush(stdout);
		printf("== %s: status %s\n", argv[i], st == GDB_SUCCESS ? "success" : "fail");
		free(mem);
	}
	if (unwind) {
		struct gdb_unwind_callbacks ucb = { .reg_get = h_reg_get, .reg_set = h_reg_set,
						    .target_read = h_target_read };
		for (int k = 0; k < 3; k++)
			printf("unwind %s\n", funcs->unwind(funcs, &ucb) == GDB_SUCCESS ? "success" : "fail");
	}
	funcs->destroy(funcs);
	if (held >= 0)
		close(held);
	return 0;
}
