#!/usr/bin/env bash
# The GPU checks and benchmarks, in two halves, for any set of suites:
#
#   bash scripts/gpu.sh bundle [SUITE...]      here (cargo, NVRTC; no GPU): builds into .carry/gpu/
#   bash .carry/gpu/gpu.sh run [SUITE...]      on the GPU machine (no Rust toolchain, no network), from the root of
#                                              a checkout of the same commit (the device call carries .carry/gpu)
#
# Suites (default: all):
#   runtime   the runtime's GPU tests, memcheck over the device-launch tests, the launch overhead against raw cudarc
#   examples  the examples' GPU tests, every example under memcheck, racecheck and synccheck, the examples at full
#             size, the kernel benchmark and CuPy's (CUB, cuBLAS) beside it
#   codegen   every tests/codegen kernel on the GPU against a Python reference
#   ode       the ODE GPU tests, the Lorenz example, the sweep 2^10..2^23, the FSAL vote, ncu, SASS, diffrax, CuBIE
#   metrics   the summary-metric GPU tests, the Lorenz overhead of all 18 metrics, ncu, Van der Pol against CuBIE
#   weno      every WENO variant against the CPU reference, the benchmark, the 1-D advection study
#   sched     the scheduler's smoke run, GPU tests, benchmark, memcheck and racecheck
#   queue     the device queue alone: conservation tests and the sweep against the Broker Queue
#   multigpu  every GPU of the machine (count from nvidia-smi): device sets and NCCL, the ODE ensemble and the
#             WENO slabs against one GPU (bit for bit), ODE and WENO strong and weak scaling; NVLink multicast
#             off (NCCL_NVLS_ENABLE=0); NCCL from SKC_NCCL_PATH or the nvidia.nccl Python package
#
# The test executables and binaries read .sk files at the paths they were built from: `run` links that folder
# (recorded in the bundle) to the checkout when it does not exist. Options of `run` (environment): OUT (logs,
# default /tmp/gpu-out), QUICK=1 (smaller benchmark sizes), IDS (the scheduler's stress test size, default 1e8).
# `bundle` needs SKC_NVRTC_PATH for the suites that compile CUBINs here (codegen, ode, weno), and takes the CuBIE
# wheels of docs/ode.md from .carry/whl/ when there. Every step's log is in $OUT; the summary in $OUT/summary.txt.
set -uo pipefail
ALL_SUITES="runtime examples codegen ode metrics weno sched queue multigpu"

# ---- bundle (here) ---------------------------------------------------------------------------------------------

# The GPU test targets of each suite, as PACKAGE:TARGET.
tests_of() {
  case "$1" in
  runtime) echo "skc-runtime:gpu skc-runtime:gpu_sched" ;;
  examples) echo "skc-examples:gpu_examples skc-examples:wrappers" ;;
  ode) echo "skc-ode:gpu" ;;
  metrics) echo "skc-ode:gpu_summaries" ;;
  weno) echo "skc-weno-gpu:gpu" ;;
  sched) echo "skc-sched:gpu" ;;
  queue) echo "skc-bench:queue_gpu" ;;
  multigpu) echo "skc-runtime:multigpu skc-ode:multigpu skc-weno-gpu:multigpu" ;;
  esac
}

# Release binaries of each suite, as KIND:PACKAGE:NAME (KIND bin, example or bench).
bins_of() {
  case "$1" in
  runtime) echo "bench:skc-runtime:launch_overhead" ;;
  examples)
    for e in vector_add reduce warp_reduce scan histogram transpose matmul softmax stencil spmv half_precision; do echo "example:skc-examples:$e"; done
    echo "bin:skc-bench:kernels-bench"
    ;;
  ode) echo "example:skc-ode:lorenz bin:skc-bench:ode-bench bin:skc-bench:ode-dump" ;;
  metrics) echo "bin:skc-bench:metrics-bench" ;;
  weno) echo "bin:skc-weno-gpu:weno-cubins bin:skc-weno-gpu:weno-gpu-check bin:skc-weno-gpu:weno-advect1d bin:skc-bench:weno-bench" ;;
  sched) echo "bin:skc-bench:sched-bench" ;;
  queue) echo "bin:skc-bench:queue-bench" ;;
  multigpu) echo "bin:skc-bench:multigpu-bench" ;;
  esac
}

bundle() {
  set -e
  local root dest suites packages features json
  root="$(cd "$(dirname "$0")/.." && pwd)"
  cd "$root"
  dest="${DEST:-$root/.carry/gpu}"
  suites="${*:-$ALL_SUITES}"
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
  rm -rf "$dest"
  mkdir -p "$dest/bin"
  json="$(mktemp)"
  trap 'rm -f "$json"' RETURN
  # The GPU test executables, named PACKAGE_TARGET (several packages have a target `gpu`). Every cargo command
  # below takes the same features, so that each library is compiled once.
  local wanted="" builds=() benches=()
  packages=()
  features=""
  for suite in $suites; do
    for t in $(tests_of "$suite"); do
      wanted="$wanted $t"
      packages+=(-p "${t%%:*}")
      features="$features,${t%%:*}/gpu-tests"
    done
    for b in $(bins_of "$suite"); do
      local kind="${b%%:*}" rest="${b#*:}"
      case "$kind" in
      bin) builds+=(-p "${rest%%:*}" --bin "${rest#*:}") ;;
      example) builds+=(-p "${rest%%:*}" --example "${rest#*:}") ;;
      bench) benches+=(-p "${rest%%:*}" --bench "${rest#*:}") ;;
      esac
    done
  done
  local feature_args=()
  [ -n "$features" ] && feature_args=(--features "${features#,}")
  if [ -n "$wanted" ]; then
    cargo test --release --locked --no-run "${packages[@]}" "${feature_args[@]}" --message-format=json >"$json"
    python3 - "$json" "$dest/bin" "$wanted" <<'PY'
import json, shutil, sys
wanted = {tuple(t.split(":")) for t in sys.argv[3].split()}
found = set()
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable") or not msg["profile"]["test"]:
        continue
    package = msg["package_id"].split("#")[-1].split("@")[0]
    if "/" in package:
        package = package.rstrip("/").split("/")[-1]
    key = (package, msg["target"]["name"])
    if key in wanted:
        shutil.copy(msg["executable"], f"{sys.argv[2]}/{package.replace('-', '_')}_{key[1]}")
        found.add(key)
missing = wanted - found
if missing:
    sys.exit(f"test executables not built: {sorted(missing)}")
PY
  fi
  # The binaries, examples and bench targets, by name.
  local artifacts=()
  if [ ${#builds[@]} -gt 0 ]; then
    # The test packages are selected too: the features name them.
    cargo build --release --locked "${packages[@]}" "${builds[@]}" "${feature_args[@]}" --message-format=json >"$json"
    artifacts+=("$json")
  fi
  if [ ${#benches[@]} -gt 0 ]; then
    cargo bench --locked --no-run "${packages[@]}" "${benches[@]}" "${feature_args[@]}" --message-format=json >"$json.bench"
    artifacts+=("$json.bench")
  fi
  if [ ${#artifacts[@]} -gt 0 ]; then
    python3 - "$dest/bin" "${artifacts[@]}" <<'PY'
import json, shutil, sys
for path in sys.argv[2:]:
    for line in open(path):
        msg = json.loads(line)
        kinds = msg.get("target", {}).get("kind", [])
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and not msg["profile"]["test"] or \
                msg.get("reason") == "compiler-artifact" and msg.get("executable") and "bench" in kinds:
            shutil.copy(msg["executable"], f"{sys.argv[1]}/{msg['target']['name']}")
PY
    rm -f "$json.bench"
  fi
  strip --strip-debug "$dest"/bin/* 2>/dev/null || true
  # What the suites compute here, with NVRTC.
  for suite in $suites; do
    case "$suite" in
    codegen)
      mkdir -p "$dest/codegen/cu"
      cargo run --release --locked -q -p skc-core --example emit_cuda -- --out "$dest/codegen/cu" tests/codegen/*.sk
      python3 scripts/nvrtc_check.py --cubin-dir "$dest/codegen" "$dest/codegen/cu" >/dev/null
      ;;
    ode) "$dest/bin/ode-dump" "$dest/ode-cubin" >/dev/null ;;
    weno)
      # Every variant's CUBIN (with its registers and spills in manifest.tsv), two shards side by side.
      for shard in 0 1; do "$dest/bin/weno-cubins" --shard "$shard/2" "$dest/weno-$shard" >/dev/null & done
      wait
      mkdir -p "$dest/weno-cubins"
      cp "$dest"/weno-0/*.cubin "$dest"/weno-1/*.cubin "$dest/weno-cubins/"
      cat "$dest/weno-0/manifest.tsv" "$dest/weno-1/manifest.tsv" >"$dest/weno-cubins/manifest.tsv"
      rm -rf "$dest/weno-0" "$dest/weno-1" "$dest/bin/weno-cubins"
      ;;
    esac
  done
  if [ -d "$root/.carry/whl" ]; then cp -r "$root/.carry/whl" "$dest/whl"; fi
  cp scripts/gpu.sh "$dest/"
  echo "$suites" >"$dest/suites"
  echo "$root" >"$dest/build_root"
  du -sh "$dest"
}

# ---- run (on the GPU machine) ----------------------------------------------------------------------------------

# step NAME LIMIT COMMAND...: runs COMMAND under a time limit with its output in $OUT/NAME.log; prints and
# records the verdict, its time, and the log's last lines (passing tests left out).
step() {
  local name="$1" limit="$2"
  shift 2
  local started=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || FAILED=1
  printf '%-36s rc=%-3s %5ss\n' "$name" "$rc" $((SECONDS - started)) | tee -a "$OUT/summary.txt"
  grep -v '^\s*$' "$OUT/$name.log" | grep -v '^test .* ok$' | tail -n "${TAIL:-15}"
}

run_runtime() {
  step runtime-tests 300 "$B/skc_runtime_gpu" --test-threads=1
  # Device-side launch (linked with libcudadevrt), ordered atomics, a named barrier; memcheck over them too
  # (synccheck is left out: it reports the named barriers of warp-specialised kernels as false positives).
  step runtime-sched-tests 300 "$B/skc_runtime_gpu_sched" --test-threads=1
  step runtime-sched-memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 99 "$B/skc_runtime_gpu_sched" --test-threads=1
  step runtime-launch-overhead 300 "$B/launch_overhead"
}

run_examples() {
  step examples-tests 300 "$B/skc_examples_gpu_examples" --test-threads=1
  step examples-wrappers 300 "$B/skc_examples_wrappers" --test-threads=1
  # Small sizes that are not multiples of the block: the sanitizers slow kernels down a lot.
  local sizes=("vector_add 100003" "reduce 100003" "warp_reduce 1000003" "scan 100003" "histogram 1000003"
    "transpose 1000 777" "matmul 256" "softmax 1000 128" "stencil 1000 777" "spmv 100003 256" "half_precision 100003")
  for tool in memcheck racecheck synccheck; do
    for example in "${sizes[@]}"; do
      # shellcheck disable=SC2086
      step "examples-$tool-${example%% *}" 240 compute-sanitizer --tool "$tool" --error-exitcode 99 "$B/"$example
    done
  done
  for example in vector_add reduce warp_reduce scan histogram transpose matmul softmax stencil spmv half_precision; do
    step "examples-$example" 240 "$B/$example"
  done
  step examples-bench 300 "$B/kernels-bench"
  step examples-bench-cupy 300 python3 "$ROOT/bench/peers/cupy_kernels.py"
}

run_codegen() {
  step codegen 300 python3 "$ROOT/scripts/gpu_check.py" "$BUNDLE/codegen"
}

# The peers of the ODE and metrics suites come from the bundle's wheels (CuBIE 0.14.2 on numba-cuda).
install_cubie() {
  [ -d "$BUNDLE/whl" ] || { echo "no wheels in the bundle: CuBIE skipped"; return 1; }
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$BUNDLE"/whl/*.whl >"$OUT/pip.log" 2>&1 || { tail -n 3 "$OUT/pip.log"; return 1; }
  export CUBIE_CUDA_BACKEND=numba-cuda PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
}

run_ode() {
  local results="$OUT/ode-results.jsonl" sizes=""
  # ode-bench writes its float64 references there for the peers.
  export REF_DIR=/tmp/ode-ref
  mkdir -p "$REF_DIR"
  for f in "$BUNDLE"/ode-cubin/*.cubin; do cuobjdump -sass "$f" >"$OUT/$(basename "$f" .cubin).sass" 2>&1; done
  step ode-tests 150 "$B/skc_ode_gpu" --nocapture
  if [ -n "${QUICK:-}" ]; then
    step ode-sweep 60 "$B/ode-bench" sweep 1048576 8388608
    install_cubie && step ode-cubie 120 env CUBIE_CONFIGS=tsit5-adaptive,dp5-adaptive \
      python3 "$ROOT/bench/peers/cubie_lorenz.py" 1048576 8388608
    cat "$OUT/ode-sweep.log" "$OUT/ode-cubie.log" 2>/dev/null | grep '^{' >>"$results"
    return
  fi
  step ode-lorenz 60 "$B/lorenz" 1048576
  for k in $(seq 10 23); do sizes="$sizes $((1 << k))"; done
  # shellcheck disable=SC2086
  step ode-sweep 150 "$B/ode-bench" sweep $sizes
  step ode-fsal 60 "$B/ode-bench" fsal 1048576
  cat "$OUT/ode-sweep.log" "$OUT/ode-fsal.log" | grep '^{' >>"$results"
  local ncu metrics
  ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)"
  metrics="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_xu.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active"
  for mode in lorenz-once adaptive-once fsal-once; do
    step "ode-ncu-$mode" 90 "$ncu" --clock-control none --kernel-name ode_solve --metrics "$metrics" "$B/ode-bench" "$mode" 1048576
  done
  step ode-diffrax 200 python3 "$ROOT/bench/peers/diffrax_lorenz.py" 1024 65536 1048576 8388608
  install_cubie && step ode-cubie 200 python3 "$ROOT/bench/peers/cubie_lorenz.py" 1024 65536 1048576 8388608
  cat "$OUT/ode-diffrax.log" "$OUT/ode-cubie.log" 2>/dev/null | grep '^{' >>"$results"
}

run_metrics() {
  local results="$OUT/metrics-results.jsonl"
  step metrics-tests 200 "$B/skc_ode_gpu_summaries" --nocapture --test-threads=1
  step metrics-lorenz 120 "$B/metrics-bench" lorenz 1048576
  local ncu
  ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)"
  # What bounds the kernel with all 18 metrics against the one without: DRAM (its 3.6 GB of outputs), issue
  # slots, occupancy, and the stall reasons per issued instruction.
  step metrics-ncu 180 "$ncu" --clock-control none --kernel-name ode_solve --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --metrics \
    gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_write.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed_op_local_ld.sum \
    "$B/metrics-bench" lorenz-once 1048576
  mkdir -p /tmp/vdp
  step metrics-vdp 120 "$B/metrics-bench" vdp /tmp/vdp
  if install_cubie; then
    # CUBIE_PROBE=1 adds CuBIE's samples next to its summaries.
    if [ -n "${CUBIE_PROBE:-}" ]; then step metrics-vdp-cubie-probe 150 python3 "$ROOT/bench/peers/cubie_summaries.py" /tmp/vdp probe; fi
    step metrics-vdp-cubie 300 python3 "$ROOT/bench/peers/cubie_summaries.py" /tmp/vdp
  fi
  cat "$OUT"/metrics-*.log | grep '^{' >>"$results"
}

run_weno() {
  step weno-tests 600 "$B/skc_weno_gpu_gpu" --test-threads=1
  step weno-check 300 "$B/weno-gpu-check" "$BUNDLE/weno-cubins"
  step weno-bench 300 "$B/weno-bench" "$BUNDLE/weno-cubins" 256
  step weno-advect1d 120 "$B/weno-advect1d" "$BUNDLE/weno-cubins"
}

# The step limits add up to 590 s: the suite fits one 10-minute device call after `bundle sched` (QUICK=1 shrinks
# the benchmark, IDS=20000000 the stress test).
run_sched() {
  step sched-smoke 60 "$B/sched-bench" smoke
  step sched-tests 200 env SKC_SCHED_STRESS_IDS="${IDS:-100000000}" "$B/skc_sched_gpu" --test-threads=1 --nocapture
  step sched-bench 180 "$B/sched-bench" bench ${QUICK:+--quick}
  step sched-memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/sched-bench" smoke
  # racecheck counts its own warning that it cannot follow device-side launches (the smoke run's child tasks) as
  # a hazard, so its exit code fails every run: pass on its summary's "0 errors" instead.
  # shellcheck disable=SC2016
  step sched-racecheck 60 bash -c 'compute-sanitizer --tool racecheck "$0" smoke 2>&1 | tee /dev/stderr |
    grep -q "RACECHECK SUMMARY: .*(0 errors"' "$B/sched-bench"
}

run_queue() {
  step queue-tests 120 "$B/skc_bench_queue_gpu" --test-threads=1 --nocapture
  step queue-bench 240 "$B/queue-bench"
}

# NVLink multicast must stay off on these machines: NCCL_NVLS_ENABLE=0 here and in the runtime (which sets it
# before NCCL loads). The step limits add up to 11 minutes: on 4 GPUs run the suite in a call of its own.
run_multigpu() {
  export NCCL_NVLS_ENABLE=0
  local gpus
  gpus="$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)"
  export SKC_GPUS="$gpus"
  if [ -z "${SKC_NCCL_PATH:-}" ]; then
    SKC_NCCL_PATH="$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)/lib"
    export SKC_NCCL_PATH
  fi
  echo "gpus=$gpus NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE SKC_NCCL_PATH=$SKC_NCCL_PATH" | tee -a "$OUT/summary.txt"
  nvidia-smi topo -m >"$OUT/multigpu-topology.log" 2>&1
  step multigpu-runtime-tests 60 "$B/skc_runtime_multigpu" --test-threads=1 --nocapture
  step multigpu-ode-tests 240 "$B/skc_ode_multigpu" --test-threads=1 --nocapture
  step multigpu-weno-tests 90 "$B/skc_weno_gpu_multigpu" --test-threads=1 --nocapture
  step multigpu-ode-bench 240 "$B/multigpu-bench" ode "$gpus" ${QUICK:+--quick}
  step multigpu-weno-bench 90 "$B/multigpu-bench" weno "$gpus" ${QUICK:+--quick}
  cat "$OUT/multigpu-ode-bench.log" "$OUT/multigpu-weno-bench.log" | grep '^{' >>"$OUT/multigpu-results.jsonl"
}

run() {
  BUNDLE="$(cd "$(dirname "$0")" && pwd)"
  B="$BUNDLE/bin"
  ROOT="$PWD"
  local build_root suites
  build_root="$(cat "$BUNDLE/build_root")"
  suites="${*:-$(cat "$BUNDLE/suites")}"
  if [ ! -e "$build_root" ]; then mkdir -p "$(dirname "$build_root")" && ln -s "$ROOT" "$build_root"; fi
  export SKC_NVRTC_PATH="${SKC_NVRTC_PATH:-/usr/local/cuda/lib64}" SKC_CACHE_DIR="${SKC_CACHE_DIR:-/tmp/skc-cache}"
  export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
  OUT="${OUT:-/tmp/gpu-out}"
  mkdir -p "$OUT"
  FAILED=0
  {
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
    compute-sanitizer --version 2>/dev/null | tail -n 1
  } | tee "$OUT/summary.txt"
  for suite in $suites; do
    echo "== $suite ($(date +%T))" | tee -a "$OUT/summary.txt"
    "run_$suite"
  done
  if [ $FAILED -eq 0 ]; then echo "ALL PASSED" | tee -a "$OUT/summary.txt"; else echo "SOME STEPS FAILED" | tee -a "$OUT/summary.txt"; fi
  return $FAILED
}

case "${1:-}" in
bundle) shift && bundle "$@" ;;
run) shift && run "$@" ;;
*) sed -n '2,30p' "$0" && exit 2 ;;
esac
