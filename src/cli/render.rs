//! `crease render` and `crease plot`: pictures of frames, and charts of metrics.

use super::{BackendChoice, make_renderer};
use anyhow::{Result, bail};
use clap::ValueEnum;
use crease::render::SUPERSAMPLE;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RenderArgs {
    /// A run folder or an OBJ file.
    pub path: PathBuf,
    /// Default: DIR/render.png, or the OBJ's path with .png.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Frame number of a run folder (default: the last).
    #[arg(long)]
    pub frame: Option<usize>,
    /// Picture size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1024x768")]
    pub size: String,
    /// Direction from the cloth to the camera, X,Y,Z.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub view: Option<Vec<f64>>,
    #[arg(long, value_enum, default_value = "plain")]
    pub colour: ColourChoice,
    /// Where to draw: auto (the GPU when an adapter opens), gpu, or cpu
    /// (the rasterizer twin of the render shader).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendChoice,
    /// Draw the cloth alone (a run folder's obstacles are drawn where they
    /// were at the frame's time, from the scene the run was loaded from).
    #[arg(long)]
    pub no_obstacles: bool,
}

pub fn render(args: RenderArgs) -> Result<()> {
    let RenderArgs {
        path,
        out,
        frame,
        size,
        view,
        colour,
        backend,
        no_obstacles,
    } = args;
    super::check_input("PATH", &path)?;
    let (width, height) = parse_size(&size)?;
    if let Some(out) = &out {
        super::check_output("--out", out, false)?;
    }
    let source = crease::render::source::load(&path, frame)?;
    let scene = match no_obstacles || !path.is_dir() {
        true => None,
        false => run_scene(&path)?,
    };
    let view = match view.as_deref() {
        Some(&[x, y, z]) => glam::DVec3::new(x, y, z),
        Some(other) => bail!("argument --view: {other:?} is not three numbers X,Y,Z"),
        None => crease::render::VIEW,
    };
    let colour = match colour {
        ColourChoice::Plain => crease::render::Colour::Plain,
        ColourChoice::Bend => crease::render::Colour::Bend,
    };
    let renderer = make_renderer(backend)?;
    let image = crease::render::render(&renderer, &source, scene.as_ref(), colour, view, width, height)?;
    let out = out.unwrap_or_else(|| {
        if path.is_dir() {
            path.join("render.png")
        } else {
            path.with_extension("png")
        }
    });
    image.save(&out)?;
    println!(
        "wrote {} ({}, {})",
        out.display(),
        source.path.display(),
        renderer.name()
    );
    Ok(())
}

/// The scene of run folder `dir`, when it has obstacles to draw.
fn run_scene(dir: &std::path::Path) -> Result<Option<crease::scene::Scene>> {
    let Some(key) = crease::output::SceneKey::read_run(dir)? else {
        println!(
            "obstacles not drawn: {} has no run.json (written by an older crease)",
            dir.display()
        );
        return Ok(None);
    };
    let scene = key.load(&crease::output::SceneKey::run_path(dir)).map_err(|e| {
        anyhow::anyhow!(
            "{e}\n(the obstacles of {} cannot be placed; --no-obstacles draws the cloth alone)",
            dir.display()
        )
    })?;
    Ok((!scene.obstacles.is_empty()).then_some(scene))
}

#[derive(clap::Args)]
pub struct PlotArgs {
    /// A run folder, or a metrics.csv.
    pub dir: PathBuf,
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Draw this column in a panel of its own (repeatable).
    #[arg(long = "column", value_name = "NAME")]
    pub columns: Vec<String>,
}

pub fn plot(args: PlotArgs) -> Result<()> {
    let PlotArgs { dir, out, columns } = args;
    super::check_input("DIR", &dir)?;
    if let Some(out) = &out {
        super::check_output("--out", out, false)?;
    }
    let path = crease::plot::plot_run(&dir, out.as_deref(), &columns)?;
    println!("wrote {}", path.display());
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColourChoice {
    /// Cloth colours: the wrinkles in light and shade.
    Plain,
    /// |theta - theta_rest| per vertex (run folders: against frame 0).
    Bend,
}

/// `WIDTHxHEIGHT`, each side at most [`MAX_SIDE`].
fn parse_size(size: &str) -> crease::Result<(u32, u32)> {
    let bad = |why: String| crease::Error::Argument {
        arg: "--size".into(),
        message: format!("{size:?} {why}"),
    };
    let form = || bad("is not WIDTHxHEIGHT (e.g. 1024x768)".into());
    let (w, h) = size.split_once('x').ok_or_else(form)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| form())?,
        h.trim().parse().map_err(|_| form())?,
    );
    if w == 0 || h == 0 {
        return Err(form());
    }
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(bad(format!(
            "is too large: at most {MAX_SIDE} a side (drawn {SUPERSAMPLE}x supersampled, {} pixels, the \
             largest texture most GPUs draw)",
            MAX_SIDE * SUPERSAMPLE
        )));
    }
    Ok((w, h))
}

/// The largest picture side: 16384 pixels supersampled.
const MAX_SIDE: u32 = 16384 / SUPERSAMPLE;
