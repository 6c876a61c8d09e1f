#!/bin/bash
# The offload tool's CUDA programs on a real GPU, in a directory `prepare.py` wrote: build
# (nvcc -arch=sm_90 unless ARCH says otherwise), compare with the sequential program on each
# test input, compute-sanitizer (memcheck, racecheck, synccheck) on the first, and wall times of
# both on the timing input, interleaved (3 pairs; the GPU's include starting CUDA). Needs only
# bash, gcc, nvcc, compute-sanitizer and python3: GPU hosts often have nothing else.
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nvcc --version | tail -1
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "sanitizer: $SAN"
while IFS='|' read -r name tests timing; do
  gcc -O2 -o seq_$name $name.c -lm 2>$OUT/$name.gcc.txt || { echo "$name: gcc failed"; continue; }
  if ! nvcc -O2 -arch=${ARCH:-sm_90} -o gpu_$name $name.cu 2>$OUT/$name.nvcc.txt; then
    echo "$name: BUILD FAILED"; tail -5 $OUT/$name.nvcc.txt; continue; fi
  ok=1; IFS=';' read -ra cases <<< "$tests"; [ ${#cases[@]} -eq 0 ] && cases=("")
  for args in "${cases[@]}"; do
    timeout 60 ./seq_$name $args > want.txt 2>/dev/null
    timeout 60 ./gpu_$name $args > got.txt 2>$OUT/$name.err.txt; rc=$?
    if [ $rc -ne 0 ]; then echo "$name [$args]: exit $rc"; tail -3 $OUT/$name.err.txt; ok=0;
    elif ! python3 same.py want.txt got.txt; then echo "$name [$args]: WRONG"; ok=0; fi
  done
  first=${cases[0]}
  for tool in memcheck racecheck synccheck; do
    timeout 120 $SAN --tool $tool --error-exitcode 9 ./gpu_$name $first > /dev/null 2>$OUT/$name.$tool.txt
    rc=$?; [ $rc -ne 0 ] && { echo "$name: $tool exit $rc"; grep -m3 -E "ERROR|Error|error" $OUT/$name.$tool.txt; ok=0; }
  done
  line="$name: correct=$ok"
  if [ -n "$timing" ]; then
    ts=(); tg=()
    for k in 1 2 3; do
      a=$(date +%s%N); timeout 30 ./seq_$name $timing > /dev/null 2>&1; b=$(date +%s%N)
      timeout 30 ./gpu_$name $timing > /dev/null 2>&1; c=$(date +%s%N)
      ts+=($(( (b - a) / 1000000 ))); tg+=($(( (c - b) / 1000000 )))
    done
    line="$line seq_ms=[${ts[*]}] gpu_ms=[${tg[*]}]"
  fi
  echo "$line"
done < cases.txt
