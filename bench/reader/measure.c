/* SPDX-License-Identifier: MIT */
/*
 * Benchmark helper: run a command (its stdout to /dev/null) and print its wall time and peak
 * resident memory, measured with wait4's rusage, so the reader's benchmark needs no GNU time.
 *   measure CMD [ARGS...]   ->   "<wall s> <peak KiB> <exit status> <cpu s>" on stdout
 * CPU time (user + system) is printed too: on a shared machine it is steadier than wall time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: measure CMD [ARGS...]\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[1], argv + 1);
		perror("measure: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("measure: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("%.3f %ld %d %.3f\n", s, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), cpu);
	return 0;
}
