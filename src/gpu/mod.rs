//! The GPU backend: the same step as the CPU reference, in f32 WGSL compute
//! kernels through wgpu (one `.wgsl` per kernel in `shaders/`, each with a
//! CPU twin of the same name in `src/cpu/`).

mod backend;
pub mod context;
pub mod layout;
pub mod shaders;

pub use backend::{GpuBackend, bytes_per_iteration, copy_bandwidth};
pub use context::{GpuContext, adapters};
