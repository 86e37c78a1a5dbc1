//! `metrics.csv`: a frame's row (its columns in order), and the worst
//! frame of the columns a summary reports.

use crate::collide::ContactReport;
use crate::measure::Measures;
use crate::sim::Reaction;
use serde_json::{Value, json};

/// One row of `metrics.csv`.
#[derive(Clone, Debug)]
pub struct MetricsRow {
    pub time: f64,
    pub material_time: f64,
    pub phase: String,
    pub measures: Measures,
    /// Mean PCG iterations over the steps since the previous frame.
    pub cg_iterations: f64,
    /// Relative residual of the last step's solve.
    pub cg_residual: f64,
    /// Mean wall time per step since the previous frame, ms.
    pub ms_per_step: f64,
    /// Per handle: reaction force magnitude (N) and torque (N m).
    pub reactions: Vec<Reaction>,
    /// Obstacle contact in the frame's last step.
    pub contact: ContactReport,
    /// Self-collision pairs in the frame's last step.
    pub proximity_pairs: usize,
    /// Vertices stuck to sticky obstacles.
    pub stuck: usize,
    /// Vertices in the self-collision fail-safe's impact zones, summed
    /// over the steps since the previous frame, when it is on.
    pub impact_vertices: Option<usize>,
    /// The cloth's crossing triangle pairs, when counted.
    pub intersections: Option<usize>,
}

impl MetricsRow {
    /// The row's columns in order; handle columns are `force_<handle>` and
    /// `torque_<handle>`.
    pub fn fields(&self, handles: &[String]) -> Vec<(String, Value)> {
        let m = &self.measures;
        let mut f: Vec<(String, Value)> = vec![
            ("time".into(), json!(round9(self.time))),
            ("phase".into(), json!(self.phase)),
            ("kinetic_energy".into(), json!(m.kinetic_energy)),
            ("membrane_energy".into(), json!(m.membrane_energy)),
            ("bending_energy".into(), json!(m.bending_energy)),
            ("mean_abs_bend".into(), json!(m.mean_abs_bend)),
            ("max_abs_bend".into(), json!(m.max_abs_bend)),
            ("cg_iterations".into(), json!(self.cg_iterations)),
            ("cg_residual".into(), json!(self.cg_residual)),
            ("ms_per_step".into(), json!(self.ms_per_step)),
            ("material_time".into(), json!(round9(self.material_time))),
            ("region_mean_abs_bend".into(), json!(m.region_mean_abs_bend)),
            ("region_max_abs_bend".into(), json!(m.region_max_abs_bend)),
            ("slip_fraction".into(), json!(m.slip_fraction)),
            ("yield_fraction".into(), json!(m.yield_fraction)),
            ("mean_abs_plastic_bend".into(), json!(m.mean_abs_plastic_bend)),
            ("max_abs_plastic_bend".into(), json!(m.max_abs_plastic_bend)),
            ("mean_abs_plastic_in_plane".into(), json!(m.mean_abs_plastic_in_plane)),
            ("max_displacement".into(), json!(m.max_displacement)),
            ("max_edge_strain".into(), json!(m.max_edge_strain)),
            ("min_edge_strain".into(), json!(m.min_edge_strain)),
            ("max_stretch".into(), json!(m.max_stretch)),
            ("contacts".into(), json!(self.contact.contacts)),
            ("penetration".into(), json!(self.contact.penetration)),
            ("unlifted_penetration".into(), json!(self.contact.unlifted)),
            ("edge_penetration".into(), json!(self.contact.edge_penetration)),
            ("resting".into(), json!(self.contact.resting)),
            ("proximity_pairs".into(), json!(self.proximity_pairs)),
            ("stuck".into(), json!(self.stuck)),
        ];
        if let Some(n) = self.impact_vertices {
            f.push(("impact_vertices".into(), json!(n)));
        }
        if let Some(n) = self.intersections {
            f.push(("intersections".into(), json!(n)));
        }
        for (name, r) in handles.iter().zip(&self.reactions) {
            f.push((format!("force_{name}"), json!(r.force.length())));
            f.push((format!("torque_{name}"), json!(r.torque)));
        }
        f
    }

    pub fn header(&self, handles: &[String]) -> String {
        let names: Vec<String> = self.fields(handles).into_iter().map(|(n, _)| n).collect();
        names.join(",")
    }

    pub fn csv(&self, handles: &[String]) -> String {
        let cells: Vec<String> = self
            .fields(handles)
            .into_iter()
            .map(|(_, v)| match v {
                Value::String(s) => s,
                other => other.to_string(),
            })
            .collect();
        cells.join(",")
    }

    /// The row as a JSON object (summary's `final`).
    pub fn json(&self, handles: &[String]) -> Value {
        Value::Object(self.fields(handles).into_iter().collect())
    }
}

/// Times are sums of steps; round them to a nanosecond for display.
fn round9(t: f64) -> f64 {
    (t * 1e9).round() / 1e9
}

/// The columns of `metrics.csv` whose worst frame a summary reports, and
/// the largest of each (the smallest of `min_edge_strain`) over every
/// frame: what a claim on a whole run reads ("no edge stretched past 30%
/// at any frame"), where `final` gives the last frame only.
const WORST: [&str; 7] = [
    "max_edge_strain",
    "min_edge_strain",
    "max_stretch",
    "penetration",
    "unlifted_penetration",
    "edge_penetration",
    "intersections",
];

/// Each of [`WORST`]'s columns in `csv` (the run's `metrics.csv`, every
/// frame so far, a resumed run's earlier ones included) at its worst frame;
/// a column the file lacks (`intersections` without
/// `--check-intersections`) is left out.
pub(super) fn worst(csv: &str) -> Value {
    let mut lines = csv.lines();
    let names: Vec<&str> = lines.next().map_or(Vec::new(), |h| h.split(',').collect());
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap_or(f64::NAN)).collect())
        .collect();
    let mut out = serde_json::Map::new();
    for name in WORST {
        let Some(k) = names.iter().position(|n| *n == name) else {
            continue;
        };
        let values = rows.iter().filter_map(|r| r.get(k)).copied().filter(|v| v.is_finite());
        let value = match name {
            "min_edge_strain" => values.fold(f64::INFINITY, f64::min),
            _ => values.fold(f64::NEG_INFINITY, f64::max),
        };
        if value.is_finite() {
            out.insert(name.to_string(), json!(value));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worst frame of each column, whichever frame it is on; a cell
    /// that is not a number and a column the run did not write are
    /// passed over.
    #[test]
    fn the_summary_reports_each_column_at_its_worst_frame() {
        let csv = "time,phase,max_edge_strain,min_edge_strain,unlifted_penetration\n\
                   0,pose,0.01,-0.02,0\n\
                   0.1,hold,0.58,-0.30,0.004\n\
                   0.2,bare,0.05,x,0\n";
        let w = worst(csv);
        assert_eq!(w["max_edge_strain"], json!(0.58));
        assert_eq!(w["min_edge_strain"], json!(-0.30));
        assert_eq!(w["unlifted_penetration"], json!(0.004));
        assert!(w.get("intersections").is_none() && w.get("edge_penetration").is_none());
    }
}
