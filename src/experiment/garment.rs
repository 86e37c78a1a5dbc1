//! The garment experiments (Gong et al. 2025 §4.2, Figs. 5-9, Table 3):
//! trousers on the built-in mannequin that sits or lifts a leg, held a
//! short time or 500 material seconds, in the paper's three fabrics; a
//! t-shirt whose elbows bend, held short or long. Each
//! variant reports its garment groups' bends (`crate::measure::group_bends`);
//! the analysis draws the difference picture: per pose and fabric, the long
//! hold's residual plastic bend less the short hold's, on the long hold's
//! cloth.

use super::{HOLD_LONG, Variant, variant};
use crate::error::Result;
use crate::render::{Camera, Picture, Renderer, VIEW, add_obstacles, obstacle_surfaces, sheet, source};
use crate::scene::Scene;
use crate::util::Table;
use glam::DVec3;
use std::path::Path;

/// The paper's trousers fabrics (Table 3), as the `trousers-*` presets.
pub const FABRICS: [&str; 3] = ["cotton", "denim", "polyester"];

/// The poses, as the mannequin's clips.
pub const POSES: [&str; 2] = ["sit", "lift-leg"];

/// The last phase of the trousers' scenes, in which the body is taken away
/// and the trousers hang from the waistband (Gong Fig. 6 shows them with,
/// a-d, and without the body, e-h): a variant's `groups` are measured as
/// it begins, its `bare_groups` at the end.
pub const BARE: &str = "bare";

/// `<fabric>-<pose>-<hold>` for every fabric, pose and hold.
pub fn trousers_variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for fabric in FABRICS {
        let material = format!("cloth.material=trousers-{fabric}");
        for pose in POSES {
            let clip = format!("obstacles.body.shape.mannequin.clip={pose}");
            out.push(variant(&format!("{fabric}-{pose}-short"), &[&material, &clip]));
            out.push(variant(
                &format!("{fabric}-{pose}-long"),
                &[&material, &clip, HOLD_LONG],
            ));
        }
    }
    out
}

/// Size of one pair's picture on the difference sheet.
const TILE: (u32, u32) = (360, 420);

/// The colour scale ends at this quantile of the differences' size over
/// every pair's vertices; larger ones take the full colour (a few sharp
/// folds would otherwise wash out the rest).
const COLOUR_QUANTILE: f64 = 0.99;

/// Per vertex, the largest plastic bend (as an angle, rad) of its hinges'
/// edges in the run at `dir`, from the `state_hinges.csv` it dumped.
fn plastic_bends(dir: &Path, scene: &Scene) -> Result<Vec<f64>> {
    let table = Table::read(&dir.join("state_hinges.csv"))?;
    let column = |name: &str| table.column(name, "a crease state dump");
    let (v0, v1, eps_p) = (column("v0")?, column("v1")?, column("eps_p")?);
    let cloth = &scene.cloth;
    let mut out = vec![0.0f64; cloth.mesh.positions.len()];
    let mut rows = 0;
    for (k, cells) in table.rows().enumerate() {
        let number = |c: usize| cells.get(c).and_then(|t| t.parse::<f64>().ok());
        let (Some(a), Some(b), Some(e), Some(rest)) = (number(v0), number(v1), number(eps_p), cloth.hinge_rest.get(k))
        else {
            return Err(table.error(format!("row {} is not a hinge of this garment", k + 2)));
        };
        let angle = rest.plastic_angle(cloth.material.bending_strain, e).abs();
        for v in [a as usize, b as usize] {
            let slot = out
                .get_mut(v)
                .ok_or_else(|| table.error(format!("row {}: no vertex {v}", k + 2)))?;
            *slot = slot.max(angle);
        }
        rows += 1;
    }
    if rows != cloth.hinge_rest.len() {
        return Err(table.error(format!("{rows} hinges, the garment has {}", cloth.hinge_rest.len())));
    }
    Ok(out)
}

/// Draws `difference.png`: for every `X-short` / `X-long` pair (or the
/// `short` / `long` pair) of variants, the long variant's last frame
/// coloured by its per-vertex residual plastic bend less the short one's
/// (red: the long hold kept more, blue: less), with the body where it
/// stood, over one colour bar in radians. `scenes` are the variants'
/// scenes, by name; each run dumped its state (`state_hinges.csv`).
pub fn difference_picture(out_dir: &Path, scenes: &[(String, Scene)], renderer: &Renderer) -> Result<Vec<String>> {
    let mut pairs = Vec::new();
    for (name, long_scene) in scenes {
        let Some(stem) = name.strip_suffix("long") else {
            continue;
        };
        let short_name = format!("{stem}short");
        let Some((_, short_scene)) = scenes.iter().find(|(n, _)| *n == short_name) else {
            continue;
        };
        let long = source::load(&out_dir.join(name), None)?;
        let kept = plastic_bends(&out_dir.join(name), long_scene)?;
        let less = plastic_bends(&out_dir.join(&short_name), short_scene)?;
        let diff: Vec<f64> = kept.iter().zip(&less).map(|(a, b)| a - b).collect();
        let stem = stem.strip_suffix('-').unwrap_or("long less short");
        pairs.push((stem.to_string(), long, long_scene, diff));
    }
    if pairs.is_empty() {
        return Ok(Vec::new());
    }
    let mut all: Vec<f64> = pairs.iter().flat_map(|p| p.3.iter().map(|d| d.abs())).collect();
    all.sort_by(f64::total_cmp);
    let top = all[((all.len() - 1) as f64 * COLOUR_QUANTILE) as usize].max(1e-6);
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for (_, s, _, _) in &pairs {
        let (a, b) = crate::mesh::bounds(&s.mesh.positions);
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    let aspect = TILE.0 as f64 / TILE.1 as f64;
    let frame = Camera::framing(lo, hi, VIEW, aspect)?.frame(aspect, true);
    let mut tiles = Vec::new();
    for (stem, s, scene, diff) in &pairs {
        let mut picture = Picture::new(&s.mesh.positions, &s.mesh.faces, None);
        // 0.5 is no difference; 0 and 1 are -top and +top.
        picture.values = diff
            .iter()
            .map(|d| (0.5 + 0.5 * (d / top).clamp(-1.0, 1.0)) as f32)
            .collect();
        if let Some((_, t)) = s.frame {
            add_obstacles(
                &mut picture,
                scene,
                &obstacle_surfaces(scene),
                (t / scene.dt).round() as u64,
            );
        }
        tiles.push((stem.clone(), renderer.draw(&picture, &frame, TILE.0, TILE.1)?));
    }
    // A row per fabric, a column per pose.
    let grid = sheet::contact_sheet(&tiles, POSES.len())?;
    let bar = sheet::colour_bar(
        grid.width,
        -top,
        top,
        "residual plastic bend, long hold less short hold (rad)",
    )?;
    sheet::stack(&[grid, bar])?.save(&out_dir.join("difference.png"))?;
    Ok(vec!["difference.png".into()])
}
