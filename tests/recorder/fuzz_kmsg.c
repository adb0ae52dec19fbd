/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the recorder's kernel-log reader (common/kmsgread.c): the input is
 * written to a private temporary file, which ci_kmsg_collect reads as it reads a log of
 * /dev/kmsg records (the file path of CUDAINSPECT_KMSG), for three processes: one with a pid,
 * names, a time floor and GPUs, one knowing nothing, one with every field at its extreme.
 * Every line handed back must be one whole line of the input that names NVIDIA's prefix, and
 * the counts must add up.  tests/recorder/fuzz-kmsg.t runs it in `make check`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/kmsgread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];
static int fd = -1;
static const uint8_t *cur;
static size_t cur_size;

static void cleanup(void)
{
	if (path[0])
		unlink(path);
}

static void keep(void *arg, const char *line, size_t len, enum ci_kmsg_reason why)
{
	(void)arg;
	if (why < CI_KMSG_BY_PID || why > CI_KMSG_GPU_LINE || memchr(line, '\n', len) ||
	    !memmem(line, len, "NVRM: ", 6))
		abort();
	/* One of the input's lines (NULs inside it are kept as they are read). */
	if (!memmem(cur, cur_size, line, len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		snprintf(path, sizeof path, "%s/fuzz_kmsg.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (strlen(path) >= sizeof path - 1 || (fd = mkstemp(path)) < 0)
			abort();
		atexit(cleanup);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	cur = data;
	cur_size = size;
	static char buf[CI_KMSG_RECORD_MAX];
	struct ci_kmsg_who who[3];
	memset(who, 0, sizeof who);
	who[0].pid = 4242;
	who[0].host_pid = 1234567;
	snprintf(who[0].names[0], 16, "python");
	snprintf(who[0].names[1], 16, "[pytest-xdist r");
	who[0].from_us = 1000000;
	ci_kmsg_who_add_pci(&who[0], "0000:3B:00.0");
	ci_kmsg_who_add_pci(&who[0], "00000000:18:00.0");
	ci_kmsg_who_add_pci(&who[0], "not a bus id");
	who[2].pid = UINT32_MAX;
	who[2].host_pid = UINT32_MAX;
	memset(who[2].names[0], 'x', 15);
	who[2].from_us = UINT64_MAX;
	for (int i = 0; i < CI_KMSG_PCI_MAX + 2; i++) {
		char id[32];
		snprintf(id, sizeof id, "%x:%02x:%02x.0", i * 7919, i, i);
		ci_kmsg_who_add_pci(&who[2], id);
	}
	for (int i = 0; i < 3; i++) {
		struct ci_kmsg_stats st;
		who[i].budget_ns = 5000000000ull;
		int err = ci_kmsg_collect(path, &who[i], buf, sizeof buf, keep, NULL, &st);
		if (err || st.kept > st.nvrm || st.nvrm > st.records ||
		    st.kept + st.other_process + st.other_gpu + st.too_old > st.nvrm)
			abort();
	}
	return 0;
}
