/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: stage 3, the model (corefile/model/).  decode.c judges and copies
 * the record's sections (header, directory, tables, rings); entries.c says what each section's
 * entries are and checks their references; order.c puts ring and allocation entries in the
 * model's order; access.c holds the model's accessors, including the lazy and sparse ones; facts.c
 * what the record says of its own progress; labels.c how the model's things are named in reports.
 *
 * The later stages read the model through the public struct ci_model and the first part of this
 * header: what diagnose reads of every launch and every live allocation, for every kind of model.
 * A lazy model (ci_decode_options.lazy) keeps the launch and allocation fields diagnose reads,
 * checked, for all its entries while the entries themselves stay in the input; a sparse model
 * (ci_decode_options.sparse) has not read its allocation table at all and looks allocations up
 * where they lie.  These accessors hide the difference.  The second part is the decoder's own:
 * the section layouts, the publishing rules an entry is judged by (record.h) and its state.
 */
#ifndef CI_MODEL_H
#define CI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"
#include "source/source.h"

struct ci_launch_brief {
	uint64_t time_ns;
	uint64_t stream_seq;
	uint32_t stream;          /* model stream slot or CI_NONE */
	uint32_t flags;           /* CI_LAUNCH_* */
};

struct ci_alloc_brief {
	uint64_t address;
	uint64_t size;
	uint32_t kind;            /* enum ci_alloc_kind */
};

/* The briefs of all launches, launch i's at base + i * stride. */
struct ci_launch_briefs {
	const uint8_t *base;
	size_t stride;
};

static inline const struct ci_launch_brief *ci_brief_at(struct ci_launch_briefs v, size_t i)
{
	return (const struct ci_launch_brief *)(const void *)(v.base + i * v.stride);
}

/* A lazy model's launch briefs where they are, or { NULL, 0 } for other models (read those one
 * by one with ci_model_launch_brief). */
struct ci_launch_briefs ci_model_launch_briefs(const struct ci_model *model);

/* Whether launch I (< launch_count) of MODEL may be one of the newest WINDOW entries of the
 * launch ring, decided without loading it: by its seq where the model holds entries, else by
 * the ring slot it was read from (an entry there may still be an older one: load it and check
 * its seq).  False only for launches that are certainly older. */
bool ci_model_launch_maybe_newest(const struct ci_model *model, size_t i, uint64_t window);

/* Launch I (< launch_count) and live allocation I (< alloc_count) of MODEL, briefly. */
void ci_model_launch_brief(const struct ci_model *model, size_t i, struct ci_launch_brief *b);
void ci_model_alloc_brief(const struct ci_model *model, size_t i, struct ci_alloc_brief *b);

/* A live allocation as ci_model_each_alloc hands it over: what lookups compare, and a handle
 * that ci_model_alloc_at turns into the whole entry. */
struct ci_alloc_ref {
	uint64_t address;
	uint64_t size;
	uint64_t id;
	uint32_t kind;
	uint64_t handle;
};

typedef void ci_alloc_visit(const struct ci_alloc_ref *a, void *arg);

/* Call VISIT for every live allocation of MODEL, in no particular order: the model's array, a
 * lazy model's keys, or, in a sparse model, every slot of the table in the input that decode's
 * rules accept (judged then; nothing is copied).  Returns the number visited. */
size_t ci_model_each_alloc(const struct ci_model *model, ci_alloc_visit *visit, void *arg);
/* The live allocation behind HANDLE, owned by MODEL and valid until ci_model_destroy (a sparse
 * model copies and checks it on first use); NULL when it cannot be read any more. */
const struct ci_alloc *ci_model_alloc_at(const struct ci_model *model, uint64_t handle);

/* Format 1.5 and later: a graph launch is the launch entry of api graph, which holds the exec's
 * slot and the replay number (the recorder writes no graph-launch ring entries any more);
 * before, the graph-launch ring held them. */
static inline bool ci_model_graph_launches_in_launches(const struct ci_model *model)
{
	return model->header.major > 1 || model->header.minor >= 5;
}
/* The graph launch that L, a launch of api graph of a 1.5 record, is. */
static inline struct ci_graph_launch ci_graph_launch_of_launch(const struct ci_launch *l)
{
	return (struct ci_graph_launch){ .seq = l->seq, .time_ns = l->time_ns, .exec_handle = l->aux,
					 .replay = l->replay, .launch_seq = l->seq,
					 .stream_seq = l->stream_seq, .exec = l->exec,
					 .stream = l->stream, .tid = l->tid, .result = l->result };
}

/* Launch I and live allocation I of MODEL, in the model's order, for the stages after decode:
 * ci_model_launch and ci_model_alloc (a lazy model's entry is copied from the input and its
 * references checked on first use).  The renderers use ci_model_launch_loaded and
 * ci_model_alloc_loaded, which never copy: NULL for an entry a lazy model has not loaded. */
#define ci_model_load_launch ci_model_launch
#define ci_model_load_alloc ci_model_alloc
const struct ci_launch *ci_model_launch_loaded(const struct ci_model *model, size_t i);
/* Launch I of MODEL copied into *OUT and its references checked, without keeping it (a lazy
 * model's entry stays unloaded): for counting what a view does not show.  False when I is out
 * of range or the model has no such entry. */
bool ci_model_launch_peek(const struct ci_model *model, size_t i, struct ci_launch *out);
/* The same for live allocation I (< alloc_count): a lazy model's entry stays unloaded. */
bool ci_model_alloc_peek(const struct ci_model *model, size_t i, struct ci_alloc *out);
/* Give back the pages of the input that a lazy model's launch ring (allocation table) was read
 * from (after many peeks; they are read again if needed): the memory counted is what is kept. */
void ci_model_launches_release(const struct ci_model *model);
void ci_model_allocs_release(const struct ci_model *model);
/* A pass that reads launches into scratch copies (peeks) or loads them calls this after its
 * READS-th read (counting from 1): every 4,096 (1 MiB of the input, read in ring order) it gives
 * the pages back. */
void ci_model_launches_read(const struct ci_model *model, size_t reads);
/* Allocations are in address order, which is no order in the table: a pass reads them in
 * sweeps over the table, each of at most 65,536 allocations read in the order of their slots
 * and the pages given back behind it, so the input it maps stays small (a few MiB) whatever
 * the table holds.  Read one by one, a pass over a million allocations mapped all 115 MiB of
 * their table (the page cache maps 2 MiB at a time where it holds the input in large folios).
 *
 * Load (as ci_model_load_alloc) MODEL's live allocations FROM .. TO - 1 that WANT marks (one
 * byte each, indexed like the allocations; NULL: all), in sweeps.  Nothing to do for a model
 * that is not lazy.  -1 on out-of-memory. */
int ci_model_allocs_load(const struct ci_model *model, const uint8_t *want, size_t from, size_t to);
/* A pass over MODEL's live allocations below TO in the model's order that does not keep them
 * (the full JSON document, the allocs view): ci_alloc_walk_at(W, I) is allocation I, loaded,
 * else read with the next ones below TO, up to 65,536, in one sweep into the walk's window
 * (6 MiB; without room for it, alone), valid until the next call; NULL when the model has no
 * allocation I. */
struct ci_alloc_walk {
	const struct ci_model *m;
	size_t to;
	size_t from, n;           /* the window: allocations FROM .. FROM + N - 1 */
	struct ci_alloc *window;
	uint64_t *order;          /* room for a sweep's slots, twice */
	struct ci_alloc one;      /* out of memory: the one asked for */
};
void ci_alloc_walk_init(struct ci_alloc_walk *w, const struct ci_model *model, size_t to);
const struct ci_alloc *ci_alloc_walk_at(struct ci_alloc_walk *w, size_t i);
void ci_alloc_walk_deinit(struct ci_alloc_walk *w);
const struct ci_alloc *ci_model_alloc_loaded(const struct ci_model *model, size_t i);

/* The stream slot is valid and was published. */
bool ci_stream_valid(const struct ci_model *model, uint32_t slot);
/* The latest monotonic time the record knows: the fatal/exit time, else the newest entry. */
uint64_t ci_model_end_ns(const struct ci_model *model);

/* ---------------------------------------------------------------------------------------- */
/* What the record says of its own progress (facts.c)                                         */

/* Launches per stream that the diagnosis weighs when nothing bounds a stream's unfinished work
 * (no breadcrumbs and no synchronization): the newest this many. */
#define CI_OPEN_WINDOW_MAX 128
/* A launch call that failed is recorded at the start of the call, its error at the end: the
 * failed launch behind an API error is one made at most this long before the error. */
#define CI_FAILED_LAUNCH_NS 1000000ull

/* The record's error timeline as the evidence stage takes it (struct ci_evidence). */
struct ci_error_facts {
	ptrdiff_t first_sticky_error;  /* index into model->errors, or -1 */
	ptrdiff_t last_error;          /* the last error that is not CUDA_ERROR_NOT_READY, or -1 */
	bool failed_launch_window;     /* no sticky error: the failed launch behind the last error */
	uint64_t failed_launch_from, failed_launch_to;
};

/* The error timeline of M into *F and, when STREAMS is not NULL, each stream's breadcrumb and
 * synchronization bound into STREAMS[0 .. m->stream_count).  Reads the tables, the breadcrumbs
 * and the small rings (errors, events), never the launches or allocations.  -1 on
 * out-of-memory. */
int ci_model_facts(const struct ci_model *m, struct ci_error_facts *f, struct ci_stream_facts *streams);

/* What the diagnosis will weigh of one stream's launches: those numbered past LO up to HI.
 * With a breadcrumb, LO is the breadcrumb, or the launches a synchronization of the stream found
 * handed out (ci_stream_facts.synced_seq) where that is more.  Without one, LO is that count
 * (0: none), and how far past it is not known before the launches are read: the launches made
 * before SYNC_NS had finished (0: no synchronization says so), else the newest
 * CI_OPEN_WINDOW_MAX count. */
struct ci_launch_need {
	bool open;                /* the stream has unfinished work to find */
	bool by_crumb;
	uint64_t lo, hi;
	uint64_t sync_ns;
};
/* What a sparse decode must read of M's launch ring: NEEDS[0 .. m->stream_count), and in
 * *EARLIEST the start of the failed-launch window (UINT64_MAX: none).  -1 on out-of-memory. */
int ci_model_launch_needs(const struct ci_model *m, struct ci_launch_need *needs, uint64_t *earliest);

/* ---------------------------------------------------------------------------------------- */
/* Names in reports (labels.c): scrubbed, the record is untrusted input                       */

/* The kernel name of launch L, demangled and scrubbed, or "<unknown function 0x…>". */
char *ci_launch_kernel_name(const struct ci_model *model, const struct ci_launch *l, char *buf,
			    size_t n);
/* "stream 0x55d0c0a0", "the legacy default stream", "the per-thread default stream of thread
 * 4242", "an unknown stream" */
char *ci_stream_label(const struct ci_model *model, uint32_t slot, char *buf, size_t n);
/* Thread name from the record's thread table, scrubbed, or "" */
char *ci_thread_name(const struct ci_model *model, uint32_t tid, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------- */
/* The decoder's own                                                                          */

/* Copy of a fixed char field, NUL-terminated in place. */
#define CI_TERMINATE(field) ((field)[sizeof(field) - 1] = 0)

/* How a section's entries are laid out (record.h). */
enum layout {
	LAYOUT_TABLE,     /* append-only: slot i holds seq i + 1 */
	LAYOUT_RING,      /* slot (seq - 1) % capacity, several laps */
	LAYOUT_ALLOCS,    /* open-addressed by address, seq = allocation id */
	LAYOUT_BYTES,     /* byte or word area without seq */
};

struct section_kind {
	enum layout layout;       /* 0 (LAYOUT_TABLE) for ci_section_kinds this reader does not know: see
				   * ci_section_title */
	uint32_t size;            /* bytes this reader knows (minimum entry_size) */
	uint32_t fixed_size;      /* byte areas: required entry_size (0 = any >= size) */
	/* Rings and the allocation table: the model's order is by the 64-bit fields at these
	 * offsets (time then seq; free time then seq; address then id). */
	uint16_t order_major, order_minor;
};


/* Entry states while reading. */
enum { ENTRY_OK = 0, ENTRY_MISSING = 1, ENTRY_TORN = 2 };

/* Clears references that point nowhere in entries of a model, counting them unless the
 * counters are NULL (entries a lazy model copies later were counted when decoded).  On a live
 * source a reference to an entry that the writer published after its table was read (below the
 * table's head as read again now) is not damage: it is counted as late. */
struct refcheck {
	const struct ci_model *m;
	uint64_t *bad_refs, *unresolved, *late;   /* per section kind */
	const uint64_t *heads;    /* live sources: each section's head as last read, else NULL */
};

struct decoder {
	struct ci_source *src;
	struct ci_model *m;
	uint64_t base;
	bool live;
	bool lazy;                /* ci_decode_options.lazy */
	struct ci_section secs[CI_SECTION_KIND_MAX];
	bool usable[CI_SECTION_KIND_MAX];
	uint64_t dir_entry_addr[CI_SECTION_KIND_MAX]; /* for re-reading head on live sources */
	uint64_t bad_refs[CI_SECTION_KIND_MAX];   /* point nowhere: damage */
	uint64_t unresolved[CI_SECTION_KIND_MAX]; /* point into a part the input lacks */
	uint64_t late[CI_SECTION_KIND_MAX];       /* live: point to entries published meanwhile */
	uint64_t live_heads[CI_SECTION_KIND_MAX]; /* live: every section's head as last read */
	bool sparse;              /* ci_decode_options.sparse */
	struct ci_launch_filter list;             /* ci_decode_options.list, when sparse */
	bool every_alloc;                         /* ci_decode_options.every_alloc */
	void *scratch;                            /* the radix sort's key indexes (order.c) */
	size_t scratch_size;
	struct refcheck rc;                       /* over m, counting into the two above */
};


/* The layouts and known sizes of the sections this reader knows, by kind (entries.c). */
extern const struct section_kind ci_section_kinds[CI_SECTION_KIND_MAX];

/* ---------------------------------------------------------------------------------------- */
/* Judging an entry                                                                           */

enum verdict { V_SKIP, V_ACCEPT, V_TORN, V_INVALID };

/* The numbers an entry is judged against: its section's capacity and head as last read. */
struct judge {
	uint32_t kind;
	uint64_t cap, head;
	uint64_t lap_base;        /* rings: seq - 1 of slot 0 in the newest lap (no division per entry) */
};

static inline struct judge ci_judge_make(uint32_t kind, uint64_t cap, uint64_t head)
{
	return (struct judge){ kind, cap, head, head ? (head - 1) / cap * cap : 0 };
}

/* What the publishing rules of record.h make of entry E (at least the bytes this reader knows)
 * found in SLOT. */
static inline enum verdict ci_classify(const struct judge *j, const uint8_t *e, uint64_t slot)
{
	enum layout layout = ci_section_kinds[j->kind].layout;
	uint64_t seq = ci_le64(e), cap = j->cap;
	if (seq == CI_SEQ_BUSY)
		return V_TORN;
	if (seq == 0)
		return V_SKIP;
	if (layout == LAYOUT_ALLOCS) {
		struct ci_alloc a;
		memcpy(&a, e, sizeof a);
		if (a.state == CI_ALLOC_EMPTY || a.state == CI_ALLOC_TOMB)
			return V_SKIP;
		if (a.state == CI_ALLOC_FREEING)
			return V_TORN; /* between the table and the free ring */
		uint64_t home = ci_alloc_hash(a.address) % cap, end;
		uint64_t dist = slot >= home ? slot - home : slot + cap - home;
		return a.state == CI_ALLOC_LIVE && a.id == seq && dist < CI_ALLOC_PROBE_MAX &&
			       ci_add(a.address, a.size, &end) ? V_ACCEPT : V_INVALID;
	}
	/* In its slot: (seq - 1) % capacity == slot.  Most entries are of the newest lap or the one
	 * before, which is checked without dividing. */
	uint64_t s1 = seq - 1;
	bool in_slot = layout == LAYOUT_TABLE ? s1 == slot
		       : s1 == slot + j->lap_base || (j->lap_base >= cap && s1 == slot + j->lap_base - cap) ||
				 s1 % cap == slot;
	/* Published after `head` was copied (a snapshot taken while other threads ran): whole,
	 * probably, but outside what record.h lets a reader trust. */
	if (in_slot && seq > j->head && seq - j->head <= cap)
		return V_TORN;
	if (!in_slot || seq > j->head)
		return V_INVALID;
	/* The free ring holds FREED copies only. */
	if (j->kind == CI_SEC_FREES) {
		uint32_t state;
		memcpy(&state, e + offsetof(struct ci_alloc, state), sizeof state);
		if (state != CI_ALLOC_FREED)
			return V_INVALID;
	}
	return V_ACCEPT;
}

static inline void ci_count_verdict(struct ci_section_stats *stats, enum verdict v)
{
	stats->accepted += v == V_ACCEPT;
	stats->torn += v == V_TORN;
	stats->invalid += v == V_INVALID;
}


/* ---------------------------------------------------------------------------------------- */
/* Ordering (order.c)                                                                         */

/* An accepted entry of a ring or of the allocation table on its way into the model: the field
 * that orders it (time, free time, address), where it is, and what diagnose reads of every
 * launch and allocation, with its references checked (a lazy model keeps these).  Slots fit in
 * 32 bits: a section lies inside a record of at most 64 GiB, and these entries are >= 72 bytes. */
struct order_key {
	union {
		struct {
			uint64_t major;
			uint64_t extra;   /* launches: stream_seq; allocations: size */
			uint32_t a;       /* launches: stream slot; allocations: kind */
			uint32_t b;       /* launches: flags; allocations: the id's low half */
		};
		struct ci_launch_brief launch; /* the same, as diagnose reads them */
		struct ci_alloc_brief alloc;
	};
	uint32_t slot;
	uint32_t c;               /* allocations: the id's high half, b its low half */
};
_Static_assert(offsetof(struct ci_launch_brief, stream_seq) == 8 && offsetof(struct ci_launch_brief, stream) == 16 &&
		       offsetof(struct ci_launch_brief, flags) == 20 && offsetof(struct ci_alloc_brief, kind) == 16,
	       "briefs overlay the keys");

/* The accepted entries of one section: entry `slot` is at ENTRIES + slot * STRIDE. */
struct ordering {
	uint32_t kind;
	const uint8_t *entries;
	size_t stride;
	struct order_key *keys;   /* accepted entries, in slot order until sorted */
	size_t n, cap;
};

void ci_ordering_deinit(struct ordering *o);
/* Take accepted entry E in SLOT of O's section, its references checked and counted. */
bool ci_ordering_add(struct decoder *d, struct ordering *o, const uint8_t *e, uint64_t slot);
/* Sort O's keys into the model's order, in place (false on out-of-memory). */
bool ci_sort_ordering(struct decoder *d, struct ordering *o);
/* Copy O's entries, in order, into *RET (COUNT of them), judged again on the copy. */
struct ci_error *ci_order_entries(struct decoder *d, struct ordering *o, void **ret, size_t *count);
/* malloc for arrays of several MiB, on transparent huge pages where offered; free() it. */
void *ci_alloc_big(size_t size);

/* ---------------------------------------------------------------------------------------- */
/* Lazy and sparse models (access.c)                                                          */

/* A section of a lazy model: its accepted entries stay where they are in the input. */
struct lazy_section {
	const uint8_t *entries;   /* entry `slot` at entries + slot * stride, in the source's image */
	size_t stride;
	size_t span;              /* bytes of the section in the input */
	struct order_key *keys;   /* the model's order */
	uint8_t *copies;          /* entry i at copies + i * (known size), copied on first use */
	uint8_t *copied;          /* one bit per entry */
};

/* A sparse model's allocation table, unread, where it lies in the input. */
struct alloc_table {
	const uint8_t *entries;   /* slot s at entries + s * stride; NULL when not kept */
	size_t stride;
	struct judge judge;
	/* The record's bitmap of granules ever written (CI_SEC_ALLOC_GRANULES), covering the whole
	 * table; NULL when it has none (before format 1.3), and then every slot is looked at. */
	const uint8_t *granules;
	/* Allocations the record says are live at least (ids handed out less frees recorded): a
	 * pass over the marked granules that finds fewer reads every slot instead. */
	uint64_t min_live;
	uint8_t granule_check;    /* 0: not made yet; 1: the bitmap holds up; 2: it does not */
	struct ci_alloc **fetched; /* copies handed out by ci_model_alloc_at, by slot */
	uint64_t *fetched_slot;
	size_t nfetched, fetched_cap;
};

struct ci_model_lazy {
	struct ci_source *src;    /* a reference, which keeps the input mapped */
	struct lazy_section launches, allocs;
	struct alloc_table table;
};

/* The model's link to the input it keeps entries in, made on first use. */
struct ci_error *ci_lazy_of(struct decoder *d, struct ci_model_lazy **ret);
/* Keep O's entries (sorted) in the input: the model gets their count, and copies on demand. */
struct ci_error *ci_keep_lazily(struct decoder *d, struct ordering *o, size_t *count);
void ci_lazy_destroy(struct ci_model_lazy *lazy);

/* ---------------------------------------------------------------------------------------- */
/* References (entries.c)                                                                     */

/* Clear the references of ENTRY (of section KIND) that point nowhere, counting them in R. */
void ci_check_entry(struct refcheck *r, uint32_t kind, void *entry);
/* The tables' references, once all tables are in; then one warning per section whose
 * references had to be cleared. */
void ci_check_tables(struct decoder *d);
void ci_report_references(struct decoder *d);
/* decode.c: on a live source, read every section's head again (references below it are late). */
void ci_refresh_live_heads(struct decoder *d);

#endif /* CI_MODEL_H */
