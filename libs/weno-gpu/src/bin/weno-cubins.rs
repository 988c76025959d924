//! `weno-cubins DIR [NAME...]`: builds the variants (all, or those named) with NVRTC into DIR (CUBINs and
//! manifest.tsv), skipping those already there, and prints each kernel's registers and spills.
//! `WENO_SHARD=i/n` builds only every n-th variant from the i-th (to run n of them side by side).

use std::path::PathBuf;

use skc_weno_gpu::build::{build, read_manifest, write};
use skc_weno_gpu::variants::{all_variants, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().expect("usage: weno-cubins DIR [VARIANT...]"));
    let wanted: Vec<Variant> =
        if args.len() > 1 { args[1..].iter().filter_map(|n| Variant::parse(n)).collect() } else { all_variants() };
    let done: Vec<Variant> = read_manifest(&dir).into_iter().map(|(v, _)| v).collect();
    let (shard, shards) = std::env::var("WENO_SHARD")
        .ok()
        .and_then(|s| s.split_once('/').and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?))))
        .unwrap_or((0, 1));
    let wanted: Vec<Variant> =
        wanted.into_iter().enumerate().filter(|(i, _)| i % shards == shard).map(|(_, v)| v).collect();
    let mut failed = false;
    for variant in wanted.iter().filter(|v| !done.contains(v)) {
        let start = std::time::Instant::now();
        match build(variant) {
            Ok(built) => {
                write(&dir, variant, &built).expect("write the CUBIN and manifest");
                let summary: Vec<String> = built
                    .resources
                    .iter()
                    .map(|r| format!("{} {}r {}s", r.kernel, r.registers, r.spill_stores))
                    .collect();
                println!("{:<28} {:>5.1}s  {}", variant.name(), start.elapsed().as_secs_f64(), summary.join(", "));
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
