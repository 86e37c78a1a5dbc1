//! Wavefront OBJ: reads positions, faces (polygons are fan-triangulated),
//! `vt` material coordinates and the groups its `o` and `g` lines name (as
//! Blender's exporter writes them: each becomes the named vertex set
//! `group:NAME` of the vertices of its faces); writes positions, faces and,
//! when the mesh has them, per-corner `vt`.

use super::{Polygons, TriMesh};
use crate::error::{Error, Result};
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Reads an OBJ file. `uv_scale` converts `vt` units to metres.
pub fn read_obj(path: &Path, uv_scale: f64) -> Result<TriMesh> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_obj(&text, &path.display().to_string(), uv_scale)
}

fn parse_obj(text: &str, name: &str, uv_scale: f64) -> Result<TriMesh> {
    let bad = |line: usize, msg: String| Error::mesh(name, format!("line {line}: {msg}"));
    let mut positions = Vec::new();
    let mut texcoords = Vec::new();
    let mut faces = Vec::new();
    let mut face_uv: Vec<Option<[DVec2; 3]>> = Vec::new();
    let mut polygons = Polygons::default();
    let mut corner_texcoords: Vec<Option<u32>> = Vec::new();
    // The object (`o`) and groups (`g`) the following faces belong to.
    let (mut object, mut groups): (Option<String>, Vec<String>) = (None, Vec::new());
    let mut named_sets: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let mut it = raw.split_whitespace();
        let Some(tag) = it.next() else { continue };
        let numbers = |it: std::str::SplitWhitespace, want: usize| -> Result<Vec<f64>> {
            let vals: Vec<f64> = it
                .take(want)
                .map(|s| {
                    s.parse::<f64>()
                        .map_err(|_| bad(line, format!("`{s}` is not a number")))
                })
                .collect::<Result<_>>()?;
            if vals.len() < want || vals.iter().any(|v| !v.is_finite()) {
                return Err(bad(line, format!("expected {want} finite numbers after `{tag}`")));
            }
            Ok(vals)
        };
        match tag {
            "v" => {
                let p = numbers(it, 3)?;
                positions.push(DVec3::new(p[0], p[1], p[2]));
            }
            "vt" => {
                let t = numbers(it, 2)?;
                texcoords.push(DVec2::new(t[0], t[1]));
            }
            "o" => {
                object = it.next().map(str::to_string);
                groups.clear();
            }
            "g" => groups = it.map(str::to_string).collect(),
            "f" => {
                let mut corners = Vec::new();
                for tok in it {
                    let mut parts = tok.split('/');
                    let resolve = |s: Option<&str>, count: usize, what: &str| -> Result<Option<usize>> {
                        match s {
                            None | Some("") => Ok(None),
                            Some(s) => {
                                let k: i64 = s.parse().map_err(|_| bad(line, format!("bad {what} index `{s}`")))?;
                                let idx = if k < 0 { count as i64 + k } else { k - 1 };
                                if idx < 0 || idx as usize >= count {
                                    return Err(bad(line, format!("{what} index {k} is out of range (have {count})")));
                                }
                                Ok(Some(idx as usize))
                            }
                        }
                    };
                    let v = resolve(parts.next(), positions.len(), "vertex")?
                        .ok_or_else(|| bad(line, "face corner without a vertex index".into()))?;
                    let t = resolve(parts.next(), texcoords.len(), "texture")?;
                    corners.push((v, t));
                }
                if corners.len() < 3 {
                    return Err(bad(line, "a face needs at least 3 corners".into()));
                }
                for name in object.iter().chain(&groups) {
                    let set = named_sets.entry(format!("group:{name}")).or_default();
                    set.extend(corners.iter().map(|c| c.0 as u32));
                }
                for k in 1..corners.len() - 1 {
                    let tri = [corners[0], corners[k], corners[k + 1]];
                    faces.push(tri.map(|c| c.0 as u32));
                    face_uv.push(match tri.map(|c| c.1) {
                        [Some(a), Some(b), Some(c)] => Some([a, b, c].map(|t| texcoords[t] * uv_scale)),
                        _ => None,
                    });
                }
                polygons.counts.push(corners.len() as u32);
                polygons.corners.extend(corners.iter().map(|c| c.0 as u32));
                corner_texcoords.extend(corners.iter().map(|c| c.1.map(|t| t as u32)));
                polygons.lines.push(line as u32);
            }
            _ => {}
        }
    }
    let with_uv = face_uv.iter().filter(|u| u.is_some()).count();
    let uv = if with_uv == 0 {
        None
    } else if with_uv == face_uv.len() {
        Some(face_uv.into_iter().map(|u| u.unwrap_or_default()).collect())
    } else {
        let first = face_uv.iter().position(|u| u.is_none()).unwrap_or(0);
        let line = polygons.polygon_of(first).map_or(0, |k| polygons.lines[k]);
        return Err(Error::mesh(
            name,
            format!("line {line}: this face has no texture coordinates, but others do: give every face `vt` or none"),
        ));
    };
    polygons.corner_texcoords = corner_texcoords.into_iter().collect();
    polygons.texcoords = texcoords;
    for set in named_sets.values_mut() {
        set.sort_unstable();
        set.dedup();
    }
    Ok(TriMesh {
        name: name.to_string(),
        positions,
        faces,
        uv,
        named_sets,
        polygons: Some(polygons),
    })
}

/// Formats a mesh with the given positions as OBJ text: a mesh read from
/// a file with its polygons and texture coordinates as the file had them,
/// a generated one as triangles with its material coordinates. Numbers use
/// Rust's shortest round-trip formatting, so the same state gives the same
/// bytes.
pub fn write_obj(mesh: &TriMesh, positions: &[DVec3]) -> String {
    let mut s = String::with_capacity(positions.len() * 40 + mesh.faces.len() * 30);
    for p in positions {
        let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
    }
    if let Some(p) = &mesh.polygons {
        let texcoords = p.corner_texcoords.as_ref();
        if texcoords.is_some() {
            for t in &p.texcoords {
                let _ = writeln!(s, "vt {} {}", t.x, t.y);
            }
        }
        let mut corner = 0;
        for &count in &p.counts {
            s.push('f');
            for k in corner..corner + count as usize {
                let _ = match texcoords {
                    Some(t) => write!(s, " {}/{}", p.corners[k] + 1, t[k] + 1),
                    None => write!(s, " {}", p.corners[k] + 1),
                };
            }
            s.push('\n');
            corner += count as usize;
        }
        return s;
    }
    match &mesh.uv {
        Some(uv) => {
            for c in uv.iter().flatten() {
                let _ = writeln!(s, "vt {} {}", c.x, c.y);
            }
            for (i, f) in mesh.faces.iter().enumerate() {
                let t = 3 * i + 1;
                let _ = writeln!(s, "f {}/{} {}/{} {}/{}", f[0] + 1, t, f[1] + 1, t + 1, f[2] + 1, t + 2);
            }
        }
        None => {
            for f in &mesh.faces {
                let _ = writeln!(s, "f {} {} {}", f[0] + 1, f[1] + 1, f[2] + 1);
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};

    #[test]
    fn round_trip_keeps_positions_faces_and_uv() {
        let m = grid(0.3, 0.2, 3, 2, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Z));
        let text = write_obj(&m, &m.positions);
        let back = parse_obj(&text, "mem", 1.0).unwrap();
        assert_eq!(back.positions, m.positions);
        assert_eq!(back.faces, m.faces);
        assert_eq!(back.uv, m.uv);
    }

    #[test]
    fn a_file_s_polygons_and_texture_coordinates_are_written_back() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
                    f 1/1 2/2 3/3 4/4\nf 2/2 5/3 3/4\n";
        let m = parse_obj(text, "p.obj", 0.5).unwrap();
        let written = write_obj(&m, &m.positions);
        assert_eq!(written, text);
        let back = parse_obj(&written, "p.obj", 0.5).unwrap();
        assert_eq!((back.faces, back.uv), (m.faces.clone(), m.uv.clone()));
    }

    #[test]
    fn quads_are_triangulated_and_errors_name_the_line() {
        let m = parse_obj("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", "q", 1.0).unwrap();
        assert_eq!(m.faces, vec![[0, 1, 2], [0, 2, 3]]);
        let e = parse_obj("v 0 0 0\nv 1 0 0\nf 1 2 7\n", "q.obj", 1.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("q.obj") && e.contains("line 3") && e.contains("out of range"),
            "{e}"
        );
        let e = parse_obj("v 0 0 nan\n", "q.obj", 1.0).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
    }

    /// The file's polygons are kept with their lines, and messages about a
    /// triangle name the face (by line) it came from and vertices from 1.
    #[test]
    fn polygons_are_kept_and_messages_name_the_file_s_faces() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
                    f 1/1 2/2 3/3 4/4\n# a comment\nf 2/2 5/3 3/4\n";
        let m = parse_obj(text, "p.obj", 2.0).unwrap();
        let p = m.polygons.as_ref().unwrap();
        assert_eq!(p.counts, vec![4, 3]);
        assert_eq!(p.corners, vec![0, 1, 2, 3, 1, 4, 2]);
        assert_eq!(p.lines, vec![10, 12]);
        assert_eq!(p.corner_texcoords, Some(vec![0, 1, 2, 3, 1, 2, 3]));
        // The file's texture coordinates, unscaled; the rest shape's, scaled.
        assert_eq!(p.texcoords[2], DVec2::new(1.0, 1.0));
        assert_eq!(m.uv.as_ref().unwrap()[0][2], DVec2::new(2.0, 2.0));
        assert_eq!(
            (m.face_label(0), m.face_label(1), m.face_label(2)),
            (
                "the face on line 10".to_string(),
                "the face on line 10".to_string(),
                "the face on line 12".to_string()
            )
        );
        // The second face runs edge 2 -> 3 as the quad does: both are named.
        let bad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\nf 2 3 4\n";
        let e = crate::mesh::Topology::build(&parse_obj(bad, "b.obj", 1.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the face on line 5") && e.contains("the face on line 6") && e.contains("vertex 2 to 3"),
            "{e}"
        );
        let e = parse_obj(
            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1\nf 1 3 4\n",
            "u.obj",
            1.0,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 7") && e.contains("no texture coordinates"), "{e}");
    }

    /// Blender writes `o NAME` per object and, with "Object Groups" or
    /// material groups, `g NAME`: each names the vertices of its faces.
    #[test]
    fn objects_and_groups_become_named_vertex_sets() {
        let text = "o Trousers\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\n\
                    g waistband cuffs\nf 1 2 3 4\ng knee\nf 2 5 6 3\ng\nf 1 3 4\n";
        let m = parse_obj(text, "t.obj", 1.0).unwrap();
        let set = |name: &str| m.named_sets[&format!("group:{name}")].clone();
        assert_eq!(set("Trousers"), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(set("waistband"), vec![0, 1, 2, 3]);
        assert_eq!(set("cuffs"), vec![0, 1, 2, 3]);
        assert_eq!(set("knee"), vec![1, 2, 4, 5]);
        assert_eq!(m.named_sets.len(), 4);
    }
}
