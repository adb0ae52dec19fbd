/* A small PTX reader: the kernels of a module (`.entry` declarations), their parameter layouts,
 * launch bounds and static shared memory, and module-scope `.global` variables.
 *
 * The simulator never runs PTX, so it reads only what the driver API exposes: entry names exactly
 * as written (mangled when the source was C++), each parameter's offset and size as
 * cuFuncGetParamInfo reports them (natural alignment of the type, or the explicit `.align` of
 * `.b8` arrays used for structs), `.maxntid`/`.reqntid`/`.maxnreg`, and `.shared` bytes.  Input is
 * untrusted text: every access is bounds-checked and a malformed module yields
 * CUDA_ERROR_INVALID_PTX, never a crash.
 */
#include "sim.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ptx_tok {
	const char *s;
	size_t n;
};

struct ptx_lexer {
	const char *p, *end;
	struct ptx_tok tok; /* current token; n == 0 at end of input */
	unsigned line;      /* 1-based line of the current token */
};

static int ptx_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static void ptx_next(struct ptx_lexer *lx)
{
	const char *p = lx->p;
	while (p < lx->end && isspace((unsigned char)*p))
		lx->line += *p++ == '\n';
	const char *start = p;
	if (p >= lx->end) {
		lx->tok = (struct ptx_tok){p, 0};
	} else if (*p == '"') {
		for (p++; p < lx->end && *p != '"'; p++)
			if (*p == '\\' && p + 1 < lx->end)
				p++;
		if (p < lx->end)
			p++;
	} else if (ptx_ident_char((unsigned char)*p) || *p == '-' || *p == '+') {
		for (p++; p < lx->end && ptx_ident_char((unsigned char)*p); p++)
			;
	} else {
		p++;
	}
	lx->p = p;
	lx->tok = (struct ptx_tok){start, (size_t)(p - start)};
}

static int ptx_is(const struct ptx_lexer *lx, const char *word)
{
	size_t n = strlen(word);
	return lx->tok.n == n && memcmp(lx->tok.s, word, n) == 0;
}

static int ptx_number(const struct ptx_lexer *lx, unsigned long *ret)
{
	if (lx->tok.n == 0 || lx->tok.n > 20 || !isdigit((unsigned char)lx->tok.s[0]))
		return -1;
	char buf[24];
	memcpy(buf, lx->tok.s, lx->tok.n);
	buf[lx->tok.n] = 0;
	char *end;
	unsigned long v = strtoul(buf, &end, 0);
	if (*end)
		return -1;
	*ret = v;
	return 0;
}

/* Size in bytes of a PTX fundamental type directive, 0 if the token is not one. */
static size_t ptx_type_size(const struct ptx_tok *t)
{
	static const struct {
		const char *name;
		size_t size;
	} types[] = {
		{".b8", 1},   {".u8", 1},   {".s8", 1},    {".pred", 1}, {".b16", 2}, {".u16", 2},
		{".s16", 2},  {".f16", 2},  {".bf16", 2},  {".b32", 4},  {".u32", 4}, {".s32", 4},
		{".f32", 4},  {".f16x2", 4}, {".bf16x2", 4}, {".tf32", 4}, {".b64", 8}, {".u64", 8},
		{".s64", 8},  {".f64", 8},  {".b128", 16},
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (t->n == strlen(types[i].name) && memcmp(t->s, types[i].name, t->n) == 0)
			return types[i].size;
	return 0;
}

static size_t ptx_align_up(size_t v, size_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* Parse one variable declaration after its state space (.param/.shared/.global):
 * [.align A] [.v2|.v4] TYPE [.ptr SPACE [.align N]] NAME [ '[' N ']' ]...
 * Leaves the lexer on the token after the declaration (',' ')' ';' '=' ...). */
static int ptx_var_decl(struct ptx_lexer *lx, size_t *size, size_t *align, struct ptx_tok *name)
{
	size_t elem = 0, vec = 1, explicit_align = 0;
	int ptr = 0;
	*name = (struct ptx_tok){0};
	for (;;) {
		ptx_next(lx);
		if (lx->tok.n == 0)
			return -1;
		if (ptx_is(lx, ".align")) {
			unsigned long a;
			ptx_next(lx);
			if (ptx_number(lx, &a) || a == 0 || a > 4096 || (a & (a - 1)))
				return -1;
			if (!ptr) /* after .ptr it is the pointee's alignment */
				explicit_align = a;
		} else if (ptx_is(lx, ".v2") || ptx_is(lx, ".v4") || ptx_is(lx, ".v8")) {
			vec = (size_t)(lx->tok.s[2] - '0');
		} else if (ptx_is(lx, ".ptr")) {
			ptr = 1;
		} else if (!elem && ptx_type_size(&lx->tok)) {
			elem = ptx_type_size(&lx->tok);
		} else if (lx->tok.s[0] == '.') {
			continue; /* state space of a .ptr, or another qualifier */
		} else {
			break;
		}
	}
	if (!elem || !(isalpha((unsigned char)lx->tok.s[0]) || lx->tok.s[0] == '_' ||
		       lx->tok.s[0] == '$' || lx->tok.s[0] == '%'))
		return -1;
	*name = lx->tok;
	size_t count = 1;
	ptx_next(lx);
	while (ptx_is(lx, "[")) {
		unsigned long n = 0;
		ptx_next(lx);
		if (!ptx_is(lx, "]")) { /* `[]` is an unsized extern array */
			if (ptx_number(lx, &n) || n > (1ul << 31))
				return -1;
			ptx_next(lx);
		}
		if (!ptx_is(lx, "]"))
			return -1;
		count *= n;
		if (count > (1ul << 31))
			return -1;
		ptx_next(lx);
	}
	*size = elem * vec * count;
	*align = explicit_align ? explicit_align : elem * vec;
	return 0;
}

static char *ptx_strndup(const struct ptx_tok *t)
{
	char *s = malloc(t->n + 1);
	if (s) {
		memcpy(s, t->s, t->n);
		s[t->n] = 0;
	}
	return s;
}

/* Whether the token is a global-memory access (ld.global..., st.global..., atom.global...,
 * red.global...): the instruction a simulated GPU core names as the faulting one. */
static int ptx_is_global_access(const struct ptx_tok *t)
{
	static const char *const ops[] = {"ld.global", "st.global", "atom.global", "red.global"};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i]);
		if (t->n >= n && memcmp(t->s, ops[i], n) == 0 && (t->n == n || t->s[n] == '.'))
			return 1;
	}
	return 0;
}

/* Skip a balanced {...} body, adding up `.shared` declarations (not `.extern .shared`), and
 * noting the line of the first global-memory access and the `.loc` in effect there. */
static int ptx_body(struct ptx_lexer *lx, struct sim_entry *e)
{
	int depth = 1, extern_seen = 0;
	size_t shared = 0;
	unsigned long loc_file = 0, loc_line = 0;
	while (depth > 0) {
		ptx_next(lx);
		if (lx->tok.n == 0)
			return -1;
		if (e && ptx_is(lx, ".loc")) {
			/* .loc FILE LINE [COLUMN]: read ahead on a copy, so that anything else is
			 * lexed as usual. */
			struct ptx_lexer ahead = *lx;
			unsigned long f, l;
			ptx_next(&ahead);
			if (ptx_number(&ahead, &f))
				continue;
			ptx_next(&ahead);
			if (ptx_number(&ahead, &l))
				continue;
			*lx = ahead;
			loc_file = f, loc_line = l;
		} else if (e && !e->access_line && ptx_is_global_access(&lx->tok)) {
			e->access_line = lx->line;
			e->loc_file = loc_file <= UINT_MAX ? (unsigned)loc_file : 0;
			e->loc_line = loc_line <= UINT_MAX ? (unsigned)loc_line : 0;
		}
		if (ptx_is(lx, "{"))
			depth++;
		else if (ptx_is(lx, "}"))
			depth--;
		else if (ptx_is(lx, ";"))
			extern_seen = 0;
		else if (ptx_is(lx, ".extern"))
			extern_seen = 1;
		else if (ptx_is(lx, ".shared") && e) {
			const char *save = lx->p;
			size_t size, align;
			struct ptx_tok name;
			if (ptx_var_decl(lx, &size, &align, &name) == 0) {
				if (!extern_seen)
					shared = ptx_align_up(shared, align) + size;
				if (ptx_is(lx, ";"))
					extern_seen = 0;
				else if (ptx_is(lx, "{"))
					depth++;
				else if (ptx_is(lx, "}"))
					depth--;
			} else {
				lx->p = save; /* `ld.shared` etc. are instructions, not declarations */
			}
		}
	}
	if (e)
		e->static_shared = shared;
	return 0;
}

static int ptx_entry(struct ptx_lexer *lx, struct sim_image *img, int *defined)
{
	struct sim_entry e = {0};
	size_t cap = 0;
	*defined = 0;
	ptx_next(lx);
	if (lx->tok.n == 0 || lx->tok.s[0] == '(' || lx->tok.s[0] == '.')
		return -1;
	struct ptx_tok name = lx->tok;
	ptx_next(lx);
	if (ptx_is(lx, "(")) {
		size_t offset = 0;
		ptx_next(lx);
		while (!ptx_is(lx, ")")) {
			if (!ptx_is(lx, ".param"))
				goto bad;
			size_t size, align;
			struct ptx_tok pname;
			if (ptx_var_decl(lx, &size, &align, &pname))
				goto bad;
			if (e.nparams == cap) {
				cap = cap ? cap * 2 : 8;
				struct sim_param *n = realloc(e.params, cap * sizeof(*n));
				if (!n)
					goto bad;
				e.params = n;
			}
			offset = ptx_align_up(offset, align);
			e.params[e.nparams++] = (struct sim_param){offset, size};
			offset += size;
			if (ptx_is(lx, ","))
				ptx_next(lx);
			else if (!ptx_is(lx, ")"))
				goto bad;
		}
		e.param_bytes = offset;
		ptx_next(lx);
	}
	/* Performance tuning directives up to the body (or ';' for a bare declaration). */
	while (!ptx_is(lx, "{") && !ptx_is(lx, ";")) {
		if (lx->tok.n == 0)
			goto bad;
		if (ptx_is(lx, ".maxntid") || ptx_is(lx, ".reqntid") || ptx_is(lx, ".maxnreg")) {
			int regs = ptx_is(lx, ".maxnreg");
			unsigned long product = 1, v;
			for (;;) {
				ptx_next(lx);
				if (ptx_number(lx, &v) || v == 0 || v > 1024)
					goto bad;
				product *= v;
				ptx_next(lx);
				if (!ptx_is(lx, ","))
					break;
			}
			if (regs)
				e.nregs = (unsigned)product;
			else if (product > 1024)
				goto bad;
			else if (!e.maxntid || product < e.maxntid)
				e.maxntid = (unsigned)product;
			continue;
		}
		ptx_next(lx);
	}
	if (ptx_is(lx, ";")) {
		free(e.params);
		return 0; /* a prototype, defined elsewhere (or not at all) */
	}
	if (ptx_body(lx, &e))
		goto bad;
	for (unsigned i = 0; i < img->nentries; i++)
		if (strlen(img->entries[i].name) == name.n && memcmp(img->entries[i].name, name.s, name.n) == 0)
			goto bad; /* duplicate definition */
	if (!(e.name = ptx_strndup(&name)))
		goto bad;
	if (!e.nregs)
		e.nregs = 32;
	struct sim_entry *n = realloc(img->entries, (img->nentries + 1) * sizeof(*n));
	if (!n) {
		free(e.name);
		goto bad;
	}
	img->entries = n;
	img->entries[img->nentries++] = e;
	*defined = 1;
	return 0;
bad:
	free(e.params);
	return -1;
}

static int ptx_global(struct ptx_lexer *lx, struct sim_image *img)
{
	size_t size, align;
	struct ptx_tok name;
	if (ptx_var_decl(lx, &size, &align, &name))
		return -1;
	/* Skip an initializer up to the terminating ';'. */
	int depth = 0;
	while (!(depth == 0 && ptx_is(lx, ";"))) {
		if (lx->tok.n == 0)
			return -1;
		if (ptx_is(lx, "{"))
			depth++;
		else if (ptx_is(lx, "}"))
			depth--;
		ptx_next(lx);
	}
	struct sim_global *n = realloc(img->globals, (img->nglobals + 1) * sizeof(*n));
	if (!n)
		return -1;
	img->globals = n;
	struct sim_global *g = &img->globals[img->nglobals];
	if (!(g->name = ptx_strndup(&name)))
		return -1;
	g->size = size ? size : 1;
	g->align = align;
	img->nglobals++;
	return 0;
}

void sim_image_destroy(struct sim_image *img)
{
	if (!img)
		return;
	for (unsigned i = 0; i < img->nentries; i++) {
		free(img->entries[i].name);
		free(img->entries[i].params);
	}
	for (unsigned i = 0; i < img->nglobals; i++)
		free(img->globals[i].name);
	for (unsigned i = 0; i < img->nfiles; i++)
		free(img->files[i].name);
	free(img->entries);
	free(img->globals);
	free(img);
}

/* Copy of the text with comments blanked out, so the lexer never sees them. */
static char *ptx_strip_comments(const char *text, size_t len)
{
	char *out = malloc(len + 1);
	if (!out)
		return NULL;
	size_t i = 0;
	while (i < len) {
		if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				out[i++] = ' ';
		} else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
			while (i < len && !(text[i] == '*' && i + 1 < len && text[i + 1] == '/'))
				out[i] = text[i] == '\n' ? '\n' : ' ', i++;
			if (i < len)
				out[i++] = ' ';
			if (i < len)
				out[i++] = ' ';
		} else if (text[i] == '"') {
			out[i] = text[i];
			for (i++; i < len && text[i] != '"' && text[i] != '\n'; i++)
				out[i] = text[i];
			if (i < len)
				out[i] = text[i], i++;
		} else {
			out[i] = text[i];
			i++;
		}
	}
	out[len] = 0;
	return out;
}

CUresult sim_ptx_parse(const char *text, struct sim_image **ret)
{
	size_t len = strnlen(text, (size_t)1 << 30);
	char *clean = ptx_strip_comments(text, len);
	struct sim_image *img = calloc(1, sizeof(*img));
	CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
	if (!clean || !img)
		goto out;
	struct ptx_lexer lx = {clean, clean + len, {clean, 0}, 1};
	int have_version = 0, depth = 0;
	r = CUDA_ERROR_INVALID_PTX;
	for (ptx_next(&lx); lx.tok.n; ptx_next(&lx)) {
		if (depth == 0 && ptx_is(&lx, ".version")) {
			ptx_next(&lx);
			if (lx.tok.n == 0 || lx.tok.n > 8 || !isdigit((unsigned char)lx.tok.s[0]))
				goto out;
			char buf[12];
			memcpy(buf, lx.tok.s, lx.tok.n);
			buf[lx.tok.n] = 0;
			if (sscanf(buf, "%d.%d", &img->ptx_major, &img->ptx_minor) != 2)
				goto out;
			have_version = 1;
		} else if (!have_version) {
			/* Not PTX at all (a cubin, garbage, or text without a .version). */
			r = CUDA_ERROR_INVALID_IMAGE;
			goto out;
		} else if (depth == 0 && ptx_is(&lx, ".target")) {
			ptx_next(&lx);
			if (lx.tok.n < 4 || memcmp(lx.tok.s, "sm_", 3) != 0)
				goto out;
			img->sm = atoi(lx.tok.s + 3);
		} else if (depth == 0 && ptx_is(&lx, ".entry")) {
			int defined;
			if (ptx_entry(&lx, img, &defined))
				goto out;
		} else if (depth == 0 && ptx_is(&lx, ".global")) {
			if (ptx_global(&lx, img))
				goto out;
		} else if (depth == 0 && ptx_is(&lx, ".file")) {
			/* .file N "name": the source files .loc lines name (kept for GPU cores). */
			unsigned long num;
			ptx_next(&lx);
			if (ptx_number(&lx, &num))
				continue;
			ptx_next(&lx);
			if (lx.tok.n >= 2 && lx.tok.s[0] == '"' && lx.tok.s[lx.tok.n - 1] == '"' &&
			    img->nfiles < SIM_PTX_FILES && num <= UINT_MAX) {
				struct ptx_tok t = {lx.tok.s + 1, lx.tok.n - 2};
				char *name = ptx_strndup(&t);
				if (!name)
					goto out;
				img->files[img->nfiles].num = (unsigned)num;
				img->files[img->nfiles++].name = name;
			}
		} else if (ptx_is(&lx, "{")) {
			if (ptx_body(&lx, NULL))
				goto out;
		} else if (ptx_is(&lx, "}")) {
			goto out;
		}
	}
	if (!have_version) {
		r = CUDA_ERROR_INVALID_IMAGE;
		goto out;
	}
	/* CUDA 13.0 understands PTX ISA up to 9.0, and this device is sm_90. */
	if (img->ptx_major > 9 || (img->ptx_major == 9 && img->ptx_minor > 0)) {
		r = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
		goto out;
	}
	if (img->sm > 90)
		goto out;
	r = CUDA_SUCCESS;
out:
	free(clean);
	if (r == CUDA_SUCCESS)
		*ret = img;
	else
		sim_image_destroy(img);
	return r;
}
