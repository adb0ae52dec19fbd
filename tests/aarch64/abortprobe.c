/* SPDX-License-Identifier: MIT */
/*
 * An aarch64 program whose assert() fails (tests/aarch64/qemu.t): glibc keeps the assertion's
 * text in __abort_msg, which the reader prints from the core.  (tests/hostside/assertprobe waits
 * for its second thread to sleep in a futex, which qemu-user's /proc does not show.)
 */
#include <assert.h>

int main(int argc, char **argv)
{
	(void)argv;
	assert(argc > 1 && "abortprobe: the assertion tests/aarch64/qemu.t plants");
	return 0;
}
