//! Plots of a run's `metrics.csv` over time (`crease plot DIR`), and the
//! line charts experiments draw: PNG images drawn with plotters, with the
//! phases of the timeline marked.

use crate::error::{Error, Result};
use crate::util::{Image, Table, register_font};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// A run's `metrics.csv`: its numeric columns and each row's phase.
#[derive(Clone, Debug)]
pub struct Metrics {
    pub path: PathBuf,
    pub names: Vec<String>,
    /// `columns[k][row]` is column `names[k]`'s value (NaN where the cell is
    /// not a number).
    pub columns: Vec<Vec<f64>>,
    pub phases: Vec<String>,
}

impl Metrics {
    pub fn read(path: &Path) -> Result<Metrics> {
        let table = Table::read(path)?;
        if table.names.is_empty() {
            return Err(table.error("empty file (a run writes a header and one row per frame)".into()));
        }
        table.column("time", "a crease metrics.csv")?;
        let phase = table.column("phase", "a crease metrics.csv")?;
        let names = table.names.clone();
        let mut columns = vec![Vec::new(); names.len()];
        let mut phases = Vec::new();
        for (i, cells) in table.rows().enumerate() {
            if cells.len() != names.len() {
                return Err(table.error(format!(
                    "line {}: {} cells, the header has {}",
                    i + 2,
                    cells.len(),
                    names.len()
                )));
            }
            for (k, cell) in cells.iter().enumerate() {
                columns[k].push(cell.parse().unwrap_or(f64::NAN));
            }
            phases.push(cells[phase].to_string());
        }
        if phases.is_empty() {
            return Err(table.error("no rows: the run wrote no frame".into()));
        }
        Ok(Metrics {
            path: path.to_path_buf(),
            names,
            columns,
            phases,
        })
    }

    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(&self.columns[k])
    }

    /// The times at which a new phase starts, with its name.
    fn phase_starts(&self, time: &[f64]) -> Vec<(f64, String)> {
        let mut out = Vec::new();
        for (i, p) in self.phases.iter().enumerate() {
            if i == 0 || *p != self.phases[i - 1] {
                out.push((time[i], p.clone()));
            }
        }
        out
    }
}

/// One chart: a title and the columns drawn in it.
#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub columns: Vec<String>,
}

impl Panel {
    fn new(title: &str, columns: &[&str]) -> Panel {
        Panel {
            title: title.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
        }
    }
}

/// The standard panels: energies, bending angles, the handles' reaction
/// torques (or forces), and the slip and yield fractions. Columns a run did
/// not write are left out, and so are panels left empty.
pub fn standard_panels(m: &Metrics) -> Vec<Panel> {
    let handles = |prefix: &str| -> Vec<String> { m.names.iter().filter(|n| n.starts_with(prefix)).cloned().collect() };
    let mut reactions = handles("torque_");
    let mut reaction_title = "Reaction torque (N m)";
    if reactions.is_empty() {
        reactions = handles("force_");
        reaction_title = "Reaction force (N)";
    }
    let panels = vec![
        Panel::new("Energy (J)", &["kinetic_energy", "membrane_energy", "bending_energy"]),
        Panel::new(
            "Bending angle (rad)",
            &[
                "mean_abs_bend",
                "max_abs_bend",
                "region_mean_abs_bend",
                "region_max_abs_bend",
                "max_abs_plastic_bend",
            ],
        ),
        Panel {
            title: reaction_title.to_string(),
            columns: reactions,
        },
        Panel::new("Fraction of channels", &["slip_fraction", "yield_fraction"]),
    ];
    panels
        .into_iter()
        .map(|p| Panel {
            columns: p
                .columns
                .into_iter()
                .filter(|c| m.column(c).is_some_and(|v| v.iter().any(|x| x.is_finite())))
                .collect(),
            ..p
        })
        .filter(|p| !p.columns.is_empty())
        .collect()
}

/// One panel per named column; an unknown name is an error that lists the
/// columns there are.
pub fn column_panels(m: &Metrics, columns: &[String]) -> Result<Vec<Panel>> {
    columns
        .iter()
        .map(|c| match m.column(c) {
            Some(_) => Ok(Panel {
                title: c.clone(),
                columns: vec![c.clone()],
            }),
            None => Err(Error::Argument {
                arg: "--column".into(),
                message: format!(
                    "{} has no column `{c}`; it has: {}",
                    m.path.display(),
                    m.names.join(", ")
                ),
            }),
        })
        .collect()
}

const PANEL_SIZE: (u32, u32) = (800, 450);

/// Draws `panels` over time, two across, with the phases marked.
pub fn draw_metrics(m: &Metrics, panels: &[Panel]) -> Result<Image> {
    let time = m.column("time").unwrap_or_default();
    let phases = m.phase_starts(time);
    let charts: Vec<Chart> = panels
        .iter()
        .map(|p| Chart {
            title: p.title.clone(),
            x_label: "time (s)".into(),
            log_x: false,
            series: p
                .columns
                .iter()
                .map(|c| Series {
                    name: c.clone(),
                    points: time
                        .iter()
                        .zip(m.column(c).unwrap_or_default())
                        .map(|(t, v)| (*t, *v))
                        .collect(),
                    markers: false,
                })
                .collect(),
            marks: phases.clone(),
        })
        .collect();
    draw_charts(&charts, 2)
}

/// A line chart for `draw_charts`.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    /// Logarithmic x axis (the values must be positive).
    pub log_x: bool,
    pub series: Vec<Series>,
    /// Labelled vertical lines (phase starts).
    pub marks: Vec<(f64, String)>,
}

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    /// The line's points; a non-finite one (NAN) breaks it into pieces.
    pub points: Vec<(f64, f64)>,
    /// Draw a dot at each point.
    pub markers: bool,
}

/// A tick label: plain for moderate magnitudes, scientific otherwise.
fn tick(v: f64) -> String {
    if v == 0.0 || (1e-2..1e5).contains(&v.abs()) {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:.2e}")
    }
}

/// The largest magnitude an axis reaches: plotters' search for tick marks
/// never ends on an axis whose width overflows (a column spanning
/// +-1e308); points past it are drawn at the edge.
const AXIS_LIMIT: f64 = 1e300;

/// The range of `values` (finite ones, held within `AXIS_LIMIT`), widened
/// when empty or flat.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(-AXIS_LIMIT, AXIS_LIMIT))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        0.05 * hi - 0.05 * lo
    } else {
        lo.abs().max(1e-12) * 0.1
    };
    (lo - pad, hi + pad)
}

/// Draws `charts` in a grid `across` wide.
pub fn draw_charts(charts: &[Chart], across: usize) -> Result<Image> {
    register_font();
    let across = across.clamp(1, charts.len().max(1));
    let down = charts.len().div_ceil(across).max(1);
    let mut image = Image::new(PANEL_SIZE.0 * across as u32, PANEL_SIZE.1 * down as u32);
    let failed = |e: String| Error::File {
        path: "(plot)".into(),
        message: format!("drawing the chart: {e}"),
    };
    {
        let root = BitMapBackend::with_buffer(&mut image.rgb, (image.width, image.height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| failed(e.to_string()))?;
        for (area, chart) in root.split_evenly((down, across)).iter().zip(charts) {
            draw_chart(area, chart).map_err(|e| failed(e.to_string()))?;
        }
        root.present().map_err(|e| failed(e.to_string()))?;
    }
    Ok(image)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw_chart(area: &Area, chart: &Chart) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let points = || chart.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = if chart.log_x {
        // Padded by a factor, in log space.
        let (lo, hi) = range(points().map(|p| p.0).filter(|x| *x > 0.0).map(f64::ln));
        (lo.exp(), hi.exp())
    } else {
        range(points().map(|p| p.0))
    };
    let (y0, y1) = range(points().map(|p| p.1));
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&chart.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80);
    // The two axis kinds are different types; the drawing is the same.
    macro_rules! draw {
        ($ctx:expr) => {{
            let mut ctx = $ctx;
            ctx.configure_mesh()
                .x_desc(chart.x_label.as_str())
                .label_style(("sans-serif", 15))
                .x_label_formatter(&|v| tick(*v))
                .y_label_formatter(&|v| tick(*v))
                .draw()?;
            for (t, name) in &chart.marks {
                let line = [(*t, y0), (*t, y1)];
                ctx.draw_series(LineSeries::new(line, BLACK.mix(0.25)))?;
                ctx.draw_series(std::iter::once(Text::new(
                    name.clone(),
                    (*t, y1),
                    ("sans-serif", 14).into_font().color(&BLACK.mix(0.6)),
                )))?;
            }
            for (i, s) in chart.series.iter().enumerate() {
                let colour = Palette99::pick(i).to_rgba();
                // A point that cannot be drawn (non-finite, or not positive
                // on a log axis) breaks the line.
                let drawable = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite() && (!chart.log_x || p.0 > 0.0);
                for (j, run) in s.points.split(|p| !drawable(p)).filter(|r| !r.is_empty()).enumerate() {
                    // Segment by segment: plotters mitres the joins of a wide
                    // polyline, and a path that turns back on itself (a
                    // hysteresis loop) would throw a spike off the chart.
                    let segments = run
                        .windows(2)
                        .map(|w| PathElement::new(w.to_vec(), colour.stroke_width(2)));
                    let line = ctx.draw_series(segments)?;
                    if j == 0 {
                        line.label(s.name.as_str())
                            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
                    }
                    if s.markers {
                        ctx.draw_series(run.iter().map(|p| Circle::new(*p, 4, colour.filled())))?;
                    }
                }
            }
            ctx.configure_series_labels()
                .label_font(("sans-serif", 15))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .position(SeriesLabelPosition::UpperRight)
                .draw()?;
        }};
    }
    if chart.log_x {
        draw!(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?);
    } else {
        draw!(builder.build_cartesian_2d(x0..x1, y0..y1)?);
    }
    Ok(())
}

/// `crease plot`: the metrics of run folder `dir` (or a metrics.csv) as a
/// PNG at `out` (default `DIR/metrics.png`); returns where it went.
pub fn plot_run(dir: &Path, out: Option<&Path>, columns: &[String]) -> Result<PathBuf> {
    let csv = if dir.is_dir() {
        dir.join("metrics.csv")
    } else {
        dir.to_path_buf()
    };
    if !csv.exists() {
        return Err(Error::File {
            path: csv,
            message: "not found: give a run folder (one `crease run` wrote) or its metrics.csv".into(),
        });
    }
    let metrics = Metrics::read(&csv)?;
    let panels = if columns.is_empty() {
        standard_panels(&metrics)
    } else {
        column_panels(&metrics, columns)?
    };
    let image = draw_metrics(&metrics, &panels)?;
    let out = match out {
        Some(p) => p.to_path_buf(),
        None => csv.with_file_name("metrics.png"),
    };
    image.save(&out)?;
    Ok(out)
}
