#!/usr/bin/env bash
# The input stages on records written by the real recorder (build/libcudainspect-rec.so) into
# the miniengine test engine on the simulated driver: a kernel core and the recorder's own
# snapshot files after a planted illegal address, a zstd copy, and a hung engine read live and
# through gdb's gcore.  The checks are the ones a recorder-written record must always pass:
# found by its memfd name, written by the crashed pid, nothing invalid, the sticky error there.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
# Under check-asan the recorder and the engine are ASan builds: the runtime must be preloaded
# first, and ASan turns core dumps off unless asked.
PRELOAD=$B/libcudainspect-rec.so
if [ "${CI_SANITIZE:-}" = address ]; then
	PRELOAD="$(${CC:-gcc} -print-file-name=libasan.so) $PRELOAD"
	export ASAN_OPTIONS=disable_coredump=0:detect_leaks=0
fi
for f in libcudainspect-rec.so sim/libcuda.so.1 miniengine tests/reader-input/cidecode; do
	[ -e "$B/$f" ] || skip_all "$B/$f not built"
done
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"

engine() { # dir args…
	local dir=$1; shift
	mkdir -p "$dir"
	( ( cd "$dir" && ulimit -c unlimited && LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" \
		exec "$B/miniengine" --quiet "$@" ) >"$dir/out" 2>&1 || true ) 2>/dev/null
}

engine "$T/oob" --fault oob
core=$(ls "$T"/oob/core* 2>/dev/null | head -1)
ok "the engine dumped core" test -n "$core"
dec --entries "$core"
is "$rc $(field source.kind) $(field location.method)" "0 core nt_file" "recorder's record found by its memfd name"
is "$(field header.pid)" "$(field source.pid)" "written by the crashed process"
is "$(field header.record_base)" "$(field location.address)" "record_base is where it was found"
is "$(invalid_total)" 0 "nothing in a recorder-written record fails validation"
ok "launches decoded ($(sec launches accepted))" test "$(sec launches accepted)" -gt 10
like "$out" "function [0-9]+ name=paged_attention" "kernel names resolve through the string table"
like "$out" "error seq=[0-9]+ result=CUDA_ERROR_ILLEGAL_ADDRESS .* sticky=1" "the sticky illegal address is in the error ring"
like "$out" "thread [0-9]+ crashed=1 .*name=engine-" "the crashed thread is named from the record"
launches=$(sec launches accepted) rec_addr=$(field location.address) rec_size=$(field location.size)

snap=$(ls "$T"/oob/*-signal.cisnap 2>/dev/null | head -1)
if [ -n "$snap" ]; then
	dec "$snap"
	is "$rc $(field source.kind) $(field location.method)" "0 record file" "signal snapshot decodes"
	is "$(invalid_total)" 0 "nothing in the snapshot fails validation"
	# Taken in the signal handler, before the core: other threads may still have launched since.
	ok "snapshot holds launches, no more than the core ($(sec launches accepted) <= $launches)" \
	   test "$(sec launches accepted)" -gt 0 -a "$(sec launches accepted)" -le "$launches"
else
	for i in 1 2 3; do skip "no signal snapshot written"; done
fi

if command -v zstd >/dev/null; then
	zstd -q -o "$T/core.zst" "$core"
	dec "$T/core.zst"
	is "$rc $(field source.compressed) $(sec launches accepted)" "0 1 $launches" "zstd copy decodes the same"
	# Cut copies degrade as plain cores cut at the same byte do (issue §1): what zstd itself gets
	# out of the cut file, decoded as a plain core, is the expectation.  Where the notes and the
	# record lie in the core comes from eu-readelf.
	addr=$(printf '0x%016x' "$rec_addr")
	rec_off=$(eu-readelf -l "$core" | awk -v a="$addr" '$1 == "LOAD" && $3 == a { print $2; exit }')
	read -r note_off note_size < <(eu-readelf -l "$core" | awk '$1 == "NOTE" { print $2, $5; exit }')
	ok "eu-readelf shows the notes and the record's PT_LOAD" test -n "$rec_off" -a -n "$note_size"
	rec_off=$(( rec_off )) note_off=$(( note_off )) note_size=$(( note_size ))
	zsize=$(stat -c %s "$T/core.zst")

	head -c 64 "$T/core.zst" >"$T/c64.zst"
	dec "$T/c64.zst"
	is "$rc" 3 "zstd cut inside its first block (nothing decodes): exit 3"
	like "$out" "ends before its first block is complete; the compressed file is truncated" "  and says so"

	# Inside the notes: zstd's first block holds them all, so the core goes in two frames split
	# in the middle of the notes, and the cut falls in the second.
	mid=$(( note_off + note_size / 2 ))
	head -c "$mid" "$core" | zstd -q -c >"$T/two.zst"
	asize=$(stat -c %s "$T/two.zst")
	tail -c +$(( mid + 1 )) "$core" | zstd -q -c >>"$T/two.zst"
	dec "$T/two.zst"
	is "$rc $(sec launches accepted)" "0 $launches" "a core in two zstd frames decodes whole"
	head -c $(( asize + 16 )) "$T/two.zst" >"$T/cnotes.zst"
	zst_vs_plain "$T/cnotes.zst" "$core"
	is "$(stat -c %s "$T/cnotes.raw")" "$mid" "cut inside the notes: zstd gets the first frame"
	is "$rc $(field source.truncated)" "4 1" "cut inside the notes: degrades to no record (the record is past the cut)"
	like "$out" "warning.source .*zstd stream ends in the middle of a frame .*truncated" "  with the zstd warning"
	is "$zcut" "$plain" "  and reads as the same bytes cut as a plain core do"

	n=$(zst_cut_after "$T/core.zst" $(( rec_off + rec_size / 2 )))
	head -c "$n" "$T/core.zst" >"$T/crec.zst"
	zst_vs_plain "$T/crec.zst" "$core"
	have=$(stat -c %s "$T/crec.raw")
	ok "cut inside the record ($n of $zsize compressed bytes, $have decompressed)" \
	   test "$have" -gt "$rec_off" -a "$have" -lt $(( rec_off + rec_size ))
	is "$rc $(field source.truncated) $(field location.size)" "0 1 $(( have - rec_off ))" \
	   "  decodes the part of the record that is there, truncated"
	like "$out" "warning.model only .* of the record's .* are in the input \(the core is truncated\)" "  and says what is missing"
	is "$zcut" "$plain" "  as the same bytes cut as a plain core do"

	n=$(zst_cut_after "$T/core.zst" $(( rec_off + rec_size )))
	if [ "$n" -lt "$zsize" ]; then
		head -c "$n" "$T/core.zst" >"$T/cafter.zst"
		zst_vs_plain "$T/cafter.zst" "$core"
		is "$rc $(field source.truncated) $(field location.size) $(sec launches accepted)" \
		   "0 1 $rec_size $launches" "cut after the record: the whole record, truncated core"
		is "$zcut" "$plain" "  as the same bytes cut as a plain core do"
	else
		skip "the record ends the core"; skip "the record ends the core"
	fi
else
	for i in $(seq 16); do skip "zstd not installed"; done
fi

# A hung engine: read live, then through a gcore.
mkdir -p "$T/hang"
( cd "$T/hang" && LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" \
	exec "$B/miniengine" --quiet --hang ) >"$T/hang/out" 2>&1 &
hang=$!
trap 'kill $hang 2>/dev/null; rm -rf "$T"' EXIT
live_launches() { dec --pid "$hang"; [ "$rc" = 0 ] && [ "$(sec launches accepted)" -gt 0 ]; }
wait_for 60 live_launches
# The loop may have caught the recorder setting up (its header gets the magic last), when the
# record is found only by the page scan that follows; read again now that it is running.
dec --pid "$hang"
is "$rc $(field source.kind) $(field location.method)" "0 pid nt_file" "hung engine read live"
is "$(field header.pid) $(invalid_total)" "$hang 0" "live record is the engine's and valid"
if [ "${CI_SANITIZE:-}" = address ]; then
	# gdb would try to dump ASan's terabytes of shadow mappings.
	skip "gcore of an ASan process"; skip "gcore of an ASan process"
elif command -v gdb >/dev/null; then
	gdb -nx -p "$hang" -batch -ex "gcore $T/hang.gcore" >"$T/gdb.log" 2>&1
	dec "$T/hang.gcore"
	is "$rc $(field source.kind) $(field source.signal)" "0 gcore 0" "gcore of the hung engine: no signal"
	is "$(field header.pid) $(invalid_total)" "$hang 0" "record found and valid in the gcore"
else
	skip "gdb not installed"; skip "gdb not installed"
fi
kill "$hang" 2>/dev/null
done_testing
