//! Block-sparse matrices with 3x3 blocks (block compressed rows): the
//! levels of the multilevel preconditioner, their transfer operators and
//! their products. Every row is computed on its own with its columns in
//! ascending order, so the results do not depend on the thread count.
//! The V-cycle applies them in single precision (`Single`).

use crate::util::merge;
use glam::{DMat3, DVec3, Mat3A, Vec3A};
use rayon::prelude::*;
use std::cell::RefCell;

#[derive(Clone, Debug, Default)]
pub struct Bsr {
    pub cols: usize,
    /// Row `i`'s entries are `start[i]..start[i + 1]`.
    pub start: Vec<usize>,
    pub col: Vec<u32>,
    pub val: Vec<DMat3>,
}

impl Bsr {
    /// From each row's `(column, block)` entries in any order; blocks of
    /// the same column are summed in the order given.
    pub fn from_rows(cols: usize, rows: Vec<Vec<(u32, DMat3)>>) -> Bsr {
        let rows = rows.into_par_iter().with_min_len(64).map(merge).collect();
        Bsr::from_merged(cols, rows)
    }

    /// From rows whose columns are ascending and distinct.
    fn from_merged(cols: usize, rows: Vec<Vec<(u32, DMat3)>>) -> Bsr {
        let mut start = Vec::with_capacity(rows.len() + 1);
        start.push(0);
        let nnz = rows.iter().map(Vec::len).sum();
        let (mut col, mut val) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
        for row in rows {
            for (c, v) in row {
                col.push(c);
                val.push(v);
            }
            start.push(col.len());
        }
        Bsr { cols, start, col, val }
    }

    pub fn rows(&self) -> usize {
        self.start.len() - 1
    }

    pub fn row(&self, i: usize) -> impl Iterator<Item = (usize, &DMat3)> {
        let r = self.start[i]..self.start[i + 1];
        self.col[r.clone()].iter().map(|&c| c as usize).zip(&self.val[r])
    }

    /// The diagonal blocks (zero where a row has none).
    pub fn diagonal(&self) -> Vec<DMat3> {
        (0..self.rows())
            .map(|i| self.row(i).find(|(j, _)| *j == i).map_or(DMat3::ZERO, |(_, a)| *a))
            .collect()
    }

    pub fn transpose(&self) -> Bsr {
        let mut rows = vec![Vec::new(); self.cols];
        for i in 0..self.rows() {
            for (j, a) in self.row(i) {
                rows[j].push((i as u32, a.transpose()));
            }
        }
        Bsr::from_rows(self.rows(), rows)
    }

    /// `A B` (Gustavson's row-by-row product, each row summed in a dense
    /// accumulator in the order of A's and then B's columns).
    pub fn product(&self, b: &Bsr) -> Bsr {
        let rows = (0..self.rows())
            .into_par_iter()
            .with_min_len(64)
            .map_init(
                || (vec![DMat3::ZERO; b.cols], vec![false; b.cols]),
                |(acc, seen), i| {
                    let mut cols = Vec::new();
                    for (k, a) in self.row(i) {
                        for (j, bk) in b.row(k) {
                            if !seen[j] {
                                seen[j] = true;
                                acc[j] = DMat3::ZERO;
                                cols.push(j as u32);
                            }
                            acc[j] += *a * *bk;
                        }
                    }
                    cols.sort_unstable();
                    cols.iter()
                        .map(|&j| {
                            seen[j as usize] = false;
                            (j, acc[j as usize])
                        })
                        .collect()
                },
            )
            .collect();
        Bsr::from_merged(b.cols, rows)
    }

    /// `y = A x` in f64, each row summed in its columns' order (the same
    /// bits on any number of threads).
    pub fn apply(&self, x: &[DVec3], y: &mut [DVec3]) {
        y.par_iter_mut().with_min_len(256).enumerate().for_each(|(i, yi)| {
            *yi = self.row(i).fold(DVec3::ZERO, |s, (j, a)| s + *a * x[j]);
        });
    }

    /// The matrix as a dense symmetric one, row-major, `3n x 3n`.
    pub fn dense(&self) -> Vec<f64> {
        let n = 3 * self.rows();
        let mut d = vec![0.0; n * n];
        for i in 0..self.rows() {
            for (j, a) in self.row(i) {
                for (c, column) in a.to_cols_array_2d().iter().enumerate() {
                    for (r, value) in column.iter().enumerate() {
                        d[(3 * i + r) * n + 3 * j + c] += value;
                    }
                }
            }
        }
        d
    }
}

/// A block-sparse matrix in single precision, only to apply: the levels'
/// matrices and transfers in the V-cycle, whose products are a
/// preconditioner's (CG's own arithmetic stays in f64), read at half the
/// memory traffic. Measured on the twist at 27.9K vertices: the solve
/// takes 17% less time, and CG as many iterations, as in f64.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Single {
    pub start: Vec<usize>,
    pub col: Vec<u32>,
    pub val: Vec<Mat3A>,
}

impl Single {
    pub fn of(m: &Bsr) -> Single {
        Single {
            start: m.start.clone(),
            col: m.col.clone(),
            val: m.val.iter().map(|b| Mat3A::from(b.as_mat3())).collect(),
        }
    }

    pub fn rows(&self) -> usize {
        self.start.len() - 1
    }

    /// `y = A x`, each row summed in f32 in its columns' order. `x` is
    /// rounded to f32 once, into a buffer kept per thread, rather than at
    /// each of its ~20 uses: the same bits, and on the 27.9K twist the
    /// solve takes 320 ms a step instead of 356 (means of 7 runs of 10
    /// steps each, alternating, on 2 cores).
    pub fn apply(&self, x: &[DVec3], y: &mut [DVec3]) {
        thread_local! {
            static SINGLE: RefCell<Vec<Vec3A>> = const { RefCell::new(Vec::new()) };
        }
        let mut product = |xs: &mut Vec<Vec3A>| {
            xs.clear();
            xs.par_extend(x.par_iter().with_min_len(1024).map(|v| v.as_vec3a()));
            let xs = &xs[..];
            y.par_iter_mut().with_min_len(256).enumerate().for_each(|(i, yi)| {
                let r = self.start[i]..self.start[i + 1];
                let sum = self.col[r.clone()]
                    .iter()
                    .zip(&self.val[r])
                    .fold(Vec3A::ZERO, |s, (&j, a)| s + *a * xs[j as usize]);
                *yi = sum.as_dvec3();
            });
        };
        // A thread waiting inside a product may run another solve's (rayon
        // steals work while it waits): that one takes a buffer of its own.
        SINGLE.with(|buffer| match buffer.try_borrow_mut() {
            Ok(mut xs) => product(&mut xs),
            Err(_) => product(&mut Vec::new()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::Rng;

    fn random(rows: usize, cols: usize, per_row: usize, rng: &mut Rng) -> Bsr {
        let rows = (0..rows)
            .map(|_| {
                (0..per_row)
                    .map(|_| {
                        let c = ((rng.uniform() * cols as f64) as usize).min(cols - 1) as u32;
                        let m = DMat3::from_cols_array(&std::array::from_fn(|_| 2.0 * rng.uniform() - 1.0));
                        (c, m)
                    })
                    .collect()
            })
            .collect();
        Bsr::from_rows(cols, rows)
    }

    fn dense_apply(m: &Bsr, x: &[DVec3]) -> Vec<DVec3> {
        let d = m.dense_general();
        (0..m.rows())
            .map(|i| {
                DVec3::from_array(std::array::from_fn(|r| {
                    (0..m.cols)
                        .map(|j| (0..3).map(|c| d[3 * i + r][3 * j + c] * x[j][c]).sum::<f64>())
                        .sum()
                }))
            })
            .collect()
    }

    impl Bsr {
        fn dense_general(&self) -> Vec<Vec<f64>> {
            let mut d = vec![vec![0.0; 3 * self.cols]; 3 * self.rows()];
            for i in 0..self.rows() {
                for (j, a) in self.row(i) {
                    for r in 0..3 {
                        for c in 0..3 {
                            d[3 * i + r][3 * j + c] += a.col(c)[r];
                        }
                    }
                }
            }
            d
        }
    }

    /// Products, transposes and repeated columns against dense arithmetic.
    #[test]
    fn products_and_transposes_match_dense_arithmetic() {
        let mut rng = Rng(7);
        let (a, b) = (random(9, 7, 5, &mut rng), random(7, 4, 3, &mut rng));
        let x: Vec<DVec3> = (0..4).map(|_| rng.vec3(1.0)).collect();
        let mut bx = vec![DVec3::ZERO; 7];
        b.apply(&x, &mut bx);
        let mut abx = vec![DVec3::ZERO; 9];
        a.apply(&bx, &mut abx);
        let direct = dense_apply(&a.product(&b), &x);
        for (u, v) in abx.iter().zip(&direct) {
            assert!((*u - *v).length() < 1e-12, "{u} vs {v}");
        }
        assert_eq!(dense_apply(&b, &x), bx);
        let mut single = vec![DVec3::ZERO; 7];
        Single::of(&b).apply(&x, &mut single);
        for (u, v) in single.iter().zip(&bx) {
            assert!((*u - *v).length() < 1e-5 * (1.0 + v.length()), "{u} vs {v}");
        }
        let (d, dt) = (a.dense_general(), a.transpose().dense_general());
        for r in 0..27 {
            for c in 0..21 {
                assert_eq!(d[r][c], dt[c][r]);
            }
        }
    }
}
