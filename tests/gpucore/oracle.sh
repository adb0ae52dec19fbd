# What cuda-gdb printed for the H200 GPU core ($ORACLE, `cuda-gdb -batch -ex 'target cudacore
# FILE' -ex 'info cuda kernels' -ex bt`), parsed into o_* variables: the tests' independent
# expectations for the reader (fixture.t) and for the CLI (cli.t).  Source it with ORACLE and G
# set.
exc=$(sed -n 's/^CUDA Exception: //p' "$ORACLE")
focus=$(sed -n 's/^\[Current focus set to \(.*\)\]$/\1/p' "$ORACLE")
fpart() { printf '%s\n' "$focus" | tr ',' '\n' | sed -n "s/^ *$1 \\(.*\\)$/\\1/p" | head -1; }
# block and thread hold commas: take them whole
o_block=$(printf '%s' "$focus" | sed -n 's/.*block \(([0-9,]*)\).*/\1/p')
o_thread=$(printf '%s' "$focus" | sed -n 's/.*thread \(([0-9,]*)\).*/\1/p')
o_grid=$(fpart grid) o_device=$(fpart device) o_sm=$(fpart sm) o_warp=$(fpart warp) o_lane=$(fpart lane)
trig=$(grep -m1 '^The exception was triggered at PC' "$ORACLE")
o_errpc=$(printf '%s' "$trig" | awk '{print $7}')
o_kernel=$(printf '%s' "$trig" | awk '{print $8}')
o_errline=$(printf '%s' "$trig" | sed -n 's/.*(\(.*\))$/\1/p')
frame=$(grep -m1 '^#0 ' "$ORACLE")
o_pc=$(printf '%s' "$frame" | awk '{print $2}')
o_griddim=$(printf '%s' "$frame" | sed -n 's/.*<<<\(([0-9,]*)\),.*/\1/p')
o_blockdim=$(printf '%s' "$frame" | sed -n 's/.*,\(([0-9,]*)\)>>>.*/\1/p')
o_path=$(printf '%s' "$frame" | sed -n 's/.* at \(.*\):[0-9]*$/\1/p')
o_line=$(printf '%s' "$frame" | sed -n 's/.*:\([0-9]*\)$/\1/p')
row=$(grep -m1 '^\*.*Active' "$ORACLE")
kcol() { printf '%s\n' "$row" | awk -v n="$1" '{print $n}'; }
o_kdev=$(kcol 4) o_kgrid=$(kcol 5) o_status=$(kcol 6) o_mask=$(kcol 7) o_kgriddim=$(kcol 8) o_kblockdim=$(kcol 9)
o_devname=$(sed -n '1s/.*(\(NVIDIA [^,]*\),.*/\1/p' "$G/README.md")
