//! Matrix-free products with the implicit system matrix
//! `A = mass_scale M + S`, where S is the sum of the element blocks the
//! kernels left (already scaled: `h (h + alpha)` on elastic terms, `h^2` on
//! friction springs, `h` on friction damping): per-element products into
//! scratch buffers, then a per-vertex gather. No global matrix is assembled.

use super::bending::HingeStates;
use super::gather::VertexBlocks;
use super::membrane::FaceStates;
use super::reduce::CHUNK;
use super::repulsion::Repulsion;
use crate::cloth::Cloth;
use glam::DVec3;
use rayon::prelude::*;

/// Per-element scratch of a product.
#[derive(Clone)]
pub struct Scratch {
    /// Per face: `A (dP_u, dP_v)`.
    face: Vec<[DVec3; 2]>,
    /// Per hinge: `coef (grad . p)`.
    hinge: Vec<f64>,
    /// Per self-collision pair: `h^2 k (n . sum c_j p_j)`.
    pair: Vec<f64>,
}

impl Scratch {
    pub fn new(cloth: &Cloth) -> Scratch {
        Scratch {
            face: vec![[DVec3::ZERO; 2]; cloth.mesh.faces.len()],
            hinge: vec![0.0; cloth.topology.hinges.len()],
            pair: Vec::new(),
        }
    }
}

pub struct Operator<'a> {
    pub cloth: &'a Cloth,
    pub faces: &'a FaceStates,
    pub hinges: &'a HingeStates,
    pub repulsion: Option<&'a Repulsion<'a>>,
    /// The air's damping and the sticking springs, when there are any.
    pub blocks: Option<&'a VertexBlocks<'a>>,
    pub mass_scale: f64,
}

impl Operator<'_> {
    /// `out = A p`.
    pub fn apply(&self, scratch: &mut Scratch, p: &[DVec3], out: &mut [DVec3]) {
        self.apply_filtered(scratch, p, out, None);
    }

    /// `out = S A p` where S zeroes the rows of non-free vertices (when
    /// `free` is given); returns `p . out`, reduced in fixed chunks.
    pub fn apply_filtered(&self, scratch: &mut Scratch, p: &[DVec3], out: &mut [DVec3], free: Option<&[bool]>) -> f64 {
        let cloth = self.cloth;
        let (face_out, hinge_out) = (&mut scratch.face, &mut scratch.hinge);
        rayon::join(
            || {
                face_out
                    .par_iter_mut()
                    .with_min_len(512)
                    .enumerate()
                    .for_each(|(f, o)| {
                        let dx = cloth.mesh.faces[f].map(|v| p[v as usize]);
                        *o = self.faces.lin[f].stress_differential(&cloth.face_rest[f], dx);
                    })
            },
            || {
                hinge_out
                    .par_iter_mut()
                    .with_min_len(512)
                    .enumerate()
                    .for_each(|(h, o)| {
                        let g = &self.hinges.grad[h];
                        let v = cloth.topology.hinges[h].v;
                        let gp = g[0].dot(p[v[0] as usize])
                            + g[1].dot(p[v[1] as usize])
                            + g[2].dot(p[v[2] as usize])
                            + g[3].dot(p[v[3] as usize]);
                        *o = self.hinges.coef[h] * gp;
                    })
            },
        );
        if let Some(r) = self.repulsion {
            r.product(p, &mut scratch.pair);
        }
        let (face_out, hinge_out, pair_out) = (&scratch.face, &scratch.hinge, &scratch.pair);
        let topo = &cloth.topology;
        let partial: Vec<f64> = out
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(chunk, outs)| {
                let mut dot = 0.0;
                for (k, o) in outs.iter_mut().enumerate() {
                    let v = chunk * CHUNK + k;
                    if free.is_some_and(|f| !f[v]) {
                        *o = DVec3::ZERO;
                        continue;
                    }
                    let mut hp = DVec3::ZERO;
                    let (lo, hi) = topo.vertex_faces.range(v);
                    for (&(face, _), b) in topo.vertex_faces.entries[lo..hi]
                        .iter()
                        .zip(&cloth.incidence_beta[lo..hi])
                    {
                        let d = &face_out[face as usize];
                        hp += d[0] * b.x + d[1] * b.y;
                    }
                    for &(h, a) in topo.vertex_hinges.row(v) {
                        hp += self.hinges.grad[h as usize][a as usize] * hinge_out[h as usize];
                    }
                    if let Some(r) = self.repulsion {
                        hp += r.gather(v, pair_out);
                    }
                    if let Some(b) = self.blocks {
                        hp += b.block(cloth, v) * p[v];
                    }
                    *o = p[v] * (self.mass_scale * cloth.mass[v]) + hp;
                    dot += p[v].dot(*o);
                }
                dot
            })
            .collect();
        partial.iter().sum()
    }
}
