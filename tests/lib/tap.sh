# TAP helpers for shell tests; source it from a tests/**/*.t script.
#   plan N | plan no_plan ; ok COND-STATUS "name" ; is GOT WANT "name" ; like GOT REGEX "name"
#   skip_all "reason" ; diag "text" ; done_testing ; wait_for SECONDS CMD...
# Paths: $B is the build directory (CI_BUILD, default build/), $TOP the repository root,
# $T a scratch directory removed at exit.  Every helper prints one TAP line.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${CI_BUILD:-$TOP/build}
T=$(mktemp -d "${TMPDIR:-/tmp}/ci-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
_tap_n=0
_tap_fail=0
_tap_planned=

plan() {
	if [ "$1" = no_plan ]; then _tap_planned=; else _tap_planned=$1; echo "1..$1"; fi
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { printf '# %s\n' "$@" | sed '2,$s/^/# /' >&2; }
_tap_result() { # status name
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_tap_n - $2"; else echo "not ok $_tap_n - $2"; _tap_fail=$((_tap_fail + 1)); fi
}
# ok: run the rest of the line as a command; pass when it exits 0.
ok() { local name=$1; shift; "$@" >/dev/null 2>&1; _tap_result $? "$name"; }
is() {
	if [ "$1" = "$2" ]; then _tap_result 0 "$3"; else
		_tap_result 1 "$3"; diag "got:  '$1'" "want: '$2'"; fi
}
isnt() { if [ "$1" != "$2" ]; then _tap_result 0 "$3"; else _tap_result 1 "$3"; diag "got unwanted: '$1'"; fi; }
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then _tap_result 0 "$3"; else
		_tap_result 1 "$3"; diag "no match for /$2/ in:" "$(printf '%s' "$1" | head -40)"; fi
}
unlike() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		_tap_result 1 "$3"; diag "unexpected match for /$2/ in:" "$(printf '%s' "$1" | head -40)"
	else _tap_result 0 "$3"; fi
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
done_testing() {
	[ -n "$_tap_planned" ] || echo "1..$_tap_n"
	[ "$_tap_fail" -eq 0 ]
}
# wait_for SECONDS CMD...: run CMD every 50 ms until it succeeds, for at most SECONDS; the
# status is CMD's last.  For a condition that another process makes true (a line in its output,
# a thread's state): it returns as soon as the condition holds, so the limit can be generous (a
# loaded machine may take many seconds to get there) at no cost to a quick one.
wait_for() {
	local limit=$1 start=$SECONDS
	shift
	until "$@" 2>/dev/null; do
		[ $((SECONDS - start)) -lt "$limit" ] || { "$@" 2>/dev/null; return; }
		sleep 0.05
	done
}
# Run a program with core dumps enabled into $T; the core lands as $T/core (or core.PID).
# Echoes the core path, or nothing when no core appeared.
with_core() {
	( cd "$T" && ulimit -c unlimited && "$@" ) >/dev/null 2>&1 || true
	ls -t "$T"/core* 2>/dev/null | head -1
}
