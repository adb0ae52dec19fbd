#!/usr/bin/env bash
# jansson (merge's JSON reader, corefile/merge/facts_json.c) is linked into what needs it and
# nothing else: the CLI needs it; the recorder (preloaded into engines on hosts that may lack
# it), the GDB plugin and the GDB launcher do not.  The wheel grafts it in (tests/wheel/wheel.t)
# and `make gpu-bundle` copies it into its lib/ with the CLI's other libraries, from the CLI's
# ldd, which this checks resolves it to a file.
. "$(dirname "$0")/../lib/tap.sh"
command -v readelf >/dev/null || skip_all "readelf is not installed (binutils)"
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
for f in cudainspect libcudainspect-rec.so cudainspect.so cudainspect-gdb-run; do
	[ -e "$B/$f" ] || skip_all "$B/$f is not built"
done
like "$(needed "$B/cudainspect")" "^libjansson\.so\.4$" "the CLI needs libjansson.so.4"
like "$(ldd "$B/cudainspect")" "libjansson\.so\.4 => /" "its ldd resolves it to a file (what gpu-bundle copies)"
for f in libcudainspect-rec.so cudainspect.so cudainspect-gdb-run; do
	unlike "$(needed "$B/$f")" "jansson" "$f does not need jansson"
done
done_testing
