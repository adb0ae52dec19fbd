/* SPDX-License-Identifier: MIT */
/*
 * Files the user names for an output of the report (the CLI's --trace and --timeline), created
 * as the project creates every file (common/safefile.c): a new private file (mode 0600) in the
 * directory, unnamed or under a random hidden name, never through a link and without blocking on
 * a FIFO; it takes the user's name only when it is complete, by rename, so a reader never sees
 * half a document and a failed report leaves nothing behind.  What is at the name may be a
 * regular file of the user, which is replaced; a symbolic link, a directory, a FIFO, a device or
 * another user's file is refused, before the report is made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "safefile.h"

#define OUT_STEM ".cudainspect-output"
#define OUT_TAIL ".part"

struct ci_outfile {
	FILE *stream;
	bool is_stdout;
	int dirfd;
	struct ci_sf sf;
	char *path, *base, *what;
};

static void outfile_free(struct ci_outfile *of)
{
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->path);
	free(of->what);
	free(of);
}

/* What is at BASE in DIRFD, if it may not be replaced: a sentence; NULL when the name is free or
 * a regular file of the user. */
static const char *refuse_existing(int dirfd, const char *base)
{
	struct stat st;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return NULL;
	if (S_ISLNK(st.st_mode))
		return "is a symbolic link, which is not written through (remove it, or name another file)";
	if (S_ISDIR(st.st_mode))
		return "is a directory (name a file in it)";
	if (!S_ISREG(st.st_mode))
		return "is not a regular file (a FIFO, socket or device)";
	if (st.st_uid != geteuid())
		return "belongs to another user";
	return NULL;
}

struct ci_error *ci_outfile_open(const char *path, const char *what, struct ci_outfile **ret)
{
	struct ci_outfile *of = calloc(1, sizeof *of);
	if (!of)
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	of->dirfd = -1;
	of->sf.fd = -1;
	if (strcmp(path, "-") == 0) {
		of->is_stdout = true;
		of->stream = stdout;
		*ret = of;
		return NULL;
	}
	char shown[512];
	ci_scrub(path, shown, sizeof shown);
	of->path = strdup(path);
	of->what = strdup(what);
	if (!of->path || !of->what) {
		outfile_free(of);
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	}
	char *slash = strrchr(of->path, '/');
	of->base = slash ? slash + 1 : of->path;
	if (!*of->base || strcmp(of->base, ".") == 0 || strcmp(of->base, "..") == 0) {
		outfile_free(of);
		return ci_error_create(CI_ERR_IO, "%s %s: is a directory (name a file in it)", what, shown);
	}
	/* The directory: the path up to the last '/', "/" itself, or the current one. */
	if (slash)
		*slash = '\0';
	of->dirfd = ci_sf_open_dir(slash ? (*of->path ? of->path : "/") : ".");
	int saved = errno;
	if (slash)
		*slash = '/';
	if (of->dirfd < 0) {
		struct ci_error *e = ci_error_create(CI_ERR_IO, "%s %s: cannot open its directory: %s",
						     what, shown, strerror(saved));
		outfile_free(of);
		return e;
	}
	const char *why = refuse_existing(of->dirfd, of->base);
	if (why) {
		outfile_free(of);
		return ci_error_create(CI_ERR_IO, "%s %s: %s", what, shown, why);
	}
	int fd = -1;
	if (!ci_sf_create(&of->sf, of->dirfd, OUT_STEM, OUT_TAIL) ||
	    (fd = fcntl(of->sf.fd, F_DUPFD_CLOEXEC, 0)) < 0 || !(of->stream = fdopen(fd, "w"))) {
		saved = errno;
		if (fd >= 0)
			close(fd);
		ci_sf_discard(&of->sf);
		outfile_free(of);
		return ci_error_create(CI_ERR_IO, "%s %s: cannot create a file in its directory: %s",
				       what, shown, strerror(saved));
	}
	*ret = of;
	return NULL;
}

FILE *ci_outfile_stream(struct ci_outfile *of)
{
	return of->stream;
}

void ci_outfile_discard(struct ci_outfile *of)
{
	if (!of)
		return;
	if (!of->is_stdout) {
		if (of->stream)
			fclose(of->stream);
		ci_sf_discard(&of->sf);
	}
	outfile_free(of);
}

struct ci_error *ci_outfile_commit(struct ci_outfile *of)
{
	if (of->is_stdout) {
		bool bad = fflush(stdout) != 0 || ferror(stdout);
		free(of);
		return bad ? ci_error_create(CI_ERR_IO, "cannot write to standard output: %m") : NULL;
	}
	char shown[512];
	ci_scrub(of->path, shown, sizeof shown);
	const char *why = NULL;
	int err = 0;
	bool bad = ferror(of->stream) != 0;
	errno = 0;
	if (fclose(of->stream) != 0 || bad)
		err = errno ? errno : EIO;
	of->stream = NULL;
	/* The name again, just before it is taken: the check when opening was a while ago. */
	if (!err && !(why = refuse_existing(of->dirfd, of->base))) {
		if (!ci_sf_publish(&of->sf, OUT_STEM, OUT_TAIL) ||
		    renameat(of->dirfd, of->sf.name, of->dirfd, of->base) != 0)
			err = errno;
	}
	struct ci_error *e = NULL;
	if (why)
		e = ci_error_create(CI_ERR_IO, "%s %s: %s", of->what, shown, why);
	else if (err)
		e = ci_error_create(CI_ERR_IO, "%s %s: cannot write it: %s", of->what, shown, strerror(err));
	if (e) {
		ci_sf_discard(&of->sf);
	} else {
		close(of->sf.fd);
		of->sf.fd = -1;
	}
	outfile_free(of);
	return e;
}
