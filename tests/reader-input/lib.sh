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

# Cut .zst inputs.  zstd decodes whole blocks (up to 128 KiB), so where a cut lands in the core
# is measured with the zstd program itself, which writes out every block it could decode.
#   zst_cut_after Z N     the shortest head of Z from which `zstd -dc` gets more than N bytes
#   zst_vs_plain Z ORIG   decode Z, and as a plain file what `zstd -dc` gets out of it; sets
#                         $out/$rc for Z, $zcut and $plain to both outputs with the lines that may
#                         differ (the compressed flag, the zstd warning, the file names) removed.
#                         At the end of a cut stream zstd 1.5's program may stop without writing
#                         the last output buffer (128 KiB) it decoded (one cut in 80 of a real
#                         core's .zst): then the plain file is that much more of ORIG, the file Z
#                         was made from, if that is what Z reads as
zst_cut_after() {
	local lo=1 hi mid
	hi=$(stat -c %s "$1")
	while [ "$lo" -lt "$hi" ]; do
		mid=$(( (lo + hi) / 2 ))
		if [ "$(head -c "$mid" "$1" | zstd -dc 2>/dev/null | wc -c)" -gt "$2" ]; then
			hi=$mid
		else
			lo=$(( mid + 1 ))
		fi
	done
	echo "$lo"
}
zst_plain() { # RAW: decode it as $plain
	dec --entries "$1"
	plain=$(printf "%s\n" "$out" | grep -v "^source\.compressed " | sed "s|$1|INPUT|g")
}
zst_vs_plain() {
	local raw=${1%.zst}.raw # as long a name as $1: messages are cut at the same length
	zstd -dc "$1" 2>/dev/null >"$raw"
	zst_plain "$raw"
	dec --entries "$1"
	zcut=$(printf '%s\n' "$out" | grep -v -e '^source\.compressed ' -e 'zstd stream ends in the middle' |
		sed "s|$1|INPUT|g")
	if [ "$zcut" != "$plain" ]; then
		local zout=$out zrc=$rc
		head -c $(( $(stat -c %s "$raw") + 131072 )) "$2" >"$raw"
		zst_plain "$raw"
		out=$zout rc=$zrc
	fi
}
