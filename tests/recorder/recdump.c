/* SPDX-License-Identifier: MIT */
/*
 * recdump: print a flight record one entry per line, for the recorder's shell tests.  The
 * record is found and decoded by the reader library (ci_source_open, ci_locate, ci_decode), so
 * the tests see exactly what the reader accepts; this program only prints.  Lines start with
 * the entry kind followed by key=value words (names resolved), for grep and awk.
 *
 *   recdump FILE|core            every entry (the 1.2 sections: "ncclcomm", "ncclcall" with
 *                                where the call stands by its stream's breadcrumb, "job",
 *                                "peer"), then the header's clocks and the kernel-log section's
 *                                lines ("klog LINE")
 *   recdump --pid PID            a live process
 *   recdump --storm FILE         check launches of storm_probe against the launch-storm contract
 *                                (testcases/engine/storm.h) and print "storm ok=N bad=M ..."
 *   recdump --params FILE        check every launch's parameter bytes against docs/FORMAT.md:
 *                                zero between parameters and past param_len; print
 *                                "params ok=N bad=M lengths=K failed=F padded=P"
 *
 * Exit status: 0, or the reader's exit code (3 bad input, 4 no record) with its message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudainspect/cudainspect.h"
#include "../../testcases/engine/storm.h"
#include "sections.h"

static const struct ci_model *M;

static const char *str(uint32_t off)
{
	return ci_model_string(M, off);
}

static const char *fname(uint32_t slot)
{
	if (slot == CI_NONE || slot >= M->function_count || !M->functions[slot].seq)
		return "-";
	const char *n = str(M->functions[slot].name_str);
	return *n ? n : "?";
}

static void slotword(const char *key, uint32_t v)
{
	if (v == CI_NONE)
		printf(" %s=-", key);
	else
		printf(" %s=%u", key, v);
}

/* "module+0xoff" for a return address, from the record's own host module table. */
static void print_frame(uint64_t pc)
{
	for (size_t i = 0; i < M->host_module_count; i++) {
		const struct ci_host_module *h = &M->host_modules[i];
		if (h->seq && pc >= h->start && pc < h->end) {
			const char *p = str(h->path_str), *b = strrchr(p, '/');
			printf("%s+0x%" PRIx64, b ? b + 1 : p, pc - h->base);
			return;
		}
	}
	printf("0x%" PRIx64, pc);
}

static void print_stack(const char *key, uint32_t id)
{
	size_t n = 0;
	const uint64_t *f = ci_model_stack(M, id, &n);
	printf(" %s=%u:", key, id);
	for (size_t i = 0; i < n; i++) {
		if (i)
			printf(",");
		print_frame(f[i]);
	}
}

/* Words of the 1.2 enums, from record.h's lists (the reader has no names for them yet). */
#define WORD_OF(name, value, word, ...) [value] = word,
static const char *const nccl_origin_words[16] = { CI_NCCL_ORIGINS(WORD_OF) };
static const char *const nccl_state_words[16] = { CI_NCCL_COMM_STATES(WORD_OF) };
static const char *const nccl_op_words[32] = { CI_NCCL_OPS(WORD_OF) };
static const char *const peer_kind_words[16] = { CI_PEER_KINDS(WORD_OF) };
#undef WORD_OF
#define WORD(table, v) ((v) < sizeof(table) / sizeof(table[0]) && table[v] ? table[v] : "?")

/* Where an NCCL call stands by its stream's breadcrumb (docs/FORMAT.md, "NCCL"). */
static const char *nccl_call_state(const struct ci_nccl_call *c, uint64_t *crumb)
{
	*crumb = 0;
	if (c->stream == CI_NONE || c->stream >= M->stream_count || !M->streams[c->stream].seq)
		return "unknown";
	const struct ci_stream *s = &M->streams[c->stream];
	if (s->crumb_slot < M->crumb_count)
		*crumb = M->crumbs[s->crumb_slot];
	if (!c->stream_seq || !(c->flags & CI_NCCL_CALL_CRUMB))
		return "unknown";
	if (*crumb >= c->stream_seq)
		return "finished";
	if (*crumb >= c->stream_prior)
		return "in_flight";
	return "not_started";
}

static void dump_nccl(void)
{
	for (size_t i = 0; i < M->nccl_comm_count; i++) {
		const struct ci_nccl_comm *c = &M->nccl_comms[i];
		if (!c->seq)
			continue;
		printf("ncclcomm slot=%zu handle=0x%" PRIx64 " id=%016" PRIx64 " parent=%016" PRIx64
		       " origin=%s state=%s rank=%d nranks=%d device=%d",
		       i, c->handle, c->comm_id, c->parent_id, WORD(nccl_origin_words, c->origin),
		       WORD(nccl_state_words, c->state), c->rank, c->nranks, c->device);
		slotword("ctx", c->ctx);
		printf(" colls=%" PRIu64 " p2p=%" PRIu64 " result=%d async=%d color=%d key=%d "
		       "flags=%u tid=%u ended=%d",
		       c->colls, c->p2p, c->result, c->async_error, c->color, c->key, c->flags,
		       c->tid, c->end_ns != 0);
		print_stack("stack", c->stack);
		printf("\n");
	}
	for (size_t i = 0; i < M->nccl_call_count; i++) {
		const struct ci_nccl_call *c = &M->nccl_calls[i];
		uint64_t crumb;
		const char *state = nccl_call_state(c, &crumb);
		printf("ncclcall seq=%" PRIu64 " op=%s", c->seq, WORD(nccl_op_words, c->op));
		slotword("comm", c->comm);
		printf(" id=%016" PRIx64 " op_seq=%" PRIu64 " count=%" PRIu64 " send=0x%" PRIx64
		       " recv=0x%" PRIx64 " dtype=%d redop=%d peer=%d",
		       c->comm_id, c->op_seq, c->count, c->sendbuff, c->recvbuff, c->datatype,
		       c->redop, c->peer);
		slotword("stream", c->stream);
		slotword("ctx", c->ctx);
		printf(" sseq=%" PRIu64 " prior=%" PRIu64 " crumb=%" PRIu64 " state=%s flags=0x%x "
		       "group=%u result=%d tid=%u duration=%" PRIu64,
		       c->stream_seq, c->stream_prior, crumb, state, c->flags, c->group, c->result,
		       c->tid, c->duration_ns);
		print_stack("stack", c->stack);
		printf("\n");
	}
	for (size_t i = 0; i < M->job_var_count; i++) {
		const struct ci_job_var *j = &M->job_vars[i];
		if (j->seq)
			printf("job name=%s value=%s\n", str(j->name_str), str(j->value_str));
	}
	for (size_t i = 0; i < M->peer_mem_count; i++) {
		const struct ci_peer_mem *p = &M->peer_mems[i];
		if (!p->seq)
			continue;
		printf("peer slot=%zu kind=%s address=0x%" PRIx64 " size=%" PRIu64 " handle=0x%" PRIx64
		       " key=%016" PRIx64 " alloc=%" PRIu64 " type=%u device=%d result=%d tid=%u",
		       i, WORD(peer_kind_words, p->kind), p->address, p->size, p->handle, p->key,
		       p->alloc_id, p->handle_type, p->device, p->result, p->tid);
		slotword("ctx", p->ctx);
		print_stack("stack", p->stack);
		printf("\n");
	}
}

static void dump(void)
{
	const struct ci_header *h = &M->header;
	printf("header major=%u minor=%u pid=%u ppid=%u state=%u origin=%u reason=%u flags=0x%x "
	       "fatal_signal=%d fatal_tid=%u fatal_si_code=%d fatal_addr=0x%" PRIx64
	       " first_sticky=%" PRIu64 " stack_mode=%u stack_depth=%u crumb_width=%u "
	       "crumb_every=%u crumb_us=%u crumb_budget_ppm=%u crumb_cost_ns=%u param_bytes=%u "
	       "size=%" PRIu64 " version=%s host=%s generation=%" PRIu64 "\n",
	       h->major, h->minor, h->pid, h->ppid, h->state, h->origin, h->snapshot_reason,
	       h->flags, h->fatal_signal, h->fatal_tid, h->fatal_si_code, h->fatal_addr,
	       h->first_sticky_error_seq, h->stack_mode, h->stack_depth, h->crumb_width,
	       h->crumb_every_launches, h->crumb_every_us, h->crumb_budget_ppm, h->crumb_cost_ns,
	       h->param_bytes_max, h->record_size,
	       h->recorder_version, h->host, h->write_generation);
	printf("process exe=%s cmdline=%s\n", str(h->exe_str), str(h->cmdline_str));
	for (int k = 1; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &M->sections[k];
		if (!s->present)
			continue;
		printf("section %s capacity=%" PRIu64 " head=%" PRIu64 " accepted=%" PRIu64
		       " torn=%" PRIu64 " invalid=%" PRIu64 " dropped=%" PRIu64 "\n",
		       section_words[k] ? section_words[k] : "?", s->capacity, s->head, s->accepted,
		       s->torn, s->invalid, s->dropped);
	}
	for (size_t i = 0; i < M->host_module_count; i++) {
		const struct ci_host_module *m = &M->host_modules[i];
		if (!m->seq)
			continue;
		printf("hostmod slot=%zu path=%s base=0x%" PRIx64 " build_id_len=%u unloaded=%d\n", i,
		       str(m->path_str), m->base, m->build_id_len, m->unload_ns != 0);
	}
	for (size_t i = 0; i < M->device_count; i++) {
		const struct ci_device *d = &M->devices[i];
		if (!d->seq)
			continue;
		printf("device slot=%zu ordinal=%d name=%.96s cc=%d.%d sm=%d mem=%" PRIu64
		       " pci=%.16s uuid0=%02x\n",
		       i, d->ordinal, d->name, d->cc_major, d->cc_minor, d->sm_count, d->total_mem,
		       d->pci_bus_id, d->uuid[0]);
	}
	for (size_t i = 0; i < M->thread_count; i++) {
		const struct ci_thread *t = &M->threads[i];
		if (t->seq)
			printf("thread slot=%zu tid=%u name=%.16s\n", i, t->tid, t->name);
	}
	for (size_t i = 0; i < M->context_count; i++) {
		const struct ci_context *c = &M->contexts[i];
		if (!c->seq)
			continue;
		printf("ctx slot=%zu handle=0x%" PRIx64 " id=%" PRIu64 " kind=%u", i, c->handle,
		       c->ctx_id, c->kind);
		slotword("device", c->device);
		printf(" flags=%u tid=%u destroyed=%d stack=%u\n", c->flags, c->create_tid,
		       c->destroy_ns != 0, c->create_stack);
	}
	for (size_t i = 0; i < M->stream_count; i++) {
		const struct ci_stream *s = &M->streams[i];
		if (!s->seq)
			continue;
		uint64_t crumb = s->crumb_slot < M->crumb_count ? M->crumbs[s->crumb_slot] : 0;
		printf("stream slot=%zu handle=0x%" PRIx64 " id=%" PRIu64 " kind=%s", i, s->handle,
		       s->stream_id, ci_stream_kind_name(s->kind));
		slotword("ctx", s->ctx);
		printf(" flags=%u prio=%d owner=%u launches=%" PRIu64 " crumb_enqueued=%" PRIu64
		       " crumb_skipped=%" PRIu64 " crumb_status=%s crumb=%" PRIu64 " destroyed=%d\n",
		       s->flags, s->priority, s->owner_tid, s->launches, s->crumb_enqueued,
		       s->crumb_skipped, ci_crumb_status_name(s->crumb_status), crumb,
		       s->destroy_ns != 0);
	}
	for (size_t i = 0; i < M->code_module_count; i++) {
		const struct ci_code_module *m = &M->code_modules[i];
		if (!m->seq)
			continue;
		printf("module slot=%zu handle=0x%" PRIx64 " kind=%u", i, m->handle, m->kind);
		slotword("ctx", m->ctx);
		printf(" source=%s size=%" PRIu64 " hash=0x%" PRIx64 " unloaded=%d\n",
		       str(m->source_str), m->image_size, m->image_hash, m->unload_ns != 0);
	}
	for (size_t i = 0; i < M->function_count; i++) {
		const struct ci_function *f = &M->functions[i];
		if (!f->seq)
			continue;
		printf("function slot=%zu handle=0x%" PRIx64 " kind=%u", i, f->handle, f->kind);
		slotword("module", f->code_module);
		printf(" name=%s nparams=%u known=%u layout=", fname((uint32_t)i), f->nparams,
		       f->params_known);
		for (uint32_t p = 0; p < f->nparams && p < CI_PARAMS_MAX; p++)
			printf("%s%u/%u", p ? "," : "", f->param_offset[p], f->param_size[p]);
		printf("\n");
	}
	for (size_t i = 0; i < M->launch_count; i++) {
		const struct ci_launch *l = &M->launches[i];
		printf("launch seq=%" PRIu64 " api=%s fn=%s", l->seq, ci_launch_api_name(l->api),
		       fname(l->function));
		slotword("stream", l->stream);
		printf(" sseq=%" PRIu64, l->stream_seq);
		slotword("ctx", l->ctx);
		/* time_shared apart: whether a launch shares its predecessor's time depends on
		 * what other threads did, and the flags the tests compare do not. */
		printf(" tid=%u time=%" PRIu64 " time_shared=%d grid=%u,%u,%u block=%u,%u,%u "
		       "cluster=%u,%u,%u shm=%u flags=0x%x prio=%d result=%d aux=0x%" PRIx64 " params=",
		       l->tid, l->time_ns, !!(l->flags & CI_LAUNCH_TIME_SHARED), l->grid[0], l->grid[1],
		       l->grid[2], l->block[0], l->block[1], l->block[2], l->cluster[0], l->cluster[1],
		       l->cluster[2], l->shared_mem, l->flags & ~CI_LAUNCH_TIME_SHARED, l->priority,
		       l->result, l->aux);
		for (unsigned b = 0; b < l->param_len && b < CI_LAUNCH_PARAM_BYTES; b++)
			printf("%02x", l->params[b]);
		print_stack("stack", l->stack);
		printf("\n");
	}
	const struct {
		const char *word;
		const struct ci_alloc *a;
		size_t n;
	} lists[] = { { "alloc", M->allocs, M->alloc_count }, { "free", M->frees, M->free_count } };
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < lists[k].n; i++) {
			const struct ci_alloc *a = &lists[k].a[i];
			printf("%s id=%" PRIu64 " kind=%s address=0x%" PRIx64 " size=%" PRIu64
			       " aux=0x%" PRIx64 " state=%u tid=%u time=%" PRIu64,
			       lists[k].word, a->id, ci_alloc_kind_name(a->kind), a->address, a->size,
			       a->aux, a->state, a->tid, a->time_ns);
			slotword("ctx", a->ctx);
			slotword("stream", a->stream);
			print_stack("stack", a->stack);
			if (k == 1) {
				printf(" free_tid=%u free_time=%" PRIu64, a->free_tid, a->free_ns);
				slotword("free_stream", a->free_stream);
				print_stack("free_stack", a->free_stack);
			}
			printf("\n");
		}
	}
	for (size_t i = 0; i < M->error_count; i++) {
		const struct ci_api_error *e = &M->errors[i];
		printf("error seq=%" PRIu64 " api=%.40s result=%s flags=%u tid=%u", e->seq, e->api,
		       ci_cuda_result_name(e->result), e->flags, e->tid);
		slotword("ctx", e->ctx);
		slotword("stream", e->stream);
		print_stack("stack", e->stack);
		printf(" args=%.120s\n", e->args);
	}
	for (size_t i = 0; i < M->event_count; i++) {
		const struct ci_event *e = &M->events[i];
		printf("event seq=%" PRIu64 " kind=%s a=0x%" PRIx64 " b=0x%" PRIx64
		       " value=%" PRIu64 " tid=%u",
		       e->seq, ci_event_kind_name(e->kind), e->a, e->b, e->value, e->tid);
		slotword("stream", e->stream);
		slotword("ctx", e->ctx);
		printf(" result=%s duration=%" PRIu64 "\n", ci_cuda_result_name(e->result),
		       e->duration_ns);
	}
	for (size_t i = 0; i < M->graph_count; i++) {
		const struct ci_graph *g = &M->graphs[i];
		if (!g->seq)
			continue;
		printf("graph slot=%zu handle=0x%" PRIx64 " origin=%s flags=%u mode=%u nodes=%u "
		       "dropped=%u capture_id=%" PRIu64 " ended=%d destroyed=%d",
		       i, g->handle, ci_graph_origin_name(g->origin), g->flags, g->capture_mode,
		       g->nodes, g->nodes_dropped, g->capture_id, g->end_ns != 0, g->destroy_ns != 0);
		slotword("stream", g->stream);
		slotword("ctx", g->ctx);
		slotword("crumb_slot", g->crumb_slot);
		if (g->crumb_slot != CI_NONE && g->crumb_slot < M->crumb_count)
			printf(" crumb=%" PRIu64, M->crumbs[g->crumb_slot]);
		else
			printf(" crumb=-");
		printf(" crumb_kernels=%" PRIu32, g->crumb_kernels);
		print_stack("stack", g->stack);
		printf("\n");
	}
	for (size_t i = 0; i < M->graph_node_count; i++) {
		const struct ci_graph_node *n = &M->graph_nodes[i];
		if (!n->seq)
			continue;
		printf("node slot=%zu graph=%u", i, n->graph);
		slotword("exec", n->exec);
		printf(" ordinal=%u type=%s fn=%s handle=0x%" PRIx64 " func=0x%" PRIx64
		       " grid=%u,%u,%u block=%u,%u,%u shm=%u a=0x%" PRIx64 " b=0x%" PRIx64
		       " bytes=%" PRIu64 " flags=0x%x",
		       n->ordinal, ci_node_type_name(n->type), fname(n->function), n->handle,
		       n->function_handle, n->grid[0], n->grid[1], n->grid[2], n->block[0],
		       n->block[1], n->block[2], n->shared_mem, n->a, n->b, n->bytes, n->flags);
		printf(" deps=%u:", n->dep_count);
		for (unsigned d = 0; d < n->dep_count && d < CI_NODE_DEPS; d++)
			n->deps[d] == CI_NONE ? printf("%s-", d ? "," : "") : printf("%s%u", d ? "," : "", n->deps[d]);
		slotword("stream", n->stream);
		printf(" params=");
		for (unsigned b = 0; b < n->param_len && b < CI_LAUNCH_PARAM_BYTES; b++)
			printf("%02x", n->params[b]);
		print_stack("stack", n->stack);
		printf("\n");
	}
	for (size_t i = 0; i < M->graph_exec_count; i++) {
		const struct ci_graph_exec *x = &M->graph_execs[i];
		if (!x->seq)
			continue;
		printf("exec slot=%zu handle=0x%" PRIx64 " graph_handle=0x%" PRIx64, i, x->handle,
		       x->graph_handle);
		slotword("graph", x->graph);
		printf(" nodes=%u flags=0x%" PRIx64 " launches=%" PRIu64 " updates=%u destroyed=%d",
		       x->nodes, x->flags, x->launches, x->updates, x->destroy_ns != 0);
		print_stack("stack", x->stack);
		printf("\n");
	}
	for (size_t i = 0; i < M->graph_launch_count; i++) {
		const struct ci_graph_launch *g = &M->graph_launches[i];
		printf("glaunch seq=%" PRIu64 " exec_handle=0x%" PRIx64, g->seq, g->exec_handle);
		slotword("exec", g->exec);
		slotword("stream", g->stream);
		printf(" replay=%" PRIu64 " launch_seq=%" PRIu64 " sseq=%" PRIu64 " result=%s\n",
		       g->replay, g->launch_seq, g->stream_seq, ci_cuda_result_name(g->result));
	}
	dump_nccl();
	for (size_t i = 0; i < M->warnings.count; i++)
		printf("warning %s\n", M->warnings.items[i]);
}

/* Every accepted storm_probe launch must be the one its own parameters describe. */
static int storm(void)
{
	uint64_t ok = 0, bad = 0, other = 0;
	for (size_t i = 0; i < M->launch_count; i++) {
		const struct ci_launch *l = &M->launches[i];
		if (strcmp(fname(l->function), STORM_KERNEL)) {
			other++;
			continue;
		}
		struct storm_launch want;
		uint64_t li, check;
		uint32_t i7;
		int32_t t;
		memcpy(&li, l->params + 0, 8);
		memcpy(&i7, l->params + 8, 4);
		memcpy(&t, l->params + 12, 4);
		memcpy(&check, l->params + 16, 8);
		storm_launch_for((uint32_t)t, li, &want);
		bool good = l->param_len >= STORM_PARAM_BYTES && t >= 0 && want.i7 == i7 &&
			    want.check == check && !memcmp(want.grid, l->grid, sizeof want.grid) &&
			    !memcmp(want.block, l->block, sizeof want.block) &&
			    want.shared_mem == l->shared_mem;
		if (good)
			ok++;
		else {
			bad++;
			if (bad <= 5)
				printf("storm bad seq=%" PRIu64 " i=%" PRIu64 " t=%d grid=%u,%u,%u "
				       "block=%u shm=%u\n",
				       l->seq, li, t, l->grid[0], l->grid[1], l->grid[2], l->block[0],
				       l->shared_mem);
		}
	}
	const struct ci_section_stats *s = &M->sections[CI_SEC_LAUNCHES];
	printf("storm ok=%" PRIu64 " bad=%" PRIu64 " other=%" PRIu64 " torn=%" PRIu64
	       " invalid=%" PRIu64 " state=%u\n",
	       ok, bad, other, s->torn, s->invalid, M->header.state);
	return bad ? 1 : 0;
}

/* The kernel-log section as the recorder wrote it, read from the input itself (not from the
 * model), one "klog" line per line, and the clocks the header keeps for comparing its times. */
static void dump_kernel_log(struct ci_source *src, const struct ci_location *loc)
{
	const struct ci_header *h = &M->header;
	printf("clocks start_realtime=%" PRIu64 " start_monotonic=%" PRIu64 " start_boottime=%" PRIu64
	       " sticky_realtime=%" PRIu64 " sticky_monotonic=%" PRIu64 " sticky_boottime=%" PRIu64
	       " proc_start_boottime=%" PRIu64 " ns_pids=%u,%u,%u,%u\n",
	       h->start_realtime_ns, h->start_monotonic_ns, h->start_boottime_ns,
	       h->sticky_realtime_ns, h->sticky_monotonic_ns, h->sticky_boottime_ns,
	       h->proc_start_boottime_ns, h->ns_pids[0], h->ns_pids[1], h->ns_pids[2], h->ns_pids[3]);
	if (h->section_count > 64 || h->section_entry_size < sizeof(struct ci_section))
		return;
	for (uint32_t i = 0; i < h->section_count; i++) {
		struct ci_section sec;
		uint64_t at = loc->address + h->section_dir_offset + (uint64_t)i * h->section_entry_size;
		struct ci_error *err = ci_source_read(src, at, &sec, sizeof sec);
		if (err) {
			ci_error_destroy(err);
			return;
		}
		if (sec.kind != CI_SEC_KERNEL_LOG || sec.entry_size != 1 || sec.capacity > (64u << 20))
			continue;
		uint64_t n = sec.head < sec.capacity ? sec.head : sec.capacity;
		printf("kernel_log capacity=%" PRIu64 " head=%" PRIu64 " dropped=%" PRIu64 "\n",
		       sec.capacity, sec.head, sec.dropped);
		char *buf = malloc(n + 1);
		if (!buf)
			return;
		err = n ? ci_source_read(src, loc->address + sec.offset, buf, n) : NULL;
		if (err) {
			ci_error_destroy(err);
			free(buf);
			return;
		}
		for (uint64_t a = 0; a < n;) {
			uint64_t b = a;
			while (b < n && buf[b] != '\n')
				b++;
			printf("klog %.*s\n", (int)(b - a), buf + a);
			a = b + 1;
		}
		free(buf);
	}
}

/* The bytes of a launch's params[] that no parameter of its function's layout fills (gaps, and
 * everything past param_len) must be zero, whatever the ring slot held before. */
static int params_zero(void)
{
	uint64_t ok = 0, bad = 0, failed = 0, padded = 0;
	bool len_seen[CI_LAUNCH_PARAM_BYTES + 1] = { false };
	unsigned lengths = 0;
	for (size_t i = 0; i < M->launch_count; i++) {
		const struct ci_launch *l = &M->launches[i];
		if (!l->seq)
			continue;
		size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
		bool filled[CI_LAUNCH_PARAM_BYTES] = { false };
		for (size_t b = 0; b < len; b++)
			filled[b] = true; /* unless the layout says which bytes are parameters */
		const struct ci_function *fn = l->function < M->function_count &&
							       M->functions[l->function].seq
						       ? &M->functions[l->function]
						       : NULL;
		if (fn && fn->params_known && !(l->flags & CI_LAUNCH_PARAMS_EXTRA)) {
			memset(filled, 0, sizeof filled);
			uint32_t n = fn->nparams < CI_PARAMS_MAX ? fn->nparams : CI_PARAMS_MAX;
			size_t covered = 0;
			for (uint32_t k = 0; k < n; k++)
				for (size_t b = fn->param_offset[k];
				     b < (size_t)fn->param_offset[k] + fn->param_size[k] && b < len; b++) {
					filled[b] = true;
					covered++;
				}
			if (covered < len)
				padded++;
		}
		bool good = true;
		for (size_t b = 0; b < CI_LAUNCH_PARAM_BYTES; b++)
			if (!filled[b] && l->params[b])
				good = false;
		if (l->flags & CI_LAUNCH_FAILED)
			failed++;
		if (!len_seen[len]) {
			len_seen[len] = true;
			lengths++;
		}
		if (good) {
			ok++;
		} else {
			bad++;
			if (bad <= 5)
				printf("params bad seq=%" PRIu64 " function=%s param_len=%u flags=%#x\n",
				       l->seq, fname(l->function), l->param_len, l->flags);
		}
	}
	printf("params ok=%" PRIu64 " bad=%" PRIu64 " lengths=%u failed=%" PRIu64 " padded=%" PRIu64
	       "\n",
	       ok, bad, lengths, failed, padded);
	return 0;
}

int main(int argc, char **argv)
{
	bool check_storm = false, check_params = false;
	long pid = 0;
	const char *input = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--storm"))
			check_storm = true;
		else if (!strcmp(argv[i], "--params"))
			check_params = true;
		else if (!strcmp(argv[i], "--pid") && i + 1 < argc)
			pid = strtol(argv[++i], NULL, 10);
		else
			input = argv[i];
	}
	if (!input && !pid) {
		fprintf(stderr, "usage: recdump [--storm | --params] FILE | --pid PID\n");
		return 2;
	}
	struct ci_source *src = NULL;
	struct ci_location loc;
	struct ci_model *model = NULL;
	struct ci_error *err = pid ? ci_source_open_pid((pid_t)pid, NULL, &src)
				   : ci_source_open(input, NULL, &src);
	if (!err)
		err = ci_locate(src, &loc);
	if (!err)
		err = ci_decode(src, &loc, &model);
	if (err) {
		fprintf(stderr, "recdump: %s\n", err->message);
		int rc = ci_error_exit(err->code);
		ci_error_destroy(err);
		ci_source_close(src);
		return rc;
	}
	M = model;
	printf("location method=%d address=0x%" PRIx64 "\n", loc.method, loc.address);
	int rc = 0;
	if (check_storm) {
		rc = storm();
	} else if (check_params) {
		rc = params_zero();
	} else {
		dump();
		dump_kernel_log(src, &loc);
	}
	ci_model_destroy(model);
	ci_source_close(src);
	return rc;
}
