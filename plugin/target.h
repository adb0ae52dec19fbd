/* SPDX-License-Identifier: MIT */
/*
 * Why GDB handed the JIT reader no flight record.  A JIT reader learns nothing from GDB but the
 * objects it is handed, so when none arrives the reader looks at what GDB is looking at from
 * inside GDB's own process (the core file among its open descriptors, or the process it
 * traces) and asks the reader library whether a record is there: if one is, GDB failed to read
 * the recorder's JIT descriptor, most often because the recorder library on disk is not the
 * one the process ran with, and the user must hear that rather than "no flight record".
 */
#ifndef CUDAINSPECT_PLUGIN_TARGET_H
#define CUDAINSPECT_PLUGIN_TARGET_H

#include <stddef.h>
#include <sys/types.h>

enum ci_target_kind { CI_TARGET_NONE, CI_TARGET_CORE, CI_TARGET_PROCESS };

/* One line (no newline) for the user, in MSG: that there is no flight record in the core or
 * process GDB holds, or that there is one and why GDB did not hand it over (then pointing to
 * `cuda summary`).  GDB_PID is the process to look from (GDB's own: getpid()). */
void ci_no_record_explain(pid_t gdb_pid, char *msg, size_t len);

/* The core file (*PATH) that process GDB_PID has open, or the first process it traces (*PID);
 * CI_TARGET_NONE when it has neither. */
enum ci_target_kind ci_target_find(pid_t gdb_pid, char *path, size_t len, pid_t *pid);

#endif
