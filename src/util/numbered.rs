//! Numbered files: animation frames as Blender's OBJ export names them
//! (`leg0001.obj`, `leg0002.obj`, ...; a `#` pattern) and as crease writes
//! its own (`frames/00001.obj`, `body0001.obj`).

/// The part of `name` between `prefix` and `suffix`, if it is digits (at
/// least one) and nothing else.
pub fn digits<'a>(name: &'a str, prefix: &str, suffix: &str) -> Option<&'a str> {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(suffix))
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The frame number `digits` stands for under a pattern of `width` `#`:
/// only if it is written as the pattern writes it, zero-padded to `width`
/// digits and no further (`leg#.obj` is `leg1.obj`, not `leg0001.obj`).
pub fn frame(digits: &str, width: usize) -> Option<u64> {
    digits.parse::<u64>().ok().filter(|k| format!("{k:0width$}") == digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_as_their_pattern_writes_them() {
        assert_eq!(digits("leg0012.obj", "leg", ".obj"), Some("0012"));
        for name in ["leg.obj", "leg12a.obj", "arm0012.obj", "leg0012.usd"] {
            assert_eq!(digits(name, "leg", ".obj"), None, "{name}");
        }
        assert_eq!(frame("0012", 4), Some(12));
        assert_eq!(frame("12345", 4), Some(12345));
        assert_eq!(frame("12", 1), Some(12));
        for (d, width) in [("0012", 1), ("00012", 4), ("012", 4), ("99999999999999999999999", 4)] {
            assert_eq!(frame(d, width), None, "{d} under {width} #");
        }
    }
}
