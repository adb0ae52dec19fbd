#!/usr/bin/env bash
# Where the recorder's messages go (recorder/message.c, docs/ENVIRONMENT.md).
#  - Only to the stderr the process had when the recorder was loaded: a program that closes
#    descriptor 2 and opens a data file in its place finds none of our bytes in it, whether the
#    message comes at exit or from the fatal-signal handler.
#  - Or to the file CUDAINSPECT_LOG names, created 0600, never through a link, never blocking.
#  - Nothing before the first CUDA call: an unknown CUDAINSPECT_* variable or a bad value is
#    said then, and a shell or interpreter that never calls CUDA prints nothing at all (its
#    output and exit status are those without the recorder).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/crashprobe
CP=$B/tests/recorder/crashprobe
printf 'crashprobe: data\n' >"$T/expected-data"

# Control: the message is there when stderr is left alone.
run_in "$T/plain" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$CP" exit
like "$(cat "$T/plain/err")" '^cudainspect: flight record written to ' "control: the exit snapshot is announced on stderr"

# Descriptor 2 reused for data: at exit, and from the signal handler.
for mode in exit segv; do
	run_in "$T/reuse-$mode" env CUDAINSPECT_SNAPSHOT=exit,signal LD_PRELOAD="$REC" "$CP" -e "$T/reuse-$mode/data" "$mode"
	ok "fd 2 reused ($mode): the data file holds exactly what the program wrote" cmp "$T/expected-data" "$T/reuse-$mode/data"
	ok "fd 2 reused ($mode): the snapshot was still written" test -n "$(ls "$T/reuse-$mode"/*.cisnap 2>/dev/null)"
	is "$(grep -c cudainspect "$T/reuse-$mode/err")" 0 "fd 2 reused ($mode): nothing of ours on the original stderr either (the program closed it)"
done

# CUDAINSPECT_LOG: the messages go there, in a private file.
run_in "$T/log" env CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_LOG="$T/log/messages" LD_PRELOAD="$REC" "$CP" -e "$T/log/data" exit
like "$(cat "$T/log/messages")" '^cudainspect: flight record written to ' "CUDAINSPECT_LOG: the message is in the log"
is "$(stat -c '%a %u' "$T/log/messages")" "600 $(id -u)" "CUDAINSPECT_LOG: the log is created mode 0600, ours"
ok "CUDAINSPECT_LOG: the data file is untouched" cmp "$T/expected-data" "$T/log/data"
run_in "$T/log" env CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_LOG="$T/log/messages" LD_PRELOAD="$REC" "$CP" exit
is "$(grep -c '^cudainspect: flight record written to ' "$T/log/messages")" 2 "CUDAINSPECT_LOG: a second process appends"

# A log path that is a planted link, or a FIFO: never followed, never blocks; the message then
# goes to the original stderr.
mkdir -p "$T/victim"
printf 'private\n' >"$T/victim/file"
sum=$(cksum <"$T/victim/file")
mkdir -p "$T/loglink" && ln -s "$T/victim/file" "$T/loglink/messages"
run_in "$T/loglink" env CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_LOG="$T/loglink/messages" LD_PRELOAD="$REC" "$CP" exit
is "$(cksum <"$T/victim/file")" "$sum" "CUDAINSPECT_LOG a symlink: its target is unchanged"
like "$(cat "$T/loglink/err")" '^cudainspect: flight record written to ' "... and the message went to stderr instead"
mkdir -p "$T/logfifo" && mkfifo "$T/logfifo/messages"
start=$SECONDS
run_in "$T/logfifo" env CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_LOG="$T/logfifo/messages" LD_PRELOAD="$REC" timeout 20 "$CP" exit
is "$rc" 0 "CUDAINSPECT_LOG a FIFO: the program does not hang ($((SECONDS - start)) s)"
ok "... the FIFO is still a FIFO" test -p "$T/logfifo/messages"

# Nothing until the first CUDA call.
for cmd in "sh -c 'echo hello; exit 3'" "python3 -c 'import sys; print(\"hello\"); sys.exit(3)'"; do
	prog=${cmd%% *}
	command -v "$prog" >/dev/null || { skip "no $prog"; skip "no $prog"; continue; }
	want_out=$(eval "$cmd" 2>&1)
	want_rc=$?
	got_err=$(eval "CUDAINSPECT_NO_SUCH_VARIABLE=1 CUDAINSPECT_SIZE=lots LD_PRELOAD='$REC' $cmd" 2>&1 >/dev/null)
	got_out=$(eval "CUDAINSPECT_NO_SUCH_VARIABLE=1 CUDAINSPECT_SIZE=lots LD_PRELOAD='$REC' $cmd" 2>/dev/null)
	got_rc=$?
	is "$got_err" "" "$prog without CUDA, an unknown variable and a bad value: nothing on stderr"
	is "$got_rc $got_out" "$want_rc $want_out" "$prog without CUDA: same output and exit status as without the recorder"
done
run_in "$T/late" env CUDAINSPECT_NO_SUCH_VARIABLE=1 LD_PRELOAD="$REC" "$CP" -s exit
is "$(head -2 "$T/late/err")" "crashprobe: before CUDA
cudainspect: ignoring unknown variable CUDAINSPECT_NO_SUCH_VARIABLE (see docs/ENVIRONMENT.md)" \
	"an unknown variable is named at the first CUDA call, after what the program wrote before it"
is "$(grep -c NO_SUCH_VARIABLE "$T/late/err")" 1 "... once"
done_testing
