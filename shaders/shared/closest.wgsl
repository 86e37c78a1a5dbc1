// The closest point to `p` on triangle (a, b, c) (Ericson, Real-Time
// Collision Detection §5.1.5), as barycentric weights `w` and its
// feature: 0 the face, 1 + k edge k (corner k to k + 1), 4 + k corner k.
// Prepended to the kernels that search triangles: collide (a body's
// surface; CPU twin collide/body.rs) and proximity (the cloth's own; CPU
// twin collide/proximity.rs `closest_on_triangle`).
struct Closest {
    w: vec3<f32>,
    feature: u32,
}

fn closest_on_triangle(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> Closest {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return Closest(vec3<f32>(1.0, 0.0, 0.0), 4u);
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return Closest(vec3<f32>(0.0, 1.0, 0.0), 5u);
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let v = d1 / (d1 - d3);
        return Closest(vec3<f32>(1.0 - v, v, 0.0), 1u);
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return Closest(vec3<f32>(0.0, 0.0, 1.0), 6u);
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let w = d2 / (d2 - d6);
        return Closest(vec3<f32>(1.0 - w, 0.0, w), 3u);
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return Closest(vec3<f32>(0.0, 1.0 - w, w), 2u);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    return Closest(vec3<f32>(1.0 - v - w, v, w), 0u);
}
