//! The finest level's pattern: the mesh's (each vertex with the vertices
//! of its faces and hinges), and where each element block lands in it.
//! Both executors assemble the step's matrix into it (`cpu/multilevel`,
//! `shaders/multilevel.wgsl` `assemble`).

use super::bsr::Bsr;
use crate::cloth::Cloth;

/// The pattern (a matrix whose blocks are left empty) and, per entry of
/// the vertex-face and vertex-hinge incidences (`Topology::vertex_faces`,
/// `vertex_hinges`, in their order), the slot in the vertex's row of each
/// corner's block (from the row's start), built once per mesh.
#[derive(Clone)]
pub struct Pattern {
    pub a: Bsr,
    pub face_slot: Vec<[u32; 3]>,
    pub hinge_slot: Vec<[u32; 4]>,
    pub diagonal_slot: Vec<u32>,
}

impl Pattern {
    pub fn new(cloth: &Cloth) -> Pattern {
        let topo = &cloth.topology;
        let n = cloth.mesh.positions.len();
        // Each row's columns alone, sorted and deduplicated. Merging rows
        // of zero blocks instead, an 80-byte entry per face and hinge
        // corner, took 0.37 s at 27.9K vertices on one core, against 0.03
        // (the twist, 2026-12-03).
        let mut start = Vec::with_capacity(n + 1);
        start.push(0);
        let mut col = Vec::new();
        let mut row = Vec::new();
        for v in 0..n {
            let faces = topo
                .vertex_faces
                .row(v)
                .iter()
                .flat_map(|&(f, _)| cloth.mesh.faces[f as usize]);
            let hinges = topo
                .vertex_hinges
                .row(v)
                .iter()
                .flat_map(|&(h, _)| topo.hinges[h as usize].v);
            row.clear();
            row.extend(faces.chain(hinges).chain([v as u32]));
            row.sort_unstable();
            row.dedup();
            col.extend_from_slice(&row);
            start.push(col.len());
        }
        let a = Bsr {
            cols: n,
            start,
            col,
            val: Vec::new(),
        };
        let slot = |v: usize, w: u32| -> u32 {
            let cols = &a.col[a.start[v]..a.start[v + 1]];
            cols.binary_search(&w).expect("in the pattern") as u32
        };
        let face_slot = (0..n)
            .flat_map(|v| topo.vertex_faces.row(v).iter().map(move |&(f, _)| (v, f)))
            .map(|(v, f)| cloth.mesh.faces[f as usize].map(|w| slot(v, w)))
            .collect();
        let hinge_slot = (0..n)
            .flat_map(|v| topo.vertex_hinges.row(v).iter().map(move |&(h, _)| (v, h)))
            .map(|(v, h)| topo.hinges[h as usize].v.map(|w| slot(v, w)))
            .collect();
        let diagonal_slot = (0..n).map(|v| slot(v, v as u32)).collect();
        Pattern {
            a,
            face_slot,
            hinge_slot,
            diagonal_slot,
        }
    }
}
