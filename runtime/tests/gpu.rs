//! The runtime on a real GPU (`cargo test -p skc-runtime --features gpu-tests`): checked launches refuse every
//! kind of mismatch before the driver sees it, dynamic shared memory beyond 48 KiB, streams and timers, records,
//! modules from files and the compile cache, a read-only vector overlapping a written one refused, and a device
//! fault reported with the CUDA error's name and the kernel's. Without a GPU every test fails with a message saying so.

use std::process::Command;

use skc_runtime::{
    args, sk_record, Arg, Context, DeviceBuffer, Extent, KernelSignature, LaunchConfig, Module, ParamSignature,
    ParamType, RuntimeError, ScalarType,
};

fn gpu() -> Context {
    Context::new(0).unwrap_or_else(|e| {
        panic!(
            "the gpu-tests need a CUDA GPU and its driver, and this machine has none usable: {e}. \
             Run them on a GPU machine (scripts/gpu.sh), or run `cargo test` without `--features gpu-tests`."
        )
    })
}

const ADD: &str = "let add = [%kernel fun (a : float32 vector) (b : float32 vector) (c : float32 vector) (n : int32) ->
  if global_idx < n then c.(global_idx) <- a.(global_idx) +. b.(global_idx)
]
";

fn add_module(ctx: &Context) -> Module {
    Module::from_source(ctx, "add.sk", ADD).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_checked_launch_computes() {
    let ctx = gpu();
    let add = add_module(&ctx).kernel("add").unwrap().require_len("c", Extent::param("n")).unwrap();
    let a: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let (da, db) = (ctx.upload(&a).unwrap(), ctx.upload(&a).unwrap());
    let mut dc = ctx.alloc_zeros::<f32>(1000).unwrap();
    add.launch(&LaunchConfig::for_elements(1000, 128), args![&da, &db, &mut dc, 1000i32]).unwrap();
    let c = dc.download().unwrap();
    assert!(c.iter().enumerate().all(|(i, &x)| x == 2.0 * i as f32));
}

#[test]
fn mismatched_launches_are_typed_errors_naming_kernel_and_parameter() {
    let ctx = gpu();
    let add = add_module(&ctx).kernel("add").unwrap().require_len("a", Extent::param("n")).unwrap();
    let cfg = LaunchConfig::for_elements(100, 128);
    let a = ctx.alloc_zeros::<f32>(100).unwrap();
    let mut c = ctx.alloc_zeros::<f32>(100).unwrap();
    let doubles = ctx.alloc_zeros::<f64>(100).unwrap();

    let err = add.launch(&cfg, args![&a, &a, &mut c]).unwrap_err();
    assert!(matches!(err, RuntimeError::ArgumentCount { expected: 4, found: 3, .. }), "{err}");
    let err = add.launch(&cfg, args![&a, &a, &mut c, 100i64]).unwrap_err();
    assert_eq!((err.kernel(), err.param()), (Some("add"), Some("n")), "{err}");
    let err = add.launch(&cfg, args![&a, &doubles, &mut c, 100i32]).unwrap_err();
    assert_eq!(err.param(), Some("b"), "{err}");
    let err = add.launch(&cfg, args![&a, &a, &c, 100i32]).unwrap_err();
    assert!(matches!(err, RuntimeError::ReadOnlyBuffer { .. }) && err.param() == Some("c"), "{err}");
    let err = add.launch(&cfg, args![&a, &a, &mut c, 101i32]).unwrap_err();
    assert!(matches!(err, RuntimeError::BufferTooShort { len: 100, required: 101, .. }), "{err}");
    let err = add.launch(&LaunchConfig::new(1, 2048), args![&a, &a, &mut c, 100i32]).unwrap_err();
    assert!(matches!(err, RuntimeError::LaunchConfig { .. }), "{err}");
    let err = add.launch(&cfg.with_shared_bytes(64), args![&a, &a, &mut c, 100i32]).unwrap_err();
    assert!(err.to_string().contains("no dynamic shared array"), "{err}");
    // None of that reached the device: a good launch still works.
    add.launch(&cfg, args![&a, &a, &mut c, 100i32]).unwrap();
    ctx.synchronize().unwrap();
}

/// A view of part of a buffer: a buffer type of the caller's own, which the borrow checker cannot keep from
/// aliasing another argument.
struct View<'b> {
    base: &'b DeviceBuffer<f32>,
    offset: usize,
    len: usize,
}

impl skc_runtime::RawBuffer for View<'_> {
    fn raw_len(&self) -> usize {
        self.len
    }
    fn raw_elem(&self) -> skc_runtime::ElemType {
        skc_runtime::ElemType::Scalar(ScalarType::Float32)
    }
    fn raw_context(&self) -> &Context {
        self.base.context()
    }
    fn raw_ptr<'s>(&'s self, stream: &'s cudarc::driver::CudaStream) -> (u64, cudarc::driver::SyncOnDrop<'s>) {
        let (ptr, guard) = skc_runtime::RawBuffer::raw_ptr(self.base, stream);
        (ptr + (self.offset * 4) as u64, guard)
    }
    fn raw_ptr_mut<'s>(&'s mut self, stream: &'s cudarc::driver::CudaStream) -> (u64, cudarc::driver::SyncOnDrop<'s>) {
        self.raw_ptr(stream)
    }
}

/// The memory rule's assumption at the host boundary: a vector the kernel only reads may not share memory with
/// one it writes. Views of one allocation that overlap are refused, naming both parameters; disjoint views of
/// the same allocation launch.
#[test]
fn a_read_only_vector_overlapping_a_written_one_is_refused() {
    let ctx = gpu();
    let add = add_module(&ctx).kernel("add").unwrap();
    let cfg = LaunchConfig::for_elements(100, 128);
    let whole = ctx.upload(&vec![1.0f32; 300]).unwrap();
    let b = ctx.upload(&vec![2.0f32; 100]).unwrap();
    let read = View { base: &whole, offset: 0, len: 100 };
    let mut overlapping = View { base: &whole, offset: 99, len: 100 };
    let err = add
        .launch(&cfg, [Arg::Buffer(&read), Arg::from(&b), Arg::BufferMut(&mut overlapping), 100i32.into()])
        .unwrap_err();
    assert!(
        matches!(&err, RuntimeError::AliasedVectors { kernel, read, written } if kernel == "add" && read == "a" && written == "c"),
        "{err:?}"
    );
    let mut disjoint = View { base: &whole, offset: 100, len: 100 };
    add.launch(&cfg, [Arg::Buffer(&read), Arg::from(&b), Arg::BufferMut(&mut disjoint), 100i32.into()]).unwrap();
    let out = whole.download().unwrap();
    assert!(out[..100].iter().all(|&x| x == 1.0) && out[100..200].iter().all(|&x| x == 3.0), "{:?}", &out[95..105]);
}

#[test]
fn builder_streams_and_timers() {
    let ctx = gpu();
    let add = add_module(&ctx).kernel("add").unwrap();
    let n = 1 << 20;
    let a = ctx.upload(&vec![1.0f32; n]).unwrap();
    let mut c = ctx.alloc_zeros::<f32>(n).unwrap();
    let stream = ctx.new_stream().unwrap();
    let timer = stream.start_timer().unwrap();
    add.call()
        .arg(&a)
        .arg(&a)
        .arg(&mut c)
        .arg(n as i32)
        .on(&stream)
        .launch(&LaunchConfig::for_elements(n, 256))
        .unwrap();
    let ms = timer.stop().unwrap();
    assert!(ms > 0.0 && ms < 1000.0, "{ms} ms");
    assert!(c.download().unwrap().iter().all(|&x| x == 2.0));
}

const DEPENDENT: &str = "
(* Part 1: one block that lets its dependent start at once, then writes buf after about 200 us. *)
kernel producer (buf : int32 vector) (ends : uint64 vector) (n : int32) =
  trigger_dependent_launch ();
  let start = globaltimer in
  while globaltimer - start < 200000UL do nanosleep 1000u done;
  let i = mut thread_idx_x in
  while i < n do buf.(i) <- 3 * i; i := i + block_dim_x done;
  ends.(thread_idx_x) <- globaltimer

(* Part 2, the dependent: notes when it started, then reads buf after grid_dependency_sync. *)
kernel consumer (buf : int32 vector) (out : int32 vector) (starts : uint64 vector) (n : int32) =
  let i = global_idx in
  if i < n then starts.(i) <- globaltimer;
  let own = 2 * i in
  grid_dependency_sync ();
  if i < n then out.(i) <- buf.(i) + own
";

#[test]
fn a_dependent_launch_starts_early_and_sees_its_predecessor_after_grid_dependency_sync() {
    let ctx = gpu();
    let module = Module::from_source(&ctx, "dependent.sk", DEPENDENT).unwrap_or_else(|e| panic!("{e}"));
    let (producer, consumer) = (module.kernel("producer").unwrap(), module.kernel("consumer").unwrap());
    let n = 4096;
    let stream = ctx.new_stream().unwrap();
    let mut buf = ctx.alloc_zeros::<i32>(n).unwrap();
    let mut ends = ctx.alloc_zeros::<u64>(128).unwrap();
    let mut out = ctx.alloc_zeros::<i32>(n).unwrap();
    let mut starts = ctx.alloc_zeros::<u64>(n).unwrap();
    producer.launch_on(&stream, &LaunchConfig::new(1, 128), &mut args![&mut buf, &mut ends, n as i32]).unwrap();
    let config = LaunchConfig::for_elements(n, 128);
    consumer.launch_dependent_on(&stream, &config, &mut args![&buf, &mut out, &mut starts, n as i32]).unwrap();
    let out = out.download().unwrap();
    assert!(out.iter().enumerate().all(|(i, &x)| x == 5 * i as i32), "{:?}", &out[..8]);
    // Programmatic stream serialization let the consumer's blocks start while the producer still ran.
    let producer_end = ends.download().unwrap().into_iter().max().unwrap();
    let first_start = starts.download().unwrap().into_iter().min().unwrap();
    assert!(
        first_start < producer_end,
        "the consumer started {} ns after the producer ended",
        first_start - producer_end
    );
}

const SHARED: &str = "let reverse = [%kernel fun (xs : float32 vector) (ys : float32 vector) (m : int32) ->
  let%shared (buf : float32) = m in
  let t = thread_idx_x in
  let i = mut t in
  while i < m do buf.(i) <- xs.(i); i := i + block_dim_x done;
  block_barrier ();
  let j = mut t in
  while j < m do ys.(j) <- buf.(m - 1 - j); j := j + block_dim_x done
]
";

#[test]
fn dynamic_shared_memory_beyond_48_kib() {
    let ctx = gpu();
    let kernel = Module::from_source(&ctx, "reverse.sk", SHARED).unwrap().kernel("reverse").unwrap();
    assert_eq!(kernel.signature().dynamic_shared_elem, Some(ScalarType::Float32));
    let m = 24 * 1024; // 96 KiB of float32: needs the opt-in attribute
    let xs: Vec<f32> = (0..m).map(|i| i as f32).collect();
    let dx = ctx.upload(&xs).unwrap();
    let mut dy = ctx.alloc_zeros::<f32>(m).unwrap();
    let err = kernel.launch(&LaunchConfig::new(1, 256), args![&dx, &mut dy, m as i32]).unwrap_err();
    assert!(err.to_string().contains("with_shared_elems"), "{err}");
    let cfg = LaunchConfig::new(1, 256).with_shared_elems::<f32>(m);
    kernel.launch(&cfg, args![&dx, &mut dy, m as i32]).unwrap();
    let ys = dy.download().unwrap();
    assert!(ys.iter().enumerate().all(|(j, &y)| y == (m - 1 - j) as f32));
    let too_much = LaunchConfig::new(1, 256).with_shared_bytes(ctx.device().shared_per_block_optin + 4);
    assert!(kernel.launch(&too_much, args![&dx, &mut dy, m as i32]).is_err());
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Point {
    x: f32,
    y: f32,
}
sk_record!(Point = "point");

#[test]
fn records_by_value_and_in_vectors() {
    let ctx = gpu();
    let cuda = r#"
struct point { float x; float y; };
extern "C" __global__ void shift(point* ps, point by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { ps[i].x += by.x; ps[i].y += by.y; }
}
"#;
    let record = ParamType::Record { name: "point".into(), size: 8 };
    let sig = KernelSignature::new(
        "shift",
        vec![
            ParamSignature {
                name: "ps".into(),
                ty: ParamType::Vector {
                    elem: skc_runtime::ElemType::Record { name: "point".into(), size: 8 },
                    writable: true,
                },
                align: 0,
            },
            ParamSignature { name: "by".into(), ty: record, align: 0 },
            ParamSignature::scalar("n", ScalarType::Int32),
        ],
    );
    let kernel = Module::from_cuda(&ctx, "shift.cu", cuda, vec![sig]).unwrap().kernel("shift").unwrap();
    let mut ps: DeviceBuffer<Point> = ctx.upload(&[Point { x: 1.0, y: 2.0 }; 10]).unwrap();
    let by = Point { x: 0.5, y: -1.0 };
    kernel.launch(&LaunchConfig::new(1, 32), [Arg::from(&mut ps), Arg::record(&by), Arg::from(10i32)]).unwrap();
    assert_eq!(ps.download().unwrap(), vec![Point { x: 1.5, y: 1.0 }; 10]);
    let err = kernel.launch(&LaunchConfig::new(1, 32), [Arg::from(&mut ps), Arg::from(0.5f32), Arg::from(10i32)]);
    assert_eq!(err.unwrap_err().param(), Some("by"));
}

#[test]
fn modules_from_files_hit_the_compile_cache() {
    let ctx = gpu();
    let dir = std::env::temp_dir().join(format!("skc-runtime-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("add.sk");
    std::fs::write(&path, ADD).unwrap();
    let first = Module::from_file(&ctx, &path).unwrap();
    let second = Module::from_file(&ctx, &path).unwrap();
    assert_eq!(first.compile_report().arch, ctx.device().arch);
    if skc_nvrtc::Cache::from_env().is_some() {
        assert!(second.compile_report().cache_hit, "the second compile of the same source should hit the cache");
    }
    assert!(first.cuda_source().contains("extern \"C\" __global__ void add("));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn front_end_and_lookup_errors() {
    let ctx = gpu();
    let err = Module::from_source(&ctx, "bad.sk", "let k = [%kernel fun (xs : int32 vector) ->\n  xs.(0) <- 1.5\n]\n");
    assert!(matches!(err, Err(RuntimeError::Frontend { .. })), "{:?}", err.err());
    let err = add_module(&ctx).kernel("sub").err().unwrap();
    assert!(err.to_string().contains("its kernels are: add"), "{err}");
}

const OOB: &str = "let oob = [%kernel fun (xs : int32 vector) -> xs.(global_idx * 4000000) <- 1]\n";

/// Runs in a child process (a device fault ruins the context for every later call in the process).
fn fault_child() {
    let ctx = gpu();
    let kernel = Module::from_source(&ctx, "oob.sk", OOB).unwrap().kernel("oob").unwrap();
    let mut xs = ctx.alloc_zeros::<i32>(16).unwrap();
    kernel.launch(&LaunchConfig::new(4, 256), args![&mut xs]).unwrap();
    match ctx.synchronize() {
        Err(e) => println!("FAULT: {e} | name={:?} kernel={:?}", e.cuda_error_name(), e.kernel()),
        Ok(()) => println!("NO FAULT"),
    }
}

#[test]
fn device_faults_name_the_cuda_error_and_the_kernel() {
    if std::env::var_os("SKC_FAULT_CHILD").is_some() {
        return fault_child();
    }
    gpu();
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["device_faults_name_the_cuda_error_and_the_kernel", "--exact", "--nocapture", "--test-threads=1"])
        .env("SKC_FAULT_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAULT: CUDA_ERROR_ILLEGAL_ADDRESS") && stdout.contains("kernel=Some(\"oob\")"),
        "child said:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
