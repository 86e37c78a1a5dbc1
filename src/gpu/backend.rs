//! `GpuBackend`: buffers uploaded once, bind groups built once, and a step
//! recorded as labelled compute passes. The PCG loop stays on the device:
//! its scalars live in a buffer, `solver.readback_interval` iterations are
//! recorded per submission, and only the scalars are read back between them.

use super::context::{GpuContext, Module};
use super::layout::{
    Displacement, FaceLin, FaceRest, HingeCoupling, HingeHalf, HingeRest, LimitEdge, LimitParams, ObstacleGpu,
    PackedChannel, PairGpu, Params, ProductMode, RepulsionParams, Scalars, SdfInfo,
};
use crate::cloth::Cloth;
use crate::collide::proximity::{self, Proximity};
use crate::collide::{ContactReport, SdfGrid};
use crate::error::{Error, Result};
use crate::model::air::Air;
use crate::model::bending::BendingStrain;
use crate::model::channel::Channels;
use crate::step::CORRECTION_ITERATIONS;
use crate::step::Scales;
use crate::step::{Backend, BackendState, StepInput, StepReport};
use crate::step::{Integrator, SelfCollision, StrainLimit};
use bytemuck::{Pod, Zeroable};
use glam::DVec3;
use std::sync::Arc;
use std::time::Instant;
use wgpu::util::DeviceExt;

/// Threads per workgroup (`WORKGROUP` in shaders/shared/types.wgsl).
const WORKGROUP: u32 = 64;

struct Kernel {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// Workgroups along x and y (see [`dispatch`]).
    workgroups: [u32; 2],
}

impl Kernel {
    /// Entry `entry` of `module`, bound to `buffers`, dispatched over
    /// `threads` items in rows of `row` workgroups.
    fn new(
        ctx: &GpuContext,
        module: &Module,
        entry: &str,
        threads: usize,
        row: u32,
        buffers: &[(&str, &wgpu::Buffer)],
    ) -> Result<Kernel> {
        Ok(Kernel {
            pipeline: module.pipeline(ctx, entry)?,
            group: module.bind_group(ctx, buffers)?,
            workgroups: dispatch(threads, row),
        })
    }

    fn record(&self, pass: &mut wgpu::ComputePass) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(self.workgroups[0], self.workgroups[1], 1);
    }
}

/// The workgroups of a dispatch over `threads` items: at most `row` along x,
/// the rest wrapped onto y (the kernels' `linear_index`, shared/types.wgsl).
fn dispatch(threads: usize, row: u32) -> [u32; 2] {
    let total = groups(threads);
    let x = total.min(row.max(1));
    [x, total.div_ceil(x)]
}

struct Kernels {
    membrane: Kernel,
    bending: Kernel,
    gather: Kernel,
    constrain: Kernel,
    right_hand_side: Kernel,
    reactions: Kernel,
    advance_velocity: Kernel,
    advance_position: Kernel,
    explicit_half: Kernel,
    carry: Kernel,
    hold_pinned: Kernel,
    face_product: Kernel,
    hinge_product: Kernel,
    /// The gather of a product, per mode: `S v`, plain `A p`, filtered `A p`.
    gather_rhs: Kernel,
    gather_plain: Kernel,
    gather_pcg: Kernel,
    pinned_guess: Kernel,
    reference_residual: Kernel,
    residual: Kernel,
    update: Kernel,
    direction: Kernel,
    first_direction: Kernel,
    zero_free: Kernel,
    reduce_reference: Kernel,
    reduce_start: Kernel,
    reduce_alpha: Kernel,
    reduce_beta: Kernel,
}

/// The collision kernels, built when a step first has obstacles: the
/// scene's grids in one buffer, and the enabled obstacles of each step.
struct Collide {
    /// The grids uploaded (compared by pointer with each step's).
    grids: Vec<Arc<SdfGrid>>,
    obstacles: wgpu::Buffer,
    resting: Kernel,
    release: Kernel,
    respond: Kernel,
    settle: Kernel,
    bytes: u64,
}

/// The self-collision kernels and the buffers of a step's proximity pairs,
/// built when a step first has pairs and rebuilt larger when a step has
/// more than they hold.
struct Repulsion {
    pairs_capacity: usize,
    entries_capacity: usize,
    params: wgpu::Buffer,
    pairs: wgpu::Buffer,
    offsets: wgpu::Buffer,
    entries: wgpu::Buffer,
    forces: Kernel,
    precondition: Kernel,
    pair_product: Kernel,
    /// The gather of a product, per mode (as `Kernels::gather_*`).
    gather: [Kernel; 3],
    pair_impulse: Kernel,
    apply_impulses: Kernel,
    bytes: u64,
}

/// The strain-limiting kernels and the edges they sweep, built when a step
/// first limits strain.
struct Limiter {
    params: wgpu::Buffer,
    edge_request: Kernel,
    apply_requests: Kernel,
    bytes: u64,
}

/// Product modes, the index into `Repulsion::gather`.
const RHS: usize = 0;
const PLAIN: usize = 1;
const PCG: usize = 2;

pub struct GpuBackend {
    ctx: GpuContext,
    cloth: Arc<Cloth>,
    params: wgpu::Buffer,
    free: wgpu::Buffer,
    targets: wgpu::Buffer,
    x: wgpu::Buffer,
    v: wgpu::Buffer,
    dv: wgpu::Buffer,
    force: wgpu::Buffer,
    rhs: wgpu::Buffer,
    stress: wgpu::Buffer,
    hinge_lin_a: wgpu::Buffer,
    hinge_lin_b: wgpu::Buffer,
    p: wgpu::Buffer,
    reaction: wgpu::Buffer,
    face_channels: [wgpu::Buffer; 3],
    hinge_channels: wgpu::Buffer,
    hinge_strain: wgpu::Buffer,
    scalars: wgpu::Buffer,
    staging: wgpu::Buffer,
    kernels: Kernels,
    rest: wgpu::Buffer,
    contact: wgpu::Buffer,
    /// Resting contacts: normal and impulse (collide.wgsl), and the count
    /// a `release` frees.
    rest_normal: wgpu::Buffer,
    released: wgpu::Buffer,
    obstacle_count: wgpu::Buffer,
    collide: Option<Collide>,
    mass: wgpu::Buffer,
    inv_diag: wgpu::Buffer,
    q: wgpu::Buffer,
    partial: wgpu::Buffer,
    /// Product modes: `S v`, plain `A p`, filtered `A p`.
    modes: [wgpu::Buffer; 3],
    repulsion: Option<Repulsion>,
    limiter: Option<Limiter>,
    /// The mixed scheme's explicit half step, and the velocities before
    /// the constraints.
    v_tilde: wgpu::Buffer,
    v_before: wgpu::Buffer,
    /// The step's sticking springs: target displacement, stiffness.
    stick: wgpu::Buffer,
    /// Workgroups per dispatch row (see [`dispatch`]).
    row: u32,
    /// Bytes of every buffer allocated on the device.
    device_bytes: u64,
}

/// A storage buffer holding `data`, checked against the adapter's limits.
fn storage<T: Pod>(ctx: &GpuContext, label: &str, data: &[T]) -> Result<wgpu::Buffer> {
    // A binding may not be empty: a mesh without hinges gets one dummy element.
    let bytes: Vec<u8> = if data.is_empty() {
        vec![0u8; size_of::<T>().max(16)]
    } else {
        bytemuck::cast_slice(data).to_vec()
    };
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
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

fn zeroed<T: Pod + Zeroable>(ctx: &GpuContext, label: &str, count: usize) -> Result<wgpu::Buffer> {
    storage(ctx, label, &vec![T::zeroed(); count])
}

fn uniform<T: Pod>(ctx: &GpuContext, label: &str, value: &T) -> wgpu::Buffer {
    ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(value),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

fn vec4(v: DVec3) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, 0.0]
}

fn groups(threads: usize) -> u32 {
    (threads as u32).div_ceil(WORKGROUP).max(1)
}

impl GpuBackend {
    /// Uploads the cloth at rest and builds every pipeline and bind group.
    pub fn new(cloth: Arc<Cloth>) -> Result<GpuBackend> {
        let ctx = GpuContext::new()?;
        Self::with_context(ctx, cloth)
    }

    pub fn with_context(ctx: GpuContext, cloth: Arc<Cloth>) -> Result<GpuBackend> {
        let row = ctx.limits.max_compute_workgroups_per_dimension;
        Self::with_dispatch_row(ctx, cloth, row)
    }

    /// Like [`GpuBackend::with_context`], with every dispatch wrapping onto
    /// its y dimension after `row` workgroups (the adapter's
    /// `max_compute_workgroups_per_dimension` by default; a test narrows it
    /// to exercise the wrap on a small mesh).
    pub fn with_dispatch_row(ctx: GpuContext, cloth: Arc<Cloth>, row: u32) -> Result<GpuBackend> {
        let (n, nf, nh) = (
            cloth.vertex_count(),
            cloth.mesh.faces.len(),
            cloth.topology.hinges.len(),
        );
        let row = row.clamp(1, ctx.limits.max_compute_workgroups_per_dimension);
        let topo = &cloth.topology;
        let params = uniform(
            &ctx,
            "params",
            &Params::new(
                &cloth,
                1e-3,
                &Scales::new(1e-3, 1e-3, 0.0),
                DVec3::ZERO,
                &Air::default(),
                false,
            ),
        );
        let faces: Vec<[u32; 4]> = cloth.mesh.faces.iter().map(|f| [f[0], f[1], f[2], 0]).collect();
        let face_rest: Vec<FaceRest> = (0..nf).map(|f| FaceRest::new(&cloth, f)).collect();
        let hinges: Vec<[u32; 4]> = topo.hinges.iter().map(|h| h.v).collect();
        let (hinge_rest, hinge_rest_a3): (Vec<HingeRest>, Vec<[f32; 4]>) =
            (0..nh).map(|h| HingeRest::new(&cloth, h)).unzip();
        let mass: Vec<f32> = cloth.mass.iter().map(|&m| m as f32).collect();
        let face_entries: Vec<[f32; 4]> = topo
            .vertex_faces
            .entries
            .iter()
            .zip(&cloth.incidence_beta)
            .map(|(&(f, a), b)| [f32::from_bits(f), f32::from_bits(a), b.x as f32, b.y as f32])
            .collect();
        let hinge_entries: Vec<[u32; 2]> = topo.vertex_hinges.entries.iter().map(|&(h, a)| [h, a]).collect();
        let (face_init, hinge_init, strain_init) = match &cloth.initial_channels {
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

        let b = |label: &str, data: &[[f32; 4]]| storage(&ctx, label, data);
        let faces_buf = storage(&ctx, "faces", &faces)?;
        let face_rest_buf = storage(&ctx, "face_rest", &face_rest)?;
        let hinges_buf = storage(&ctx, "hinges", &hinges)?;
        let hinge_rest_buf = storage(&ctx, "hinge_rest", &hinge_rest)?;
        let hinge_rest_a3_buf = storage(&ctx, "hinge_rest_a3", &hinge_rest_a3)?;
        let mass_buf = storage(&ctx, "mass", &mass)?;
        let face_offsets = storage(&ctx, "face_offsets", &topo.vertex_faces.offsets)?;
        let face_entries_buf = storage(&ctx, "face_entries", &face_entries)?;
        let hinge_offsets = storage(&ctx, "hinge_offsets", &topo.vertex_hinges.offsets)?;
        let hinge_entries_buf = storage(&ctx, "hinge_entries", &hinge_entries)?;
        let free = storage(&ctx, "free", &vec![1u32; n])?;
        let targets = zeroed::<Displacement>(&ctx, "targets", n)?;
        // Positions live on the device as displacements from the mesh's.
        let x = zeroed::<Displacement>(&ctx, "x", n)?;
        let rest_positions: Vec<[f32; 4]> = cloth.mesh.positions.iter().map(|&p| vec4(p)).collect();
        let rest = b("rest", &rest_positions)?;
        let contact = zeroed::<[f32; 2]>(&ctx, "contact", n)?;
        let rest_normal = zeroed::<[f32; 4]>(&ctx, "rest_normal", n)?;
        let released = zeroed::<u32>(&ctx, "released", 2)?;
        let obstacle_count = uniform(&ctx, "obstacle_count", &[0u32; 4]);
        let zeros = vec![[0.0f32; 4]; n];
        let (v, dv, force, rhs, reaction) = (
            b("v", &zeros)?,
            b("dv", &zeros)?,
            b("force", &zeros)?,
            b("rhs", &zeros)?,
            b("reaction", &zeros)?,
        );
        let (r, z, p, q) = (b("r", &zeros)?, b("z", &zeros)?, b("p", &zeros)?, b("q", &zeros)?);
        let (v_tilde, v_before) = (b("v_tilde", &zeros)?, b("v_before", &zeros)?);
        let face_channels = [
            storage(&ctx, "channels_uu", &face_init[0])?,
            storage(&ctx, "channels_vv", &face_init[1])?,
            storage(&ctx, "channels_uv", &face_init[2])?,
        ];
        let hinge_channels = storage(&ctx, "hinge_channels", &hinge_init)?;
        let hinge_strain = storage(&ctx, "hinge_strain", &strain_init)?;
        let stress = zeroed::<[f32; 4]>(&ctx, "stress", 2 * nf)?;
        let face_lin = zeroed::<FaceLin>(&ctx, "face_lin", nf)?;
        let hinge_lin_a = zeroed::<HingeHalf>(&ctx, "hinge_lin_a", nh)?;
        let hinge_lin_b = zeroed::<HingeHalf>(&ctx, "hinge_lin_b", nh)?;
        let face_dp = zeroed::<[f32; 4]>(&ctx, "face_dp", 2 * nf)?;
        let hinge_s = zeroed::<f32>(&ctx, "hinge_s", nh)?;
        let inv_diag = zeroed::<[[f32; 4]; 3]>(&ctx, "inv_diag", n)?;
        let air_normal = zeroed::<[f32; 4]>(&ctx, "air_normal", n)?;
        let stick = zeroed::<[f32; 4]>(&ctx, "stick", n)?;
        // Melo's coupling: its per-hinge data and forces, when the material has it.
        let coupled = cloth.material.coupling != 0.0;
        let hinge_faces: Vec<[u32; 2]> = topo.hinges.iter().map(|h| h.faces).collect();
        let hinge_faces = storage(&ctx, "hinge_faces", &hinge_faces)?;
        let hinge_coupling = match coupled {
            true => storage(
                &ctx,
                "hinge_coupling",
                &(0..nh).map(|h| HingeCoupling::new(&cloth, h)).collect::<Vec<_>>(),
            )?,
            false => zeroed::<HingeCoupling>(&ctx, "hinge_coupling", 1)?,
        };
        let coupling_force = zeroed::<[f32; 4]>(&ctx, "coupling_force", if coupled { 4 * nh } else { 1 })?;
        // Miguel's bending strain needs each hinge's rest edge length.
        let hinge_len = match cloth.material.bending_strain {
            BendingStrain::Curvature => storage(
                &ctx,
                "hinge_len",
                &cloth.hinge_rest.iter().map(|r| r.len as f32).collect::<Vec<f32>>(),
            )?,
            BendingStrain::Angle => zeroed::<f32>(&ctx, "hinge_len", 1)?,
        };
        let scalars = zeroed::<Scalars>(&ctx, "scalars", 1)?;
        let partial = zeroed::<[f32; 2]>(&ctx, "partial", groups(n) as usize)?;
        let count = uniform(&ctx, "partial_count", &[groups(n), 0, 0, 0]);
        let mode = |mass_scale: f32, filter_rows: u32| {
            uniform(
                &ctx,
                "mode",
                &ProductMode {
                    mass_scale,
                    filter_rows,
                    pad: [0; 2],
                },
            )
        };
        let (mode_rhs, mode_plain, mode_pcg) = (mode(0.0, 0), mode(1.0, 0), mode(1.0, 1));
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

        let kernel = |m: &Module, entry: &str, threads: usize, buffers: &[(&str, &wgpu::Buffer)]| {
            Kernel::new(&ctx, m, entry, threads, row, buffers)
        };
        let membrane = Module::new(&ctx, "membrane")?;
        let bending = Module::new(&ctx, "bending")?;
        let gather = Module::new(&ctx, "gather")?;
        let hessian = Module::new(&ctx, "hessian")?;
        let pcg = Module::new(&ctx, "pcg")?;
        let reduce = Module::new(&ctx, "reduce")?;
        let integrate = Module::new(&ctx, "integrate")?;
        fn with_mode<'a>(
            base: &[(&'static str, &'a wgpu::Buffer)],
            mode: &'a wgpu::Buffer,
        ) -> Vec<(&'static str, &'a wgpu::Buffer)> {
            let mut v = base.to_vec();
            v.push(("mode", mode));
            v
        }
        let hessian_base = [
            ("params", &params),
            ("faces", &faces_buf),
            ("face_rest", &face_rest_buf),
            ("face_lin", &face_lin),
            ("p", &p),
            ("face_dp", &face_dp),
            ("hinges", &hinges_buf),
            ("hinge_lin_a", &hinge_lin_a),
            ("hinge_lin_b", &hinge_lin_b),
            ("hinge_s", &hinge_s),
            ("mass", &mass_buf),
            ("face_offsets", &face_offsets),
            ("face_entries", &face_entries_buf),
            ("hinge_offsets", &hinge_offsets),
            ("hinge_entries", &hinge_entries_buf),
            ("is_free", &free),
            ("q", &q),
            ("partial", &partial),
            ("air_normal", &air_normal),
            ("stick", &stick),
        ];
        let hessian_buffers = |mode| with_mode(&hessian_base, mode);
        let pcg_buffers = [
            ("params", &params),
            ("is_free", &free),
            ("inv_diag", &inv_diag),
            ("rhs", &rhs),
            ("dv", &dv),
            ("r", &r),
            ("z", &z),
            ("p", &p),
            ("q", &q),
            ("scalars", &scalars),
            ("partial", &partial),
            ("rest_normal", &rest_normal),
        ];
        let reduce_buffers = [("partial", &partial), ("scalars", &scalars), ("count", &count)];
        let integrate_buffers = [
            ("params", &params),
            ("is_free", &free),
            ("targets", &targets),
            ("x", &x),
            ("v", &v),
            ("dv", &dv),
            ("force", &force),
            ("q", &q),
            ("rhs", &rhs),
            ("reaction", &reaction),
            ("mass", &mass_buf),
            ("v_tilde", &v_tilde),
            ("v_before", &v_before),
        ];
        let kernels = Kernels {
            membrane: kernel(
                &membrane,
                "main",
                nf,
                &[
                    ("params", &params),
                    ("faces", &faces_buf),
                    ("face_rest", &face_rest_buf),
                    ("x", &x),
                    ("v", &v),
                    ("channels_uu", &face_channels[0]),
                    ("channels_vv", &face_channels[1]),
                    ("channels_uv", &face_channels[2]),
                    ("stress", &stress),
                    ("lin", &face_lin),
                ],
            )?,
            bending: kernel(
                &bending,
                "main",
                nh,
                &[
                    ("params", &params),
                    ("hinges", &hinges_buf),
                    ("hinge_rest", &hinge_rest_buf),
                    ("hinge_rest_a3", &hinge_rest_a3_buf),
                    ("x", &x),
                    ("v", &v),
                    ("channels", &hinge_channels),
                    ("lin_a", &hinge_lin_a),
                    ("lin_b", &hinge_lin_b),
                    ("last_strain", &hinge_strain),
                    ("hinge_faces", &hinge_faces),
                    ("face_lin", &face_lin),
                    ("hinge_coupling", &hinge_coupling),
                    ("coupling_force", &coupling_force),
                    ("hinge_len", &hinge_len),
                ],
            )?,
            gather: kernel(
                &gather,
                "main",
                n,
                &[
                    ("params", &params),
                    ("mass", &mass_buf),
                    ("face_offsets", &face_offsets),
                    ("face_entries", &face_entries_buf),
                    ("hinge_offsets", &hinge_offsets),
                    ("hinge_entries", &hinge_entries_buf),
                    ("stress", &stress),
                    ("face_lin", &face_lin),
                    ("face_rest", &face_rest_buf),
                    ("hinge_lin_a", &hinge_lin_a),
                    ("hinge_lin_b", &hinge_lin_b),
                    ("force", &force),
                    ("inv_diag", &inv_diag),
                    ("air_normal", &air_normal),
                    ("x", &x),
                    ("stick", &stick),
                    ("coupling_force", &coupling_force),
                ],
            )?,
            constrain: kernel(&integrate, "constrain", n, &integrate_buffers)?,
            right_hand_side: kernel(&integrate, "right_hand_side", n, &integrate_buffers)?,
            reactions: kernel(&integrate, "reactions", n, &integrate_buffers)?,
            advance_velocity: kernel(&integrate, "advance_velocity", n, &integrate_buffers)?,
            advance_position: kernel(&integrate, "advance_position", n, &integrate_buffers)?,
            explicit_half: kernel(&integrate, "explicit_half", n, &integrate_buffers)?,
            carry: kernel(&integrate, "carry", n, &integrate_buffers)?,
            hold_pinned: kernel(&integrate, "hold_pinned", n, &integrate_buffers)?,
            face_product: kernel(&hessian, "face_product", nf, &hessian_buffers(&mode_plain))?,
            hinge_product: kernel(&hessian, "hinge_product", nh, &hessian_buffers(&mode_plain))?,
            gather_rhs: kernel(&hessian, "gather_product", n, &hessian_buffers(&mode_rhs))?,
            gather_plain: kernel(&hessian, "gather_product", n, &hessian_buffers(&mode_plain))?,
            gather_pcg: kernel(&hessian, "gather_product", n, &hessian_buffers(&mode_pcg))?,
            pinned_guess: kernel(&pcg, "pinned_guess", n, &pcg_buffers)?,
            reference_residual: kernel(&pcg, "reference_residual", n, &pcg_buffers)?,
            residual: kernel(&pcg, "residual", n, &pcg_buffers)?,
            update: kernel(&pcg, "update", n, &pcg_buffers)?,
            direction: kernel(&pcg, "direction", n, &pcg_buffers)?,
            first_direction: kernel(&pcg, "first_direction", n, &pcg_buffers)?,
            zero_free: kernel(&pcg, "zero_free", n, &pcg_buffers)?,
            reduce_reference: kernel(&reduce, "reduce_reference", 1, &reduce_buffers)?,
            reduce_start: kernel(&reduce, "reduce_start", 1, &reduce_buffers)?,
            reduce_alpha: kernel(&reduce, "reduce_alpha", 1, &reduce_buffers)?,
            reduce_beta: kernel(&reduce, "reduce_beta", 1, &reduce_buffers)?,
        };
        ctx.check()?;
        let device_bytes = [
            &params,
            &faces_buf,
            &face_rest_buf,
            &hinges_buf,
            &hinge_rest_buf,
            &hinge_rest_a3_buf,
            &mass_buf,
            &face_offsets,
            &face_entries_buf,
            &hinge_offsets,
            &hinge_entries_buf,
            &free,
            &targets,
            &x,
            &v,
            &dv,
            &force,
            &rhs,
            &reaction,
            &r,
            &z,
            &p,
            &q,
            &face_channels[0],
            &face_channels[1],
            &face_channels[2],
            &hinge_channels,
            &hinge_strain,
            &stress,
            &face_lin,
            &hinge_lin_a,
            &hinge_lin_b,
            &face_dp,
            &hinge_s,
            &inv_diag,
            &air_normal,
            &stick,
            &hinge_faces,
            &hinge_coupling,
            &coupling_force,
            &hinge_len,
            &v_tilde,
            &v_before,
            &scalars,
            &partial,
            &count,
            &mode_rhs,
            &mode_plain,
            &mode_pcg,
            &staging,
            &rest,
            &contact,
            &rest_normal,
            &released,
        ]
        .iter()
        .map(|b| b.size())
        .sum();
        Ok(GpuBackend {
            device_bytes,
            ctx,
            cloth,
            params,
            free,
            targets,
            x,
            v,
            dv,
            force,
            rhs,
            stress,
            hinge_lin_a,
            hinge_lin_b,
            p,
            reaction,
            face_channels,
            hinge_channels,
            hinge_strain,
            scalars,
            staging,
            kernels,
            rest,
            contact,
            rest_normal,
            released,
            obstacle_count,
            collide: None,
            mass: mass_buf,
            inv_diag,
            q,
            partial,
            modes: [mode_rhs, mode_plain, mode_pcg],
            repulsion: None,
            limiter: None,
            v_tilde,
            v_before,
            stick,
            row,
        })
    }

    /// Uploads a step's proximity pairs (`scale`: the springs' system
    /// factor), first building (or rebuilding larger) the kernels.
    fn prepare_repulsion(&mut self, prox: &Proximity, sc: &SelfCollision, scale: f64, held: bool) -> Result<()> {
        let n = self.cloth.vertex_count();
        let r = match self.repulsion.take() {
            Some(r) if r.pairs_capacity >= prox.pairs.len() && r.entries_capacity >= prox.entries.len() => r,
            _ => {
                let pairs_capacity = prox.pairs.len().max(n).max(1024).next_power_of_two();
                let entries_capacity = 4 * pairs_capacity;
                let ctx = &self.ctx;
                let params = uniform(ctx, "repulsion", &RepulsionParams::zeroed());
                let pairs = zeroed::<PairGpu>(ctx, "pairs", pairs_capacity)?;
                let offsets = zeroed::<u32>(ctx, "pair_offsets", n + 1)?;
                let entries = zeroed::<[u32; 2]>(ctx, "pair_entries", entries_capacity)?;
                let pair_s = zeroed::<f32>(ctx, "pair_s", pairs_capacity)?;
                let impulse = zeroed::<[f32; 4]>(ctx, "impulse", pairs_capacity)?;
                let module = Module::new(ctx, "repulsion")?;
                let buffers = |mode: usize| {
                    [
                        ("params", &self.params),
                        ("rep", &params),
                        ("mode", &self.modes[mode]),
                        ("pairs", &pairs),
                        ("pair_offsets", &offsets),
                        ("pair_entries", &entries),
                        ("pair_s", &pair_s),
                        ("impulse", &impulse),
                        ("force", &self.force),
                        ("inv_diag", &self.inv_diag),
                        ("p", &self.p),
                        ("q", &self.q),
                        ("partial", &self.partial),
                        ("is_free", &self.free),
                        ("v", &self.v),
                        ("mass", &self.mass),
                        ("contact", &self.contact),
                    ]
                };
                let plain = buffers(PLAIN);
                let kernel = |entry: &str, threads: usize| Kernel::new(ctx, &module, entry, threads, self.row, &plain);
                let gather = |mode: usize| Kernel::new(ctx, &module, "gather_product", n, self.row, &buffers(mode));
                let bytes = [&params, &pairs, &offsets, &entries, &pair_s, &impulse]
                    .iter()
                    .map(|b| b.size())
                    .sum();
                let built = Repulsion {
                    pairs_capacity,
                    entries_capacity,
                    forces: kernel("forces", n)?,
                    precondition: kernel("precondition", n)?,
                    pair_product: kernel("pair_product", pairs_capacity)?,
                    gather: [gather(RHS)?, gather(PLAIN)?, gather(PCG)?],
                    pair_impulse: kernel("pair_impulse", pairs_capacity)?,
                    apply_impulses: kernel("apply_impulses", n)?,
                    bytes,
                    params,
                    pairs,
                    offsets,
                    entries,
                };
                ctx.check()?;
                built
            }
        };
        let r = &*self.repulsion.insert(r);
        let q = &self.ctx.queue;
        let pairs: Vec<PairGpu> = prox.pairs.iter().map(PairGpu::new).collect();
        let entries: Vec<[u32; 2]> = prox.entries.iter().map(|&(k, s)| [k, s]).collect();
        q.write_buffer(&r.pairs, 0, bytemuck::cast_slice(&pairs));
        q.write_buffer(&r.offsets, 0, bytemuck::cast_slice(&prox.offsets));
        q.write_buffer(&r.entries, 0, bytemuck::cast_slice(&entries));
        let params = RepulsionParams {
            counts: [prox.pairs.len() as u32, held as u32, 0, 0],
            coef: [
                sc.stiffness as f32,
                sc.thickness as f32,
                sc.friction as f32,
                scale as f32,
            ],
        };
        q.write_buffer(&r.params, 0, bytemuck::bytes_of(&params));
        Ok(())
    }

    /// Uploads the scene's obstacle grids and builds the collision kernels,
    /// unless the same grids are already on the device.
    fn prepare_collide(&mut self, grids: &[Arc<SdfGrid>]) -> Result<()> {
        if let Some(c) = &self.collide
            && c.grids.len() == grids.len()
            && c.grids.iter().zip(grids).all(|(a, b)| Arc::ptr_eq(a, b))
        {
            return Ok(());
        }
        let ctx = &self.ctx;
        let mut values = Vec::new();
        let mut infos = Vec::new();
        for g in grids {
            let o = g.origin;
            infos.push(SdfInfo {
                origin: [o.x as f32, o.y as f32, o.z as f32, g.cell as f32],
                dims: [g.dims[0], g.dims[1], g.dims[2], values.len() as u32],
            });
            values.extend_from_slice(&g.values);
        }
        let sdf = storage(ctx, "sdf", &values)?;
        let infos = storage(ctx, "sdf_info", &infos)?;
        let obstacles = zeroed::<ObstacleGpu>(ctx, "obstacles", grids.len().max(1))?;
        let module = Module::new(ctx, "collide")?;
        let buffers = [
            ("params", &self.params),
            ("obstacle_count", &self.obstacle_count),
            ("is_free", &self.free),
            ("rest", &self.rest),
            ("x", &self.x),
            ("v", &self.v),
            ("sdf", &sdf),
            ("grids", &infos),
            ("obstacles", &obstacles),
            ("contact", &self.contact),
            ("dv", &self.dv),
            ("rest_normal", &self.rest_normal),
            ("q", &self.q),
            ("rhs", &self.rhs),
            ("mass", &self.mass),
            ("released", &self.released),
        ];
        let n = self.cloth.vertex_count();
        let kernel = |entry: &str| Kernel::new(ctx, &module, entry, n, self.row, &buffers);
        self.collide = Some(Collide {
            grids: grids.to_vec(),
            resting: kernel("resting")?,
            release: kernel("release")?,
            respond: kernel("respond")?,
            settle: kernel("settle")?,
            bytes: sdf.size() + infos.size() + obstacles.size(),
            obstacles,
        });
        ctx.check()
    }

    /// Builds the strain-limiting kernels on first use and uploads the
    /// step's limits.
    fn prepare_limiter(&mut self, limit: &StrainLimit) -> Result<()> {
        let ctx = &self.ctx;
        let topo = &self.cloth.topology;
        let ne = topo.edges.len();
        if self.limiter.is_none() {
            let rest = &self.cloth.mesh.positions;
            let edges: Vec<LimitEdge> = topo
                .edges
                .iter()
                .zip(&self.cloth.edge_rest)
                .map(|(&[a, b], &l)| {
                    let d = rest[b as usize] - rest[a as usize];
                    LimitEdge {
                        ends: [a, b, ((d.length_squared() - l * l) as f32).to_bits(), 0],
                        rest: [d.x as f32, d.y as f32, d.z as f32, l as f32],
                    }
                })
                .collect();
            let entries: Vec<[u32; 2]> = topo.vertex_edges.entries.iter().map(|&(e, end)| [e, end]).collect();
            let params = uniform(ctx, "limit_params", &LimitParams::zeroed());
            let edges = storage(ctx, "limit_edges", &edges)?;
            let offsets = storage(ctx, "edge_offsets", &topo.vertex_edges.offsets)?;
            let entries = storage(ctx, "edge_entries", &entries)?;
            let request = zeroed::<[f32; 4]>(ctx, "limit_request", ne)?;
            let module = Module::new(ctx, "strain_limit")?;
            let buffers = [
                ("params", &self.params),
                ("limits", &params),
                ("edges", &edges),
                ("edge_offsets", &offsets),
                ("edge_entries", &entries),
                ("x", &self.x),
                ("v", &self.v),
                ("mass", &self.mass),
                ("is_free", &self.free),
                ("request", &request),
            ];
            let n = self.cloth.vertex_count();
            self.limiter = Some(Limiter {
                edge_request: Kernel::new(ctx, &module, "edge_request", ne, self.row, &buffers)?,
                apply_requests: Kernel::new(ctx, &module, "apply_requests", n, self.row, &buffers)?,
                bytes: [&params, &edges, &offsets, &entries, &request]
                    .iter()
                    .map(|b| b.size())
                    .sum(),
                params,
            });
        }
        if let Some(l) = &self.limiter {
            let p = LimitParams {
                counts: [ne as u32, 0, 0, 0],
                bounds: [
                    1.0 - limit.compression,
                    1.0 + limit.extension,
                    limit.compression * (limit.compression - 2.0),
                    limit.extension * (limit.extension + 2.0),
                ]
                .map(|b| b as f32),
            };
            ctx.queue.write_buffer(&l.params, 0, bytemuck::bytes_of(&p));
        }
        ctx.check()
    }

    /// The buffers that carry state from step to step, by name.
    fn state_buffers(&self) -> Vec<(&'static str, &wgpu::Buffer)> {
        vec![
            ("x", &self.x),
            ("v", &self.v),
            ("dv", &self.dv),
            ("channels_uu", &self.face_channels[0]),
            ("channels_vv", &self.face_channels[1]),
            ("channels_uv", &self.face_channels[2]),
            ("hinge_channels", &self.hinge_channels),
            ("hinge_strain", &self.hinge_strain),
        ]
    }

    /// The adapter this backend runs on.
    pub fn adapter(&self) -> &wgpu::AdapterInfo {
        &self.ctx.adapter
    }

    /// Bytes of every buffer this backend holds on the device.
    pub fn device_bytes(&self) -> u64 {
        self.device_bytes
            + self.collide.as_ref().map_or(0, |c| c.bytes)
            + self.repulsion.as_ref().map_or(0, |r| r.bytes)
            + self.limiter.as_ref().map_or(0, |l| l.bytes)
    }

    fn submit(&self, label: &str, record: impl FnOnce(&mut wgpu::CommandEncoder)) -> Result<()> {
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        record(&mut encoder);
        self.ctx.queue.submit([encoder.finish()]);
        Ok(())
    }

    fn pass<'e>(encoder: &'e mut wgpu::CommandEncoder, label: &str) -> wgpu::ComputePass<'e> {
        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: None,
        })
    }

    /// Copies `count` elements of `buffer` back to the host.
    fn read<T: Pod>(&self, buffer: &wgpu::Buffer, count: usize) -> Result<Vec<T>> {
        let bytes = (count * size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        self.submit("readback", |e| {
            e.copy_buffer_to_buffer(buffer, 0, &self.staging, 0, bytes)
        })?;
        let slice = self.staging.slice(0..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
        rx.recv()
            .map_err(|e| Error::Gpu(format!("readback: {e}")))?
            .map_err(|e| Error::Gpu(format!("readback: {e}")))?;
        let view = slice
            .get_mapped_range()
            .map_err(|e| Error::Gpu(format!("readback: {e}")))?;
        let out = bytemuck::cast_slice::<u8, T>(&view).to_vec();
        drop(view);
        self.staging.unmap();
        Ok(out)
    }

    fn read_vec3(&self, buffer: &wgpu::Buffer) -> Result<Vec<DVec3>> {
        let raw: Vec<[f32; 4]> = self.read(buffer, self.cloth.vertex_count())?;
        Ok(raw
            .iter()
            .map(|a| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64))
            .collect())
    }

    /// Replaces positions, velocities and the warm start of the next solve
    /// (validation from identical states).
    pub fn set_state(&mut self, x: &[DVec3], v: &[DVec3], dv: &[DVec3]) {
        let q = &self.ctx.queue;
        let u: Vec<Displacement> = x
            .iter()
            .zip(&self.cloth.mesh.positions)
            .map(|(p, r)| Displacement::split(*p - *r))
            .collect();
        q.write_buffer(&self.x, 0, bytemuck::cast_slice(&u));
        for (buffer, data) in [(&self.v, v), (&self.dv, dv)] {
            let packed: Vec<[f32; 4]> = data.iter().map(|&p| vec4(p)).collect();
            q.write_buffer(buffer, 0, bytemuck::cast_slice(&packed));
        }
    }

    /// Every element's corner forces from the last force evaluation (see
    /// `CpuBackend::element_forces`).
    pub fn element_forces(&self) -> Result<Vec<DVec3>> {
        let (nf, nh) = (self.cloth.mesh.faces.len(), self.cloth.topology.hinges.len());
        let d = |a: &[f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
        let stress: Vec<[f32; 4]> = self.read(&self.stress, 2 * nf)?;
        let stress: Vec<[DVec3; 2]> = stress.chunks_exact(2).map(|c| [d(&c[0]), d(&c[1])]).collect();
        let a: Vec<HingeHalf> = self.read(&self.hinge_lin_a, nh)?;
        let b: Vec<HingeHalf> = self.read(&self.hinge_lin_b, nh)?;
        let force: Vec<f64> = a.iter().map(|h| h.a[3] as f64).collect();
        let grad: Vec<[DVec3; 4]> = a
            .iter()
            .zip(&b)
            .map(|(a, b)| [d(&a.a), d(&a.b), d(&b.a), d(&b.b)])
            .collect();
        Ok(crate::measure::element_forces(&self.cloth, &stress, &force, &grad))
    }

    /// Updates the channels and evaluates the total force at the current
    /// state, like `CpuBackend::forces`.
    pub fn forces(&mut self, gravity: DVec3, scales: &Scales) -> Result<Vec<DVec3>> {
        let params = Params::new(&self.cloth, scales.dt, scales, gravity, &Air::default(), false);
        self.ctx
            .queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let k = &self.kernels;
        self.submit("forces", |e| {
            let mut pass = Self::pass(e, "element kernels and gather");
            for kernel in [&k.membrane, &k.bending, &k.gather] {
                kernel.record(&mut pass);
            }
        })?;
        self.read_vec3(&self.force)
    }

    /// Replaces every channel's state (validation from identical states).
    pub fn set_channels(&mut self, ch: &Channels) {
        let q = &self.ctx.queue;
        for (c, buffer) in self.face_channels.iter().enumerate() {
            let packed: Vec<PackedChannel> = ch.faces.iter().map(|f| PackedChannel::from_state(&f[c])).collect();
            q.write_buffer(buffer, 0, bytemuck::cast_slice(&packed));
        }
        let hinges: Vec<PackedChannel> = ch.hinges.iter().map(PackedChannel::from_state).collect();
        if !hinges.is_empty() {
            q.write_buffer(&self.hinge_channels, 0, bytemuck::cast_slice(&hinges));
            let strain: Vec<f32> = ch.hinge_strain.iter().map(|&s| s as f32).collect();
            q.write_buffer(&self.hinge_strain, 0, bytemuck::cast_slice(&strain));
        }
    }

    /// One step, as the CPU twin's `step_in_pool` (cpu/mod.rs): backward
    /// Euler, or Bridson's mixed scheme with its second evaluation and solve
    /// at the step's end.
    fn try_step(&mut self, input: &StepInput) -> Result<StepReport> {
        let n = self.cloth.vertex_count();
        let mixed = input.integrator == Integrator::BridsonMixed;
        let obstacles: Vec<ObstacleGpu> = input.obstacles.iter().map(ObstacleGpu::new).collect();
        if !obstacles.is_empty() {
            self.prepare_collide(input.grids)?;
        }
        // Self-collision pairs are found on the host, at the step's start
        // positions (collide/proximity.rs), and uploaded.
        let t_prox = Instant::now();
        let sc = input.self_collision;
        let prox = if sc.enabled {
            let x = self.positions()?;
            proximity::find(
                &self.cloth.mesh.faces,
                &self.cloth.topology.edges,
                &x,
                &self.cloth.mesh.positions,
                sc.thickness,
            )
        } else {
            Proximity::default()
        };
        if !prox.pairs.is_empty() {
            // The springs are elastic: explicit in the mixed scheme.
            let scale = if mixed { 0.0 } else { input.dt * input.dt };
            self.prepare_repulsion(&prox, &sc, scale, !obstacles.is_empty())?;
        }
        let proximity_ms = t_prox.elapsed().as_secs_f64() * 1e3;
        if let Some(limit) = &input.strain_limit {
            self.prepare_limiter(limit)?;
        }
        let scales = match mixed {
            false => Scales::new(input.dt, input.material_dt, self.cloth.damping),
            true => Scales::mixed(input.dt, 0.0, self.cloth.damping),
        };
        let q = &self.ctx.queue;
        let mut free = vec![1u32; n];
        let mut targets = vec![Displacement::zeroed(); n];
        for (&i, &t) in input.pinned.iter().zip(input.targets) {
            free[i as usize] = 0;
            targets[i as usize] = Displacement::split(t - self.cloth.mesh.positions[i as usize]);
        }
        q.write_buffer(&self.free, 0, bytemuck::cast_slice(&free));
        q.write_buffer(&self.targets, 0, bytemuck::cast_slice(&targets));
        if !input.sticks.is_empty() {
            let mut stick = vec![[0.0f32; 4]; n];
            for st in input.sticks {
                let d = st.target - self.cloth.mesh.positions[st.vertex as usize];
                stick[st.vertex as usize] = [d.x, d.y, d.z, st.stiffness].map(|c| c as f32);
            }
            q.write_buffer(&self.stick, 0, bytemuck::cast_slice(&stick));
        }

        let collide = self.collide.as_ref().filter(|_| !obstacles.is_empty());
        if let Some(c) = collide {
            let q = &self.ctx.queue;
            q.write_buffer(&c.obstacles, 0, bytemuck::cast_slice(&obstacles));
            q.write_buffer(
                &self.obstacle_count,
                0,
                bytemuck::cast_slice(&[obstacles.len() as u32, 0, 0, 0]),
            );
        }

        let rep = self.repulsion.as_ref().filter(|_| !prox.pairs.is_empty());
        let t0 = Instant::now();
        let resting = collide.filter(|_| input.solver.contact_solves > 0);
        self.evaluate(input, &scales, rep, resting, true)?;
        let mut forces_ms = t0.elapsed().as_secs_f64() * 1e3;

        let t1 = Instant::now();
        let k = &self.kernels;
        let limiter = self.limiter.as_ref().zip(input.strain_limit.as_ref());
        let bytes = (n * 16) as u64;
        let (mut s, mut dispatches) = self.solve(input, rep)?;
        let mut held = 0;
        // Resting contacts whose reaction pulls are released and the system
        // solved again (the CPU twin's loop in `CpuBackend::solve`).
        if let Some(c) = resting {
            let solves = input.solver.contact_solves;
            for round in 1..=solves {
                dispatches += 1;
                let [released, kept] = self.release(c)?;
                held = kept as usize;
                if released == 0 || round == solves {
                    break;
                }
                let (again, more) = self.solve(input, rep)?;
                s = Scalars {
                    iterations: s.iterations + again.iterations,
                    ..again
                };
                dispatches += more;
            }
        }
        self.submit("finish", |e| {
            let mut pass = Self::pass(e, "reactions and velocity update");
            k.reactions.record(&mut pass);
            if mixed {
                k.explicit_half.record(&mut pass);
            }
            k.advance_velocity.record(&mut pass);
        })?;
        // The evaluation (4, 2 for self-collision, 1 for resting contacts)
        // and the finish's kernels (the constraints and the position update
        // are counted below).
        let evaluation = 4 + if rep.is_some() { 2 } else { 0 };
        dispatches += evaluation + u64::from(resting.is_some()) + 2 + u64::from(mixed);
        let all = self.read_vec3(&self.reaction)?;
        let reactions = input.pinned.iter().map(|&i| all[i as usize]).collect();
        let mut solve_ms = t1.elapsed().as_secs_f64() * 1e3;

        let t2 = Instant::now();
        self.submit("collide and position update", |e| {
            e.copy_buffer_to_buffer(&self.v, 0, &self.v_before, 0, bytes);
            let mut pass = Self::pass(e, "collide and position update");
            if let Some((l, limit)) = limiter {
                for _ in 0..limit.iterations {
                    l.edge_request.record(&mut pass);
                    l.apply_requests.record(&mut pass);
                }
            }
            if let Some(c) = collide {
                c.respond.record(&mut pass);
            }
            if let Some(r) = rep {
                for _ in 0..CORRECTION_ITERATIONS {
                    r.pair_impulse.record(&mut pass);
                    r.apply_impulses.record(&mut pass);
                }
            }
            if mixed {
                k.carry.record(&mut pass);
            }
            k.advance_position.record(&mut pass);
            if let Some(c) = collide {
                c.settle.record(&mut pass);
            }
        })?;
        dispatches += 1 + u64::from(mixed) + if collide.is_some() { 2 } else { 0 };
        if let Some((_, limit)) = limiter {
            dispatches += 2 * limit.iterations as u64;
        }
        dispatches += if rep.is_some() {
            2 * CORRECTION_ITERATIONS as u64
        } else {
            0
        };
        let contact = match collide {
            Some(_) => {
                let c: Vec<[f32; 2]> = self.read(&self.contact, n)?;
                ContactReport {
                    contacts: c.iter().filter(|c| c[0] != 0.0).count(),
                    penetration: c.iter().fold(0.0f64, |m, c| m.max(-c[1] as f64)),
                    resting: held,
                }
            }
            None => ContactReport::default(),
        };
        let collide_ms = t2.elapsed().as_secs_f64() * 1e3 + proximity_ms;

        let mut solves = vec![s];
        if mixed {
            // v := v_tilde; the channels advance here, at x^{n+1}.
            let t3 = Instant::now();
            self.submit("explicit half step", |e| {
                e.copy_buffer_to_buffer(&self.v_tilde, 0, &self.v, 0, bytes)
            })?;
            let end = Scales::mixed(input.dt, input.material_dt, self.cloth.damping);
            self.evaluate(input, &end, rep, None, false)?;
            forces_ms += t3.elapsed().as_secs_f64() * 1e3;
            let t4 = Instant::now();
            let (s, more) = self.solve(input, rep)?;
            self.submit("finish", |e| {
                k.advance_velocity.record(&mut Self::pass(e, "velocity update"))
            })?;
            solves.push(s);
            dispatches += more + evaluation + 1;
            solve_ms += t4.elapsed().as_secs_f64() * 1e3;
        }
        let mut residual = 0.0f64;
        for s in &solves {
            if s.zero == 0 {
                residual = residual.max(((s.rr / s.rr_ref) as f64).sqrt());
            }
        }
        if !residual.is_finite() {
            return Err(Error::Step(
                "the solve produced a non-finite residual (the step blew up): reduce dt".into(),
            ));
        }
        Ok(StepReport {
            cg_iterations: solves.iter().map(|s| s.iterations as usize).sum(),
            cg_residual: residual,
            reactions,
            forces_ms,
            solve_ms,
            dispatches,
            contact,
            collide_ms,
            proximity_pairs: prox.pairs.len(),
        })
    }

    /// Uploads the step factors and records the element kernels and the
    /// gather at the current state (the channels advance by
    /// `scales.material_dt`), then the pinned vertices' dv: onto their
    /// targets, or (`to_targets` false) held at zero; then the resting
    /// contacts on `collide`'s obstacles (none without).
    fn evaluate(
        &self,
        input: &StepInput,
        scales: &Scales,
        rep: Option<&Repulsion>,
        collide: Option<&Collide>,
        to_targets: bool,
    ) -> Result<()> {
        let sticking = !input.sticks.is_empty();
        let params = Params::new(&self.cloth, input.dt, scales, input.gravity, &input.air, sticking);
        self.ctx
            .queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let k = &self.kernels;
        self.submit("forces", |e| {
            if collide.is_none() {
                e.clear_buffer(&self.rest_normal, 0, None);
            }
            let mut pass = Self::pass(e, "element kernels and gather");
            for kernel in [&k.membrane, &k.bending, &k.gather] {
                kernel.record(&mut pass);
            }
            if let Some(r) = rep {
                r.forces.record(&mut pass);
                r.precondition.record(&mut pass);
            }
            [&k.hold_pinned, &k.constrain][usize::from(to_targets)].record(&mut pass);
            if let Some(c) = collide {
                c.resting.record(&mut pass);
            }
        })?;
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
        Ok(())
    }

    /// Solves `(M + S) dv = k f - S v` on the device from the warm start in
    /// `dv`, filtered by the pinned vertices and the resting contacts, and
    /// leaves `A dv` in `q` (for the reactions); returns the PCG's scalars
    /// and the dispatches recorded.
    fn solve(&self, input: &StepInput, rep: Option<&Repulsion>) -> Result<(Scalars, u64)> {
        let n = self.cloth.vertex_count();
        let init = Scalars {
            tol2: (input.solver.tolerance * input.solver.tolerance) as f32,
            max_iterations: input.solver.max_iterations as u32,
            ..Scalars::default()
        };
        self.ctx.queue.write_buffer(&self.scalars, 0, bytemuck::bytes_of(&init));
        let k = &self.kernels;
        let product = |pass: &mut wgpu::ComputePass, mode: usize| {
            k.face_product.record(pass);
            k.hinge_product.record(pass);
            [&k.gather_rhs, &k.gather_plain, &k.gather_pcg][mode].record(pass);
            if let Some(r) = rep {
                r.pair_product.record(pass);
                r.gather[mode].record(pass);
            }
        };
        let bytes = (n * 16) as u64;
        self.submit("start", |e| {
            // rhs = k f - S v.
            e.copy_buffer_to_buffer(&self.v, 0, &self.p, 0, bytes);
            {
                let mut pass = Self::pass(e, "right-hand side");
                product(&mut pass, RHS);
                k.right_hand_side.record(&mut pass);
                // Reference residual: the guess with only its prescribed part.
                k.pinned_guess.record(&mut pass);
                product(&mut pass, PLAIN);
                k.reference_residual.record(&mut pass);
                k.reduce_reference.record(&mut pass);
            }
            // Residual of the warm-started guess.
            e.copy_buffer_to_buffer(&self.dv, 0, &self.p, 0, bytes);
            let mut pass = Self::pass(e, "start");
            product(&mut pass, PLAIN);
            k.residual.record(&mut pass);
            k.reduce_start.record(&mut pass);
            k.first_direction.record(&mut pass);
        })?;
        let mut s: Scalars = self.read(&self.scalars, 1)?[0];
        // start 10 + 6, 7 per recorded iteration, and the finish's 4;
        // self-collision adds 2 per product.
        let per_product = if rep.is_some() { 2 } else { 0 };
        let mut dispatches = 20 + 4 * per_product;
        let batch = input.solver.readback_interval.max(1);
        while s.done == 0 {
            dispatches += (7 + per_product) * batch as u64;
            self.submit("pcg", |e| {
                let mut pass = Self::pass(e, "pcg iterations");
                for _ in 0..batch {
                    product(&mut pass, PCG);
                    k.reduce_alpha.record(&mut pass);
                    k.update.record(&mut pass);
                    k.reduce_beta.record(&mut pass);
                    k.direction.record(&mut pass);
                }
            })?;
            s = self.read(&self.scalars, 1)?[0];
        }
        if s.broke != 0 {
            return Err(Error::Step(format!(
                "conjugate gradients broke down at iteration {} (p.Ap = {}): the system is not positive definite \
                 or the state blew up; reduce dt",
                s.iterations, s.pq
            )));
        }
        self.submit("solution product", |e| {
            let mut pass = Self::pass(e, "prescribed solution");
            k.zero_free.record(&mut pass);
            drop(pass);
            e.copy_buffer_to_buffer(&self.dv, 0, &self.p, 0, bytes);
            product(&mut Self::pass(e, "A dv"), PLAIN);
        })?;
        Ok((s, dispatches))
    }

    /// Releases the resting contacts whose reaction pulls (collide.wgsl
    /// `release`, after a solve); returns how many it released and kept.
    fn release(&self, c: &Collide) -> Result<[u32; 2]> {
        self.submit("release contacts", |e| {
            e.clear_buffer(&self.released, 0, None);
            c.release.record(&mut Self::pass(e, "release contacts"));
        })?;
        let counts = self.read::<u32>(&self.released, 2)?;
        Ok([counts[0], counts[1]])
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn step(&mut self, input: &StepInput) -> Result<StepReport> {
        self.try_step(input)
    }

    fn positions(&self) -> Result<Vec<DVec3>> {
        let u: Vec<Displacement> = self.read(&self.x, self.cloth.vertex_count())?;
        Ok(u.iter()
            .zip(&self.cloth.mesh.positions)
            .map(|(u, x)| *x + u.value())
            .collect())
    }

    fn velocities(&self) -> Result<Vec<DVec3>> {
        self.read_vec3(&self.v)
    }

    fn channels(&self) -> Result<Channels> {
        let nf = self.cloth.mesh.faces.len();
        let nh = self.cloth.topology.hinges.len();
        let mut faces = vec![[PackedChannel::zeroed().to_state(); 3]; nf];
        for (c, buffer) in self.face_channels.iter().enumerate() {
            let packed: Vec<PackedChannel> = self.read(buffer, nf)?;
            for (f, p) in faces.iter_mut().zip(&packed) {
                f[c] = p.to_state();
            }
        }
        let hinges: Vec<PackedChannel> = self.read(&self.hinge_channels, nh)?;
        let strain: Vec<f32> = self.read(&self.hinge_strain, nh)?;
        Ok(Channels {
            hinges: hinges.iter().map(PackedChannel::to_state).collect(),
            faces,
            hinge_strain: strain.iter().map(|&s| s as f64).collect(),
        })
    }

    fn cloth(&self) -> Arc<Cloth> {
        Arc::clone(&self.cloth)
    }

    fn save_state(&self) -> Result<BackendState> {
        let mut buffers = Vec::new();
        for (name, buffer) in self.state_buffers() {
            buffers.push((
                name.to_string(),
                self.read::<u32>(buffer, (buffer.size() / 4) as usize)?,
            ));
        }
        Ok(BackendState::Gpu { buffers })
    }

    fn restore_state(&mut self, state: &BackendState) -> Result<()> {
        let BackendState::Gpu { buffers } = state else {
            return Err(Error::Step(
                "the checkpoint holds the CPU backend's state: resume it with --backend cpu".into(),
            ));
        };
        let ours = self.state_buffers();
        if buffers.len() != ours.len() {
            return Err(Error::Step(format!(
                "the checkpoint holds {} GPU buffers, this backend has {}",
                buffers.len(),
                ours.len()
            )));
        }
        for ((name, words), (our_name, buffer)) in buffers.iter().zip(&ours) {
            if name != our_name || words.len() as u64 * 4 != buffer.size() {
                return Err(Error::Step(format!(
                    "the checkpoint's GPU buffer `{name}` ({} words) does not match this cloth's `{our_name}` ({} words)",
                    words.len(),
                    buffer.size() / 4
                )));
            }
        }
        for ((_, words), (_, buffer)) in buffers.iter().zip(&ours) {
            self.ctx.queue.write_buffer(buffer, 0, bytemuck::cast_slice(words));
        }
        self.ctx.check()
    }
}

/// Bytes one PCG iteration reads and writes, by a model of its kernels:
/// per face 224 (indices, rest data, linearisation, three p, dP), per
/// hinge 148 (indices, bending mode, four p, the product), per vertex 256
/// (gather: offsets, p, mass, flag, q; update; direction) plus 48 per
/// face incidence and 28 per hinge incidence. Element data gathered by
/// several vertices counts once per read.
pub fn bytes_per_iteration(c: &Cloth) -> u64 {
    let (n, nf, nh) = (
        c.vertex_count() as u64,
        c.mesh.faces.len() as u64,
        c.topology.hinges.len() as u64,
    );
    let incidences = (
        c.topology.vertex_faces.entries.len() as u64,
        c.topology.vertex_hinges.entries.len() as u64,
    );
    224 * nf + 148 * nh + 256 * n + 48 * incidences.0 + 28 * incidences.1
}

/// Effective bandwidth, GB/s, of a plain streaming copy of `bytes` on
/// this adapter (read + write counted), over `repeats` dispatches.
pub fn copy_bandwidth(ctx: &GpuContext, bytes: u64, repeats: u32) -> Result<f64> {
    let elements = (bytes / 16).max(1) as usize;
    let src = zeroed::<[f32; 4]>(ctx, "copy_src", elements)?;
    let dst = zeroed::<[f32; 4]>(ctx, "copy_dst", elements)?;
    let module = Module::new(ctx, "copy")?;
    let row = ctx.limits.max_compute_workgroups_per_dimension;
    let kernel = Kernel::new(ctx, &module, "main", elements, row, &[("src", &src), ("dst", &dst)])?;
    let run = |count: u32| -> Result<f64> {
        let t = Instant::now();
        let mut e = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("copy") });
        {
            let mut pass = GpuBackend::pass(&mut e, "copy");
            for _ in 0..count {
                kernel.record(&mut pass);
            }
        }
        ctx.queue.submit([e.finish()]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
        ctx.check()?;
        Ok(t.elapsed().as_secs_f64())
    };
    run(1)?;
    let seconds = run(repeats)?;
    Ok(2.0 * (elements * 16) as f64 * repeats as f64 / seconds / 1e9)
}
