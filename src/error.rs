//! The library's one error type. Every message names the file, field or element
//! at fault and, where there is one, what to do about it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scene file that cannot be read, parsed or validated.
    #[error("scene {file}: {field}: {message}")]
    Scene {
        file: String,
        field: String,
        message: String,
    },
    /// A mesh that cannot be used for simulation.
    #[error("mesh {source_name}: {message}")]
    Mesh { source_name: String, message: String },
    /// A simulation step that produced non-finite values or could not proceed.
    #[error("simulation: {0}")]
    Step(String),
    /// The GPU: no adapter, a shader that does not compile, a device error.
    #[error("gpu: {0}")]
    Gpu(String),
    /// The preview window: no display to open it on.
    #[error("preview: {0}")]
    Preview(String),
    /// A command-line argument with a bad value.
    #[error("argument {arg}: {message}")]
    Argument { arg: String, message: String },
    /// A checkpoint that cannot be resumed.
    #[error("checkpoint {}: {message}", path.display())]
    Checkpoint { path: PathBuf, message: String },
    /// Ctrl-C: the run stopped after a frame and left a checkpoint.
    #[error("interrupted at t = {time} s; the state is saved: continue with `crease resume {}`", out_dir.display())]
    Interrupted { time: f64, out_dir: PathBuf },
    /// An input file whose contents cannot be used (a malformed
    /// metrics.csv), or an output that cannot be produced.
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    /// The OS's error is part of the message, not a source: printed with
    /// its chain (`{:#}`), a source would say it twice.
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn scene(file: impl Into<String>, field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Scene {
            file: file.into(),
            field: field.into(),
            message: message.into(),
        }
    }

    pub fn mesh(source_name: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Mesh {
            source_name: source_name.into(),
            message: message.into(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error,
        }
    }
}
