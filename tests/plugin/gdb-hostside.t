#!/usr/bin/env bash
# The plugin's banner on a core without a flight record also says what the core's host side
# shows (corefile/hostside.c, as `cudainspect CORE` prints it in full): the signal, the call a
# thread was in inside the driver, the abort message or C++ exception, and the command for next
# time.  Real kernel cores of tests/hostside/assertprobe and throwprobe on the simulated driver.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
AP=$B/tests/hostside/assertprobe TP=$B/tests/hostside/throwprobe
need_gdb_parts "$PLUGIN" "$CLI" "$AP" "$TP" "$B/sim/libcuda.so.1"
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"

crash() { # DIR CMD...: a core of CMD in DIR
	mkdir -p "$1"
	{ ( cd "$1" && ulimit -c unlimited && LD_LIBRARY_PATH="$B/sim" exec "${@:2}" ) >"$1/out" 2>"$1/err"; } 2>/dev/null
	true
}
crash "$T/a" "$AP"
[ -e "$T/a/core" ] || skip_all "assertprobe left no core"
out=$(gdb_batch "$AP" "$T/a/core" -ex "jit-reader-load $PLUGIN" -ex bt)
line=$(printf '%s\n' "$out" | grep '^cudainspect: the host side shows')
assertion=$(grep Assertion "$T/a/err")
like "$line" "^cudainspect: the host side shows SIGABRT \(Aborted\); thread [0-9]+ was in [a-z_]+ \([a-z_]+\.c:[0-9]+\) in libcuda\.so\.1" \
	"assert core: the banner names the signal and the thread in the driver"
ok "... glibc's abort message, the assertion the program printed" test "${line#*abort message: $assertion}" != "$line"
like "$line" "next time: cudainspect record -- $AP$" "... and the command for next time"
is "$(printf '%s\n' "$out" | grep -c '^cudainspect: the host side shows')" 1 "... once"
like "$out" "no flight record in the core file $T/a/core" "the 'no flight record' line is still there"

crash "$T/t" "$TP" planted
out=$(gdb_batch "$TP" "$T/t/core" -ex "jit-reader-load $PLUGIN" -ex bt)
type=$(sed -n "s/^terminate called after throwing an instance of '\(.*\)'$/\1/p" "$T/t/err")
like "$(printf '%s\n' "$out" | grep '^cudainspect: the host side shows')" "; C\+\+ exception $type; " \
	"throw core: the banner names the exception's type ($type)"
done_testing
