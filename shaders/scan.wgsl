// Exclusive prefix sums of u32 counts, for the proximity search's counting
// sorts (proximity.wgsl; host side gpu/kernels/scan.rs): `scan_out[i]` is
// the sum of `scan_in[..i]` over `scan_params.counts.x` items. Each
// workgroup scans a block of WORKGROUP * SCAN_ITEMS items and leaves its
// total in `scan_sums`; the totals are scanned the same way (a level of
// their own) and `scan_add` adds each block's offset back. Integer sums:
// the bytes do not depend on the order of the work.

struct ScanParams {
    counts: vec4<u32>,  // items, -, -, -
}

@group(0) @binding(0) var<uniform> scan_params: ScanParams;
@group(0) @binding(1) var<storage, read> scan_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> scan_out: array<u32>;
@group(0) @binding(3) var<storage, read_write> scan_sums: array<u32>;

// Items each thread sums in turn before the workgroup's scan.
const SCAN_ITEMS: u32 = 4u;

var<workgroup> thread_sums: array<u32, WORKGROUP>;

// One block: each thread's SCAN_ITEMS consecutive items, then a
// Hillis-Steele scan of the threads' sums.
@compute @workgroup_size(WORKGROUP)
fn scan_blocks(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let block = group_index(group, groups);
    let n = scan_params.counts.x;
    let first = (block * WORKGROUP + local) * SCAN_ITEMS;
    var before: array<u32, SCAN_ITEMS>;
    var sum = 0u;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        before[k] = sum;
        if (first + k < n) {
            sum += scan_in[first + k];
        }
    }
    thread_sums[local] = sum;
    workgroupBarrier();
    for (var stride = 1u; stride < WORKGROUP; stride *= 2u) {
        var add = 0u;
        if (local >= stride) {
            add = thread_sums[local - stride];
        }
        workgroupBarrier();
        thread_sums[local] += add;
        workgroupBarrier();
    }
    let offset = thread_sums[local] - sum;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        if (first + k < n) {
            scan_out[first + k] = offset + before[k];
        }
    }
    if (local == WORKGROUP - 1u) {
        scan_sums[block] = thread_sums[local];
    }
}

// Adds each block's offset (`scan_sums`, bound to the next level's scanned
// totals) to its items.
@compute @workgroup_size(WORKGROUP)
fn scan_add(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= scan_params.counts.x) {
        return;
    }
    scan_out[i] += scan_sums[i / (WORKGROUP * SCAN_ITEMS)];
}
