/* SPDX-License-Identifier: MIT */
/*
 * The recorder's configuration: every CUDAINSPECT_* environment variable, parsed once when the
 * library is loaded.  docs/ENVIRONMENT.md documents each one; keep the two in step.  A value
 * that cannot be parsed is a configuration error: the recorder then records nothing and says
 * why once, rather than guessing what was meant.  Parsing prints nothing: every process of a
 * `cudainspect record -- sh run.sh` gets the library, and a shell or an interpreter that never
 * calls CUDA must stay silent, so errors and warnings are said at the first CUDA call.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

#include "recorder.h"
#include "size.h"

extern char **environ;

static const char *const ci_known_vars[] = {
	"CUDAINSPECT_DISABLE",	     "CUDAINSPECT_QUIET",	"CUDAINSPECT_VERBOSE",
	"CUDAINSPECT_SIZE",	     "CUDAINSPECT_DIR",		"CUDAINSPECT_SNAPSHOT",
	"CUDAINSPECT_SNAPSHOT_DIR",  "CUDAINSPECT_STACKS",	"CUDAINSPECT_STACK_DEPTH",
	"CUDAINSPECT_CRUMBS",	     "CUDAINSPECT_CRUMB_EVERY", "CUDAINSPECT_CRUMB_US",
	"CUDAINSPECT_CRUMB_BARRIER", "CUDAINSPECT_CRUMB_WIDTH", "CUDAINSPECT_PARAM_BYTES",
	"CUDAINSPECT_SIGNALS",	     "CUDAINSPECT_JIT",		"CUDAINSPECT_DRIVER",
	"CUDAINSPECT_LOG",	     "CUDAINSPECT_KMSG",	"CUDAINSPECT_PYTHON",
	"CUDAINSPECT_GRAPH_CRUMBS",  "CUDAINSPECT_CRUMB_BUDGET", "CUDAINSPECT_NCCL",
	"CUDAINSPECT_NCCL_TIMEOUT",  "CUDAINSPECT_GRAPH_CRUMB_EVERY",
	"CUDAINSPECT_CLI", /* the GDB command file's, inherited by programs GDB starts */
};

/* 1 / 0 for a boolean word, -1 for anything else. */
static int ci_parse_bool(const char *v)
{
	static const char *const yes[] = { "1", "on", "yes", "true" };
	static const char *const no[] = { "0", "off", "no", "false" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

static bool ci_parse_uint(const char *v, unsigned max, unsigned *out)
{
	uint64_t n;
	if (!ci_size_parse(v, &n) || n > max)
		return false;
	for (const char *p = v; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false; /* no suffixes for counts */
	*out = (unsigned)n;
	return true;
}

/* A share of time in percent ("0.5", "0.5%", "2 %"), 0.001 to 100, as parts per million. */
static bool ci_parse_share(const char *v, unsigned *ppm)
{
	char *end;
	errno = 0;
	double pct = strtod(v, &end);
	if (errno || end == v || !(pct >= 0.001 && pct <= 100))
		return false;
	while (*end == ' ')
		end++;
	if (*end == '%')
		end++;
	if (*end)
		return false;
	*ppm = (unsigned)(pct * 10000 + 0.5);
	return true;
}

static const char *ci_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

#define CI_BAD(...)                                                                            \
	do {                                                                                   \
		snprintf(err, errlen, __VA_ARGS__);                                            \
		return false;                                                                  \
	} while (0)

static bool ci_bool_var(const char *name, bool *out, char *err, size_t errlen)
{
	const char *v = ci_env(name);
	if (!v)
		return true;
	int b = ci_parse_bool(v);
	if (b < 0)
		CI_BAD("%s='%s' is not a boolean (use 1/0, on/off, yes/no)", name, v);
	*out = b;
	return true;
}

static bool ci_path_var(const char *name, char *out, size_t len, char *err, size_t errlen)
{
	const char *v = ci_env(name);
	if (!v)
		return true;
	if (strlen(v) >= len - 64) /* room for the file names built under it */
		CI_BAD("%s is too long (%zu bytes)", name, strlen(v));
	strcpy(out, v);
	return true;
}

bool ci_config_parse(struct ci_config *cfg, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->size = CI_SIZE_DEFAULT;
	cfg->snapshot_mask = 1u << CI_SNAP_SIGNAL | 1u << CI_SNAP_STICKY_ERROR | 1u << CI_SNAP_HANG;
	cfg->stack_mode = CI_STACKS_FAST;
	cfg->stack_depth = 16;
	cfg->crumbs = true;
	cfg->graph_crumbs = true;
	cfg->graph_crumb_every = CI_GRAPH_CRUMB_EVERY_DEFAULT;
	cfg->crumb_budget_ppm = CI_CRUMB_BUDGET_DEFAULT;
	cfg->crumb_barrier = true;
	cfg->param_bytes = CI_LAUNCH_PARAM_BYTES;
	cfg->signals = true;
	cfg->jit = true;
	cfg->python = true;
	cfg->nccl = true;
	cfg->nccl_timeout_ns = CI_NCCL_TIMEOUT_DEFAULT_NS;
	err[0] = 0;
	/* A set-user-ID (or capability-gaining) program's environment belongs to whoever started
	 * it: no variable of it may choose where the privileged process writes.  Record nothing
	 * and say nothing there. */
	if (getauxval(AT_SECURE)) {
		cfg->disabled = true;
		cfg->quiet = true;
		return true;
	}

	/* Quiet first, so that it silences the messages about everything else. */
	if (!ci_bool_var("CUDAINSPECT_QUIET", &cfg->quiet, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_DISABLE", &cfg->disabled, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_VERBOSE", &cfg->verbose, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_CRUMBS", &cfg->crumbs, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_GRAPH_CRUMBS", &cfg->graph_crumbs, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_CRUMB_BARRIER", &cfg->crumb_barrier, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_SIGNALS", &cfg->signals, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_JIT", &cfg->jit, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_PYTHON", &cfg->python, err, errlen) ||
	    !ci_bool_var("CUDAINSPECT_NCCL", &cfg->nccl, err, errlen) ||
	    !ci_path_var("CUDAINSPECT_DIR", cfg->dir, sizeof cfg->dir, err, errlen) ||
	    !ci_path_var("CUDAINSPECT_SNAPSHOT_DIR", cfg->snapshot_dir, sizeof cfg->snapshot_dir,
			 err, errlen) ||
	    !ci_path_var("CUDAINSPECT_DRIVER", cfg->driver, sizeof cfg->driver, err, errlen) ||
	    !ci_path_var("CUDAINSPECT_LOG", cfg->log, sizeof cfg->log, err, errlen))
		return false;

	const char *v;
	if ((v = ci_env("CUDAINSPECT_KMSG")) && ci_parse_bool(v) == 0) {
		cfg->kmsg_off = true;
	} else if (v && !strcmp(v, "/dev/kmsg")) {
		/* the default */
	} else if (v && ci_parse_bool(v) < 0 &&
		   !ci_path_var("CUDAINSPECT_KMSG", cfg->kmsg, sizeof cfg->kmsg, err, errlen)) {
		return false;
	}
	if ((v = ci_env("CUDAINSPECT_SIZE"))) {
		if (!ci_size_parse(v, &cfg->size))
			CI_BAD("CUDAINSPECT_SIZE='%s' is not a size (use bytes or a K/M/G/T suffix, "
			       "e.g. 64M)", v);
		if (cfg->size < CI_SIZE_MIN || cfg->size > CI_SIZE_MAX)
			CI_BAD("CUDAINSPECT_SIZE='%s' is out of range (1M to 1G)", v);
	}
	if ((v = ci_env("CUDAINSPECT_STACKS"))) {
		if (!strcasecmp(v, "off") || !strcmp(v, "0"))
			cfg->stack_mode = CI_STACKS_OFF;
		else if (!strcasecmp(v, "fast") || !strcasecmp(v, "on"))
			cfg->stack_mode = CI_STACKS_FAST;
		else if (!strcasecmp(v, "accurate") || !strcasecmp(v, "dwarf"))
			cfg->stack_mode = CI_STACKS_ACCURATE;
		else
			CI_BAD("CUDAINSPECT_STACKS='%s' is not one of off, fast, accurate", v);
	}
	if ((v = ci_env("CUDAINSPECT_STACK_DEPTH")) &&
	    (!ci_parse_uint(v, CI_STACK_DEPTH_MAX, &cfg->stack_depth) || !cfg->stack_depth))
		CI_BAD("CUDAINSPECT_STACK_DEPTH='%s' is not a number from 1 to %d", v,
		       CI_STACK_DEPTH_MAX);
	/* A cadence (every K launches, every T microseconds) replaces the budget. */
	const char *every = ci_env("CUDAINSPECT_CRUMB_EVERY"), *us = ci_env("CUDAINSPECT_CRUMB_US");
	if (every && !ci_parse_uint(every, 1u << 30, &cfg->crumb_every))
		CI_BAD("CUDAINSPECT_CRUMB_EVERY='%s' is not a launch count", every);
	if (us && !ci_parse_uint(us, 1u << 30, &cfg->crumb_us))
		CI_BAD("CUDAINSPECT_CRUMB_US='%s' is not a number of microseconds", us);
	if ((v = ci_env("CUDAINSPECT_CRUMB_BUDGET"))) {
		if (every || us)
			CI_BAD("CUDAINSPECT_CRUMB_BUDGET='%s' and a breadcrumb cadence "
			       "(CUDAINSPECT_CRUMB_EVERY, CUDAINSPECT_CRUMB_US) exclude each other; "
			       "set one", v);
		if (!ci_parse_share(v, &cfg->crumb_budget_ppm))
			CI_BAD("CUDAINSPECT_CRUMB_BUDGET='%s' is not a share of time from 0.001%% "
			       "to 100%% (e.g. 0.5%%)", v);
	}
	if (every || us) {
		cfg->crumb_budget_ppm = 0;
		if (cfg->crumbs && !cfg->crumb_every && !cfg->crumb_us)
			CI_BAD("CUDAINSPECT_CRUMB_EVERY=0 without CUDAINSPECT_CRUMB_US would never "
			       "write a breadcrumb; set CUDAINSPECT_CRUMBS=off to turn them off");
	}
	if ((v = ci_env("CUDAINSPECT_GRAPH_CRUMB_EVERY")) &&
	    (!ci_parse_uint(v, 1u << 30, &cfg->graph_crumb_every) || !cfg->graph_crumb_every))
		CI_BAD("CUDAINSPECT_GRAPH_CRUMB_EVERY='%s' is not a kernel count from 1 (use "
		       "CUDAINSPECT_GRAPH_CRUMBS=off to turn in-graph breadcrumbs off)", v);
	if ((v = ci_env("CUDAINSPECT_CRUMB_WIDTH"))) {
		if (!strcasecmp(v, "auto"))
			cfg->crumb_width = 0;
		else if (!strcmp(v, "32"))
			cfg->crumb_width = 4;
		else if (!strcmp(v, "64"))
			cfg->crumb_width = 8;
		else
			CI_BAD("CUDAINSPECT_CRUMB_WIDTH='%s' is not one of auto, 32, 64", v);
	}
	if ((v = ci_env("CUDAINSPECT_PARAM_BYTES")) &&
	    !ci_parse_uint(v, CI_LAUNCH_PARAM_BYTES, &cfg->param_bytes))
		CI_BAD("CUDAINSPECT_PARAM_BYTES='%s' is not a number from 0 to %d", v,
		       CI_LAUNCH_PARAM_BYTES);
	if ((v = ci_env("CUDAINSPECT_NCCL_TIMEOUT"))) {
		char *end;
		errno = 0;
		double sec = ci_parse_bool(v) == 0 ? 0 : strtod(v, &end);
		if (ci_parse_bool(v) != 0 && (errno || end == v || *end || !(sec >= 0.01 && sec <= 86400)))
			CI_BAD("CUDAINSPECT_NCCL_TIMEOUT='%s' is not a number of seconds from 0.01 to 86400 "
			       "(or off)", v);
		cfg->nccl_timeout_ns = (uint64_t)(sec * 1e9 + 0.5);
	}
	if ((v = ci_env("CUDAINSPECT_SNAPSHOT"))) {
		char words[256];
		snprintf(words, sizeof words, "%s", v);
		cfg->snapshot_mask = 0;
		for (char *save, *w = strtok_r(words, ", ", &save); w;
		     w = strtok_r(NULL, ", ", &save)) {
			if (!strcasecmp(w, "signal"))
				cfg->snapshot_mask |= 1u << CI_SNAP_SIGNAL;
			else if (!strcasecmp(w, "error"))
				cfg->snapshot_mask |= 1u << CI_SNAP_STICKY_ERROR;
			else if (!strcasecmp(w, "exit"))
				cfg->snapshot_mask |= 1u << CI_SNAP_EXIT;
			else if (!strcasecmp(w, "hang"))
				cfg->snapshot_mask |= 1u << CI_SNAP_HANG;
			else if (!strcasecmp(w, "all"))
				cfg->snapshot_mask |= 1u << CI_SNAP_SIGNAL | 1u << CI_SNAP_STICKY_ERROR |
						      1u << CI_SNAP_EXIT | 1u << CI_SNAP_HANG;
			else if (strcasecmp(w, "none") && strcasecmp(w, "off"))
				CI_BAD("CUDAINSPECT_SNAPSHOT='%s': '%s' is not one of signal, error, "
				       "hang, exit, all, none", v, w);
		}
	}

	/* A misspelt variable would otherwise be ignored without a word: one line each, said at
	 * the first CUDA call (ci_ensure_started). */
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "CUDAINSPECT_", 12))
			continue;
		size_t n = strcspn(*e, "=");
		bool known = false;
		for (size_t i = 0; i < sizeof ci_known_vars / sizeof ci_known_vars[0]; i++)
			if (strlen(ci_known_vars[i]) == n && !strncmp(*e, ci_known_vars[i], n))
				known = true;
		char line[128];
		size_t used = strlen(cfg->notes);
		int w = snprintf(line, sizeof line,
				 "ignoring unknown variable %.*s (see docs/ENVIRONMENT.md)\n",
				 n > 64 ? 64 : (int)n, *e);
		if (!known && w > 0 && used + (size_t)w < sizeof cfg->notes)
			memcpy(cfg->notes + used, line, (size_t)w + 1); /* whole lines only */
	}
	return true;
}
