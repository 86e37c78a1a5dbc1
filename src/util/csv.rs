//! The comma-separated files crease writes (a run's `metrics.csv`, its
//! state dumps), read back with errors that name the file.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A file's header and its rows as text.
pub struct Table {
    pub path: PathBuf,
    /// The header's column names (none for an empty file).
    pub names: Vec<String>,
    text: String,
}

impl Table {
    pub fn read(path: &Path) -> Result<Table> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let names = text
            .lines()
            .next()
            .map_or(Vec::new(), |h| h.split(',').map(str::to_string).collect());
        Ok(Table {
            path: path.to_path_buf(),
            names,
            text,
        })
    }

    /// An error about this file.
    pub fn error(&self, message: String) -> Error {
        Error::File {
            path: self.path.clone(),
            message,
        }
    }

    /// The index of column `name`, or an error saying the file is not
    /// `what` (e.g. "a crease metrics.csv").
    pub fn column(&self, name: &str, what: &str) -> Result<usize> {
        self.names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| self.error(format!("has no `{name}` column: not {what}")))
    }

    /// The rows after the header, each split into its cells; row `k` is
    /// the file's line `k + 2`.
    pub fn rows(&self) -> impl Iterator<Item = Vec<&str>> {
        self.text.lines().skip(1).map(|line| line.split(',').collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns by name, rows after the header, and errors naming the file.
    #[test]
    fn a_table_finds_columns_and_rows_and_names_its_file() {
        let path = std::env::temp_dir().join(format!("crease-table-{}.csv", std::process::id()));
        std::fs::write(&path, "time,phase\n0.5,hold\n1,settle\n").unwrap();
        let t = Table::read(&path).unwrap();
        assert_eq!(t.column("phase", "a metrics file").unwrap(), 1);
        let rows: Vec<Vec<&str>> = t.rows().collect();
        assert_eq!(rows, vec![vec!["0.5", "hold"], vec!["1", "settle"]]);
        let e = t.column("eps_p", "a state dump").unwrap_err().to_string();
        assert!(
            e.contains("crease-table") && e.contains("`eps_p`") && e.contains("a state dump"),
            "{e}"
        );
        std::fs::write(&path, "").unwrap();
        assert!(Table::read(&path).unwrap().names.is_empty());
        std::fs::remove_file(&path).ok();
        assert!(Table::read(&path).is_err());
    }
}
