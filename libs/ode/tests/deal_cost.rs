//! Dealing a batch's blocks to the devices in turn evens out a cost that varies along the batch: the steps of an
//! adaptive Lorenz sweep (rho rising from 0 to 28), counted by the float64 CPU reference in warps of 32, summed per
//! share. Contiguous shares of the same sweep are far apart; dealt shares are within a few percent. No GPU.

use skc_ode::deal::{deal, Share};
use skc_ode::reference::{solve_batch, system::Lorenz, FsalVote};
use skc_ode::{Config, ControllerKind, Method};

const BLOCK: usize = 256;

/// Attempted steps of every run of the sweep.
fn sweep_steps(runs: usize) -> Vec<f64> {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::I);
    cfg.save_every = Some(0.25);
    let y0: Vec<f64> = (0..runs).flat_map(|i| [1.0 + 0.25 * (i % 5) as f64, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..runs).map(|i| 28.0 * i as f64 / (runs - 1) as f64).collect();
    let batch = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::Warp).unwrap();
    batch.runs.iter().map(|run| run.attempted as f64).collect()
}

/// The largest relative distance of a share's cost from the mean.
fn worst_off_mean(costs: &[f64]) -> f64 {
    let mean = costs.iter().sum::<f64>() / costs.len() as f64;
    costs.iter().map(|c| (c / mean - 1.0).abs()).fold(0.0, f64::max)
}

#[test]
fn dealt_shares_of_a_rising_sweep_cost_the_same_and_contiguous_ones_do_not() {
    let runs = (1 << 14) + 77;
    let steps = sweep_steps(runs);
    let fifth = runs / 5;
    let (low, high): (f64, f64) = (steps[..fifth].iter().sum(), steps[runs - fifth..].iter().sum());
    assert!(high > 1.5 * low, "the sweep's cost does not rise along the batch: {low} then {high}");
    for devices in [2, 3, 4] {
        let share_cost = |share: &Share| (0..share.len()).map(|l| steps[share.batch_run(l)]).sum::<f64>();
        let dealt: Vec<f64> = deal(runs, devices, BLOCK).iter().map(share_cost).collect();
        let contiguous: Vec<f64> = skc_runtime::split_aligned(runs, devices, BLOCK)
            .into_iter()
            .map(|range| steps[range].iter().sum())
            .collect();
        let (dealt_off, contiguous_off) = (worst_off_mean(&dealt), worst_off_mean(&contiguous));
        eprintln!(
            "{devices} devices: dealt {dealt:?} ({dealt_off:.4}), contiguous {contiguous:?} ({contiguous_off:.4})"
        );
        assert!(dealt_off < 0.05, "{devices} devices: dealt shares of unequal cost {dealt:?}");
        assert!(contiguous_off > 0.15, "{devices} devices: the sweep does not tell the two apart {contiguous:?}");
    }
}
