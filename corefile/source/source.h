/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: stages 1 and 2 (corefile/source/).  The layout of struct
 * ci_source and what the other stages read of a source beyond the public API: segments, reads
 * that may miss, the modules a core or process shows, a live process's threads; and locate's
 * test of a record header, which decode uses too.
 */
#ifndef CI_SOURCE_H
#define CI_SOURCE_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/base.h"

/* ---------------------------------------------------------------------------------------- */
/* Sources                                                                                    */

/* One range of the process's address space as the input holds it: [start, end) of which the
 * first `captured` bytes are at file offset `offset` of the image; the rest was not dumped or is
 * past the end of a truncated file. */
struct ci_segment {
	uint64_t start, end;
	uint64_t offset;
	uint64_t captured;
	uint32_t flags;           /* PF_R/PF_W/PF_X for cores, the same bits for /proc maps */
	uint32_t index;           /* program header number (cores), for messages */
};

/* ci_source_read without an error object, for the reads that may miss by design (decode's
 * entries, locate's probes, the unwinder's memory callback): OK, UNAVAILABLE (not in the
 * input), FAILED (the file shrank while it was read).  ci_source_read says why in a sentence. */
enum ci_read { CI_READ_OK = 0, CI_READ_UNAVAILABLE, CI_READ_FAILED };

/* How a live process's memory is read and let go: the opener of a pid source sets it
 * (source_pid.c); the reads of memory.c go through it, so the source object knows no process. */
struct ci_source_process {
	struct ci_error *(*read)(struct ci_source *src, uint64_t addr, void *buf, size_t len);
	enum ci_read (*read_quiet)(struct ci_source *src, uint64_t addr, void *buf, size_t len);
	void (*release)(struct ci_source *src);
};

struct ci_source {
	struct ci_source_info info;
	const struct ci_source_process *process; /* a live process's reader, or NULL: the image */
	struct ci_warnings warnings;
	struct ci_source_options opts;
	char *name;               /* for messages: the path, "pid 1234" or "buffer" */

	int fd;                   /* the file behind image (decompressed copy for .zst), or -1 */
	const uint8_t *image;     /* the input's bytes: mmap of the file or an owned copy */
	size_t image_size;
	bool image_mapped;        /* munmap() at close */
	void *owned_image;        /* free()d at close (buffer copies) */

	struct ci_segment *segs;  /* sorted by start, non-overlapping */
	size_t seg_count;

	struct Elf *elf;          /* libelf handle for core inputs (for libdwfl), or NULL */
	bool live;                /* reads may change between calls (pid, persistent file) */

	/* Core details used by locate. */
	uint64_t auxv_entry;      /* AT_ENTRY, 0 if unknown */

	/* Live process. */
	pid_t pid;
	int mem_fd;               /* /proc/PID/mem fallback, -1 until needed */
	bool vm_readv_failed;     /* process_vm_readv is not permitted: use mem_fd */
	uint32_t stopped_tid;     /* the thread ci_source_pid_stop holds stopped, 0 if none */
	int stopped_sig;          /* the signal it stopped for, delivered when it is let go */
	uint32_t pending[16];     /* seized threads that did not stop in time */
	size_t pending_count;

	uint16_t machine;         /* e_machine of a core; the reader's own for a pid */
	uint64_t (*thread_regs)[CI_PRSTATUS_NREGS]; /* every register of each NT_PRSTATUS thread */
	uint64_t vdso_start, vdso_end; /* the vDSO (AT_SYSINFO_EHDR or [vdso]), 0 if unknown */
	int guard;                /* slot of the mapping in the SIGBUS guard, or -1 */
	uint64_t shrunk_to;       /* the file's size once it was seen to shrink (see memory.c) */
	bool shrink_seen;         /* the shrink was turned into a warning and smaller segments */

	uint64_t max_decompressed;/* bound on zstd output; UINT64_MAX = none */
	bool decompressed;        /* image is our decompressed copy: never decompress twice */
	uint64_t progress_ns;     /* when progress was last printed; 0 = nothing on screen */
	unsigned refs;            /* the opener's, plus one per lazy model (ci_source_hold) */
};

/* memory.c */
struct ci_error *ci_source_new(enum ci_source_kind kind, const char *name,
			       const struct ci_source_options *opts, struct ci_source **ret);
/* Another reference to SRC, released by ci_source_close (which closes at the last one). */
struct ci_source *ci_source_hold(struct ci_source *src);
/* Open SIZE bytes at IMAGE as if they were a file's content (the core fuzzer's entry point).
 * The caller keeps IMAGE alive until ci_source_close and until every lazy model decoded from it
 * is destroyed.  A zstd image decompresses to at most MAX_DECOMPRESSED bytes (0: what
 * OPTS->max_core_size says). */
struct ci_error *ci_source_open_memory(const char *name, const uint8_t *image, size_t size,
				       const struct ci_source_options *opts,
				       uint64_t max_decompressed, struct ci_source **ret);
struct ci_error *ci_source_add_segment(struct ci_source *src, const struct ci_segment *seg);
/* Map SIZE bytes of FD read-only (FLAGS: MAP_SHARED or MAP_PRIVATE) under the SIGBUS guard, so a
 * file that shrinks while it is read makes reads fail instead of killing the reader; NULL on
 * failure.  ci_source_guard_remove lets go of SRC's guarded mapping (before it is replaced). */
void *ci_source_map(struct ci_source *src, int fd, size_t size, int flags);
void ci_source_guard_remove(struct ci_source *src);
/* Whether a read of SRC's guarded mapping faulted (the file shrank; the page read as zeros). */
bool ci_source_guard_faulted(const struct ci_source *src);
/* Sort segments by address and drop overlapping ones with a warning. */
void ci_source_sort_segments(struct ci_source *src);
/* Open PATH for reading only if it is a regular file, without ever opening anything else: the
 * path is first opened with O_PATH (which does not open a FIFO or a device, so nothing blocks
 * and no driver acts), checked with fstat, and then reopened through /proc/self/fd as
 * O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC and checked again to be the same regular file.
 * Returns the descriptor, or -1 with errno set: EINVAL for "not a regular file", with
 * *MODE_RET (if given) the st_mode of what it is instead (ci_file_kind names it). */
int ci_open_regular(const char *path, unsigned *mode_ret);
/* What a file of mode MODE is when it is not a regular file ("a pipe (FIFO)", "a device"...),
 * NULL for a regular file. */
const char *ci_file_kind(unsigned mode);
/* The segment holding ADDR, or NULL. */
const struct ci_segment *ci_source_segment(const struct ci_source *src, uint64_t addr);
/* Pointer to LEN captured bytes at ADDR inside the image, or NULL (not captured, spans a
 * segment boundary, or a live pid). */
const uint8_t *ci_source_peek(const struct ci_source *src, uint64_t addr, size_t len);
/* The pages wholly inside [P, P + LEN) of a mapped image are not needed for a while: give
 * them back (the file keeps them; a later read maps them again).  Nothing for other images. */
void ci_source_release(const struct ci_source *src, const uint8_t *p, size_t len);
/* A pass that reads a mapped image forwards gives back what lies behind it: the pages from
 * *RELEASED up to the one holding P (which stays: an entry may lie across it), *RELEASED
 * then moved to that page.  Page by page: the page cache may map the input in folios of up to
 * 2 MiB, and a page left on each side of every release, touched again by the next read, kept
 * such folios mapped (16 MiB of a 134 MiB allocation table scanned 256 KiB at a time). */
void ci_source_release_behind(const struct ci_source *src, const uint8_t **released, const uint8_t *p);
/* Bytes readable from ADDR on without a gap, up to MAX. */
uint64_t ci_source_available(struct ci_source *src, uint64_t addr, uint64_t max);
/* Progress on stderr when opts.progress is set: DONE of TOTAL units of WHAT; total 0 ends it. */
void ci_progress(struct ci_source *src, const char *what, uint64_t done, uint64_t total);

/* The mapped image of SRC shrank since it was opened (a SIGBUS was caught): shrink the
 * segments to what the file still holds and warn once.  Cheap when nothing happened. */
void ci_source_check_shrink(const struct ci_source *src);
/* The machine (EM_X86_64, EM_AARCH64) whose memory SRC holds; 0 if unknown. */
uint16_t ci_source_machine(const struct ci_source *src);
/* All registers of thread I of a core (in NT_PRSTATUS order: user_regs_struct on x86-64,
 * user_pt_regs on aarch64), or NULL when the source has none.  *NREGS gets their count. */
const uint64_t *ci_source_thread_regs(const struct ci_source *src, size_t i, size_t *nregs);

/* source_modules.c: the ELF modules the memory of a core or live process shows, from the ELF
 * headers at the start of its file mappings (NT_FILE, /proc/PID/maps) and the vDSO.  Only
 * bytes of the source are read; no file is opened. */
struct ci_module {
	uint64_t start, end;      /* what libdwfl's dwfl_report_module takes: the first PT_LOAD's
				   * p_vaddr & -p_align, and the end of the last one, plus bias */
	uint64_t bias;            /* load bias: address = p_vaddr + bias */
	uint64_t map_start, map_end; /* the file mapping whose offset 0 holds the ELF header */
	const char *path;         /* that mapping's path (info.mappings); NULL for the vDSO */
	uint8_t build_id[64];
	size_t build_id_len;      /* 0: none found in memory */
	uint64_t build_id_addr;   /* where the build-id note's bits lie */
	uint16_t type;            /* ET_EXEC or ET_DYN */
	bool vdso;
	bool executable;          /* the program itself (holds AT_ENTRY, or /proc/PID/exe) */
	bool header_in_memory;    /* false: only the executable's mapping, whose header is not
				   * in a core; its layout must come from the file */
};
/* The modules, sorted by start, without overlaps, at most CI_MAX_MODULES (warnings on SRC say
 * what was left out).  Free *RET with free(). */
struct ci_error *ci_source_modules(struct ci_source *src, struct ci_module **ret, size_t *count);

/* source_elf.c: parse SRC->image as an ELF core (kernel or gcore). */
struct ci_error *ci_source_load_core(struct ci_source *src);
/* source_zstd.c: decompress IMAGE into an unlinked temporary file; *fd_ret is its descriptor. */
struct ci_error *ci_source_decompress(struct ci_source *src, const uint8_t *image, size_t size,
				      int *fd_ret, uint64_t *size_ret);
bool ci_is_zstd(const uint8_t *image, size_t size);

/* The temporary copies of an input (a decompressed .zst, standard input spooled by ci_spool):
 * an unlinked file in $TMPDIR (O_TMPFILE, else mkstemp + unlink), else a memfd, in which case
 * *WHERE is CI_SCRATCH_MEMFD; -1 with errno on failure. */
#define CI_SCRATCH_MEMFD "memory (memfd)"
int ci_scratch_open(const char **where);
/* Write N bytes at OFF of FD, leaving whole 4 KiB zero blocks as holes (the file is sized with
 * ftruncate at the end); *WRITTEN grows by the bytes that take space.  -1 with errno. */
int ci_scratch_write(int fd, const uint8_t *p, size_t n, uint64_t off, uint64_t *written);
/* The bounds on one copy and what has been used of them, with the words for its messages. */
struct ci_scratch {
	struct ci_source *src;    /* the zstd source, NULL for a spool */
	const char *name;         /* the input, for messages */
	const char *doing;        /* "decompressing" */
	const char *done;         /* "decompressed" */
	const char *instead;      /* what the user can do instead ("decompress it yourself ...") */
	const char *where;        /* the temporary directory, for messages */
	bool check_space;         /* a file system we can ask (not a memfd) */
	uint64_t limit;           /* max_core_size; UINT64_MAX: none */
	uint64_t fsize;           /* RLIMIT_FSIZE; UINT64_MAX: none */
	uint64_t written;         /* bytes that take space (zero blocks are holes) */
	uint64_t next_check;      /* written at which the free space is looked at again */
};
/* The file size limit (ulimit -f) in bytes, UINT64_MAX for none. */
uint64_t ci_scratch_fsize_limit(void);
/* Whether the temporary file system still has room beyond the reserve (5%, at most 1 GiB),
 * looked at every 16 MiB written; TOTAL is the copy's length so far. */
struct ci_error *ci_scratch_check_space(struct ci_scratch *bg, int fd, uint64_t total);
/* SIGXFSZ, which a write past the file size limit raises, is held off in this thread so that
 * the write fails with EFBIG instead; one raised meanwhile is taken back afterwards. */
struct ci_xfsz_hold {
	sigset_t old;
	bool was_pending;
};
void ci_xfsz_hold(struct ci_xfsz_hold *h);
void ci_xfsz_release(struct ci_xfsz_hold *h);
/* source_pid.c: the live-process reader. */
struct ci_error *ci_source_read_pid(struct ci_source *src, uint64_t addr, void *buf, size_t len);
enum ci_read ci_source_read_pid_quiet(struct ci_source *src, uint64_t addr, void *buf, size_t len);
enum ci_read ci_source_read_quiet(struct ci_source *src, uint64_t addr, void *buf, size_t len);
/* Stop thread TID of a live process and read its registers (PTRACE_GETREGSET NT_PRSTATUS:
 * x86-64 user_regs_struct, aarch64 user_pt_regs) into REGS (CI_PRSTATUS_NREGS of them; *NREGS
 * gets how many came).  PTRACE_SEIZE + PTRACE_INTERRUPT: no SIGSTOP is sent, so the thread
 * runs on when the reader dies, whatever kills it.  At most one thread is held at a time;
 * waits at most TIMEOUT_MS for it to stop (a thread in uninterruptible sleep does not).
 * Returns 0, or an errno value (EPERM: traced by a debugger or not permitted; ETIMEDOUT). */
int ci_source_pid_stop(struct ci_source *src, uint32_t tid, unsigned timeout_ms, uint64_t *regs,
		       size_t *nregs);
/* Let the thread ci_source_pid_stop stopped run on (and deliver what it stopped for). */
void ci_source_pid_resume(struct ci_source *src, uint32_t tid);
/* Let go of every thread still held or seized (ci_source_close does this too). */
void ci_source_pid_release_all(struct ci_source *src);
/* The first 8 bytes of COUNT pages from ADDR on; returns how many were readable (stops at the
 * first unreadable page). */
size_t ci_source_pid_page_heads(struct ci_source *src, uint64_t addr, uint64_t page_size,
				size_t count, uint64_t *heads);

/* locate.c: whether H can be a record's header (WHY: what is wrong), for locate's magic scan
 * and for decode. */
bool ci_header_plausible(const struct ci_header *h, const char **why);


#endif /* CI_SOURCE_H */
