//! The coarsest level's solve: a dense Cholesky factorisation, or block
//! Jacobi where the level is too large to factorise.

use super::bsr::Bsr;
use glam::{DMat3, DVec3};

/// The most scalar unknowns whose inverse `Coarsest::inverse` forms
/// densely (one solve per column: 64M multiply-adds at this size); a larger
/// coarsest level is approximated by its inverse diagonal blocks there.
const DENSE_INVERSE: usize = 768;

/// The coarsest level's solve: exact, or its inverse diagonal blocks when
/// it is too large to factorise.
#[derive(Clone)]
pub enum Coarsest {
    Cholesky(Cholesky),
    Jacobi(Vec<DMat3>),
}

impl Default for Coarsest {
    fn default() -> Self {
        Coarsest::Jacobi(Vec::new())
    }
}

impl Coarsest {
    pub fn solve(&self, b: &[DVec3], x: &mut [DVec3]) {
        match self {
            Coarsest::Cholesky(c) => c.solve(b, x),
            Coarsest::Jacobi(inv) => x.iter_mut().zip(inv).zip(b).for_each(|((x, d), b)| *x = *d * *b),
        }
    }

    /// The solve as a matrix, for a device to apply as one product: the
    /// dense inverse, column by column from the factor; the inverse
    /// diagonal blocks where the level is solved by them or is too large
    /// to invert densely (`DENSE_INVERSE`), with `diagonal` the level's
    /// diagonal blocks.
    pub fn inverse(&self, diagonal: &[DMat3]) -> Bsr {
        let rows = diagonal.len();
        let blocks = match self {
            Coarsest::Cholesky(c) if c.n <= DENSE_INVERSE => {
                let columns: Vec<Vec<DVec3>> = (0..c.n)
                    .map(|k| {
                        let mut e = vec![DVec3::ZERO; rows];
                        e[k / 3][k % 3] = 1.0;
                        let mut x = vec![DVec3::ZERO; rows];
                        c.solve(&e, &mut x);
                        x
                    })
                    .collect();
                (0..rows)
                    .map(|i| {
                        (0..rows)
                            .map(|j| {
                                let col = |c: usize| columns[3 * j + c][i];
                                (j as u32, DMat3::from_cols(col(0), col(1), col(2)))
                            })
                            .collect()
                    })
                    .collect()
            }
            Coarsest::Jacobi(inv) => inv.iter().enumerate().map(|(i, d)| vec![(i as u32, *d)]).collect(),
            Coarsest::Cholesky(_) => diagonal
                .iter()
                .enumerate()
                .map(|(i, d)| vec![(i as u32, d.inverse())])
                .collect(),
        };
        Bsr::from_rows(rows, blocks)
    }
}

/// A dense Cholesky factor `L L^T` (row-major lower triangle).
#[derive(Clone)]
pub struct Cholesky {
    n: usize,
    l: Vec<f64>,
}

impl Cholesky {
    /// `None` when the matrix is not positive definite.
    pub fn new(mut m: Vec<f64>) -> Option<Cholesky> {
        let n = (m.len() as f64).sqrt() as usize;
        for j in 0..n {
            let d = m[j * n + j] - (0..j).map(|k| m[j * n + k] * m[j * n + k]).sum::<f64>();
            if !(d > 0.0 && d.is_finite()) {
                return None;
            }
            let d = d.sqrt();
            m[j * n + j] = d;
            for i in j + 1..n {
                let s = m[i * n + j] - (0..j).map(|k| m[i * n + k] * m[j * n + k]).sum::<f64>();
                m[i * n + j] = s / d;
            }
        }
        Some(Cholesky { n, l: m })
    }

    fn solve(&self, b: &[DVec3], x: &mut [DVec3]) {
        let (n, l) = (self.n, &self.l);
        let mut y: Vec<f64> = b.iter().flat_map(|v| v.to_array()).collect();
        for i in 0..n {
            y[i] = (y[i] - (0..i).map(|k| l[i * n + k] * y[k]).sum::<f64>()) / l[i * n + i];
        }
        for i in (0..n).rev() {
            y[i] = (y[i] - (i + 1..n).map(|k| l[k * n + i] * y[k]).sum::<f64>()) / l[i * n + i];
        }
        for (k, xi) in x.iter_mut().enumerate() {
            *xi = DVec3::new(y[3 * k], y[3 * k + 1], y[3 * k + 2]);
        }
    }
}
