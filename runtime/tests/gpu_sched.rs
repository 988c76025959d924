//! The scheduler's language features on a real GPU (`cargo test -p skc-runtime --features gpu-tests --test
//! gpu_sched`): a parent kernel that launches children from the device (the program is compiled relocatable and
//! linked with libcudadevrt through the driver's linker), ordered scoped atomics, and a warp-specialised kernel
//! whose worker warps meet at a named barrier. Without a GPU every test fails with a message saying so.

use skc_runtime::{args, Context, LaunchConfig, Module};

fn gpu() -> Context {
    Context::new(0).unwrap_or_else(|e| {
        panic!(
            "the gpu-tests need a CUDA GPU and its driver, and this machine has none usable: {e}. \
             Run them on a GPU machine (scripts/gpu.sh), or run `cargo test` without `--features gpu-tests`."
        )
    })
}

/// Four lanes of the parent each launch a child over a quarter of `out`; each child writes `2 i + 1`.
const DYNAMIC: &str = "
kernel parent (out : int32 vector) (quarter : int32) (status : int32 vector) =
  if thread_idx_x < 4 then
    status.(thread_idx_x) <- Gpu.launch child ((quarter + 127) / 128) 128 0 out (thread_idx_x * quarter) quarter

kernel child (out : int32 vector) (base : int32) (count : int32) =
  if global_idx < count then out.(base + global_idx) <- 2 * (base + global_idx) + 1
";

#[test]
fn a_parent_launches_children_from_the_device() {
    let ctx = gpu();
    let module = Module::from_source(&ctx, "dynamic.sk", DYNAMIC).unwrap_or_else(|e| panic!("{e}"));
    let (devrt, input) = module.compile_report().device_runtime.clone().expect("linked with the device runtime");
    println!("linked with {} from {input:?}", devrt.display());
    let parent = module.kernel("parent").unwrap();
    let quarter = 1000;
    let mut out = ctx.alloc_zeros::<i32>(4 * quarter as usize).unwrap();
    let mut status = ctx.upload(&[-1i32; 4]).unwrap();
    parent.launch(&LaunchConfig::new(1, 32), args![&mut out, quarter, &mut status]).unwrap();
    ctx.synchronize().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.download().unwrap(), vec![0; 4], "every device launch reports cudaSuccess");
    let out = out.download().unwrap();
    let wrong: Vec<usize> = (0..out.len()).filter(|&i| out[i] != 2 * i as i32 + 1).collect();
    assert!(wrong.is_empty(), "{} elements not written by the children, first {:?}", wrong.len(), wrong.first());
}

/// Every thread takes a ticket with an acq_rel fetch-add; the last one (ticket n - 1) publishes with a release
/// store; CAS on a 64-bit word succeeds for exactly one thread.
const ATOMICS: &str = "
kernel tickets (counter : uint64 vector) (word : int64 vector) (flag : int32 vector) (winners : int32 vector)
    (n : int32) =
  if global_idx < n then begin
    let ticket = atomic_add_acq_rel_device counter 0 1UL in
    if ticket = uint64 (n - 1) then atomic_store_release_system flag 0 1;
    let old = atomic_cas_acq_rel_device word 0 0L (int64 global_idx + 1L) in
    if old = 0L then begin
      let _ = atomic_add_relaxed_device winners 0 1 in
      ()
    end
  end
";

#[test]
fn ordered_atomics_count_and_publish() {
    let ctx = gpu();
    let module = Module::from_source(&ctx, "tickets.sk", ATOMICS).unwrap_or_else(|e| panic!("{e}"));
    let kernel = module.kernel("tickets").unwrap();
    let n = 100_000i32;
    let mut counter = ctx.alloc_zeros::<u64>(1).unwrap();
    let mut word = ctx.alloc_zeros::<i64>(1).unwrap();
    let mut flag = ctx.alloc_zeros::<i32>(1).unwrap();
    let mut winners = ctx.alloc_zeros::<i32>(1).unwrap();
    kernel
        .launch(
            &LaunchConfig::for_elements(n as usize, 256),
            args![&mut counter, &mut word, &mut flag, &mut winners, n],
        )
        .unwrap();
    ctx.synchronize().unwrap();
    assert_eq!(counter.download().unwrap(), vec![n as u64]);
    assert_eq!(flag.download().unwrap(), vec![1]);
    assert_eq!(winners.download().unwrap(), vec![1], "exactly one CAS from 0 succeeds");
    let w = word.download().unwrap()[0];
    assert!((1..=n as i64).contains(&w), "the winner's id, got {w}");
}

/// One scheduler warp launches a child and counts with atomics; three worker warps run `rounds` rounds, each
/// adding to a shared counter and meeting at named barrier 1 (96 threads); no block barrier after specialising.
const SPECIALISED: &str = "
let n_sched = 1

kernel child (out : int32 vector) (value : int32) =
  out.(global_idx) <- value

kernel[@launch_bounds 128 1] persistent (out : int32 vector) (children : int32 vector) (rounds : int32) =
  let%shared (count : int32) = 1 in
  if thread_idx_x = 0 then count.(0) <- 0;
  Gpu.block_barrier;
  if warp_id < n_sched then begin
    let mine = mut 0 in
    if lane_id = 0 then mine := Gpu.launch child 1 32 0 children 7;
    let status = Gpu.shfl mine 0 in
    if lane_id = 0 then out.(1) <- status
  end else begin
    let workers = block_dim_x / 32 - n_sched in
    for round = 1 to rounds do
      if lane_id = 0 then begin
        let _ = atomic_add_relaxed_block count 0 1 in
        ()
      end;
      named_barrier 1 (32 * workers)
    done;
    if warp_id = n_sched && lane_id = 0 then out.(0) <- atomic_load_relaxed_block count 0
  end
";

#[test]
fn a_warp_specialised_kernel_with_a_named_barrier_completes() {
    let ctx = gpu();
    let module = Module::from_source(&ctx, "specialised.sk", SPECIALISED).unwrap_or_else(|e| panic!("{e}"));
    let kernel = module.kernel("persistent").unwrap();
    let rounds = 50;
    let mut out = ctx.upload(&[-1i32, -1]).unwrap();
    let mut children = ctx.alloc_zeros::<i32>(32).unwrap();
    kernel.launch(&LaunchConfig::new(1, 128), args![&mut out, &mut children, rounds]).unwrap();
    ctx.synchronize().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.download().unwrap(), vec![3 * rounds, 0], "3 worker warps x rounds; launch status 0");
    assert_eq!(children.download().unwrap(), vec![7; 32], "the child ran");
}
