// A plain streaming copy, dst = src: the memory-bandwidth reference of
// `crease bench` (the PCG's effective bandwidth is reported against it). It
// is a measuring probe, not part of a step, so it has no CPU twin.

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i < arrayLength(&src)) {
        dst[i] = src[i];
    }
}
