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

/// A file that grows by whole records: written atomically first (with
/// its header), then appended one record per write, and cut back to its
/// last whole record when a write fails. A table that grows by a row per
/// output frame is appended rather than written again whole: written whole
/// each frame, a run of 50,000 frames (500 s at 100 frames a second)
/// writes about 375 GB for a metrics file of 15 MB.
pub struct Appended {
    path: std::path::PathBuf,
    file: std::fs::File,
}

impl Appended {
    /// `path` holding `bytes` (written atomically), open to append.
    pub fn create(path: &Path, bytes: &[u8]) -> Result<Appended> {
        write_atomic(path, bytes)?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(Appended {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Appends `record`; on an error the file is left as it was.
    pub fn append(&mut self, record: &[u8]) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        let len = self.file.metadata().map_err(io)?.len();
        self.file.write_all(record).map_err(|e| {
            let _ = self.file.set_len(len);
            io(e)
        })
    }
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

/// Removes each of `paths` that exists (a run's earlier outputs); one
/// that is not there is no error.
pub fn remove_files(paths: impl IntoIterator<Item = std::path::PathBuf>) -> Result<()> {
    for path in paths {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(&path, e)),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Appended, is_leftover};

    /// The header written whole, then each record after it, and a file
    /// written over by a new `create`.
    #[test]
    fn an_appended_file_holds_its_header_and_each_record_in_order() {
        let dir = std::env::temp_dir().join(format!("crease-appended-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("table.csv");
        std::fs::write(&path, "an older run's table\n").unwrap();
        let mut file = Appended::create(&path, b"a,b\n1,2\n").unwrap();
        file.append(b"3,4\n").unwrap();
        file.append(b"5,6\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n3,4\n5,6\n");
        std::fs::remove_dir_all(&dir).ok();
    }

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
