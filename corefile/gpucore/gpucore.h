/* SPDX-License-Identifier: MIT */
/*
 * CUDA GPU core dumps (what the driver writes with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1, what
 * cuda-gdb opens with `target cudacore`): read one into an in-memory model of the GPU at the
 * fault.  Private to the reader; not part of include/cudainspect/cudainspect.h.  docs/GPUCORE.md
 * describes the format as far as it is read here, the sources of the facts, and what is derived
 * from what.
 *
 * A GPU core is an ELF64 file with EI_OSABI 51 (ELFOSABI_CUDA), e_machine 190 (EM_CUDA) and
 * e_type ET_CORE, made only of sections: tables of devices, contexts, modules, grids, SMs, CTAs,
 * warps and lanes, each a section whose sh_type says what it is, linked to its parent table by
 * sh_link (the parent's section index) and sh_info (the parent's row), with rows of sh_entsize
 * bytes whose fields are only ever appended (a field past sh_entsize reads as 0); leaves with
 * registers, predicates and backtraces; the relocated cubin of every module; and, unless the
 * producer skipped them, memory.
 *
 * Input is hostile.  Every byte is read through the reader's bounded cursor (struct ci_bytes);
 * counts are capped (the CI_GPU_MAX_* below, listed in docs/SECURITY.md); the work is linear in
 * the number of sections (plus a sort); damage below the ELF header becomes a warning and the
 * table or leaf it hits is left out, never a crash.
 *
 * Ownership: ci_gpucore_open and ci_gpucore_from_memory return a struct ci_gpucore that owns
 * everything its arrays point to, and maps (or, for a zstd input, decompresses into an unlinked
 * temporary file and maps) the file; ci_gpucore_destroy releases all of it (NULL is fine).
 * Strings in the model (device names, kernel names, file names) come from the input: scrub them
 * (ci_scrub) before they reach a terminal.
 */
#ifndef CUDAINSPECT_GPUCORE_H
#define CUDAINSPECT_GPUCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"

/* ---------------------------------------------------------------------------------------- */
/* Caps on counts in hostile input (docs/SECURITY.md, "GPU cores")                            */

#define CI_GPU_MAX_SECTIONS   (1u << 24)   /* section headers of the container */
#define CI_GPU_MAX_DEVICES    64u
#define CI_GPU_MAX_CONTEXTS   4096u
#define CI_GPU_MAX_MODULES    65536u
#define CI_GPU_MAX_GRIDS      65536u
#define CI_GPU_MAX_SMS        16384u       /* over all devices */
#define CI_GPU_MAX_CTAS       (1u << 20)
#define CI_GPU_MAX_WARPS      (1u << 22)
#define CI_GPU_MAX_LANES      (1u << 22)
#define CI_GPU_MAX_MEMORY     (1u << 20)   /* global and managed memory sections */
#define CI_GPU_MAX_ROW        (64u << 10)  /* sh_entsize of a table */
#define CI_GPU_MAX_STRING     4096u        /* bytes of one string kept from the input */
#define CI_GPU_MAX_CUBIN_SECTIONS (1u << 20)
#define CI_GPU_MAX_CUBIN_SYMBOLS  (1u << 22)
#define CI_GPU_MAX_LINE_ROWS  (1u << 22)   /* rows of one cubin's line table */

/* ---------------------------------------------------------------------------------------- */
/* Words                                                                                      */

/* CUDBGException_t: value, name, the words cuda-gdb prints after "CUDA Exception: " (NULL where
 * it prints none of its own).  Values 1, 2, 3, 11, 13, 15 and 16 are the memcheck-era lane
 * exceptions, reserved since CUDA 13.1. */
#define CI_GPU_EXCEPTIONS(X)                                                                   \
	X(0, "NONE", NULL)                                                                     \
	X(1, "LANE_ILLEGAL_ADDRESS", "Lane Illegal Address")                                   \
	X(2, "LANE_USER_STACK_OVERFLOW", "Lane User Stack Overflow")                           \
	X(3, "DEVICE_HARDWARE_STACK_OVERFLOW", "Device Hardware Stack Overflow")               \
	X(4, "WARP_ILLEGAL_INSTRUCTION", "Warp Illegal Instruction")                           \
	X(5, "WARP_OUT_OF_RANGE_ADDRESS", "Warp Out-of-range Address")                         \
	X(6, "WARP_MISALIGNED_ADDRESS", "Warp Misaligned Address")                             \
	X(7, "WARP_INVALID_ADDRESS_SPACE", "Warp Invalid Address Space")                       \
	X(8, "WARP_INVALID_PC", "Warp Invalid PC")                                             \
	X(9, "WARP_HARDWARE_STACK_OVERFLOW", "Warp Hardware Stack Overflow")                   \
	X(10, "DEVICE_ILLEGAL_ADDRESS", "Device Illegal Address")                              \
	X(11, "LANE_MISALIGNED_ADDRESS", "Lane Misaligned Address")                            \
	X(12, "WARP_ASSERT", "Warp Assert")                                                    \
	X(13, "LANE_SYSCALL_ERROR", "Lane Syscall Error")                                      \
	X(14, "WARP_ILLEGAL_ADDRESS", "Warp Illegal Address")                                  \
	X(15, "LANE_NONMIGRATABLE_ATOMSYS", "Non-migratable System-scoped Atomic Access")      \
	X(16, "LANE_INVALID_ATOMSYS", NULL)                                                    \
	X(17, "CLUSTER_OUT_OF_RANGE_ADDRESS", "Cluster out of range address")                  \
	X(18, "CLUSTER_BLOCK_NOT_PRESENT", "Cluster target block not present")                 \
	X(19, "WARP_STACK_CANARY", "Warp Stack Canary")                                        \
	X(20, "WARP_TMEM_ACCESS_CHECK", NULL)                                                  \
	X(21, "WARP_TMEM_LEAK", NULL)                                                          \
	X(22, "WARP_CALL_REQUIRES_NEWER_DRIVER", NULL)                                         \
	X(23, "WARP_MISALIGNED_PC", NULL)                                                      \
	X(24, "WARP_PC_OVERFLOW", NULL)                                                        \
	X(25, "WARP_MISALIGNED_REG", NULL)                                                     \
	X(26, "WARP_ILLEGAL_INSTR_ENCODING", NULL)                                             \
	X(27, "WARP_ILLEGAL_INSTR_PARAM", NULL)                                                \
	X(28, "WARP_OUT_OF_RANGE_REGISTER", NULL)                                              \
	X(29, "WARP_INVALID_CONST_ADDR_LDC", NULL)                                             \
	X(30, "WARP_MMU_FAULT", NULL)                                                          \
	X(31, "WARP_ARRIVE", NULL)                                                             \
	X(32, "CLUSTER_POISON", NULL)                                                          \
	X(33, "WARP_API_STACK_ERROR", NULL)                                                    \
	X(34, "WARP_BLOCK_NOT_PRESENT", NULL)                                                  \
	X(35, "WARP_USER_STACK_OVERFLOW", NULL)                                                \
	X(36, "TMA_SYSCALL", NULL)
#define CI_GPU_EXCEPTION_UNKNOWN 0xffffffffu /* "Device Unknown Exception" */

/* The name ("WARP_ILLEGAL_ADDRESS") of an exception value, NULL for a value not in the table. */
const char *ci_gpu_exception_name(uint32_t code);
/* What a report calls it: cuda-gdb's words where it has them ("Warp Illegal Address"), else
 * words made from the name ("Warp Mmu Fault"), else "unknown exception N", in BUF (N bytes). */
const char *ci_gpu_exception_words(uint32_t code, char *buf, size_t n);

/* Grid status (CUDBGGridStatus) as cuda-gdb's `info cuda kernels` prints it. */
const char *ci_gpu_grid_status_name(uint32_t status);     /* "Active", ... or NULL */
/* CUDBGKernelType: "unknown", "system", "application", or NULL. */
const char *ci_gpu_kernel_type_name(uint32_t type);

/* Bits of CUDBGCoredumpGenerationFlags (the metadata's flags, CUDA_COREDUMP_GENERATION_FLAGS). */
#define CI_GPU_COREDUMP_FLAGS(X)                                                               \
	X(0, "skip_nonrelocated_elf_images")                                                   \
	X(1, "skip_global_memory")                                                             \
	X(2, "skip_shared_memory")                                                             \
	X(3, "skip_local_memory")                                                              \
	X(4, "skip_abort")                                                                     \
	X(5, "skip_constbank_memory")                                                          \
	X(6, "gzip_compress")                                                                  \
	X(7, "faulted_contexts_only")                                                          \
	X(30, "no_errbar_at_exit")                                                             \
	X(31, "log_only")
/* FLAGS as "skip_global_memory,skip_local_memory" (unknown bits as "bitN") in BUF; "" for 0. */
const char *ci_gpu_coredump_flags_text(uint32_t flags, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------- */
/* The model                                                                                  */

#define CI_GPU_NONE SIZE_MAX /* "no such row" for the size_t indexes below */

/* The producer (.cudbg.meta, drivers r565 and later). */
struct ci_gpu_meta {
	bool present;
	const char *generator;      /* the producer's name as the dump gives it ("UD" from r580) */
	uint32_t driver_major, driver_minor;   /* driver branch: 580, 159 */
	uint32_t cuda_major, cuda_minor;       /* CUDA driver API version: 13, 0 */
	uint32_t flags;             /* CUDBGCoredumpGenerationFlags in effect */
	uint32_t timestamp;         /* Unix seconds */
};

struct ci_gpu_device {
	const char *name;           /* "NVIDIA H200" */
	const char *type;           /* chip: "GH100GL-A" */
	const char *sm_type;        /* ISA: "sm_90" */
	uint32_t dev_id;            /* cuda-gdb's device number */
	uint32_t pci_bus, pci_dev;
	uint32_t num_sms, warps_per_sm, lanes_per_warp, regs_per_lane, preds_per_lane;
	uint32_t sm_major, sm_minor;
	uint32_t instruction_size;  /* bytes per SASS instruction (16 from Volta on) */
	uint32_t status;
	uint32_t uregs_per_warp, upreds_per_warp, barriers_per_warp;
	size_t sm_first, sm_count;  /* its SMs in ci_gpucore.sms */
};

struct ci_gpu_context {
	size_t device;
	uint64_t id;                /* the CUcontext */
	uint64_t shared_window, local_window, global_window;
	uint32_t tid;               /* host thread that owns it */
	size_t module_first, module_count;
};

struct ci_gpu_module {
	size_t context;
	uint64_t handle;            /* the CUmodule */
	/* The relocated cubin (an ELF image whose symbols are GPU addresses), and the one as loaded
	 * (absent with skip_nonrelocated_elf_images); size 0 when the dump holds none. */
	uint64_t cubin_offset, cubin_size;
	uint64_t image_offset, image_size;
	struct ci_cubin *cubin_;    /* private: parsed on first use */
	bool cubin_bad_;            /* private: tried and failed (a warning says why) */
};

struct ci_gpu_grid {
	size_t device;
	uint64_t id;                /* gridId64 (cuda-gdb prints it signed) */
	uint64_t context_id, function, function_entry, module_handle, parent_id, params_offset;
	uint32_t kernel_type, origin, status, num_regs;
	uint32_t grid_dim[3], block_dim[3], cluster_dim[3], preferred_cluster_dim[3];
	uint32_t launch_blocking, host_tid;
	size_t context, module;     /* joined by id and handle; CI_GPU_NONE when not found */
	const char *function_name;  /* the cubin's function at function_entry, or NULL */
	uint64_t params_file_offset, params_size; /* .cudbg.param bytes, size 0 if absent */
	size_t ctas, warps, sms;    /* resident at the dump: blocks, warps, SMs holding them */
};

struct ci_gpu_sm {
	size_t device;
	uint32_t sm_id;
	uint32_t exception;         /* r555+: survives the faulting warp's exit */
	bool error_pc_valid;
	uint64_t error_pc;
	bool cluster_target_valid;
	uint32_t cluster_target[3];
	size_t cta_first, cta_count;
};

struct ci_gpu_cta {
	size_t sm;
	uint64_t grid_id;
	uint32_t block_idx[3], cluster_idx[3], cluster_dim[3];
	size_t grid;                /* joined on (device, grid_id); CI_GPU_NONE when not found */
	size_t warp_first, warp_count;
	uint64_t shared_offset, shared_size;
};

struct ci_gpu_warp {
	size_t cta;
	uint64_t error_pc;
	bool error_pc_valid;
	uint32_t warp_id;           /* hardware slot in the SM */
	uint32_t valid_mask, active_mask, broken;
	uint32_t num_regs, shared_mem_size;
	uint32_t in_syscall_mask, cbu_active_mask, cbu_exited_mask, cbu_collective_mask;
	uint32_t barrier_scope;
	uint64_t barrier_info;
	size_t lane_first, lane_count;
	uint64_t uregs_offset;      /* file offset of the uniform registers, 4 bytes each */
	uint32_t uregs_count;
};

struct ci_gpu_lane {
	size_t warp;
	uint64_t virtual_pc;        /* where the lane is halted, a GPU address */
	uint64_t phys_pc;           /* the same, from the function's start */
	uint32_t ln;                /* hardware lane */
	uint32_t thread_idx[3];
	uint32_t exception;
	uint32_t call_depth, syscall_call_depth;
	uint32_t cbu_state;
	uint64_t regs_offset;       /* file offset of R0..R(regs_count-1), 4 bytes each */
	uint32_t regs_count;
	uint64_t preds_offset;
	uint32_t preds_count;
	uint32_t bt_count;          /* backtrace rows */
};

/* A range of GPU memory the dump holds (global or managed). */
struct ci_gpu_memory {
	uint64_t address, size, file_offset;
	bool managed;
};

/* Where a PC is in code: the module, the function and the offset in it, and the source line
 * when the module has a line table. */
struct ci_gpu_where {
	size_t module;              /* CI_GPU_NONE: no module's code holds it */
	const char *function;       /* mangled as in the cubin */
	uint64_t function_start, offset;
	const char *file;           /* as the line table names it: the name, maybe with a path */
	const char *dir;            /* its directory entry, or NULL */
	uint32_t line;              /* 0: no line */
};

/* What the instruction at the error PC says about the faulting address (the dump records no
 * fault address: it can only come from the instruction's operands and the lane's registers). */
enum ci_gpu_access_status {
	CI_GPU_ACCESS_NONE = 0,     /* no error PC, or no lane to take registers from */
	CI_GPU_ACCESS_NO_CODE,      /* the code at the error PC is not in the dump */
	CI_GPU_ACCESS_NOT_DECODED,  /* an instruction this reader does not decode (or not a memory access) */
	CI_GPU_ACCESS_NO_REGISTERS, /* decoded, but the lane's registers are not in the dump */
	CI_GPU_ACCESS_STALE,        /* decoded; the registers are from a later PC and may have changed */
	CI_GPU_ACCESS_ADDRESS,      /* decoded, and the registers are those the access used */
};

struct ci_gpu_access {
	enum ci_gpu_access_status status;
	uint8_t insn[16];           /* the instruction's bytes, when in the dump */
	bool have_insn;
	char text[96];              /* our decoding: "STG.E [R6.64], R5" */
	const char *op;             /* "STG", "LDG", "ATOM", ... */
	const char *kind;           /* "read", "write", "atomic" */
	uint32_t width;             /* bytes accessed per lane, 0 when not known */
	uint32_t base_reg;          /* 255: RZ */
	bool base_wide;             /* a 64-bit register pair */
	int64_t offset;
	uint64_t base_value;
	uint64_t address;           /* CI_GPU_ACCESS_ADDRESS (and STALE: what the registers give now) */
	uint32_t instructions_after;/* STALE: instructions between the error PC and the lane's PC */
};

/* How the fault was found, in cuda-gdb's order. */
enum ci_gpu_fault_kind {
	CI_GPU_FAULT_NONE = 0,      /* "No exception was found on the device" */
	CI_GPU_FAULT_LANE,          /* a lane with an exception */
	CI_GPU_FAULT_WARP,          /* a warp with an error PC on an SM with an exception, its
				     * lanes without one: the SM's exception, the first active lane */
	CI_GPU_FAULT_SM,            /* an SM's exception after its warp exited: no lane */
	CI_GPU_FAULT_TRAP,          /* a warp stopped at a trap or breakpoint, no exception */
};

struct ci_gpu_fault {
	enum ci_gpu_fault_kind kind;
	uint32_t exception;
	size_t device, sm, cta, warp, lane, grid;  /* CI_GPU_NONE where not known */
	bool error_pc_valid;
	uint64_t error_pc;
	const char *error_pc_from;  /* "warp" or "SM" */
	bool has_pc;
	uint64_t pc;                /* the lane's halted PC */
	struct ci_gpu_where error_where, pc_where;
	struct ci_gpu_access access;
	/* How widespread: */
	size_t lanes_with_exception, warps_with_exception, sms_with_exception;
};

struct ci_gpucore {
	const char *name;           /* for messages: the path, or the caller's name */
	uint64_t file_size;
	bool compressed;            /* the input was zstd */
	uint64_t section_count;
	uint8_t abi_version;        /* EI_ABIVERSION (7 for the format these notes describe) */
	struct ci_gpu_meta meta;
	struct ci_gpu_device *devices;   size_t device_count;
	struct ci_gpu_context *contexts; size_t context_count;
	struct ci_gpu_module *modules;   size_t module_count;
	struct ci_gpu_grid *grids;       size_t grid_count;
	struct ci_gpu_sm *sms;           size_t sm_count;
	struct ci_gpu_cta *ctas;         size_t cta_count;
	struct ci_gpu_warp *warps;       size_t warp_count;
	struct ci_gpu_lane *lanes;       size_t lane_count;
	struct ci_gpu_memory *memory;    size_t memory_count;
	struct ci_gpu_fault fault;
	struct ci_warnings warnings;     /* what was damaged, left out or capped */
	struct ci_gpucore_priv *priv_;
};

/* ---------------------------------------------------------------------------------------- */
/* Opening                                                                                    */

/* Whether the N bytes at P start like a GPU core: an ELF64 little-endian header with OSABI 51,
 * e_type ET_CORE and e_machine EM_CUDA.  Needs 64 bytes; false for anything shorter. */
bool ci_gpucore_sniff(const uint8_t *p, size_t n);

/* Open the GPU core at PATH, plain or zstd-compressed (recognised by content, as host cores are:
 * only a regular file is opened, a zstd stream is decompressed through the reader's bounded
 * decompressor, OPTS->max_core_size).  Fails with CI_ERR_IO (cannot read), CI_ERR_FORMAT (not a
 * GPU core: another ELF, a host core, anything else, each named) or CI_ERR_CORRUPT (a GPU core
 * whose header or section table cannot be read, e.g. truncated).  OPTS may be NULL. */
struct ci_error *ci_gpucore_open(const char *path, const struct ci_source_options *opts,
				 struct ci_gpucore **ret);
/* The same for SIZE bytes at IMAGE, which the caller keeps alive until ci_gpucore_destroy (a
 * zstd image is decompressed into a temporary file, at most MAX_DECOMPRESSED bytes; 0 means the
 * default bound).  NAME is used in messages. */
struct ci_error *ci_gpucore_from_memory(const char *name, const void *image, size_t size,
					uint64_t max_decompressed, struct ci_gpucore **ret);
void ci_gpucore_destroy(struct ci_gpucore *gc);

/* ---------------------------------------------------------------------------------------- */
/* Questions                                                                                  */

/* Where PC is: the module whose cubin has a function holding it (MODULE first when it is not
 * CI_GPU_NONE), the function and offset, and the line.  Returns false when no module's
 * function holds PC (*RET then has module CI_GPU_NONE). */
bool ci_gpucore_where(struct ci_gpucore *gc, uint64_t pc, size_t module, struct ci_gpu_where *ret);

/* Register REG (255 is RZ, 0) of LANE as the dump holds it; false when the dump has no such
 * register.  Uniform register UREG of WARP likewise. */
bool ci_gpucore_lane_reg(const struct ci_gpucore *gc, size_t lane, uint32_t reg, uint32_t *val);
bool ci_gpucore_warp_ureg(const struct ci_gpucore *gc, size_t warp, uint32_t ureg, uint32_t *val);

/* W's source file as "DIR/FILE" (the line table's directory unless FILE is absolute), scrubbed,
 * in BUF; "" when W has no line. */
const char *ci_gpu_where_path(const struct ci_gpu_where *w, char *buf, size_t n);
/* The first lane of warp W that holds a thread (its bit in the valid mask), CI_GPU_NONE if none;
 * *EXCEPTION the first exception any of its lanes reports (0: none). */
size_t ci_gpucore_warp_first_lane(const struct ci_gpucore *gc, size_t w, uint32_t *exception);

/* The device, SM, CTA and warp of a lane (a chain of indexes every lane has). */
static inline size_t ci_gpu_lane_warp(const struct ci_gpucore *gc, size_t lane) { return gc->lanes[lane].warp; }
static inline size_t ci_gpu_warp_cta(const struct ci_gpucore *gc, size_t warp) { return gc->warps[warp].cta; }
static inline size_t ci_gpu_cta_sm(const struct ci_gpucore *gc, size_t cta) { return gc->ctas[cta].sm; }

/* The 8 bytes at OFFSET of GRID's parameter memory (.cudbg.param); false when not in the dump. */
bool ci_gpucore_grid_params(const struct ci_gpucore *gc, size_t grid, uint64_t offset, uint64_t *val);

/* A plain GPU core file is mapped under the reader's SIGBUS guard: if it shrank while it was
 * read, the pages past its new end read as zeros.  Whether that happened (a warning is added to
 * GC->warnings once); renderers ask before they print the warnings, as cubins are read lazily. */
bool ci_gpucore_check_shrink(struct ci_gpucore *gc);

/* The bytes of the relocated cubin of MODULE (NULL, 0 when the dump has none). */
const uint8_t *ci_gpucore_module_cubin(const struct ci_gpucore *gc, size_t module, uint64_t *size);

/* ---------------------------------------------------------------------------------------- */
/* Cubins (corefile/gpucore/gpucore_cubin.c): the relocated ELF images of modules                     */

struct ci_cubin;

/* The fields of an ELF64 little-endian header that cubins and GPU cores need, read from the N
 * bytes at P; false when they are not there or the image is not ELF64 little-endian.  With
 * more than 0xff00 sections, SHNUM and SHSTRNDX are the real ones from section 0 (when it is
 * inside the N bytes). */
struct ci_gpu_ehdr {
	uint8_t osabi, abi_version;
	uint16_t type, machine, shentsize;
	uint32_t flags;
	uint64_t shoff, shnum, shstrndx;
};
bool ci_gpu_elf_header(const uint8_t *p, size_t n, struct ci_gpu_ehdr *ret);
/* Section header I of the table at SHOFF in the N bytes at P; false when it is not inside them. */
struct ci_gpu_shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t entsize;
};
bool ci_gpu_elf_shdr(const uint8_t *p, size_t n, uint64_t shoff, uint64_t i, struct ci_gpu_shdr *ret);

/* Parse the cubin of SIZE bytes at P (which must outlive it): section table, function symbols,
 * and (lazily) the line table.  NAME is used in messages.  Fails with CI_ERR_CORRUPT. */
struct ci_error *ci_cubin_open(const char *name, const uint8_t *p, size_t size, struct ci_cubin **ret);
void ci_cubin_destroy(struct ci_cubin *cb);
/* The function symbol whose value is exactly ADDR (a kernel's entry), or NULL. */
const char *ci_cubin_function_at_entry(struct ci_cubin *cb, uint64_t addr);
/* The function holding ADDR: name, start; false when none. */
bool ci_cubin_function(struct ci_cubin *cb, uint64_t addr, const char **name, uint64_t *start);
/* N bytes of code at ADDR from the section that holds it, or NULL. */
const uint8_t *ci_cubin_code(struct ci_cubin *cb, uint64_t addr, size_t n);
/* The line table's row for ADDR: file, directory (may be NULL), line; false when none.  The
 * first call decodes .debug_line (DWARF 2 to 5); a damaged table gives no rows and WARN (if not
 * NULL) gets one sentence, once. */
bool ci_cubin_line(struct ci_cubin *cb, uint64_t addr, const char **file, const char **dir,
		   uint32_t *line, const char **warn);
/* e_flags' SM (90 for sm_90), 0 if unknown. */
unsigned ci_cubin_sm(const struct ci_cubin *cb);

/* ---------------------------------------------------------------------------------------- */
/* SASS (corefile/gpucore/gpucore_sass.c): the memory-access instructions this reader decodes           */

struct ci_sass_access {
	const char *op;             /* "LDG", "STG", "ATOM", "ATOMG", "RED" */
	const char *kind;           /* "read", "write", "atomic" */
	uint32_t width;             /* bytes per lane, 0 when the encoding's size field is not known */
	uint32_t base_reg;          /* 255 = RZ */
	bool base_wide;             /* [Rn.64]: the address is the pair Rn, Rn+1 */
	int64_t offset;             /* signed 24-bit immediate */
	int32_t dst_reg;            /* a load's destination, -1 when none */
	char text[96];
};

/* Decode the 16-byte instruction INSN of an sm_MAJOR.MINOR device when it is a global or
 * generic memory access with a register address, in the encodings checked against nvdisasm
 * (docs/GPUCORE.md, "Instructions"): sm_75, sm_80 to sm_90.  False otherwise. */
bool ci_sass_decode_access(uint32_t major, uint32_t minor, const uint8_t insn[16], struct ci_sass_access *ret);

#endif /* CUDAINSPECT_GPUCORE_H */
