//! `cargo bench`: the paper's Table 1 twist on the CPU backend at ~2K, ~7K
//! and ~27K vertices (1 ms steps, tolerance 1e-5), with each preconditioner.
//! Prints the rows of `crease bench twist --backend cpu [--set
//! solver.preconditioner=multilevel]`: ms per step, the mean CG iterations
//! and the step's split by stage.

use crease::bench::{header, refinement, row, run_twist, twist_scene};
use crease::cpu::CpuBackend;
use std::sync::Arc;

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench`; a filter argument selects sizes.
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![2000, 7000, 27000]
    } else {
        sizes
    };
    println!("{}", header());
    for target in sizes {
        for preconditioner in ["jacobi", "multilevel"] {
            let set = [format!("solver.preconditioner={preconditioner}")];
            let scene = twist_scene(refinement(target), &set)?;
            let backend = Box::new(CpuBackend::new(Arc::clone(&scene.cloth)));
            println!("{}", row(&run_twist(scene, backend, 20)?));
        }
    }
    Ok(())
}
