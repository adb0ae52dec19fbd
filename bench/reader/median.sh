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
