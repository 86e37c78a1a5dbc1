//! `crease fit recovery`: the core model's time parameters (Gong et al.
//! 2025: the bending channel's dwell friction `eps_0`, `eps_inf`, `tau`,
//! Eq. 7-8, and hardening plasticity `K_h0`, `g`, `tau_p`, `eps_Y0`, Eq.
//! 10-14) from a table of standard crease-recovery measurements (ISO 2313 /
//! AATCC 66: recovery angle against the time a folded specimen was
//! pressed, and the load).
//!
//! Unlike the Dahl fits (`stretch.rs`, `bending.rs`), no measurement here
//! has a closed form: each row is a simulated specimen (the scene
//! `crease-recovery`, or the user's), folded, pressed under the row's load
//! for the row's hold in material time, released and read, and the fit
//! is Levenberg-Marquardt on the parameters' logarithms with a
//! forward-difference Jacobian over steps of 10% (widened where that
//! finds no descent), its standard errors from central differences over
//! 30%: a fold's recovery is a sum of hinges that slip or stick, a
//! function of the parameters with steps, so a derivative over round-off
//! would be zero or noise. The errors are local: a second set of
//! parameters that fits as well (measured for the dwell's `eps_inf` and
//! `tau_f`, docs/cli.md) does not show in them.

use super::lm::{Normal, dot, inverse};
use super::read_csv;
use crate::cpu::CpuBackend;
use crate::error::{Error, Result};
use crate::measure::fold::{FoldRows, NO_FOLD};
use crate::model::material::Material;
use crate::scene;
use crate::sim::{SimState, Simulation};
use crate::step::BackendState;
use crate::util::jobs;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The table's header.
pub const HEADER: [&str; 3] = ["hold_s", "load_n", "recovery_deg"];

/// One measurement: a specimen pressed under `load` newtons for `hold`
/// seconds recovered to `angle` degrees. `line` is its line in the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    pub line: usize,
    pub hold: f64,
    pub load: f64,
    pub angle: f64,
}

/// Reads a table of measurements; errors name the file, the line and
/// the column.
pub fn read(path: &Path) -> Result<Vec<Row>> {
    let rows = read_csv(path, &HEADER)?;
    let bad = |line: usize, message: String| Error::File {
        path: path.to_path_buf(),
        message: format!("line {line}: {message}"),
    };
    let mut out = Vec::with_capacity(rows.len());
    for (line, v) in rows {
        let (hold, load, angle) = (v[0], v[1], v[2]);
        if !(hold > 0.0 && hold <= 1e7) {
            return Err(bad(
                line,
                format!("hold_s = {hold}: a hold of more than 0 and at most 1e7 seconds"),
            ));
        }
        if !(load > 0.0 && load <= 1000.0) {
            return Err(bad(
                line,
                format!("load_n = {load}: a load of more than 0 and at most 1000 N (the standard presses with 10 N)"),
            ));
        }
        if !(0.0..=180.0).contains(&angle) {
            return Err(bad(
                line,
                format!("recovery_deg = {angle}: an angle from 0 (folded flat) to 180 (open flat)"),
            ));
        }
        out.push(Row {
            line,
            hold,
            load,
            angle,
        });
    }
    if out.is_empty() {
        return Err(bad(2, "no measurements after the header".into()));
    }
    Ok(out)
}

/// A fitted parameter of the bending channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// Dwell friction's threshold right after a slip (Eq. 8).
    Eps0,
    /// Its threshold after an infinitely long stick.
    EpsInf,
    /// Its dwell time constant, s.
    TauF,
    /// The initial hardening modulus (Eq. 12).
    KH0,
    /// How far the modulus decays, in [0, 1).
    G,
    /// The decay's time constant, s.
    TauP,
    /// The initial yield strain.
    Yield,
}

impl Param {
    pub const ALL: [Param; 7] = [
        Param::Eps0,
        Param::EpsInf,
        Param::TauF,
        Param::KH0,
        Param::G,
        Param::TauP,
        Param::Yield,
    ];

    /// The name `--free` takes and the report prints.
    pub fn name(self) -> &'static str {
        match self {
            Param::Eps0 => "eps_0",
            Param::EpsInf => "eps_inf",
            Param::TauF => "tau_f",
            Param::KH0 => "k_h0",
            Param::G => "g",
            Param::TauP => "tau_p",
            Param::Yield => "yield",
        }
    }

    /// Its place in `Param::ALL` and `Values`.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn parse(name: &str) -> Option<Param> {
        Param::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The scene field it sets (docs/scenes.md, `cloth.material`).
    pub fn field(self) -> &'static str {
        match self {
            Param::Eps0 => "bending_friction.eps_0",
            Param::EpsInf => "bending_friction.eps_inf",
            Param::TauF => "bending_friction.tau",
            Param::KH0 => "bending_plasticity.k_h0",
            Param::G => "bending_plasticity.g",
            Param::TauP => "bending_plasticity.tau",
            Param::Yield => "bending_plasticity.yield_strain",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Param::TauF | Param::TauP => "s",
            Param::KH0 => "N m",
            _ => "",
        }
    }

    /// Its value in a material.
    pub fn of(self, m: &Material) -> f64 {
        let (dwell, hardening) = (&m.bending_channel.dwell, &m.bending_channel.hardening);
        match self {
            Param::Eps0 => dwell.eps_0,
            Param::EpsInf => dwell.eps_inf,
            Param::TauF => dwell.tau,
            Param::KH0 => hardening.k_h0,
            Param::G => hardening.g,
            Param::TauP => hardening.tau,
            Param::Yield => hardening.yield_strain,
        }
    }

    /// The coordinate the fit moves: the logarithm of a positive
    /// parameter, `ln(1 - g)` for `g` (so that a step is relative and `g`
    /// stays below 1).
    fn coordinate(self, value: f64) -> f64 {
        match self {
            Param::G => (1.0 - value).ln(),
            _ => value.ln(),
        }
    }

    fn value_at(self, u: f64) -> f64 {
        match self {
            Param::G => 1.0 - u.exp(),
            _ => u.exp(),
        }
    }

    /// `d value / d u`, for the standard error.
    fn slope(self, u: f64) -> f64 {
        match self {
            Param::G => -u.exp(),
            _ => u.exp(),
        }
    }

    /// Where `u` may go: `g` in [0, 1 - 1e-6].
    fn clamp(self, u: f64) -> f64 {
        match self {
            Param::G => u.clamp(1e-6f64.ln(), 0.0),
            _ => u,
        }
    }
}

/// The simulated test: a scene with the crease-recovery test's timeline
/// (phases `hold` and `lift`, a load `weight`), the user's overrides, and
/// how many specimens run at once (one thread each).
pub struct Specimen {
    pub scene: String,
    pub sets: Vec<String>,
    pub jobs: usize,
}

/// The seven parameters' values, in `Param::ALL`'s order.
pub type Values = [f64; 7];

impl Specimen {
    /// The scene with `values` and, for a row, its load and hold.
    fn scene(&self, values: &Values, load: f64, hold: Option<f64>) -> Result<scene::Scene> {
        let mut sets = self.sets.clone();
        sets.extend(
            Param::ALL
                .iter()
                .zip(values)
                .map(|(p, v)| format!("cloth.material.{}={v:?}", p.field())),
        );
        sets.push(format!("loads.weight.force=[0, {:?}, 0]", -load));
        if let Some(hold) = hold {
            sets.push(format!("timeline.hold.material_time={hold:?}"));
        }
        scene::load(&self.scene, &sets)
    }

    /// The scene's own values of the seven parameters (the fit's start),
    /// after checking that it is a crease-recovery test.
    pub fn start(&self) -> Result<Values> {
        let s = scene::load(&self.scene, &self.sets)?;
        for phase in ["hold", "lift"] {
            if !s.phases.iter().any(|p| p.name == phase) {
                return Err(Error::scene(
                    &self.scene,
                    "timeline",
                    format!(
                        "has no phase `{phase}`: the fit needs the crease-recovery test's timeline (`crease run crease-recovery` shows it)"
                    ),
                ));
            }
        }
        if FoldRows::of(&s.cloth.mesh.positions).is_none() {
            return Err(Error::scene(&self.scene, "cloth.mesh", NO_FOLD));
        }
        Ok(Param::ALL.map(|p| p.of(&s.cloth.material)))
    }

    fn simulation(scene: scene::Scene) -> Simulation {
        let backend = CpuBackend::with_threads(Arc::clone(&scene.cloth), 1);
        Simulation::new(scene, Box::new(backend))
    }

    /// The recovery angle of every row for each of `sets` of values. Rows
    /// of one load share the fold and the press, simulated once per load
    /// up to the hold and continued from there per row.
    pub fn angles(&self, sets: &[Values], rows: &[Row]) -> Result<Vec<Vec<f64>>> {
        // An error names the values and the row it came from.
        let context = |values: &Values, row: Option<&Row>, e: Error| {
            let at = Param::ALL
                .iter()
                .zip(values)
                .map(|(p, v)| format!("{} {v:.4e}", p.name()))
                .collect::<Vec<_>>()
                .join(", ");
            let row = row.map_or(String::new(), |r| format!(" for line {} of the table", r.line));
            Error::Step(format!("simulating the crease-recovery specimen at {at}{row}: {e}"))
        };
        let mut loads: Vec<f64> = rows.iter().map(|r| r.load).collect();
        loads.sort_by(f64::total_cmp);
        loads.dedup();
        let pressed = jobs::each(self.jobs, sets.len() * loads.len(), |k| {
            let (values, load) = (&sets[k / loads.len()], loads[k % loads.len()]);
            let press = || -> Result<_> {
                let mut sim = Self::simulation(self.scene(values, load, None)?);
                while sim.phase_name() != "hold" {
                    sim.step()?;
                }
                sim.save_state()
            };
            press().map_err(|e| context(values, None, e))
        })?;
        let ends = jobs::each(self.jobs, sets.len() * rows.len(), |k| {
            let (s, row) = (k / rows.len(), &rows[k % rows.len()]);
            let recover = || -> Result<f64> {
                let scene = self.scene(&sets[s], row.load, Some(row.hold))?;
                let fold = FoldRows::of(&scene.cloth.mesh.positions)
                    .ok_or_else(|| Error::scene(&self.scene, "cloth.mesh", NO_FOLD))?;
                let l = loads.iter().position(|&l| l == row.load).unwrap_or(0);
                let (state, backend): &(SimState, BackendState) = &pressed[s * loads.len() + l];
                let mut sim = Self::simulation(scene);
                sim.restore_state(state, backend)?;
                while !sim.done() {
                    sim.step()?;
                }
                Ok(fold.angle(&sim.backend().positions()?))
            };
            recover().map_err(|e| context(&sets[s], Some(row), e))
        })?;
        Ok(ends.chunks(rows.len().max(1)).map(<[f64]>::to_vec).collect())
    }
}

/// A finished fit.
#[derive(Clone, Debug)]
pub struct RecoveryFit {
    /// The seven values (the fitted ones and the scene's own).
    pub values: Values,
    /// Which were fitted.
    pub free: Vec<Param>,
    /// Standard errors of the fitted ones, in `free`'s order: `None`
    /// where no row's angle moves with the parameter (it is not
    /// determined), or where there are no more rows than parameters.
    pub standard_errors: Vec<Option<f64>>,
    /// The correlation of each pair of fitted parameters' estimates (in
    /// their logarithms): near +-1, the table determines a combination of
    /// the two more than each.
    pub correlations: Vec<(Param, Param, f64)>,
    /// How far the angles move with each fitted parameter at the fit: the
    /// root mean square over the rows of `d angle / d ln p` (for `g`, `d
    /// ln (1 - g)`) over +-30%, degrees. Next to the residuals it says
    /// which parameters the table can see.
    pub sensitivities: Vec<f64>,
    /// The scene's own values, where the fit started.
    pub start: Values,
    /// Each row's simulated angle at the fit, and its residual (degrees).
    pub angles: Vec<f64>,
    pub residuals: Vec<f64>,
    pub rms_residual: f64,
    pub iterations: usize,
    /// Specimens simulated.
    pub simulations: usize,
}

/// The forward differences' step in the fitted coordinates (10%), and
/// the widest it grows to (a factor e^0.9) where no damped step along the
/// narrow differences lowers the cost: on a fold whose hinges lock in
/// steps the angle can be flat over 10% and move over 30%.
const STEP: f64 = 0.1;
const WIDEST_STEP: f64 = 0.9;
/// The central differences' half step for the standard errors (30%).
const WIDE_STEP: f64 = 0.3;

/// Fits the `free` parameters to `rows` from the scene's own values, for
/// at most `max_iterations` Levenberg-Marquardt steps (0: only the angles
/// at the start, and their sensitivities).
pub fn fit(rows: &[Row], specimen: &Specimen, free: &[Param], max_iterations: usize) -> Result<RecoveryFit> {
    let start = specimen.start()?;
    let n = free.len();
    let mut model = Model {
        specimen,
        rows,
        free,
        start,
        cache: HashMap::new(),
        simulations: 0,
    };
    let mut u: Vec<f64> = free.iter().map(|p| p.coordinate(start[p.index()])).collect();
    let mut r = model.residuals(std::slice::from_ref(&u))?.remove(0);
    let mut h = STEP;
    let mut lambda = 1e-2;
    let mut iterations = 0;
    while iterations < max_iterations && n > 0 {
        iterations += 1;
        let normal = Normal::new(&model.jacobian(&u, &r, h)?, &r);
        let mut accepted = None;
        // Damped steps, at most a factor e per parameter, until one lowers
        // the cost.
        for _ in 0..6 {
            let Some(step) = normal.damped_step(lambda) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = (0..n).map(|j| free[j].clamp(u[j] + step[j].clamp(-1.0, 1.0))).collect();
            // A trial the scene refuses (a threshold past its limit) or
            // that blows up is a step too far.
            let rt = model.residuals(std::slice::from_ref(&trial)).map(|mut v| v.remove(0));
            match rt {
                Ok(rt) if cost(&rt) < cost(&r) => {
                    accepted = Some((trial, rt));
                    lambda = (lambda / 3.0).max(1e-6);
                    break;
                }
                _ => lambda *= 4.0,
            }
        }
        let Some((trial, rt)) = accepted else {
            if h < WIDEST_STEP {
                h *= 3.0;
                lambda = 1e-2;
                continue;
            }
            break;
        };
        let (gain, moved) = (
            (cost(&r) - cost(&rt)) / cost(&r).max(1e-300),
            trial.iter().zip(&u).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max),
        );
        u = trial;
        r = rt;
        if gain < 1e-3 || moved < 1e-3 {
            break;
        }
        h = STEP;
    }
    // Standard errors and correlations: s^2 (J^T J)^-1 over the columns
    // some row sees, in u (then through d value / d u), with J by central
    // differences over +-30%: the slope of the angle's trend, where the
    // narrow differences of the search may have caught one hinge's lock
    // (a step) and would give errors far too small.
    let jac = model.central(&u, WIDE_STEP)?;
    let seen: Vec<usize> = (0..n).filter(|&j| jac[j].iter().any(|x| *x != 0.0)).collect();
    let dof = rows.len() as f64 - seen.len() as f64;
    let variance = cost(&r) / dof.max(1.0);
    let jtj: Vec<Vec<f64>> = seen
        .iter()
        .map(|&i| seen.iter().map(|&j| dot(&jac[i], &jac[j])).collect())
        .collect();
    let mut standard_errors = vec![None; n];
    let mut correlations = Vec::new();
    if dof >= 1.0 {
        let columns = inverse(&jtj);
        for (k, &j) in seen.iter().enumerate() {
            let e = columns
                .as_ref()
                .map_or(f64::INFINITY, |c| (variance * c[k][k]).max(0.0).sqrt());
            standard_errors[j] = Some(e * free[j].slope(u[j]).abs());
            for (l, &i) in seen.iter().enumerate().take(k) {
                if let Some(c) = &columns {
                    correlations.push((free[i], free[j], c[l][k] / (c[l][l] * c[k][k]).sqrt()));
                }
            }
        }
    }
    let sensitivities = jac.iter().map(|c| (cost(c) / c.len().max(1) as f64).sqrt()).collect();
    let values = model.values(&u);
    Ok(RecoveryFit {
        values,
        free: free.to_vec(),
        standard_errors,
        correlations,
        sensitivities,
        start,
        angles: r.iter().zip(rows).map(|(x, row)| x + row.angle).collect(),
        rms_residual: (cost(&r) / r.len() as f64).sqrt(),
        residuals: r,
        iterations,
        simulations: model.simulations,
    })
}

/// The residuals as a function of the fitted coordinates, each point
/// simulated once.
struct Model<'a> {
    specimen: &'a Specimen,
    rows: &'a [Row],
    free: &'a [Param],
    start: Values,
    cache: HashMap<Vec<u64>, Vec<f64>>,
    simulations: usize,
}

impl Model<'_> {
    /// The values at `u`; the scene's own, exactly, where `u` has not
    /// moved from them.
    fn values(&self, u: &[f64]) -> Values {
        let mut v = self.start;
        for (p, u) in self.free.iter().zip(u) {
            if *u != p.coordinate(self.start[p.index()]) {
                v[p.index()] = p.value_at(*u);
            }
        }
        v
    }

    /// Simulated less measured angle of each row, at each of `us`.
    fn residuals(&mut self, us: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
        let key = |u: &[f64]| u.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        let mut new: Vec<Vec<f64>> = Vec::new();
        for u in us {
            if !self.cache.contains_key(&key(u)) && !new.contains(u) {
                new.push(u.clone());
            }
        }
        let sets: Vec<Values> = new.iter().map(|u| self.values(u)).collect();
        for (u, angles) in new.iter().zip(self.specimen.angles(&sets, self.rows)?) {
            let r = angles.iter().zip(self.rows).map(|(a, row)| a - row.angle).collect();
            self.cache.insert(key(u), r);
        }
        self.simulations += new.len() * self.rows.len();
        Ok(us.iter().map(|u| self.cache[&key(u)].clone()).collect())
    }

    /// The Jacobian's columns at `u` (residuals `r`), by forward
    /// differences of `h` (backward at `g`'s bound).
    fn jacobian(&mut self, u: &[f64], r: &[f64], h: f64) -> Result<Vec<Vec<f64>>> {
        let probes: Vec<Vec<f64>> = (0..u.len())
            .map(|j| {
                let mut p = u.to_vec();
                p[j] = self.free[j].clamp(u[j] + h);
                if p[j] == u[j] {
                    p[j] = self.free[j].clamp(u[j] - h);
                }
                p
            })
            .collect();
        let at = self.residuals(&probes)?;
        Ok((0..u.len())
            .map(|j| {
                let h = probes[j][j] - u[j];
                at[j].iter().zip(r).map(|(a, b)| (a - b) / h).collect()
            })
            .collect())
    }
}

impl Model<'_> {
    /// The Jacobian's columns at `u` by central differences of `h` (one
    /// side at `g`'s bound).
    fn central(&mut self, u: &[f64], h: f64) -> Result<Vec<Vec<f64>>> {
        let probe = |j: usize, d: f64| {
            let mut p = u.to_vec();
            p[j] = self.free[j].clamp(u[j] + d);
            p
        };
        let probes: Vec<Vec<f64>> = (0..u.len()).flat_map(|j| [probe(j, h), probe(j, -h)]).collect();
        let at = self.residuals(&probes)?;
        Ok((0..u.len())
            .map(|j| {
                let (hi, lo) = (&probes[2 * j], &probes[2 * j + 1]);
                let h = hi[j] - lo[j];
                at[2 * j].iter().zip(&at[2 * j + 1]).map(|(a, b)| (a - b) / h).collect()
            })
            .collect())
    }
}

/// `|r|^2`.
fn cost(r: &[f64]) -> f64 {
    dot(r, r)
}
