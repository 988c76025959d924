//! Several GPUs of one host (`cargo test -p skc-runtime --features gpu-tests --test multigpu`): device sets, a
//! program loaded on every device, peer access, and NCCL (both ways of creating a communicator, a ring of sends
//! and receives, a sum all-reduce), on SKC_GPUS devices (default 2). Fails, never skips, when the host has fewer
//! devices or NCCL cannot be loaded (SKC_NCCL_PATH).

use skc_runtime::nccl::{group, nccl_library, Communicator};
use skc_runtime::{args, DeviceSet, LaunchConfig, Program, RuntimeError};

fn gpus_asked() -> usize {
    std::env::var("SKC_GPUS").ok().and_then(|v| v.parse().ok()).unwrap_or(2)
}

fn devices() -> DeviceSet {
    let count = gpus_asked();
    DeviceSet::first(count).unwrap_or_else(|e| panic!("the multi-GPU tests ask for {count} GPU(s) (SKC_GPUS): {e}"))
}

const FILL: &str = "kernel fill (out : float32 vector) (value : float32) (n : int32) =
  if global_idx_x < n then out.(global_idx_x) <- value +. float32 global_idx_x\n";

#[test]
fn a_program_is_loaded_and_launched_on_every_device() {
    let set = devices();
    let modules = set.load(&Program::from_source("fill.sk", FILL).unwrap()).unwrap();
    let n = 1000;
    for (i, (ctx, module)) in set.contexts().iter().zip(&modules).enumerate() {
        assert_eq!(module.context().device().ordinal, ctx.device().ordinal);
        let mut out = ctx.alloc_zeros::<f32>(n).unwrap();
        let fill = module.kernel("fill").unwrap();
        fill.launch(&LaunchConfig::for_elements(n, 128), args![&mut out, i as f32 * 1000.0, n as i32]).unwrap();
        let got = out.download().unwrap();
        assert!(got.iter().enumerate().all(|(j, v)| *v == i as f32 * 1000.0 + j as f32), "device {i}");
    }
}

#[test]
fn peer_access_is_enabled_where_the_devices_support_it() {
    let set = devices();
    let enabled = set.enable_peer_access().unwrap();
    for from in 0..set.len() {
        for to in 0..set.len() {
            if from != to {
                assert_eq!(set.can_access_peer(from, to).unwrap(), enabled.contains(&(from, to)));
            }
        }
    }
    // A second call finds them enabled already.
    assert_eq!(set.enable_peer_access().unwrap(), enabled);
    eprintln!("peer access between {:?}: {enabled:?}", set.ordinals());
}

#[test]
fn duplicate_devices_are_refused() {
    let error = DeviceSet::open(&[0, 0]).err().expect("a duplicate ordinal");
    assert!(matches!(error, RuntimeError::DuplicateDevice { ordinal: 0 }), "{error}");
}

#[test]
fn nccl_loads_with_nvlink_multicast_off() {
    let (path, version) = nccl_library().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("NCCL {version} from {path}");
    assert!(version >= 21800, "NCCL {version} is older than 2.18");
    assert_eq!(std::env::var("NCCL_NVLS_ENABLE").as_deref(), Ok("0"));
}

/// Every rank sends its block to the next rank (a ring) and receives the previous rank's.
fn ring(set: &DeviceSet, comms: &[Communicator]) {
    let n = 4096;
    let size = comms.len();
    let streams: Vec<_> = set.contexts().iter().map(|c| c.new_stream().unwrap()).collect();
    let arrays: Vec<_> = set
        .contexts()
        .iter()
        .enumerate()
        .map(|(rank, ctx)| {
            let a = ctx.device_array::<f64>(2 * n).unwrap();
            a.upload_at(0, &(0..n).map(|i| (rank * 1_000_000 + i) as f64).collect::<Vec<_>>()).unwrap();
            a
        })
        .collect();
    group(|| {
        for (rank, comm) in comms.iter().enumerate() {
            assert_eq!((comm.rank(), comm.size()), (rank, size));
            comm.send(&arrays[rank], 0..n, (rank + 1) % size, &streams[rank])?;
            comm.recv(&arrays[rank], n..2 * n, (rank + size - 1) % size, &streams[rank])?;
        }
        Ok(())
    })
    .unwrap();
    for (rank, stream) in streams.iter().enumerate() {
        stream.synchronize().unwrap();
        let got = arrays[rank].download().unwrap();
        let from = (rank + size - 1) % size;
        let want: Vec<f64> = (0..n).map(|i| (from * 1_000_000 + i) as f64).collect();
        assert_eq!(&got[n..], &want[..], "rank {rank} received from {from}");
    }
}

#[test]
fn nccl_ring_through_comm_init_all() {
    let set = devices();
    let comms = Communicator::init_all(&set).unwrap_or_else(|e| panic!("{e}"));
    ring(&set, &comms);
}

#[test]
fn nccl_ring_through_a_unique_id_and_a_thread_per_device() {
    let set = devices();
    let comms = Communicator::init_threads(&set).unwrap_or_else(|e| panic!("{e}"));
    ring(&set, &comms);
}

#[test]
fn nccl_all_reduce_sums_over_the_ranks() {
    let set = devices();
    let comms = Communicator::init_all(&set).unwrap();
    let n = 1000;
    let mut buffers: Vec<_> =
        set.contexts().iter().enumerate().map(|(rank, ctx)| ctx.upload(&vec![rank as f64 + 1.0; n]).unwrap()).collect();
    let streams: Vec<_> = set.contexts().iter().map(|c| c.stream()).collect();
    group(|| {
        for ((comm, buffer), stream) in comms.iter().zip(buffers.iter_mut()).zip(&streams) {
            comm.all_reduce_sum(buffer, stream)?;
        }
        Ok(())
    })
    .unwrap();
    let size = set.len() as f64;
    for (rank, buffer) in buffers.iter().enumerate() {
        let got = buffer.download().unwrap();
        assert!(got.iter().all(|v| *v == size * (size + 1.0) / 2.0), "rank {rank}: {:?}", &got[..4]);
    }
}

/// A stream of another device (with two devices or more), or a peer outside the communicator (with one), is
/// refused before NCCL sees it, with the rank and its device named.
#[test]
fn misuse_is_refused_with_the_devices_named() {
    let set = devices();
    let comms = Communicator::init_all(&set).unwrap();
    let array = set.context(0).device_array::<f32>(16).unwrap();
    let (stream, peer) = if set.len() >= 2 {
        (set.context(1).new_stream().unwrap(), 1)
    } else {
        (set.context(0).new_stream().unwrap(), 1)
    };
    let error = comms[0].send(&array, 0..16, peer, &stream).expect_err("a misuse");
    let text = error.to_string();
    assert!(text.contains("rank 0") && text.contains(&format!("device {}", set.ordinals()[0])), "{text}");
    if set.len() >= 2 {
        assert!(text.contains(&format!("device {}", set.ordinals()[1])), "{text}");
    } else {
        assert!(text.contains("peer 1"), "{text}");
    }
}
