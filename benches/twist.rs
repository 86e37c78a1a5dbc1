//! `cargo bench`: the paper's Table 1 twist on the CPU backend at ~2K, ~7K
//! and ~27K vertices (1 ms steps, tolerance 1e-5). Prints ms per step with
//! its breakdown and the mean CG iterations. `crease bench twist` runs the
//! same measurement with options.

use crease::bench::{refinement, run_twist, twist_scene};
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
    println!(
        "{:>8} {:>11} {:>10} {:>10} {:>8}",
        "vertices", "ms/step", "forces_ms", "solve_ms", "cg_iter"
    );
    for target in sizes {
        let scene = twist_scene(refinement(target), &[])?;
        let backend = Box::new(CpuBackend::new(Arc::clone(&scene.cloth)));
        let row = run_twist(scene, backend, 20)?;
        println!(
            "{:>8} {:>11.2} {:>10.2} {:>10.2} {:>8.1}",
            row.vertices, row.ms_per_step, row.forces_ms, row.solve_ms, row.cg_iterations
        );
    }
    Ok(())
}
