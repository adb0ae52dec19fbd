#!/usr/bin/env bash
# same-reports.sh: every report the tests ask the CLI for, before and after a change, compared
# byte for byte.  For refactors of the reader that must not change a word of its output.
#
#   same-reports.sh capture CORPUS [TEST.t...]
#       Run the tests (default: every tests/**/*.t but the fuzzers) against a copy of the build
#       whose `cudainspect` is a wrapper: each call's arguments, working directory and every
#       file it names (cores, record files, kernel logs, --exe files; standard input when it is
#       a pipe or a file) are kept under CORPUS.  Calls on live processes (--pid) and
#       `cudainspect record` are not kept: they cannot be replayed.
#   same-reports.sh add CORPUS FILE...
#       Keep FILE (a core, record file or fuzz seed the tests do not read through the CLI) as
#       an input of its own, as if the tests had asked for its summary.
#   same-reports.sh run CORPUS CLI OUT
#       Replay every kept call with CLI, and for every input (and kernel log it was read with)
#       every view as text and JSON; stdout, stderr and exit status of each go to OUT.
#   same-reports.sh compare OUT1 OUT2
#       diff -r of two runs; exit 1 on any difference.
#
# The capture is made once with the unchanged tree; `run` with the old CLI and with the new one
# on the same CORPUS gives two trees that must be equal.  The files are kept outside the
# repository (a corpus is hundreds of MiB of cores).  tests/reader/golden.t checks a small fixed
# set of the same reports in `make check`.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${CI_BUILD:-$TOP/build}

die() { echo "same-reports: $*" >&2; exit 2; }

# The wrapper: keep the call, then run the real CLI in its place (same pid: exec).
write_wrapper() { # CORPUS REAL
	cat >"$1/build/cudainspect" <<EOF
#!/usr/bin/env bash
CORPUS='$1'
REAL='$2'
EOF
	cat >>"$1/build/cudainspect" <<'EOF'
keep=1
for a in "$@"; do
	case $a in --pid|--pid=*|-p|-p[0-9]*|record) keep= ;; esac
done
[ "${1:-}" = record ] && keep=
if [ -n "$keep" ]; then
	call=$CORPUS/calls/$(date +%s%N).$$
	mkdir -p "$call/cwd"
	printf '%s\0' "$@" >"$call/argv"
	pwd >"$call/origcwd"
	# Every argument that names a regular file (also the FILE of --opt=FILE), copied once by
	# content into the store and linked where the replay will find it.
	i=0
	for a in "$@"; do
		f=$a
		case $a in -*=*) f=${a#*=} ;; esac
		while [ -n "$f" ] && [ -f "$f" ] && [ ! -p "$f" ]; do
			size=$(stat -L -c %s "$f" 2>/dev/null) || break
			[ "$size" -le $((1 << 30)) ] || break
			h=$(sha1sum <"$f" | cut -c1-40) || break
			if [ ! -e "$CORPUS/store/$h" ]; then
				cp "$f" "$CORPUS/store/$h.tmp.$$" 2>/dev/null &&
					mv -f "$CORPUS/store/$h.tmp.$$" "$CORPUS/store/$h" || break
			fi
			# Where the replay finds it: relative names stay relative to the call's
			# directory (reports print them); others go under abs/ by their full path.
			case $f in
			/*|*..*) dest=abs$(realpath -s "$f") ;;
			*) dest=$f ;;
			esac
			mkdir -p "$(dirname "$call/cwd/$dest")"
			ln -f "$CORPUS/store/$h" "$call/cwd/$dest" 2>/dev/null ||
				cp "$CORPUS/store/$h" "$call/cwd/$dest"
			printf '%s\t%s\t%s\t%s\n' "$i" "$f" "$h" "$dest" >>"$call/files"
			break
		done
		i=$((i + 1))
	done
	# Standard input: a file is named; a pipe is read whole and handed on as a pipe.
	if [ -p /dev/stdin ]; then
		cat >"$call/stdin"
		exec "$REAL" "$@" < <(cat "$call/stdin")
	elif [ -f /dev/stdin ]; then
		cp /dev/stdin "$call/stdin" 2>/dev/null || true
		: >"$call/stdin-file"
	fi
fi
exec "$REAL" "$@"
EOF
	chmod +x "$1/build/cudainspect"
}

capture() {
	local corpus=$1; shift
	[ -x "$B/cudainspect" ] || die "$B/cudainspect is not built"
	mkdir -p "$corpus/store" "$corpus/calls"
	corpus=$(cd "$corpus" && pwd)
	rm -rf "$corpus/build"
	cp -a "$B" "$corpus/build"
	cp "$B/cudainspect" "$corpus/build/.cudainspect.real"
	write_wrapper "$corpus" "$corpus/build/.cudainspect.real"
	local tests=("$@")
	if [ ${#tests[@]} -eq 0 ]; then
		mapfile -t tests < <(cd "$TOP" && find tests -name '*.t' ! -name 'fuzz*.t' | sort)
	fi
	(cd "$TOP" && CI_BUILD="$corpus/build" CUDAINSPECT_CLI="$corpus/build/cudainspect" \
		CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} prove --timer "${tests[@]}" </dev/null) \
		>"$corpus/prove.log" 2>&1 || true
	echo "captured $(ls "$corpus/calls" | wc -l) calls, $(ls "$corpus/store" | wc -l) files" \
		"($(du -sh "$corpus/store" | cut -f1)); prove log: $corpus/prove.log"
}

add() {
	local corpus=$1 f h n=0; shift
	corpus=$(cd "$corpus" && pwd)
	for f in "$@"; do
		[ -f "$f" ] || continue
		h=$(sha1sum <"$f" | cut -c1-40)
		[ -e "$corpus/store/$h" ] || cp "$f" "$corpus/store/$h"
		local call=$corpus/calls/added.$h
		mkdir -p "$call/cwd"
		ln -f "$corpus/store/$h" "$call/cwd/${f##*/}"
		printf '%s\0' "${f##*/}" >"$call/argv"
		printf '0\t%s\t%s\t%s\n' "${f##*/}" "$h" "${f##*/}" >"$call/files"
		n=$((n + 1))
	done
	echo "added $n inputs"
}

# Run CLI with ARGS in DIR, outputs to OUT/NAME.{out,err,rc}.
one() { # OUT NAME DIR STDIN CLI ARGS...
	local out=$1 name=$2 dir=$3 in=$4 cli=$5; shift 5
	local rc=0
	local how=file
	case $in in pipe:*) in=${in#pipe:}; how=pipe ;; esac
	( cd "$dir" && if [ $how = pipe ]; then exec < <(cat "$in"); else exec <"$in"; fi &&
		env -u DEBUGINFOD_URLS -u TERM -u NO_COLOR TMPDIR="$TMPDIR" \
		timeout 300 "$cli" "$@" >"$out/$name.out" 2>"$out/$name.err" ) || rc=$?
	echo "$rc" >"$out/$name.rc"
}

# A core (ELF), a zstd file or a record file, by its first bytes.
is_input() {
	case $(od -An -tx1 -N4 "$1" | tr -d ' ') in
	7f454c46|28b52ffd|43554441) return 0 ;;
	esac
	return 1
}

run() {
	local corpus=$1 cli=$2 out=$3
	corpus=$(cd "$corpus" && pwd)
	cli=$(realpath "$cli")
	mkdir -p "$out/calls" "$out/views"
	out=$(cd "$out" && pwd)
	export TMPDIR=${TMPDIR:-/tmp}
	local views
	views=$("$cli" --list-views | sed -n 's/^view //p')
	local call n=0 pairs=$out/.pairs
	: >"$pairs"
	for call in "$corpus"/calls/*; do
		[ -f "$call/argv" ] || continue
		local id=${call##*/} args=() i=0 a
		mapfile -d '' -t args <"$call/argv"
		# Point the file arguments at the kept copies.
		if [ -f "$call/files" ]; then
			while IFS=$'\t' read -r i f h dest; do
				if [ "${args[$i]}" = "$f" ]; then args[$i]=$dest
				else args[$i]=${args[$i]%%=*}=$dest; fi
			done <"$call/files"
		fi
		local in=/dev/null
		if [ -f "$call/stdin-file" ]; then in=$call/stdin
		elif [ -f "$call/stdin" ]; then in=pipe:$call/stdin; fi
		one "$out/calls" "$id" "$call/cwd" "$in" "$cli" "${args[@]}"
		n=$((n + 1))
		# The inputs it read (a core or record file among its files), with its kernel log.
		if [ -f "$call/files" ]; then
			local input= klog=
			while IFS=$'\t' read -r i f h dest; do
				case ${args[$i]} in
				--kernel-log=*) klog=$h ;;
				*) if [ "$i" -gt 0 ] && [ "${args[$((i - 1))]}" = --kernel-log ]; then klog=$h
				   elif is_input "$corpus/store/$h"; then input=$h; fi ;;
				esac
			done <"$call/files"
			[ -n "$input" ] && echo "$input ${klog:--}" >>"$pairs"
		fi
	done
	# Every view of every input, text and JSON.
	local m=0 input klog v
	sort -u "$pairs" | while read -r input klog; do
		local extra=()
		[ "$klog" = - ] || extra=(--kernel-log "$corpus/store/$klog")
		for v in $views; do
			one "$out/views" "$input.$klog.$v" "$corpus" /dev/null "$cli" --width 120 \
				"${extra[@]}" "$corpus/store/$input" "$v"
			one "$out/views" "$input.$klog.$v.json" "$corpus" /dev/null "$cli" --json \
				"${extra[@]}" "$corpus/store/$input" "$v"
		done
	done
	echo "replayed $n calls and $(sort -u "$pairs" | wc -l) inputs x $(echo $views | wc -w) views x 2 into $out"
}

compare() {
	if diff -r "$1" "$2" >"${3:-/dev/stdout}"; then
		echo "same: $(find "$1" -type f -name '*.out' | wc -l) reports"
	else
		echo "DIFFERENT: $(diff -rq "$1" "$2" | wc -l) files differ" >&2
		return 1
	fi
}

case ${1:-} in
capture) [ $# -ge 2 ] || die "usage: $0 capture CORPUS [TEST.t...]"; shift; capture "$@" ;;
add) [ $# -ge 2 ] || die "usage: $0 add CORPUS FILE..."; shift; add "$@" ;;
run) [ $# -eq 4 ] || die "usage: $0 run CORPUS CLI OUT"; shift; run "$@" ;;
compare) [ $# -ge 3 ] || die "usage: $0 compare OUT1 OUT2 [DIFF]"; shift; compare "$@" ;;
*) die "usage: $0 capture|run|compare ..." ;;
esac
