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

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum cigdb_target_kind { CIGDB_TARGET_NONE, CIGDB_TARGET_CORE, CIGDB_TARGET_PROCESS };

/* One line (no newline) for the user, in MSG: that there is no flight record in the core or
 * process GDB holds, or that there is one and why GDB did not hand it over (then pointing to
 * `cuda summary`).  GDB_PID is the process to look from (GDB's own: getpid()). */
void cigdb_no_record_explain(pid_t gdb_pid, char *msg, size_t len);

/* The core file (*PATH) that process GDB_PID has open, or the first process it traces (*PID);
 * CIGDB_TARGET_NONE when it has neither. */
enum cigdb_target_kind cigdb_target_find(pid_t gdb_pid, char *path, size_t len, pid_t *pid);

/* Whether process GDB_PID has PATH open (the same file: device and inode), PATH being an ELF
 * core file: `info target` names the core, but its text can be spoofed by a file name. */
bool cigdb_holds_core(pid_t gdb_pid, const char *path);
/* Whether LWP is traced by process GDB_PID. */
bool cigdb_traces(pid_t gdb_pid, pid_t lwp);

#endif
