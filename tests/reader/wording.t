#!/usr/bin/env bash
# The diagnosis's words, one finding kind at a time (corefile/diagnose/wording.c), and the list
# of finding ids in docs/READER-INTERNALS.md against the table in corefile/diagnose/diagnose.h.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
run_c_test "$B/tests/reader/wording_test"
ids=$(sed -n 's/^[[:space:]]*X(CI_F_[A-Z_]*, "\([a-z_]*\)".*/\1/p' "$TOP/corefile/diagnose/diagnose.h")
ok "the finding table has rows" test -n "$ids"
for id in $ids; do
	grep -q "\`$id\`" "$TOP/docs/READER-INTERNALS.md" || missing="${missing:-} $id"
done
is "${missing:-}" "" "docs/READER-INTERNALS.md lists every finding id"
done_testing
