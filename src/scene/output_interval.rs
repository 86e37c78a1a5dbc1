//! The output's frame interval: `output.frame_interval` or `output.fps`,
//! checked against the step.

use super::schema::OutputSpec;

/// The seconds between output frames: `frame_interval` or `1 / fps` (not
/// both), a whole number of steps of `dt`, else an error (field, message)
/// that says which `dt` would fit.
pub(super) fn output_interval(o: &OutputSpec, dt: f64) -> std::result::Result<f64, (&'static str, String)> {
    let (field, interval) = match (o.frame_interval, o.fps) {
        (Some(_), Some(_)) => {
            return Err((
                "output",
                "gives both frame_interval and fps: give one (fps = 1 / frame_interval; with --set, clear the \
                 other: --set output.frame_interval=null)"
                    .into(),
            ));
        }
        (None, Some(fps)) if fps.is_finite() && fps > 0.0 => ("output.fps", 1.0 / fps),
        (None, Some(fps)) => {
            return Err((
                "output.fps",
                format!("must be a positive number of frames per second, got {fps}"),
            ));
        }
        (Some(t), None) if t.is_finite() && t > 0.0 => ("output.frame_interval", t),
        (Some(t), None) => {
            return Err((
                "output.frame_interval",
                format!("must be a positive number of seconds, got {t}"),
            ));
        }
        (None, None) => ("output.frame_interval", 0.01),
    };
    let steps = interval / dt;
    if steps.round() >= 1.0 && (steps - steps.round()).abs() <= 1e-6 * steps {
        return Ok(interval);
    }
    // To the nanosecond: enough to pick a dt, short to read.
    let ns = |t: f64| (t * 1e9).round() / 1e9;
    let fits = |k: f64| format!("dt = {} ({k} steps a frame)", ns(interval / k));
    let options = match steps.floor() >= 1.0 {
        true => format!("{} or {}", fits(steps.ceil()), fits(steps.floor())),
        false => fits(1.0),
    };
    Err((
        field,
        format!(
            "puts a frame every {} s, which is {steps:.4} steps of dt = {dt} s; a frame must be a whole number \
             of steps: use {options}",
            ns(interval)
        ),
    ))
}
