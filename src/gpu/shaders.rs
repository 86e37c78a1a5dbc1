//! The WGSL kernels, embedded in the binary. Each kernel file is compiled
//! with the shared files prepended (WGSL has no includes), and every one is
//! parsed and validated by naga without a device (see the tests).

use crate::error::{Error, Result};

/// Shared declarations, prepended to every kernel.
const SHARED: &[(&str, &str)] = &[
    ("shared/types.wgsl", include_str!("../../shaders/shared/types.wgsl")),
    ("shared/channel.wgsl", include_str!("../../shaders/shared/channel.wgsl")),
];

/// Reads a hinge's bending mode; for the kernels that bind the hinge buffers.
const HINGE: &str = include_str!("../../shaders/shared/hinge.wgsl");

/// The closest point on a triangle; for the kernels that search triangles.
const CLOSEST: &str = include_str!("../../shaders/shared/closest.wgsl");

/// The kernel files: (name, source, extra shared files). Each kernel of a
/// step has a CPU twin `src/cpu/<name>.rs`, but `proximity`, whose twin is
/// the host search `src/collide/proximity.rs` (the CPU backend's, which
/// sticking shares), `scan`, integer prefix sums, and `multilevel` and
/// `multilevel_fine`, whose twin is `src/cpu/multilevel/` (the V-cycle and
/// the finest level's assembly); `copy` is the
/// bandwidth probe of `crease bench`.
pub const KERNELS: &[(&str, &str, &[&str])] = &[
    ("membrane", include_str!("../../shaders/membrane.wgsl"), &[]),
    ("bending", include_str!("../../shaders/bending.wgsl"), &[]),
    ("gather", include_str!("../../shaders/gather.wgsl"), &[HINGE]),
    ("hessian", include_str!("../../shaders/hessian.wgsl"), &[HINGE]),
    ("pcg", include_str!("../../shaders/pcg.wgsl"), &[]),
    ("multilevel", include_str!("../../shaders/multilevel.wgsl"), &[]),
    (
        "multilevel_fine",
        include_str!("../../shaders/multilevel_fine.wgsl"),
        &[HINGE],
    ),
    ("reduce", include_str!("../../shaders/reduce.wgsl"), &[]),
    ("integrate", include_str!("../../shaders/integrate.wgsl"), &[]),
    ("collide", include_str!("../../shaders/collide.wgsl"), &[CLOSEST]),
    ("repulsion", include_str!("../../shaders/repulsion.wgsl"), &[]),
    ("proximity", include_str!("../../shaders/proximity.wgsl"), &[CLOSEST]),
    ("scan", include_str!("../../shaders/scan.wgsl"), &[]),
    ("strain_limit", include_str!("../../shaders/strain_limit.wgsl"), &[]),
    ("shape_operator", include_str!("../../shaders/shape_operator.wgsl"), &[]),
    ("copy", include_str!("../../shaders/copy.wgsl"), &[]),
];

/// The full source of a kernel: the shared files, its extra shared files,
/// then the kernel.
pub fn source(name: &str) -> Result<String> {
    let (_, kernel, extra) = KERNELS
        .iter()
        .find(|(n, _, _)| *n == name)
        .ok_or_else(|| Error::Gpu(format!("no kernel named {name}")))?;
    let mut s = String::new();
    for shared in SHARED.iter().map(|(_, src)| src).chain(extra.iter()) {
        s.push_str(shared);
        s.push('\n');
    }
    s.push_str(kernel);
    Ok(s)
}

/// Parses and validates a kernel with naga (the module, and which globals
/// each entry point uses); the error names the file.
pub fn validate(name: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let src = source(name)?;
    let module = naga::front::wgsl::parse_str(&src).map_err(|e| {
        Error::Gpu(format!(
            "shaders/{name}.wgsl does not parse: {}",
            e.emit_to_string(&src)
        ))
    })?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
        .validate(&module)
        .map_err(|e| Error::Gpu(format!("shaders/{name}.wgsl is invalid: {}", e.emit_to_string(&src))))?;
    Ok((module, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs everywhere, with or without a GPU.
    #[test]
    fn every_kernel_parses_and_validates() {
        for (name, _, _) in KERNELS {
            if let Err(e) = validate(name) {
                panic!("{e}");
            }
        }
    }

    /// The Rust twins of the shared structs have the WGSL sizes and offsets.
    #[test]
    fn pod_layouts_match_the_wgsl_structs() {
        use crate::gpu::layout::*;
        let hessian = validate("hessian").unwrap().0;
        let collide = validate("collide").unwrap().0;
        let strain_limit = validate("strain_limit").unwrap().0;
        let bending = validate("bending").unwrap().0;
        let proximity = validate("proximity").unwrap().0;
        let check_in = |module: &naga::Module, name: &str, size: usize, offsets: &[(&str, usize)]| {
            let mut layouter = naga::proc::Layouter::default();
            layouter.update(module.to_ctx()).unwrap();
            let (handle, ty) = module
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some(name))
                .unwrap_or_else(|| panic!("no WGSL struct {name}"));
            assert_eq!(layouter[handle].size as usize, size, "size of {name}");
            let naga::TypeInner::Struct { members, .. } = &ty.inner else {
                panic!("{name} is not a struct")
            };
            for (field, offset) in offsets {
                let m = members.iter().find(|m| m.name.as_deref() == Some(field)).unwrap();
                assert_eq!(m.offset as usize, *offset, "{name}.{field}");
            }
        };
        let check = |name: &str, size: usize, offsets: &[(&str, usize)]| check_in(&hessian, name, size, offsets);
        macro_rules! off {
            ($t:ty, $($f:ident),*) => { &[$((stringify!($f), std::mem::offset_of!($t, $f))),*] };
        }
        check(
            "Params",
            size_of::<Params>(),
            off!(
                Params, counts, models, hinge, stretching, step, scales, gravity, air, wind, bending, in_plane
            ),
        );
        check(
            "ChannelParams",
            size_of::<ChannelParams>(),
            off!(ChannelParams, dwell, dahl, hardening, spread),
        );
        check(
            "PackedChannel",
            size_of::<PackedChannel>(),
            off!(PackedChannel, friction, plastic),
        );
        check(
            "FaceRest",
            size_of::<FaceRest>(),
            off!(FaceRest, beta01, beta2, fx_u, fx_v),
        );
        check("PairGpu", size_of::<PairGpu>(), off!(PairGpu, v, c, n));
        check(
            "RepulsionParams",
            size_of::<RepulsionParams>(),
            off!(RepulsionParams, counts, coef),
        );
        check("Displacement", size_of::<Displacement>(), off!(Displacement, hi, lo));
        check("HingeRest", size_of::<HingeRest>(), off!(HingeRest, e, a2));
        check("FaceLin", size_of::<FaceLin>(), off!(FaceLin, fu, fv, s, c));
        check("HingeHalf", size_of::<HingeHalf>(), off!(HingeHalf, a, b));
        check(
            "Scalars",
            size_of::<Scalars>(),
            off!(
                Scalars,
                rr_ref,
                rr,
                rz,
                pq,
                alpha,
                beta,
                tol2,
                zero,
                iterations,
                max_iterations,
                done,
                broke
            ),
        );
        check(
            "ProductMode",
            size_of::<ProductMode>(),
            off!(ProductMode, mass_scale, filter_rows),
        );
        check_in(&collide, "SdfInfo", size_of::<SdfInfo>(), off!(SdfInfo, origin, dims));
        check_in(
            &collide,
            "ObstacleGpu",
            size_of::<ObstacleGpu>(),
            off!(ObstacleGpu, start_rot, start_trans, end_rot, end_trans, contact, grid),
        );
        check_in(
            &strain_limit,
            "LimitEdge",
            size_of::<LimitEdge>(),
            off!(LimitEdge, ends, rest),
        );
        check_in(
            &strain_limit,
            "LimitParams",
            size_of::<LimitParams>(),
            off!(LimitParams, counts, bounds),
        );
        check_in(
            &proximity,
            "ProximityParams",
            size_of::<ProximityParams>(),
            off!(ProximityParams, counts, capacity, coef),
        );
        check_in(
            &bending,
            "HingeCoupling",
            size_of::<HingeCoupling>(),
            off!(HingeCoupling, a_p, a_q, b_p, b_q, w),
        );
    }
}
