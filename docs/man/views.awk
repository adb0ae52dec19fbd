# `cudainspect --list-views` (one block per view: "view NAME", "summary TEXT" lines, ...) to a
# help2man include section listing every view with its summary.
BEGIN { print "[VIEWS]"; print "The optional VIEW argument selects what is printed:" }
$1 == "view" { name = $2; next }
$1 == "summary" && name != "" {
	if (!(name in seen)) { print ".TP"; print "\\fB" name "\\fR"; seen[name] = 1 }
	sub(/^summary /, ""); print
}
