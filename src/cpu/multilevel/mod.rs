//! The multilevel preconditioner of the CPU's implicit solve: one
//! V-cycle per CG iteration (`cycle.rs`) on the hierarchy of
//! `multigrid` (smoothed aggregation; its module doc says how the levels
//! are built and kept). Each solve takes the finest level afresh from
//! the step's assembled matrix (`cpu/assembly.rs`, with the
//! self-collision springs, whose pattern grows by the vertices their
//! pairs couple) and keeps the coarse levels within their `Budget`; past
//! it, the hierarchy is built afresh and CG goes on from its iterate
//! (cpu/executor.rs).

mod cycle;

use cycle::{Work, cycle};

use super::assembly::Assembly;
use super::hessian::Operator;
use super::pcg::Filter;
use crate::error::Result;
use crate::multigrid::{Bsr, Budget, DEGREE, Hierarchy, Single, WARM_POWER_ITERATIONS, lambda_max};
use glam::DVec3;

/// The hierarchy and the V-cycle's work vectors.
#[derive(Clone, Default)]
pub struct Multilevel {
    hierarchy: Hierarchy,
    budget: Budget,
    work: Vec<Work>,
}

impl Multilevel {
    /// Builds the levels for `a`, the operator's matrix under the filter
    /// (`assembly.matrix(op, filter, pairs)`, pairs when the operator has
    /// them), at positions `x` (the rigid rotations turn about them), or
    /// keeps the coarse ones and takes `a` as the finest.
    pub fn setup(
        &mut self,
        assembly: &mut Assembly,
        op: &Operator,
        filter: &Filter,
        a: &Bsr,
        x: &[DVec3],
    ) -> Result<()> {
        let h = &mut self.hierarchy;
        if self.budget.keep(!h.levels.is_empty()) {
            let level = &mut h.levels[0];
            level.inv_diag = a.diagonal().iter().map(|d| d.inverse()).collect();
            level.a = Single::of(a);
            level.lambda = lambda_max(&level.a, &level.inv_diag, &mut h.eigenvector, WARM_POWER_ITERATIONS);
            return Ok(());
        }
        // The aggregates of every level come from the mesh's pattern.
        if h.unaggregated() && op.repulsion.is_some() {
            h.build(assembly.matrix(op, filter, false), x)?;
        }
        h.build(a.clone(), x)?;
        self.work = h.levels.iter().map(Work::of).collect();
        Ok(())
    }

    /// The most iterations a solve on kept levels may take before they are
    /// built afresh; `None` when the last setup built them.
    pub fn budget(&self) -> Option<usize> {
        self.budget.budget()
    }

    /// Takes note of a solve's iterations.
    pub fn solved(&mut self, iterations: usize) {
        self.budget.solved(iterations);
    }

    /// The next solve builds every level afresh.
    pub fn renew(&mut self) {
        self.budget.renew();
    }

    /// `z = S M^-1 S r` for `r` already filtered: one V-cycle.
    pub fn apply(&mut self, filter: &Filter, r: &[DVec3], z: &mut [DVec3]) {
        let h = &self.hierarchy;
        cycle(&h.levels, &mut self.work, &h.coarsest, r, z, DEGREE);
        filter.apply(z);
    }
}

#[cfg(test)]
impl Multilevel {
    /// `setup` with the matrix assembled for it.
    pub(crate) fn setup_assembled(&mut self, op: &Operator, filter: &Filter, x: &[DVec3]) -> Result<()> {
        let mut assembly = Assembly::default();
        let a = assembly.matrix(op, filter, op.repulsion.is_some());
        self.setup(&mut assembly, op, filter, &a, x)
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
            None,
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

    /// The assembled matrix (`cpu/assembly.rs`: the finest level, and
    /// CG's product) against the matrix-free operator with self-collision
    /// springs: `S A S p + (I - S) m p` for any `p`.
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
        let a = Assembly::default().matrix(&op, &filter, true);
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
        ml.setup_assembled(&sheet.operator(), &filter, &x).unwrap();
        assert!(ml.hierarchy.levels.len() >= 2, "{} levels", ml.hierarchy.levels.len());
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
        ml.setup_assembled(&op, &filter, &x).unwrap();
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
        ml.setup_assembled(&sheet.operator(), &filter, &x).unwrap();
        assert_eq!(ml.budget(), None);
        let first = solve_to_1e8(
            &sheet,
            &sheet.operator(),
            &filter,
            &mut Preconditioning::Multilevel(&mut ml),
            &b,
        );
        ml.solved(first.iterations);
        let coarse = ml.hierarchy.levels[1].a.clone();
        let mut next = |wave: f64, jitter: f64, h: f64, rng: &mut Rng| {
            let moved: Vec<DVec3> = x
                .iter()
                .map(|p| *p + DVec3::new(1e-3, 0.0, wave * (10.0 * p.x).sin()) + rng.vec3(jitter))
                .collect();
            let sheet = Sheet::at(Sheet::cloth(60, 40), &moved, h);
            ml.setup_assembled(&sheet.operator(), &filter, &moved).unwrap();
            assert!(ml.hierarchy.levels[1].a == coarse, "the coarse levels were built again");
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
        ml.setup_assembled(&waved.operator(), &filter, &moved).unwrap();
        assert!(ml.budget().is_some() && ml.hierarchy.levels[1].a == coarse);
        ml.renew();
        ml.setup_assembled(&waved.operator(), &filter, &moved).unwrap();
        assert!(ml.budget().is_none() && ml.hierarchy.levels[1].a != coarse);
    }

    /// Stiff self-collision springs between distant vertices of the 60 x
    /// 40 sheet join the levels whole, so the multilevel solve takes at
    /// most twice the iterations with them as without (measured 34 against
    /// 22; by their diagonal blocks alone it took several times as many;
    /// 33 against 32 while the smoother's eigenvalue came from power
    /// iterations, which served the sheet without springs worse).
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
            ml.setup_assembled(&op, &filter, &x).unwrap();
            let s = solve_to_1e8(&sheet, &op, &filter, &mut Preconditioning::Multilevel(&mut ml), &b);
            assert!(s.residual <= 1e-8, "{s:?}");
            s.iterations
        };
        let (plain, with) = (iterations(None), iterations(Some(&repulsion)));
        println!("without springs {plain} iterations, with {with}");
        assert!(with <= 2 * plain, "{with} against {plain}");
    }
}
