#!/usr/bin/env bash
# Unwinding never invents frames (x86-64): miniengine --fault oob runs on a copy of libc in a
# scratch directory, which is removed before the core is read, so libc's frames have no CFI.
# Each thread's stack must then stop at libc's frame and say why (or continue by checked frame
# records), never show an address in no module or a second libc frame (a guessed return
# address); and every frame it does show must be one of the stack read with libc's file back
# in place (the same core), in the same order.  And `threads` on a core without a record
# prints the host threads and exits 0 (docs/CLI.md), where every other view exits 4.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines miniengine
# ASan disables core dumps unless asked (its shadow is marked do-not-dump, so cores stay small).
asan && export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}disable_coredump=0:verify_asan_link_order=0
libc=$(ldd "$B/miniengine" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$libc" ] || skip_all "cannot find miniengine's libc.so.6 with ldd"
plan 13

d=$T/run
mkdir -p "$d/lib"
cp "$libc" "$d/lib/libc.so.6"
run_in "$d" env LD_LIBRARY_PATH="$d/lib:$LD_LIBRARY_PATH" LD_PRELOAD="$B/libcudainspect-rec.so" \
	"$B/miniengine" --fault oob
core=$(core_in "$d")
is "$rc" 134 "miniengine --fault oob on a copy of libc aborts"
ok "it left a core" test -s "$core"
mv "$d/lib/libc.so.6" "$d/libc.hidden"

hidden=$("$B/cudainspect" "$core" threads 2>&1)
is "$?" 0 "threads with libc's file gone: exit 0"
crashed=$(printf '%s\n' "$hidden" | sed -n 's/^thread \([0-9]*\) .*(received SIGABRT).*/\1/p')
stack_of() { printf '%s\n' "$1" | awk -v t="$2" '$1 == "thread" { on = ($2 == t) } on'; }
flat() { tr '\n' ' ' | tr -s ' '; }
unlike "$hidden" '#[0-9]+ +\?\? 0x' "no thread shows an address in no module as a frame"
like "$(stack_of "$hidden" "$crashed" | flat)" \
	"unwinding stopped after #0: no CFI for libc\.so\.6\+0x[0-9a-f]+ \(its file is not here: pass --sysroot DIR\), so the caller is not guessed" \
	"the crashed thread ($crashed) stops at libc's frame and says why"
is "$("$B/cudainspect" --json "$core" 2>/dev/null | jq -r --argjson t "$crashed" '.threads[] | select(.tid == $t) | .note' | grep -c '^unwinding stopped after #0: no CFI for libc')" 1 \
	"JSON: the crashed thread's note says where and why"
most=$(printf '%s\n' "$hidden" | awk '$1 == "thread" { n = 0 } /^ *#[0-9]+ +\?\? libc\.so\.6\+/ { if (++n > m) m = n } END { print m + 0 }')
is "$most" 1 "no thread shows a second libc frame (a guessed return address)"

mv "$d/libc.hidden" "$d/lib/libc.so.6"
full=$("$B/cudainspect" "$core" threads 2>&1)
like "$(stack_of "$full" "$crashed" | flat)" "#[0-9]+ abort libc\.so\.6\+0x.*#[0-9]+ engine_cuda_fail \(engine\.c:[0-9]+\)" \
	"with libc's file back: the crashed thread unwinds through abort to engine_cuda_fail"
unlike "$(stack_of "$full" "$crashed")" "unwinding stopped" "with libc's file back: no stop"
# Frames shown without libc (function or module+offset) form a subsequence of the full stack.
names() { stack_of "$1" "$2" | sed -n 's/^ *#[0-9]* *\(.*\) \([^ ]*+0x[0-9a-f]*\)$/\1 \2/p' | sed 's/ ([^)]*)//'; }
sub=ok
for t in $(printf '%s\n' "$hidden" | sed -n 's/^thread \([0-9]*\).*/\1/p'); do
	want=$(names "$hidden" "$t" | grep -v '^?? libc' ) have=$(names "$full" "$t")
	rest=$have
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		case $rest in *"$f"*) rest=${rest#*"$f"} ;; *) sub="thread $t: '$f' is not in the full stack"; break 2 ;; esac
	done <<<"$want"
done
is "$sub" ok "every frame shown without libc is in the full stack, in order"

# A core without a record (no recorder preloaded): `threads` is the host view, exit 0.
n=$T/norecord
run_in "$n" "$B/miniengine" --fault oob
ncore=$(core_in "$n")
out=$("$B/cudainspect" "$ncore" threads 2>/dev/null)
is "$?" 0 "threads on a core without a record: exit 0"
like "$out" '^thread [0-9]+ .*\(received SIGABRT\)' "it lists the thread that received SIGABRT"
"$B/cudainspect" "$ncore" >/dev/null 2>&1
is "$?" 4 "the summary on that core: exit 4 (no record)"
