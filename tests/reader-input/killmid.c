/* SPDX-License-Identifier: MIT */
/*
 * Test helper: kill a reader while it holds a thread of its target stopped, and say what the
 * target looks like afterwards.
 *
 *   killmid SIGNAL TARGET_PID -- CMD [ARGS...]
 *
 * SIGNAL > 0: as below.  SIGNAL < 0: -SIGNAL is sent the moment a held thread is seen, without
 * stopping CMD first (wherever it is in taking the thread).  SIGNAL 0: nothing is sent; CMD is
 * stopped again and again until it exits, and max_held is the most threads it held at once
 * (counted while it was stopped, so exactly).
 *
 * Runs CMD (a `cudainspect --pid TARGET_PID ...`) and watches /proc/TARGET_PID/task/STAR/status until a
 * thread of the target has CMD as its tracer.  Then it stops CMD (SIGSTOP), counts the target's
 * threads that CMD holds, sends SIGNAL to CMD (and SIGCONT, so that a catchable signal is
 * delivered) and reaps it.  Afterwards it waits up to 2 s for no thread of the target to be
 * stopped or traced, and measures whether the target still runs: the sum of its threads'
 * voluntary context switches over 200 ms.  Prints `key value` lines:
 *   caught    1 when CMD was seen holding a thread, 0 if it finished first
 *   held      threads of the target traced by CMD while it was stopped
 *   max_held  the most threads CMD held at once, counted while CMD was stopped
 *   samples   how often CMD was stopped to count (SIGNAL 0)
 *   status    how CMD ended ("signal N" or "exit N")
 *   stopped   threads of the target in state T or t at the end
 *   traced    threads of the target with a tracer at the end
 *   progress  context switches of the target in 200 ms at the end
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct census {
	int threads, traced_by, traced, stopped;
	long long switches;
};

/* One pass over the target's threads: how many CMD traces, how many anyone traces, how many
 * are stopped, and their voluntary context switches. */
static struct census look(int target, int tracer)
{
	struct census c = { 0 };
	char path[320];
	snprintf(path, sizeof path, "/proc/%d/task", target);
	DIR *d = opendir(path);
	if (!d)
		return c;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%s/status", target, de->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		char line[256];
		c.threads++;
		while (fgets(line, sizeof line, f)) {
			int v;
			long long n;
			char state;
			if (sscanf(line, "State: %c", &state) == 1 && (state == 'T' || state == 't'))
				c.stopped++;
			else if (sscanf(line, "TracerPid: %d", &v) == 1 && v) {
				c.traced++;
				c.traced_by += v == tracer;
			} else if (sscanf(line, "voluntary_ctxt_switches: %lld", &n) == 1)
				c.switches += n;
		}
		fclose(f);
	}
	closedir(d);
	return c;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: killmid SIGNAL TARGET_PID -- CMD [ARGS...]\n");
		return 2;
	}
	/* A negative SIGNAL is sent the moment a held thread is seen, without stopping CMD. */
	int sig = atoi(argv[1]), target = atoi(argv[2]);
	bool now = sig < 0;
	if (now)
		sig = -sig;
	pid_t cmd = fork();
	if (cmd < 0)
		return 1;
	if (cmd == 0) {
		/* CMD starts with the default action for the signals this sends: a shell without
		 * job control starts background commands (`make check &`, a CI step run that way)
		 * with SIGINT and SIGQUIT ignored, and an ignored disposition survives exec, so the
		 * reader would otherwise shrug off the SIGINT the test means to kill it with. */
		const int reset[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
		for (unsigned i = 0; i < sizeof reset / sizeof *reset; i++)
			signal(reset[i], SIG_DFL);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	int caught = 0, held = 0, max_held = 0, status = 0, samples = 0;
	for (;;) {
		struct census c = look(target, cmd);
		if (sig == 0 || c.traced_by) {
			if (now) {
				kill(cmd, sig);
				caught = 1;
				held = c.traced_by;
				break;
			}
			kill(cmd, SIGSTOP);
			/* Wait until it is really stopped, then count what it holds: if it let go
			 * meanwhile, let it run on and catch it at the next thread. */
			if (waitpid(cmd, &status, WUNTRACED) == cmd && !WIFSTOPPED(status))
				goto reaped;
			held = look(target, cmd).traced_by;
			samples++;
			if (held > max_held)
				max_held = held;
			if (sig == 0 || !held) {
				kill(cmd, SIGCONT);
				continue;
			}
			caught = 1;
			kill(cmd, sig);
			kill(cmd, SIGCONT);
			break;
		}
		if (waitpid(cmd, &status, WNOHANG) == cmd)
			goto reaped; /* finished before it was caught */
	}
	waitpid(cmd, &status, 0);
reaped:;
	struct census end = { 0 };
	for (int i = 0; i < 200; i++) {
		end = look(target, cmd);
		if (!end.stopped && !end.traced)
			break;
		nap(10);
	}
	long long before = end.switches;
	nap(200);
	long long after = look(target, cmd).switches;
	printf("caught %d\nheld %d\nmax_held %d\nsamples %d\n", caught, held, max_held, samples);
	if (WIFSIGNALED(status))
		printf("status signal %d\n", WTERMSIG(status));
	else
		printf("status exit %d\n", WEXITSTATUS(status));
	printf("stopped %d\ntraced %d\nprogress %lld\n", end.stopped, end.traced, after - before);
	return 0;
}
