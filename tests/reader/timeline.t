#!/usr/bin/env bash
# The timeline (issue 25, 4): `--trace FILE` (a Chrome Trace Event Format document) and
# `--timeline FILE.svg` (a picture of the last moments) on real kernel cores of the test engines
# under the recorder on the simulated driver, on synthetic records with hostile names and with
# many launches, and bad flags.  Expectations come from outside the renderers: the kernel the
# engine planted its fault in (its --verbose output), the JSON report of the same core (its
# streams, launches, times), the Trace Event Format's required keys (timeline_check.py), and
# the picture as a real SVG renderer (rsvg-convert, librsvg) draws it, sampled pixel by pixel.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
CI=$B/cudainspect
MK=$B/tests/reader-input/mkrecord
CHECK=$TOP/tests/reader/timeline_check.py
recorder_preload
need_core_tests miniengine graphengine xidengine tests/reader-input/mkrecord
command -v python3 >/dev/null || skip_all "python3 is not installed"

# fact FILE KEY: the value timeline_check.py printed for KEY
fact() { sed -n "s/^$2 //p" "$1" | head -1; }

# ---- a planted fault: miniengine, paged_attention on stream 0 of thread 0 -------------------
dir=$T/mini; mkdir -p "$dir"
( ( cd "$dir" && ulimit -c unlimited && CUDAINSPECT_QUIET=1 LD_PRELOAD="$PRELOAD" \
	LD_LIBRARY_PATH="$B/sim" exec "$B/miniengine" --verbose --fault multistream ) \
	>"$dir/out" 2>"$dir/verbose" || true ) 2>/dev/null
core=$(ls "$dir"/core* 2>/dev/null | head -1)
ok "miniengine dumped core" test -n "$core"
planted=$(sed -nE 's/.*plants multistream: ([a-z_]+) launch #.*/\1/p' "$dir/verbose")
is "$planted" paged_attention "the engine says where it planted the fault"
"$CI" --json "$core" >"$dir/report.json" 2>/dev/null
"$CI" --width 100 "$core" >"$dir/summary.txt" 2>"$dir/err"; want_rc=$?
"$CI" --width 100 "$core" --trace "$dir/trace.json" --timeline "$dir/t.svg" >"$dir/with.txt" 2>"$dir/err"
is "$?" "$want_rc" "--trace and --timeline: the exit code of the report"
ok "... the report on standard output is unchanged" cmp "$dir/summary.txt" "$dir/with.txt"
is "$(stat -c %a "$dir/trace.json") $(stat -c %a "$dir/t.svg")" "600 600" "both files are private (0600)"
is "$(ls -A "$dir" | grep -c '^\.cudainspect-output')" 0 "no temporary file is left behind"
python3 "$CHECK" trace "$dir/trace.json" "$dir/report.json" >"$dir/facts" 2>&1
is "$(fact "$dir/facts" schema_errors)" 0 "trace: every event has the keys its ph needs $(fact "$dir/facts" schema_first)"
is "$(fact "$dir/facts" ordered) $(fact "$dir/facts" metadata_first)" "1 1" "trace: metadata first, then events in time order"
is "$(fact "$dir/facts" negative_durations) $(fact "$dir/facts" outside_span)" "0 0" \
	"trace: no negative duration, every event within the record's span"
is "$(fact "$dir/facts" crossing_slices)" 0 "trace: the slices of each track nest (none crosses another)"
is "$(fact "$dir/facts" gpu_tracks)" "$(fact "$dir/facts" report_streams)" \
	"trace: one track per stream of the JSON report ($(fact "$dir/facts" report_streams))"
is "$(fact "$dir/facts" launch_events)" "$(fact "$dir/facts" report_launches)" "trace: every launch of the report"
is "$(fact "$dir/facts" time_mismatches) $(fact "$dir/facts" ts_mismatches) $(fact "$dir/facts" stream_mismatches)" \
	"0 0 0" "trace: each launch at the report's time (ts = µs from origin_ns) on its stream's track"
is "$(fact "$dir/facts" faulting_events)" 1 "trace: one faulting launch"
is "$(fact "$dir/facts" faulting_name) / $(fact "$dir/facts" faulting_cname)" "[FAULT] $planted / terrible" \
	"trace: it is the planted kernel, highlighted"
is "$(fact "$dir/facts" faulting_seq) $(fact "$dir/facts" faulting_track)" \
	"$(jq -r '.diagnosis.faulting_launch | "\(.seq) stream \(.stream)"' "$dir/report.json")" \
	"trace: the report's faulting launch, on its stream's track"
is "$(fact "$dir/facts" faulting_may_be_running) $(fact "$dir/facts" faulting_ends_at_crash)" "1 1" \
	"trace: it may still have been running: drawn to the crash"
origin=$(fact "$dir/facts" origin_ns)
is "$origin" "$(jq -r .record.start_monotonic_ns "$dir/report.json")" "trace: the clock starts at the record's start"
# ... and ends at the crash, unless another thread's call was recorded after the crashing
# thread took the record's end time (it goes on while the handler runs): then at that call.
end=$(fact "$dir/facts" end_ns); rec_end=$(jq -r .record.end_monotonic_ns "$dir/report.json")
newest=$(fact "$dir/facts" newest_drawn_ns)
ok "trace: ... and ends at the crash ($end; record end $rec_end, newest drawn $newest)" \
	test "$end" = "$rec_end" -o \( "$end" -gt "$rec_end" -a "$((end - newest))" -ge -1000 -a "$((end - newest))" -le 1000 \)
want=$(jq -r --argjson o "$origin" '.diagnosis.first_sticky_error.time_ns - $o' "$dir/report.json")
like "$(grep '^marker' "$dir/facts")" "first CUDA error=$((want / 1000))\.$(printf '%03d' $((want % 1000)))" \
	"trace: the first error's marker at the report's first sticky error"
like "$(grep '^marker' "$dir/facts")" "crash: SIGABRT=" "trace: the crash's marker names the signal"
sync=$(jq -c '[.traceEvents[] | select(.cat == "synchronization")][0] | [.ph, .pid, (.dur * 1000 | round) == .args.duration_ns]' "$dir/trace.json")
like "$sync" '^\["X",[0-9]+,true\]$' "trace: synchronizations on host threads, as long as they took"
is "$(jq '[.traceEvents[] | select(.cat == "allocation")] | length' "$dir/trace.json")" \
	"$(jq '(.allocations | length) + (.frees | length)' "$dir/report.json")" "trace: every allocation, live and freed"
# Perfetto's trace_processor is not a Python package: the perfetto wheel downloads its binary at
# run time from outside the package index, which the tests never do.
if command -v trace_processor_shell >/dev/null; then
	out=$(trace_processor_shell -q <(echo "select count(*) from slice where name like '[FAULT]%';") "$dir/trace.json" 2>&1)
	like "$out" '[^0-9]1[^0-9]*$' "Perfetto's trace_processor reads the trace: one faulting slice"
else
	skip "Perfetto's trace_processor_shell is not installed (a binary the perfetto wheel downloads at run time, not from the package index)"
fi

# The picture, drawn by librsvg.
if command -v xmllint >/dev/null; then
	ok "svg: well-formed XML (xmllint)" xmllint --noout "$dir/t.svg"
else
	skip "xmllint is not installed"
fi
if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o "$dir/t.png" "$dir/t.svg" 2>"$dir/rsvg.err"
	is "$?" 0 "svg: rsvg-convert draws it"
	python3 "$CHECK" png "$dir/t.png" "$dir/t.svg" "$dir/report.json" >"$dir/png" 2>&1
	like "$(fact "$dir/png" png_size)" '^1200x[0-9]+$' "svg: 1200 px wide"
	is "$(fact "$dir/png" lane_names)" "$(fact "$dir/png" streams_with_launches)" \
		"svg: a lane per stream with launches ($(fact "$dir/png" streams_with_launches))"
	is "$(fact "$dir/png" fault_pixel_red) $(fact "$dir/png" left_of_fault_not_red)" "1 1" \
		"svg: the faulting launch's red box starts where its time puts it (x $(fact "$dir/png" fault_x))"
	is "$(fact "$dir/png" first_error_line_orange) $(fact "$dir/png" crash_line_dark)" "1 1" \
		"svg: the first error's and the crash's lines"
	like "$(grep -o 'class="fault-label"[^<]*>[^<]*' "$dir/t.svg")" ">faulting: $planted\$" "svg: the faulting kernel's name"
else
	skip "rsvg-convert is not installed (make deps: librsvg2-bin)"
fi

# ---- a graph replay: graphengine, the attention node of step 5 -------------------------------
dir=$T/graph; mkdir -p "$dir"
( ( cd "$dir" && ulimit -c unlimited && CUDAINSPECT_QUIET=1 CUDAINSPECT_CRUMB_EVERY=1 CUDASIM_KERNEL_US=200 \
	LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" exec "$B/graphengine" --steps 6 --fault-step 5 ) \
	>"$dir/out" 2>"$dir/err" || true ) 2>/dev/null
core=$(ls "$dir"/core* 2>/dev/null | head -1)
"$CI" --json "$core" >"$dir/report.json" 2>/dev/null
"$CI" "$core" --trace - >"$dir/trace.json" 2>"$dir/trace.err"
is "$?" 0 "graph: --trace - writes the trace on standard output"
is "$(jq -r '.traceEvents | length > 0' "$dir/trace.json")" true "graph: ... and only the trace"
python3 "$CHECK" trace "$dir/trace.json" "$dir/report.json" >"$dir/facts" 2>&1
is "$(fact "$dir/facts" schema_errors) $(fact "$dir/facts" crossing_slices) $(fact "$dir/facts" outside_span)" "0 0 0" \
	"graph: schema, nesting and span"
is "$(fact "$dir/facts" launch_events)" "$(fact "$dir/facts" report_launches)" \
	"graph: every launch that ran on a stream (not those captured into the graphs)"
q='[.traceEvents[] | select(.cat == "graph_node" and .args.faulting)] | map("\(.args.kernel) \(.args.node) \(.args.replay)") | join(",")'
is "$(jq -r "$q" "$dir/trace.json")" \
	"paged_attention $(jq -r '.diagnosis.faulting_launch.graph | "\(.faulting_node_name) \(.replay)"' "$dir/report.json")" \
	"graph: the faulting replay's attention node is the faulting slice"
q='[.traceEvents[] | select(.cat == "graph_launch" and .args.faulting)][0] as $g | [.traceEvents[] | select(.cat == "graph_node" and .ts >= $g.ts and .ts + .dur <= $g.ts + $g.dur + 0.001 and .tid == $g.tid)] | length'
is "$(jq -r "$q" "$dir/trace.json")" \
	"$(jq '[.diagnosis.faulting_launch.graph.nodes[] | select(.type == "kernel")] | length' "$dir/report.json")" \
	"graph: its kernel nodes inside its box"

# ---- the kernel log's Xid lines: xidengine's neighbour overrun, with the simulator's log ----------
dir=$T/xid; mkdir -p "$dir"
( ( cd "$dir" && ulimit -c unlimited && CUDAINSPECT_QUIET=1 LD_PRELOAD="$PRELOAD" \
	LD_LIBRARY_PATH="$B/sim" CUDASIM_HANG=mlp@1 CUDASIM_FAULT=attn_decode@6:arg=1+262144 \
	CUDASIM_KERNEL_LOG="$dir/kern.log" exec timeout 60 "$B/xidengine" neighbour ) \
	>"$dir/out" 2>"$dir/err" || true ) 2>/dev/null
core=$(ls "$dir"/core* 2>/dev/null | head -1)
"$CI" "$core" --kernel-log "$dir/kern.log" --trace "$dir/trace.json" >/dev/null 2>&1
"$CI" "$core" --json --kernel-log "$dir/kern.log" >"$dir/report.json" 2>/dev/null
want=$(jq '[.diagnosis.kernel_log.lines[] | select(.belongs)] | length' "$dir/report.json")
is "$(jq '[.traceEvents[] | select(.cat == "kernel_log")] | length' "$dir/trace.json")" "$want" \
	"xid: an instant per Xid line of the process ($want)"
is "$(jq -r '[.traceEvents[] | select(.cat == "kernel_log")][0].args.xid' "$dir/trace.json")" \
	"$(jq -r '[.diagnosis.kernel_log.lines[] | select(.belongs)][0].xid' "$dir/report.json")" "xid: the first line's Xid"
is "$(jq '[.traceEvents[] | select(.name == "thread_name" and (.args.name | startswith("kernel log")))] | length' "$dir/trace.json")" 1 \
	"xid: on a kernel-log track"

# ---- hostile names -------------------------------------------------------------------------
cd "$T" || exit 1
"$MK" --damage=markup-name --launches=40 markup.cisnap
"$CI" markup.cisnap --trace markup.json --timeline markup.svg >/dev/null 2>&1
is "$?" 0 "a kernel named k\"<&>' U+202E, controls: both written"
ok "trace: valid JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' markup.json
names=$(jq -r '[.traceEvents[] | select(.cat == "launch") | .args.kernel] | unique | .[]' markup.json)
like "$names" "^k\"<&>'" "trace: the name keeps its quote, <, & and > (escaped by the JSON writer)"
rlo=$(printf '\342\200\256')
is "$(grep -c "$rlo" markup.json) $(grep -c "$rlo" markup.svg)" "0 0" "no U+202E in either"
is "$(LC_ALL=C grep -c $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' markup.json) $(LC_ALL=C grep -c $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' markup.svg)" \
	"0 0" "no control byte in either"
ok "svg: well-formed XML" xmllint --noout markup.svg
like "$(cat markup.svg)" 'k&quot;&lt;&amp;&gt;&apos;' "svg: the name escaped for XML"
unlike "$(cat markup.svg)" "k\"<" "svg: never raw"

# ---- a large record: the bounds ------------------------------------------------------------------
"$MK" --launches=60000 --launch-cap=65536 big.cisnap
"$CI" --json=full big.cisnap >big-report.json 2>/dev/null  # every launch, to count those left out
"$CI" big.cisnap --trace big.json --timeline big.svg >/dev/null 2>&1
is "$?" 0 "60,000 launches: both written"
python3 "$CHECK" trace big.json big-report.json >big.facts 2>&1
is "$(fact big.facts most_launches_on_a_track)" "$(fact big.facts launches_per_stream_max)" "trace: at most the bound's launches per stream"
is "$(( $(fact big.facts launch_events) + $(fact big.facts launches_left_out) ))" "$(fact big.facts report_launches)" \
	"trace: the launches left out are counted ($(fact big.facts launches_left_out))"
is "$(fact big.facts schema_errors) $(fact big.facts crossing_slices)" "0 0" "trace: still well formed"
ok "trace: under 4 MB" test "$(stat -c %s big.json)" -lt 4000000
ok "svg: under 300 KB" test "$(stat -c %s big.svg)" -lt 300000

# ---- bad flags and paths ---------------------------------------------------------------------------
"$MK" small.cisnap
err=$("$CI" small.cisnap --trace 2>&1); rc=$?
is "$rc" 2 "--trace without a file: usage error (2)"
like "$err" "option '--trace' needs an argument" "... saying so"
err=$("$CI" small.cisnap --timeline '' 2>&1); rc=$?
is "$rc $(printf '%s\n' "$err" | head -1)" "2 cudainspect: --timeline needs a file to write (or '-' for standard output)" \
	"--timeline '': usage error (2), saying so"
err=$("$CI" small.cisnap --trace - --timeline - 2>&1); rc=$?
is "$rc" 2 "--trace - --timeline -: usage error (2)"
like "$err" "both write to standard output" "... saying why"
err=$("$CI" small.cisnap --json --trace - 2>&1); is "$?" 2 "--json --trace -: usage error (2)"
err=$("$CI" small.cisnap --trace "$T/no/such/dir/t.json" 2>&1); rc=$?
is "$rc" 3 "a missing directory: exit 3"
like "$err" "--trace .*/no/such/dir/t.json: cannot open its directory: No such file or directory" "... saying which"
mkdir -p adir
err=$("$CI" small.cisnap --trace adir 2>&1); rc=$?
is "$rc" 3 "a directory: exit 3"
like "$err" "--trace adir: is a directory" "... saying so"
echo precious >target; ln -s target link.json
err=$("$CI" small.cisnap --trace link.json 2>&1); rc=$?
is "$rc" 3 "a symbolic link: exit 3"
like "$err" "link.json: is a symbolic link, which is not written through" "... saying so"
is "$(cat target)" precious "... and the file it points to is untouched"
err=$("$CI" small.cisnap --timeline /proc/t.svg 2>&1); rc=$?
is "$rc" 3 "a directory where no file can be made (/proc): exit 3"
like "$err" "cannot create a file in its directory" "... saying so"
mkfifo fifo.json
err=$(timeout 10 "$CI" small.cisnap --trace fifo.json 2>&1); rc=$?
is "$rc" 3 "a FIFO: exit 3 (no hang)"
echo old >old.json
"$CI" small.cisnap --trace old.json >/dev/null 2>&1
is "$?.$(jq -r '.traceEvents | length > 0' old.json)" "0.true" "a regular file of the user is replaced"
rm -f none.json
"$CI" "$dir/kern.log" --trace none.json >/dev/null 2>&1
is "$?.$(test -e none.json && echo made || echo none)" "3.none" "an input that is not a record: nothing written"
is "$(ls -A . | grep -c '^\.cudainspect-output')" 0 "no temporary file left behind by any of them"

done_testing
