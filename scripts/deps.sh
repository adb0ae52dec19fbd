#!/usr/bin/env bash
# Install (or, with --check, only verify) what cudainspect needs on Debian 12.
# Everything comes from Debian's archive through apt-get; the CUDA toolkit is expected at
# $CUDA_HOME (default /usr/local/cuda) and is not installed here.
set -euo pipefail

packages=(
	gcc make perl            # build, prove
	libelf-dev libdw-dev elfutils   # reader: libelf/libdwfl, eu-stack for benchmarks
	libzstd-dev zstd         # reader: systemd-coredump .zst cores
	gdb                      # plugin and tests
	clang libclang-rt-14-dev # libFuzzer harnesses, sanitizer runtimes
	binutils file procps
	jq                       # reader tests: check the JSON documents
	python3 python3-venv     # tests/python: the Python engine, pystack's virtual environment
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

cuda_home=${CUDA_HOME:-/usr/local/cuda}

if [ "${1:-}" = "--check" ]; then
	if [ ${#missing[@]} -gt 0 ]; then
		echo "cudainspect: missing Debian packages: ${missing[*]}; run 'make deps' first" >&2
		exit 1
	fi
	if [ ! -f "$cuda_home/include/cuda.h" ]; then
		echo "cudainspect: no CUDA toolkit at $cuda_home (cuda.h not found); set CUDA_HOME" >&2
		exit 1
	fi
	exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	# Try without a refresh first: it works offline when the lists are current.
	if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/cudainspect-apt.log 2>&1; then
		$sudo apt-get update >>/tmp/cudainspect-apt.log 2>&1 || true
		if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/cudainspect-apt.log 2>&1; then
			tail -20 /tmp/cudainspect-apt.log >&2
			echo "deps: apt-get install failed (log: /tmp/cudainspect-apt.log)" >&2
			exit 1
		fi
	fi
fi
if [ ! -f "$cuda_home/include/cuda.h" ]; then
	echo "deps: no CUDA toolkit at $cuda_home (cuda.h not found); install it or set CUDA_HOME" >&2
	exit 1
fi
# tests/python compares the reader's Python stacks with Bloomberg's pystack and runs clients of
# NVIDIA's cuda-bindings and of numba-cuda (all from PyPI, pinned with what numba-cuda pulls in)
# in a virtual environment under the build directory.  Without PyPI those tests are skipped
# (each says why); nothing else needs them.
py_pins=("pystack==1.7.2" "cuda-bindings==13.5.0" "numba-cuda==0.30.4" "numba==0.68.1" "llvmlite==0.50.0"
	 "numpy==2.4.6" "cuda-core==1.2.2")
venv=${BUILD:-build}/pyvenv
have_pins() {
	local frozen p
	frozen=$("$venv/bin/python" -m pip freeze 2>/dev/null) || return 1
	for p in "${py_pins[@]}"; do
		grep -qx "$p" <<<"$frozen" || return 1
	done
}
if [ -x "$venv/bin/python" ] && have_pins; then
	:
elif python3 -m venv "$venv" >/tmp/cudainspect-venv.log 2>&1 &&
     timeout 600 "$venv/bin/pip" install --disable-pip-version-check -q "${py_pins[@]}" >>/tmp/cudainspect-venv.log 2>&1; then
	echo "deps: ${py_pins[*]} in $venv"
else
	echo "deps: ${py_pins[*]} not installed into $venv (PyPI unreachable, or no python3-venv; log: /tmp/cudainspect-venv.log): tests/python/pystack.t, bindings.t and numba.t will be skipped" >&2
fi
echo "deps: ok"
