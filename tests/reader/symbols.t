#!/usr/bin/env bash
# Symbols when the files are not where the crashed process had them: --exe for a moved
# executable (core), --sysroot for a copy of the machine's files (core and record snapshot),
# and build-id checks that refuse a different file at the same path.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
for f in cudainspect tests/reader-input/crasher libcudainspect-rec.so sim/libcuda.so.1 miniengine; do
	[ -e "$B/$f" ] || skip_all "$B/$f is not built"
done
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"
unset DEBUGINFOD_URLS CUDASIM_FAULT CUDASIM_HANG

# A core of a copy of the crasher, whose file then disappears.
mkdir -p "$T/bin" "$T/run"
cp "$B/tests/reader-input/crasher" "$T/bin/crasher"
( ( cd "$T/run" && ulimit -c unlimited && exec "$T/bin/crasher" --crash=abort ) >/dev/null 2>&1 || true ) 2>/dev/null
core=$(ls "$T"/run/core* 2>/dev/null | head -1)
[ -n "$core" ] || skip_all "no core dump appeared"
like "$("$CI" "$core" threads)" "main \(crasher\.c:[0-9]+\)" "with the executable in place: main (crasher.c:N)"
mkdir -p "$T/moved" && mv "$T/bin/crasher" "$T/moved/crasher"
out=$("$CI" "$core" threads 2>&1)
unlike "$out" "main \(crasher\.c" "executable gone: no source lines for it"
like "$("$CI" --exe "$T/moved/crasher" "$core" threads)" "main \(crasher\.c:[0-9]+\)" \
	"--exe PATH: symbols and lines back"
# The missing executable is what libdw would ask debuginfod for: only with --debuginfod.
# Without it the debuginfod client is not even loaded (libdebuginfod, libcurl and GnuTLS cost
# about 5 ms of every report that meets a module whose file is gone or was rebuilt).
if [ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || ldconfig -p 2>/dev/null | grep -q libdebuginfod; then
	dbg() { DEBUGINFOD_CACHE_PATH=$T/dcache DEBUGINFOD_URLS=http://127.0.0.1:1/ DEBUGINFOD_VERBOSE=1 \
		LD_DEBUG=libs "$CI" "$@" "$core" threads 2>&1 >/dev/null; }
	out=$(dbg)
	unlike "$out" 'server urls' "DEBUGINFOD_URLS is ignored without --debuginfod"
	unlike "$out" 'init: .*libdebuginfod' "... and libdebuginfod is not loaded at all"
	out=$(dbg --debuginfod)
	like "$out" 'server urls "http://127.0.0.1:1/"' "--debuginfod asks the servers in DEBUGINFOD_URLS"
	like "$out" 'init: .*libdebuginfod' "... through libdebuginfod"
else
	skip "libdebuginfod is not installed"; skip "-"; skip "-"; skip "-"
fi
mkdir -p "$T/root$T/bin" && cp "$T/moved/crasher" "$T/root$T/bin/crasher"
like "$("$CI" --sysroot "$T/root" "$core" threads)" "main \(crasher\.c:[0-9]+\)" \
	"--sysroot DIR: the executable found under DIR"
like "$("$CI" --sysroot "$T/root/" "$core" threads)" "main \(crasher\.c:[0-9]+\)" \
	"--sysroot DIR/ (trailing slash) works too"
# Another program at the same path has another build-id: not used.
cp "$B/miniengine" "$T/root$T/bin/crasher"
unlike "$("$CI" --sysroot "$T/root" "$core" threads 2>&1)" "main \(crasher\.c" \
	"--sysroot: a file with another build-id is not used"

# A record snapshot names its modules itself (path, load bias, build-id).  The same run leaves
# a core, whose backtraces are checked against binutils' addr2line below.
if [ "${CI_SANITIZE:-}" = address ]; then
	skip "the recorder cannot be preloaded into the uninstrumented engine under ASan"
	done_testing; exit
fi
mkdir -p "$T/ebin" "$T/erun"
cp "$B/miniengine" "$T/ebin/miniengine"
( ( cd "$T/erun" && ulimit -c unlimited && LD_LIBRARY_PATH=$B/sim LD_PRELOAD=$B/libcudainspect-rec.so \
	CUDAINSPECT_QUIET=1 exec "$T/ebin/miniengine" --fault oob --threads 1 --streams 1 --quiet ) \
	>/dev/null 2>&1 || true ) 2>/dev/null
ecore=$(ls "$T"/erun/core* 2>/dev/null | head -1)
# Source lines of the engine's own frames are addr2line's (at the return address - 1; for an
# inline expansion, of its innermost frame), and a frame addr2line cannot place (_start, outside
# every compile unit) shows none.
if [ -n "$ecore" ] && command -v addr2line >/dev/null; then
	checked=0 wrong=
	while read -r fn loc off; do
		want=$(addr2line -e "$T/ebin/miniengine" "$(printf '0x%x' $((off - 1)))" | sed 's/ (discriminator.*//')
		want=${want##*/}
		[ "$loc" = - ] && loc='??:?'
		[ "$loc" = "$want" ] || wrong="$wrong $fn:$loc/$want"
		checked=$((checked + 1))
	done < <("$CI" --width 300 "$ecore" threads |
		awk '/\[inlined\]/ { skip = 1; next } { if (!skip) print; skip = 0 }' |
		sed -nE 's/^ +#[1-9][0-9]* +([^ ]+) (\(([^)]+)\) )?miniengine\+(0x[0-9a-f]+)$/\1 \3 \4/p' |
		awk '{ if (NF == 2) print $1, "-", $2; else print }')
	ok "threads: $checked engine frames, source lines as addr2line gives them${wrong:+ (differ:$wrong)}" \
		test "$checked" -ge 3 -a -z "$wrong"
	like "$("$CI" "$ecore" threads)" "_start miniengine\+0x" "threads: _start has no source line (no compile unit covers it)"
else
	skip "no engine core or no addr2line"; skip "-"
fi
snap=$(ls "$T"/erun/cudainspect-*-signal.cisnap 2>/dev/null | head -1)
[ -n "$snap" ] || { skip "no snapshot"; done_testing; exit; }
like "$("$CI" "$snap")" "launched at forward \(miniengine\.c:[0-9]+\)" \
	"snapshot: the launch site symbolized from the record's module table"
mkdir -p "$T/sroot$T" && mv "$T/ebin" "$T/sroot$T/ebin"
out=$("$CI" "$snap" 2>&1)
unlike "$out" "forward \(miniengine\.c" "snapshot, executable gone: no symbols"
like "$out" "is not on this machine" "... and a warning says so"
like "$out" "use --sysroot DIR" "... and how to get them"
like "$("$CI" --sysroot "$T/sroot" "$snap")" "launched at forward \(miniengine\.c:[0-9]+\)" \
	"snapshot with --sysroot: symbols back"
cp "$B/tests/reader-input/crasher" "$T/sroot$T/ebin/miniengine"
out=$("$CI" --width 1000 --sysroot "$T/sroot" "$snap" all 2>&1)
unlike "$out" "forward \(miniengine\.c" "snapshot with a different file under --sysroot: refused"
like "$out" "has build-id [0-9a-f]+ but the record says [0-9a-f]+" "... and the warning names both build-ids"
done_testing
