#!/usr/bin/env bash
# `cudainspect record` and `make demo`: run a program under the recorder, pass its exit status
# through, and after a crash say where the core and the snapshot went and print the summary.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
for f in cudainspect libcudainspect-rec.so sim/libcuda.so.1 miniengine; do
	[ -e "$B/$f" ] || skip_all "$B/$f is not built"
done
[ "${CI_SANITIZE:-}" = address ] &&
	skip_all "record preloads the recorder into the engine; an ASan-built recorder cannot be preloaded into an uninstrumented program"
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"
unset CUDASIM_FAULT CUDASIM_HANG CUDAINSPECT_SNAPSHOT_DIR CUDAINSPECT_DIR
export LD_LIBRARY_PATH=$B/sim

cd "$T" || exit 1
"$CI" record -- true; is "$?" 0 "record passes exit status 0 through"
"$CI" record -q -- sh -c 'exit 7'; is "$?" 7 "record passes exit status 7 through"
"$CI" record -- "$T/no-such-program" 2>"$T/err"; is "$?" 127 "record: a program that cannot run gives 127"
like "$(cat "$T/err")" "cannot run .*no-such-program" "... with a message"
"$CI" record --preload "$T/nope.so" -- true 2>"$T/err"; is "$?" 2 "record: a missing --preload library is a usage error"
"$CI" record --bogus -- true 2>/dev/null; is "$?" 2 "record: an unknown option is a usage error"
out=$("$CI" record --help); is "$?" 0 "record --help"
like "$out" "cudainspect record \[OPTIONS\] -- CMD" "record --help shows the synopsis"
is "$(printf '%s\n' "$out" | awk 'length > 80' | wc -l)" 0 "record --help fits 80 columns"

# A real crash: the oob engine.
mkdir -p run && cd run || exit 1
( "$CI" record -d "$T/snaps" -- "$B/miniengine" --fault oob --quiet >"$T/out" 2>"$T/err" ); rc=$?
is "$rc" 134 "record: the engine's SIGABRT gives 128+6"
err=$(cat "$T/err") out=$(cat "$T/out")
like "$err" "killed by signal 6 \(Aborted\) and dumped core" "record says the engine died and dumped core"
like "$err" "core dump: $T/run/core" "record says where the core is (absolute path)"
like "$err" "record snapshot: $T/snaps/cudainspect-.*-signal\.cisnap" "record says where the snapshot is"
ok "the snapshot exists" ls "$T"/snaps/cudainspect-*-signal.cisnap
like "$out" "Faulting kernel: paged_attention" "record prints the summary of the core"
like "$out" "Address 0x[0-9a-f]+ is 256 bytes after the nearest allocation" "... with the attribution"
cd "$T" || exit 1

# --json after a crash, and the snapshot read on its own.
( cd "$T/run" && rm -f core* && "$CI" record -j -- "$B/miniengine" --fault badlaunch --quiet >"$T/json" 2>/dev/null )
is "$(jq -r .diagnosis.verdict "$T/json")" api_error "record -j prints the JSON report"
snap=$(ls "$T"/snaps/cudainspect-*-signal.cisnap | head -1)
"$CI" "$snap" >"$T/snap.txt" 2>&1; is "$?" 0 "the snapshot file reads on its own"
like "$(cat "$T/snap.txt")" "Faulting kernel: paged_attention" "... with the same diagnosis"
like "$("$CI" "$snap" threads)" "a record file holds no thread registers" "... and says it has no threads"

# make demo
out=$(CI_BUILD=$B "$TOP/scripts/demo.sh" --clean 2>&1); rc=$?
is "$rc" 0 "scripts/demo.sh (make demo) succeeds"
like "$out" "Faulting kernel: paged_attention" "the demo shows the report"
like "$out" "What to do next" "... down to what to do next"
done_testing
