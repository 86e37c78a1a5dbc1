// Self-collision detection on the device (CPU twin: src/collide/proximity.rs,
// the host search the CPU backend runs; Bridson, Fedkiw & Anderson 2002
// §6): every vertex-triangle and edge-edge pair of the cloth closer than
// the thickness t at the step's start, by the same tests and in the same
// order as the host's, and their per-vertex incidence, left in the
// repulsion kernels' buffers (`pairs`, `pair_offsets`, `pair_entries`).
// The host reads back the pair count only.
//
// Broad phase (boxgrid.rs's scheme): each primitive's box, padded by t/2,
// is listed once, in the cell of its low corner, in a uniform grid whose
// cell is as large as the boxes (`extent_sum` to `grid_cell`); the cells are hashed into
// buckets, counted, prefix-summed (scan.wgsl) and filled: a counting sort
// of the boxes by cell. A query visits the cells from one below its low
// corner's to its high corner's and keeps the boxes whose own cell is the
// visited one (two cells may share a bucket, and a box is then met once
// still). Boxes larger than a cell are listed apart and tested against
// every query.
//
// Narrow phase: closest points (shared/closest.wgsl for a triangle,
// Ericson §5.1.9 for two segments) in f32, with every
// position taken relative to the query's first vertex from the split
// displacements (types.wgsl), so that a pair's millimetres are not lost
// in the metres of its coordinates.
//
// Order, without atomics in the result: each query (vertices, then edges)
// counts its pairs (keeping the first FOUND_SLOTS primitives it paired
// with), the counts are prefix-summed, and each query writes its pairs
// into its own range (from the kept primitives, or by a second walk when
// it found more) and sorts them by their vertices, which is
// the host's order (vertex-triangle pairs by vertex then triangle, then
// edge-edge pairs by their vertices; the edges are sorted). The incidence
// is counted and filled with atomics, then each vertex's row is sorted by
// (pair, slot), as the host builds it.

struct ProximityParams {
    counts: vec4<u32>,     // vertices, faces, edges, buckets - 1 (a power of two less one)
    capacity: vec4<u32>,   // pairs the `pairs` buffer holds, -, -, -
    coef: vec4<f32>,       // thickness t, the rest gap below which nothing pairs (REST_GAP t), -, -
}

// The grid of one search: its cell, the boxes listed apart, and on the
// way to the cell the largest extent it may take and (as the bits of a
// non-negative f32, which order as integers) the largest within it.
struct ProximityGrid {
    cell: f32,
    large: atomic<u32>,
    cap: f32,
    largest: atomic<u32>,
}

@group(0) @binding(0) var<uniform> proximity: ProximityParams;
@group(0) @binding(1) var<storage, read> rest: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> x: array<Displacement>;
@group(0) @binding(3) var<storage, read> faces: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> prox_edges: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> prox_boxes: array<vec4<f32>>;  // lo, hi per primitive
@group(0) @binding(6) var<storage, read_write> prox_grid: ProximityGrid;
@group(0) @binding(7) var<storage, read_write> prox_bucket_count: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> prox_bucket_start: array<u32>;
@group(0) @binding(9) var<storage, read_write> prox_items: array<u32>;
@group(0) @binding(10) var<storage, read_write> prox_large: array<u32>;
@group(0) @binding(11) var<storage, read_write> prox_query_count: array<u32>;
@group(0) @binding(12) var<storage, read> prox_query_start: array<u32>;
@group(0) @binding(13) var<storage, read_write> pairs: array<PairGpu>;
@group(0) @binding(14) var<storage, read_write> prox_vertex_count: array<atomic<u32>>;
@group(0) @binding(15) var<storage, read> pair_offsets: array<u32>;
@group(0) @binding(16) var<storage, read_write> pair_entries: array<vec2<u32>>;  // pair, slot
@group(0) @binding(17) var<storage, read_write> prox_extent_sum: array<f32>;     // per workgroup of `extent_sum`
@group(0) @binding(18) var<storage, read_write> prox_found: array<u32>;          // FOUND_SLOTS per query

// The primitives a query keeps from its counting walk to write its pairs
// without walking again (kernels/proximity.rs `FOUND_SLOTS`).
const FOUND_SLOTS: u32 = 4u;

// Cells per axis one query visits, at most (boxgrid.rs `MAX_SPAN`).
const MAX_SPAN: i32 = 64;
// Segments whose directions' cross product is below this share of their
// lengths' product, squared, are parallel here (1e-12 on the host, below
// f32's resolution).
const PARALLEL: f32 = 1e-6;
// No pair (its separation negative).
const NO_PAIR = PairGpu(vec4<u32>(0u), vec4<f32>(0.0), vec4<f32>(0.0, 0.0, 0.0, -1.0));

fn primitives() -> u32 {
    return proximity.counts.y + proximity.counts.z;
}

// A primitive's corners: a face's three, or an edge's two (the second twice).
fn corners(b: u32) -> vec3<u32> {
    let nf = proximity.counts.y;
    if (b < nf) {
        return faces[b].xyz;
    }
    let e = prox_edges[b - nf];
    return vec3<u32>(e.x, e.y, e.y);
}

// 0: a face, 1: an edge.
fn kind_of(b: u32) -> u32 {
    return select(0u, 1u, b >= proximity.counts.y);
}

fn position(i: u32) -> vec3<f32> {
    return rest[i].xyz + displacement(x[i]);
}

// x_j - x_o, exact but for the rounding of the difference.
fn relative_to(j: u32, o: u32) -> vec3<f32> {
    return (rest[j].xyz - rest[o].xyz) + displacement_difference(x[j], x[o]);
}

fn rest_relative(j: u32, o: u32) -> vec3<f32> {
    return rest[j].xyz - rest[o].xyz;
}

fn box_lo(b: u32) -> vec3<f32> {
    return prox_boxes[2u * b].xyz;
}

fn box_hi(b: u32) -> vec3<f32> {
    return prox_boxes[2u * b + 1u].xyz;
}

fn extent(b: u32) -> f32 {
    let d = box_hi(b) - box_lo(b);
    return max(d.x, max(d.y, d.z));
}

// Whether box b is listed in a cell: no larger than one (a non-finite
// extent is not).
fn listed(b: u32) -> bool {
    return extent(b) <= prox_grid.cell;
}

// The cell holding p; coordinates bounded so that far or non-finite points
// neither overflow nor loop (a state that far out is blowing up).
fn cell_of(p: vec3<f32>) -> vec3<i32> {
    let c = floor(p / prox_grid.cell);
    return vec3<i32>(clamp(c, vec3<f32>(-1.0e9), vec3<f32>(1.0e9)));
}

fn bucket(c: vec3<i32>, kind: u32) -> u32 {
    let u = bitcast<vec3<u32>>(c);
    let h = (u.x * 73856093u) ^ (u.y * 19349663u) ^ (u.z * 83492791u) ^ (kind * 2654435761u);
    return h & proximity.counts.w;
}

fn overlaps(b: u32, lo: vec3<f32>, hi: vec3<f32>) -> bool {
    return all(box_lo(b) <= hi) && all(lo <= box_hi(b));
}

// Each primitive's box at the step's start, padded by t/2: two padded
// boxes overlap exactly when the unpadded ones are within t on every axis.
@compute @workgroup_size(WORKGROUP)
fn boxes(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(id, groups);
    if (b >= primitives()) {
        return;
    }
    let v = corners(b);
    let p0 = position(v.x);
    let p1 = position(v.y);
    let p2 = position(v.z);
    let pad = vec3<f32>(0.5 * proximity.coef.x);
    prox_boxes[2u * b] = vec4<f32>(min(p0, min(p1, p2)) - pad, 0.0);
    prox_boxes[2u * b + 1u] = vec4<f32>(max(p0, max(p1, p2)) + pad, 0.0);
}

var<workgroup> grid_sums: array<f32, WORKGROUP>;

// Sums (largest: maxima) `value` over the workgroup, in a fixed order.
fn grid_reduce(local: u32, value: f32, largest: bool) -> f32 {
    grid_sums[local] = value;
    workgroupBarrier();
    for (var stride = WORKGROUP / 2u; stride > 0u; stride = stride / 2u) {
        if (local < stride) {
            let other = grid_sums[local + stride];
            grid_sums[local] = select(grid_sums[local] + other, max(grid_sums[local], other), largest);
        }
        workgroupBarrier();
    }
    let total = grid_sums[0];
    workgroupBarrier();
    return total;
}

// The cell: the largest box extent up to four times the mean extent (the
// host takes the median, which a device does not sort for; either keeps a
// few runaway boxes from making the cell huge), or 1 m when no box has an
// extent. Four dispatches: the extents summed per workgroup, those sums
// summed (one workgroup, a fixed order), the largest extent within the cap
// per workgroup and over them (a maximum: any order), and the cell.
@compute @workgroup_size(WORKGROUP)
fn extent_sum(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
              @builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let b = linear_index(id, groups);
    var e = 0.0;
    if (b < primitives()) {
        e = extent(b);
    }
    let sum = grid_reduce(local, e, false);
    // The idle workgroups at a wrapped dispatch's end write nothing (as
    // pcg.wgsl's partial sums).
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&prox_extent_sum)) {
        prox_extent_sum[g] = sum;
    }
}

@compute @workgroup_size(WORKGROUP)
fn extent_cap(@builtin(local_invocation_index) local: u32) {
    let count = primitives();
    let sums = (count + WORKGROUP - 1u) / WORKGROUP;
    var sum = 0.0;
    for (var k = local; k < sums; k += WORKGROUP) {
        sum += prox_extent_sum[k];
    }
    let total = grid_reduce(local, sum, false);
    if (local == 0u) {
        prox_grid.cap = 4.0 * total / f32(max(count, 1u));
    }
}

@compute @workgroup_size(WORKGROUP)
fn extent_largest(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
                  @builtin(local_invocation_index) local: u32) {
    let b = linear_index(id, groups);
    var e = 0.0;
    if (b < primitives()) {
        e = extent(b);
        if (!(e <= prox_grid.cap)) {
            e = 0.0;
        }
    }
    let largest = grid_reduce(local, e, true);
    if (local == 0u && largest > 0.0) {
        atomicMax(&prox_grid.largest, bitcast<u32>(largest));
    }
}

@compute @workgroup_size(1)
fn grid_cell() {
    let cell = bitcast<f32>(atomicLoad(&prox_grid.largest));
    prox_grid.cell = select(1.0, cell, cell > 0.0 && cell < 1.0e30);
}

// Counts each listed box into its cell's bucket; lists the larger ones apart.
@compute @workgroup_size(WORKGROUP)
fn bucket_count(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(id, groups);
    if (b >= primitives()) {
        return;
    }
    if (!listed(b)) {
        prox_large[atomicAdd(&prox_grid.large, 1u)] = b;
        return;
    }
    atomicAdd(&prox_bucket_count[bucket(cell_of(box_lo(b)), kind_of(b))], 1u);
}

// Places each listed box in its bucket (the counts cleared to serve as
// cursors; the order within a bucket is the device's, and no result
// depends on it).
@compute @workgroup_size(WORKGROUP)
fn bucket_fill(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(id, groups);
    if (b >= primitives() || !listed(b)) {
        return;
    }
    let k = bucket(cell_of(box_lo(b)), kind_of(b));
    prox_items[prox_bucket_start[k] + atomicAdd(&prox_bucket_count[k], 1u)] = b;
}

// Closest points of segments ab and cd as parameters (s, u) in [0, 1]
// (host `closest_on_segments`); z is 0 when a segment is degenerate.
fn closest_on_segments(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, d: vec3<f32>) -> vec3<f32> {
    let d1 = b - a;
    let d2 = d - c;
    let r = a - c;
    let aa = dot(d1, d1);
    let ee = dot(d2, d2);
    let f = dot(d2, r);
    if (aa <= 1e-30 || ee <= 1e-30) {
        return vec3<f32>(0.0);
    }
    let cc = dot(d1, r);
    let bb = dot(d1, d2);
    let denom = aa * ee - bb * bb;
    var s = 0.0;
    if (denom > PARALLEL * aa * ee) {
        s = clamp((bb * f - cc * ee) / denom, 0.0, 1.0);
    }
    var u = (bb * s + f) / ee;
    if (u < 0.0) {
        u = 0.0;
        s = clamp(-cc / aa, 0.0, 1.0);
    } else if (u > 1.0) {
        u = 1.0;
        s = clamp((bb - cc) / aa, 0.0, 1.0);
    }
    return vec3<f32>(s, u, 1.0);
}

// Whether every corner of one primitive is within the rest gap of every
// corner of the other at rest (host `rest_neighbours`): no point pair of
// theirs is a pair.
fn rest_neighbours(a: vec3<u32>, an: u32, b: vec3<u32>, bn: u32) -> bool {
    let gap = proximity.coef.y;
    for (var i = 0u; i < an; i++) {
        for (var j = 0u; j < bn; j++) {
            let d = rest_relative(a[i], b[j]);
            if (dot(d, d) >= gap * gap) {
                return false;
            }
        }
    }
    return true;
}

// The pair of vertices v with weights c, their positions y and rest
// positions r relative to v.x, when within t (and the rest gap apart at
// rest); n.w < 0: none (host `pair`).
fn pair_of(v: vec4<u32>, c: vec4<f32>, y: array<vec3<f32>, 4>, r: array<vec3<f32>, 4>, fallback: vec3<f32>) -> PairGpu {
    let t = proximity.coef.x;
    let diff = y[0] * c.x + y[1] * c.y + y[2] * c.z + y[3] * c.w;
    let dist = length(diff);
    if (dist >= t) {
        return NO_PAIR;
    }
    let rest_diff = r[0] * c.x + r[1] * c.y + r[2] * c.z + r[3] * c.w;
    if (length(rest_diff) < proximity.coef.y) {
        return NO_PAIR;
    }
    var n = diff / dist;
    if (!(dist > 1e-9 * t)) {
        let len = length(fallback);
        if (!(len > 0.0)) {
            return NO_PAIR;
        }
        n = select(fallback, -fallback, dot(fallback, rest_diff) < 0.0) / len;
    }
    return PairGpu(v, c, vec4<f32>(n, dot(n, diff)));
}

// Vertex p against face f, relative to p.
fn vertex_triangle(p: u32, f: u32) -> PairGpu {
    let face = faces[f].xyz;
    if (any(face == vec3<u32>(p)) || rest_neighbours(vec3<u32>(p), 1u, face, 3u)) {
        return NO_PAIR;
    }
    let a = relative_to(face.x, p);
    let b = relative_to(face.y, p);
    let c = relative_to(face.z, p);
    let w = closest_on_triangle(vec3<f32>(0.0), a, b, c).w;
    let y = array<vec3<f32>, 4>(vec3<f32>(0.0), a, b, c);
    let r = array<vec3<f32>, 4>(
        vec3<f32>(0.0),
        rest_relative(face.x, p),
        rest_relative(face.y, p),
        rest_relative(face.z, p),
    );
    return pair_of(vec4<u32>(p, face), vec4<f32>(1.0, -w), y, r, cross(b - a, c - a));
}

// Edge e against edge g (g > e), relative to e's first vertex, when the
// closest points are inside both edges (the others are a vertex's).
fn edge_edge(e: u32, g: u32) -> PairGpu {
    let ij = prox_edges[e];
    let kl = prox_edges[g];
    let adjacent = any(vec2<u32>(kl.x) == ij) || any(vec2<u32>(kl.y) == ij);
    if (g <= e || adjacent) {
        return NO_PAIR;
    }
    if (rest_neighbours(vec3<u32>(ij, ij.y), 2u, vec3<u32>(kl, kl.y), 2u)) {
        return NO_PAIR;
    }
    let b = relative_to(ij.y, ij.x);
    let c = relative_to(kl.x, ij.x);
    let d = relative_to(kl.y, ij.x);
    let su = closest_on_segments(vec3<f32>(0.0), b, c, d);
    let s = su.x;
    let u = su.y;
    if (su.z == 0.0 || s <= 0.0 || s >= 1.0 || u <= 0.0 || u >= 1.0) {
        return NO_PAIR;
    }
    let y = array<vec3<f32>, 4>(vec3<f32>(0.0), b, c, d);
    let r = array<vec3<f32>, 4>(
        vec3<f32>(0.0),
        rest_relative(ij.y, ij.x),
        rest_relative(kl.x, ij.x),
        rest_relative(kl.y, ij.x),
    );
    return pair_of(vec4<u32>(ij, kl), vec4<f32>(1.0 - s, s, -(1.0 - u), -u), y, r, cross(b, d - c));
}

// Query q's pair with primitive b (vertex q and face b, or edge q - n and
// edge b - faces).
fn pair_with(q: u32, b: u32) -> PairGpu {
    let n = proximity.counts.x;
    if (q < n) {
        return vertex_triangle(q, b);
    }
    return edge_edge(q - n, b - proximity.counts.y);
}

// Query q's pairs: vertex q against the faces near it, or (q past the
// vertices) edge q - n against the later edges near it. Counts them, and
// with `write` stores them from `first` on (up to the capacity), without
// it keeps the first FOUND_SLOTS primitives paired with.
fn visit(q: u32, first: u32, write: bool) -> u32 {
    let n = proximity.counts.x;
    let pad = vec3<f32>(0.5 * proximity.coef.x);
    var kind = 0u;
    var lo = vec3<f32>(0.0);
    var hi = vec3<f32>(0.0);
    if (q < n) {
        let p = position(q);
        lo = p - pad;
        hi = p + pad;
    } else {
        kind = 1u;
        let b = proximity.counts.y + q - n;
        lo = box_lo(b);
        hi = box_hi(b);
    }
    let c0 = cell_of(lo) - vec3<i32>(1);
    let c1 = min(cell_of(hi), c0 + vec3<i32>(MAX_SPAN - 1));
    // A query wider than MAX_SPAN cells (a runaway box, whose state is
    // blowing up) tests every listed box instead of its cells, so that it
    // misses none (the host finds such pairs from the listed box's side,
    // `BoxGrid::overlapping_after`; every pair is still written from its
    // own query, in the host's order).
    let runaway = any(cell_of(hi) != c1);
    let large = atomicLoad(&prox_grid.large);
    var found = 0u;
    // The cells' listed boxes (or all of them), then the boxes listed apart.
    let span = vec3<u32>(c1 - c0 + vec3<i32>(1));
    let cells = select(span.x * span.y * span.z, 1u, runaway);
    for (var k = 0u; k < cells + 1u; k++) {
        var start = 0u;
        var end = large;
        var cell = vec3<i32>(0);
        if (k < cells && runaway) {
            end = prox_bucket_start[proximity.counts.w + 1u];
        } else if (k < cells) {
            cell = c0 + vec3<i32>(vec3<u32>(k % span.x, (k / span.x) % span.y, k / (span.x * span.y)));
            let bk = bucket(cell, kind);
            start = prox_bucket_start[bk];
            end = prox_bucket_start[bk + 1u];
        }
        for (var i = start; i < end; i++) {
            var b = 0u;
            if (k < cells) {
                b = prox_items[i];
                if (!runaway && any(cell_of(box_lo(b)) != cell)) {
                    continue;
                }
            } else {
                b = prox_large[i];
            }
            if (kind_of(b) != kind || !overlaps(b, lo, hi)) {
                continue;
            }
            let pair = pair_with(q, b);
            if (pair.n.w < 0.0) {
                continue;
            }
            if (write && first + found < proximity.capacity.x) {
                pairs[first + found] = pair;
            }
            if (!write && found < FOUND_SLOTS) {
                prox_found[q * FOUND_SLOTS + found] = b;
            }
            found++;
        }
    }
    return found;
}

@compute @workgroup_size(WORKGROUP)
fn query_count(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let q = linear_index(id, groups);
    if (q >= proximity.counts.x + proximity.counts.z) {
        return;
    }
    prox_query_count[q] = visit(q, 0u, false);
}

// Whether pair a's vertices come after pair b's.
fn after(a: vec4<u32>, b: vec4<u32>) -> bool {
    for (var j = 0u; j < 4u; j++) {
        if (a[j] != b[j]) {
            return a[j] > b[j];
        }
    }
    return false;
}

// Writes each query's pairs into its range and sorts them by vertices.
@compute @workgroup_size(WORKGROUP)
fn query_write(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let q = linear_index(id, groups);
    if (q >= proximity.counts.x + proximity.counts.z) {
        return;
    }
    let first = prox_query_start[q];
    let count = prox_query_count[q];
    if (count <= FOUND_SLOTS) {
        for (var k = 0u; k < count && first + k < proximity.capacity.x; k++) {
            pairs[first + k] = pair_with(q, prox_found[q * FOUND_SLOTS + k]);
        }
    } else {
        visit(q, first, true);
    }
    let end = min(first + count, proximity.capacity.x);
    for (var i = first + 1u; i < end; i++) {
        let key = pairs[i];
        var j = i;
        while (j > first && after(pairs[j - 1u].v, key.v)) {
            pairs[j] = pairs[j - 1u];
            j--;
        }
        pairs[j] = key;
    }
}

// The pairs found, up to the capacity.
fn pair_count() -> u32 {
    return min(prox_query_start[proximity.counts.x + proximity.counts.z], proximity.capacity.x);
}

// Counts each vertex's incidences.
@compute @workgroup_size(WORKGROUP)
fn incidence_count(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(id, groups);
    if (k >= pair_count()) {
        return;
    }
    let v = pairs[k].v;
    for (var slot = 0u; slot < 4u; slot++) {
        atomicAdd(&prox_vertex_count[v[slot]], 1u);
    }
}

// Places each incidence in its vertex's row (the counts cleared to serve
// as cursors).
@compute @workgroup_size(WORKGROUP)
fn incidence_fill(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(id, groups);
    if (k >= pair_count()) {
        return;
    }
    let v = pairs[k].v;
    for (var slot = 0u; slot < 4u; slot++) {
        let row = pair_offsets[v[slot]];
        pair_entries[row + atomicAdd(&prox_vertex_count[v[slot]], 1u)] = vec2<u32>(k, slot);
    }
}

// Sorts each vertex's row by (pair, slot).
@compute @workgroup_size(WORKGROUP)
fn incidence_sort(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= proximity.counts.x) {
        return;
    }
    let first = pair_offsets[v];
    for (var i = first + 1u; i < pair_offsets[v + 1u]; i++) {
        let key = pair_entries[i];
        var j = i;
        while (j > first && pair_entries[j - 1u].x * 4u + pair_entries[j - 1u].y > key.x * 4u + key.y) {
            pair_entries[j] = pair_entries[j - 1u];
            j--;
        }
        pair_entries[j] = key;
    }
}
