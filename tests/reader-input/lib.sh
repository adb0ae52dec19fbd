# Helpers shared by the tests/reader-input/*.t scripts (source after ../lib/tap.sh).
#   dec ARGS…         run cidecode; sets $out (stdout and stderr) and $rc
#   field KEY         the value of a "KEY value" line of $out
#   sec SECTION STAT  one decode statistic of a section ("sec launches accepted")
#   invalid_total     invalid entries over all sections
D=$B/tests/reader-input
dec() { out=$("$D/cidecode" "$@" 2>&1); rc=$?; }
field() { printf '%s\n' "$out" | awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }'; }
sec() {
	printf '%s\n' "$out" | awk -v s="$1" -v f="$2" '$1 == "section" && $2 == s {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }'
}
invalid_total() {
	printf '%s\n' "$out" | awk '$1 == "section" { for (i = 3; i <= NF; i++) if ($i ~ /^invalid=/) {
		sub("invalid=", "", $i); s += $i } } END { print s + 0 }'
}
