#!/usr/bin/env bash
# Seed corpus for the kernel-log fuzz harness (corefile/fuzz/fuzz_kernel_log.c):
#   fuzz-seeds.sh CORPUS_DIR
# Every fixture of tests/kernel-log/fixtures (each log format, the bug report), the bug report
# gzip'ed in one member and in one member per section (as nvidia-bug-report.sh writes it), a cut
# copy of that, the first lines of each format alone and without their last newline, and a bare
# separator line.
set -eu
F=$(cd "$(dirname "$0")/fixtures" && pwd) C=$1
mkdir -p "$C"
W=$(mktemp -d "${TMPDIR:-/tmp}/ci-klog-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT
for f in "$F"/*.log "$F"/journal.json; do
	b=$(basename "$f")
	cp "$f" "$C/$b"
	head -n 8 "$f" > "$C/head-$b"
	head -n 8 "$f" | head -c -1 > "$C/head-nonl-$b"
done
head -c 44 "$F/bugreport.log" > "$C/separator"
gzip -9 -n -c "$F/bugreport.log" > "$C/bugreport.log.gz"
( cd "$W" && csplit -s -z -f sec "$F/bugreport.log" '/^____/' '{*}' )
for s in "$W"/sec*; do gzip -n -c "$s"; done > "$C/bugreport-members.log.gz"
head -c 3000 "$C/bugreport-members.log.gz" > "$C/bugreport-cut.log.gz"
