//! Sparse rows assembled from unsorted pieces (the multilevel levels'
//! blocks, the shape operator's hinge coupling).

use std::ops::AddAssign;

/// Sorts a row's entries by column (stably, so that repeated columns are
/// summed in the order they came, and the sums are reproducible) and sums
/// repeated columns.
pub fn merge<T: AddAssign>(mut row: Vec<(u32, T)>) -> Vec<(u32, T)> {
    row.sort_by_key(|e| e.0);
    let mut out: Vec<(u32, T)> = Vec::with_capacity(row.len());
    for (c, v) in row {
        match out.last_mut() {
            Some(last) if last.0 == c => last.1 += v,
            _ => out.push((c, v)),
        }
    }
    out
}
