#!/usr/bin/env bash
# miniengine on the simulated driver: clean runs through every door (exported symbols, _ptsz
# symbols, cudart-style bootstrap with and without the per-thread flag), the launch count the
# decode loop implies, which entry points the launches reach, and usage errors.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines miniengine
[ -e "$SPY" ] || skip_all "$SPY is not built (make check builds it)"

# Launches per stream per step: embedding, 9 per layer, final norm + LM head + sampling.
launches() { echo $(($1 * $2 * $3 * (1 + 9 * $4 + 3))); } # threads streams steps layers

for mode in direct direct-ptsz bootstrap bootstrap-ptsz; do
	args=()
	case $mode in *ptsz) args+=(--ptsz) ;; esac
	case $mode in bootstrap*) args+=(--bootstrap) ;; esac
	run_in "$T/$mode" "$B/miniengine" "${args[@]}" --threads 3 --streams 2 --steps 5 --layers 3
	is "$rc" 0 "$mode: exits 0"
	like "$(cat "$T/$mode/out")" \
		"^miniengine: done: 3 threads x 2 streams, 5 steps, 3 layers, $(launches 3 2 5 3) launches, door $mode, token checksum [0-9a-f]{16}$" \
		"$mode: summary with the launch count of the decode loop"
	is "$(cat "$T/$mode/err")" "" "$mode: nothing on stderr"
done

# --hold: each step waits on a flag until it is queued; the same work and the same tokens.
run_in "$T/hold" "$B/miniengine" --hold --threads 3 --streams 2 --steps 5 --layers 3
is "$rc $(cat "$T/hold/out")" "0 $(cat "$T/direct/out")" "--hold: the same launches and token checksum"

# Which exported entry point the launches reach (door a only; launchspy sits there).
n=$(launches 2 2 8 2)
spy "$T/legacy.log" "$B/miniengine" --quiet 2>"$T/legacy.err"
like "$(cat "$T/legacy.err")" "launchspy: .* legacy=$n ptsz=0$" "direct: every launch through cuLaunchKernel"
spy "$T/ptsz.log" "$B/miniengine" --quiet --ptsz 2>"$T/ptsz.err"
like "$(cat "$T/ptsz.err")" "launchspy: .* legacy=0 ptsz=$n$" "--ptsz: every launch through cuLaunchKernel_ptsz"
like "$(grep -c '^launch .* (nil) ' "$T/ptsz.log")" "^[1-9]" "--ptsz: some launches on the per-thread default stream (NULL)"

# The bootstrap asks cuGetProcAddress and gets the variants cuda.h 13.0 documents.
out=$("$B/miniengine" --bootstrap --verbose 2>&1)
like "$out" "bootstrap: cuGetProcAddress -> cuGetProcAddress_v2" "bootstrap: cuGetProcAddress looked up through itself"
like "$out" "bootstrap: cuLaunchKernel -> cuLaunchKernel$" "bootstrap: legacy cuLaunchKernel"
like "$out" "bootstrap: cuMemAlloc -> cuMemAlloc_v2" "bootstrap: cuMemAlloc is cuMemAlloc_v2"
like "$out" "bootstrap: cuCtxSynchronize -> cuCtxSynchronize_v2" "bootstrap: version 13000 gets the CUDA 13 cuCtxSynchronize ABI"
out=$("$B/miniengine" --bootstrap --ptsz --verbose 2>&1)
like "$out" "bootstrap: cuLaunchKernel -> cuLaunchKernel_ptsz" "bootstrap --ptsz: cuLaunchKernel_ptsz"
like "$out" "bootstrap: cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds" "bootstrap --ptsz: cuMemcpyHtoD_v2_ptds"
like "$out" "bootstrap: cuMemAlloc -> cuMemAlloc_v2$" "bootstrap --ptsz: no twin for cuMemAlloc"

out=$("$B/miniengine" --quiet 2>&1)
is "$out" "" "--quiet: silent run"

# Usage errors: exit 2 with a message naming the problem.
usage_error() { # regex args...
	local re=$1 out
	shift
	out=$("$B/miniengine" "$@" 2>&1)
	is "$?" 2 "usage error exits 2: $*"
	like "$out" "$re" "usage error says why: $*"
}
usage_error "--threads wants a number from 1 to 64" --threads 0
usage_error "unknown fault kind 'nope'" --fault nope
usage_error "exclude each other" --hang --fault oob
usage_error "multistream needs --streams 2" --fault multistream --streams 1
usage_error "crossthread needs --threads 2" --fault crossthread --threads 1
usage_error "unexpected argument 'extra'" extra

help=$("$B/miniengine" --help)
is "$?" 0 "--help exits 0"
missing=
for o in --threads --streams --steps --layers --fault --hang --hold --bootstrap --ptsz --quiet --seed \
	--verbose oob uaf multistream crossthread badlaunch; do
	grep -q -- "$o" <<<"$help" || missing="$missing $o"
done
is "$missing" "" "--help documents every option and fault kind"
done_testing
