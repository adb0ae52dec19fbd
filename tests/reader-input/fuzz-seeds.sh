#!/usr/bin/env bash
# Build the seed corpus for a reader fuzz harness from real and synthetic inputs:
#   fuzz-seeds.sh FIXTURE_DIR CORPUS_DIR HARNESS   (HARNESS: fuzz_record or fuzz_core)
# fuzz_record gets synthetic records (intact, wrapped, torn, damaged, newer minor, cut, with
# kernel-log lines);
# fuzz_core gets synthetic cores (kernel-like, gdb-like, aarch64, split, no NT_FILE, file
# mappings with ELF headers), real kernel cores of the crasher fixture (dump filter 0x2 keeps
# it small; 0x12 adds the ELF headers of its files), a zstd copy and a record.
set -eu
D=$(cd "$1" && pwd) C=$2 H=$3
mkdir -p "$C"
W=$(mktemp -d "${TMPDIR:-/tmp}/ci-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT
small="--launches=6 --launch-cap=8 --allocs=3 --alloc-cap=8 --frees=2 --free-cap=4 --events=3"
case $H in
fuzz_record)
	i=0
	for opts in "" "--launches=40 --launch-cap=16" "--torn=2" "--minor=3 --entry-pad=8" \
	            "--damage=refs" "--damage=stack" "--damage=seq" "--damage=dup" "--damage=overlap" \
	            "--damage=unknown-section" "--major=2" "--launches=0 --allocs=0 --frees=0 --errors=0 --events=0"; do
		"$D/mkrecord" $small $opts "$C/record-$i"; i=$((i + 1))
	done
	"$D/mkrecord" $small --truncate=3000 "$C/record-cut"
	# Format 1.1's kernel-log section: the Xid 31 of the synthetic process past allocation #3,
	# an Xid 13 burst line, another process's line.
	cat > "$W/kern.log" <<'LOG'
[    0.000020] NVRM: Xid (PCI:0000:01:00): 31, pid=4242, name=synth-main, channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_1 faulted @ 0x7f00_00203000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
4,812,21,-;NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address
[    0.000030] NVRM: Xid (PCI:0000:01:00): 31, pid=77, name=other, channel 0x00000002, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_CE0 faulted @ 0x0_00001000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
LOG
	"$D/mkrecord" $small --kernel-log="$W/kern.log" "$C/record-kernel-log"
	# Real records with graph tables (1 MiB): graphengine's fault inside a replay (captured,
	# and built with a child graph and with a conditional node), from the recorder on the
	# simulated driver, when they are built.
	B=$(cd "$D/../.." && pwd)
	if [ -x "$B/graphengine" ] && [ -e "$B/libcudainspect-rec.so" ] && [ -e "$B/sim/libcuda.so.1" ]; then
		for v in "graphs:" "graphs-child:--mode explicit --child-graph" "graphs-cond:--mode explicit --conditional"; do
			mkdir -p "$W/${v%%:*}"
			# shellcheck disable=SC2086 # the engine's flags, split on purpose
			( ( cd "$W/${v%%:*}" && CUDAINSPECT_QUIET=1 CUDAINSPECT_SIZE=1M CUDASIM_KERNEL_US=100 \
				LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$B/libcudainspect-rec.so" \
				exec "$B/graphengine" ${v#*:} --steps 4 --fault-step 3 ) >/dev/null 2>&1 || true ) 2>/dev/null
			snap=$(ls "$W/${v%%:*}"/*-error.cisnap 2>/dev/null | head -1)
			[ -n "$snap" ] && cp "$snap" "$C/record-${v%%:*}"
		done
	fi
	;;
fuzz_core)
	i=0
	for opts in "" "--gdb" "--split --reverse" "--no-file-note" "--machine=aarch64 --note-align=8" \
	            "--damage=refs --torn=1" "--overlap" "--threads=1" "--map=/usr/lib/libx.so --maps=3" \
	            "--machine=aarch64 --maps=2"; do
		"$D/mkcore" $small $opts "$C/core-$i"; i=$((i + 1))
	done
	if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
		( ( cd "$W" && ulimit -c unlimited && exec "$D/crasher" --threads=1 --filter=0x2 $small ) >/dev/null 2>&1 || true ) 2>/dev/null
		core=$(ls "$W"/core* 2>/dev/null | head -1)
		if [ -n "$core" ]; then
			cp "$core" "$C/kernel-core"
			command -v zstd >/dev/null && zstd -q -f -o "$C/kernel-core.zst" "$core"
			rm -f "$core"
		fi
		# The same with the ELF headers of its files and the vDSO (bit 4), for the modules.
		( ( cd "$W" && ulimit -c unlimited && exec "$D/crasher" --threads=1 --filter=0x12 $small ) >/dev/null 2>&1 || true ) 2>/dev/null
		core=$(ls "$W"/core* 2>/dev/null | head -1)
		[ -n "$core" ] && cp "$core" "$C/kernel-core-headers"
	fi
	"$D/mkrecord" $small "$C/record"
	;;
*) echo "fuzz-seeds.sh: unknown harness $H" >&2; exit 2 ;;
esac
