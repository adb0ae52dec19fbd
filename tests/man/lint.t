#!/usr/bin/env bash
# The manual pages (docs/man/build.mk: help2man from the CLI's --help, scdoc from
# docs/ENVIRONMENT.md) are valid and complete: mandoc finds no error in them, groff with preconv (what
# Debian's lintian runs) prints no warning, and they say what the programs and the docs say:
# every view the CLI lists, every option of the three --help texts, every CUDAINSPECT_* variable of
# docs/ENVIRONMENT.md.  (mandoc's style warnings about the empty paragraph macros scdoc emits
# around its headings are not checked: they are scdoc's, not the page's.)
. "$(dirname "$0")/../lib/tap.sh"
M=$B/man
for f in cudainspect.1 cudainspect-record.1 cudainspect-merge.1 libcudainspect-rec.7; do
	[ -s "$M/$f" ] || skip_all "$M/$f is not built (make man: needs help2man and scdoc, make deps)"
done
command -v mandoc >/dev/null || skip_all "mandoc is not installed (make deps)"
command -v groff >/dev/null || skip_all "groff is not installed"
render() { MANWIDTH=200 man -l "$1" 2>/dev/null | col -b; }

for f in cudainspect.1 cudainspect-record.1 cudainspect-merge.1 libcudainspect-rec.7; do
	is "$(mandoc -Tlint -Werror "$M/$f" 2>&1)" "" "$f: mandoc finds no error"
	is "$(LC_ALL=C.UTF-8 groff -k -ww -man -z "$M/$f" 2>&1)" "" "$f: groff prints no warning"
	like "$(head -20 "$M/$f")" '^\.TH ' "$f: has a title line"
done

page=$(render "$M/cudainspect.1")
views=$("$B/cudainspect" --list-views | awk '$1 == "view" { print $2 }')
missing=""
for v in $views; do grep -qE "^ +$v( |$)" <<<"$page" || missing+=" $v"; done
is "$missing" "" "cudainspect(1): every view of --list-views ($(echo $views | wc -w)) has an entry"
opts=$("$B/cudainspect" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
missing=""
for o in $opts; do grep -qF -- "$o" <<<"$page" || missing+=" $o"; done
is "$missing" "" "cudainspect(1): every option of --help ($(echo $opts | wc -w)) is there"
# Justified at 200 columns, a line may get a double space anywhere: compare the words.
like "$(tr -s " " <<<"$page")" "EXIT|Exit status: 0 report printed" "cudainspect(1): the exit codes"

rpage=$(render "$M/cudainspect-record.1")
opts=$("$B/cudainspect" record --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
missing=""
for o in $opts; do grep -qF -- "$o" <<<"$rpage" || missing+=" $o"; done
is "$missing" "" "cudainspect-record(1): every option of record --help ($(echo $opts | wc -w)) is there"

mpage=$(render "$M/cudainspect-merge.1")
opts=$("$B/cudainspect" merge --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
missing=""
for o in $opts; do grep -qF -- "$o" <<<"$mpage" || missing+=" $o"; done
is "$missing" "" "cudainspect-merge(1): every option of merge --help ($(echo $opts | wc -w)) is there"

epage=$(render "$M/libcudainspect-rec.7")
vars=$(grep -oE '^\| `CUDAINSPECT_[A-Z_]+`' "$TOP/docs/ENVIRONMENT.md" | tr -d '|` ' | sort -u)
missing=""
for v in $vars; do grep -qE "^ +$v\$" <<<"$epage" || missing+=" $v"; done
is "$missing" "" "libcudainspect-rec(7): every variable of docs/ENVIRONMENT.md ($(echo $vars | wc -w)) has an entry"
like "$epage" "Default: 32M" "libcudainspect-rec(7): values and defaults come along (CUDAINSPECT_SIZE)"
done_testing
