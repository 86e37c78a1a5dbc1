// Obstacle collisions per vertex (CPU twin: src/cpu/collide.rs; Bridson,
// Marino & Fedkiw 2003 §5.2-5.3, Baraff & Witkin 1998 §5). Before the
// solve, `resting` makes each vertex on exactly one obstacle a unilateral
// constraint of the solve (its normal in `rest_normal`, its dv's normal
// component the obstacle's velocity); after it, `release` frees the ones
// whose reaction pulls and keeps the others' impulse. `respond` forecasts
// each free vertex against each enabled obstacle's signed-distance grid and
// corrects its velocity (normal part lands it on the thickness contour;
// from inside the band the approach is stopped and the rest is a position
// correction; Coulomb friction on the tangential part, with the solve's
// contact impulse added to the normal one); `settle`, after the position
// update, lifts a vertex still within the thickness of exactly one obstacle
// onto the contour lift(phi) = t exp((phi - t)/t), which keeps wrinkles'
// shape, and records the nearest surface before the lift; `depths`, at
// the steps that report them (`StepInput::depths`), then records the
// nearest surface to each free vertex after the lift and to the midpoints
// of the edges a vertex starts.

// A rigid obstacle is probed through its grid at its pose, a deforming body
// directly (CPU twin: src/collide/body.rs): the nearest triangle through a
// bounding-volume hierarchy refitted by the host every step, the distance
// signed by the nearest feature's pseudo-normal, the outward direction
// (p - q)/|p - q|, the body's velocity at the nearest point interpolated
// from the triangle's corners; a body farther than its reach is not seen.

// One grid's placement in `sdf` (layout.rs `SdfInfo`).
struct SdfInfo {
    origin: vec4<f32>,  // node (0, 0, 0), cell size
    dims: vec4<u32>,    // nodes along x, y, z; offset of the first value in `sdf`
}

// An enabled obstacle over this step (layout.rs `ObstacleGpu`):
// world = rotate(rot, local) + trans at the step's start and end.
struct ObstacleGpu {
    start_rot: vec4<f32>,
    start_trans: vec4<f32>,
    end_rot: vec4<f32>,
    end_trans: vec4<f32>,
    contact: vec4<f32>,  // friction, thickness, a body's reach, -
    grid: vec4<u32>,     // index into `sdf_info`, kind (GRID or BODY), -, -
    // A body: its root node in `body_tree`, its first point in
    // `body_points`, its vertex count, -.
    body: vec4<u32>,
}

const GRID: u32 = 0u;
const BODY: u32 = 1u;
// No face across an edge; nothing within reach.
const NO_FACE: u32 = 0xffffffffu;
const FAR: f32 = 3.0e38;
// Within this distance of a body's surface the outward direction is the
// nearest feature's pseudo-normal (collide/body.rs ON_SURFACE).
const ON_SURFACE: f32 = 1e-6;
// Depth of the hierarchy walk's stack (a median-split tree of N triangles
// needs about 2 log2(N / 4)).
const STACK: u32 = 64u;

const SETTLE_ITERATIONS: u32 = 3u;
// Within this many thicknesses of an obstacle a vertex rests on it, unless it
// moves away faster than SEPARATING thicknesses a step.
const RESTING: f32 = 1.01;
const SEPARATING: f32 = 1e-6;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> obstacle_count: vec4<u32>;  // obstacles this step, -, -, -
@group(0) @binding(2) var<storage, read> is_free: array<u32>;
@group(0) @binding(3) var<storage, read> rest: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> x: array<Displacement>;  // u = x - X, split
@group(0) @binding(5) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> sdf: array<f32>;
@group(0) @binding(7) var<storage, read> sdf_info: array<SdfInfo>;
@group(0) @binding(8) var<storage, read> obstacles: array<ObstacleGpu>;
// Per vertex: touched (0/1), the nearest surface's distance after `settle`
// and before it, and the nearest to the midpoints of the edges it starts.
@group(0) @binding(9) var<storage, read_write> contact: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> dv: array<vec4<f32>>;
// A resting contact's outward normal (zero: none) and, after `release`, the
// normal velocity change its constraint gave (pcg.wgsl filters with it).
@group(0) @binding(11) var<storage, read_write> rest_normal: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read> q: array<vec4<f32>>;  // A dv, after the solve
@group(0) @binding(13) var<storage, read> rhs: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read> mass: array<f32>;
@group(0) @binding(15) var<storage, read_write> released: array<atomic<u32>>;  // contacts released, kept
// The step's bodies (kernels/collide.rs): every body's triangles, two
// entries each (corners; the faces across its edges, as `body_tree`
// indices), then every body's hierarchy nodes, two entries each (lower
// corner's bits and first child or triangle; upper corner's bits and
// triangle count, 0 for an inner node whose second child follows the first).
@group(0) @binding(16) var<storage, read> body_tree: array<vec4<u32>>;
// Per body: its vertices at the step's start, at its end, their
// angle-weighted normals at the start and the end, and their velocities over
// the step, `count` entries each.
@group(0) @binding(17) var<storage, read> body_points: array<vec4<f32>>;
// The cloth's edges by their lower end (`topology.edges`, sorted): vertex
// i starts the edges `edge_start[i]..edge_start[i + 1]` of `edge_end`.
@group(0) @binding(18) var<storage, read> edge_start: array<u32>;
@group(0) @binding(19) var<storage, read> edge_end: array<u32>;

fn rotate(q: vec4<f32>, p: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, p);
    return p + q.w * t + cross(q.xyz, t);
}

fn unrotate(q: vec4<f32>, p: vec3<f32>) -> vec3<f32> {
    return rotate(vec4<f32>(-q.xyz, q.w), p);
}

fn node(g: SdfInfo, i: u32, j: u32, k: u32) -> f32 {
    return sdf[g.dims.w + (k * g.dims.y + j) * g.dims.x + i];
}

// Trilinear distance and its gradient at `p` (grid frame): (gradient, value).
// Outside the grid: the boundary value plus the distance to the boundary.
fn sample(g: SdfInfo, p: vec3<f32>) -> vec4<f32> {
    let cell = g.origin.w;
    let hi = g.origin.xyz + (vec3<f32>(g.dims.xyz) - 1.0) * cell;
    let q = clamp(p, g.origin.xyz, hi);
    let outside = length(p - q);
    let s = (q - g.origin.xyz) / cell;
    let last = vec3<f32>(max(g.dims.xyz, vec3<u32>(2u)) - vec3<u32>(2u));
    let base = max(min(floor(s), last), vec3<f32>(0.0));
    let t = s - base;
    let b = vec3<u32>(base);
    let c000 = node(g, b.x, b.y, b.z);
    let c100 = node(g, b.x + 1u, b.y, b.z);
    let c010 = node(g, b.x, b.y + 1u, b.z);
    let c110 = node(g, b.x + 1u, b.y + 1u, b.z);
    let c001 = node(g, b.x, b.y, b.z + 1u);
    let c101 = node(g, b.x + 1u, b.y, b.z + 1u);
    let c011 = node(g, b.x, b.y + 1u, b.z + 1u);
    let c111 = node(g, b.x + 1u, b.y + 1u, b.z + 1u);
    let x00 = c000 + t.x * (c100 - c000);
    let x10 = c010 + t.x * (c110 - c010);
    let x01 = c001 + t.x * (c101 - c001);
    let x11 = c011 + t.x * (c111 - c011);
    let y0 = x00 + t.y * (x10 - x00);
    let y1 = x01 + t.y * (x11 - x01);
    let value = y0 + t.z * (y1 - y0);
    if (outside > 0.0) {
        return vec4<f32>((p - q) / outside, value + outside);
    }
    let dx0 = (c100 - c000) + t.y * ((c110 - c010) - (c100 - c000));
    let dx1 = (c101 - c001) + t.y * ((c111 - c011) - (c101 - c001));
    let grad = vec3<f32>(dx0 + t.z * (dx1 - dx0), (x10 - x00) + t.z * ((x11 - x01) - (x10 - x00)), y1 - y0) / cell;
    return vec4<f32>(grad, value);
}

// The velocity of rigid obstacle `o` at world point `p` over the step.
fn obstacle_velocity(o: ObstacleGpu, p: vec3<f32>, h: f32) -> vec3<f32> {
    let local = unrotate(o.start_rot, p - o.start_trans.xyz);
    return (rotate(o.end_rot, local) + o.end_trans.xyz - p) / h;
}

// What a probe finds: distance, unit outward normal (zero: none) and the
// obstacle's velocity at the point (collide/body.rs `Probe`).
struct Probe {
    normal: vec3<f32>,
    phi: f32,
    velocity: vec3<f32>,
}

fn box_distance2(p: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> f32 {
    let d = max(max(lo - p, p - hi), vec3<f32>(0.0));
    return dot(d, d);
}

fn normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if (len > 0.0) {
        return v / len;
    }
    return vec3<f32>(0.0);
}

// The unit normal of the triangle at `body_tree[f]`, its corners read
// from the points starting at `base`.
fn face_normal(f: u32, base: u32) -> vec3<f32> {
    let t = body_tree[f].xyz + vec3<u32>(base);
    let a = body_points[t.x].xyz;
    return normalize_or_zero(cross(body_points[t.y].xyz - a, body_points[t.z].xyz - a));
}

// Barycentric weights of `q` (in the triangle's plane) in (a, b, c).
fn barycentric(q: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
    let e0 = b - a;
    let e1 = c - a;
    let e2 = q - a;
    let d00 = dot(e0, e0);
    let d01 = dot(e0, e1);
    let d11 = dot(e1, e1);
    let d20 = dot(e2, e0);
    let d21 = dot(e2, e1);
    let denom = d00 * d11 - d01 * d01;
    if (denom <= 0.0) {
        return vec3<f32>(1.0, 0.0, 0.0);
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    return vec3<f32>(1.0 - v - w, v, w);
}

// Body `o` at `p`, at the step's start or end (collide/body.rs `probe`).
fn body_probe(o: ObstacleGpu, p: vec3<f32>, at_end: bool) -> Probe {
    let count = o.body.z;
    var base = o.body.y;
    if (at_end) {
        base += count;
    }
    var best = o.contact.z * o.contact.z;
    var found = NO_FACE;
    var q = vec3<f32>(0.0);
    var feature = 0u;
    var stack: array<u32, STACK>;
    stack[0] = o.body.x;
    var top = 1u;
    while (top > 0u) {
        top -= 1u;
        let n = stack[top];
        let lower = body_tree[n];
        let upper = body_tree[n + 1u];
        if (box_distance2(p, bitcast<vec3<f32>>(lower.xyz), bitcast<vec3<f32>>(upper.xyz)) >= best) {
            continue;
        }
        if (upper.w > 0u) {
            for (var k = 0u; k < upper.w; k++) {
                let f = lower.w + 2u * k;
                let t = body_tree[f].xyz + vec3<u32>(base);
                let ta = body_points[t.x].xyz;
                let tb = body_points[t.y].xyz;
                let tc = body_points[t.z].xyz;
                let c = closest_on_triangle(p, ta, tb, tc);
                // From the corner, as the weights' offsets (accurate far
                // from the origin).
                let cq = ta + (tb - ta) * c.w.y + (tc - ta) * c.w.z;
                let d = dot(p - cq, p - cq);
                if (d < best) {
                    best = d;
                    found = f;
                    q = cq;
                    feature = c.feature;
                }
            }
        } else if (top + 2u <= STACK) {
            // Visit the nearer child first.
            let a = lower.w;
            let b = lower.w + 2u;
            let da = box_distance2(p, bitcast<vec3<f32>>(body_tree[a].xyz), bitcast<vec3<f32>>(body_tree[a + 1u].xyz));
            let db = box_distance2(p, bitcast<vec3<f32>>(body_tree[b].xyz), bitcast<vec3<f32>>(body_tree[b + 1u].xyz));
            if (da < db) {
                stack[top] = b;
                stack[top + 1u] = a;
            } else {
                stack[top] = a;
                stack[top + 1u] = b;
            }
            top += 2u;
        }
    }
    if (found == NO_FACE) {
        return Probe(vec3<f32>(0.0), FAR, vec3<f32>(0.0));
    }
    let t = body_tree[found].xyz;
    var pseudo = face_normal(found, base);
    if (feature >= 4u) {
        pseudo = body_points[base + 2u * count + t[feature - 4u]].xyz;
    } else if (feature >= 1u) {
        let across = body_tree[found + 1u][feature - 1u];
        if (across != NO_FACE) {
            pseudo += face_normal(across, base);
        }
    }
    let d = sqrt(best);
    var sign = 1.0;
    if (dot(p - q, pseudo) < 0.0) {
        sign = -1.0;
    }
    var normal = normalize_or_zero(pseudo);
    if (d > ON_SURFACE) {
        normal = (p - q) * (sign / d);
    }
    let velocity = o.body.y + 4u * count + t;
    let w = barycentric(q, body_points[base + t.x].xyz, body_points[base + t.y].xyz, body_points[base + t.z].xyz);
    let v = body_points[velocity.x].xyz * w.x + body_points[velocity.y].xyz * w.y + body_points[velocity.z].xyz * w.z;
    return Probe(normal, sign * d, v);
}

// Obstacle `o` at world point `p` at the step's start or end.
fn probe(o: ObstacleGpu, p: vec3<f32>, at_end: bool, h: f32) -> Probe {
    if (o.grid.y == BODY) {
        return body_probe(o, p, at_end);
    }
    var rot = o.start_rot;
    var trans = o.start_trans.xyz;
    if (at_end) {
        rot = o.end_rot;
        trans = o.end_trans.xyz;
    }
    let s = sample(sdf_info[o.grid.x], unrotate(rot, p - trans));
    return Probe(normalize_or_zero(rotate(rot, s.xyz)), s.w, obstacle_velocity(o, p, h));
}

fn lift(phi: f32, t: f32) -> f32 {
    if (phi >= t) {
        return phi;
    }
    return t * exp((phi - t) / t);
}

// A free vertex within RESTING t of exactly one obstacle at the step's start,
// and not separating from it, rests on it: its normal, and dv's normal
// component set so that the vertex's normal velocity is the obstacle's.
@compute @workgroup_size(WORKGROUP)
fn resting(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var normal = vec3<f32>(0.0);
    if (is_free[i] != 0u) {
        let p = rest[i].xyz + displacement(x[i]);
        let h = params.step.x;
        var inside = 0u;
        var vn = 0.0;
        var separating = false;
        for (var k = 0u; k < obstacle_count.x; k++) {
            let o = obstacles[k];
            let s = probe(o, p, false, h);
            if (s.phi < RESTING * o.contact.y && any(s.normal != vec3<f32>(0.0))) {
                let v_obs = s.velocity;
                inside += 1u;
                normal = s.normal;
                vn = dot(v_obs, normal);
                separating = dot(v[i].xyz - v_obs, normal) > SEPARATING * o.contact.y / h;
            }
        }
        if (inside == 1u && !separating) {
            let d = dv[i].xyz;
            dv[i] = vec4<f32>(d + normal * (vn - dot(normal, v[i].xyz + d)), 0.0);
        } else {
            normal = vec3<f32>(0.0);
        }
    }
    rest_normal[i] = vec4<f32>(normal, 0.0);
}

// After a solve (q = A dv): a contact whose reaction n . (A dv - rhs) pulls
// is released; the others keep reaction / mass. Both are counted.
@compute @workgroup_size(WORKGROUP)
fn release(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    let n = rest_normal[i].xyz;
    if (all(n == vec3<f32>(0.0))) {
        return;
    }
    let reaction = dot(n, q[i].xyz - rhs[i].xyz);
    if (reaction < 0.0) {
        rest_normal[i] = vec4<f32>(0.0);
        atomicAdd(&released[0], 1u);
    } else {
        rest_normal[i] = vec4<f32>(n, reaction / mass[i]);
        atomicAdd(&released[1], 1u);
    }
}

// model/contact.rs `response`: a point's new relative normal velocity (x)
// and the factor its tangential velocity keeps (y), z = 1 when it needs a
// response: from outside, land on the contour; from inside, stop the
// approach only; Coulomb friction with the normal change and the resting
// contact's impulse.
fn response(vn: f32, target_vn: f32, impulse: f32, speed: f32, friction: f32) -> vec3<f32> {
    if (vn >= target_vn && impulse == 0.0) {
        return vec3<f32>(0.0);
    }
    var vn_new = vn;
    if (vn < target_vn) {
        vn_new = target_vn;
        if (target_vn > 0.0) {
            vn_new = max(vn, 0.0);
        }
    }
    var keep = 0.0;
    if (speed > 0.0) {
        keep = max(1.0 - friction * (vn_new - vn + impulse) / speed, 0.0);
    }
    return vec3<f32>(vn_new, keep, 1.0);
}

@compute @workgroup_size(WORKGROUP)
fn respond(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var hit = 0.0;
    if (is_free[i] != 0u) {
        let h = params.step.x;
        let p = rest[i].xyz + displacement(x[i]);
        var vi = v[i].xyz;
        var push = vec3<f32>(0.0);
        for (var k = 0u; k < obstacle_count.x; k++) {
            let o = obstacles[k];
            let s = probe(o, p, false, h);
            let n = s.normal;
            if (all(n == vec3<f32>(0.0))) {
                continue;
            }
            let v_obs = s.velocity;
            let rel = vi - v_obs;
            let vn = dot(rel, n);
            let tangent = rel - n * vn;
            // The normal velocity that lands the point on the contour.
            let target_vn = (o.contact.y - s.phi) / h;
            // The normal velocity change the solve's resting contact gave.
            var impulse = 0.0;
            if (s.phi < RESTING * o.contact.y) {
                impulse = rest_normal[i].w;
            }
            let r = response(vn, target_vn, impulse, length(tangent), o.contact.x);
            if (r.z == 0.0) {
                continue;
            }
            let vn_new = r.x;
            if (vn < target_vn) {
                push += n * (h * (target_vn - vn_new));
            }
            vi = v_obs + n * vn_new + tangent * r.y;
            hit = 1.0;
        }
        v[i] = vec4<f32>(vi, 0.0);
        x[i] = displaced(x[i], push);
    }
    contact[i] = vec4<f32>(hit, FAR, FAR, FAR);
}

@compute @workgroup_size(WORKGROUP)
fn settle(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var hit = contact[i].x;
    var before = FAR;
    if (is_free[i] != 0u && obstacle_count.x > 0u) {
        let h = params.step.x;
        let p0 = rest[i].xyz + displacement(x[i]);
        var inside = 0u;
        var which = 0u;
        var phi0 = 0.0;
        for (var k = 0u; k < obstacle_count.x; k++) {
            let d = probe(obstacles[k], p0, true, h).phi;
            before = min(before, d);
            if (d < obstacles[k].contact.y) {
                if (inside == 0u) {
                    which = k;
                    phi0 = d;
                }
                inside += 1u;
            }
        }
        var delta = vec3<f32>(0.0);
        if (inside == 1u) {
            let o = obstacles[which];
            let target_phi = lift(phi0, o.contact.y);
            for (var it = 0u; it < SETTLE_ITERATIONS; it++) {
                let s = probe(o, p0 + delta, true, h);
                if (all(s.normal == vec3<f32>(0.0))) {
                    break;
                }
                delta += s.normal * (target_phi - s.phi);
            }
            x[i] = displaced(x[i], delta);
            hit = 1.0;
        }
    }
    contact[i] = vec4<f32>(hit, FAR, before, FAR);
}

// After `settle`, where the step reports its depths: the nearest surface
// to vertex i if it is free, and to the midpoint of each edge it starts
// that has a free end (CPU twin: the measured part of cpu/collide.rs
// `settle`).
@compute @workgroup_size(WORKGROUP)
fn depths(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    let h = params.step.x;
    let p = rest[i].xyz + displacement(x[i]);
    if (is_free[i] != 0u) {
        var deepest = FAR;
        for (var k = 0u; k < obstacle_count.x; k++) {
            deepest = min(deepest, probe(obstacles[k], p, true, h).phi);
        }
        contact[i].y = deepest;
    }
    var nearest = FAR;
    for (var e = edge_start[i]; e < edge_start[i + 1u]; e++) {
        let j = edge_end[e];
        if (is_free[i] == 0u && is_free[j] == 0u) {
            continue;
        }
        let mid = 0.5 * (p + rest[j].xyz + displacement(x[j]));
        for (var k = 0u; k < obstacle_count.x; k++) {
            nearest = min(nearest, probe(obstacles[k], mid, true, h).phi);
        }
    }
    contact[i].w = nearest;
}
