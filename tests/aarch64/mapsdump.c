/* SPDX-License-Identifier: MIT */
/*
 * Preloaded next to the recorder into the aarch64 engine under qemu-user (tests/aarch64): copies
 * the process's memory map, as qemu-user shows it to the guest, to the file $MAPSDUMP_OUT once
 * every library the program links is loaded (a constructor runs after all of them are mapped).
 * tests/aarch64/kernelcore.py turns it into the NT_FILE note that qemu's cores lack.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void mapsdump(void)
{
	const char *out = getenv("MAPSDUMP_OUT");
	if (!out || !*out)
		return;
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char buf[4096];
	ssize_t n;
	while (in >= 0 && fd >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
}
