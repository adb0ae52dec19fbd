#!/usr/bin/env bash
# The CUDA libraries a core maps, and the driver's version from libcuda's file name, when the
# driver is not the last of them (corefile/report/hostside.c find_libs): mkcore's core of a
# process without a record that maps libcuda.so.580.65.06 and then five more CUDA libraries, so
# that the list grows (and moves) after the driver's entry.  The driver's version once pointed
# into that list; the fuzzer found the read after it moved (heap-use-after-free in the ASan
# build, make check-asan; the plain build usually still found the bytes there).
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
MK=$B/tests/reader-input/mkcore
[ -x "$CI" ] && [ -x "$MK" ] || skip_all "$CI or $MK is not built (make check builds them)"

libs="/opt/drv/libcuda.so.580.65.06 /opt/cuda/libcudart.so.13 /opt/cuda/libcublas.so.13
/opt/cuda/libcublasLt.so.13 /opt/cuda/libnvrtc.so.13 /opt/cuda/libcufft.so.12"
# shellcheck disable=SC2046 # one --map= per library
"$MK" --no-record $(for l in $libs; do printf -- '--map=%s ' "$l"; done) "$T/core" >/dev/null 2>&1
is "$?" 0 "mkcore made a core mapping six CUDA libraries, the driver first"

"$CI" "$T/core" >"$T/out" 2>"$T/err"
is "$?" 4 "no flight record: exit 4"
like "$(cat "$T/out")" "CUDA libraries loaded:
  libcuda\.so\.580\.65\.06 \(CUDA driver 580\.65\.06\)
  libcudart\.so\.13 \(CUDA runtime 13\)
  libcublas\.so\.13 \(cuBLAS 13\)
  libcublasLt\.so\.13 \(cuBLASLt 13\)
  libnvrtc\.so\.13 \(NVRTC 13\)
  libcufft\.so\.12 \(cuFFT 12\)
Driver version: 580\.65\.06 \(from libcuda's file name\)" "all six listed in the order mapped; the driver's version"
unlike "$(cat "$T/err")" "AddressSanitizer|runtime error" "no sanitizer report"

"$CI" --json "$T/core" >"$T/json" 2>/dev/null
is "$(jq -r '.host_side.driver_version, (.host_side.cuda_libraries | length)' "$T/json" | tr '\n' ' ')" \
	"580.65.06 6 " "--json: the driver's version and the six libraries"
done_testing
