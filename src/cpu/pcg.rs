//! Preconditioned conjugate gradients with the constraint filter of Baraff &
//! Witkin 1998 (§5.3): pinned vertices keep their prescribed values in the
//! initial guess and are zeroed out of every residual and search direction;
//! vertices resting on an obstacle keep their prescribed normal component
//! and are filtered with `I - n n^T`, so they move only along the surface.
//! The solve runs on the unconstrained subspace only. Preconditioner: the
//! inverse 3x3 diagonal blocks (block Jacobi), or one V-cycle of the
//! multilevel hierarchy (`multilevel`), filtered the same way.

use super::hessian::{Operator, Scratch};
use super::multilevel::Multilevel;
use super::reduce::{CHUNK, dot};
use crate::error::{Error, Result};
use crate::multigrid::Bsr;
use crate::step::SOLVE_RESTARTS;
use crate::step::sequence::Solve;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// Work vectors, kept between solves to avoid reallocating.
#[derive(Clone, Default)]
pub struct Vectors {
    r: Vec<DVec3>,
    z: Vec<DVec3>,
    p: Vec<DVec3>,
    q: Vec<DVec3>,
}

const MIN_LEN: usize = 1024;

/// Baraff & Witkin's filter `S` (their §5.3): pinned vertices are
/// fully constrained (`S_i = 0`), vertices resting on an obstacle
/// (`normals[i]` not zero) in their normal direction only
/// (`S_i = I - n n^T`), the rest not at all.
pub struct Filter<'a> {
    pub free: &'a [bool],
    pub normals: &'a [DVec3],
}

impl Filter<'_> {
    /// `S_i v`.
    pub fn project(&self, i: usize, v: DVec3) -> DVec3 {
        if !self.free[i] {
            return DVec3::ZERO;
        }
        let n = self.normals[i];
        v - n * n.dot(v)
    }

    /// `S_i` as a matrix, `None` where it is the identity.
    pub fn matrix(&self, i: usize) -> Option<DMat3> {
        match (self.free[i], self.normals[i]) {
            (false, _) => Some(DMat3::ZERO),
            (true, n) if n == DVec3::ZERO => None,
            (true, n) => Some(DMat3::IDENTITY - crate::model::membrane::outer(n, n)),
        }
    }

    pub fn apply(&self, v: &mut [DVec3]) {
        v.par_iter_mut()
            .with_min_len(MIN_LEN)
            .enumerate()
            .for_each(|(i, x)| *x = self.project(i, *x));
    }
}

/// The preconditioner `P` of a solve, applied as `z = S P r`.
pub enum Preconditioning<'a> {
    /// The inverse 3x3 diagonal blocks.
    Jacobi(&'a [DMat3]),
    /// One V-cycle of a hierarchy set up for the solve's operator and filter.
    Multilevel(&'a mut Multilevel),
}

impl Preconditioning<'_> {
    fn apply(&mut self, filter: &Filter, r: &[DVec3], z: &mut [DVec3]) {
        match self {
            Preconditioning::Jacobi(inv_diag) => {
                z.par_iter_mut().with_min_len(MIN_LEN).enumerate().for_each(|(i, zi)| {
                    *zi = filter.project(i, inv_diag[i] * r[i]);
                });
            }
            Preconditioning::Multilevel(m) => m.apply(filter, r, z),
        }
    }
}

/// Solves `S (A x - b) = 0` with `(I - S) x` prescribed, to a residual of
/// `tolerance * max(|r_ref|, floor)`; `x` holds the initial guess on entry
/// (with the prescribed values) and the solution on exit. The iterations'
/// products are `matrix`'s, the operator assembled under the filter
/// (`assembly.rs`), where given, and else the matrix-free operator's; the
/// residuals from `x` are the matrix-free operator's.
#[allow(clippy::too_many_arguments)]
pub fn solve(
    op: &Operator,
    matrix: Option<&Bsr>,
    scratch: &mut Scratch,
    work: &mut Vectors,
    precond: &mut Preconditioning,
    filter: &Filter,
    b: &[DVec3],
    x: &mut [DVec3],
    tolerance: f64,
    floor: f64,
    max_iterations: usize,
) -> Result<Solve> {
    let n = b.len();
    for v in [&mut work.r, &mut work.z, &mut work.p, &mut work.q] {
        v.resize(n, DVec3::ZERO);
    }
    let Vectors { r, z, p, q } = work;
    // Reference residual: the guess with only its prescribed part, (I - S) x,
    // its norm over the unpinned rows whole. A resting contact's normal row
    // stays in: a cloth lying on an obstacle rests its weight there, so the
    // filtered residual of a cloth coming to rest vanishes while the forces
    // it balances do not, and the tolerance stays relative to them (in f32,
    // relative to nothing it could not be met).
    p.par_iter_mut().with_min_len(MIN_LEN).enumerate().for_each(|(i, pi)| {
        *pi = x[i] - filter.project(i, x[i]);
    });
    op.apply(scratch, p, q);
    r.par_iter_mut().with_min_len(MIN_LEN).enumerate().for_each(|(i, ri)| {
        *ri = if filter.free[i] { b[i] - q[i] } else { DVec3::ZERO };
    });
    let r_ref = dot(r, r).sqrt();
    if r_ref == 0.0 {
        x.par_iter_mut()
            .with_min_len(MIN_LEN)
            .enumerate()
            .for_each(|(i, xi)| *xi -= filter.project(i, *xi));
        return Ok(Solve {
            iterations: 0,
            residual: 0.0,
        });
    }
    let r_ref = r_ref.max(floor);
    // The residual of the actual (warm-started) guess, then the iterations.
    // When the recurred residual meets the tolerance, the residual is
    // computed again from x and the iterations go on from it while that one
    // does not, up to `SOLVE_RESTARTS` times: the GPU's f32 recurrence
    // drifts below the true residual; in f64 this costs one product a solve.
    let mut rr = true_residual(op, scratch, precond, filter, b, x, r, z, p, q)?;
    let mut rz = dot(r, z);
    let (mut iterations, mut checked, mut restarts) = (0, 0, 0);
    loop {
        if rr.sqrt() <= tolerance * r_ref || iterations >= max_iterations {
            if iterations == checked || iterations >= max_iterations || restarts == SOLVE_RESTARTS {
                break;
            }
            (checked, restarts) = (iterations, restarts + 1);
            rr = true_residual(op, scratch, precond, filter, b, x, r, z, p, q)?;
            rz = dot(r, z);
            continue;
        }
        // p lies in S's range: the filtered matrix gives q = S A p, the
        // operator A p with the pinned rows zeroed; either gives p.Ap.
        let pq = match matrix {
            Some(a) => {
                a.apply(p, q);
                dot(p, q)
            }
            None => op.apply_filtered(scratch, p, q, Some(filter.free)),
        };
        if !(pq > 0.0 && pq.is_finite()) {
            return Err(Error::Step(format!(
                "conjugate gradients broke down at iteration {iterations} (p.Ap = {pq}): the system is not positive definite or the state blew up"
            )));
        }
        let alpha = rz / pq;
        // One pass: x += alpha p, r -= alpha q, and the partial sums of
        // r.r per fixed chunk; then z = S P r.
        let partial: Vec<f64> = x
            .par_chunks_mut(CHUNK)
            .zip(r.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, (xs, rs))| {
                let base = c * CHUNK;
                let mut rr = 0.0;
                for k in 0..xs.len() {
                    let i = base + k;
                    xs[k] += p[i] * alpha;
                    // p lies in S's range, so p.q above equals p.(S q).
                    rs[k] -= filter.project(i, q[i]) * alpha;
                    rr += rs[k].dot(rs[k]);
                }
                rr
            })
            .collect();
        rr = partial.iter().sum();
        precond.apply(filter, r, z);
        let rz_new = dot(r, z);
        iterations += 1;
        let beta = rz_new / rz;
        rz = rz_new;
        p.par_iter_mut()
            .with_min_len(MIN_LEN)
            .zip(z.par_iter())
            .for_each(|(pi, zi)| *pi = *zi + *pi * beta);
    }
    Ok(Solve {
        iterations,
        residual: rr.sqrt() / r_ref,
    })
}

/// `r = S (b - A x)`, `z = S P r` and the first direction `p = z`; returns
/// `r . r`.
#[allow(clippy::too_many_arguments)]
fn true_residual(
    op: &Operator,
    scratch: &mut Scratch,
    precond: &mut Preconditioning,
    filter: &Filter,
    b: &[DVec3],
    x: &[DVec3],
    r: &mut [DVec3],
    z: &mut [DVec3],
    p: &mut [DVec3],
    q: &mut [DVec3],
) -> Result<f64> {
    op.apply(scratch, x, q);
    r.par_iter_mut().with_min_len(MIN_LEN).enumerate().for_each(|(i, ri)| {
        *ri = b[i] - q[i];
    });
    filter.apply(r);
    let rr = dot(r, r);
    if !rr.is_finite() {
        return Err(Error::Step(
            "the linear system has non-finite entries: the state blew up".into(),
        ));
    }
    precond.apply(filter, r, z);
    p.copy_from_slice(z);
    Ok(rr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::assembly::Assembly;
    use crate::cpu::testing::{Sheet, constraints};
    use crate::model::testing::Rng;

    /// Random SPD block systems from a deformed sheet, with pinned and
    /// resting vertices; PCG reaches the tolerance, with the matrix-free
    /// products or the assembled matrix's, and the answer satisfies the
    /// filtered system (checked with the matrix-free operator) with its
    /// prescribed parts kept.
    #[test]
    fn solves_random_spd_block_systems_to_tolerance() {
        let mut rng = Rng(99);
        for trial in 0..4 {
            let cloth = Sheet::cloth(12, 8);
            let n = cloth.vertex_count();
            let x: Vec<DVec3> = cloth
                .mesh
                .positions
                .iter()
                .map(|p| *p * 1.05 + rng.vec3(0.003))
                .collect();
            let sheet = Sheet::at(cloth, &x, [1e-3, 2e-3, 5e-3, 1e-2][trial]);
            let (op, inv) = (sheet.operator(), &sheet.inv_diag);
            let b: Vec<DVec3> = (0..n).map(|_| rng.vec3(1e-3)).collect();
            // The resting vertices get a prescribed normal velocity.
            let (free, normals) = constraints(n, &mut rng);
            let filter = Filter {
                free: &free,
                normals: &normals,
            };
            let sol: Vec<DVec3> = (0..n)
                .map(|i| match free[i] {
                    true => normals[i] * rng.vec3(1e-3).x + rng.vec3(1e-3),
                    false => rng.vec3(1e-3),
                })
                .collect();
            let prescribed: Vec<DVec3> = (0..n).map(|i| sol[i] - filter.project(i, sol[i])).collect();
            let guess = sol.clone();
            let mut multilevel = Multilevel::default();
            multilevel.setup_assembled(&op, &filter, &x).unwrap();
            let matrix = Assembly::default().matrix(&op, &filter, false);
            for (name, mut precond, matrix) in [
                ("jacobi", Preconditioning::Jacobi(inv), None),
                ("jacobi, assembled", Preconditioning::Jacobi(inv), Some(&matrix)),
                (
                    "multilevel, assembled",
                    Preconditioning::Multilevel(&mut multilevel),
                    Some(&matrix),
                ),
            ] {
                let mut sol = guess.clone();
                let mut scratch = Scratch::new(&sheet.cloth);
                let s = solve(
                    &op,
                    matrix,
                    &mut scratch,
                    &mut Vectors::default(),
                    &mut precond,
                    &filter,
                    &b,
                    &mut sol,
                    1e-8,
                    0.0,
                    2000,
                )
                .unwrap();
                assert!(s.residual <= 1e-8 && s.iterations > 0, "trial {trial}, {name}: {s:?}");
                // Check the filtered rows S (b - A x) independently, and the
                // prescribed parts kept: pinned values exactly, resting normal
                // components to rounding.
                let mut ax = vec![DVec3::ZERO; n];
                op.apply(&mut scratch, &sol, &mut ax);
                let bn: f64 = b.iter().map(|v| v.length_squared()).sum::<f64>().sqrt();
                let rn: f64 = (0..n)
                    .map(|i| filter.project(i, b[i] - ax[i]).length_squared())
                    .sum::<f64>()
                    .sqrt();
                assert!(rn < 1e-6 * bn, "trial {trial}, {name}: |S (b - Ax)| = {rn}, |b| = {bn}");
                for i in (0..n).filter(|&i| normals[i] != DVec3::ZERO) {
                    let (got, want) = (normals[i].dot(sol[i]), normals[i].dot(prescribed[i]));
                    assert!(
                        (got - want).abs() < 1e-12,
                        "trial {trial}, {name}, vertex {i}: {got} against {want}"
                    );
                }
                assert!((0..n).filter(|&i| !free[i]).all(|i| sol[i] == prescribed[i]));
            }
            let resting = normals.iter().filter(|n| **n != DVec3::ZERO).count();
            assert!(resting > n / 10, "trial {trial}: {resting} resting vertices");
        }
    }

    /// The floor: a right-hand side far below `floor` (a cloth at rest,
    /// its forces balanced to round-off) is solved at once from a zero
    /// guess, where the residual relative to itself alone takes iterations.
    #[test]
    fn a_right_hand_side_below_the_floor_is_already_solved() {
        let mut rng = Rng(7);
        let cloth = Sheet::cloth(12, 8);
        let n = cloth.vertex_count();
        let x: Vec<DVec3> = cloth.mesh.positions.iter().map(|p| *p * 1.02).collect();
        let sheet = Sheet::at(cloth, &x, 1e-3);
        let (op, inv) = (sheet.operator(), &sheet.inv_diag);
        let b: Vec<DVec3> = (0..n).map(|_| rng.vec3(1e-15)).collect();
        let (free, normals) = (vec![true; n], vec![DVec3::ZERO; n]);
        let filter = Filter {
            free: &free,
            normals: &normals,
        };
        let mut scratch = Scratch::new(&sheet.cloth);
        let mut run = |floor: f64| {
            let mut sol = vec![DVec3::ZERO; n];
            let s = solve(
                &op,
                None,
                &mut scratch,
                &mut Vectors::default(),
                &mut Preconditioning::Jacobi(inv),
                &filter,
                &b,
                &mut sol,
                1e-5,
                floor,
                2000,
            );
            s.unwrap()
        };
        let (bare, floored) = (run(0.0), run(1e-6));
        println!("without the floor {bare:?}, with it {floored:?}");
        assert!(bare.iterations > 10 && bare.residual <= 1e-5);
        assert_eq!(floored.iterations, 0);
        assert!(floored.residual <= 1e-5);
    }
}
