//! USD output (`output.formats` with `"usd"`): `DIR/cloth.usda`, a text
//! USD layer that Blender, Houdini, Maya and usdview open natively. The
//! cloth is one `UsdGeomMesh` with the polygons its input had (an OBJ's
//! quads stay quads), its texture coordinates as `primvars:st` and its
//! `points` sampled at every output frame; every obstacle is a mesh too
//! (a rigid one's surface once, in its own frame, with its motion as a
//! time-sampled `xformOp:transform`; a deforming body's points sampled
//! like the cloth's), hidden while removed. One time code is one output
//! frame: `timeCodesPerSecond` is the output's fps, `upAxis` Y and
//! `metersPerUnit` 1, as the simulation's units are.
//!
//! A run appends each frame to `DIR/cloth.usda.frames` (raw little-endian
//! numbers, one fixed-size record a frame) and writes `cloth.usda` from it
//! atomically when it stops; a resumed run cuts that file back to its
//! checkpoint's frames and goes on. The frames file is removed once no
//! resume can continue it (the timeline ended, or no checkpoint was
//! written).

use crate::collide::{Pose, Surface, isosurface};
use crate::error::{Error, Result};
use crate::scene::Scene;
use crate::sim::obstacles_at;
use crate::util::write_atomic_with;
use glam::{DMat4, DVec3, Vec3};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The layer's name in a run folder.
pub const FILE: &str = "cloth.usda";

/// The frames file's name in a run folder.
pub const FRAMES: &str = "cloth.usda.frames";

/// What one obstacle contributes to a frame's record.
enum Part {
    /// A rigid obstacle: its surface in its own frame, and per frame its
    /// pose (a matrix of 16 f64).
    Rigid { points: Vec<DVec3>, faces: Vec<[u32; 3]> },
    /// A deforming body: per frame its world points (f32 x 3 each).
    Body { vertices: usize, faces: Vec<[u32; 3]> },
}

impl Part {
    fn bytes(&self) -> usize {
        1 + match self {
            Part::Rigid { .. } => 16 * 8,
            Part::Body { vertices, .. } => 12 * vertices,
        }
    }
}

/// The bytes of one frame's record: its time, the cloth's points and each
/// part's.
fn record_bytes(vertices: usize, parts: &[Part]) -> usize {
    8 + 12 * vertices + parts.iter().map(Part::bytes).sum::<usize>()
}

/// The frames of a run's USD output so far.
pub struct UsdFrames {
    dir: PathBuf,
    file: BufWriter<File>,
    frames: usize,
    parts: Vec<Part>,
    vertices: usize,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

impl UsdFrames {
    fn parts(scene: &Scene) -> Vec<Part> {
        scene
            .obstacles
            .iter()
            .map(|o| match &o.surface {
                Surface::Grid(grid) => {
                    let (points, faces) = isosurface::surface(grid);
                    Part::Rigid { points, faces }
                }
                Surface::Sequence(seq) => Part::Body {
                    vertices: seq.mesh.vertices,
                    faces: seq.faces.clone(),
                },
            })
            .collect()
    }

    /// About the bytes one frame adds to a run's USD output at its
    /// largest: its record in the frames file, and its samples as text in
    /// the layer (measured on the twist: 3.4 times the record).
    pub fn frame_bytes(scene: &Scene) -> u64 {
        5 * record_bytes(scene.cloth.vertex_count(), &Self::parts(scene)) as u64
    }

    fn record_bytes(&self) -> usize {
        record_bytes(self.vertices, &self.parts)
    }

    /// Starts the frames of a fresh run in `dir` (an older run's layer
    /// there is removed, so that it is never taken for this one's).
    pub fn create(dir: &Path, scene: &Scene) -> Result<UsdFrames> {
        let layer = dir.join(FILE);
        if layer.exists() {
            std::fs::remove_file(&layer).map_err(io(&layer))?;
        }
        let path = dir.join(FRAMES);
        let file = File::create(&path).map_err(io(&path))?;
        Ok(UsdFrames {
            dir: dir.to_path_buf(),
            file: BufWriter::new(file),
            frames: 0,
            parts: UsdFrames::parts(scene),
            vertices: scene.cloth.vertex_count(),
        })
    }

    /// Continues the frames in `dir` after the first `frames` (a resumed
    /// run's checkpoint).
    pub fn resume(dir: &Path, scene: &Scene, frames: usize) -> Result<UsdFrames> {
        let path = dir.join(FRAMES);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::File {
                path: path.clone(),
                message: format!("cannot open the USD frames of the run to resume ({e}): start the run again"),
            })?;
        let mut out = UsdFrames {
            dir: dir.to_path_buf(),
            file: BufWriter::new(file),
            frames,
            parts: UsdFrames::parts(scene),
            vertices: scene.cloth.vertex_count(),
        };
        let want = (frames * out.record_bytes()) as u64;
        let have = out.file.get_ref().metadata().map_err(io(&path))?.len();
        if have < want {
            return Err(Error::File {
                path,
                message: format!(
                    "holds {have} bytes, fewer than the checkpoint's {frames} frames need ({want}): the output folder \
                     was changed; start the run again"
                ),
            });
        }
        let file = out.file.get_mut();
        file.set_len(want).map_err(io(&path))?;
        file.seek(SeekFrom::End(0)).map_err(io(&path))?;
        Ok(out)
    }

    /// Appends the frame at `steps` steps, the cloth at `x`.
    pub fn push(&mut self, scene: &Scene, steps: u64, x: &[DVec3]) -> Result<()> {
        let t = steps as f64 * scene.dt;
        let mut record = Vec::with_capacity(self.record_bytes());
        record.extend_from_slice(&t.to_le_bytes());
        let f32s = |record: &mut Vec<u8>, points: &[DVec3]| {
            for p in points {
                for c in p.as_vec3().to_array() {
                    record.extend_from_slice(&c.to_le_bytes());
                }
            }
        };
        f32s(&mut record, x);
        for ((part, at), o) in self.parts.iter().zip(obstacles_at(scene, steps)).zip(&scene.obstacles) {
            record.push(at.enabled as u8);
            match (part, &o.surface) {
                (Part::Rigid { .. }, _) => {
                    for c in matrix(&at.pose).to_cols_array() {
                        record.extend_from_slice(&c.to_le_bytes());
                    }
                }
                (Part::Body { .. }, Surface::Sequence(seq)) => f32s(&mut record, &seq.at(t, &at.pose)),
                (Part::Body { .. }, Surface::Grid(_)) => unreachable!("parts are made from the same obstacles"),
            }
        }
        let path = self.dir.join(FRAMES);
        self.file.write_all(&record).map_err(io(&path))?;
        self.frames += 1;
        Ok(())
    }

    /// Reads every frame's record in turn.
    fn each_frame(&self, mut f: impl FnMut(usize, &[u8])) -> Result<()> {
        let path = self.dir.join(FRAMES);
        let file = File::open(&path).map_err(io(&path))?;
        let mut reader = BufReader::new(file);
        let mut record = vec![0u8; self.record_bytes()];
        for k in 0..self.frames {
            reader.read_exact(&mut record).map_err(io(&path))?;
            f(k, &record);
        }
        Ok(())
    }

    /// Puts the frames so far on disk (before a checkpoint names them).
    pub fn flush(&mut self) -> Result<()> {
        let path = self.dir.join(FRAMES);
        self.file.flush().map_err(io(&path))
    }

    /// Writes `cloth.usda` from the frames so far (atomically); with
    /// `finished` (no resume will continue them), the frames file goes.
    pub fn write(&mut self, scene: &Scene, finished: bool) -> Result<()> {
        self.flush()?;
        let frames_path = self.dir.join(FRAMES);
        let mut times = Vec::with_capacity(self.frames);
        self.each_frame(|_, r| times.push(f64::from_le_bytes(r[..8].try_into().unwrap_or_default())))?;
        let layer = Layer {
            frames: self,
            scene,
            times,
            fps: 1.0 / scene.frame_interval,
        };
        write_atomic_with(&self.dir.join(FILE), |out| layer.write(out))?;
        if finished {
            std::fs::remove_file(&frames_path).map_err(io(&frames_path))?;
        }
        Ok(())
    }
}

/// A pose as USD's row-vector matrix (`p' = p M`): its rows are the
/// column-vector matrix's columns.
fn matrix(pose: &Pose) -> DMat4 {
    DMat4::from_rotation_translation(pose.rot, pose.trans)
}

/// A prim name from an obstacle's name: letters, digits and `_`, not
/// starting with a digit; `taken` keeps them unique.
fn prim_name(name: &str, taken: &mut Vec<String>) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    let mut unique = s.clone();
    let mut k = 2;
    while taken.contains(&unique) {
        unique = format!("{s}_{k}");
        k += 1;
    }
    taken.push(unique.clone());
    unique
}

/// The text of `cloth.usda`, written from the frames file.
struct Layer<'a> {
    frames: &'a UsdFrames,
    scene: &'a Scene,
    /// Each frame's simulated time.
    times: Vec<f64>,
    /// Output frames per second: time codes per second.
    fps: f64,
}

/// A frame's time code: its time in output frames.
fn time_code(t: f64, fps: f64) -> f64 {
    (t * fps * 1e6).round() / 1e6
}

fn points_text(s: &mut String, points: impl Iterator<Item = Vec3>) {
    s.push('[');
    for (k, p) in points.enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "({}, {}, {})", p.x, p.y, p.z);
    }
    s.push(']');
}

fn ints_text(s: &mut String, values: impl Iterator<Item = u32>) {
    s.push('[');
    for (k, v) in values.enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{v}");
    }
    s.push(']');
}

fn extent_text(s: &mut String, points: &[Vec3]) {
    let (lo, hi) = points.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(*p), hi.max(*p))
    });
    points_text(s, [lo, hi].into_iter());
}

/// The faces of a triangle mesh as USD's counts and indices.
fn triangles_text(s: &mut String, indent: &str, faces: &[[u32; 3]]) {
    let _ = write!(s, "{indent}int[] faceVertexCounts = ");
    ints_text(s, faces.iter().map(|_| 3));
    let _ = write!(s, "\n{indent}int[] faceVertexIndices = ");
    ints_text(s, faces.iter().flatten().copied());
    s.push('\n');
}

impl Layer<'_> {
    fn each_frame(&self, f: impl FnMut(usize, &[u8])) -> Result<()> {
        self.frames.each_frame(f)
    }

    /// The layer's own path, for messages.
    fn path(&self) -> PathBuf {
        self.frames.dir.join(FILE)
    }

    /// Frame `k`'s time code.
    fn code(&self, k: usize) -> f64 {
        time_code(self.times[k], self.fps)
    }

    fn write(&self, out: &mut dyn Write) -> Result<()> {
        let (scene, times, fps) = (self.scene, &self.times, self.fps);
        let (start, end) = (
            times.first().map_or(0.0, |t| time_code(*t, fps)),
            times.last().map_or(0.0, |t| time_code(*t, fps)),
        );
        let mut s = String::new();
        let _ = writeln!(
            s,
            "#usda 1.0\n(\n    defaultPrim = \"crease\"\n    doc = \"crease: scene {}, {} frames\"\n    endTimeCode = {end}\n    \
             framesPerSecond = {fps}\n    metersPerUnit = 1\n    startTimeCode = {start}\n    timeCodesPerSecond = {fps}\n    \
             upAxis = \"Y\"\n)\n\ndef Xform \"crease\"\n{{",
            scene.name.replace(['"', '\\'], "_"),
            times.len()
        );
        self.cloth(&mut s, out)?;
        self.obstacles(&mut s, out)?;
        s.push_str("}\n");
        out.write_all(s.as_bytes()).map_err(io(&self.path()))
    }

    /// Writes `s` out and empties it (the layer is written piece by piece).
    fn flush(&self, s: &mut String, out: &mut dyn Write) -> Result<()> {
        out.write_all(s.as_bytes()).map_err(io(&self.path()))?;
        s.clear();
        Ok(())
    }

    /// The time samples of points at byte `offset` of each record
    /// (`count` of them), and of their extent.
    fn sampled_points(
        &self,
        s: &mut String,
        indent: &str,
        (offset, count): (usize, usize),
        out: &mut dyn Write,
    ) -> Result<()> {
        let read = |r: &[u8]| -> Vec<Vec3> {
            r[offset..offset + 12 * count]
                .chunks_exact(12)
                .map(|c| {
                    let f = |k: usize| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
                    Vec3::new(f(0), f(4), f(8))
                })
                .collect()
        };
        let mut extents = String::new();
        let _ = writeln!(s, "{indent}point3f[] points.timeSamples = {{");
        let mut failed = Ok(());
        self.each_frame(|k, r| {
            let points = read(r);
            let code = self.code(k);
            let _ = write!(s, "{indent}    {code}: ");
            points_text(s, points.iter().copied());
            s.push_str(",\n");
            let _ = write!(extents, "{indent}    {code}: ");
            extent_text(&mut extents, &points);
            extents.push_str(",\n");
            if failed.is_ok() {
                failed = self.flush(s, out);
            }
        })?;
        failed?;
        let _ = writeln!(
            s,
            "{indent}}}\n{indent}float3[] extent.timeSamples = {{\n{extents}{indent}}}"
        );
        Ok(())
    }

    fn cloth(&self, s: &mut String, out: &mut dyn Write) -> Result<()> {
        let mesh = &self.scene.cloth.mesh;
        let indent = "        ";
        s.push_str("    def Mesh \"cloth\"\n    {\n");
        match &mesh.polygons {
            Some(p) => {
                let _ = write!(s, "{indent}int[] faceVertexCounts = ");
                ints_text(s, p.counts.iter().copied());
                let _ = write!(s, "\n{indent}int[] faceVertexIndices = ");
                ints_text(s, p.corners.iter().copied());
                s.push('\n');
            }
            None => triangles_text(s, indent, &mesh.faces),
        }
        let _ = writeln!(
            s,
            "{indent}uniform bool doubleSided = 1\n{indent}color3f[] primvars:displayColor = [(0.8, 0.72, 0.62)]\n\
             {indent}uniform token subdivisionScheme = \"none\""
        );
        // Texture coordinates: the file's own, or the material coordinates
        // (metres) of a generated mesh, face-varying and indexed.
        let st: Option<(Vec<glam::DVec2>, Vec<u32>)> = match (&mesh.polygons, &mesh.uv) {
            (Some(p), _) => p.corner_texcoords.clone().map(|c| (p.texcoords.clone(), c)),
            (None, Some(uv)) => Some((
                uv.iter().flatten().copied().collect(),
                (0..3 * uv.len() as u32).collect(),
            )),
            (None, None) => None,
        };
        if let Some((values, indices)) = st {
            let _ = write!(s, "{indent}texCoord2f[] primvars:st = [");
            for (k, v) in values.iter().enumerate() {
                let _ = write!(s, "{}({}, {})", if k > 0 { ", " } else { "" }, v.x as f32, v.y as f32);
            }
            let _ = write!(
                s,
                "] (\n{indent}    interpolation = \"faceVarying\"\n{indent})\n{indent}int[] primvars:st:indices = "
            );
            ints_text(s, indices.into_iter());
            s.push('\n');
        }
        self.sampled_points(s, indent, (8, self.frames.vertices), out)?;
        s.push_str("    }\n");
        Ok(())
    }

    fn obstacles(&self, s: &mut String, out: &mut dyn Write) -> Result<()> {
        if self.frames.parts.is_empty() {
            return Ok(());
        }
        let indent = "            ";
        s.push_str("\n    def Xform \"obstacles\"\n    {\n");
        let mut taken = Vec::new();
        let mut offset = 8 + 12 * self.frames.vertices;
        for (part, o) in self.frames.parts.iter().zip(&self.scene.obstacles) {
            let name = prim_name(&o.name, &mut taken);
            let _ = writeln!(
                s,
                "        def Mesh \"{name}\" (\n            doc = \"obstacle {}\"\n        )\n        {{\n\
                 {indent}uniform bool doubleSided = 1\n{indent}color3f[] primvars:displayColor = [(0.55, 0.55, 0.57)]\n\
                 {indent}uniform token subdivisionScheme = \"none\"",
                o.name.replace(['"', '\\'], "_")
            );
            let mut visible = Vec::with_capacity(self.times.len());
            self.each_frame(|_, r| visible.push(r[offset] != 0))?;
            match part {
                Part::Rigid { points, faces } => {
                    triangles_text(s, indent, faces);
                    let _ = write!(s, "{indent}point3f[] points = ");
                    let local: Vec<Vec3> = points.iter().map(|p| p.as_vec3()).collect();
                    points_text(s, local.iter().copied());
                    let _ = write!(s, "\n{indent}float3[] extent = ");
                    extent_text(s, &local);
                    let _ = writeln!(s, "\n{indent}matrix4d xformOp:transform.timeSamples = {{");
                    self.each_frame(|k, r| {
                        let m: Vec<f64> = r[offset + 1..offset + 1 + 128]
                            .chunks_exact(8)
                            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
                            .collect();
                        let _ = write!(s, "{indent}    {}: (", self.code(k));
                        for (i, row) in m.chunks_exact(4).enumerate() {
                            let sep = if i > 0 { ", " } else { "" };
                            let _ = write!(s, "{sep}({}, {}, {}, {})", row[0], row[1], row[2], row[3]);
                        }
                        s.push_str("),\n");
                    })?;
                    let _ = writeln!(
                        s,
                        "{indent}}}\n{indent}uniform token[] xformOpOrder = [\"xformOp:transform\"]"
                    );
                }
                Part::Body { vertices, faces } => {
                    triangles_text(s, indent, faces);
                    self.sampled_points(s, indent, (offset + 1, *vertices), out)?;
                }
            }
            let _ = writeln!(s, "{indent}token visibility.timeSamples = {{");
            for (k, v) in visible.iter().enumerate() {
                let word = if *v { "inherited" } else { "invisible" };
                let _ = writeln!(s, "{indent}    {}: \"{word}\",", self.code(k));
            }
            let _ = writeln!(s, "{indent}}}\n        }}");
            offset += part.bytes();
            self.flush(s, out)?;
        }
        s.push_str("    }\n");
        Ok(())
    }
}
