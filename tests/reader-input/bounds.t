#!/usr/bin/env bash
# Bounded work on small hostile inputs.  A .zst that expands without end is stopped at the
# bound (--max-core-size, 64 GiB by default), by the free space of TMPDIR and by ulimit -f,
# each with exit 3 and its own message, never SIGXFSZ; what was written is measured with
# strace, independently of the reader.  Zero blocks are holes and cost no space.  400,000
# PT_LOADs and 10,000 ELF mappings finish within a bound (libdw's dwfl_core_file_report took
# 76 s for the former), and a core cut while it is being read gives a message, not SIGBUS.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
CI=$B/cudainspect
[ -x "$D/mkcore" ] && [ -x "$D/cidecode" ] && [ -x "$CI" ] || skip_all "fixtures not built (make check builds them)"
command -v zstd >/dev/null || skip_all "zstd is not installed"

have_strace=; command -v strace >/dev/null && have_strace=1
# LeakSanitizer cannot run under ptrace (strace, gdb): those runs of an ASan build skip it.
traced_env="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# written ARGS...: run the CLI under strace; sets $out, $rc and $wrote (bytes of pwrite64)
written() {
	if [ -n "$have_strace" ]; then
		out=$(env "$traced_env" strace -f -qq -e trace=pwrite64 -o "$T/strace" "$CI" "$@" 2>&1); rc=$?
		wrote=$(awk -F'= ' '/^[0-9]+ +pwrite64\(/ && $NF > 0 { s += $NF } END { print s + 0 }' "$T/strace")
	else
		out=$("$CI" "$@" 2>&1); rc=$?
		wrote=0
	fi
}
MiB=$((1 << 20))

# A core followed by 64 MiB of one repeated byte: 3.5 KB compressed.
"$D/mkcore" "$T/small.core"
{ cat "$T/small.core"; head -c $((64 * MiB)) /dev/zero | tr '\0' A; } >"$T/big.core"
zstd -q -f "$T/big.core" -o "$T/declared.zst"             # the frame says its size
zstd -q -c <"$T/big.core" >"$T/streamed.zst"               # it does not
ok "a 64 MiB core compresses to $(stat -c %s "$T/streamed.zst") bytes" test "$(stat -c %s "$T/streamed.zst")" -lt 100000

written --max-core-size 16M "$T/declared.zst"
is "$rc" 3 "a frame declaring more than --max-core-size: exit 3"
like "$out" "would decompress to 64\.[0-9] MiB \(its zstd frame header says so\), more than 16\.0 MiB, the bound on decompressed cores; nothing was decompressed.*--max-core-size" \
	"... saying so before decompressing, and how to raise the bound"
is "$wrote" 0 "... and nothing is written to TMPDIR"
written --max-core-size 16M "$T/streamed.zst"
is "$rc" 3 "a stream without a declared size past --max-core-size: exit 3"
like "$out" "decompresses to more than 16\.0 MiB, the bound on decompressed cores .* decompression stopped there" "... saying where it stopped"
if [ -n "$have_strace" ]; then
	ok "... and at most the bound was written to TMPDIR ($wrote bytes)" test "$wrote" -le $((16 * MiB))
else
	skip "strace not installed"
fi
written --max-core-size 1G "$T/streamed.zst"
is "$rc" 0 "under a bound it fits: read (exit 0)"
out=$("$CI" --max-core-size unlimited "$T/declared.zst" 2>&1); rc=$?
is "$rc" 0 "--max-core-size unlimited"
out=$("$CI" --max-core-size 0 "$T/declared.zst" 2>&1); rc=$?
is "$rc" 0 "--max-core-size 0 (no bound)"
for bad in 1X -5 "" G 16MM 99999999999999999999T; do
	out=$("$CI" --max-core-size "$bad" "$T/declared.zst" 2>&1); rc=$?
	is "$rc" 2 "--max-core-size '$bad': usage error"
done
help=$("$CI" --help | tr '\n' ' ')
like "$help" "--max-core-size SIZE .* default 64G" "--help documents the flag and its default"
# The same bound through the library (cidecode has no flag: the 64 GiB default).
dec "$T/streamed.zst"
is "$rc" 0 "the library's default bound lets a 64 MiB core through"

# ulimit -f: EFBIG and a message, not death by SIGXFSZ (153 = 128 + 25), in the CLI (which
# ignores SIGXFSZ) and in the library alone (which holds it off while it writes).
out=$(ulimit -f 8192; "$CI" "$T/streamed.zst" 2>&1); rc=$?
is "$rc" 3 "the CLI under ulimit -f 8192: exit 3, not SIGXFSZ"
like "$out" "larger than the file size limit of 8\.0 MiB \(ulimit -f\)" "... naming the limit"
out=$(ulimit -f 8192; "$CI" "$T/declared.zst" 2>&1); rc=$?
is "$rc" 3 "... and for a frame that declares its size"
out=$(ulimit -f 8192; "$D/cidecode" "$T/streamed.zst" 2>&1); rc=$?
ok "the library under ulimit -f, without the CLI: not killed by SIGXFSZ (exit $rc)" test "$rc" -ne 153 -a "$rc" -lt 128
like "$out" "file size limit" "... and the same message"
out=$(ulimit -f 8192; "$CI" "$T/small.core" 2>&1); rc=$?
is "$rc" 0 "an uncompressed core needs no temporary file: read under ulimit -f"

# Free space: a 40 MiB file system for TMPDIR (root only: mount).
mkdir -p "$T/small-fs"
if mount -t tmpfs -o size=40m tmpfs "$T/small-fs" 2>/dev/null; then
	trap 'umount "$T/small-fs" 2>/dev/null; rm -rf "$T"' EXIT
	TMPDIR=$T/small-fs written "$T/streamed.zst"
	is "$rc" 3 "TMPDIR on a 40 MiB file system, a 64 MiB core: exit 3"
	like "$out" "would fill the file system of .*small-fs.* set TMPDIR to a file system with more space" \
		"... saying it would fill it, and what to do"
	if [ -n "$have_strace" ]; then
		ok "... having written at most 95% of it ($wrote bytes)" test "$wrote" -le $((40 * MiB * 95 / 100))
	else
		skip "strace not installed"
	fi
	# 256 MiB of zeros are holes: they take no space.
	{ cat "$T/small.core"; head -c $((256 * MiB)) /dev/zero; } | zstd -q -c >"$T/zeros.zst"
	out=$(TMPDIR=$T/small-fs "$CI" "$T/zeros.zst" 2>&1); rc=$?
	is "$rc" 0 "a core with 256 MiB of zeros decompresses into 40 MiB: zeros are holes"
	umount "$T/small-fs"
else
	for i in 1 2 3 4; do skip "cannot mount a small tmpfs (not root?)"; done
fi

# Many segments and many ELF mappings: bounded work (timeout's 124 would mean far too slow).
"$D/mkcore" --filler=400000 "$T/segs.core"
for view in summary threads; do
	out=$(timeout 30 "$CI" "$T/segs.core" "$view" 2>&1); rc=$?
	is "$rc" 0 "400,000 PT_LOADs, $view: done within 30 s (libdw's own core report took 76 s)"
done
"$D/mkcore" --maps=10000 "$T/maps.core"
out=$(timeout 30 "$CI" --width 300 "$T/maps.core" all 2>&1); rc=$?
is "$rc" 0 "10,000 file mappings with ELF headers: done within 30 s"
# The 10,000 mappings and the executable are 10,001 modules.
like "$out" "maps more than 8192 ELF files; the other $((10000 + 1 - 8192)) are left out" \
	"... the ones past the cap named in a warning"

# A core cut while it is read: gdb stops the reader after the core is opened, cuts the file,
# and lets it go on (SIGBUS passed to it, as it would arrive without gdb).
if command -v gdb >/dev/null && [ "$(cat /proc/sys/kernel/core_pattern)" = core ] && [ -x "$D/crasher" ]; then
	( ( cd "$T" && ulimit -c unlimited && exec "$D/crasher" --crash=segv ) >/dev/null 2>&1 || true ) 2>/dev/null
	core=$(ls "$T"/core* 2>/dev/null | head -1)
fi
if [ -n "${core:-}" ]; then
	for at in ci_locate ci_decode_with; do
		cp "$core" "$T/cut.core"
		out=$(env "$traced_env" timeout 120 gdb -nx -batch -ex 'handle SIGBUS nostop noprint pass' -ex "break $at" \
			-ex run -ex "shell truncate -s 16384 $T/cut.core" -ex continue \
			--args "$CI" "$T/cut.core" all 2>&1)
		code=$(printf '%s\n' "$out" | sed -n 's/.*exited with code \([0-9]*\).*/\1/p; s/.*exited normally.*/0/p' | tail -1)
		unlike "$out" "terminated with signal SIGBUS|received signal SIGBUS" "cut before $at: no SIGBUS"
		like "$code" "^0?[34]$" "cut before $at: exit 3 or 4 (got ${code:-none})"
		like "$out" "shrank( from [^ ]+ [KMG]iB to [^ ]+ [KMG]iB)? while it was read" \
			"cut before $at: the message says the file shrank"
	done
else
	for i in 1 2 3 4 5 6; do skip "no gdb or no kernel core"; done
fi
done_testing
