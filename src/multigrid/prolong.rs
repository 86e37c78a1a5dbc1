//! The prolongators between levels: each aggregate's rigid motions,
//! orthonormalised (the tentative prolongator), smoothed by one damped
//! Jacobi step.

use super::bsr::Bsr;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// The near-kernel of a level's matrix on one block row: the 3x6 matrix
/// whose columns are the rigid motions' values there (translations, then
/// rotations).
pub type Modes = [DMat3; 2];

/// `[p]_x`, the matrix of `v -> p x v`.
pub fn cross_matrix(p: DVec3) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(0.0, p.z, -p.y),
        DVec3::new(-p.z, 0.0, p.x),
        DVec3::new(p.y, -p.x, 0.0),
    )
}

/// The tentative prolongator: per aggregate, the thin QR factorisation of
/// its rows of the near-kernel, `B_J = Q_J R_J`; `Q_J` are its rows of
/// `P0` (an orthonormal basis of the aggregate's rigid motions), `R_J` the
/// coarse level's near-kernel on its two block rows (translation,
/// rotation). A motion the aggregate cannot tell from the others (a
/// rotation about the line of a two-vertex aggregate) is dropped: its
/// column of `P0` is zero and its coarse unknown is listed in `dropped`
/// (block row, component).
pub fn tentative(modes: &[Modes], group: usize, of: &[u32], count: usize) -> (Bsr, Vec<Modes>, Vec<(usize, usize)>) {
    let mut members = vec![Vec::new(); count];
    for (node, &j) in of.iter().enumerate() {
        members[j as usize].extend(node * group..(node + 1) * group);
    }
    let mut rows: Vec<Vec<(u32, DMat3)>> = vec![Vec::new(); modes.len()];
    let mut coarse = vec![[DMat3::ZERO; 2]; 2 * count];
    let mut dropped = Vec::new();
    for (j, rows_j) in members.iter().enumerate() {
        // Columns of B_J, each a vector over the aggregate's rows.
        let mut q: Vec<Vec<DVec3>> = (0..6)
            .map(|c| rows_j.iter().map(|&k| modes[k][c / 3].col(c % 3)).collect())
            .collect();
        let mut r = [[0.0f64; 6]; 6];
        for c in 0..6 {
            let before = norm(&q[c]);
            for k in 0..c {
                let d = dotv(&q[k], &q[c]);
                r[k][c] = d;
                let qk = q[k].clone();
                q[c].iter_mut().zip(&qk).for_each(|(x, y)| *x -= *y * d);
            }
            let after = norm(&q[c]);
            if after > 1e-8 * before && after > 0.0 {
                r[c][c] = after;
                q[c].iter_mut().for_each(|x| *x /= after);
            } else {
                q[c].iter_mut().for_each(|x| *x = DVec3::ZERO);
                dropped.push((2 * j + c / 3, c % 3));
            }
        }
        for (m, &k) in rows_j.iter().enumerate() {
            for half in 0..2 {
                let block = DMat3::from_cols(q[3 * half][m], q[3 * half + 1][m], q[3 * half + 2][m]);
                rows[k].push(((2 * j + half) as u32, block));
            }
        }
        for half in 0..2 {
            for side in 0..2 {
                coarse[2 * j + half][side] = DMat3::from_cols_array_2d(&std::array::from_fn(|col| {
                    std::array::from_fn(|row| r[3 * half + row][3 * side + col])
                }));
            }
        }
    }
    (Bsr::from_rows(2 * count, rows), coarse, dropped)
}

fn dotv(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
}

fn norm(a: &[DVec3]) -> f64 {
    dotv(a, a).sqrt()
}

/// A dropped coarse unknown has a zero row and column in `P^T A P`; it
/// gets its block's largest diagonal entry (or 1) there, so the level stays
/// definite (the unknown is decoupled and stays zero).
pub fn hold_dropped(a: &mut Bsr, dropped: &[(usize, usize)]) {
    for &(row, c) in dropped {
        let k = (a.start[row]..a.start[row + 1])
            .find(|&k| a.col[k] as usize == row)
            .expect("diagonal block");
        let m = a.val[k];
        let d = m.x_axis.x.max(m.y_axis.y).max(m.z_axis.z);
        let mut add = DVec3::ZERO;
        add[c] = if d > 0.0 { d } else { 1.0 };
        a.val[k] += DMat3::from_diagonal(add);
    }
}

/// The smoothed prolongator `(I - w D^-1 A) P0`.
pub fn smooth(a: &Bsr, inv_diag: &[DMat3], omega: f64, p0: &Bsr) -> Bsr {
    let ap0 = a.product(p0);
    let rows = (0..a.rows())
        .into_par_iter()
        .with_min_len(256)
        .map(|i| {
            let scale = inv_diag[i] * -omega;
            let mut row: Vec<(u32, DMat3)> = p0.row(i).map(|(j, b)| (j as u32, *b)).collect();
            row.extend(ap0.row(i).map(|(j, b)| (j as u32, scale * *b)));
            row
        })
        .collect();
    Bsr::from_rows(p0.cols, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::Rng;

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
}
