//! The multilevel preconditioner of the implicit solve: smoothed
//! aggregation (Vaněk, Mandel & Brezina 1996), applied to cloth as
//! Tamstorf, Jones & McCormick 2015 do, as one V-cycle per CG iteration.
//!
//! - The finest level is the step's system matrix `A = M + S`, assembled
//!   from the element blocks (membrane, bending, friction springs, the air
//!   and sticking blocks, the self-collision springs),
//!   with the constraint filter folded in, as Tamstorf et al. filter their
//!   system: `S A S + (I - S) m` (the vertex's mass where they put the
//!   identity, so the scales match), so a pinned vertex or a contact's
//!   normal is an unknown of its own that the other rows do not see.
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
//!   serve: each solve assembles the finest level afresh (the smoother's
//!   matrix and diagonal, the largest eigenvalue by a few power
//!   iterations from the last one's vector) and keeps `P` and the coarse
//!   matrices of the last full build. A solve on kept levels gets a
//!   `budget` of `GROWTH` times the iterations of the first solve after
//!   the build (or of `FLOOR`, if more); past it, the hierarchy is built afresh and CG goes on from
//!   its iterate (cpu/executor.rs). `renew` (after every output frame,
//!   where a resumed run starts) asks for a full build. Any symmetric
//!   positive definite coarse matrix leaves the V-cycle symmetric
//!   positive definite, so kept levels change how fast CG converges,
//!   never what it converges to.
//! - Each level is smoothed by Chebyshev polynomials in `D^-1 A` (block
//!   Jacobi's), of degree `DEGREE` (the finest) or `COARSE_DEGREE` (the
//!   others) before and after the coarse correction (the same both ways,
//!   so the cycle is symmetric as CG needs; `cycle.rs`); the coarsest
//!   level (at most `COARSEST` nodes) is solved by a dense Cholesky
//!   factorisation (`coarsest.rs`).

mod aggregate;
mod bsr;
mod coarsest;
mod cycle;
mod fine;
mod prolong;

use bsr::{Bsr, Single};
use coarsest::{Cholesky, Coarsest};
use cycle::{DEGREE, Level, cycle, lambda_max};
use fine::FinePattern;
use prolong::{Modes, cross_matrix, hold_dropped, smooth, tentative};

use super::hessian::Operator;
use super::pcg::Filter;
use crate::error::{Error, Result};
use glam::{DMat3, DVec3};

/// The most nodes (vertices, or aggregates) the coarsest level has: it is
/// solved directly.
const COARSEST: usize = 48;
/// The most block rows a coarsest level is factorised densely with (a
/// mesh whose aggregation stalls, such as thousands of loose triangles,
/// ends at a larger level, which block Jacobi then approximates).
const DENSE_ROWS: usize = 1024;
/// Power iterations for each level's `lambda_max(D^-1 A)` from a fixed
/// start, and for the finest level's from the last estimate's vector when
/// the coarse levels are kept.
const POWER_ITERATIONS: usize = 12;
const WARM_POWER_ITERATIONS: usize = 4;
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

/// The hierarchy: its levels (finest first) and the coarsest level's
/// solve.
#[derive(Clone, Default)]
pub struct Multilevel {
    /// Each level's aggregates, kept from solve to solve (the pattern does
    /// not change).
    aggregates: Vec<(Vec<u32>, usize)>,
    fine: Option<FinePattern>,
    levels: Vec<Level>,
    coarsest: Coarsest,
    /// Whether the last setup kept the coarse levels.
    kept: bool,
    /// The iterations of the first solve after the last full build;
    /// `None`: the next setup builds every level.
    first: Option<usize>,
    /// The finest level's last power-iteration vector.
    eigenvector: Vec<DVec3>,
}

impl Multilevel {
    /// Builds the levels for the operator's matrix under the filter, at
    /// positions `x` (the rigid rotations turn about them).
    pub fn setup(&mut self, op: &Operator, filter: &Filter, x: &[DVec3]) -> Result<()> {
        let fine = self.fine.get_or_insert_with(|| FinePattern::new(op.cloth));
        let pairs = op.repulsion.is_some();
        if self.first.is_some()
            && let Some(level) = self.levels.first_mut()
        {
            self.kept = true;
            let a = fine.assemble(op, filter, pairs);
            level.inv_diag = a.diagonal().iter().map(|d| d.inverse()).collect();
            level.a = Single::of(&a);
            level.lambda = lambda_max(&level.a, &level.inv_diag, &mut self.eigenvector, WARM_POWER_ITERATIONS);
            return Ok(());
        }
        (self.kept, self.first) = (false, None);
        // The aggregates of every level come from the mesh's pattern.
        let mesh = (self.aggregates.is_empty() && pairs).then(|| fine.assemble(op, filter, false));
        let a = fine.assemble(op, filter, pairs);
        if let Some(mesh) = mesh {
            self.build(mesh, x)?;
        }
        self.build(a, x)
    }

    /// The most iterations a solve on kept levels may take before they are
    /// built afresh (`GROWTH` times the first solve's after the build, or
    /// `FLOOR`'s); `None` when the last setup built them.
    pub fn budget(&self) -> Option<usize> {
        let first = self.first.filter(|_| self.kept)?;
        Some((GROWTH * first.max(FLOOR) as f64).ceil() as usize)
    }

    /// Takes note of a solve's iterations: the first after a build sets
    /// the budget of the solves that keep its levels.
    pub fn solved(&mut self, iterations: usize) {
        if !self.kept {
            self.first = Some(iterations);
        }
    }

    /// The next solve builds every level afresh.
    pub fn renew(&mut self) {
        self.first = None;
    }

    /// Builds the levels from the finest matrix `a`, at positions `x`,
    /// aggregating each level that has no aggregates yet.
    fn build(&mut self, mut a: Bsr, x: &[DVec3]) -> Result<()> {
        // A translation moves every vertex alike; a rotation w moves x by
        // w x x = -[x]_x w.
        let mut modes: Vec<Modes> = x.iter().map(|p| [DMat3::IDENTITY, -cross_matrix(*p)]).collect();
        let mut group = 1;
        self.levels.clear();
        for depth in 0.. {
            if a.rows() / group <= COARSEST {
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
            let inv_diag: Vec<DMat3> = a.diagonal().iter().map(|d| d.inverse()).collect();
            let single = Single::of(&a);
            let mut start = Vec::new();
            let lambda = lambda_max(&single, &inv_diag, &mut start, POWER_ITERATIONS);
            if depth == 0 {
                self.eigenvector = start;
            }
            let p = smooth(&a, &inv_diag, 4.0 / (3.0 * lambda), &p0);
            let pt = p.transpose();
            let mut coarse = pt.product(&a.product(&p));
            hold_dropped(&mut coarse, &dropped);
            let n = a.rows();
            self.levels.push(Level {
                a: single,
                inv_diag,
                lambda,
                p: Single::of(&p),
                pt: Single::of(&pt),
                r: vec![DVec3::ZERO; n],
                d: vec![DVec3::ZERO; n],
                ad: vec![DVec3::ZERO; n],
                coarse_b: vec![DVec3::ZERO; 2 * count],
                coarse_x: vec![DVec3::ZERO; 2 * count],
            });
            (a, modes, group) = (coarse, coarse_modes, 2);
        }
        self.coarsest = match a.rows() <= DENSE_ROWS {
            true => Coarsest::Cholesky(Cholesky::new(a.dense()).ok_or_else(|| {
                Error::Step(
                    "the multilevel preconditioner's coarsest matrix is not positive definite: the state blew up"
                        .into(),
                )
            })?),
            false => Coarsest::Jacobi(a.diagonal().iter().map(|d| d.inverse()).collect()),
        };
        Ok(())
    }

    /// `z = S M^-1 S r` for `r` already filtered: one V-cycle.
    pub fn apply(&mut self, filter: &Filter, r: &[DVec3], z: &mut [DVec3]) {
        cycle(&mut self.levels, &self.coarsest, r, z, DEGREE);
        filter.apply(z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::proximity::{Pair, Proximity};
    use crate::cpu::hessian::Scratch;
    use crate::cpu::pcg::{Preconditioning, Vectors, solve};
    use crate::cpu::repulsion::Repulsion;
    use crate::cpu::testing::{Sheet, constraints};
    use crate::model::testing::Rng;
    use crate::step::sequence::Solve;

    /// A sheet of `nx x ny` quads stretched 5% and rippled at step `h`;
    /// every 17th vertex pinned, every 7th resting on a surface of random
    /// normal.
    fn case(nx: usize, ny: usize, h: f64, rng: &mut Rng) -> (Sheet, Vec<DVec3>, Vec<bool>, Vec<DVec3>) {
        let cloth = Sheet::cloth(nx, ny);
        let x: Vec<DVec3> = cloth
            .mesh
            .positions
            .iter()
            .map(|p| *p * 1.05 + rng.vec3(0.002))
            .collect();
        let (free, normals) = constraints(x.len(), rng);
        (Sheet::at(cloth, &x, h), x, free, normals)
    }

    fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
    }

    /// Self-collision springs of a step `h`: 40 vertex-triangle pairs
    /// between random vertices of the sheet, with random weights and
    /// normals.
    fn springs(sheet: &Sheet, h: f64, rng: &mut Rng) -> Proximity {
        let n = sheet.cloth.mesh.positions.len();
        let pairs = (0..40)
            .map(|k| {
                let w = [rng.uniform(), rng.uniform()];
                let (w0, w1) = (w[0] * 0.5, w[1] * 0.5);
                Pair {
                    v: [0, 1, 2, 3].map(|j| ((k * 31 + j * (n / 4 + 7)) % n) as u32),
                    c: [1.0, -w0, -w1, w0 + w1 - 1.0],
                    n: rng.vec3(1.0).normalize(),
                    d: 0.001 * h,
                }
            })
            .collect();
        Proximity::new(pairs, n)
    }

    /// The springs of `prox` at `stiffness` (N/m) in a step `h`.
    fn repulsion(prox: &Proximity, stiffness: f64, h: f64) -> Repulsion<'_> {
        Repulsion {
            prox,
            stiffness,
            thickness: 0.002,
            friction: 0.0,
            scale: h * h,
        }
    }

    /// Solves `A x = b` from zero to a relative residual of 1e-8.
    fn solve_to_1e8(
        sheet: &Sheet,
        op: &Operator,
        filter: &Filter,
        precond: &mut Preconditioning,
        b: &[DVec3],
    ) -> Solve {
        let mut sol = vec![DVec3::ZERO; b.len()];
        let mut scratch = Scratch::new(&sheet.cloth);
        let s = solve(
            op,
            &mut scratch,
            &mut Vectors::default(),
            precond,
            filter,
            b,
            &mut sol,
            1e-8,
            0.0,
            5000,
        );
        s.unwrap()
    }

    /// The assembled finest level against the matrix-free operator with
    /// self-collision springs: `S A S p + (I - S) m p` for any `p`.
    #[test]
    fn the_finest_level_is_the_filtered_operator() {
        let mut rng = Rng(5);
        let h = 2e-3;
        let (sheet, _, free, normals) = case(12, 8, h, &mut rng);
        let filter = Filter {
            free: &free,
            normals: &normals,
        };
        let prox = springs(&sheet, h, &mut rng);
        let repulsion = repulsion(&prox, 50.0, h);
        let op = Operator {
            repulsion: Some(&repulsion),
            ..sheet.operator()
        };
        let a = FinePattern::new(&sheet.cloth).assemble(&op, &filter, true);
        let n = free.len();
        let p: Vec<DVec3> = (0..n).map(|_| rng.vec3(1.0)).collect();
        let sp: Vec<DVec3> = (0..n).map(|i| filter.project(i, p[i])).collect();
        let mut asp = vec![DVec3::ZERO; n];
        op.apply(&mut Scratch::new(&sheet.cloth), &sp, &mut asp);
        let mut got = vec![DVec3::ZERO; n];
        a.apply(&p, &mut got);
        let scale = asp.iter().fold(0.0f64, |m, v| m.max(v.length()));
        for i in 0..n {
            let want = filter.project(i, asp[i]) + (p[i] - sp[i]) * sheet.cloth.mass[i];
            assert!(
                (got[i] - want).length() <= 1e-12 * scale,
                "vertex {i}: {} against {want}",
                got[i]
            );
        }
    }

    /// The tentative prolongator holds every rigid motion: `P0 R = B` row
    /// by row; a two-vertex aggregate cannot tell the rotation about its
    /// own line from rest, and drops it.
    #[test]
    fn the_tentative_prolongator_holds_the_rigid_motions() {
        let mut rng = Rng(11);
        let x: Vec<DVec3> = (0..9).map(|_| rng.vec3(0.1)).collect();
        let modes: Vec<Modes> = x.iter().map(|p| [DMat3::IDENTITY, -cross_matrix(*p)]).collect();
        let of = [0, 0, 0, 1, 1, 1, 1, 2, 2];
        let (p0, coarse, dropped) = tentative(&modes, 1, &of, 3);
        assert_eq!(dropped.len(), 1, "{dropped:?}");
        assert_eq!(dropped[0].0, 5, "the rotation row of aggregate 2");
        for (k, m) in modes.iter().enumerate() {
            for side in 0..2 {
                let got = p0.row(k).fold(DMat3::ZERO, |s, (j, b)| s + *b * coarse[j][side]);
                let err = (got - m[side])
                    .to_cols_array()
                    .iter()
                    .fold(0.0f64, |e, v| e.max(v.abs()));
                assert!(err < 1e-12, "row {k}, side {side}: {got} against {}", m[side]);
            }
        }
    }

    /// On a 40 x 30 sheet (1271 vertices, two levels and the coarsest):
    /// the V-cycle with its filter is symmetric and positive definite, as
    /// conjugate gradients need: symmetric to single precision, in which
    /// the levels are applied (u.Mv and v.Mu differ by 7.6e-7 of either;
    /// in f64 by less than 1e-10).
    #[test]
    fn the_cycle_is_symmetric_and_positive_definite() {
        let mut rng = Rng(3);
        let (sheet, x, free, normals) = case(40, 30, 2e-3, &mut rng);
        let filter = Filter {
            free: &free,
            normals: &normals,
        };
        let mut ml = Multilevel::default();
        ml.setup(&sheet.operator(), &filter, &x).unwrap();
        assert!(ml.levels.len() >= 2, "{} levels", ml.levels.len());
        let n = x.len();
        let filtered = |rng: &mut Rng| -> Vec<DVec3> { (0..n).map(|i| filter.project(i, rng.vec3(1.0))).collect() };
        let (u, v) = (filtered(&mut rng), filtered(&mut rng));
        let (mut mu, mut mv) = (vec![DVec3::ZERO; n], vec![DVec3::ZERO; n]);
        ml.apply(&filter, &u, &mut mu);
        ml.apply(&filter, &v, &mut mv);
        let (umv, vmu) = (dot(&u, &mv), dot(&v, &mu));
        assert!((umv - vmu).abs() <= 1e-5 * umv.abs(), "u.Mv {umv} against v.Mu {vmu}");
        assert!(dot(&u, &mu) > 0.0 && dot(&v, &mv) > 0.0);
    }

    /// On a 60 x 40 sheet (2501 vertices) at 2 ms steps, with pinned and
    /// resting vertices: both preconditioners reach the tolerance, the
    /// multilevel one in a fraction of block Jacobi's iterations.
    #[test]
    fn the_multilevel_solve_takes_a_fraction_of_jacobis_iterations() {
        let mut rng = Rng(21);
        let (sheet, x, free, normals) = case(60, 40, 2e-3, &mut rng);
        let filter = Filter {
            free: &free,
            normals: &normals,
        };
        let op = sheet.operator();
        let n = x.len();
        let b: Vec<DVec3> = (0..n).map(|_| rng.vec3(1e-3)).collect();
        let mut ml = Multilevel::default();
        ml.setup(&op, &filter, &x).unwrap();
        let jacobi = solve_to_1e8(&sheet, &op, &filter, &mut Preconditioning::Jacobi(&sheet.inv_diag), &b);
        let multilevel = solve_to_1e8(&sheet, &op, &filter, &mut Preconditioning::Multilevel(&mut ml), &b);
        println!("jacobi {jacobi:?}, multilevel {multilevel:?}");
        assert!(jacobi.residual <= 1e-8 && multilevel.residual <= 1e-8);
        assert!(5 * multilevel.iterations < jacobi.iterations);
    }

    /// A hierarchy kept from a solve on the 60 x 40 sheet serves the next
    /// step's system (the sheet carried 1 mm and waved by 0.5 mm) within
    /// its budget; a system it does not serve (every vertex jittered by up
    /// to 3 mm, a step half again as long) takes it past its budget;
    /// `renew` makes the next setup build afresh.
    #[test]
    fn a_kept_hierarchy_serves_the_next_step_within_its_budget() {
        let mut rng = Rng(5);
        let h = 2e-3;
        let (sheet, x, free, normals) = case(60, 40, h, &mut rng);
        let filter = Filter {
            free: &free,
            normals: &normals,
        };
        let n = x.len();
        let b: Vec<DVec3> = (0..n).map(|_| rng.vec3(1e-3)).collect();
        let mut ml = Multilevel::default();
        ml.setup(&sheet.operator(), &filter, &x).unwrap();
        assert_eq!(ml.budget(), None);
        let first = solve_to_1e8(
            &sheet,
            &sheet.operator(),
            &filter,
            &mut Preconditioning::Multilevel(&mut ml),
            &b,
        );
        ml.solved(first.iterations);
        let coarse = ml.levels[1].a.clone();
        let mut next = |wave: f64, jitter: f64, h: f64, rng: &mut Rng| {
            let moved: Vec<DVec3> = x
                .iter()
                .map(|p| *p + DVec3::new(1e-3, 0.0, wave * (10.0 * p.x).sin()) + rng.vec3(jitter))
                .collect();
            let sheet = Sheet::at(Sheet::cloth(60, 40), &moved, h);
            ml.setup(&sheet.operator(), &filter, &moved).unwrap();
            assert!(ml.levels[1].a == coarse, "the coarse levels were built again");
            let s = solve_to_1e8(
                &sheet,
                &sheet.operator(),
                &filter,
                &mut Preconditioning::Multilevel(&mut ml),
                &b,
            );
            ml.solved(s.iterations);
            s
        };
        let step = next(5e-4, 0.0, h, &mut rng);
        let jolt = next(0.0, 3e-3, 1.5 * h, &mut rng);
        let budget = ml.budget().unwrap();
        println!("first {first:?}, next step {step:?}, jolted {jolt:?}, budget {budget}");
        assert!(step.residual <= 1e-8 && step.iterations <= budget);
        assert!(jolt.iterations > budget);
        let moved: Vec<DVec3> = x
            .iter()
            .map(|p| *p + DVec3::new(0.0, 0.0, 5e-4 * (10.0 * p.x).sin()))
            .collect();
        let waved = Sheet::at(Sheet::cloth(60, 40), &moved, h);
        ml.setup(&waved.operator(), &filter, &moved).unwrap();
        assert!(ml.budget().is_some() && ml.levels[1].a == coarse);
        ml.renew();
        ml.setup(&waved.operator(), &filter, &moved).unwrap();
        assert!(ml.budget().is_none() && ml.levels[1].a != coarse);
    }

    /// Stiff self-collision springs between distant vertices of the 60 x
    /// 40 sheet join the levels whole, so the multilevel solve takes
    /// about as many iterations with them as without (by their diagonal
    /// blocks alone it took several times as many).
    #[test]
    fn self_collision_springs_do_not_slow_the_multilevel_solve() {
        let mut rng = Rng(8);
        let h = 2e-3;
        let (sheet, x, free, normals) = case(60, 40, h, &mut rng);
        let filter = Filter {
            free: &free,
            normals: &normals,
        };
        let prox = springs(&sheet, h, &mut rng);
        let repulsion = repulsion(&prox, 1e4, h);
        let n = x.len();
        let b: Vec<DVec3> = (0..n).map(|_| rng.vec3(1e-3)).collect();
        let iterations = |repulsion: Option<&Repulsion>| {
            let op = Operator {
                repulsion,
                ..sheet.operator()
            };
            let mut ml = Multilevel::default();
            ml.setup(&op, &filter, &x).unwrap();
            let s = solve_to_1e8(&sheet, &op, &filter, &mut Preconditioning::Multilevel(&mut ml), &b);
            assert!(s.residual <= 1e-8, "{s:?}");
            s.iterations
        };
        let (plain, with) = (iterations(None), iterations(Some(&repulsion)));
        println!("without springs {plain} iterations, with {with}");
        assert!(2 * with <= 3 * plain, "{with} against {plain}");
    }
}
