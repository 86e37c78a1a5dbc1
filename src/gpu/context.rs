//! The wgpu device: adapter selection with clear errors, and the modules
//! built from the WGSL kernels with bind-group layouts reflected by naga.

use super::shaders;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub struct GpuContext {
    pub adapter: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The first error the device reported outside an error scope (wgpu's
    /// default would panic), or its loss: surfaced by `check`.
    fault: Arc<Mutex<Option<String>>>,
}

/// The process's one wgpu instance, never dropped. Each instance dropped
/// lets the Vulkan loader unload the driver; NVIDIA's driver leaves worker
/// threads running for a moment after that, which then jump into unmapped
/// code: contexts opened and closed on several threads (tests, parallel
/// variants) crashed with SIGSEGV on an H200 until they shared this one.
pub(crate) fn instance() -> wgpu::Instance {
    static INSTANCE: OnceLock<wgpu::Instance> = OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            wgpu::Instance::new(wgpu::InstanceDescriptor {
                backends: wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12,
                ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
            })
        })
        .clone()
}

/// Every adapter wgpu sees (for `crease info`).
pub fn adapters() -> Vec<(wgpu::AdapterInfo, wgpu::Limits)> {
    let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
    adapters.iter().map(|a| (a.get_info(), a.limits())).collect()
}

impl GpuContext {
    /// Opens the best adapter with its own limits.
    pub fn new() -> Result<GpuContext> {
        let adapter = pollster::block_on(instance().request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            ..Default::default()
        }))
        .map_err(|e| {
            Error::Gpu(format!(
                "no GPU adapter ({e}): install a Vulkan, Metal or DX12 driver (on Linux without a GPU, \
                 Mesa's lavapipe: apt-get install mesa-vulkan-drivers libvulkan1) or use --backend cpu"
            ))
        })?;
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("crease"),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| Error::Gpu(format!("the adapter refused a device: {e}")))?;
        let fault: Arc<Mutex<Option<String>>> = Arc::default();
        let record = |fault: &Arc<Mutex<Option<String>>>, message: String| {
            if let Ok(mut f) = fault.lock() {
                f.get_or_insert(message);
            }
        };
        let f = Arc::clone(&fault);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let kind = match e {
                wgpu::Error::OutOfMemory { .. } => "out of device memory (use a coarser mesh or --backend cpu)",
                _ => "device error",
            };
            record(&f, format!("{kind}: {e}"));
        }));
        let f = Arc::clone(&fault);
        device.set_device_lost_callback(move |reason, message| {
            record(&f, format!("the device was lost ({reason:?}): {message}"));
        });
        Ok(GpuContext {
            adapter: adapter.get_info(),
            limits,
            device,
            queue,
            fault,
        })
    }

    /// The device's first uncaptured error or loss, as an error.
    pub fn check(&self) -> Result<()> {
        match self.fault.lock().ok().and_then(|f| f.clone()) {
            Some(message) => Err(Error::Gpu(message)),
            None => Ok(()),
        }
    }
}

/// A shader file compiled for the device, with a bind-group layout per
/// entry point that holds only the bindings the entry uses: wgpu tracks
/// every buffer of a bind group at each dispatch, and a file such as
/// shaders/multilevel.wgsl declares 27 where a kernel uses 9 to 11.
pub struct Module {
    name: &'static str,
    module: wgpu::ShaderModule,
    entries: HashMap<String, Entry>,
    /// The pipelines of the entries built so far (a kernel bound again to
    /// other buffers, such as a multilevel level's, reuses its entry's).
    pipelines: std::cell::RefCell<HashMap<String, wgpu::ComputePipeline>>,
}

/// One entry point's bindings: each global it uses, by name, with its
/// binding number, and the layouts of those.
struct Entry {
    bindings: Vec<(String, u32)>,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

impl Entry {
    /// The bindings of entry point `entry` of shader file `file` (naga's
    /// `module`), those of the globals that `uses` (its analysis, callees
    /// included) says it reads or writes.
    fn of(
        ctx: &GpuContext,
        file: &str,
        module: &naga::Module,
        entry: &str,
        uses: &naga::valid::FunctionInfo,
    ) -> Result<Entry> {
        let mut layout_entries = Vec::new();
        let (mut bindings, mut storage) = (Vec::new(), 0);
        for (handle, var) in module.global_variables.iter() {
            let (Some(binding), Some(name)) = (&var.binding, &var.name) else {
                continue;
            };
            if uses[handle].is_empty() {
                continue;
            }
            let ty = match var.space {
                naga::AddressSpace::Uniform => wgpu::BufferBindingType::Uniform,
                naga::AddressSpace::Storage { access } => {
                    storage += 1;
                    wgpu::BufferBindingType::Storage {
                        read_only: !access.contains(naga::StorageAccess::STORE),
                    }
                }
                _ => continue,
            };
            layout_entries.push(wgpu::BindGroupLayoutEntry {
                binding: binding.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
            bindings.push((name.clone(), binding.binding));
        }
        let allowed = ctx.limits.max_storage_buffers_per_shader_stage;
        if storage > allowed {
            return Err(Error::Gpu(format!(
                "shaders/{file}.wgsl entry {entry} needs {storage} storage buffers, the adapter allows {allowed} per stage"
            )));
        }
        let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(entry),
            entries: &layout_entries,
        });
        let pipeline_layout = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(entry),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        Ok(Entry {
            bindings,
            layout,
            pipeline_layout,
        })
    }
}

impl Module {
    pub fn new(ctx: &GpuContext, name: &'static str) -> Result<Module> {
        let (reflected, info) = shaders::validate(name)?;
        let device = &ctx.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(shaders::source(name)?.into()),
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!(
                "shaders/{name}.wgsl failed to compile on the device: {e}"
            )));
        }
        let entries = reflected
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let e = Entry::of(ctx, name, &reflected, &entry.name, info.get_entry_point(i))?;
                Ok((entry.name.clone(), e))
            })
            .collect::<Result<_>>()?;
        Ok(Module {
            name,
            module,
            entries,
            pipelines: Default::default(),
        })
    }

    fn entry(&self, entry: &str) -> Result<&Entry> {
        self.entries
            .get(entry)
            .ok_or_else(|| Error::Gpu(format!("shaders/{}.wgsl has no entry point {entry}", self.name)))
    }

    pub fn pipeline(&self, ctx: &GpuContext, entry: &str) -> Result<wgpu::ComputePipeline> {
        if let Some(p) = self.pipelines.borrow().get(entry) {
            return Ok(p.clone());
        }
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let p = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&self.entry(entry)?.pipeline_layout),
            module: &self.module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(Error::Gpu(format!("shaders/{}.wgsl entry {entry}: {e}", self.name))),
            None => {
                self.pipelines.borrow_mut().insert(entry.to_string(), p.clone());
                Ok(p)
            }
        }
    }

    /// A bind group giving every binding that entry `entry` uses the
    /// buffer `find` returns for its name.
    pub fn bind_group<'a>(
        &self,
        ctx: &GpuContext,
        entry: &str,
        find: impl Fn(&str) -> Option<&'a wgpu::Buffer>,
    ) -> Result<wgpu::BindGroup> {
        let e = self.entry(entry)?;
        let mut entries = Vec::new();
        for (name, binding) in &e.bindings {
            let buffer = find(name).ok_or_else(|| {
                Error::Gpu(format!(
                    "shaders/{}.wgsl entry {entry}: no buffer for `{name}`",
                    self.name
                ))
            })?;
            entries.push(wgpu::BindGroupEntry {
                binding: *binding,
                resource: buffer.as_entire_binding(),
            });
        }
        Ok(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(entry),
            layout: &e.layout,
            entries: &entries,
        }))
    }
}
