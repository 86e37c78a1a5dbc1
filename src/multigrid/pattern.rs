//! The finest level's pattern: the mesh's (each vertex with the vertices
//! of its faces and hinges), and where each element block lands in it.
//! Both executors assemble the step's matrix into it (`cpu/multilevel`,
//! `shaders/multilevel.wgsl` `assemble`).

use super::bsr::Bsr;
use crate::cloth::Cloth;
use glam::DMat3;

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
        let rows: Vec<Vec<(u32, DMat3)>> = (0..n)
            .map(|v| {
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
                faces
                    .chain(hinges)
                    .chain([v as u32])
                    .map(|w| (w, DMat3::ZERO))
                    .collect()
            })
            .collect();
        let a = Bsr::from_rows(n, rows);
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
        let a = Bsr { val: Vec::new(), ..a };
        Pattern {
            a,
            face_slot,
            hinge_slot,
            diagonal_slot,
        }
    }
}
