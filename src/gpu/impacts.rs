//! The self-collision fail-safe on the GPU backend: the rigid impact zones
//! of collide/impact.rs run on the host, from positions read back.

use super::backend::GpuBackend;
use super::layout::{Displacement, unpack};
use crate::collide::impact::Impacts;
use crate::error::Result;
use crate::step::sequence::resolve_impacts;
use crate::step::{Integrator, StepInput};
use glam::DVec3;

impl GpuBackend {
    /// Reads the positions back, resolves on the host, and writes back the
    /// positions and velocities of the vertices it moved (the others keep
    /// their words; with no zone, nothing is written).
    pub(super) fn resolve_impacts(&mut self, input: &StepInput, h: f64) -> Result<Impacts> {
        let n = self.cloth.vertex_count();
        let rest = &self.cloth.mesh.positions;
        let mut u: Vec<Displacement> = self.read(&self.buffers["x"], n)?;
        let x: Vec<DVec3> = u.iter().zip(rest).map(|(u, r)| *r + u.value()).collect();
        let mut moved = x.clone();
        let impacts = resolve_impacts(&self.cloth, input, &self.x_start, &mut moved);
        if impacts.zones == 0 {
            return Ok(impacts);
        }
        let mixed = input.integrator == Integrator::BridsonMixed;
        let mut v: Vec<[f32; 4]> = self.read(&self.buffers["v"], n)?;
        let mut v_tilde: Vec<[f32; 4]> = match mixed {
            true => self.read(&self.buffers["v_tilde"], n)?,
            false => Vec::new(),
        };
        for i in (0..n).filter(|&i| moved[i] != x[i]) {
            u[i] = Displacement::split(moved[i] - rest[i]);
            let new = (moved[i] - self.x_start[i]) / h;
            if mixed {
                let t = &mut v_tilde[i];
                let carried = unpack(t) + new - unpack(&v[i]);
                *t = [carried.x as f32, carried.y as f32, carried.z as f32, t[3]];
            }
            v[i] = [new.x as f32, new.y as f32, new.z as f32, v[i][3]];
        }
        let q = &self.ctx.queue;
        q.write_buffer(&self.buffers["x"], 0, bytemuck::cast_slice(&u));
        q.write_buffer(&self.buffers["v"], 0, bytemuck::cast_slice(&v));
        if mixed {
            q.write_buffer(&self.buffers["v_tilde"], 0, bytemuck::cast_slice(&v_tilde));
        }
        Ok(impacts)
    }
}
