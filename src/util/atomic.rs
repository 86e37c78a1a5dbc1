//! Atomic file writes: the bytes go to a temporary file beside the target,
//! which is then renamed over it, so an interrupted run never leaves a
//! half-written file.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes).map_err(|e| Error::io(path, e)))
}

/// Like [`write_atomic`], for a file too large to hold in memory: `fill`
/// writes it piece by piece (buffered); on its error nothing is left.
pub fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let write = || -> Result<()> {
        let file = std::fs::File::create(&tmp).map_err(|e| Error::io(path, e))?;
        let mut out = std::io::BufWriter::new(file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| Error::io(path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(path, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    };
    write().inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
