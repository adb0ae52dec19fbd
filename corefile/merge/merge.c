/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect merge`: the inputs of a whole job side by side (docs/CLI.md, "merge").  Each
 * input is reduced to its facts (merge.h) as it is added; a bad one is kept as a note, never
 * an error.  The analysis (ci_merge_analyse) then drops duplicate inputs of one process, groups
 * the rest by the communicators they share, and, for the job with the most ranks, says each
 * rank's state, who waits in which collective for whom, collectives that differ between ranks
 * at one number, and which rank failed first: the communicator's collective numbers are the
 * job's logical clock, times (one clock per host) only order what they leave equal.
 * merge_render.c words the result.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge/merge.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether a file met in a directory looks like an input. */
static bool looks_like_input(const char *name)
{
	return strncmp(name, "core", 4) == 0 || ends_with(name, ".core") ||
	       ends_with(name, CI_SNAPSHOT_SUFFIX) || ends_with(name, CI_PERSISTENT_SUFFIX) ||
	       ends_with(name, ".json");
}

struct ci_error *ci_merge_create(const struct ci_request *req, struct ci_merge **ret)
{
	struct ci_merge *m = calloc(1, sizeof *m);
	if (!m)
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	/* Each record is read as for its summary (`cudainspect INPUT`): the NCCL tables and rings
	 * whole, the launches the diagnosis weighs, the stacks it shows symbolized, so that its
	 * headline and crash signature are the ones its own report gives. */
	if (req)
		m->req = *req;
	m->req.json = false;
	m->req.timeline = false;
	m->req.render.view = CI_VIEW_SUMMARY;
	if (!req)
		m->req.no_symbols = true;
	*ret = m;
	return NULL;
}

void ci_merge_destroy(struct ci_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->input_count; i++) {
		free(m->inputs[i].path);
		free(m->inputs[i].note);
		ci_job_facts_deinit(&m->inputs[i].facts);
	}
	free(m->inputs);
	ci_merge_analysis_deinit(&m->an);
	free(m);
}

size_t ci_merge_input_count(const struct ci_merge *m) { return m->input_count; }

size_t ci_merge_usable_count(const struct ci_merge *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->input_count; i++)
		n += m->inputs[i].status != CI_MERGE_IN_BAD;
	return n;
}

static struct ci_merge_input *input_new(struct ci_merge *m, const char *path)
{
	if (m->input_count == m->input_cap) {
		size_t cap = m->input_cap ? 2 * m->input_cap : 16;
		struct ci_merge_input *in = realloc(m->inputs, cap * sizeof in[0]);
		if (!in)
			return NULL;
		m->inputs = in;
		m->input_cap = cap;
	}
	struct ci_merge_input *in = &m->inputs[m->input_count];
	memset(in, 0, sizeof *in);
	if (!(in->path = strdup(path)))
		return NULL;
	m->input_count++;
	in->rank = -1;
	return in;
}

/* Keep ERR (taken over) as IN's note: the input cannot be used. */
static void input_bad(struct ci_merge_input *in, struct ci_error *err)
{
	in->status = CI_MERGE_IN_BAD;
	in->note = strdup(err->message);
	ci_error_destroy(err);
}

struct ci_error *ci_merge_add_json(struct ci_merge *m, const char *name, const char *buf,
				   size_t len)
{
	struct ci_merge_input *in = input_new(m, name);
	if (!in)
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	struct ci_error *err = ci_job_facts_from_json(buf, len, &in->facts);
	if (err && err->code == CI_ERR_NOMEM)
		return err;
	if (err)
		input_bad(in, err);
	return NULL;
}

/* A JSON document on disk: read whole, within the parser's bound. */
static struct ci_error *add_json_file(struct ci_merge *m, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	struct ci_error *err = NULL;
	char *buf = NULL;
	if (fd < 0 || fstat(fd, &st) != 0)
		err = ci_error_create(CI_ERR_IO, "cannot open: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = ci_error_create(CI_ERR_IO, "not a regular file");
	else if ((uint64_t)st.st_size > CI_MERGE_JSON_MAX_BYTES)
		err = ci_error_create(CI_ERR_CORRUPT, "the JSON document is %jd bytes, more than the "
				      "%u a merge reads", (intmax_t)st.st_size, CI_MERGE_JSON_MAX_BYTES);
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		err = ci_error_create(CI_ERR_NOMEM, "out of memory");
	size_t len = 0;
	while (!err && len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = ci_error_create(CI_ERR_IO, "cannot read: %s",
					      n ? strerror(errno) : "the file shrank");
			break;
		}
		len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (!err) {
		err = ci_merge_add_json(m, path, buf, len);
		free(buf);
		return err;
	}
	free(buf);
	if (err->code == CI_ERR_NOMEM)
		return err;
	struct ci_merge_input *in = input_new(m, path);
	if (!in) {
		ci_error_destroy(err);
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	}
	input_bad(in, err);
	return NULL;
}

/* A core, snapshot or record file: its report (as for --json), reduced to its facts. */
static struct ci_error *add_record(struct ci_merge *m, const char *path)
{
	struct ci_merge_input *in = input_new(m, path);
	if (!in)
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	struct ci_input input = { .path = path };
	struct ci_report *report = NULL;
	struct ci_error *err = ci_report_create(&input, &m->req, &report);
	if (!err)
		err = ci_job_facts_from_report(report, &in->facts);
	ci_report_destroy(report);
	if (err && err->code == CI_ERR_NOMEM)
		return err;
	if (err)
		input_bad(in, err);
	return NULL;
}

static struct ci_error *add_path(struct ci_merge *m, const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		if (ends_with(path, ".json"))
			return add_json_file(m, path);
		return add_record(m, path);
	}
	if (depth > 4)
		return NULL;
	struct dirent **names = NULL;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		struct ci_merge_input *in = input_new(m, path);
		if (!in)
			return ci_error_create(CI_ERR_NOMEM, "out of memory");
		input_bad(in, ci_error_create(CI_ERR_IO, "cannot list the directory: %s",
					      strerror(errno)));
		return NULL;
	}
	struct ci_error *err = NULL;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (!err && name[0] != '.') {
			char *sub;
			size_t len = strlen(path);
			if (asprintf(&sub, "%s%s%s", path, len && path[len - 1] == '/' ? "" : "/",
				     name) < 0) {
				err = ci_error_create(CI_ERR_NOMEM, "out of memory");
			} else {
				/* Links to files are followed (shared storage gathers them so),
				 * links to directories are not (no loops). */
				struct stat lst, sst;
				if (lstat(sub, &lst) == 0 && S_ISDIR(lst.st_mode))
					err = add_path(m, sub, depth + 1);
				else if (stat(sub, &sst) == 0 && S_ISREG(sst.st_mode) &&
					 looks_like_input(name))
					err = add_path(m, sub, depth + 1);
				else
					m->skipped++;
				free(sub);
			}
		}
		free(names[i]);
	}
	free(names);
	return err;
}

struct ci_error *ci_merge_add(struct ci_merge *m, const char *path)
{
	m->analysed = false;
	return add_path(m, path, 0);
}
