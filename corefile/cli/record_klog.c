/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect record`: after the child died, the kernel log's NVIDIA lines of that child, read
 * as the recorder reads them at the first sticky error (common/kmsgread.c: /dev/kmsg or
 * CUDAINSPECT_KMSG, without blocking), kept in a file beside the core (or the snapshot):
 * `<core file name>.kernel-log`, created like every file `record` makes (common/safefile.c:
 * exclusively, mode 0600, never through a link; a tag before the suffix when the name is
 * taken).  The recorder's copy in the record stops at the first sticky error; this one also has
 * what the driver printed after (Xid 43 and 45 at teardown) and covers a child that ran without
 * a CUDA error, or without a record at all.  docs/CLI.md, "`cudainspect record`".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "kmsgread.h"
#include "safefile.h"

/* At most this much of the log is kept beside the core. */
#define KLOG_FILE_MAX (4u << 20)

struct klog_text {
	char *buf;
	size_t len, cap;
	uint64_t dropped;
};

static void klog_keep(void *arg, const char *line, size_t len, enum ci_kmsg_reason why)
{
	(void)why;
	struct klog_text *t = arg;
	if (t->len + len + 1 > KLOG_FILE_MAX) {
		t->dropped++;
		return;
	}
	if (t->len + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;
		while (cap < t->len + len + 1)
			cap *= 2;
		char *b = realloc(t->buf, cap);
		if (!b) {
			t->dropped++;
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
	for (size_t i = 0; i < len; i++)
		t->buf[t->len + i] = line[i] ? line[i] : ' ';
	t->buf[t->len + len] = '\n';
	t->len += len + 1;
}

uint64_t cli_klog_now_us(void)
{
	return ci_kmsg_now_us();
}

char *cli_record_kernel_log(pid_t pid, const char *comm, uint64_t from_us, const char *beside,
			    bool quiet)
{
	const char *path = getenv("CUDAINSPECT_KMSG");
	if (path && (!strcasecmp(path, "off") || !strcmp(path, "0") || !strcasecmp(path, "no") ||
		     !strcasecmp(path, "false")))
		return NULL;
	if (!path || !*path || !strcasecmp(path, "on") || !strcmp(path, "1") ||
	    !strcasecmp(path, "yes") || !strcasecmp(path, "true"))
		path = NULL;
	struct ci_kmsg_who who;
	memset(&who, 0, sizeof who);
	who.pid = (uint32_t)pid;
	snprintf(who.names[0], sizeof who.names[0], "%s", comm ? comm : "");
	who.from_us = from_us > 1000000 ? from_us - 1000000 : 0;
	who.budget_ns = 2000000000ull; /* not the program's time: a larger budget */
	static char buf[CI_KMSG_RECORD_MAX * 2];
	struct klog_text t = { 0 };
	struct ci_kmsg_stats st;
	int err = ci_kmsg_collect(path, &who, buf, sizeof buf, klog_keep, &t, &st);
	if (err) {
		if (!quiet) {
			char why[PATH_MAX + 160];
			ci_kmsg_explain(path, err, why, sizeof why);
			cli_error("record: note: the kernel log cannot be read (%s); no Xid lines are "
				  "kept beside the core", why);
		}
		free(t.buf);
		return NULL;
	}
	if (!t.len || !beside) {
		free(t.buf);
		return NULL;
	}
	/* Beside BESIDE: same directory, its name + ".kernel-log". */
	char *dir = strdup(beside);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	const char *stem = slash ? slash + 1 : beside;
	if (slash)
		*slash = 0;
	int dirfd = dir ? ci_sf_open_dir(slash ? (dir[0] ? dir : "/") : ".") : -1;
	struct ci_sf f = { .fd = -1 };
	char *out = NULL;
	bool ok = false;
	if (dirfd >= 0 && ci_sf_create(&f, dirfd, stem, ".kernel-log")) {
		size_t off = 0;
		while (off < t.len) {
			ssize_t w = write(f.fd, t.buf + off, t.len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		if (off == t.len && ci_sf_publish(&f, stem, ".kernel-log")) {
			ok = close(f.fd) == 0;
			if (ok && asprintf(&out, "%s/%s", slash ? (dir[0] ? dir : "") : ".", f.name) < 0)
				out = NULL;
		} else if (off != t.len) {
			ci_sf_discard(&f);
		}
	}
	if (!ok && !quiet)
		cli_error("record: note: cannot write the kernel log's lines beside %s: %s", beside,
			  strerror(errno));
	else if (out && !quiet)
		cli_error("record: kernel log: %s (%llu NVIDIA line%s of pid %d%s)", out,
			  (unsigned long long)st.kept, st.kept == 1 ? "" : "s", (int)pid,
			  t.dropped ? ", some left out: over 4 MiB" : "");
	if (dirfd >= 0)
		close(dirfd);
	free(dir);
	free(t.buf);
	return out;
}

char *cli_beside_file(const char *input, const char *suffix)
{
	char *path = NULL;
	struct stat st;
	if (!input || !strcmp(input, "-") || asprintf(&path, "%s%s", input, suffix) < 0)
		return NULL;
	/* Only a file of ours that `record` could have made: a regular file, not a link, with one
	 * name, owned by this user (in a shared directory another user could plant one). */
	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != geteuid()) {
		free(path);
		return NULL;
	}
	return path;
}
