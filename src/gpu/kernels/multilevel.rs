//! shaders/multilevel.wgsl and shaders/multilevel_fine.wgsl (CPU twin:
//! cpu/multilevel): the multilevel preconditioner on the device. Every
//! solve assembles the finest level on the device (`assemble`) and bounds
//! its eigenvalues by a few power iterations from the last solve's vector;
//! the levels below it are built on the host (`multigrid`) from that
//! level, read back, whenever their `Budget` asks, and uploaded; each PCG
//! iteration records one V-cycle. The pipelines are built once; a build
//! binds them to the new levels' buffers.

use crate::cloth::Cloth;
use crate::error::Result;
use crate::gpu::buffers::{Buffers, storage, uniform, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::{Kernel, Pass, groups};
use crate::gpu::layout::LevelParams;
use crate::multigrid::{Bsr, Budget, DEGREE, Hierarchy, LAMBDA_MARGIN, LOWEST, Pattern, Single, WARM_POWER_ITERATIONS};
use glam::{DMat3, DVec3};

/// A 3x3 block as WGSL's `mat3x3<f32>` (three padded columns).
type Block = [[f32; 4]; 3];

fn block(m: DMat3) -> Block {
    m.to_cols_array_2d()
        .map(|c| [c[0] as f32, c[1] as f32, c[2] as f32, 0.0])
}

fn dmat3(b: &Block) -> DMat3 {
    DMat3::from_cols_array_2d(&b.map(|c| [c[0] as f64, c[1] as f64, c[2] as f64]))
}

/// A block-sparse matrix on the device: its row starts, columns, blocks.
struct DeviceMatrix([wgpu::Buffer; 3]);

impl DeviceMatrix {
    /// Its bindings as the coarsest level's inverse (`ml_c_*`).
    fn bindings(&self) -> [(&'static str, &wgpu::Buffer); 3] {
        [
            ("ml_c_start", &self.0[0]),
            ("ml_c_col", &self.0[1]),
            ("ml_c_val", &self.0[2]),
        ]
    }

    fn of(ctx: &GpuContext, m: &Single) -> Result<DeviceMatrix> {
        let start: Vec<u32> = m.start.iter().map(|&s| s as u32).collect();
        let val: Vec<Block> = m
            .val
            .iter()
            .map(|b| [b.x_axis, b.y_axis, b.z_axis].map(|c| [c.x, c.y, c.z, 0.0]))
            .collect();
        Ok(DeviceMatrix([
            storage(ctx, "ml_start", &start)?,
            storage(ctx, "ml_col", &m.col)?,
            storage(ctx, "ml_val", &val)?,
        ]))
    }
}

/// One level's kernels, bound to its buffers.
struct LevelKernels {
    /// Chebyshev's first step from x = 0: the finest level's (a coarser
    /// level's is the restriction above it).
    first: Option<Kernel>,
    restart: Kernel,
    /// Chebyshev's steps 1 ..< degree, each with its product.
    steps: Vec<Kernel>,
    /// Step 1 after `restart`, which also adds the restart's direction.
    carried: Kernel,
    residual: Kernel,
    /// The restriction, with the next level's first step unless the next
    /// is the coarsest.
    restrict: Kernel,
    prolong: Kernel,
    /// The coarsest level's solve, run with the last level.
    coarsest: Option<Kernel>,
}

/// One level's buffers: its matrices and work vectors.
struct LevelBuffers {
    /// Its matrix, where it is not the finest level's (assembled into the
    /// backend's buffers).
    a: Option<DeviceMatrix>,
    inv_diag: wgpu::Buffer,
    p: DeviceMatrix,
    pt: DeviceMatrix,
    r: wgpu::Buffer,
    /// The smoother's directions: each step reads one and writes the other.
    d: [wgpu::Buffer; 2],
    coarse_b: wgpu::Buffer,
    coarse_x: wgpu::Buffer,
}

pub struct WgMultilevel {
    module: Module,
    /// The finest level's assembly (bound to the backend's buffers).
    pub assemble: Kernel,
    /// The finest level's power iteration: product, norm, next iterate.
    power: [Kernel; 3],
    pattern: Pattern,
    hierarchy: Hierarchy,
    pub budget: Budget,
    /// The last solve's iterations in each of its phases (the executor's
    /// first batches).
    pub last_phases: Vec<usize>,
    levels: Vec<LevelKernels>,
    /// The V-cycle of a mesh small enough to be the coarsest level itself.
    coarsest_only: Option<Kernel>,
    /// Per level its eigenvalue bound, and the power iteration's norm.
    lambda: wgpu::Buffer,
    power_vector: wgpu::Buffer,
    partial: wgpu::Buffer,
    /// The levels' buffers, and the power iteration's parameters and
    /// product (kept alive with the bind groups).
    owned: Vec<wgpu::Buffer>,
    _power: [wgpu::Buffer; 2],
    row: u32,
}

/// A solve on kept levels may take this many times the iterations of the
/// first after their build (the CPU's `multigrid` allows 1.5): a build
/// here is the host's, with the finest level read back, and costs what
/// hundreds of V-cycles do. On an H200, the twist's 10 steps after the
/// first at 27.9K and 111K vertices rebuilt 2 and 5 times with 1.5 (102
/// and 679 ms a step), never with 3 or 6 (47 and 76 ms; 42 and 75).
const GROWTH: f64 = 3.0;

/// The Chebyshev degree of the levels below the finest (the CPU's is
/// `multigrid::COARSE_DEGREE`, 8): each degree costs a coarse level a
/// dispatch each side of its coarse correction (two before the steps made
/// their own products), and a dispatch on a coarse level costs about its
/// launch. On an H200 (the twist's 10 steps after the first, 7K, 27.9K and
/// 111K vertices, two dispatches a degree): degree 4, 28.6, 33.3 and 39.4
/// CG iterations and 16.3, 30.9 and 63.4 ms a step; degree 8, 28.1, 31.6
/// and 34.0 iterations and 18.7, 43.4 and 71.9 ms.
const COARSE_DEGREE: usize = 4;

// The V-cycle leaves the restart's `x += d` to the first Chebyshev step
// after it (`LevelKernels::carried`), so each level smooths by at least
// two steps.
const _: () = assert!(DEGREE >= 2 && COARSE_DEGREE >= 2);

/// The most nodes of the device's coarsest level (the host's
/// `multigrid::COARSEST` is 48): its dense inverse is one product, where
/// the level above it costs 18 dispatches a V-cycle. On an H200 the
/// 27.9K twist's levels went from 27904, 3584, 184 and 12 block rows to
/// 27904, 3584 and 184: 33.1 CG iterations and 26.0 ms a step against
/// 33.3 and 29.7 (the twist's 10 steps after the first; 7K and 111K keep
/// their levels).
const COARSEST_NODES: usize = 96;

/// Invocations per block row of the products (`LANES` in
/// shaders/multilevel.wgsl).
const LANES: usize = 8;

/// The most levels the device holds (a level has fewer than half the
/// rows of the one above, so a mesh would need 2^16 times the rows of the
/// coarsest to reach it).
const MAX_LEVELS: usize = 16;

impl WgMultilevel {
    /// Uploads the finest level's pattern into `buffers` and builds the
    /// pipelines; the levels come with the first `build`.
    pub fn new(ctx: &GpuContext, buffers: &mut Buffers, row: u32, cloth: &Cloth) -> Result<WgMultilevel> {
        let pattern = Pattern::new(cloth);
        let n = cloth.vertex_count();
        let a = &pattern.a;
        let start: Vec<u32> = a.start.iter().map(|&s| s as u32).collect();
        let pad = |s: &[u32]| -> [u32; 4] { std::array::from_fn(|k| s.get(k).copied().unwrap_or(0)) };
        let face_slot: Vec<[u32; 4]> = pattern.face_slot.iter().map(|s| pad(s)).collect();
        let hinge_slot: Vec<[u32; 4]> = pattern.hinge_slot.iter().map(|s| pad(s)).collect();
        buffers.insert("ml_fine_start", storage(ctx, "ml_fine_start", &start)?);
        buffers.insert("ml_fine_col", storage(ctx, "ml_fine_col", &a.col)?);
        buffers.insert("ml_fine_val", zeroed::<Block>(ctx, "ml_fine_val", a.col.len())?);
        buffers.insert("ml_fine_inv_diag", zeroed::<Block>(ctx, "ml_fine_inv_diag", n)?);
        buffers.insert("ml_face_slot", storage(ctx, "ml_face_slot", &face_slot)?);
        buffers.insert("ml_hinge_slot", storage(ctx, "ml_hinge_slot", &hinge_slot)?);
        buffers.insert(
            "ml_diagonal_slot",
            storage(ctx, "ml_diagonal_slot", &pattern.diagonal_slot)?,
        );
        let fine = Module::new(ctx, "multilevel_fine")?;
        let assemble = Kernel::new(ctx, &fine, "assemble", n, row, buffers, &[])?;
        let module = Module::new(ctx, "multilevel")?;
        let lambda = zeroed::<f32>(ctx, "ml_lambda", MAX_LEVELS + 1)?;
        let power_vector = zeroed::<[f32; 4]>(ctx, "ml_power", n)?;
        let power_product = zeroed::<[f32; 4]>(ctx, "ml_r", n)?;
        let partial = zeroed::<[f32; 2]>(ctx, "ml_partial", groups(LANES * n) as usize)?;
        let params = uniform(ctx, "ml_params", &level_params(n, 0, 0, 0, 0));
        // The power iteration runs on the finest level, the assembled one.
        let fine_bindings = [
            ("ml_params", &params),
            ("ml_lambda", &lambda),
            ("ml_power", &power_vector),
            ("ml_r", &power_product),
            ("ml_partial", &partial),
            ("ml_a_start", &buffers["ml_fine_start"]),
            ("ml_a_col", &buffers["ml_fine_col"]),
            ("ml_a_val", &buffers["ml_fine_val"]),
            ("ml_inv_diag", &buffers["ml_fine_inv_diag"]),
        ];
        let k = |entry: &str, threads: usize| {
            Kernel::new(ctx, &module, entry, threads, row, &Buffers::empty(), &fine_bindings)
        };
        let power = [k("power_product", LANES * n)?, k("power_norm", 1)?, k("power_next", n)?];
        Ok(WgMultilevel {
            module,
            assemble,
            power,
            pattern,
            hierarchy: Hierarchy::with_coarsest(COARSEST_NODES),
            budget: Budget::with_growth(GROWTH),
            last_phases: Vec::new(),
            levels: Vec::new(),
            coarsest_only: None,
            lambda,
            power_vector,
            partial,
            owned: Vec::new(),
            _power: [params, power_product],
            row,
        })
    }

    /// Whether a hierarchy has been built.
    pub fn built(&self) -> bool {
        !self.levels.is_empty() || self.coarsest_only.is_some()
    }

    /// Blocks of the finest level (to read back `ml_fine_val`).
    pub fn fine_blocks(&self) -> usize {
        self.pattern.a.col.len()
    }

    /// Builds the levels below the finest from its assembled blocks `val`
    /// (read back from `ml_fine_val`) at positions `x`, and binds the
    /// V-cycle's kernels to them.
    pub fn build(&mut self, ctx: &GpuContext, buffers: &Buffers, val: &[Block], x: &[DVec3]) -> Result<()> {
        let a = Bsr {
            val: val.iter().map(dmat3).collect(),
            ..self.pattern.a.clone()
        };
        self.hierarchy.build(a, x)?;
        let h = &self.hierarchy;
        if h.levels.len() > MAX_LEVELS {
            return Err(crate::error::Error::Gpu(format!(
                "the multilevel hierarchy has {} levels, more than the {MAX_LEVELS} the GPU backend holds: use solver.preconditioner = \"jacobi\"",
                h.levels.len()
            )));
        }
        let mut lambda: Vec<f32> = h.levels.iter().map(|l| l.lambda as f32).collect();
        lambda.resize(MAX_LEVELS + 1, 0.0);
        ctx.queue.write_buffer(&self.lambda, 0, bytemuck::cast_slice(&lambda));
        // The finest level's power iteration goes on from the host's last
        // vector (there is none, nor a finest level to smooth, when the
        // mesh is the coarsest level itself).
        if !h.levels.is_empty() {
            let norm = h.eigenvector.iter().map(|v| v.length_squared()).sum::<f64>().sqrt();
            let u: Vec<[f32; 4]> = h
                .eigenvector
                .iter()
                .map(|v| {
                    let v = *v / norm.max(f64::MIN_POSITIVE);
                    [v.x as f32, v.y as f32, v.z as f32, 0.0]
                })
                .collect();
            ctx.queue.write_buffer(&self.power_vector, 0, bytemuck::cast_slice(&u));
        }
        self.bind(ctx, buffers)
    }

    /// Uploads the levels and binds each level's kernels to its buffers.
    fn bind(&mut self, ctx: &GpuContext, buffers: &Buffers) -> Result<()> {
        let h = &self.hierarchy;
        let mut owned: Vec<wgpu::Buffer> = Vec::new();
        let mut levels = Vec::new();
        let inverse = h.coarsest_inverse();
        let coarsest = DeviceMatrix::of(ctx, &Single::of(&inverse))?;
        let coarsest_rows = inverse.rows();
        let count = h.levels.len();
        if count == 0 {
            let (b, x) = (&buffers["r"], &buffers["z"]);
            // The mesh is small enough to be the coarsest level itself.
            let params = uniform(ctx, "ml_params", &level_params(0, coarsest_rows, 0, 0, 0));
            let mut bind = self.common(&params);
            bind.extend(coarsest.bindings());
            bind.extend([("ml_coarse_b", b), ("ml_coarse_x", x)]);
            let k = Kernel::new(
                ctx,
                &self.module,
                "coarsest",
                LANES * coarsest_rows,
                self.row,
                &Buffers::empty(),
                &bind,
            )?;
            (self.levels, self.coarsest_only) = (Vec::new(), Some(k));
            self.owned = vec![params];
            self.owned.extend(coarsest.0);
            return Ok(());
        }
        // Every level's buffers first: a restriction writes the next level's.
        let mut bufs: Vec<LevelBuffers> = Vec::with_capacity(count);
        for (i, level) in h.levels.iter().enumerate() {
            let (rows, coarse_rows) = (level.a.rows(), level.pt.rows());
            let work = |name| zeroed::<[f32; 4]>(ctx, name, rows);
            let (a, inv_diag) = match i {
                0 => (None, buffers["ml_fine_inv_diag"].clone()),
                _ => {
                    let inv: Vec<Block> = level.inv_diag.iter().map(|d| block(*d)).collect();
                    (
                        Some(DeviceMatrix::of(ctx, &level.a)?),
                        storage(ctx, "ml_inv_diag", &inv)?,
                    )
                }
            };
            bufs.push(LevelBuffers {
                a,
                inv_diag,
                p: DeviceMatrix::of(ctx, &level.p)?,
                pt: DeviceMatrix::of(ctx, &level.pt)?,
                r: work("ml_r")?,
                d: [work("ml_d")?, work("ml_d_next")?],
                coarse_b: zeroed::<[f32; 4]>(ctx, "ml_coarse_b", coarse_rows)?,
                coarse_x: zeroed::<[f32; 4]>(ctx, "ml_coarse_x", coarse_rows)?,
            });
        }
        for (i, level) in h.levels.iter().enumerate() {
            let (l, next) = (&bufs[i], bufs.get(i + 1));
            let (rows, coarse_rows) = (level.a.rows(), level.pt.rows());
            // The level's right-hand side and solution: the PCG's r and z
            // on the finest, the level above's coarse ones below it.
            let (b, x) = match i {
                0 => (&buffers["r"], &buffers["z"]),
                _ => (&bufs[i - 1].coarse_b, &bufs[i - 1].coarse_x),
            };
            let degree = if i == 0 { DEGREE } else { COARSE_DEGREE };
            // Per Chebyshev step its parameters, and step 1's after a restart.
            let params: Vec<wgpu::Buffer> = (0..degree)
                .map(|s| (s, 0))
                .chain([(1, 1)])
                .map(|(s, carry)| uniform(ctx, "ml_params", &level_params(rows, coarse_rows, i, s, carry)))
                .collect();
            let (a_start, a_col, a_val) = match &l.a {
                None => (
                    &buffers["ml_fine_start"],
                    &buffers["ml_fine_col"],
                    &buffers["ml_fine_val"],
                ),
                Some(m) => (&m.0[0], &m.0[1], &m.0[2]),
            };
            // `entry` with the parameters `params` and the directions `d`
            // it reads and writes.
            let kernel =
                |entry: &str, threads: usize, params: &wgpu::Buffer, d: [&wgpu::Buffer; 2]| -> Result<Kernel> {
                    let mut bind = self.common(params);
                    bind.extend([
                        ("ml_a_start", a_start),
                        ("ml_a_col", a_col),
                        ("ml_a_val", a_val),
                        ("ml_inv_diag", &l.inv_diag),
                        ("ml_p_start", &l.p.0[0]),
                        ("ml_p_col", &l.p.0[1]),
                        ("ml_p_val", &l.p.0[2]),
                        ("ml_pt_start", &l.pt.0[0]),
                        ("ml_pt_col", &l.pt.0[1]),
                        ("ml_pt_val", &l.pt.0[2]),
                        ("ml_b", b),
                        ("ml_x", x),
                        ("ml_r", &l.r),
                        ("ml_d", d[0]),
                        ("ml_d_next", d[1]),
                        ("ml_coarse_b", &l.coarse_b),
                        ("ml_coarse_x", &l.coarse_x),
                    ]);
                    match next {
                        None => bind.extend(coarsest.bindings()),
                        Some(n) => bind.extend([
                            ("ml_next_inv_diag", &n.inv_diag),
                            ("ml_next_r", &n.r),
                            ("ml_next_d", &n.d[0]),
                        ]),
                    }
                    Kernel::new(ctx, &self.module, entry, threads, self.row, &Buffers::empty(), &bind)
                };
            let d = [&l.d[0], &l.d[1]];
            let base = &params[0];
            levels.push(LevelKernels {
                first: match i {
                    0 => Some(kernel("smooth_first", rows, base, d)?),
                    _ => None,
                },
                restart: kernel("smooth_restart", LANES * rows, base, d)?,
                steps: (1..degree)
                    .map(|s| {
                        kernel(
                            "smooth_step",
                            LANES * rows,
                            &params[s],
                            [&l.d[(s - 1) % 2], &l.d[s % 2]],
                        )
                    })
                    .collect::<Result<_>>()?,
                carried: kernel("smooth_step", LANES * rows, &params[degree], d)?,
                residual: kernel("residual", LANES * rows, base, d)?,
                restrict: match next {
                    Some(_) => kernel("restriction_first", LANES * coarse_rows, base, d)?,
                    None => kernel("restriction", LANES * coarse_rows, base, d)?,
                },
                prolong: kernel("prolong", LANES * rows, base, d)?,
                coarsest: match next {
                    None => Some(kernel("coarsest", LANES * coarse_rows, base, d)?),
                    Some(_) => None,
                },
            });
            owned.extend(params);
        }
        for l in bufs {
            owned.extend([l.inv_diag, l.r, l.coarse_b, l.coarse_x]);
            owned.extend(l.d);
            owned.extend(l.p.0);
            owned.extend(l.pt.0);
            owned.extend(l.a.into_iter().flat_map(|m| m.0));
        }
        owned.extend(coarsest.0);
        (self.levels, self.coarsest_only) = (levels, None);
        self.owned = owned;
        Ok(())
    }

    /// The bindings every kernel of the V-cycle shares.
    fn common<'a>(&'a self, params: &'a wgpu::Buffer) -> Vec<(&'static str, &'a wgpu::Buffer)> {
        vec![
            ("ml_params", params),
            ("ml_lambda", &self.lambda),
            ("ml_power", &self.power_vector),
            ("ml_partial", &self.partial),
        ]
    }

    /// Records the finest level's power iterations (after `assemble`);
    /// none where the mesh is the coarsest level itself, solved directly.
    pub fn record_power(&self, pass: &mut Pass) {
        if self.levels.is_empty() {
            return;
        }
        for _ in 0..WARM_POWER_ITERATIONS {
            for k in &self.power {
                pass.run(k);
            }
        }
    }

    /// Records one V-cycle, `z = M^-1 r` (unfiltered).
    pub fn record_cycle(&self, pass: &mut Pass) {
        self.record_level(pass, 0);
    }

    fn record_level(&self, pass: &mut Pass, i: usize) {
        if let Some(k) = &self.coarsest_only {
            pass.run(k);
            return;
        }
        let l = &self.levels[i];
        if let Some(first) = &l.first {
            pass.run(first);
        }
        for s in &l.steps {
            pass.run(s);
        }
        pass.run(&l.residual);
        pass.run(&l.restrict);
        match &l.coarsest {
            Some(c) => pass.run(c),
            None => self.record_level(pass, i + 1),
        }
        pass.run(&l.prolong);
        pass.run(&l.restart);
        pass.run(&l.carried);
        for s in &l.steps[1..] {
            pass.run(s);
        }
    }
}

/// A level's dispatch parameters.
fn level_params(rows: usize, coarse_rows: usize, level: usize, step: usize, carry: u32) -> LevelParams {
    LevelParams {
        rows: rows as u32,
        coarse_rows: coarse_rows as u32,
        level: level as u32,
        step: step as u32,
        lowest: LOWEST as f32,
        margin: LAMBDA_MARGIN as f32,
        carry,
        pad: 0,
    }
}
