//! The memory this machine has free, for checking a scene's size before
//! anything of it is allocated.

/// The memory available to a new allocation, bytes (Linux's
/// `MemAvailable`); `None` where it cannot be read (another system),
/// where no check is made.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// `bytes` as a person reads them, with one decimal: `20.5 KB`, `54.8 MB`,
/// `98.3 GB`, `1.5 TB`.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        1_000_000_000_000.. => format!("{:.1} TB", b / 1e12),
        1_000_000_000.. => format!("{:.1} GB", b / 1e9),
        1_000_000.. => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.1} KB", b / 1e3),
    }
}

#[cfg(test)]
mod tests {
    /// On Linux the figure is there and plausible (more than 64 MB, less
    /// than 64 TB).
    #[test]
    #[cfg(target_os = "linux")]
    fn linux_says_how_much_memory_is_free() {
        let bytes = super::available().expect("MemAvailable");
        assert!(bytes > 64 << 20 && bytes < 64 << 40, "{bytes}");
    }
}
