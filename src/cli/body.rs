//! `crease body`: a clip of the built-in mannequin written as the OBJ
//! sequence a user would export from Blender.

use anyhow::{Result, bail};
use crease::figure::clips::{Clip, Timing};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct BodyArgs {
    /// a-pose, lift-leg, sit or bend-arms.
    pub clip: String,
    /// The folder for body0001.obj, body0002.obj, ...
    #[arg(long)]
    pub out: PathBuf,
    /// Frames per second.
    #[arg(long, default_value_t = 24.0)]
    pub fps: f64,
    /// Seconds to reach the pose, to hold it, and to come back.
    #[arg(long, default_value_t = 1.0)]
    pub ramp: f64,
    #[arg(long, default_value_t = 0.5)]
    pub hold: f64,
    #[arg(long, default_value_t = 1.0)]
    pub back: f64,
}

pub fn body(args: BodyArgs) -> Result<()> {
    let clip = Clip::named(&args.clip).map_err(anyhow::Error::msg)?;
    for (name, v) in [("--fps", args.fps), ("--ramp", args.ramp), ("--back", args.back)] {
        if !(v.is_finite() && v > 0.0) {
            bail!("argument {name}: must be a positive number, got {v}");
        }
    }
    if !(args.hold.is_finite() && args.hold >= 0.0) {
        bail!(
            "argument --hold: must be a non-negative number of seconds, got {}",
            args.hold
        );
    }
    super::check_output("--out", &args.out, true)?;
    let timing = Timing {
        ramp: args.ramp,
        hold: args.hold,
        back: args.back,
    };
    if let Err(m) = clip.frames(&timing, args.fps) {
        bail!("argument --fps: {m}");
    }
    let frames = crease::figure::write_clip(clip, &timing, args.fps, &args.out)?;
    println!(
        "wrote {frames} frames of {} to {} (body0001.obj ...; {} fps; use as {{\"sequence\": {{\"path\": \"body####.obj\", \"fps\": {}}}}})",
        clip.name(),
        args.out.display(),
        args.fps,
        args.fps
    );
    Ok(())
}
