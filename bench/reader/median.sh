# Sourced by bench/reader/*.sh.  median CMD...: RUNS runs of `$M CMD...` (the measure tool),
# printing "<wall s> <peak KiB> <cpu s>", the median of each.
median() {
	local i
	for ((i = 0; i < runs; i++)); do
		"$M" "$@" 2>/dev/null
	done | awk -v n="$runs" '{ w[NR] = $1; m[NR] = $2; c[NR] = $4 }
		function med(a,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
		END { print med(w), med(m), med(c) }'
}

# view_figures NAME CELL DOC CMD...: the medians of `CMD...` (wall time, peak RSS and, when DOC
# is "doc", the size of what it writes: a JSON document) as `bench: NAME_time|_peak_rss|_document
# VALUE UNIT` lines, kept in cell[CELL] (an associative array of the caller) as
# "S s, N MiB[, M MB]" for figures_table.
view_figures() {
	local name=$1 key=$2 doc=$3 s kib mb
	shift 3
	read -r s kib _ < <(median "$@")
	cell[$key]="$s s, $((kib / 1024)) MiB"
	echo "bench: ${name}_time $s s"
	echo "bench: ${name}_peak_rss $((kib / 1024)) MiB"
	if [ "$doc" = doc ]; then
		mb=$("$@" 2>/dev/null | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
		cell[$key]+=", $mb MB"
		echo "bench: ${name}_document $mb MB"
	fi
}

# figures_table "COLUMNS" ROW...: the Markdown table of cell[COLUMN,BUILD,KEY], one ROW
# ("KEY:title") a line and one column per COLUMN, "before → after" where $before (an older
# build's directory) is set, else the after figures alone.
figures_table() {
	local columns=$1 row key c
	shift
	echo
	printf '| |'
	for c in $columns; do printf ' %s |' "$c"; done
	printf '\n|---|'
	for c in $columns; do printf -- '---|'; done
	printf '\n'
	for row in "$@"; do
		key=${row%%:*}
		printf '| %s |' "${row#*:}"
		for c in $columns; do
			if [ -n "$before" ]; then
				printf ' %s → %s |' "${cell[$c,before,$key]}" "${cell[$c,after,$key]}"
			else
				printf ' %s |' "${cell[$c,after,$key]}"
			fi
		done
		printf '\n'
	done
}
