/* SPDX-License-Identifier: MIT */
/*
 * The words of a process's job facts (session.h) and back: NCCL ops, communicator states and
 * peer-memory kinds from record.h's lists, and where a collective stands; and the facts'
 * release and order.  Apart from job_facts.c so that the merge's JSON reader's fuzzer links
 * it alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session.h"


#define WORD_OF(name, value, word) [value] = word,
static const char *const call_state_words[] = { CI_JOB_CALL_STATES(WORD_OF) };
#undef WORD_OF

const char *ci_job_call_state_name(unsigned s)
{
	return s < sizeof call_state_words / sizeof call_state_words[0] ? call_state_words[s]
									  : "unknown";
}

bool ci_job_call_state_parse(const char *word, unsigned *ret)
{
	for (unsigned i = 0; i < sizeof call_state_words / sizeof call_state_words[0]; i++)
		if (strcmp(word, call_state_words[i]) == 0) {
			*ret = i;
			return true;
		}
	return false;
}

static const char *word_in(const char *const *words, size_t n, uint32_t v)
{
	return v < n && words[v] ? words[v] : "unknown";
}
#define WORD3(name, value, word) [value] = word,
#define WORD4(name, value, word, api) [value] = word,
static const char *const comm_state_words[] = { [0] = NULL, CI_NCCL_COMM_STATES(WORD3) };
static const char *const op_words[] = { [0] = NULL, CI_NCCL_OPS(WORD4) };
static const char *const peer_kind_words[] = { [0] = NULL, CI_PEER_KINDS(WORD4) };
#undef WORD3
#undef WORD4
#define WORD(table, v) word_in(table, sizeof table / sizeof table[0], v)

const char *ci_job_op_word(uint32_t op) { return WORD(op_words, op); }
const char *ci_job_comm_state_word(uint32_t s) { return WORD(comm_state_words, s); }
const char *ci_job_peer_kind_word(uint32_t k) { return WORD(peer_kind_words, k); }

const char *ci_job_op_api(uint32_t op)
{
#define API_OF(name, value, word, api) [value] = api,
	static const char *const apis[] = { [0] = NULL, CI_NCCL_OPS(API_OF) };
#undef API_OF
	return op < sizeof apis / sizeof apis[0] && apis[op] ? apis[op] : "an NCCL call";
}

/* The word's value in TABLE, or 0. */
static uint32_t value_of(const char *const *table, size_t n, const char *word)
{
	for (size_t i = 1; word && i < n; i++)
		if (table[i] && strcmp(table[i], word) == 0)
			return (uint32_t)i;
	return 0;
}
uint32_t ci_job_op_value(const char *w) { return value_of(op_words, sizeof op_words / sizeof op_words[0], w); }
uint32_t ci_job_comm_state_value(const char *w)
{
	return value_of(comm_state_words, sizeof comm_state_words / sizeof comm_state_words[0], w);
}
uint32_t ci_job_peer_kind_value(const char *w)
{
	return value_of(peer_kind_words, sizeof peer_kind_words / sizeof peer_kind_words[0], w);
}


void ci_job_facts_deinit(struct ci_job_facts *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->var_count; i++) {
		free(f->vars[i].name);
		free(f->vars[i].value);
	}
	free(f->vars);
	free(f->comms);
	free(f->calls);
	free(f->peers);
	free(f->headline);
	memset(f, 0, sizeof *f);
}

static int call_cmp(const void *a, const void *b)
{
	const struct ci_job_call *x = a, *y = b;
	if (x->comm_id != y->comm_id)
		return x->comm_id < y->comm_id ? -1 : 1;
	if (x->op_seq != y->op_seq)
		return x->op_seq < y->op_seq ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

void ci_job_facts_sort(struct ci_job_facts *f)
{
	if (f->call_count > 1)
		qsort(f->calls, f->call_count, sizeof f->calls[0], call_cmp);
}

