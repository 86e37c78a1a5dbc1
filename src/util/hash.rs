//! A hash whose value is part of file formats (the grid cache's keys, the
//! checkpoint's scene digest), so it must never change.

/// 64-bit FNV-1a, stable across platforms and Rust versions.
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf29ce484222325)
    }
}

impl Fnv {
    pub fn bytes(mut self, data: &[u8]) -> Self {
        for &b in data {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100000001b3);
        }
        self
    }

    pub fn f64s(self, values: &[f64]) -> Self {
        values.iter().fold(self, |h, v| h.bytes(&v.to_le_bytes()))
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}
