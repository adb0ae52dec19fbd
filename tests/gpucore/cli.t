#!/usr/bin/env bash
# `cudainspect GPUCORE`: the real H200 GPU core (shared/gpu/, zstd as it is) through the CLI,
# recognised by content, its text and JSON compared with what cuda-gdb printed for it
# (oracle.sh parses that output; nothing here is hard-coded): exception, kernel, grid, block,
# thread, device/SM/warp/lane, error PC and line.  Then the `warps` view against the focus, the
# views and options a GPU core refuses, and a cut copy, which must fail with exit 3 and a
# sentence, not a report.
. "$(dirname "$0")/../lib/tap.sh"
SHARED=${CI_SHARED:-$TOP/../shared}
G=$SHARED/gpu
FIX=$G/gpucore-h200-illegal-address.zst
ORACLE=$G/gpucore-h200-illegal-address.cuda-gdb.txt
CLI=$B/cudainspect
[ -x "$CLI" ] || skip_all "$CLI is not built"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
[ -r "$FIX" ] && [ -r "$ORACLE" ] || skip_all "the H200 GPU core fixture is not in $G (the shared fixtures live next to the repository)"
plan 24
. "$(dirname "$0")/oracle.sh"
# TEXT as an extended regular expression that matches only itself.
esc() { printf '%s' "$1" | sed 's/[][().*+?^$|\\{}]/\\&/g'; }

txt=$("$CLI" "$FIX" 2>"$T/err"); rc=$?
is "$rc" 0 "text report: exit 0"
head1=$(printf '%s\n' "$txt" | grep -m1 " in $o_kernel, block ")
is "$head1" "$exc in $o_kernel, block $o_block thread $o_thread" "text: exception, kernel, block, thread as cuda-gdb"
at=$(printf '%s\n' "$txt" | sed -n 's/^  at \(.*\)$/\1/p' | head -1)
is "$(basename "${at%:*}"):${at##*:}" "$o_errline" "text: the error PC's line $o_errline"
like "$txt" "error PC $o_errpc = $o_kernel\\+0x[0-9a-f]+ " "text: error PC $o_errpc in $o_kernel"
like "$txt" "$(esc "device $o_device, SM $o_sm, warp $o_warp, lane $o_lane; grid $o_grid, <<<$o_griddim,$o_blockdim>>>")" \
	"text: the focus (device, SM, warp, lane, grid, dimensions)"
like "$txt" "$(esc "* grid $o_kgrid  $o_kernel<<<$o_kgriddim,$o_kblockdim>>>  $o_status, device $o_kdev,")" \
	"text: info cuda kernels' row (grid $o_kgrid $o_status)"
is "$(cat "$T/err")" "" "text: nothing on stderr"

json=$("$CLI" --json "$FIX"); rc=$?
is "$rc" 0 "JSON: exit 0"
j() { printf '%s' "$json" | jq -r "$1"; }
is "$(j '.version') $(j '.kind')" "$(sed -n 's/^#define CI_JSON_SCHEMA_VERSION \([0-9]*\)/\1/p' "$TOP/include/cudainspect/cudainspect.h") gpu_core" \
	"JSON: the schema's version first, kind gpu_core"
is "$(j '.fault.exception_words')" "$exc" "JSON: exception"
is "$(j '.fault.kernel')" "$o_kernel" "JSON: kernel"
is "$(j '.fault.grid')" "$o_grid" "JSON: grid"
is "($(j '.fault.block|map(tostring)|join(",")')))" "$o_block)" "JSON: block"
is "($(j '.fault.thread|map(tostring)|join(",")')))" "$o_thread)" "JSON: thread"
is "$(j '.fault.error_pc.pc_hex')" "$o_errpc" "JSON: error PC"
is "$(basename "$(j '.fault.error_pc.file')"):$(j '.fault.error_pc.line')" "$o_errline" "JSON: the error PC's line"
is "$(j '.fault.halted_pc.line')" "$o_line" "JSON: the halted PC's line"
is "$(j '.fault.device') $(j '.fault.sm') $(j '.fault.warp') $(j '.fault.lane')" "$o_device $o_sm $o_warp $o_lane" "JSON: device, SM, warp, lane"

# The warps view: the focus warp's row carries the exception.
w=$("$CLI" "$FIX" warps | awk -v sm="$o_sm" -v wp="$o_warp" '$1 == sm && $2 == wp')
like "$w" "^ +$o_sm +$o_warp +$(esc "$o_block").*$o_kernel\\+0x[0-9a-f]+  $exc\$" "warps: SM $o_sm warp $o_warp is in block $o_block with the exception"
is "$(j '.warps|length')" "$("$CLI" "$FIX" warps | tail -n +2 | wc -l)" "warps: as many rows as JSON's warps"

"$CLI" "$FIX" kernels >/dev/null 2>"$T/err"; rc=$?
is "$rc" 2 "a host view of a GPU core: usage error"
like "$(cat "$T/err")" "GPU core dump: its views are summary and warps" "... saying which views it has"

# Cut: the section table (at the end) is gone.
zstd -dcq "$FIX" | head -c 50000000 > "$T/cut"
"$CLI" "$T/cut" >"$T/out" 2>"$T/err"; rc=$?
is "$rc" 3 "a cut GPU core: exit 3"
like "$(cat "$T/err")" "cut short" "... saying it was cut short"
