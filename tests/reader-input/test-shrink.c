/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for a file that shrinks while it is read (a core still being written by a
 * pipeline, a file cut meanwhile): the source maps the file, and touching the pages past its
 * new end raises SIGBUS.  Every kind of access must survive it: a pointer from
 * ci_source_peek that is then read, a ci_source_read copy, locate and decode over the
 * mapping.  Afterwards the source says the file shrank (a warning), reads of the lost part
 * fail as not in the input, and a SIGBUS that is not ours still kills (in a child process).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "source/source.h"
#include "synth.h"
#include "tap.h"

static char path[4096];
static size_t record_size;

/* A record file of at least 64 KiB, written afresh. */
static void write_record(void)
{
	struct synth_spec spec;
	synth_defaults(&spec);
	spec.launch_cap = 1024;
	spec.launches = 900;
	size_t size = synth_size(&spec);
	uint8_t *rec = calloc(1, size);
	synth_build(&spec, rec);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, rec, size) != (ssize_t)size)
		abort();
	close(fd);
	free(rec);
	record_size = size;
}

static bool warned_shrank(struct ci_source *src)
{
	const struct ci_warnings *w = ci_source_warnings(src);
	for (size_t i = 0; i < w->count; i++)
		if (strstr(w->items[i], "shrank from"))
			return true;
	return false;
}

/* The wait status of a child that (with a source of PATH open, when OPEN) touches a page of
 * a file it cut under its own mapping, or (SENT) raises SIGBUS. */
static int sigbus_child(bool open_source, bool sent)
{
	pid_t child = fork();
	if (child == 0) {
		struct ci_source *s2;
		if (open_source && ci_source_open(path, NULL, &s2))
			_exit(2);
		if (sent) {
			raise(SIGBUS);
			_exit(0);
		}
		char other[4200];
		snprintf(other, sizeof other, "%s.other", path);
		int fd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, 65536) != 0)
			_exit(2);
		volatile uint8_t *q = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
		if (q == MAP_FAILED || ftruncate(fd, 0) != 0)
			_exit(2);
		unlink(other);
		(void)q[8192];
		_exit(0);
	}
	int status = 0;
	waitpid(child, &status, 0);
	return status;
}

int main(void)
{
	plan(15);
	struct sigaction before;
	sigaction(SIGBUS, NULL, &before);
	char dir[] = "/tmp/ci-shrink-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/record.cisnap", dir);
	struct ci_source *src = NULL;
	struct ci_error *err;

	/* A pointer into the mapping, read after the file was cut. */
	write_record();
	ok(record_size >= 65536, "the record spans %zu bytes", record_size);
	err = ci_source_open(path, NULL, &src);
	ok(!err && src, "record file opened");
	const volatile uint8_t *p = ci_source_peek(src, record_size - 4096, 16);
	ok(p != NULL, "a pointer to its last page");
	if (truncate(path, 4096) != 0)
		return 1;
	ok(p && p[0] == 0 && p[15] == 0, "read through it after the file shrank to 4 KiB: zeros, no SIGBUS");
	ok(warned_shrank(src), "the source warns that the file shrank");
	uint8_t buf[64];
	err = ci_source_read(src, record_size - 8192, buf, sizeof buf);
	ok(err && err->code == CI_ERR_UNAVAILABLE && strstr(err->message, "truncated"),
	   "a later read of the lost part fails as not in the input: %s", err ? err->message : "none");
	ci_error_destroy(err);
	err = ci_source_read(src, 16, buf, sizeof buf);
	ok(!err, "a read of what is left still works");
	ci_error_destroy(err);
	ci_source_close(src);

	/* A ci_source_read copy that meets the vanished pages. */
	write_record();
	err = ci_source_open(path, NULL, &src);
	if (err || truncate(path, 8192) != 0)
		return 1;
	err = ci_source_read(src, 12288, buf, sizeof buf);
	ok(err && strstr(err->message, "shrank while it was read"),
	   "a copy from the lost part fails, saying the file shrank: %s", err ? err->message : "none");
	ci_error_destroy(err);
	ci_source_close(src);

	/* Locate and decode over a file cut just after it was opened. */
	write_record();
	err = ci_source_open(path, NULL, &src);
	if (err || truncate(path, 12288) != 0)
		return 1;
	struct ci_location loc;
	struct ci_model *m = NULL;
	err = ci_locate(src, &loc);
	if (!err)
		err = ci_decode(src, &loc, &m);
	ok(err || m, "locate and decode of a cut file end in a model or an error, without SIGBUS");
	ok(warned_shrank(src), "... and the source says it shrank");
	ok(!m || m->sections[CI_SEC_LAUNCHES].accepted < 900,
	   "... and no more launches are accepted than the part left holds (%llu)",
	   m ? (unsigned long long)m->sections[CI_SEC_LAUNCHES].accepted : 0ull);
	ci_error_destroy(err);
	ci_model_destroy(m);
	ci_source_close(src);

	/* With every source closed, SIGBUS is what it was before (the default, or ASan's). */
	struct sigaction now;
	sigaction(SIGBUS, NULL, &now);
	ok((now.sa_flags & SA_SIGINFO) == (before.sa_flags & SA_SIGINFO) &&
	   ((now.sa_flags & SA_SIGINFO) ? now.sa_sigaction == before.sa_sigaction
					: now.sa_handler == before.sa_handler),
	   "the SIGBUS handler is put back when the last source is closed");

	/* A SIGBUS of someone else's mapping, or one sent with kill(), ends a process as it
	 * would without the reader: the same status with a source open as without one (a
	 * signal here; under ASan, its report). */
	write_record();
	int fault_alone = sigbus_child(false, false), fault_with = sigbus_child(true, false);
	ok(fault_alone == fault_with && fault_alone != 0,
	   "a SIGBUS in a mapping that is not a source ends the process as it would without one "
	   "(status 0x%x, 0x%x without)", fault_with, fault_alone);
	int sent_alone = sigbus_child(false, true), sent_with = sigbus_child(true, true);
	ok(sent_alone == sent_with && sent_alone != 0,
	   "so does a SIGBUS sent with kill() (status 0x%x, 0x%x without)", sent_with, sent_alone);

	/* A file that shrinks by less than a page keeps the page: only whole lost pages fault. */
	write_record();
	err = ci_source_open(path, NULL, &src);
	if (err || truncate(path, (off_t)record_size - 100) != 0)
		return 1;
	err = ci_source_read(src, record_size - 4096, buf, 16);
	ok(!err && !warned_shrank(src), "a file cut inside its last page: that page still reads");
	ci_error_destroy(err);
	ci_source_close(src);

	unlink(path);
	rmdir(dir);
	return done_testing();
}
