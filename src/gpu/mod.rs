//! The GPU backend: the step of `step/sequence.rs` in f32 WGSL compute
//! kernels through wgpu. One `.wgsl` per kernel in `shaders/`, each with a
//! CPU twin of the same name in `src/cpu/` and a wrapper of the same name in
//! `kernels/` (its pipelines, bound to the buffers by name).

mod backend;
mod bandwidth;
mod buffers;
pub mod context;
mod executor;
mod impacts;
mod kernel;
mod kernels;
pub mod layout;
pub mod shaders;

pub use backend::GpuBackend;
pub use bandwidth::{bytes_per_iteration, copy_bandwidth};
pub use context::{GpuContext, adapters};
