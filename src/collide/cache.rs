//! On-disk cache of mesh-baked grids, keyed by a hash of everything the bake
//! depends on (the mesh file's bytes, its placement, the grid box and cell).
//! The folder is `$CREASE_CACHE_DIR`, else `$XDG_CACHE_HOME/crease`, else
//! `~/.cache/crease`. A missing, unreadable or corrupt entry is baked again;
//! entries are written atomically, and a cache that cannot be written only
//! costs the next run a bake.

use super::SdfGrid;
use crate::util::write_atomic;
use glam::DVec3;
use std::path::PathBuf;

const MAGIC: &[u8; 8] = b"CRSDF001";

pub fn cache_dir() -> PathBuf {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("CREASE_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("crease")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("crease")))
        .unwrap_or_else(|| std::env::temp_dir().join("crease-cache"))
}

fn encode(key: u64, g: &SdfGrid) -> Vec<u8> {
    let mut out = Vec::with_capacity(72 + g.values.len() * 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.to_le_bytes());
    for d in g.dims {
        out.extend_from_slice(&d.to_le_bytes());
    }
    for v in [g.origin.x, g.origin.y, g.origin.z, g.cell] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in &g.values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn decode(key: u64, bytes: &[u8]) -> Option<SdfGrid> {
    let (head, rest) = (bytes.get(..60)?, bytes.get(60..)?);
    if &head[..8] != MAGIC || u64::from_le_bytes(head[8..16].try_into().ok()?) != key {
        return None;
    }
    let u = |k: usize| u32::from_le_bytes(head[16 + 4 * k..20 + 4 * k].try_into().unwrap_or_default());
    let f = |k: usize| f64::from_le_bytes(head[28 + 8 * k..36 + 8 * k].try_into().unwrap_or_default());
    let dims = [u(0), u(1), u(2)];
    let count = dims.iter().map(|&d| d as usize).product::<usize>();
    if rest.len() != count * 4 {
        return None;
    }
    Some(SdfGrid {
        origin: DVec3::new(f(0), f(1), f(2)),
        cell: f(3),
        dims,
        values: rest
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    })
}

/// The cached grid for `key`, or `bake()`'s, which is then stored.
pub fn load_or_bake(key: u64, bake: impl FnOnce() -> Result<SdfGrid, String>) -> Result<SdfGrid, String> {
    let path = cache_dir().join(format!("sdf-{key:016x}.bin"));
    if let Some(g) = std::fs::read(&path).ok().and_then(|b| decode(key, &b)) {
        return Ok(g);
    }
    let g = bake()?;
    if std::fs::create_dir_all(cache_dir()).is_ok() {
        let _ = write_atomic(&path, &encode(key, &g));
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_corrupt_ones_are_rejected() {
        let g = SdfGrid::bake(DVec3::ZERO, DVec3::ONE, 0.25, |p| p.length() - 0.5).unwrap();
        let bytes = encode(7, &g);
        assert_eq!(decode(7, &bytes), Some(g));
        assert_eq!(decode(8, &bytes), None, "another key");
        assert_eq!(decode(7, &bytes[..bytes.len() - 1]), None, "truncated");
    }
}
