// Types and bindings shared by every kernel. Each struct has a Rust twin in
// src/gpu/layout.rs with the same size and field offsets (a test checks them
// against naga's reflection of this file).

// Parameters of one strain channel for every model it may use
// (model/channel.rs `Channel`).
struct ChannelParams {
    dwell: vec4<f32>,      // stiffness, eps_0, eps_inf, tau
    dahl: vec4<f32>,       // a, b, tau, -
    hardening: vec4<f32>,  // k_h0, g, tau, yield strain
    spread: vec4<f32>,     // decades of the dwell's and of the hardening's decay (model/decay.rs), of the dwell's scatter, its skew
}

// The bending model and the bending strain (model/bending.rs `BendingModel`,
// `BendingStrain`; layout.rs `bending_model_id`, `bending_strain_id`).
const BENDING_DISCRETE_SHELL: u32 = 0u;
const BENDING_BRIDSON: u32 = 1u;
const BENDING_SHAPE_OPERATOR: u32 = 2u;
const STRAIN_ANGLE: u32 = 0u;
const STRAIN_CURVATURE: u32 = 1u;

// Per-step and per-material constants (layout.rs `Params`).
struct Params {
    counts: vec4<u32>,     // vertices, faces, hinges, 1 when the step has loads (gather.wgsl)
    models: vec4<u32>,     // bending friction, bending plasticity, in-plane friction, in-plane plasticity
    hinge: vec4<u32>,      // bending model (BENDING_*), bending strain (STRAIN_*), 1 with Melo's coupling, -
    stretching: vec4<f32>, // k11, k12, k22, k33
    step: vec4<f32>,       // dt, material dt, bending stiffness k_b, bending damping k_d
    scales: vec4<f32>,     // system factors: elastic h(h+alpha), friction h^2, damping h; the solve's step h
                           // (force factor and channel dt; h/2 and no elastic blocks in Bridson's mixed scheme)
    gravity: vec4<f32>,
    air: vec4<f32>,        // drag rho_D, normal drag rho_R, 1 / density, 1 when the air acts (model/air.rs)
    wind: vec4<f32>,       // wind velocity u, 1 when the step has sticking springs (sim/sticking.rs)
    bending: ChannelParams,
    in_plane: array<ChannelParams, 3>,
}

// State of one channel while a kernel updates it (model/channel.rs
// `ChannelState`).
struct ChannelState {
    friction: vec4<f32>,   // anchor, t_stick, sigma, slip (0/1)
    plastic: vec4<f32>,    // eps_p, eps_hp, eps_y, t_p
    dir: vec4<f32>,        // sign of the last plastic flow, -, -, -
}

// A channel's state as stored (layout.rs `PackedChannel`), 32 bytes: the
// slip flag and the plastic direction share friction.w as
// slip + 2 (dir + 1), small integers that f32 holds exactly.
struct PackedChannel {
    friction: vec4<f32>,
    plastic: vec4<f32>,
}

fn unpack_channel(p: PackedChannel) -> ChannelState {
    let flags = p.friction.w;
    let slip = flags - 2.0 * floor(flags / 2.0);
    let dir = floor(flags / 2.0) - 1.0;
    return ChannelState(vec4<f32>(p.friction.xyz, slip), p.plastic, vec4<f32>(dir, 0.0, 0.0, 0.0));
}

fn pack_channel(s: ChannelState) -> PackedChannel {
    return PackedChannel(vec4<f32>(s.friction.xyz, s.friction.w + 2.0 * (s.dir.x + 1.0)), s.plastic);
}

// What a channel's update leaves for the force and system (`ChannelForce`).
struct ChannelForce {
    eps_p: f32,
    stress: f32,
    stiffness: f32,
    damping: f32,
}

// Model ids, in the order of model/channel.rs's enums.
const FRICTION_DWELL: u32 = 0u;
const FRICTION_DAHL: u32 = 1u;
const PLASTIC_HARDENING: u32 = 0u;
const PLASTIC_TIME_INDEPENDENT: u32 = 1u;
const PLASTIC_PERFECT: u32 = 2u;

const WORKGROUP: u32 = 64u;

// A thread's linear index, and a workgroup's, in a dispatch that may be 2D:
// one wider than the adapter's max_compute_workgroups_per_dimension wraps
// onto y (x fastest), so meshes of any size fit.
fn linear_index(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    return id.x + id.y * groups.x * WORKGROUP;
}

fn group_index(group: vec3<u32>, groups: vec3<u32>) -> u32 {
    return group.x + group.y * groups.x;
}

// A vertex's displacement u = x - X, split as hi + lo (layout.rs
// `Displacement`): hi is a multiple of DISPLACEMENT_QUANTUM and |lo| <= half
// of it. f32 alone resolves a 0.4 m displacement to 3e-8 m, which over a
// 2.5 cm edge is a 1e-6 strain error, as large as the strains of a hanging
// sheet; split, an edge's displacement difference (hi_j - hi_i) + (lo_j - lo_i)
// is exact up to one rounding of the difference itself. Every operation on
// the split is exact in IEEE f32 (multiples of a power of two; Sterbenz), so
// no compiler reassociation can change it.
struct Displacement {
    hi: vec4<f32>,
    lo: vec4<f32>,
}

const DISPLACEMENT_QUANTUM: f32 = 0.0009765625;  // 2^-10 m

fn displacement(d: Displacement) -> vec3<f32> {
    return d.hi.xyz + d.lo.xyz;
}

// a - b for two nearby displacements (an edge's change).
fn displacement_difference(a: Displacement, b: Displacement) -> vec3<f32> {
    return (a.hi.xyz - b.hi.xyz) + (a.lo.xyz - b.lo.xyz);
}

// d + delta, with whole quanta carried from lo into hi.
fn displaced(d: Displacement, delta: vec3<f32>) -> Displacement {
    let lo = d.lo.xyz + delta;
    let carry = round(lo / DISPLACEMENT_QUANTUM) * DISPLACEMENT_QUANTUM;
    return Displacement(vec4<f32>(d.hi.xyz + carry, 0.0), vec4<f32>(lo - carry, 0.0));
}

// Rest data of a face (layout.rs `FaceRest`): shape-function gradients
// beta_a (f_u = sum beta_a.x x_a, f_v = sum beta_a.y x_a), rest area, and
// the deformation gradient and Green strain of the initial positions X.
// Positions live on the device as displacements u = x - X, and strains are
// expanded about X (e = e_X + F_X . du + du . du / 2) so that f32 keeps
// small strains accurate (no cancellation in |f|^2 - 1).
struct FaceRest {
    beta01: vec4<f32>,     // beta_0.xy, beta_1.xy
    beta2: vec4<f32>,      // beta_2.xy, area, e_X uv
    fx_u: vec4<f32>,       // F_X column u, e_X uu
    fx_v: vec4<f32>,       // F_X column v, e_X vv
}

// Rest data of a hinge (layout.rs `HingeRest`): edge vectors of the initial
// positions X (so angles come from X + u without cancellation), the rest
// angle as its sine and cosine (the kernel takes atan2 of the angle change,
// whose error scales with the change: WGSL's atan2 is only accurate to a
// few thousand ULP), and the stiffness factor. The third vector, X3 - X0
// with cos(theta_rest), is a buffer of its own so that each buffer of a
// million-vertex cloth stays under a 128 MiB binding limit.
struct HingeRest {
    e: vec4<f32>,          // X1 - X0, sin(theta_rest)
    a2: vec4<f32>,         // X2 - X0, stiffness factor s_e
}

// A face's linearisation, already scaled for the system (layout.rs `FaceLin`,
// model/membrane.rs `MembraneLin`).
struct FaceLin {
    fu: vec4<f32>,         // F_u, e_uu
    fv: vec4<f32>,         // F_v, e_vv
    s: vec4<f32>,          // geometric stress S_uu, S_vv, S_uv, e_uv
    c: vec4<f32>,          // channel stiffness c_uu, c_uu_vv, c_vv, c_uv
}

// Half of a hinge's bending mode and coefficients (layout.rs `HingeHalf`),
// stored in two buffers so each stays under the adapter's binding limit:
// the first half holds dtheta/dx0 (w: force coefficient) and dtheta/dx1
// (w: system coefficient), the second dtheta/dx2 and dtheta/dx3.
struct HingeHalf {
    a: vec4<f32>,
    b: vec4<f32>,
}

// Device-side scalars of a PCG solve (layout.rs `Scalars`).
struct Scalars {
    rr_ref: f32,      // |r|^2 with the free part of the guess zero
    rr: f32,          // |r|^2
    rz: f32,          // r . z
    pq: f32,          // p . A p
    alpha: f32,
    beta: f32,
    tol2: f32,        // tolerance^2
    floor2: f32,      // the least rr_ref (step/sequence.rs `residual_floor`)^2
    zero: u32,        // 1: the reference residual is zero, the solution is dv = 0 on free vertices
    iterations: u32,
    max_iterations: u32,
    done: u32,
    broke: u32,       // 1: p . A p was not positive (the system is not SPD or the state blew up)
}

// How a product treats mass and pinned rows (layout.rs `ProductMode`).
// Self-collision (layout.rs `PairGpu`, `RepulsionParams`): a proximity
// pair's four vertices, weights c and frozen normal n with its separation
// d at detection (collide/proximity.rs); the step's pair count, whether the
// obstacle contact flags are this step's, and the spring constants.
struct PairGpu {
    v: vec4<u32>,
    c: vec4<f32>,
    n: vec4<f32>,          // n.xyz, d
}

struct RepulsionParams {
    counts: vec4<u32>,     // pairs, contact flags valid, 0, 0
    coef: vec4<f32>,       // stiffness k, thickness t, friction mu, system factor h^2
}

struct ProductMode {
    mass_scale: f32,
    filter_rows: u32, // 1: zero the rows of pinned vertices
    pad0: u32,
    pad1: u32,
}

// The outer product a b^T, and a 3x3 inverse by cofactors (block Jacobi).
fn outer(a: vec3<f32>, b: vec3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(a * b.x, a * b.y, a * b.z);
}

fn inverse3(m: mat3x3<f32>) -> mat3x3<f32> {
    let a = m[0];
    let b = m[1];
    let c = m[2];
    let r0 = cross(b, c);
    let r1 = cross(c, a);
    let r2 = cross(a, b);
    let det = dot(a, r0);
    return transpose(mat3x3<f32>(r0, r1, r2)) * (1.0 / det);
}

// Sums one value per invocation over the workgroup; invocation 0 gets the total.
var<workgroup> partial_sums: array<vec2<f32>, WORKGROUP>;

fn workgroup_sum(local: u32, value: vec2<f32>) -> vec2<f32> {
    partial_sums[local] = value;
    workgroupBarrier();
    for (var stride = WORKGROUP / 2u; stride > 0u; stride = stride / 2u) {
        if (local < stride) {
            partial_sums[local] += partial_sums[local + stride];
        }
        workgroupBarrier();
    }
    return partial_sums[0];
}

// atan2 accurate to about 1e-7 rad. WGSL's built-in is only required to be
// within 4096 ULP (some implementations are that loose), which would make
// f32 bending strains disagree with the f64 reference at the 1e-4 level.
// Reduce to t in [0, 1], then to |z| <= tan(pi/12) with
// atan(t) = pi/6 + atan((t sqrt3 - 1) / (t + sqrt3)), and sum the odd Taylor
// series to z^11 (the next term is below 3e-9).
fn atan_small(z: f32) -> f32 {
    let z2 = z * z;
    return z * (1.0 + z2 * (-1.0 / 3.0 + z2 * (1.0 / 5.0 + z2 * (-1.0 / 7.0 + z2 * (1.0 / 9.0 + z2 * (-1.0 / 11.0))))));
}

fn atan2_accurate(y: f32, x: f32) -> f32 {
    let ax = abs(x);
    let ay = abs(y);
    if (ax == 0.0 && ay == 0.0) {
        return 0.0;
    }
    let swap = ay > ax;
    let t = select(ay / ax, ax / ay, swap);
    let sqrt3 = 1.7320508;
    var a = atan_small(t);
    if (t > 0.26794919) {
        a = 0.52359878 + atan_small((t * sqrt3 - 1.0) / (t + sqrt3));
    }
    if (swap) {
        a = 1.5707964 - a;
    }
    if (x < 0.0) {
        a = 3.1415927 - a;
    }
    return select(a, -a, y < 0.0);
}
