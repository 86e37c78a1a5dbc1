//! Uniform signed-distance grids (Bridson, Marino & Fedkiw 2003, §5.1):
//! distance values at the nodes of a regular lattice, read back by
//! trilinear interpolation. The gradient is the exact gradient of the
//! trilinear interpolant, so value and gradient are consistent (the
//! collision response moves points along it).

use glam::DVec3;
use rayon::prelude::*;

/// Largest grid a scene may bake, bytes (f32 values): 512 MiB.
pub const GRID_BUDGET_BYTES: u64 = 512 << 20;

#[derive(Clone, Debug, PartialEq)]
pub struct SdfGrid {
    /// Position of node (0, 0, 0).
    pub origin: DVec3,
    /// Node spacing, metres.
    pub cell: f64,
    /// Nodes along x, y, z.
    pub dims: [u32; 3],
    /// Signed distance at each node, x fastest, then y, then z (negative
    /// inside the obstacle).
    pub values: Vec<f32>,
}

impl SdfGrid {
    /// Node counts for a box `[lo, hi]` at spacing `cell`, or a message when
    /// the grid would exceed [`GRID_BUDGET_BYTES`].
    pub fn dims_for(lo: DVec3, hi: DVec3, cell: f64) -> Result<[u32; 3], String> {
        let n = ((hi - lo) / cell).ceil() + DVec3::ONE;
        let nodes = n.x * n.y * n.z;
        if !(nodes.is_finite() && nodes * 4.0 <= GRID_BUDGET_BYTES as f64) {
            return Err(format!(
                "a signed-distance grid of {:.0} x {:.0} x {:.0} nodes at {cell} m spacing needs {:.0} MiB, \
                 more than the {} MiB budget: raise the cell size",
                n.x,
                n.y,
                n.z,
                nodes * 4.0 / (1 << 20) as f64,
                GRID_BUDGET_BYTES >> 20
            ));
        }
        Ok([n.x as u32, n.y as u32, n.z as u32])
    }

    /// Samples `distance` at every node of the grid covering `[lo, hi]`.
    pub fn bake(lo: DVec3, hi: DVec3, cell: f64, distance: impl Fn(DVec3) -> f64 + Sync) -> Result<SdfGrid, String> {
        let dims = Self::dims_for(lo, hi, cell)?;
        let [nx, ny, _] = dims.map(|d| d as usize);
        let mut values = vec![0f32; dims.iter().map(|&d| d as usize).product()];
        values.par_chunks_mut(nx * ny).enumerate().for_each(|(k, slab)| {
            for j in 0..ny {
                for i in 0..nx {
                    let p = lo + DVec3::new(i as f64, j as f64, k as f64) * cell;
                    slab[j * nx + i] = distance(p) as f32;
                }
            }
        });
        Ok(SdfGrid {
            origin: lo,
            cell,
            dims,
            values,
        })
    }

    /// The far corner of the grid.
    pub fn max_corner(&self) -> DVec3 {
        self.origin + (DVec3::new(self.dims[0] as f64, self.dims[1] as f64, self.dims[2] as f64) - 1.0) * self.cell
    }

    fn at(&self, i: usize, j: usize, k: usize) -> f64 {
        let [nx, ny, _] = self.dims.map(|d| d as usize);
        self.values[(k * ny + j) * nx + i] as f64
    }

    /// Signed distance and its gradient at `p` (trilinear). Outside the grid
    /// the value at the nearest boundary point plus the distance to it: a
    /// point far from the grid is far from the obstacle.
    pub fn sample(&self, p: DVec3) -> (f64, DVec3) {
        let hi = self.max_corner();
        let q = p.clamp(self.origin, hi);
        let outside = (p - q).length();
        let s = (q - self.origin) / self.cell;
        let last = |d: u32| (d.max(2) - 2) as f64;
        let base = DVec3::new(
            s.x.floor().min(last(self.dims[0])),
            s.y.floor().min(last(self.dims[1])),
            s.z.floor().min(last(self.dims[2])),
        )
        .max(DVec3::ZERO);
        let t = s - base;
        let (i, j, k) = (base.x as usize, base.y as usize, base.z as usize);
        let c = |a, b, e| self.at(i + a, j + b, k + e);
        // Interpolate along x, then y, then z, keeping the partial derivatives.
        let x00 = c(0, 0, 0) + t.x * (c(1, 0, 0) - c(0, 0, 0));
        let x10 = c(0, 1, 0) + t.x * (c(1, 1, 0) - c(0, 1, 0));
        let x01 = c(0, 0, 1) + t.x * (c(1, 0, 1) - c(0, 0, 1));
        let x11 = c(0, 1, 1) + t.x * (c(1, 1, 1) - c(0, 1, 1));
        let y0 = x00 + t.y * (x10 - x00);
        let y1 = x01 + t.y * (x11 - x01);
        let value = y0 + t.z * (y1 - y0);
        let dx = |b, e| c(1, b, e) - c(0, b, e);
        let dx0 = dx(0, 0) + t.y * (dx(1, 0) - dx(0, 0));
        let dx1 = dx(0, 1) + t.y * (dx(1, 1) - dx(0, 1));
        let grad = DVec3::new(
            dx0 + t.z * (dx1 - dx0),
            (x10 - x00) + t.z * ((x11 - x01) - (x10 - x00)),
            y1 - y0,
        ) / self.cell;
        if outside > 0.0 {
            (value + outside, (p - q) / outside)
        } else {
            (value, grad)
        }
    }

    /// Bytes the values take.
    pub fn bytes(&self) -> u64 {
        self.values.len() as u64 * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trilinear_reproduces_a_linear_field_and_its_gradient() {
        let n = DVec3::new(0.3, -0.5, 0.8).normalize();
        let g = SdfGrid::bake(DVec3::splat(-1.0), DVec3::splat(1.0), 0.1, |p| p.dot(n) - 0.2).unwrap();
        for p in [DVec3::new(0.13, -0.71, 0.42), DVec3::new(-0.99, 0.99, 0.0), DVec3::ZERO] {
            let (d, grad) = g.sample(p);
            assert!((d - (p.dot(n) - 0.2)).abs() < 1e-6, "{p}: {d}");
            assert!((grad - n).length() < 1e-5, "{p}: {grad}");
        }
        // Outside: value at the boundary plus the distance to it.
        let (d, grad) = g.sample(DVec3::new(3.0, 0.0, 0.0));
        assert!((d - (n.x - 0.2 + 2.0)).abs() < 1e-6, "{d}");
        assert_eq!(grad, DVec3::X);
    }

    #[test]
    fn a_grid_over_budget_is_refused() {
        let msg = SdfGrid::dims_for(DVec3::ZERO, DVec3::splat(10.0), 1e-3).unwrap_err();
        assert!(msg.contains("10001 x 10001 x 10001") && msg.contains("budget"), "{msg}");
    }
}
