#!/usr/bin/env bash
# `make install`: into a DESTDIR (paths and contents), into a private prefix where GDB really
# auto-loads the command file for a process that maps the installed recorder, and (as root
# only, cleaned up) GDB finding the plugin by bare name in its JIT reader directory.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$CLI" "$PROBE" "$B/sim/libcuda.so.1"
mk() { make -s -C "$TOP" BUILD="$B" "$@" install-cli install-recorder install-gdb >"$T/make.out" 2>&1; }

# --- DESTDIR ----------------------------------------------------------------------------------
D=$T/dest
mk DESTDIR="$D" PREFIX=/opt/ci
ok "make install DESTDIR=... PREFIX=/opt/ci succeeds" test $? -eq 0
for f in /opt/ci/bin/cudainspect /opt/ci/lib/libcudainspect-rec.so /usr/lib/gdb/cudainspect.so \
	/usr/share/gdb/auto-load/opt/ci/lib/libcudainspect-rec.so-gdb.gdb \
	/opt/ci/share/cudainspect/cudainspect.gdb /opt/ci/libexec/cudainspect/cudainspect-gdb-run; do
	ok "installed $f" test -s "$D$f"
done
ok "CLI and helper are executable" test -x "$D/opt/ci/bin/cudainspect" -a -x "$D/opt/ci/libexec/cudainspect/cudainspect-gdb-run"
like "$(cat "$D/usr/share/gdb/auto-load/opt/ci/lib/libcudainspect-rec.so-gdb.gdb")" \
	"pipe _cudainspect_input \| '/opt/ci/libexec/cudainspect/cudainspect-gdb-run' kernels" \
	"command file calls the installed helper (no DESTDIR in it)"
ok "helper calls the installed CLI" grep -aq '/opt/ci/bin/cudainspect' "$D/opt/ci/libexec/cudainspect/cudainspect-gdb-run"
unlike "$(grep -r "$D" "$D" 2>/dev/null)" . "no installed text file mentions DESTDIR"
cmp -s "$D/usr/share/gdb/auto-load/opt/ci/lib/libcudainspect-rec.so-gdb.gdb" \
	"$D/opt/ci/share/cudainspect/cudainspect.gdb"
ok "auto-load copy and sourceable copy are the same file" test $? -eq 0

# --- a private prefix GDB really uses ---------------------------------------------------------
P=$T/prefix
mk PREFIX="$P" JIT_READER_DIR="$P/jit" GDB_AUTOLOAD_DIR="$P/autoload"
ok "make install PREFIX=\$T/prefix succeeds" test $? -eq 0
rm -f "$T"/core*
( cd "$T" && ulimit -c unlimited &&
  LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$P/lib/libcudainspect-rec.so" CUDAINSPECT_QUIET=1 "$PROBE"; true ) >/dev/null 2>&1
core=$(ls -t "$T"/core* 2>/dev/null | head -n 1)
ok "installed recorder: the probe dumped core" test -n "$core"
out=$(timeout 120 gdb -nx -batch -iex 'set debuginfod enabled off' \
	-iex "set auto-load scripts-directory $P/autoload" -iex "set auto-load safe-path $P/autoload" \
	-ex "jit-reader-load $P/jit/cudainspect.so" "$PROBE" "$core" \
	-ex 'info auto-load gdb-scripts' -ex 'echo @@begin@@\n' -ex 'cuda summary' 2>&1)
like "$out" "Yes +$P/autoload$P/lib/libcudainspect-rec.so-gdb.gdb" "GDB auto-loaded the command file"
got=$(printf '%s\n' "$out" | sed -n '/^@@begin@@$/,$p' | sed 1d)
is "$got" "$("$P/bin/cudainspect" "$core" 2>&1)" "auto-loaded cuda summary runs the installed CLI"

# --- GDB's own JIT reader directory (root only; never overwrites an existing file) ------------
jitdir=$(gdb -nx -batch -ex 'show configuration' 2>/dev/null | sed -n 's/.*--with-jit-reader-dir=\([^ ]*\).*/\1/p')
if [ "$(id -u)" != 0 ]; then
	skip "bare-name jit-reader-load: needs root to write $jitdir"
else
	# Suites run at once on one machine (as root) share that directory: they take turns (one
	# lock for the look, the copy, GDB and the removal), else one removed the file another's
	# GDB was about to load.
	exec 9>>/tmp/cudainspect-test-jit-reader-dir.lock
	flock -w 300 9 || diag "no lock on $jitdir after 300 s: going on without it"
	if [ -e "$jitdir/cudainspect.so" ]; then
		skip "bare-name jit-reader-load: $jitdir/cudainspect.so already exists (not touching it)"
	else
		made=; [ -d "$jitdir" ] || { mkdir -p "$jitdir" && made=1; }
		make -s -C "$TOP" BUILD="$B" DESTDIR="$T/real" install-gdb >/dev/null 2>&1
		cp "$T/real/usr/lib/gdb/cudainspect.so" "$jitdir/cudainspect.so"
		out=$(gdb_batch "$PROBE" "$core" -ex 'jit-reader-load cudainspect.so' 2>&1)
		rm -f "$jitdir/cudainspect.so"; [ -n "$made" ] && rmdir "$jitdir"
		like "$out" 'cudainspect [0-9.]+: JIT reader loaded' "jit-reader-load cudainspect.so finds $jitdir/cudainspect.so"
	fi
	exec 9>&-
fi
done_testing
