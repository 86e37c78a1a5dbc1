//! Offscreen pictures on the GPU: `shaders/render.wgsl` drawn into an 8-bit
//! texture `SUPERSAMPLE` times larger than the picture, read back and
//! box-filtered down (`render::downsample`). `render/raster.rs` is the CPU
//! twin.

use super::{BACKGROUND, Frame, Picture, SUPERSAMPLE, downsample};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::util::Image;
use wgpu::util::DeviceExt;

/// The render shader's source (validated by naga in the tests).
pub const SHADER: &str = include_str!("../../shaders/render.wgsl");

/// The render pipeline for one target format: draws pictures into any
/// texture view of that format (an offscreen texture here, the preview
/// window's surface in `preview.rs`).
pub struct Painter {
    pipeline: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

/// The depth buffer's format.
pub const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

impl Painter {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Painter {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("render.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("render"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 28,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32],
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: None,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render frame"),
            size: size_of::<Frame>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render frame"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        Painter {
            pipeline,
            uniform,
            bind_group,
        }
    }

    /// Records drawing `picture` with `frame` into `target`: a colour view
    /// (cleared to the background) and a depth buffer of its size.
    pub fn paint(
        &self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        encoder: &mut wgpu::CommandEncoder,
        (target, depth): (&wgpu::TextureView, &wgpu::TextureView),
        picture: &Picture,
        frame: &Frame,
    ) {
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(frame));
        // Interleaved position, normal, value: 7 floats a vertex.
        let vertices: Vec<f32> = (0..picture.positions.len())
            .flat_map(|i| {
                let (p, n) = (picture.positions[i], picture.normals[i]);
                [p.x, p.y, p.z, n.x, n.y, n.z, picture.values[i]]
            })
            .collect();
        let indices: Vec<u32> = picture.faces.iter().flatten().copied().collect();
        let buffer = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let vertex_buffer = buffer(
            "render vertices",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let index_buffer = buffer(
            "render indices",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );
        let bg = BACKGROUND.map(|c| c as f64 / 255.0);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("render"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: bg[0],
                        g: bg[1],
                        b: bg[2],
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if indices.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, vertex_buffer.slice(..));
        pass.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..indices.len() as u32, 0, 0..1);
    }
}

/// A depth buffer of `width x height` for `Painter::paint`.
pub fn depth_buffer(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("render depth"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// Draws `picture` at `width x height`.
pub fn draw(ctx: &GpuContext, picture: &Picture, frame: &Frame, width: u32, height: u32) -> Result<Image> {
    let (w, h) = (width * SUPERSAMPLE, height * SUPERSAMPLE);
    let max = ctx.limits.max_texture_dimension_2d;
    if w > max || h > max {
        return Err(Error::Argument {
            arg: "--size".into(),
            message: format!(
                "{width}x{height} needs a {w}x{h} texture ({SUPERSAMPLE}x supersampled); this adapter draws at most \
                 {max} pixels a side"
            ),
        });
    }
    let device = &ctx.device;
    let painter = Painter::new(device, wgpu::TextureFormat::Rgba8Unorm);
    let size = wgpu::Extent3d {
        width: w,
        height: h,
        depth_or_array_layers: 1,
    };
    let colour = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("render colour"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    // Rows padded to the copy alignment.
    let row = (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("render readback"),
        size: (row * h) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("render") });
    let view = colour.create_view(&Default::default());
    let depth = depth_buffer(device, w, h);
    painter.paint((device, &ctx.queue), &mut encoder, (&view, &depth), picture, frame);
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture: &colour,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(h),
            },
        },
        size,
    );
    ctx.queue.submit([encoder.finish()]);
    let slice = readback.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
    rx.recv()
        .map_err(|e| Error::Gpu(format!("picture readback: {e}")))?
        .map_err(|e| Error::Gpu(format!("picture readback: {e}")))?;
    ctx.check()?;
    let mapped = slice
        .get_mapped_range()
        .map_err(|e| Error::Gpu(format!("picture readback: {e}")))?;
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h as usize {
        rgba.extend_from_slice(&mapped[y * row as usize..y * row as usize + (w * 4) as usize]);
    }
    drop(mapped);
    readback.unmap();
    Ok(downsample(&rgba, width, height))
}

#[cfg(test)]
mod tests {
    /// The render shader parses and validates without a device.
    #[test]
    fn the_render_shader_validates() {
        let module = naga::front::wgsl::parse_str(super::SHADER).expect("render.wgsl parses");
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
            .validate(&module)
            .expect("render.wgsl validates");
    }
}
