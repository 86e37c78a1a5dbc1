// Draws the cloth for pictures (`crease render`, contact sheets): a
// triangle mesh with smooth per-vertex normals, lit by a key light that
// grazes it (so that wrinkles show as bands of light and shade) and a weak
// fill, both sides of the cloth lit, optionally coloured by a per-vertex
// value in [0, 1]; obstacles (value < 0) grey. Not a simulation kernel; its CPU twin is
// src/render/raster.rs with the shading of src/render/mod.rs (`shade`),
// which must stay the same arithmetic as `shade` below.

struct Frame {
    view_proj: mat4x4<f32>,
    // Unit directions towards the lights, world space.
    key: vec4<f32>,
    fill: vec4<f32>,
    // x: 1 to colour by value, 0 for plain cloth.
    flags: vec4<u32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) value: f32,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) value: f32,
}

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.clip = frame.view_proj * vec4<f32>(v.position, 1.0);
    out.normal = v.normal;
    out.value = v.value;
    return out;
}

const AMBIENT: f32 = 0.16;
const KEY: f32 = 0.9;
const FILL: f32 = 0.22;
const CLOTH_FRONT: vec3<f32> = vec3<f32>(0.80, 0.72, 0.62);
const CLOTH_BACK: vec3<f32> = vec3<f32>(0.62, 0.68, 0.78);
// Obstacles: vertices whose value is negative.
const OBSTACLE: vec3<f32> = vec3<f32>(0.55, 0.55, 0.57);

// Blue (0) through white (0.5) to red (1).
fn colour_map(s: f32) -> vec3<f32> {
    let t = clamp(s, 0.0, 1.0);
    let cold = vec3<f32>(0.23, 0.30, 0.75);
    let mid = vec3<f32>(0.87, 0.87, 0.87);
    let hot = vec3<f32>(0.71, 0.02, 0.15);
    if t < 0.5 {
        return mix(cold, mid, t * 2.0);
    }
    return mix(mid, hot, t * 2.0 - 1.0);
}

// Linear colour of a point with (interpolated) normal `n` on the side
// `front` of the cloth.
fn shade(normal: vec3<f32>, front: bool, value: f32) -> vec3<f32> {
    var n = normalize(normal);
    var base = CLOTH_FRONT;
    if !front {
        n = -n;
        base = CLOTH_BACK;
    }
    if value < 0.0 {
        base = OBSTACLE;
    } else if frame.flags.x != 0u {
        base = colour_map(value);
    }
    let key = max(dot(n, frame.key.xyz), 0.0);
    let fill = max(dot(n, frame.fill.xyz), 0.0);
    return base * (AMBIENT + KEY * key + FILL * fill);
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let c = clamp(shade(in.normal, front, in.value), vec3<f32>(0.0), vec3<f32>(1.0));
    // Gamma 2.2 into a plain (non-sRGB) 8-bit target.
    return vec4<f32>(pow(c, vec3<f32>(1.0 / 2.2)), 1.0);
}
