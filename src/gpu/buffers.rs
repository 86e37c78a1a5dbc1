//! The backend's device buffers, by name: the name is the WGSL global each
//! kernel binds it as (every shader file spells a buffer the same way), so
//! a kernel is bound by reflection and no binding list is written by hand.

use super::context::GpuContext;
use super::kernel::groups;
use super::layout::{
    Displacement, FaceLin, FaceRest, HingeCoupling, HingeHalf, HingeRest, PackedChannel, Params, ProductMode, Scalars,
};
use crate::cloth::Cloth;
use crate::error::{Error, Result};
use crate::model::air::Air;
use crate::model::bending::BendingStrain;
use crate::step::Scales;
use bytemuck::{Pod, Zeroable};
use glam::DVec3;
use std::collections::BTreeMap;
use wgpu::util::DeviceExt;

/// Every buffer of the backend, by its WGSL name.
pub struct Buffers {
    map: BTreeMap<&'static str, wgpu::Buffer>,
}

impl std::ops::Index<&str> for Buffers {
    type Output = wgpu::Buffer;

    /// The buffer named `name`; every name the backend uses is made in
    /// [`Buffers::new`] or by the kernels that own it, so a missing one is a
    /// bug of crease, not of its input.
    fn index(&self, name: &str) -> &wgpu::Buffer {
        self.map
            .get(name)
            .unwrap_or_else(|| panic!("the GPU backend has no buffer `{name}`"))
    }
}

/// The most bytes a storage buffer may hold on this adapter: one binding's,
/// within its largest buffer.
pub fn largest_binding(ctx: &GpuContext) -> u64 {
    ctx.limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size)
}

/// A storage buffer holding `data`, checked against the adapter's limits.
pub fn storage<T: Pod>(ctx: &GpuContext, label: &str, data: &[T]) -> Result<wgpu::Buffer> {
    // A binding may not be empty: a mesh without hinges gets one dummy element.
    let bytes: Vec<u8> = if data.is_empty() {
        vec![0u8; size_of::<T>().max(16)]
    } else {
        bytemuck::cast_slice(data).to_vec()
    };
    let limit = largest_binding(ctx);
    if bytes.len() as u64 > limit {
        return Err(Error::Gpu(format!(
            "buffer `{label}` needs {} bytes, more than the adapter's max_storage_buffer_binding_size / \
             max_buffer_size ({limit} bytes): use a coarser mesh or --backend cpu",
            bytes.len()
        )));
    }
    Ok(ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: &bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    }))
}

pub fn zeroed<T: Pod + Zeroable>(ctx: &GpuContext, label: &str, count: usize) -> Result<wgpu::Buffer> {
    storage(ctx, label, &vec![T::zeroed(); count])
}

pub fn uniform<T: Pod>(ctx: &GpuContext, label: &str, value: &T) -> wgpu::Buffer {
    ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(value),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

pub fn vec4(v: DVec3) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, 0.0]
}

impl Buffers {
    pub fn empty() -> Buffers {
        Buffers { map: BTreeMap::new() }
    }

    pub fn get(&self, name: &str) -> Option<&wgpu::Buffer> {
        self.map.get(name)
    }

    /// Adds (or replaces) the buffer named `name`.
    pub fn insert(&mut self, name: &'static str, buffer: wgpu::Buffer) {
        self.map.insert(name, buffer);
    }

    /// Bytes of every buffer held.
    pub fn bytes(&self) -> u64 {
        self.map.values().map(|b| b.size()).sum()
    }

    /// Uploads the cloth at rest: its elements and rest data, its state
    /// (positions as displacements from the mesh's, velocities, channels),
    /// and the step's work vectors.
    pub fn new(ctx: &GpuContext, cloth: &Cloth) -> Result<Buffers> {
        let (n, nf, nh) = (
            cloth.vertex_count(),
            cloth.mesh.faces.len(),
            cloth.topology.hinges.len(),
        );
        let topo = &cloth.topology;
        let mut b = Buffers::empty();
        let params = Params::new(
            cloth,
            1e-3,
            &Scales::new(1e-3, 1e-3, 0.0),
            DVec3::ZERO,
            &Air::default(),
            false,
        );
        b.insert("params", uniform(ctx, "params", &params));
        let faces: Vec<[u32; 4]> = cloth.mesh.faces.iter().map(|f| [f[0], f[1], f[2], 0]).collect();
        b.insert("faces", storage(ctx, "faces", &faces)?);
        let face_rest: Vec<FaceRest> = (0..nf).map(|f| FaceRest::new(cloth, f)).collect();
        b.insert("face_rest", storage(ctx, "face_rest", &face_rest)?);
        let hinges: Vec<[u32; 4]> = topo.hinges.iter().map(|h| h.v).collect();
        b.insert("hinges", storage(ctx, "hinges", &hinges)?);
        let (hinge_rest, hinge_rest_a3): (Vec<HingeRest>, Vec<[f32; 4]>) =
            (0..nh).map(|h| HingeRest::new(cloth, h)).unzip();
        b.insert("hinge_rest", storage(ctx, "hinge_rest", &hinge_rest)?);
        b.insert("hinge_rest_a3", storage(ctx, "hinge_rest_a3", &hinge_rest_a3)?);
        let mass: Vec<f32> = cloth.mass.iter().map(|&m| m as f32).collect();
        b.insert("mass", storage(ctx, "mass", &mass)?);
        let face_entries: Vec<[f32; 4]> = topo
            .vertex_faces
            .entries
            .iter()
            .zip(&cloth.incidence_beta)
            .map(|(&(f, a), b)| [f32::from_bits(f), f32::from_bits(a), b.x as f32, b.y as f32])
            .collect();
        let hinge_entries: Vec<[u32; 2]> = topo.vertex_hinges.entries.iter().map(|&(h, a)| [h, a]).collect();
        b.insert(
            "face_offsets",
            storage(ctx, "face_offsets", &topo.vertex_faces.offsets)?,
        );
        b.insert("face_entries", storage(ctx, "face_entries", &face_entries)?);
        b.insert(
            "hinge_offsets",
            storage(ctx, "hinge_offsets", &topo.vertex_hinges.offsets)?,
        );
        b.insert("hinge_entries", storage(ctx, "hinge_entries", &hinge_entries)?);
        b.insert("is_free", storage(ctx, "free", &vec![1u32; n])?);
        b.insert("targets", zeroed::<Displacement>(ctx, "targets", n)?);
        // Positions live on the device as displacements from the mesh's.
        b.insert("x", zeroed::<Displacement>(ctx, "x", n)?);
        let rest_positions: Vec<[f32; 4]> = cloth.mesh.positions.iter().map(|&p| vec4(p)).collect();
        b.insert("rest", storage(ctx, "rest", &rest_positions)?);
        b.insert("contact", zeroed::<[f32; 4]>(ctx, "contact", n)?);
        b.insert("rest_normal", zeroed::<[f32; 4]>(ctx, "rest_normal", n)?);
        b.insert("released", zeroed::<u32>(ctx, "released", 2)?);
        b.insert("obstacle_count", uniform(ctx, "obstacle_count", &[0u32; 4]));
        for name in [
            "v", "dv", "force", "rhs", "reaction", "r", "z", "p", "q", "v_tilde", "v_before",
        ] {
            b.insert(name, zeroed::<[f32; 4]>(ctx, name, n)?);
        }
        b.channels(ctx, cloth)?;
        b.insert("stress", zeroed::<[f32; 4]>(ctx, "stress", 2 * nf)?);
        b.insert("face_lin", zeroed::<FaceLin>(ctx, "face_lin", nf)?);
        b.insert("hinge_lin_a", zeroed::<HingeHalf>(ctx, "hinge_lin_a", nh)?);
        b.insert("hinge_lin_b", zeroed::<HingeHalf>(ctx, "hinge_lin_b", nh)?);
        b.insert("face_dp", zeroed::<[f32; 4]>(ctx, "face_dp", 2 * nf)?);
        b.insert("hinge_s", zeroed::<f32>(ctx, "hinge_s", nh)?);
        b.insert("inv_diag", zeroed::<[[f32; 4]; 3]>(ctx, "inv_diag", n)?);
        b.insert("air_normal", zeroed::<[f32; 4]>(ctx, "air_normal", n)?);
        b.insert("stick", zeroed::<[f32; 4]>(ctx, "stick", n)?);
        b.insert("load", zeroed::<[f32; 4]>(ctx, "load", n)?);
        b.coupling(ctx, cloth)?;
        // Miguel's bending strain needs each hinge's rest edge length.
        let hinge_len = match cloth.material.bending_strain {
            BendingStrain::Curvature => {
                let len: Vec<f32> = cloth.hinge_rest.iter().map(|r| r.len as f32).collect();
                storage(ctx, "hinge_len", &len)?
            }
            BendingStrain::Angle => zeroed::<f32>(ctx, "hinge_len", 1)?,
        };
        b.insert("hinge_len", hinge_len);
        b.shape_operator(ctx, cloth)?;
        b.insert("scalars", zeroed::<Scalars>(ctx, "scalars", 1)?);
        b.insert("partial", zeroed::<[f32; 2]>(ctx, "partial", groups(n) as usize)?);
        b.insert("partial_count", uniform(ctx, "partial_count", &[groups(n), 0, 0, 0]));
        // The product modes: `S v` (no mass, unfiltered), plain `A p`,
        // and the PCG's filtered `A p`.
        for (name, mass_scale, filter_rows) in [("mode_rhs", 0.0, 0), ("mode_plain", 1.0, 0), ("mode_pcg", 1.0, 1)] {
            let mode = ProductMode {
                mass_scale,
                filter_rows,
                pad: [0; 2],
            };
            b.insert(name, uniform(ctx, "mode", &mode));
        }
        let staging_size = (n * size_of::<Displacement>())
            .max(nf * 3 * size_of::<PackedChannel>())
            .max(nh * size_of::<PackedChannel>())
            .max(64);
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("staging"),
            size: staging_size as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        b.insert("staging", staging);
        Ok(b)
    }

    /// Every channel's state: the cloth's initial channels (a rolled start)
    /// or each channel's own initial state.
    fn channels(&mut self, ctx: &GpuContext, cloth: &Cloth) -> Result<()> {
        let (nf, nh) = (cloth.mesh.faces.len(), cloth.topology.hinges.len());
        let (face_init, hinge_init, strain_init): ([Vec<PackedChannel>; 3], Vec<PackedChannel>, Vec<f32>) =
            match &cloth.initial_channels {
                Some(ch) => (
                    [0, 1, 2].map(|c| ch.faces.iter().map(|f| PackedChannel::from_state(&f[c])).collect()),
                    ch.hinges.iter().map(PackedChannel::from_state).collect(),
                    ch.hinge_strain.iter().map(|&s| s as f32).collect(),
                ),
                None => (
                    cloth
                        .material
                        .in_plane_channels
                        .map(|c| vec![PackedChannel::from_state(&c.initial_state()); nf]),
                    vec![PackedChannel::from_state(&cloth.material.bending_channel.initial_state()); nh],
                    vec![0.0f32; nh],
                ),
            };
        for (name, init) in FACE_CHANNELS.iter().zip(&face_init) {
            self.insert(name, storage(ctx, name, init)?);
        }
        self.insert("hinge_channels", storage(ctx, "hinge_channels", &hinge_init)?);
        self.insert("hinge_strain", storage(ctx, "hinge_strain", &strain_init)?);
        Ok(())
    }

    /// The shape operator's coupling `K` (cloth/shape_operator.rs) in
    /// compressed rows, the hinges' elastic bends and their `grad . p` in a
    /// product, when the material has it (one dummy element each otherwise).
    fn shape_operator(&mut self, ctx: &GpuContext, cloth: &Cloth) -> Result<()> {
        let nh = cloth.topology.hinges.len();
        let f32s = |v: &[f64]| -> Vec<f32> {
            let mut out: Vec<f32> = v.iter().map(|&w| w as f32).collect();
            out.resize(out.len().max(1), 0.0);
            out
        };
        let (start, other, weight, diag) = match &cloth.shape_operator {
            Some(k) => {
                let mut other = k.other.clone();
                other.resize(other.len().max(1), 0);
                (k.start.clone(), other, f32s(&k.weight), f32s(&k.diag))
            }
            None => (vec![0u32; 1], vec![0u32; 1], vec![0.0f32; 1], vec![0.0f32; 1]),
        };
        self.insert("so_start", storage(ctx, "so_start", &start)?);
        self.insert("so_other", storage(ctx, "so_other", &other)?);
        self.insert("so_weight", storage(ctx, "so_weight", &weight)?);
        self.insert("so_diag", storage(ctx, "so_diag", &diag)?);
        self.insert("hinge_bend", zeroed::<f32>(ctx, "hinge_bend", nh.max(1))?);
        let coupled = if cloth.shape_operator.is_some() { nh.max(1) } else { 1 };
        self.insert("hinge_gp", zeroed::<f32>(ctx, "hinge_gp", coupled)?);
        Ok(())
    }

    /// Melo's coupling: its per-hinge data and forces, when the material
    /// has it (one dummy element each otherwise).
    fn coupling(&mut self, ctx: &GpuContext, cloth: &Cloth) -> Result<()> {
        let nh = cloth.topology.hinges.len();
        let coupled = cloth.material.coupling != 0.0;
        let hinge_faces: Vec<[u32; 2]> = cloth.topology.hinges.iter().map(|h| h.faces).collect();
        self.insert("hinge_faces", storage(ctx, "hinge_faces", &hinge_faces)?);
        let coupling = match coupled {
            true => {
                let c: Vec<HingeCoupling> = (0..nh).map(|h| HingeCoupling::new(cloth, h)).collect();
                storage(ctx, "hinge_coupling", &c)?
            }
            false => zeroed::<HingeCoupling>(ctx, "hinge_coupling", 1)?,
        };
        self.insert("hinge_coupling", coupling);
        let forces = zeroed::<[f32; 4]>(ctx, "coupling_force", if coupled { 4 * nh } else { 1 })?;
        self.insert("coupling_force", forces);
        Ok(())
    }
}

/// The three in-plane channel buffers of the faces (e_uu, e_vv, e_uv).
pub const FACE_CHANNELS: [&str; 3] = ["channels_uu", "channels_vv", "channels_uv"];

/// The buffers that carry state from step to step (a checkpoint), in order.
pub const STATE: [&str; 8] = [
    "x",
    "v",
    "dv",
    "channels_uu",
    "channels_vv",
    "channels_uv",
    "hinge_channels",
    "hinge_strain",
];
