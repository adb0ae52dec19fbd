/* SPDX-License-Identifier: MIT */
/*
 * The three doors through which an application reaches the CUDA driver, and the recorder's
 * start-up (docs/RECORDER.md: "How it sees every driver call", "What interposers get
 * wrong").
 *
 *  (a) Exported symbols: one wrapper per line of api.h, exported under the exact versioned name
 *      with that name's ABI, so programs linked with -lcuda call the wrapper.
 *  (b) dlsym: programs and libraries that dlopen libcuda.so.1 look entry points up by name;
 *      the interposed dlsym asks the real one and swaps a driver address for the wrapper of that
 *      same address.  Other names are forwarded by a true tail call so that glibc still sees the
 *      original caller (RTLD_NEXT and RTLD_DEFAULT are relative to the caller).
 *  (c) cuGetProcAddress and cuGetProcAddress_v2, two separate hooks with their own ABIs: the
 *      real function is asked with the caller's exact symbol, version and flags, and the pointer
 *      it returns is swapped by address, so the recorder never chooses an ABI version or stream
 *      semantics itself.  Unknown pointers (and cuGetExportTable) pass through untouched.
 *
 * Start-up is lazy: the constructor only reads the configuration and finds the real dlsym;
 * the driver is resolved and the record created on first use of any door (which may come
 * before the constructor, from another library's: see "Start-up" below).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder.h"

void *ci_real[CI_FN_COUNT] CI_HIDDEN;
int ci_run_state CI_HIDDEN CI_HOT;
struct ci_config ci_cfg CI_HIDDEN;

const char *const ci_fn_name[CI_FN_COUNT] CI_HIDDEN = {
#define CI_FN_NAME(name, hook, flags, params, args) [CI_FN_##name] = #name,
	CI_API_TABLE(CI_FN_NAME)
#undef CI_FN_NAME
};

const uint8_t ci_fn_flags[CI_FN_COUNT] CI_HIDDEN = {
#define CI_FN_FLAGS(name, hook, flags, params, args) [CI_FN_##name] = (flags),
	CI_API_TABLE(CI_FN_FLAGS)
#undef CI_FN_FLAGS
};

/* ---------------------------------------------------------------------------------------- */
/* Missing entry points                                                                       */

static CUresult ci_missing(enum ci_fn fn)
{
	static uint8_t said[CI_FN_COUNT];
	/* With no driver at all, start-up said so once; each call need not say it again. */
	if (ci_real[CI_FN_cuInit] && !__atomic_exchange_n(&said[fn], 1, __ATOMIC_RELAXED))
		ci_say("the CUDA driver has no %s; returning CUDA_ERROR_NOT_FOUND (the driver is "
		       "older than the program, or CUDAINSPECT_DRIVER names the wrong library)",
		       ci_fn_name[fn]);
	return CUDA_ERROR_NOT_FOUND;
}

/* ---------------------------------------------------------------------------------------- */
/* Door (a): the generated wrappers                                                           */

#define CI_CAT_(a, b) a##b
#define CI_CAT(a, b) CI_CAT_(a, b)
#define CI_UNPAREN(...) __VA_ARGS__
#define CI_COMMA_ARGS(...) , ##__VA_ARGS__
#define CI_CALL(f, a) f a
#define CI_SECOND(a, b, ...) b
#define CI_NARGS(...) CI_NARGS_(0, ##__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define CI_NARGS_(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
/* ", m(a)" for every argument. */
#define CI_FE_0(m, ...)
#define CI_FE_1(m, a) , m(a)
#define CI_FE_2(m, a, ...) , m(a) CI_FE_1(m, __VA_ARGS__)
#define CI_FE_3(m, a, ...) , m(a) CI_FE_2(m, __VA_ARGS__)
#define CI_FE_4(m, a, ...) , m(a) CI_FE_3(m, __VA_ARGS__)
#define CI_FE_5(m, a, ...) , m(a) CI_FE_4(m, __VA_ARGS__)
#define CI_FE_6(m, a, ...) , m(a) CI_FE_5(m, __VA_ARGS__)
#define CI_FE_7(m, a, ...) , m(a) CI_FE_6(m, __VA_ARGS__)
#define CI_FE_8(m, a, ...) , m(a) CI_FE_7(m, __VA_ARGS__)
#define CI_FE_9(m, a, ...) , m(a) CI_FE_8(m, __VA_ARGS__)
#define CI_FE_10(m, a, ...) , m(a) CI_FE_9(m, __VA_ARGS__)
#define CI_FE_11(m, a, ...) , m(a) CI_FE_10(m, __VA_ARGS__)
#define CI_FE_12(m, a, ...) , m(a) CI_FE_11(m, __VA_ARGS__)
#define CI_FE_13(m, a, ...) , m(a) CI_FE_12(m, __VA_ARGS__)
#define CI_FE_14(m, a, ...) , m(a) CI_FE_13(m, __VA_ARGS__)
#define CI_FE_15(m, a, ...) , m(a) CI_FE_14(m, __VA_ARGS__)
#define CI_FE_16(m, a, ...) , m(a) CI_FE_15(m, __VA_ARGS__)
#define CI_FOREACH_(m, ...) CI_CAT(CI_FE_, CI_NARGS(__VA_ARGS__))(m, __VA_ARGS__)
#define CI_FOREACH(m, args) CI_FOREACH_(m, CI_UNPAREN args)

#define CI_SIGNED(x)                                                                           \
	_Generic((x), signed char: 1, short: 1, int: 1, long: 1, long long: 1, default: 0)
/* An argument as 64 bits for the error summary: integers (sign-extended when signed),
 * pointers, and the first 8 bytes of the few structs passed by value. */
#define CI_ARG_VAL(x)                                                                          \
	({                                                                                     \
		__typeof__(x) ci_t_ = (x);                                                     \
		uint64_t ci_u_ = 0;                                                            \
		__builtin_memcpy(&ci_u_, &ci_t_, sizeof ci_t_ < 8 ? sizeof ci_t_ : 8);         \
		if (CI_SIGNED(x) && sizeof ci_t_ < 8)                                          \
			ci_u_ = (uint64_t)(int64_t)(sizeof ci_t_ == 4   ? (int64_t)(int32_t)ci_u_ \
						    : sizeof ci_t_ == 2 ? (int64_t)(int16_t)ci_u_ \
									: (int64_t)(int8_t)ci_u_); \
		ci_u_;                                                                         \
	})
#define CI_ARG_SIGNED(x) (uint8_t) CI_SIGNED(x)

#define CI_RECORD_ERROR(c, r, args)                                                            \
	do {                                                                                   \
		if (!((c)->flags & CI_F_QUERY) || (r) != CUDA_ERROR_NOT_READY) {               \
			const uint64_t ci_v_[] = { 0 CI_FOREACH(CI_ARG_VAL, args) };           \
			const uint8_t ci_s_[] = { 0 CI_FOREACH(CI_ARG_SIGNED, args) };         \
			ci_api_error_record(c, r, #args, ci_v_ + 1, ci_s_ + 1,                     \
					(unsigned)(sizeof ci_v_ / sizeof ci_v_[0] - 1));       \
		}                                                                              \
	} while (0)

/* A call's time (recorder.h, "Launch times"): cuLaunchKernel(Ex) may share its predecessor's;
 * a call whose hook records nothing (`none`) reads the clock only if it fails
 * (ci_api_error_record), and a query (CI_F_QUERY), whose success is not recorded, marks
 * ci_time_mark only when it records something (ci_on_query); every other call marks it. */
#define CI_TIMING_h_launch_kernel ~, ci_launch_now
#define CI_TIMING_h_launch_kernel_ex ~, ci_launch_now
#define CI_TIMING_none ~, ci_time_none
#define CI_TIME_OF(hook, flags)                                                                \
	CI_TIME_OF_(CI_CAT(CI_TIMING_, hook), ((flags) & CI_F_QUERY ? ci_time_query : ci_time_call))
#define CI_TIME_OF_(...) CI_SECOND(__VA_ARGS__, ~)
static inline uint64_t ci_time_call(bool *shared)
{
	(void)shared;
	return ci_time_marked(ci_now());
}
static inline uint64_t ci_time_query(bool *shared)
{
	(void)shared;
	return ci_now();
}
static inline uint64_t ci_time_none(bool *shared)
{
	(void)shared;
	return 0;
}

/* A wrapper's start: ci_fn_, the real entry point; not recording, a straight call to it. */
#define CI_WRAPPER_START(name_, args_)                                                         \
	__typeof__(&name_) ci_fn_ = (__typeof__(&name_))ci_real[CI_FN_##name_];                   \
	if (CI_UNLIKELY(!ci_on())) {                                                           \
		ci_ensure_started();                                                           \
		ci_fn_ = (__typeof__(&name_))ci_real[CI_FN_##name_];                             \
		if (!ci_fn_)                                                                   \
			return ci_missing(CI_FN_##name_);                                       \
		if (!ci_on())                                                                  \
			return ci_fn_ args_;                                                    \
	}                                                                                      \
	if (CI_UNLIKELY(!ci_fn_))                                                              \
		return ci_missing(CI_FN_##name_)

/* The wrapper of one entry point.  Not recording: a straight call.  Recording: note the time,
 * frame and caller, run the hook's _pre half, call the driver, run the hook, record a failure.
 * errno is restored to what the driver left, whatever the hooks did. */
#define CI_WRAPPER(name_, hook_, flags_, params_, args_)                                            \
	CI_EXPORT CUresult CUDAAPI name_ params_                                                 \
	{                                                                                      \
		CI_WRAPPER_START(name_, args_);                                                \
		bool ci_shared_ = false;                                                       \
		uint64_t ci_t0_ = CI_TIME_OF(hook_, flags_)(&ci_shared_);                       \
		struct ci_call ci_c_ = { .t0 = ci_t0_,                                         \
					 .frame = __builtin_frame_address(0),                  \
					 .ret = CI_U64(__builtin_return_address(0)),           \
					 .fn = CI_FN_##name_,                                   \
					 .flags = (flags_) | (ci_shared_ ? CI_F_TIME_SHARED : 0), \
					 .stream = CI_NONE,                                    \
					 .ctx = CI_NONE,                                       \
					 .pre_slot = CI_NONE };                                \
		CI_CALL(CI_PRE_##hook_, (&ci_c_ CI_COMMA_ARGS args_));                           \
		CUresult ci_r_ = ci_fn_ args_;                                                  \
		int ci_errno_ = errno;                                                         \
		ci_c_.failed = ci_r_ != CUDA_SUCCESS;                                           \
		CI_CALL(CI_HOOK_##hook_, (&ci_c_, ci_r_ CI_COMMA_ARGS args_));                   \
		if (CI_UNLIKELY(ci_r_ != CUDA_SUCCESS))                                        \
			CI_RECORD_ERROR(&ci_c_, ci_r_, args_);                                  \
		errno = ci_errno_;                                                             \
		return ci_r_;                                                                  \
	}

/* The wrapper of an entry point whose hook records nothing (`none`): the same, with nothing
 * done on success after the driver returns, so errno needs no saving there and the call record
 * is only made for a failure.  Most entry points are such, and engines call some (pointer
 * attributes, the current context) around every launch: a few instructions and cache lines less
 * each time. */
#define CI_WRAPPER_NONE(name_, hook_, flags_, params_, args_)                                       \
	CI_EXPORT CUresult CUDAAPI name_ params_                                                 \
	{                                                                                      \
		CI_WRAPPER_START(name_, args_);                                                \
		CUresult ci_r_ = ci_fn_ args_;                                                  \
		if (CI_UNLIKELY(ci_r_ != CUDA_SUCCESS)) {                                      \
			int ci_errno_ = errno;                                                 \
			struct ci_call ci_c_ = { .frame = __builtin_frame_address(0),          \
						 .ret = CI_U64(__builtin_return_address(0)),   \
						 .fn = CI_FN_##name_,                           \
						 .flags = (flags_),                             \
						 .failed = true,                                \
						 .stream = CI_NONE,                            \
						 .ctx = CI_NONE,                               \
						 .pre_slot = CI_NONE };                        \
			CI_RECORD_ERROR(&ci_c_, ci_r_, args_);                                  \
			errno = ci_errno_;                                                     \
		}                                                                              \
		return ci_r_;                                                                  \
	}

#define CI_MAYBE_WRAPPER(name, hook, flags, params, args)                                      \
	CI_CAT(CI_MAYBE_WRAPPER_, CI_IS_MANUAL(hook))(name, hook, flags, params, args)
#define CI_MAYBE_WRAPPER_0(name, hook, flags, params, args)                                    \
	CI_CAT(CI_WRAPPER_NONE_, CI_IS_NONE(hook))(name, hook, flags, params, args)
#define CI_MAYBE_WRAPPER_1(name, hook, flags, params, args)
#define CI_WRAPPER_NONE_0(name, hook, flags, params, args) CI_WRAPPER(name, hook, flags, params, args)
#define CI_WRAPPER_NONE_1(name, hook, flags, params, args) CI_WRAPPER_NONE(name, hook, flags, params, args)
/* Entries whose hook is `manual` are written by hand below. */
#define CI_PROBE_manual ~, 1
#define CI_IS_MANUAL_(...) CI_SECOND(__VA_ARGS__, 0, ~)
#define CI_IS_MANUAL(hook) CI_IS_MANUAL_(CI_CAT(CI_PROBE_, hook))
#define CI_PROBE_NONE_none ~, 1
#define CI_IS_NONE(hook) CI_IS_MANUAL_(CI_CAT(CI_PROBE_NONE_, hook))

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
CI_API_TABLE(CI_MAYBE_WRAPPER)
#pragma GCC diagnostic pop

/* Every wrapper's address, by enum ci_fn. */
static void *const ci_wrapper[CI_FN_COUNT] = {
#define CI_FN_WRAPPER(name, hook, flags, params, args) [CI_FN_##name] = (void *)name,
	CI_API_TABLE(CI_FN_WRAPPER)
#undef CI_FN_WRAPPER
};

/* ---------------------------------------------------------------------------------------- */
/* Address and name maps, built once at start-up and immutable afterwards                     */

#define CI_ADDR_MAP_SIZE 2048 /* power of two, more than twice CI_FN_COUNT */
_Static_assert(CI_ADDR_MAP_SIZE > 2 * CI_FN_COUNT, "address map too small");
static uintptr_t ci_addr_key[CI_ADDR_MAP_SIZE];
static uint16_t ci_addr_fn[CI_ADDR_MAP_SIZE];
static uint16_t ci_by_name[CI_FN_COUNT]; /* enum ci_fn sorted by name */

static int ci_cmp_name(const void *a, const void *b)
{
	return strcmp(ci_fn_name[*(const uint16_t *)a], ci_fn_name[*(const uint16_t *)b]);
}

static void ci_maps_build(void)
{
	for (uint16_t i = 0; i < CI_FN_COUNT; i++)
		ci_by_name[i] = i;
	qsort(ci_by_name, CI_FN_COUNT, sizeof ci_by_name[0], ci_cmp_name);
	for (uint16_t i = 0; i < CI_FN_COUNT; i++) {
		uintptr_t a = (uintptr_t)ci_real[i];
		if (!a)
			continue;
		/* Several names may share one address (aliases with the same ABI): the first
		 * in table order keeps it; dlsym looks the requested name up first anyway. */
		for (uint64_t h = ci_mix64(a);; h++) {
			uintptr_t *k = &ci_addr_key[h & (CI_ADDR_MAP_SIZE - 1)];
			if (*k == a)
				break;
			if (!*k) {
				*k = a;
				ci_addr_fn[h & (CI_ADDR_MAP_SIZE - 1)] = i;
				break;
			}
		}
	}
}

static int ci_fn_by_name(const char *name)
{
	size_t lo = 0, hi = CI_FN_COUNT;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, ci_fn_name[ci_by_name[mid]]);
		if (!c)
			return ci_by_name[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* The wrapper for a pointer the driver handed out (NAME, when known, breaks ties between
 * aliases), or the pointer itself. */
static void *ci_swap(void *p, const char *name)
{
	if (!p || __atomic_load_n(&ci_run_state, __ATOMIC_ACQUIRE) != CI_ON)
		return p;
	if (name) {
		int i = ci_fn_by_name(name);
		if (i >= 0 && ci_real[i] == p)
			return ci_wrapper[i];
	}
	uintptr_t a = (uintptr_t)p;
	for (uint64_t h = ci_mix64(a);; h++) {
		uintptr_t k = ci_addr_key[h & (CI_ADDR_MAP_SIZE - 1)];
		if (k == a)
			return ci_wrapper[ci_addr_fn[h & (CI_ADDR_MAP_SIZE - 1)]];
		if (!k)
			return p;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Door (b): dlsym                                                                            */

ci_dlsym_fn ci_real_dlsym CI_HIDDEN;

/* A handle the program looked a driver name up in, as a last way for start-up to find the driver
 * a dlopen-only program loaded under a name of its own. */
static void *ci_driver_hint;

static void ci_find_real_dlsym(void) __attribute__((no_sanitize_address, no_sanitize_thread,
						   no_sanitize_undefined));
static void ci_find_real_dlsym(void)
{
	if (ci_real_dlsym)
		return;
	/* dlvsym is not interposed, so it reaches glibc; 2.34 moved dlsym into libc. */
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
	for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !ci_real_dlsym; i++)
		ci_real_dlsym = (ci_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
}

/* The driver half of the interposed dlsym: NAME is "cu" + capital, HANDLE an explicit handle
 * (dlopen's answer), so the lookup does not depend on who calls. */
CI_HIDDEN void *ci_dlsym_cuda(void *handle, const char *name);
void *ci_dlsym_cuda(void *handle, const char *name)
{
	ci_find_real_dlsym();
	if (!ci_real_dlsym)
		return NULL;
	void *p = ci_real_dlsym(handle, name);
	if (!p || strcmp(name, "cuGetExportTable") == 0)
		return p;
	if (__atomic_load_n(&ci_run_state, __ATOMIC_ACQUIRE) == CI_UNINIT)
		__atomic_store_n(&ci_driver_hint, handle, __ATOMIC_RELEASE);
	ci_ensure_started();
	if (ci_on())
		ci_modules_loaded();
	return ci_swap(p, name);
}

/* Called from the thunk when dlsym is used before the constructor ran (a sanitizer runtime or
 * another library initialised first); then the thunk tail-calls the real dlsym.  Nothing here
 * may be instrumented: a sanitizer runtime may not be initialised yet. */
void ci_dlsym_resolve(void) __attribute__((no_sanitize_address, no_sanitize_thread,
					   no_sanitize_undefined));
void ci_dlsym_resolve(void)
{
	ci_find_real_dlsym();
}

#if defined(__x86_64__)
/* dlsym(handle, name): a driver name looked up in an explicit handle goes to ci_dlsym_cuda, an
 * NCCL name ("nccl" + capital) to ci_dlsym_nccl; everything else (other names, RTLD_DEFAULT,
 * RTLD_NEXT, whose answers depend on the caller) jumps to the real dlsym with the caller's
 * return address untouched.  Names are compared byte by byte, so nothing past a shorter name's
 * NUL is read.  Unversioned, so references to both dlsym@GLIBC_2.2.5 and dlsym@GLIBC_2.34 bind
 * here. */
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym,@function\n"
	"dlsym:\n"
	"	testq %rdi, %rdi\n" /* RTLD_DEFAULT */
	"	jz 1f\n"
	"	cmpq $-1, %rdi\n" /* RTLD_NEXT */
	"	je 1f\n"
	"	testq %rsi, %rsi\n"
	"	jz 1f\n"
	"	cmpb $0x6e, (%rsi)\n" /* 'n' */
	"	je 5f\n"
	"	cmpb $0x63, (%rsi)\n" /* 'c' */
	"	jne 1f\n"
	"	cmpb $0x75, 1(%rsi)\n" /* 'u' */
	"	jne 1f\n"
	"	movzbl 2(%rsi), %eax\n"
	"	subl $0x41, %eax\n" /* 'A'..'Z' */
	"	cmpl $25, %eax\n"
	"	jbe ci_dlsym_cuda\n"
	"	jmp 1f\n"
	"5:	cmpb $0x63, 1(%rsi)\n" /* "nccl" */
	"	jne 1f\n"
	"	cmpb $0x63, 2(%rsi)\n"
	"	jne 1f\n"
	"	cmpb $0x6c, 3(%rsi)\n"
	"	jne 1f\n"
	"	movzbl 4(%rsi), %eax\n"
	"	subl $0x41, %eax\n"
	"	cmpl $25, %eax\n"
	"	jbe ci_dlsym_nccl\n"
	/* Recording: a library the program loaded since the last scan joins the module table now. */
	"1:	cmpl $2, ci_run_state(%rip)\n" /* CI_ON */
	"	jne 4f\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n"
	"	call ci_modules_loaded\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"4:	movq ci_real_dlsym(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jnz 2f\n"
	/* Not resolved yet: resolve, keeping the arguments and the caller's return address. */
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n"
	"	call ci_dlsym_resolve\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	movq ci_real_dlsym(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jz 3f\n"
	"2:	jmp *%rax\n"
	"3:	xorl %eax, %eax\n"
	"	ret\n"
	".size dlsym, .-dlsym\n");
#else
static bool ci_is_driver_name(const char *name)
{
	/* Driver entry points are "cu" followed by a capital (cuInit, cuLaunchKernel_ptsz);
	 * cudart's cudaMalloc and cuBLAS's cublasCreate_v2 are not. */
	return name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

static bool ci_is_nccl_name(const char *name)
{
	return !strncmp(name, "nccl", 4) && name[4] >= 'A' && name[4] <= 'Z';
}

/* Other architectures: rely on the compiler's sibling call for the forward. */
CI_EXPORT void *dlsym(void *handle, const char *name)
{
	/* glibc declares NAME nonnull, so gcc may drop the NULL checks below (and warns,
	 * -Wnonnull-compare); a buggy caller can still pass NULL, which must reach the real dlsym,
	 * not a strncmp here.  The empty asm hides what gcc assumed about NAME. */
	__asm__("" : "+r"(name));
	if (handle != RTLD_DEFAULT && handle != RTLD_NEXT && name && ci_is_driver_name(name))
		return ci_dlsym_cuda(handle, name);
	if (handle != RTLD_DEFAULT && handle != RTLD_NEXT && name && ci_is_nccl_name(name))
		return ci_dlsym_nccl(handle, name);
	if (ci_on())
		ci_modules_loaded();
	if (!ci_real_dlsym)
		ci_dlsym_resolve();
	return ci_real_dlsym ? ci_real_dlsym(handle, name) : NULL;
}
#endif

/* ---------------------------------------------------------------------------------------- */
/* Door (c): cuGetProcAddress and cuGetProcAddress_v2                                         */

static CUresult ci_proc_address_done(struct ci_call *c, CUresult r, const char *symbol,
				     void **pfn, int version, cuuint64_t flags)
{
	if (r == CUDA_SUCCESS && pfn && *pfn && strcmp(symbol ? symbol : "", "cuGetExportTable"))
		*pfn = ci_swap(*pfn, NULL);
	if (r != CUDA_SUCCESS && ci_on()) {
		const uint64_t v[] = { CI_U64(symbol), CI_U64(pfn), (uint64_t)(int64_t)version,
				       flags };
		const uint8_t s[] = { 0, 0, 1, 0 };
		ci_api_error_record(c, r, "(symbol, pfn, cudaVersion, flags)", v, s, 4);
	}
	return r;
}

#define CI_MANUAL_CALL(name)                                                                   \
	{ .t0 = ci_now(), .frame = __builtin_frame_address(0),                                  \
	  .ret = CI_U64(__builtin_return_address(0)), .fn = CI_FN_##name,                       \
	  .flags = CI_F_MANUAL, .stream = CI_NONE, .ctx = CI_NONE, .pre_slot = CI_NONE }

CI_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
				       cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	ci_ensure_started();
	__typeof__(&cuGetProcAddress_v2) real =
		(__typeof__(&cuGetProcAddress_v2))ci_real[CI_FN_cuGetProcAddress_v2];
	if (!real)
		return ci_missing(CI_FN_cuGetProcAddress_v2);
	struct ci_call c = CI_MANUAL_CALL(cuGetProcAddress_v2);
	CUresult r = real(symbol, pfn, cudaVersion, flags, status);
	c.failed = r != CUDA_SUCCESS;
	int saved = errno;
	r = ci_proc_address_done(&c, r, symbol, pfn, cudaVersion, flags);
	errno = saved;
	return r;
}

/* The CUDA 11.3 ABI: four arguments, no status. */
CI_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				    cuuint64_t flags)
{
	ci_ensure_started();
	__typeof__(&cuGetProcAddress) real =
		(__typeof__(&cuGetProcAddress))ci_real[CI_FN_cuGetProcAddress];
	if (!real)
		return ci_missing(CI_FN_cuGetProcAddress);
	struct ci_call c = CI_MANUAL_CALL(cuGetProcAddress);
	CUresult r = real(symbol, pfn, cudaVersion, flags);
	c.failed = r != CUDA_SUCCESS;
	int saved = errno;
	r = ci_proc_address_done(&c, r, symbol, pfn, cudaVersion, flags);
	errno = saved;
	return r;
}

/* ---------------------------------------------------------------------------------------- */
/* Start-up                                                                                   */

/* Start-up happens on the first CUDA call, which may come from a library constructor: inside
 * the dynamic loader's lock, possibly before this library's own constructor ran, while another
 * thread starts the recorder too.  So the configuration is read by whoever needs it first, and
 * everything that takes the loader's lock (dlopen, dlsym, libgcc's first backtrace) happens
 * before the start lock is taken: a thread holding the start lock never waits for the loader,
 * and a constructor that holds the loader's lock and waits for the start lock is not waited on
 * (docs/RECORDER.md, "What interposers get wrong").  Two threads may then both resolve the
 * driver; the first to take the start lock publishes its answer. */
static pthread_mutex_t ci_start_lock = PTHREAD_MUTEX_INITIALIZER;
static int ci_config_state; /* atomic: 0 not read, 1 being read, 2 read */
static bool ci_config_ok;
static char ci_config_error[512];
static int ci_driver_ready; /* atomic: ci_real and the address maps are published */

static void ci_config_load(void)
{
	int expected = 0;
	if (__atomic_compare_exchange_n(&ci_config_state, &expected, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		/* What stderr is before the program can change it (message.c). */
		ci_messages_init();
		ci_config_ok = ci_config_parse(&ci_cfg, ci_config_error, sizeof ci_config_error);
		__atomic_store_n(&ci_config_state, 2, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&ci_config_state, __ATOMIC_ACQUIRE) != 2)
		CI_PAUSE(); /* parsing takes microseconds and waits for nothing */
}

bool ci_nccl_wanted(void)
{
	ci_config_load();
	return ci_config_ok && !ci_cfg.disabled && ci_cfg.nccl;
}

/* The driver's entry points, looked up by one thread before it takes the start lock. */
struct ci_resolution {
	void *fn[CI_FN_COUNT];
	char note[768]; /* what to say if this one is published */
};

/* PATH opened the way the program would (already loaded first), or NULL with the loader's
 * reason in WHY, without the path it repeats. */
static void *ci_driver_open(const char *path, char *why, size_t len)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		size_t n = strlen(path);
		if (e && !strncmp(e, path, n) && !strncmp(e + n, ": ", 2))
			e += n + 2;
		snprintf(why, len, "%s", e ? e : "not found");
	}
	return h;
}

/* Fill R from H (RTLD_NEXT: the next definition after the recorder's own, i.e. the driver the
 * program linked).  True when it is a driver (it has cuInit).  A symbol it lacks stays NULL. */
static bool ci_driver_lookup(struct ci_resolution *r, void *h)
{
	for (int i = 0; i < CI_FN_COUNT; i++) {
		void *p = ci_real_dlsym(h, ci_fn_name[i]);
		if (p == ci_wrapper[i])
			p = NULL; /* CUDAINSPECT_DRIVER names the recorder itself */
		r->fn[i] = p;
	}
	return r->fn[CI_FN_cuInit] != NULL;
}

/* Resolve every wrapped name in the real driver into R: CUDAINSPECT_DRIVER, or libcuda.so.1;
 * failing that, the driver the program itself loaded or linked.  False when there is none.
 * R->note says what happened when it is not the plain case, in one line. */
static bool ci_resolve_driver(struct ci_resolution *r)
{
	const char *want = ci_cfg.driver[0] ? ci_cfg.driver : "libcuda.so.1";
	char why[300] = "";
	r->note[0] = 0;
	void *h = ci_driver_open(want, why, sizeof why);
	if (h && ci_driver_lookup(r, h))
		return true;
	if (h)
		snprintf(why, sizeof why, "%s",
			 ci_real_dlsym(h, "cuInit") == ci_wrapper[CI_FN_cuInit]
				? "that is the recorder itself"
				: "it has no cuInit: not a CUDA driver");
	/* The driver the program loaded: by its usual name, through the handle it looked driver
	 * names up in, or linked (the next definition after the recorder's). */
	void *hint = __atomic_load_n(&ci_driver_hint, __ATOMIC_ACQUIRE);
	bool found = (ci_cfg.driver[0] && (h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) &&
		      ci_driver_lookup(r, h)) ||
		     (hint && ci_driver_lookup(r, hint)) || ci_driver_lookup(r, RTLD_NEXT);
	if (ci_cfg.driver[0])
		snprintf(r->note, sizeof r->note, "cannot use CUDAINSPECT_DRIVER=%.300s (%.300s); %s",
			 want, why,
			 found ? "recording with the CUDA driver the program loaded instead"
			       : "the program has loaded no CUDA driver either; recording disabled "
				 "(CUDA calls that reach no driver return CUDA_ERROR_NOT_FOUND)");
	else if (!found)
		snprintf(r->note, sizeof r->note,
			 "cannot find the CUDA driver %.300s (%.300s); recording disabled (CUDA calls "
			 "that reach no driver return CUDA_ERROR_NOT_FOUND)", want, why);
	return found;
}

void ci_ensure_started(void)
{
	if (CI_LIKELY(__atomic_load_n(&ci_run_state, __ATOMIC_ACQUIRE) != CI_UNINIT))
		return;
	int saved = errno;
	/* Everything that may take the loader's lock, first. */
	ci_config_load();
	ci_find_real_dlsym();
	struct ci_resolution *mine = NULL, local;
	bool found = false;
	if (!__atomic_load_n(&ci_driver_ready, __ATOMIC_ACQUIRE) && ci_real_dlsym) {
		mine = &local;
		found = ci_resolve_driver(mine);
	}
	bool record = ci_config_ok && !ci_cfg.disabled;
	if (record) {
		ci_stacks_prepare();
		ci_python_prepare();
	}

	pthread_mutex_lock(&ci_start_lock);
	if (__atomic_load_n(&ci_run_state, __ATOMIC_ACQUIRE) == CI_UNINIT) {
		if (!__atomic_load_n(&ci_driver_ready, __ATOMIC_ACQUIRE)) {
			if (mine) {
				memcpy(ci_real, mine->fn, sizeof ci_real);
				if (mine->note[0])
					ci_say("%s", mine->note);
			}
			ci_maps_build();
			__atomic_store_n(&ci_driver_ready, 1, __ATOMIC_RELEASE);
		} else {
			found = ci_real[CI_FN_cuInit] != NULL;
		}
		int state = CI_PASS;
		/* The first CUDA call: now the configuration's warnings may be said. */
		for (char *line = ci_cfg.notes, *nl; (nl = strchr(line, '\n')); line = nl + 1)
			ci_say("%.*s", (int)(nl - line), line);
		ci_cfg.notes[0] = 0; /* once: not again in a fork child */
		if (!ci_config_ok)
			ci_say("%s; recording disabled, CUDA calls pass through unchanged",
			       ci_config_error);
		else if (record && found && ci_record_create())
			state = CI_ON;
		if (state == CI_ON) {
			ci_stacks_init();
			ci_python_init();
			ci_crash_install();
			ci_jit_register();
		}
		__atomic_store_n(&ci_run_state, state, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ci_start_lock);
	errno = saved;
}

/* Fork child: the record belongs to the parent; the child starts over on its first CUDA call.
 * Real entry points and maps stay valid (same address space). */
void ci_doors_after_fork_child(void)
{
	pthread_mutex_init(&ci_start_lock, NULL);
	if (__atomic_load_n(&ci_run_state, __ATOMIC_RELAXED) == CI_ON)
		__atomic_store_n(&ci_run_state, CI_UNINIT, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void ci_preload_init(void)
{
	int saved = errno;
	ci_find_real_dlsym();
	ci_config_load();
	ci_signals_at_load();
	errno = saved;
}
