# docs/ENVIRONMENT.md to scdoc(5) source for libcudainspect-rec(7): the markdown headings
# become sections, each table row a variable with its values, default and text, `code` bold.
# Only what ENVIRONMENT.md uses is converted: headings, paragraphs, pipe tables, `code`, **bold**.
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\*/, "\\*", s); gsub(/_/, "\\_", s); return s }
# Inline markdown to scdoc: escape, then `code` and **bold** to *bold*.
function inline(s,    out, i, c, inside) {
	s = esc(s)
	gsub(/\\\*\\\*/, "\001", s)       # **bold** markers (escaped above)
	out = ""; inside = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "`" || c == "\001") { out = out "*"; continue }
		out = out c
	}
	return out
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
BEGIN {
	print "libcudainspect-rec(7)"
	print ""
	print "# NAME"
	print ""
	print "libcudainspect-rec - the cudainspect flight recorder and its CUDAINSPECT\\_\\* environment variables"
	print ""
	print "# SYNOPSIS"
	print ""
	print "*LD\\_PRELOAD*=libcudainspect-rec.so _program_ [_args_...]"
	print ""
	print "*cudainspect record* -- _program_ [_args_...]"
	print ""
	print "# DESCRIPTION"
	print ""
	print "The recorder sees every CUDA driver call of the program it is preloaded into and keeps a"
	print "fixed-size flight record in the process's memory, which lands in its core dump and in"
	print "snapshot files; *cudainspect*(1) reads it. It is configured by the variables below."
	print ""
}
NR == 1 && /^# / { next }
/^## / {
	h = substr($0, 4)
	gsub(/`/, "", h)
	print "# " toupper(esc(h))
	print ""
	next
}
/^\|/ {
	n = split($0, f, "|")
	# f[1] and f[n] are empty: cells are f[2..n-1]
	if (f[2] ~ /^ *-+ *$/ || trim(f[2]) == "variable") next
	name = trim(f[2])
	if (n - 2 >= 4) {
		values = trim(f[3]); def = trim(f[4]); text = trim(f[5])
		print inline(name)
		print "\tValues: " inline(values) ". Default: " inline(def) "."
		print ""
		print "\t" inline(text)
	} else {
		print inline(name)
		print "\t" inline(trim(f[3]))
	}
	print ""
	next
}
/^$/ { if (para) print ""; para = 0; next }
{ print inline($0); para = 1 }
END {
	print ""
	print "# SEE ALSO"
	print ""
	print "*cudainspect*(1), *cudainspect-record*(1). In the source tree: docs/ENVIRONMENT.md"
	print "(this page's source), docs/RECORDER.md, docs/FORMAT.md."
}
