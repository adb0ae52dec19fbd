/* SPDX-License-Identifier: MIT */
/*
 * Fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS): the recorder notes
 * a crash and writes its snapshot (crash.c, ci_fatal_record) only when the signal really ends
 * the process, and otherwise changes nothing about how signals are handled.
 *
 * A fault the program handles is not a crash: JITs, managed runtimes and sandboxes take SIGSEGV
 * (SIGBUS, SIGFPE, SIGILL) for their own control flow and resume.  So the program's handler
 * always runs first, whether it was installed before the recorder started or after: the kernel
 * runs ci_on_fatal, which calls the program's handler; if that returns (or leaves by siglongjmp)
 * the signal was handled and the recorder does nothing.  The recorder notes a crash only when
 * the disposition the program set is the default (or "ignore" for a fault the kernel forces),
 * which is also where a handler that gives up ends: it resets the default and re-raises, or
 * returns to re-execute the faulting instruction (Python's faulthandler, crash reporters).  The
 * one exception is SIGABRT sent by the process to itself (abort()) to a handler that returns:
 * glibc's abort() then resets SIGABRT to the default itself, bypassing sigaction, and raises it
 * again, so that is a crash, noted when the handler returns.
 *
 * To stay in front, the recorder interposes sigaction() and signal() (with bsd_signal,
 * sysv_signal, __sysv_signal): for these seven signals it keeps the program's disposition in a
 * shadow table (exactly what the program set, returned as the old action exactly as the kernel
 * would have), and installs ci_on_fatal in the kernel with the program's mask and flags (less
 * SA_RESETHAND, which it applies itself), so that the program's handler runs as it asked: on its
 * alternate stack or not, with its mask.  Other signals pass straight through.  Updates take a
 * spin lock with every signal blocked (sigaction is async-signal-safe, so may be called from a
 * handler); the handler reads the shadow under a sequence count.  A program that installs
 * handlers with the raw rt_sigaction system call (Go's runtime) or sigset() replaces the
 * recorder's handler as it would any other.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"

static const int ci_fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
#define CI_NFATAL (sizeof ci_fatal_signals / sizeof ci_fatal_signals[0])

struct ci_chain {
	uint32_t gen;          /* sequence count: odd while APP is rewritten (atomic) */
	uint32_t ours;         /* the kernel runs ci_on_fatal for this signal (atomic) */
	struct sigaction app;  /* the program's disposition, as it would be without the recorder */
};
static struct ci_chain ci_chain[CI_NFATAL];
static int ci_chain_lock; /* atomic; taken with every signal blocked */

typedef int (*ci_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef __sighandler_t (*ci_signal_fn)(int, __sighandler_t);
static ci_sigaction_fn ci_real_sigaction;
static ci_signal_fn ci_real_signal, ci_real_sysv_signal;

CI_UNSANITIZED static int ci_signal_index(int sig)
{
	for (size_t i = 0; i < CI_NFATAL; i++)
		if (ci_fatal_signals[i] == sig)
			return (int)i;
	return -1;
}

/* Nothing here is instrumented by a sanitizer, nor calls libc functions sanitizers intercept
 * (memcpy, memset, sigfillset, pthread_sigmask): ThreadSanitizer's and AddressSanitizer's own
 * start-up call sigaction before their runtimes can take calls from instrumented code.  Word
 * copies are atomic accesses, which the compiler does not turn into memcpy calls. */

_Static_assert(sizeof(struct sigaction) % 8 == 0 && sizeof(sigset_t) % 8 == 0,
	       "struct sigaction and sigset_t are copied in words");

CI_UNSANITIZED static void ci_words_copy(void *dst, const void *src, size_t bytes)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	for (size_t i = 0; i < bytes / 8; i++)
		__atomic_store_n(&d[i], __atomic_load_n(&s[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

CI_UNSANITIZED static void ci_words_clear(void *dst, size_t bytes)
{
	uint64_t *d = dst;
	for (size_t i = 0; i < bytes / 8; i++)
		__atomic_store_n(&d[i], 0, __ATOMIC_RELAXED);
}

/* SIG_DFL, no flags, empty mask. */
CI_UNSANITIZED static void ci_sa_default(struct sigaction *sa)
{
	ci_words_clear(sa, sizeof *sa);
	sa->sa_handler = SIG_DFL;
}

CI_UNSANITIZED static void ci_set_add(sigset_t *set, int sig)
{
	unsigned long *w = (unsigned long *)set;
	unsigned bits = 8 * sizeof(unsigned long);
	w[(unsigned)(sig - 1) / bits] |= 1ul << ((unsigned)(sig - 1) % bits);
}

/* ---------------------------------------------------------------------------------------- */
/* The real functions                                                                         */

CI_UNSANITIZED static void *ci_libc_next(const char *name)
{
	/* dlvsym is not interposed; the first version found is the one programs link against. */
	static const char *const versions[] = { "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0" };
	void *p = NULL;
	for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !p; i++)
		p = dlvsym(RTLD_NEXT, name, versions[i]);
	return p;
}

/* At load (the constructor), before any program handler could call sigaction: dlvsym is not
 * async-signal-safe. */
CI_UNSANITIZED static void ci_signals_prepare(void)
{
	if (!ci_real_sigaction)
		ci_real_sigaction = (ci_sigaction_fn)ci_libc_next("sigaction");
	if (!ci_real_signal)
		ci_real_signal = (ci_signal_fn)ci_libc_next("signal");
	if (!ci_real_sysv_signal)
		ci_real_sysv_signal = (ci_signal_fn)ci_libc_next("__sysv_signal");
}

CI_UNSANITIZED static int ci_sigaction_raw(int sig, const struct sigaction *act,
					   struct sigaction *old)
{
	if (!ci_real_sigaction)
		ci_signals_prepare();
	if (!ci_real_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	return ci_real_sigaction(sig, act, old);
}

/* ---------------------------------------------------------------------------------------- */
/* The shadow table                                                                           */

/* Every signal blocked (the kernel's mask: 64 bits), the lock taken; the old mask in *SAVED.
 * Blocking glibc's internal signals too is fine for these few instructions. */
CI_UNSANITIZED static void ci_chain_take(uint64_t *saved)
{
	uint64_t all = ~0ull;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, saved, sizeof all);
	while (__atomic_exchange_n(&ci_chain_lock, 1, __ATOMIC_ACQUIRE))
		CI_PAUSE();
}

CI_UNSANITIZED static void ci_chain_drop(const uint64_t *saved)
{
	__atomic_store_n(&ci_chain_lock, 0, __ATOMIC_RELEASE);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, NULL, sizeof *saved);
}

/* Under the lock. */
CI_UNSANITIZED static void ci_chain_write(struct ci_chain *c, const struct sigaction *sa)
{
	uint32_t g = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);
	__atomic_store_n(&c->gen, g + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ci_words_copy(&c->app, sa, sizeof *sa);
	__atomic_store_n(&c->gen, g + 2, __ATOMIC_RELEASE);
}

/* From a handler: a consistent copy, without the lock (its holder may be this thread's
 * interrupted code only if signals were not blocked, and they are). */
CI_UNSANITIZED static void ci_chain_read(const struct ci_chain *c, struct sigaction *out)
{
	for (;;) {
		uint32_t g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		if (!(g & 1)) {
			ci_words_copy(out, &c->app, sizeof *out);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&c->gen, __ATOMIC_RELAXED) == g)
				return;
		}
		CI_PAUSE();
	}
}

CI_UNSANITIZED static bool ci_is_handler(const struct sigaction *sa)
{
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

static void ci_on_fatal(int sig, siginfo_t *info, void *uc);

/* What the kernel gets for the program's disposition APP: the recorder's handler, with the
 * program's mask and flags when it has a handler (so it runs as it asked), else an empty mask
 * and the alternate stack if there is one (a stack overflow can still be noted). */
CI_UNSANITIZED static void ci_kernel_action(const struct sigaction *app, struct sigaction *k)
{
	ci_words_clear(k, sizeof *k);
	k->sa_sigaction = ci_on_fatal;
	if (ci_is_handler(app)) {
		ci_words_copy(&k->sa_mask, &app->sa_mask, sizeof k->sa_mask);
		k->sa_flags = (app->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
	} else {
		k->sa_flags = SA_SIGINFO | SA_ONSTACK;
	}
}

/* Set signal I's disposition to APP (shadow and kernel); the old one into *OLD. */
CI_UNSANITIZED static int ci_chain_set(size_t i, const struct sigaction *app,
				       struct sigaction *old)
{
	struct ci_chain *c = &ci_chain[i];
	int sig = ci_fatal_signals[i];
	uint64_t saved;
	ci_chain_take(&saved);
	int r = 0;
	struct sigaction prev;
	if (!__atomic_load_n(&c->ours, __ATOMIC_RELAXED)) {
		r = ci_sigaction_raw(sig, app, old);
	} else {
		ci_words_copy(&prev, &c->app, sizeof prev);
		if (app) {
			struct sigaction k;
			ci_kernel_action(app, &k);
			r = ci_sigaction_raw(sig, &k, NULL);
			if (r == 0)
				ci_chain_write(c, app);
		}
		if (r == 0 && old)
			ci_words_copy(old, &prev, sizeof prev);
	}
	int err = errno;
	ci_chain_drop(&saved);
	errno = err;
	return r;
}

CI_UNSANITIZED void ci_signals_install(void)
{
	uint64_t saved;
	ci_chain_take(&saved);
	for (size_t i = 0; i < CI_NFATAL; i++) {
		struct ci_chain *c = &ci_chain[i];
		struct sigaction cur, k;
		if (__atomic_load_n(&c->ours, __ATOMIC_RELAXED) ||
		    ci_sigaction_raw(ci_fatal_signals[i], NULL, &cur) != 0)
			continue;
		ci_chain_write(c, &cur);
		ci_kernel_action(&cur, &k);
		if (ci_sigaction_raw(ci_fatal_signals[i], &k, NULL) == 0)
			__atomic_store_n(&c->ours, 1, __ATOMIC_RELEASE);
	}
	ci_chain_drop(&saved);
}

/* fork: a thread of the parent may have held the lock, or been mid-update, at that moment.
 * Registered when the library is loaded, since the program's sigaction calls take the lock
 * whether the recorder ever starts or not. */
CI_UNSANITIZED static void ci_signals_after_fork_child(void)
{
	ci_chain_lock = 0;
	for (size_t i = 0; i < CI_NFATAL; i++)
		ci_chain[i].gen &= ~1u;
}

/* ---------------------------------------------------------------------------------------- */
/* The handler                                                                                */

/* Sent by the kernel for a fault or trap (not by kill, raise or sigqueue). */
CI_UNSANITIZED static bool ci_kernel_sent(const siginfo_t *info)
{
	return info && (info->si_code > 0 || info->si_code == SI_KERNEL);
}

/* Re-executing the instruction faults again, with the kernel's own siginfo in the core. */
CI_UNSANITIZED static bool ci_refaults(int sig, const siginfo_t *info)
{
	if (!info || !(sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE))
		return false;
	/* SI_KERNEL: a general protection fault (SIGSEGV) re-faults too. */
	return info->si_code > 0 || (sig == SIGSEGV && info->si_code == SI_KERNEL);
}

CI_UNSANITIZED static bool ci_self_sent(const siginfo_t *info)
{
	return info && (info->si_code == SI_TKILL || info->si_code == SI_USER) &&
	       info->si_pid == getpid();
}

CI_UNSANITIZED static void ci_on_fatal(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;
	int idx = ci_signal_index(sig);
	if (idx < 0)
		return;
	struct sigaction app;
	ci_chain_read(&ci_chain[idx], &app);
	if (ci_is_handler(&app)) {
		if (app.sa_flags & SA_RESETHAND) {
			/* What the kernel would have done before calling it. */
			struct sigaction dfl;
			ci_sa_default(&dfl);
			ci_chain_set((size_t)idx, &dfl, NULL);
		}
		errno = saved;
		if (app.sa_flags & SA_SIGINFO)
			app.sa_sigaction(sig, info, uc);
		else
			app.sa_handler(sig);
		/* It returned: the program handled the signal, unless this is abort()'s. */
		if (sig == SIGABRT && ci_self_sent(info)) {
			int e = errno;
			ci_fatal_record(sig, info);
			errno = e;
		}
		return;
	}
	if (app.sa_handler == SIG_IGN && !ci_kernel_sent(info)) {
		errno = saved;
		return; /* ignored, as the program asked */
	}
	/* The default action, or "ignore" for a fault (the kernel kills for those anyway): the
	 * process ends here. */
	ci_fatal_record(sig, info);
	struct sigaction dfl;
	ci_sa_default(&dfl);
	ci_sigaction_raw(sig, &dfl, NULL);
	/* A hardware fault happens again when the instruction is re-executed, with the kernel's
	 * own siginfo in the core; anything else (abort, kill, int3, seccomp) is raised again and
	 * delivered when this handler returns. */
	if (!ci_refaults(sig, info))
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	errno = saved;
}

/* ---------------------------------------------------------------------------------------- */
/* The interposed functions                                                                   */

CI_EXPORT CI_UNSANITIZED int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int idx = ci_signal_index(sig);
	if (idx < 0)
		return ci_sigaction_raw(sig, act, old);
	return ci_chain_set((size_t)idx, act, old);
}

/* signal() with glibc's semantics for FLAGS (BSD: SA_RESTART, the signal blocked in its
 * handler; System V: SA_RESETHAND | SA_NODEFER). */
CI_UNSANITIZED static __sighandler_t ci_signal_as(int sig, __sighandler_t handler, int flags,
						  bool block_self)
{
	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction sa, old;
	ci_sa_default(&sa);
	sa.sa_handler = handler;
	if (block_self)
		ci_set_add(&sa.sa_mask, sig);
	sa.sa_flags = flags;
	if (ci_chain_set((size_t)ci_signal_index(sig), &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

CI_EXPORT CI_UNSANITIZED __sighandler_t signal(int sig, __sighandler_t handler)
{
	if (ci_signal_index(sig) < 0) {
		if (!ci_real_signal)
			ci_signals_prepare();
		return ci_real_signal ? ci_real_signal(sig, handler) : SIG_ERR;
	}
	return ci_signal_as(sig, handler, SA_RESTART, true);
}

__sighandler_t bsd_signal(int sig, __sighandler_t handler); /* glibc declares it only for XPG */
CI_EXPORT CI_UNSANITIZED __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return signal(sig, handler);
}

CI_EXPORT CI_UNSANITIZED __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	if (ci_signal_index(sig) < 0) {
		if (!ci_real_sysv_signal)
			ci_signals_prepare();
		return ci_real_sysv_signal ? ci_real_sysv_signal(sig, handler) : SIG_ERR;
	}
	return ci_signal_as(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

CI_EXPORT CI_UNSANITIZED __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	return __sysv_signal(sig, handler);
}

/* At load (the constructor): the real functions, and the fork handler. */
void ci_signals_at_load(void)
{
	ci_signals_prepare();
	pthread_atfork(NULL, NULL, ci_signals_after_fork_child);
}
