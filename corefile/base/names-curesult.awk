# Generate the CUresult table for corefile/names.c from cuda.h (run by corefile/build.mk):
# one CI_CURESULT(value, "NAME", "description", sticky) line per enumerator of CUresult.
# The description is the first sentence of the enumerator's doc comment; `sticky` is 1 when the
# comment says the error leaves the process in an inconsistent state (or the context unusable),
# which is cuda.h's own wording for errors that poison the context.
BEGIN { n = 0 }
/typedef enum cudaError_enum/ { inenum = 1; doc = ""; next }
inenum && /}[ \t]*CUresult;/ { inenum = 0 }
!inenum { next }
/\/\*\*/ { doc = ""; next }
/^[ \t]*\*\// { next }
/^[ \t]*\*/ {
	line = $0
	sub(/^[ \t]*\*[ \t]?/, "", line)
	if (line ~ /^\\deprecated/) next
	doc = doc " " line
	next
}
/^[ \t]*CUDA_[A-Z0-9_]+[ \t]*=[ \t]*[0-9]+/ {
	name = $0; sub(/^[ \t]*/, "", name); sub(/[ \t=].*/, "", name)
	value = $0; sub(/^[^=]*=[ \t]*/, "", value); sub(/[^0-9].*/, "", value)
	text = doc
	gsub(/[ \t]+/, " ", text); sub(/^ /, "", text); sub(/ $/, "", text)
	gsub(/::/, "", text)
	sticky = (text ~ /inconsistent state/ || text ~ /cannot be used anymore/) ? 1 : 0
	# First sentence: up to the first period followed by a space or the end.
	if (match(text, /\.( |$)/)) text = substr(text, 1, RSTART - 1)
	sub(/^This indicates that /, "", text)
	sub(/^This error indicates that /, "", text)
	if (substr(text, 1, 1) ~ /[A-Z]/ && substr(text, 2, 1) !~ /[A-Z]/) text = tolower(substr(text, 1, 1)) substr(text, 2)
	gsub(/\\/, "\\\\", text); gsub(/"/, "\\\"", text)
	printf "CI_CURESULT(%s, \"%s\", \"%s\", %d)\n", value, name, text, sticky
	n++
	doc = ""
}
END {
	if (n < 50) {
		print "names-curesult.awk: found only " n " CUresult values in cuda.h" > "/dev/stderr"
		exit 1
	}
}
