/* SPDX-License-Identifier: MIT */
/*
 * The facts of one process from the JSON document `cudainspect --json` wrote for it, maybe on
 * another host: untrusted input.  The document is refused above CI_MERGE_JSON_MAX_BYTES and
 * when it nests deeper than CI_MERGE_JSON_MAX_DEPTH (checked before the parser sees it), then
 * parsed by jansson; only the "job" part (facts.c writes it) is read, and each field is checked
 * for its type and range, so that a hostile document is refused with the field's name, never
 * believed halfway.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

/* What one pass over a document finds before any parser sees it: the deepest nesting of its
 * arrays and objects (outside strings), and where the top-level "version" and "job" values lie,
 * so that jansson parses only the part the merge reads (a document is mostly launches). */
struct top_scan {
	size_t depth;
	const char *version; size_t version_len;
	const char *job; size_t job_len;
};

static void scan_top(const char *buf, size_t len, size_t stop, struct top_scan *t)
{
	size_t depth = 0;
	bool in_string = false;
	const char *key = NULL, *key_end = NULL, *value = NULL;
	enum { K_NONE, K_VERSION, K_JOB } want = K_NONE;
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < len && t->depth <= stop; i++) {
		char c = buf[i];
		if (in_string) {
			if (c == '\\') {
				i++;
			} else if (c == '"') {
				in_string = false;
				if (depth == 1)
					key_end = buf + i;
			}
			continue;
		}
		if (c == '"') {
			in_string = true;
			if (depth == 1)
				key = buf + i + 1;
		} else if (c == ':' && depth == 1 && key && key_end) {
			size_t n = (size_t)(key_end - key);
			want = n == 7 && memcmp(key, "version", 7) == 0 ? K_VERSION
			     : n == 3 && memcmp(key, "job", 3) == 0     ? K_JOB : K_NONE;
			value = buf + i + 1;
			key = key_end = NULL;
		} else if (c == '[' || c == '{') {
			if (++depth > t->depth)
				t->depth = depth;
		} else if ((c == ']' || c == '}') && depth) {
			if (--depth == 1 && want == K_JOB && !t->job) {
				t->job = value;
				t->job_len = (size_t)(buf + i + 1 - value);
				want = K_NONE;
			}
		} else if (c == ',' && depth == 1) {
			if (want == K_VERSION && !t->version) {
				t->version = value;
				t->version_len = (size_t)(buf + i - value);
			}
			want = K_NONE;
			key = key_end = NULL;
		}
	}
}

struct reader {
	const char *field;   /* what was being read, for the message */
	bool bad;
};

/* Say that FIELD was what went wrong (the first one only). */
static void bad(struct reader *r, const char *field)
{
	if (!r->bad) {
		r->bad = true;
		r->field = field;
	}
}

static json_t *member(struct reader *r, json_t *obj, const char *key, json_type type,
		      bool optional)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v)) {
		if (!optional)
			bad(r, key);
		return NULL;
	}
	if (json_typeof(v) != type && !(type == JSON_TRUE && json_is_boolean(v))) {
		bad(r, key);
		return NULL;
	}
	return v;
}

static uint64_t get_u64(struct reader *r, json_t *obj, const char *key)
{
	json_t *v = member(r, obj, key, JSON_INTEGER, true);
	if (!v)
		return 0;
	json_int_t n = json_integer_value(v);
	if (n < 0)
		bad(r, key);
	return n < 0 ? 0 : (uint64_t)n;
}

static int32_t get_i32(struct reader *r, json_t *obj, const char *key, int32_t dflt)
{
	json_t *v = member(r, obj, key, JSON_INTEGER, true);
	if (!v)
		return dflt;
	json_int_t n = json_integer_value(v);
	if (n < INT32_MIN || n > INT32_MAX)
		bad(r, key);
	return n < INT32_MIN || n > INT32_MAX ? dflt : (int32_t)n;
}

/* A "0x..." string (ci_json_hex) as a number. */
static uint64_t get_hex(struct reader *r, json_t *obj, const char *key)
{
	json_t *v = member(r, obj, key, JSON_STRING, true);
	if (!v)
		return 0;
	const char *s = json_string_value(v);
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) != 0 || *end || errno) {
		bad(r, key);
		return 0;
	}
	return n;
}

static const char *get_str(struct reader *r, json_t *obj, const char *key)
{
	json_t *v = member(r, obj, key, JSON_STRING, true);
	return v ? json_string_value(v) : NULL;
}

static void copy_str(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

/* The objects of array ARR (WHAT names it), each read by READ into a new array of ELEM_SIZE-byte
 * elements (*RET, *COUNT). */
typedef void element_reader(struct reader *r, json_t *o, void *elem);
static void read_array(struct reader *r, json_t *arr, const char *what, size_t elem_size,
		       element_reader *read, void **ret, size_t *count)
{
	size_t n = json_array_size(arr);
	if (!n)
		return;
	if (!(*ret = calloc(n, elem_size))) {
		bad(r, "(out of memory)");
		return;
	}
	for (size_t i = 0; i < n && !r->bad; i++) {
		json_t *o = json_array_get(arr, i);
		if (!json_is_object(o)) {
			bad(r, what);
			return;
		}
		read(r, o, (char *)*ret + (*count)++ * elem_size);
	}
}

static void read_comm(struct reader *r, json_t *o, void *elem)
{
	struct ci_job_comm *c = elem;
	c->comm_id = get_hex(r, o, "id");
	c->parent_id = get_hex(r, o, "parent");
	c->rank = get_i32(r, o, "rank", -1);
	c->nranks = get_i32(r, o, "nranks", 0);
	c->device = get_i32(r, o, "device", -1);
	c->state = ci_job_comm_state_value(get_str(r, o, "state"));
	c->colls = get_u64(r, o, "collectives");
	c->end_ns = get_u64(r, o, "end_ns");
	c->result = get_i32(r, o, "init_result", 0);
	c->async_error = get_i32(r, o, "async_error", 0);
}

static void read_call(struct reader *r, json_t *o, void *elem)
{
	struct ci_job_call *c = elem;
	c->comm_id = get_hex(r, o, "communicator");
	c->op_seq = get_u64(r, o, "seq");
	c->op = ci_job_op_value(get_str(r, o, "op"));
	c->count = get_u64(r, o, "count");
	c->datatype = get_i32(r, o, "datatype", -1);
	c->redop = get_i32(r, o, "redop", -1);
	c->peer = get_i32(r, o, "peer", -1);
	const char *state = get_str(r, o, "state");
	if (!state || !ci_job_call_state_parse(state, &c->state))
		bad(r, "collectives[].state");
	json_t *t = member(r, o, "timeout", JSON_TRUE, true);
	c->timeout = t && json_is_true(t);
	json_t *late = member(r, o, "late", JSON_TRUE, true); /* absent before format 1.6 */
	c->late = late && json_is_true(late);
	c->result = get_i32(r, o, "result", 0);
	c->time_ns = get_u64(r, o, "time_ns");
}

static void read_peer(struct reader *r, json_t *o, void *elem)
{
	struct ci_job_peer *p = elem;
	p->kind = ci_job_peer_kind_value(get_str(r, o, "kind"));
	p->key = get_hex(r, o, "key");
	p->address = get_hex(r, o, "address_hex");
	p->size = get_u64(r, o, "size");
	p->device = get_i32(r, o, "device", -1);
	p->time_ns = get_u64(r, o, "time_ns");
}

static void read_vars(struct reader *r, json_t *obj, struct ci_job_facts *f)
{
	size_t n = json_object_size(obj);
	if (!n || !(f->vars = calloc(n, sizeof f->vars[0])))
		return;
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v) {
		if (!json_is_string(v) || f->var_count == n) {
			r->bad = true;
			r->field = "launcher";
			return;
		}
		struct ci_job_env *e = &f->vars[f->var_count];
		e->name = strdup(key);
		e->value = strdup(json_string_value(v));
		f->var_count++;
	}
}

struct ci_error *ci_job_facts_from_json(const char *buf, size_t len, struct ci_job_facts *f)
{
	memset(f, 0, sizeof *f);
	if (len > CI_MERGE_JSON_MAX_BYTES)
		return ci_error_create(CI_ERR_CORRUPT,
				       "the JSON document is %zu bytes, more than the %u a merge reads",
				       len, CI_MERGE_JSON_MAX_BYTES);
	struct top_scan top;
	scan_top(buf, len, CI_MERGE_JSON_MAX_DEPTH, &top);
	if (top.depth > CI_MERGE_JSON_MAX_DEPTH)
		return ci_error_create(CI_ERR_CORRUPT,
				       "the JSON document nests deeper than %d levels",
				       CI_MERGE_JSON_MAX_DEPTH);
	json_error_t jerr;
	json_t *doc = NULL, *job = NULL;
	struct ci_error *err = NULL;
	struct reader r = { 0 };
	long long ver = -1;
	if (top.job && top.version) {
		/* The version, a plain number, and the job object, parsed alone. */
		char num[24];
		size_t n = top.version_len < sizeof num - 1 ? top.version_len : sizeof num - 1;
		memcpy(num, top.version, n);
		num[n] = 0;
		char *end;
		ver = strtoll(num, &end, 10);
		while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
			end++;
		if (end == num || *end)
			ver = -1;
		job = json_loadb(top.job, top.job_len, JSON_REJECT_DUPLICATES, &jerr);
		if (!job)
			return ci_error_create(CI_ERR_CORRUPT, "its \"job\" part is not JSON: %s "
					       "(offset %td)", jerr.text,
					       top.job - buf + jerr.position);
	} else {
		/* No job part where one should be: parse it all to say what it is instead. */
		doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!doc)
			return ci_error_create(CI_ERR_CORRUPT, "not JSON: %s at line %d, column %d "
					       "(offset %d)", jerr.text, jerr.line, jerr.column,
					       jerr.position);
		json_t *version = json_is_object(doc) ? json_object_get(doc, "version") : NULL;
		if (json_is_integer(version))
			ver = json_integer_value(version);
		job = json_is_object(doc) ? json_incref(json_object_get(doc, "job")) : NULL;
	}
	if (ver < 0) {
		err = ci_error_create(CI_ERR_FORMAT, "a JSON document but not one of cudainspect "
				      "(no \"version\" number)");
		goto out;
	}
	if (ver >= 5 && !json_is_object(job)) {
		err = ci_error_create(CI_ERR_NO_RECORD, "a cudainspect JSON document without a "
				      "\"job\" part: written for an input without a flight record "
				      "(the process ran without the recorder), nothing to merge");
		goto out;
	}
	if (ver < 5) {
		err = ci_error_create(CI_ERR_VERSION,
				      "a cudainspect JSON document of schema %lld without the \"job\" "
				      "part a merge needs (schema 5 and later have it): run this "
				      "cudainspect's --json on the core again", ver);
		goto out;
	}
	copy_str(f->host, sizeof f->host, get_str(&r, job, "host"));
	const char *boot = get_str(&r, job, "boot_id");
	if (boot && (strlen(boot) != 32 || strspn(boot, "0123456789abcdef") != 32)) {
		r.bad = true;
		r.field = "boot_id";
	} else {
		copy_str(f->boot_id, sizeof f->boot_id, boot);
	}
	uint64_t pid = get_u64(&r, job, "pid");
	f->pid = pid <= UINT32_MAX ? (uint32_t)pid : 0;
	f->start_ns = get_u64(&r, job, "start_ns");
	f->end_ns = get_u64(&r, job, "end_ns");
	copy_str(f->reason, sizeof f->reason, get_str(&r, job, "snapshot_reason"));
	snprintf(f->kind, sizeof f->kind, "json");
	const char *verdict = get_str(&r, job, "verdict");
	f->verdict = CI_VERDICT_INCOMPLETE;
	for (unsigned v = 0; verdict && v <= CI_VERDICT_INCOMPLETE; v++)
		if (strcmp(verdict, ci_verdict_name(v)) == 0)
			f->verdict = v;
	f->signal = get_i32(&r, job, "signal", 0);
	const char *headline = get_str(&r, job, "headline");
	f->headline = strdup(headline ? headline : "");
	const char *fp = get_str(&r, job, "fingerprint");
	copy_str(f->fingerprint, sizeof f->fingerprint, fp);
	f->failure_ns = get_u64(&r, job, "failure_ns");
	f->fault_address = get_hex(&r, job, "fault_address_hex");
	f->missing = get_u64(&r, job, "missing_entries");
	json_t *vars = member(&r, job, "launcher", JSON_OBJECT, true);
	if (vars)
		read_vars(&r, vars, f);
	json_t *comms = member(&r, job, "communicators", JSON_ARRAY, false);
	if (comms)
		read_array(&r, comms, "communicators[]", sizeof f->comms[0], read_comm,
			   (void **)&f->comms, &f->comm_count);
	json_t *calls = member(&r, job, "collectives", JSON_ARRAY, false);
	if (calls)
		read_array(&r, calls, "collectives[]", sizeof f->calls[0], read_call,
			   (void **)&f->calls, &f->call_count);
	json_t *peers = member(&r, job, "peer_memory", JSON_ARRAY, true);
	if (peers)
		read_array(&r, peers, "peer_memory[]", sizeof f->peers[0], read_peer,
			   (void **)&f->peers, &f->peer_count);
	if (r.bad) {
		err = ci_error_create(CI_ERR_CORRUPT, "its \"job\" part is damaged: field \"%s\" is "
				      "missing or of the wrong type or range", r.field);
		goto out;
	}
	if (!f->headline) {
		err = ci_error_create(CI_ERR_NOMEM, "out of memory reading a JSON document");
		goto out;
	}
	for (size_t i = 0; i < f->var_count; i++)
		if (!f->vars[i].name || !f->vars[i].value) {
			err = ci_error_create(CI_ERR_NOMEM, "out of memory reading a JSON document");
			goto out;
		}
	ci_job_facts_sort(f);
out:
	json_decref(job);
	json_decref(doc);
	if (err)
		ci_job_facts_deinit(f);
	return err;
}
