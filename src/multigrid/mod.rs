//! The multilevel preconditioner's hierarchy, built on the host for both
//! executors (the CPU's V-cycle is `cpu/multilevel`, the GPU's
//! `shaders/multilevel.wgsl`): smoothed aggregation (Vaněk, Mandel &
//! Brezina 1996), applied to cloth as Tamstorf, Jones & McCormick 2015 do.
//!
//! - The finest level is the step's system matrix `A = M + S` assembled
//!   into the mesh's pattern (`pattern.rs`) with the constraint filter
//!   folded in, as Tamstorf et al. filter their system: `S A S + (I - S)
//!   m` (the vertex's mass where they put the identity, so the scales
//!   match), so a pinned vertex or a contact's normal is an unknown of its
//!   own that the other rows do not see.
//! - The coarse unknowns are aggregates of about a dozen neighbouring
//!   vertices (`aggregate.rs`), built once per mesh from the pattern. The
//!   tentative prolongator moves an aggregate rigidly (three translations,
//!   three rotations about the current positions: the near-kernel of the
//!   membrane and bending energies, orthonormalised per aggregate); it is
//!   smoothed by one damped Jacobi step, `P = (I - w D^-1 A) P0`, and the
//!   coarse matrix is the Galerkin product `P^T A P`, at every build (the
//!   matrix changes with the state and the contacts). A coarse level's
//!   node is an aggregate's two block rows, translation and rotation.
//! - The levels below the finest are kept from solve to solve while they
//!   serve (`Budget`): each solve assembles the finest level afresh (its
//!   matrix, diagonal and largest eigenvalue by a few power iterations
//!   from the last one's vector) and keeps `P` and the coarse matrices of
//!   the last build. Any symmetric positive definite coarse matrix leaves
//!   the V-cycle symmetric positive definite, so kept levels change how
//!   fast CG converges, never what it converges to. A build bounds each
//!   level's largest eigenvalue, which the Chebyshev smoother must not
//!   fall short of, by Lanczos (`spectrum.rs`).
//! - The coarsest level (at most `COARSEST` nodes) is solved by a dense
//!   Cholesky factorisation (`coarsest.rs`).

mod aggregate;
mod bsr;
mod coarsest;
mod pattern;
mod prolong;
mod spectrum;

pub use bsr::{Bsr, Single};
pub use coarsest::Coarsest;
pub use pattern::Pattern;
pub use spectrum::{LAMBDA_MARGIN, lambda_max};

use crate::error::{Error, Result};
use coarsest::Cholesky;
use glam::{DMat3, DVec3};
use prolong::{Modes, cross_matrix, hold_dropped, smooth, tentative};
use spectrum::lanczos_max;

/// The most nodes (vertices, or aggregates) the coarsest level has: it is
/// solved directly. A device may take a larger one (`Hierarchy::with_coarsest`).
const COARSEST: usize = 48;
/// The most block rows a coarsest level is factorised densely with (a
/// mesh whose aggregation stalls, such as thousands of loose triangles,
/// ends at a larger level, which block Jacobi then approximates).
const DENSE_ROWS: usize = 1024;
/// Lanczos steps for each level's `lambda_max(D^-1 A)` at a build
/// (`spectrum.rs`), and power iterations for the finest level's from the
/// last estimate's vector when the coarse levels are kept.
const LANCZOS_STEPS: usize = 12;
pub const WARM_POWER_ITERATIONS: usize = 4;
/// A solve on kept levels may take this many times the iterations of the
/// first solve after their build before they are built afresh.
const GROWTH: f64 = 1.5;
/// The fewest iterations a budget is reckoned from: after a first solve of
/// a handful of iterations (a warm start near the answer) its successors
/// would get a budget of 2 or 3 and rebuild the levels every few steps.
/// The container scene (441 vertices, 1400 steps) rebuilt them 113 times
/// with no floor, 64 with a floor of 10 and 3 with 20: 7.1, 6.6 and 5.9 ms
/// a step (block Jacobi: 10.1).
const FLOOR: usize = 20;
/// The degree of the Chebyshev smoother before and after each coarse
/// correction, on the finest level and on the coarser ones, and the lower
/// end of the eigenvalues it damps, as a fraction of the largest (PyAMG's
/// default). Measured on the twist (CG iterations a step at 7K,
/// 27.9K and 111K vertices): damped Jacobi, 2 sweeps on the finest level
/// and 2 on the others, takes 29.5, 41 and 59.5; 2 and 16, 24.5, 26 and
/// 32; Chebyshev of degrees 2 and 16, 19, 20.5 and 22.5, in 20% less time
/// (2 and 8: 19, 20.5 and 26, about the same time; a fraction of 1/100
/// instead of 1/30: 23, 25 and 28). The coarse levels are small; their
/// smoothing makes the coarse correction nearly exact and the count flat.
/// With the levels kept from step to step and applied in f32 (10 steps):
/// 2 and 16, 20.6 iterations and 349-391 ms a solve at 27.9K; 2 and 8,
/// 20.1, 21.0 and 24.1 at the three sizes, 347 ms at 27.9K; 2 and 4,
/// 20.6, 22.7 and 29.4, 295-353 ms.
pub const DEGREE: usize = 2;
pub const COARSE_DEGREE: usize = 8;
pub const LOWEST: f64 = 1.0 / 30.0;

/// The damping of the smoothed prolongator's Jacobi step, over
/// `lambda_max(D^-1 A)` (Vaněk et al.'s 4/3).
const PROLONGATOR_DAMPING: f64 = 4.0 / 3.0;

/// One level above the coarsest: its matrix in single precision (the
/// V-cycle applies it), the inverse diagonal blocks of its smoother, the
/// largest eigenvalue of `D^-1 A` (an upper estimate), and the transfers
/// to the next coarser level.
#[derive(Clone)]
pub struct Level {
    pub a: Single,
    pub inv_diag: Vec<DMat3>,
    pub lambda: f64,
    pub p: Single,
    pub pt: Single,
}

/// The levels (finest first) and the coarsest level's solve.
#[derive(Clone)]
pub struct Hierarchy {
    /// The most nodes of the coarsest level.
    coarsest_nodes: usize,
    /// Each level's aggregates (which coarse node each node joins, and
    /// how many), kept from build to build: the pattern does not change.
    aggregates: Vec<(Vec<u32>, usize)>,
    pub levels: Vec<Level>,
    pub coarsest: Coarsest,
    /// The coarsest level's diagonal blocks.
    coarsest_diagonal: Vec<DMat3>,
    /// The finest level's last power-iteration vector.
    pub eigenvector: Vec<DVec3>,
}

impl Default for Hierarchy {
    fn default() -> Self {
        Hierarchy::with_coarsest(COARSEST)
    }
}

impl Hierarchy {
    /// A hierarchy whose coarsest level has at most `nodes` nodes (a
    /// device applies its dense inverse, `Coarsest::inverse`, which is
    /// formed up to 768 scalar unknowns: 128 coarse nodes).
    pub fn with_coarsest(nodes: usize) -> Hierarchy {
        Hierarchy {
            coarsest_nodes: nodes,
            aggregates: Vec::new(),
            levels: Vec::new(),
            coarsest: Coarsest::default(),
            coarsest_diagonal: Vec::new(),
            eigenvector: Vec::new(),
        }
    }

    /// Whether the next build aggregates the levels (the first build).
    pub fn unaggregated(&self) -> bool {
        self.aggregates.is_empty()
    }

    /// Builds the levels from the finest matrix `a`, at positions `x` (the
    /// rigid rotations turn about them), aggregating each level that has
    /// no aggregates yet.
    pub fn build(&mut self, mut a: Bsr, x: &[DVec3]) -> Result<()> {
        // A translation moves every vertex alike; a rotation w moves x by
        // w x x = -[x]_x w.
        let mut modes: Vec<Modes> = x.iter().map(|p| [DMat3::IDENTITY, -cross_matrix(*p)]).collect();
        let mut group = 1;
        self.levels.clear();
        for depth in 0.. {
            if a.rows() / group <= self.coarsest_nodes {
                break;
            }
            if self.aggregates.len() == depth {
                self.aggregates
                    .push(aggregate::aggregate(&aggregate::Graph::of(&a, group)));
            }
            let (of, count) = &self.aggregates[depth];
            if of.len() != a.rows() / group || 2 * count >= a.rows() {
                break;
            }
            let (p0, coarse_modes, dropped) = tentative(&modes, group, of, *count);
            let diagonal = a.diagonal();
            let inv_diag: Vec<DMat3> = diagonal.iter().map(|d| d.inverse()).collect();
            let single = Single::of(&a);
            // From the fixed start, so that a build does not depend on
            // the run's past (a resumed run builds the same levels).
            let mut start = Vec::new();
            let lambda = lanczos_max(&single, &diagonal, &inv_diag, &mut start, LANCZOS_STEPS);
            if depth == 0 {
                self.eigenvector = start;
            }
            let p = smooth(&a, &inv_diag, PROLONGATOR_DAMPING / lambda, &p0);
            let pt = p.transpose();
            let mut coarse = pt.product(&a.product(&p));
            hold_dropped(&mut coarse, &dropped);
            self.levels.push(Level {
                a: single,
                inv_diag,
                lambda,
                p: Single::of(&p),
                pt: Single::of(&pt),
            });
            (a, modes, group) = (coarse, coarse_modes, 2);
        }
        self.coarsest_diagonal = a.diagonal();
        self.coarsest = match a.rows() <= DENSE_ROWS {
            true => Coarsest::Cholesky(Cholesky::new(a.dense()).ok_or_else(|| {
                Error::Step(
                    "the multilevel preconditioner's coarsest matrix is not positive definite: the state blew up"
                        .into(),
                )
            })?),
            false => Coarsest::Jacobi(self.coarsest_diagonal.iter().map(|d| d.inverse()).collect()),
        };
        Ok(())
    }

    /// The coarsest level's solve as a matrix (`Coarsest::inverse`).
    pub fn coarsest_inverse(&self) -> Bsr {
        self.coarsest.inverse(&self.coarsest_diagonal)
    }
}

/// When the kept levels are built afresh: a solve on them gets a budget of
/// `growth` times the iterations of the first solve after their build (or
/// of `FLOOR`, if more); past it they are built afresh. `renew` (after
/// every output frame, where a resumed run starts) asks for a build.
#[derive(Clone)]
pub struct Budget {
    growth: f64,
    /// Whether the last setup kept the coarse levels.
    kept: bool,
    /// The iterations of the first solve after the last build; `None`: the
    /// next setup builds every level.
    first: Option<usize>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::with_growth(GROWTH)
    }
}

impl Budget {
    pub fn with_growth(growth: f64) -> Budget {
        Budget {
            growth,
            kept: false,
            first: None,
        }
    }

    /// Whether a setup may keep the levels it has (`built`: it has some);
    /// if not, it builds them.
    pub fn keep(&mut self, built: bool) -> bool {
        self.kept = built && self.first.is_some();
        if !self.kept {
            self.first = None;
        }
        self.kept
    }

    /// The most iterations a solve on kept levels may take before they are
    /// built afresh; `None` when the last setup built them.
    pub fn budget(&self) -> Option<usize> {
        let first = self.first.filter(|_| self.kept)?;
        Some((self.growth * first.max(FLOOR) as f64).ceil() as usize)
    }

    /// Takes note of a solve's iterations: the first after a build sets
    /// the budget of the solves that keep its levels.
    pub fn solved(&mut self, iterations: usize) {
        if !self.kept {
            self.first = Some(iterations);
        }
    }

    /// The next setup builds every level afresh.
    pub fn renew(&mut self) {
        self.first = None;
    }
}
