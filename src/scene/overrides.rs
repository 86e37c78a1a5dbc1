//! `--set path=value` overrides, applied to the scene's JSON before it is
//! read, so an override is checked exactly like the file itself.
//!
//! A path is dot-separated. Object keys are used as they are (a missing last
//! key is added; the schema then rejects it if it is not a field). Array
//! elements are addressed by index or by the value of their `name` field, so
//! `timeline.hold.material_time=500` sets the phase named `hold`. The value is
//! parsed as JSON when it can be (`500`, `[0, 1, 0]`, `"text"`, `true`) and
//! taken as a string otherwise (`cotton`).

use crate::error::{Error, Result};
use serde_json::Value;

/// Applies one `path=value` override to `root`.
pub fn apply(root: &mut Value, spec: &str) -> Result<()> {
    let arg = || format!("--set {spec}");
    let (path, raw) = spec.split_once('=').ok_or_else(|| Error::Argument {
        arg: arg(),
        message: "expected PATH=VALUE, e.g. timeline.hold.material_time=500".into(),
    })?;
    let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
    let keys: Vec<&str> = path.split('.').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err(Error::Argument {
            arg: arg(),
            message: format!("`{path}` has an empty path segment"),
        });
    }
    if path.contains('[') {
        return Err(Error::Argument {
            arg: arg(),
            message: format!(
                "`{path}`: an array element is addressed by a dot and its index or name, not brackets (`{}`)",
                path.replace('[', ".").replace(']', "")
            ),
        });
    }
    let mut node = root;
    for (i, key) in keys.iter().enumerate() {
        let last = i + 1 == keys.len();
        let here = keys[..i].join(".");
        node = match node {
            Value::Object(map) => {
                if last {
                    map.insert(key.to_string(), value);
                    return Ok(());
                }
                map.entry(key.to_string())
                    .or_insert_with(|| Value::Object(Default::default()))
            }
            Value::Array(items) => {
                let index = match key.parse::<usize>() {
                    Ok(k) if k < items.len() => k,
                    _ => {
                        let names: Vec<String> = items
                            .iter()
                            .filter_map(|it| it.get("name").and_then(Value::as_str).map(str::to_string))
                            .collect();
                        items
                            .iter()
                            .position(|it| it.get("name").and_then(Value::as_str) == Some(key))
                            .ok_or_else(|| Error::Argument {
                                arg: arg(),
                                message: format!(
                                    "`{here}` has no element `{key}` (use an index below {} or one of the names: {})",
                                    items.len(),
                                    names.join(", ")
                                ),
                            })?
                    }
                };
                if last {
                    items[index] = value;
                    return Ok(());
                }
                &mut items[index]
            }
            other => {
                return Err(Error::Argument {
                    arg: arg(),
                    message: format!("`{here}` is {other}, which has no field `{key}`"),
                });
            }
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sets_fields_by_key_index_and_name() {
        let mut v = json!({"dt": 0.001, "timeline": [{"name": "twist"}, {"name": "hold", "duration": 1}]});
        apply(&mut v, "timeline.hold.material_time=500").unwrap();
        apply(&mut v, "timeline.0.duration=0.5").unwrap();
        apply(&mut v, "cloth.material=denim").unwrap();
        apply(&mut v, "gravity=[0,0,-9.8]").unwrap();
        assert_eq!(v["timeline"][1]["material_time"], json!(500));
        assert_eq!(v["timeline"][0]["duration"], json!(0.5));
        assert_eq!(v["cloth"]["material"], json!("denim"));
        assert_eq!(v["gravity"], json!([0, 0, -9.8]));
    }

    #[test]
    fn bad_paths_are_named() {
        let mut v = json!({"dt": 0.001, "timeline": [{"name": "twist"}]});
        let e = apply(&mut v, "timeline.hold.duration=1").unwrap_err().to_string();
        assert!(e.contains("no element `hold`") && e.contains("twist"), "{e}");
        let e = apply(&mut v, "dt.x=1").unwrap_err().to_string();
        assert!(e.contains("no field `x`"), "{e}");
        assert!(apply(&mut v, "dt").is_err());
    }
}
