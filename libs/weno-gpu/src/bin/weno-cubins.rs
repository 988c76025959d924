//! `weno-cubins [--shard I/N] [--cuda] DIR [NAME...]`: builds the variants (all, or those named) with NVRTC into
//! DIR (CUBINs and manifest.tsv), skipping those already there, and prints each kernel's registers and spills.
//! `--shard I/N` builds only every N-th variant from the I-th (to run N of them side by side); `--cuda` also
//! writes each variant's CUDA C.

use std::path::PathBuf;

use skc_weno_gpu::build::{build, read_manifest, write};
use skc_weno_gpu::variants::{all_variants, Variant};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let cuda = take_flag(&mut args, "--cuda");
    let shard = take_value(&mut args, "--shard");
    let dir = PathBuf::from(args.first().expect("usage: weno-cubins [--shard I/N] [--cuda] DIR [VARIANT...]"));
    let wanted: Vec<Variant> =
        if args.len() > 1 { args[1..].iter().filter_map(|n| Variant::parse(n)).collect() } else { all_variants() };
    let done: Vec<Variant> = read_manifest(&dir).into_iter().map(|(v, _)| v).collect();
    let (shard, shards) = shard
        .and_then(|s| s.split_once('/').and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?))))
        .unwrap_or((0, 1));
    let wanted: Vec<Variant> =
        wanted.into_iter().enumerate().filter(|(i, _)| i % shards == shard).map(|(_, v)| v).collect();
    let mut failed = false;
    for variant in wanted.iter().filter(|v| !done.contains(v)) {
        let start = std::time::Instant::now();
        match build(variant) {
            Ok(built) => {
                write(&dir, variant, &built, cuda).expect("write the CUBIN and manifest");
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

/// Removes `flag` from `args`; whether it was there.
fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let before = args.len();
    args.retain(|a| a != flag);
    args.len() != before
}

/// Removes `option VALUE` from `args`; the value.
fn take_value(args: &mut Vec<String>, option: &str) -> Option<String> {
    let at = args.iter().position(|a| a == option)?;
    let value = args.get(at + 1).cloned();
    args.drain(at..(at + 2).min(args.len()));
    value
}
