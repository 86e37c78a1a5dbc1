//! Atomic file writes: the bytes go to a temporary file beside the target,
//! which is then renamed over it, so an interrupted run never leaves a
//! half-written file (a killed one may leave the temporary file, which
//! `remove_leftovers` clears).

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// A temporary file's name is `.NAME.tmpPID`.
const TMP: &str = ".tmp";

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
    let tmp = path.with_file_name(format!(".{name}{TMP}{}", std::process::id()));
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

/// Whether `name` is one of `write_atomic`'s temporary files.
fn is_leftover(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.rsplit_once(TMP))
        .is_some_and(|(file, pid)| !file.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Removes the temporary files a killed writer left in `dir` (none of
/// them is ever a finished file).
pub fn remove_leftovers(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        if is_leftover(&entry.file_name().to_string_lossy()) {
            std::fs::remove_file(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_leftover;

    #[test]
    fn only_the_writers_own_temporary_names_are_leftovers() {
        for name in [".metrics.csv.tmp123", ".00004.obj.tmp9"] {
            assert!(is_leftover(name), "{name}");
        }
        for name in [
            "metrics.csv",
            ".tmp123",
            ".notes.tmp",
            ".a.tmpx1",
            "a.csv.tmp12",
            ".hidden",
        ] {
            assert!(!is_leftover(name), "{name}");
        }
    }
}
