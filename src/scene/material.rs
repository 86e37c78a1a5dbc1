//! Resolving a scene's `cloth.material`: a preset, or a preset with
//! overrides, or inline values; then validation of every parameter.

use super::schema::{FrictionSpec, MaterialSpec, PerChannel, PlasticSpec};
use crate::error::{Error, Result};
use crate::model::channel::Channel;
use crate::model::material::{self, Material};
use crate::model::membrane::Stretching;

pub(super) fn resolve(label: &str, spec: &MaterialSpec) -> Result<Material> {
    let err = |field: &str, msg: String| Error::scene(label, field, msg);
    let unknown = |name: &str, field: &str| {
        err(
            field,
            format!(
                "unknown material preset `{name}` (presets: {})",
                material::PRESET_NAMES.join(", ")
            ),
        )
    };
    let fields = match spec {
        MaterialSpec::Preset(name) => {
            let m = material::preset(name).ok_or_else(|| unknown(name, "cloth.material"))?;
            validate(label, &m)?;
            return Ok(m);
        }
        MaterialSpec::Fields(f) => f,
    };
    let mut m = match &fields.preset {
        Some(name) => material::preset(name).ok_or_else(|| unknown(name, "cloth.material.preset"))?,
        None => {
            if fields.density.is_none() || fields.bending.is_none() || fields.stretching.is_none() {
                return Err(err(
                    "cloth.material",
                    "without a `preset`, give all of `density`, `bending` and `stretching`".into(),
                ));
            }
            // Inline materials start elastic (no friction, no plasticity).
            material::preset("elastic").ok_or_else(|| unknown("elastic", "cloth.material"))?
        }
    };
    if let Some(d) = fields.density {
        m.density = d;
    }
    if let Some(b) = fields.bending {
        m.bending = b;
    }
    if let Some(model) = fields.bending_model {
        m.bending_model = model;
    }
    if let Some(strain) = fields.bending_strain {
        m.bending_strain = strain;
    }
    if let Some(k_d) = fields.bending_damping {
        m.bending_damping = k_d;
    }
    if let Some(phi) = fields.coupling {
        m.coupling = phi;
    }
    if let Some([k11, k12, k22, k33]) = fields.stretching {
        m.stretching = Stretching { k11, k12, k22, k33 };
    }
    let bending = std::slice::from_mut(&mut m.bending_channel);
    apply_friction(
        &fields.bending_friction,
        &mut m.bending_models.friction,
        bending,
        |v, _| *v,
    );
    apply_plastic(
        &fields.bending_plasticity,
        &mut m.bending_models.plasticity,
        bending,
        |v, _| *v,
    );
    let in_plane = &mut m.in_plane_channels;
    apply_friction(
        &fields.in_plane_friction,
        &mut m.in_plane_models.friction,
        in_plane,
        |v: &PerChannel, c| v.0[c],
    );
    apply_plastic(
        &fields.in_plane_plasticity,
        &mut m.in_plane_models.plasticity,
        in_plane,
        |v: &PerChannel, c| v.0[c],
    );
    validate(label, &m)?;
    Ok(m)
}

fn set<T>(target: &mut f64, value: &Option<T>, c: usize, get: &impl Fn(&T, usize) -> f64) {
    if let Some(v) = value {
        *target = get(v, c);
    }
}

fn apply_friction<T>(
    spec: &FrictionSpec<T>,
    model: &mut crate::model::channel::FrictionModel,
    channels: &mut [Channel],
    get: impl Fn(&T, usize) -> f64,
) {
    if let Some(m) = spec.model {
        *model = m;
    }
    for (c, ch) in channels.iter_mut().enumerate() {
        set(&mut ch.dwell.stiffness, &spec.stiffness, c, &get);
        set(&mut ch.dwell.eps_0, &spec.eps_0, c, &get);
        set(&mut ch.dwell.eps_inf, &spec.eps_inf, c, &get);
        set(&mut ch.dwell.tau, &spec.tau, c, &get);
        set(&mut ch.dwell.spread, &spec.spread, c, &get);
        set(&mut ch.dwell.scatter, &spec.scatter, c, &get);
        set(&mut ch.dwell.scatter_skew, &spec.scatter_skew, c, &get);
        set(&mut ch.dahl.a, &spec.dahl_a, c, &get);
        set(&mut ch.dahl.b, &spec.dahl_b, c, &get);
        set(&mut ch.dahl.tau, &spec.dahl_tau, c, &get);
    }
}

fn apply_plastic<T>(
    spec: &PlasticSpec<T>,
    model: &mut crate::model::channel::PlasticModel,
    channels: &mut [Channel],
    get: impl Fn(&T, usize) -> f64,
) {
    if let Some(m) = spec.model {
        *model = m;
    }
    for (c, ch) in channels.iter_mut().enumerate() {
        set(&mut ch.hardening.k_h0, &spec.k_h0, c, &get);
        set(&mut ch.hardening.g, &spec.g, c, &get);
        set(&mut ch.hardening.tau, &spec.tau, c, &get);
        set(&mut ch.hardening.spread, &spec.spread, c, &get);
        set(&mut ch.hardening.yield_strain, &spec.yield_strain, c, &get);
    }
}

/// The largest areal density (kg/m^2), bending stiffness (N m) and
/// stretching stiffness (N/m) a material may have.
const MAX_DENSITY: f64 = 1e3;
const MAX_BENDING: f64 = 1e3;
const MAX_STRETCHING: f64 = 1e10;
/// The widest spread of a dwell or a hardening, and the widest scatter of
/// a dwell, decades of log time.
const MAX_SPREAD: f64 = 6.0;
/// The steepest lean of a scatter's spectrum (its elements per decade
/// grow as `tau^skew`): 2 makes the last of 6 decades 10^10 times denser
/// than the first, past any fabric.
const MAX_SKEW: f64 = 2.0;

/// Checks every parameter; a message names the field and the bound.
fn validate(label: &str, m: &Material) -> Result<()> {
    let check = |field: &str, v: f64, ok: bool, what: &str| -> Result<()> {
        if v.is_finite() && ok {
            Ok(())
        } else {
            Err(Error::scene(
                label,
                format!("cloth.material.{field}"),
                format!("must be {what}, got {v:?}"),
            ))
        }
    };
    // Upper bounds far past any fabric (cotton: 0.1 kg/m^2, 5e-6 N m, 50
    // N/m), below where the step's products overflow or lose every digit.
    check(
        "density",
        m.density,
        m.density > 0.0 && m.density <= MAX_DENSITY,
        &format!("a positive areal density of at most {MAX_DENSITY} kg/m^2 (fabrics weigh 0.05-1)"),
    )?;
    check(
        "bending",
        m.bending,
        (0.0..=MAX_BENDING).contains(&m.bending),
        &format!("a non-negative stiffness of at most {MAX_BENDING} N m (fabrics: 1e-7 to 1e-4)"),
    )?;
    check("coupling", m.coupling, true, "a finite buckling factor (N)")?;
    check(
        "bending_damping",
        m.bending_damping,
        m.bending_damping >= 0.0,
        "a non-negative damping coefficient (N s)",
    )?;
    let s = m.stretching;
    if ![s.k11, s.k12, s.k22, s.k33]
        .iter()
        .all(|k| k.is_finite() && k.abs() <= MAX_STRETCHING)
        || s.k11 <= 0.0
        || s.k22 <= 0.0
        || s.k33 <= 0.0
        || s.k12 * s.k12 >= s.k11 * s.k22
    {
        return Err(Error::scene(
            label,
            "cloth.material.stretching",
            format!(
                "[k11, k12, k22, k33] must be at most {MAX_STRETCHING:e} N/m (fabrics: 10 to 1e4) with k11, k22, k33 > 0 and k12^2 < k11 k22, got {:?}",
                [s.k11, s.k12, s.k22, s.k33]
            ),
        ));
    }
    let families = std::iter::once(("bending", &m.bending_channel)).chain(
        ["in_plane", "in_plane", "in_plane"]
            .into_iter()
            .zip(&m.in_plane_channels),
    );
    for (family, ch) in families {
        let (f, p) = (format!("{family}_friction"), format!("{family}_plasticity"));
        // A friction spring's or hardening's stiffness is the family's kind
        // of stiffness, with the same bound.
        let (most, unit) = match family {
            "bending" => (MAX_BENDING, "N m"),
            _ => (MAX_STRETCHING, "N/m"),
        };
        let stiffness = format!("non-negative, at most {most:e} {unit}");
        let d = ch.dwell;
        check(
            &format!("{f}.stiffness"),
            d.stiffness,
            (0.0..=most).contains(&d.stiffness),
            &stiffness,
        )?;
        check(&format!("{f}.eps_0"), d.eps_0, d.eps_0 >= 0.0, "non-negative")?;
        check(
            &format!("{f}.eps_inf"),
            d.eps_inf,
            d.eps_inf >= d.eps_0,
            "at least eps_0",
        )?;
        check(&format!("{f}.tau"), d.tau, d.tau > 0.0, "a positive time (s)")?;
        let decades = "a number of decades from 0 (off) to 6";
        check(
            &format!("{f}.spread"),
            d.spread,
            (0.0..=MAX_SPREAD).contains(&d.spread),
            decades,
        )?;
        check(
            &format!("{f}.scatter"),
            d.scatter,
            (0.0..=MAX_SPREAD).contains(&d.scatter),
            decades,
        )?;
        check(
            &format!("{f}.scatter_skew"),
            d.scatter_skew,
            (-MAX_SKEW..=MAX_SKEW).contains(&d.scatter_skew),
            "an exponent from -2 to 2 (0: even in log time)",
        )?;
        let a = ch.dahl;
        // Dahl's threshold is in the channel's stress units (Miguel's),
        // bounded alike.
        let stress = format!("non-negative, at most {most:e}");
        check(&format!("{f}.dahl_a"), a.a, (0.0..=most).contains(&a.a), &stress)?;
        check(&format!("{f}.dahl_b"), a.b, (0.0..=most).contains(&a.b), &stress)?;
        check(&format!("{f}.dahl_tau"), a.tau, a.tau > 0.0, "positive")?;
        let h = ch.hardening;
        check(&format!("{p}.k_h0"), h.k_h0, (0.0..=most).contains(&h.k_h0), &stiffness)?;
        check(&format!("{p}.g"), h.g, (0.0..1.0).contains(&h.g), "in [0, 1)")?;
        check(&format!("{p}.tau"), h.tau, h.tau > 0.0, "a positive time (s)")?;
        check(
            &format!("{p}.spread"),
            h.spread,
            (0.0..=MAX_SPREAD).contains(&h.spread),
            decades,
        )?;
        check(
            &format!("{p}.yield_strain"),
            h.yield_strain,
            h.yield_strain >= 0.0,
            "non-negative",
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A numeric NaN or infinity cannot come from JSON (the parser refuses
    /// it, and `--set x=NaN` arrives as a string), but a material built in
    /// code can hold one: every field refuses it, named, with the value.
    #[test]
    fn every_parameter_refuses_a_numeric_nan_or_infinity() {
        type Field = (&'static str, fn(&mut Material) -> &mut f64);
        let mut fields: Vec<Field> = vec![
            ("density", |m| &mut m.density),
            ("bending", |m| &mut m.bending),
            ("coupling", |m| &mut m.coupling),
            ("bending_damping", |m| &mut m.bending_damping),
            ("stretching", |m| &mut m.stretching.k11),
            ("stretching", |m| &mut m.stretching.k12),
            ("stretching", |m| &mut m.stretching.k22),
            ("stretching", |m| &mut m.stretching.k33),
        ];
        macro_rules! channel {
            ($family:literal, $($ch:tt)+) => {
                fields.extend([
                    (concat!($family, "_friction.stiffness"), (|m| &mut m.$($ch)+.dwell.stiffness) as fn(&mut Material) -> &mut f64),
                    (concat!($family, "_friction.eps_0"), |m| &mut m.$($ch)+.dwell.eps_0),
                    (concat!($family, "_friction.eps_inf"), |m| &mut m.$($ch)+.dwell.eps_inf),
                    (concat!($family, "_friction.tau"), |m| &mut m.$($ch)+.dwell.tau),
                    (concat!($family, "_friction.spread"), |m| &mut m.$($ch)+.dwell.spread),
                    (concat!($family, "_friction.dahl_a"), |m| &mut m.$($ch)+.dahl.a),
                    (concat!($family, "_friction.dahl_b"), |m| &mut m.$($ch)+.dahl.b),
                    (concat!($family, "_friction.dahl_tau"), |m| &mut m.$($ch)+.dahl.tau),
                    (concat!($family, "_plasticity.k_h0"), |m| &mut m.$($ch)+.hardening.k_h0),
                    (concat!($family, "_plasticity.g"), |m| &mut m.$($ch)+.hardening.g),
                    (concat!($family, "_plasticity.tau"), |m| &mut m.$($ch)+.hardening.tau),
                    (concat!($family, "_plasticity.spread"), |m| &mut m.$($ch)+.hardening.spread),
                    (concat!($family, "_plasticity.yield_strain"), |m| &mut m.$($ch)+.hardening.yield_strain),
                ])
            };
        }
        channel!("bending", bending_channel);
        channel!("in_plane", in_plane_channels[0]);
        channel!("in_plane", in_plane_channels[1]);
        channel!("in_plane", in_plane_channels[2]);
        let cotton = material::preset("cotton").unwrap();
        validate("test.json", &cotton).unwrap();
        for (name, field) in fields {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut m = cotton;
                *field(&mut m) = bad;
                let e = validate("test.json", &m).unwrap_err().to_string();
                let shown = format!("{bad:?}");
                assert!(
                    e.contains(&format!("cloth.material.{name}")) && e.contains(&shown),
                    "{name} = {bad}: {e}"
                );
            }
        }
    }
}
