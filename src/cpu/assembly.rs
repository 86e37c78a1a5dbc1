//! The step's system matrix assembled from the element blocks into the
//! mesh's pattern (`multigrid::Pattern`), with the constraint filter
//! folded in: the multilevel preconditioner's finest level, and then the
//! product of conjugate gradients too, which reads the assembled blocks in
//! less than half the time the matrix-free operator (`hessian.rs`) takes
//! to recompute them (measured on the 27.9K twist: 2.2 ms a product
//! against 5.0).

use crate::cpu::hessian::Operator;
use crate::cpu::pcg::Filter;
use crate::model::membrane::outer;
use crate::multigrid::{Bsr, Pattern};
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// The mesh's pattern, built at the first assembly and kept.
#[derive(Clone, Default)]
pub struct Assembly {
    pattern: Option<Pattern>,
}

/// Whether conjugate gradients must keep the matrix-free product: the
/// shape operator's hinge coupling is not assembled.
pub fn wants_matrix_free(op: &Operator) -> bool {
    op.cloth.shape_operator.is_some()
}

impl Assembly {
    /// The operator's matrix under the filter (`assemble`).
    pub fn matrix(&mut self, op: &Operator, filter: &Filter, pairs: bool) -> Bsr {
        let pattern = self.pattern.get_or_insert_with(|| Pattern::new(op.cloth));
        assemble(pattern, op, filter, pairs)
    }
}

/// The filtered system matrix `S A S + (I - S) m` per vertex block (the
/// vertex's mass where Tamstorf et al. put the identity): for a `p` in
/// the filter's range, its product is `S A p`, as conjugate gradients
/// needs. With `pairs`, the self-collision springs join it, and the
/// pattern grows by the vertices their pairs couple; without, it is the
/// mesh's (the multilevel aggregates are built from that one, so that
/// they do not depend on the pairs of the step a run starts or resumes
/// at). The shape operator's coupling between neighbouring hinges
/// (`cloth.shape_operator`; each hinge's own term is in its coefficient)
/// is left out: a preconditioner may do without it, a product may not
/// (`wants_matrix_free`).
fn assemble(pattern: &Pattern, op: &Operator, filter: &Filter, pairs: bool) -> Bsr {
    let cloth = op.cloth;
    let topo = &cloth.topology;
    let n = cloth.mesh.positions.len();
    let s: Vec<Option<DMat3>> = (0..n).map(|i| filter.matrix(i)).collect();
    let mut a = Bsr {
        val: vec![DMat3::ZERO; pattern.a.col.len()],
        ..pattern.a.clone()
    };
    let mut rows: Vec<(usize, &mut [DMat3])> = Vec::with_capacity(n);
    let mut rest = &mut a.val[..];
    for v in 0..n {
        let (row, tail) = rest.split_at_mut(a.start[v + 1] - a.start[v]);
        rows.push((v, row));
        rest = tail;
    }
    let cols = &a.col;
    let starts = &a.start;
    rows.into_par_iter().with_min_len(256).for_each(|(v, row)| {
        let (lo, _) = topo.vertex_faces.range(v);
        for (k, &(face, c)) in topo.vertex_faces.row(v).iter().enumerate() {
            let (f, c) = (face as usize, c as usize);
            for (b, &slot) in pattern.face_slot[lo + k].iter().enumerate() {
                row[slot as usize] += op.faces.lin[f].block(&cloth.face_rest[f], c, b);
            }
        }
        let (lo, _) = topo.vertex_hinges.range(v);
        for (k, &(h, c)) in topo.vertex_hinges.row(v).iter().enumerate() {
            let (g, coef) = (&op.hinges.grad[h as usize], op.hinges.coef[h as usize]);
            for (b, &slot) in pattern.hinge_slot[lo + k].iter().enumerate() {
                row[slot as usize] += outer(g[c as usize], g[b]) * coef;
            }
        }
        let d = &mut row[pattern.diagonal_slot[v] as usize];
        *d += DMat3::from_diagonal(DVec3::splat(op.mass_scale * cloth.mass[v]));
        if let Some(b) = op.blocks {
            *d += b.block(cloth, v);
        }
        for (block, &w) in row.iter_mut().zip(&cols[starts[v]..starts[v + 1]]) {
            *block = filtered(&s, v, w, *block);
        }
        if let Some(sv) = s[v] {
            row[pattern.diagonal_slot[v] as usize] += (DMat3::IDENTITY - sv) * cloth.mass[v];
        }
    });
    match op.repulsion.filter(|_| pairs) {
        Some(r) => {
            let rows = (0..n)
                .into_par_iter()
                .with_min_len(256)
                .map(|v| {
                    let mesh = a.row(v).map(|(w, b)| (w as u32, *b));
                    let springs = r.row_blocks(v).map(|(w, b)| (w, filtered(&s, v, w, b)));
                    mesh.chain(springs).collect()
                })
                .collect();
            Bsr::from_rows(n, rows)
        }
        None => a,
    }
}

/// `S_v B S_w` for the block `B` of row `v`, column `w` (`None`: S is the
/// identity there).
fn filtered(s: &[Option<DMat3>], v: usize, w: u32, block: DMat3) -> DMat3 {
    let left = s[v].map_or(block, |sv| sv * block);
    s[w as usize].map_or(left, |sw| left * sw)
}
