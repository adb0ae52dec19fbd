#!/usr/bin/env bash
# Device memory shared between processes (tests/sim/ipc.c): an exporter's CUDA IPC handle opens
# in another process (twice: the same address, a reference each), as the exported size on its
# device, usable, not freeable with cuMemFree, closed once per open; a VMM allocation exported as
# a file descriptor (reached through /proc/PID/fd) and as a fabric handle imports, maps and
# unmaps; once the exporter has exited its IPC handle no longer opens; and one process may not
# open its own handle, nor export a handle type the allocation was not created for.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$B/tests/sim/ipc" ] || skip_all "no $B/tests/sim/ipc (make check builds it)"
export LD_LIBRARY_PATH=$B/sim

coproc EXP { "$B/tests/sim/ipc" export; }
exp_pid=$EXP_PID
read -r _ ipc <&"${EXP[0]}"
read -r _ pid fd <&"${EXP[0]}"
read -r _ fabric <&"${EXP[0]}"
ok "the exporter gave its handles" test -n "$ipc" -a -n "$fd" -a -n "$fabric"
sim_run ipc import "$ipc" "$pid" "$fd" "$fabric"
ok "import: all pass" tap_clean "$T/ipc.tap"
exec {EXP[1]}>&-
wait "$exp_pid" 2>/dev/null
sim_run ipc gone "$ipc"
ok "the exporter gone: all pass" tap_clean "$T/ipc.tap"
sim_run ipc self
ok "self: all pass" tap_clean "$T/ipc.tap"
done_testing
