//! `crease preview SCENE`: the simulation live in a window (winit + wgpu),
//! drawn with the same render pipeline as `crease render`
//! (`render/gpu.rs`), obstacles included (their grids' zero level set).
//!
//! Mouse: drag to orbit, wheel to zoom. Keys: space pauses and resumes, N
//! (or the right arrow) steps once while paused, R restarts, C cycles the
//! colouring (plain, |theta - theta_rest|, plastic strain, friction
//! slipping), Escape or Q quits. The title shows the phase, simulated time,
//! steps per second and the fraction of real time.
//!
//! The simulation runs on its own backend (CPU or GPU); each frame reads its
//! positions back and draws them on the window's device.

use crate::cloth::Cloth;
use crate::error::{Error, Result};
use crate::model::channel::Channels;
use crate::render::gpu::{Painter, depth_buffer};
use crate::render::{Camera, FOV_Y, Picture, add_obstacles, bend_values, obstacle_surfaces};
use crate::scene::Scene;
use crate::sim::Simulation;
use crate::step::Backend;
use glam::DVec3;
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

pub struct Options {
    /// Simulation steps per drawn frame.
    pub steps_per_frame: u32,
    /// Quit after this many drawn frames (for scripted runs and tests).
    pub exit_after: Option<u64>,
}

/// How the cloth is coloured; C cycles through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Plain,
    Bend,
    Plastic,
    Slip,
}

impl Mode {
    fn next(self) -> Mode {
        match self {
            Mode::Plain => Mode::Bend,
            Mode::Bend => Mode::Plastic,
            Mode::Plastic => Mode::Slip,
            Mode::Slip => Mode::Plain,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Bend => "|theta - theta_rest|",
            Mode::Plastic => "plastic strain",
            Mode::Slip => "friction slipping",
        }
    }
}

/// Per vertex, the largest |eps_p| (plastic) or the fraction of slipping
/// channels (slip) of its hinges.
fn channel_values(cloth: &Cloth, channels: &Channels, slip: bool) -> Vec<f64> {
    let n = cloth.vertex_count();
    let (mut value, mut count) = (vec![0.0f64; n], vec![0u32; n]);
    for ((h, state), rest) in cloth
        .topology
        .hinges
        .iter()
        .zip(&channels.hinges)
        .zip(&cloth.hinge_rest)
    {
        for &v in &h.v[..2] {
            let v = v as usize;
            if slip {
                value[v] += state.friction.slip as u8 as f64;
                count[v] += 1;
            } else {
                value[v] = value[v].max(
                    rest.plastic_angle(cloth.material.bending_strain, state.plastic.eps_p)
                        .abs(),
                );
            }
        }
    }
    if slip {
        for (v, c) in value.iter_mut().zip(&count) {
            *v /= (*c).max(1) as f64;
        }
    }
    value
}

/// The window and its device.
struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    painter: Painter,
    depth: wgpu::TextureView,
}

struct App<'a> {
    scene: Scene,
    make_backend: &'a dyn Fn(&Scene) -> Result<Box<dyn Backend>>,
    sim: Simulation,
    options: Options,
    gfx: Option<Gfx>,
    /// Each obstacle's surface in its own frame (a body's: its first frame,
    /// whose triangles the frame at a step's end is drawn with).
    obstacles: Vec<Picture>,
    /// Orbit camera about the cloth's first bounding box.
    target: DVec3,
    radius: f64,
    yaw: f64,
    pitch: f64,
    zoom: f64,
    drag: Option<(f64, f64)>,
    cursor: (f64, f64),
    paused: bool,
    step_once: bool,
    mode: Mode,
    frames: u64,
    /// Steps per second over the last second.
    rate: (Instant, u64, f64),
    error: Option<Error>,
}

impl App<'_> {
    fn advance(&mut self) -> Result<()> {
        let steps = if self.paused {
            std::mem::take(&mut self.step_once) as u32
        } else {
            self.options.steps_per_frame
        };
        for _ in 0..steps {
            if self.sim.done() {
                self.paused = true;
                break;
            }
            // The window shows no contact depths: they are not measured.
            self.sim.step_measuring(false)?;
        }
        let (since, steps_then, _) = self.rate;
        let elapsed = since.elapsed().as_secs_f64();
        if elapsed >= 1.0 {
            let rate = (self.sim.steps() - steps_then) as f64 / elapsed;
            self.rate = (Instant::now(), self.sim.steps(), rate);
        }
        Ok(())
    }

    fn picture(&self) -> Result<Picture> {
        let backend = self.sim.backend();
        let x = backend.positions()?;
        let cloth = backend.cloth();
        let values = match self.mode {
            Mode::Plain => None,
            Mode::Bend => {
                let rest: Vec<f64> = cloth.hinge_rest.iter().map(|r| r.theta).collect();
                Some(bend_values(&cloth.topology, &x, &rest))
            }
            Mode::Plastic => Some(channel_values(&cloth, &backend.channels()?, false)),
            Mode::Slip => Some(channel_values(&cloth, &backend.channels()?, true)),
        };
        let mut picture = Picture::new(&x, &cloth.mesh.faces, values.as_deref());
        add_obstacles(&mut picture, &self.sim.scene, &self.obstacles, self.sim.steps());
        Ok(picture)
    }

    fn camera(&self) -> Camera {
        let dir = DVec3::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        );
        // The bounding sphere fills the view at zoom 1; the depth range
        // leaves room for a cloth that falls or swings out of it.
        let distance = self.zoom * self.radius / (0.5 * FOV_Y).sin();
        Camera::looking_at(self.target, dir, distance, 3.0 * self.radius)
    }

    fn title(&self) -> String {
        let real = self.rate.2 * self.scene.dt;
        format!(
            "crease preview: {} | {} t = {:.3} s | {:.0} steps/s ({:.3}x real time) | colour: {}{}",
            self.scene.name,
            self.sim.phase_name(),
            self.sim.time(),
            self.rate.2,
            real,
            self.mode.name(),
            if self.paused { " | paused" } else { "" }
        )
    }

    fn draw(&mut self) -> Result<()> {
        let picture = self.picture()?;
        let title = self.title();
        let camera = self.camera();
        let coloured = self.mode != Mode::Plain;
        let Some(gfx) = self.gfx.as_mut() else {
            return Ok(());
        };
        let aspect = gfx.config.width as f64 / gfx.config.height.max(1) as f64;
        let frame = camera.frame(aspect, coloured);
        let texture = match gfx.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                gfx.surface.configure(&gfx.device, &gfx.config);
                return Ok(());
            }
            // Timed out, occluded (minimised): skip this frame.
            _ => return Ok(()),
        };
        let view = texture.texture.create_view(&Default::default());
        let mut encoder = gfx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("preview") });
        gfx.painter.paint(
            (&gfx.device, &gfx.queue),
            &mut encoder,
            (&view, &gfx.depth),
            &picture,
            &frame,
        );
        gfx.queue.submit([encoder.finish()]);
        gfx.window.pre_present_notify();
        gfx.queue.present(texture);
        gfx.window.set_title(&title);
        Ok(())
    }

    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let window = event_loop
            .create_window(
                Window::default_attributes()
                    .with_title("crease preview")
                    .with_inner_size(winit::dpi::LogicalSize::new(1024.0, 768.0)),
            )
            .map_err(|e| Error::Gpu(format!("opening the preview window: {e}")))?;
        let window = Arc::new(window);
        let instance = crate::gpu::context::instance();
        let surface = instance
            .create_surface(Arc::clone(&window))
            .map_err(|e| Error::Gpu(format!("a surface for the preview window: {e}")))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| Error::Gpu(format!("no GPU adapter can draw into the preview window ({e})")))?;
        let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))
            .map_err(|e| Error::Gpu(format!("the adapter refused a device: {e}")))?;
        let size = window.inner_size();
        let caps = surface.get_capabilities(&adapter);
        // The shader applies gamma itself: prefer a plain (non-sRGB) format.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or(caps.formats.first().copied())
            .ok_or_else(|| Error::Gpu("the preview window's surface offers no format".into()))?;
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: Vec::new(),
            color_space: Default::default(),
        };
        surface.configure(&device, &config);
        let painter = Painter::new(&device, format);
        let depth = depth_buffer(&device, config.width, config.height);
        self.gfx = Some(Gfx {
            window,
            surface,
            device,
            queue,
            config,
            painter,
            depth,
        });
        Ok(())
    }

    fn resize(&mut self, width: u32, height: u32) {
        if let Some(gfx) = self.gfx.as_mut() {
            gfx.config.width = width.max(1);
            gfx.config.height = height.max(1);
            gfx.surface.configure(&gfx.device, &gfx.config);
            gfx.depth = depth_buffer(&gfx.device, gfx.config.width, gfx.config.height);
        }
    }

    fn restart(&mut self) -> Result<()> {
        self.sim = Simulation::new(self.scene.clone(), (self.make_backend)(&self.scene)?);
        self.rate = (Instant::now(), 0, 0.0);
        Ok(())
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: Error) {
        self.error = Some(e);
        event_loop.exit();
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_none()
            && let Err(e) = self.open(event_loop)
        {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                match event.logical_key.as_ref() {
                    Key::Named(NamedKey::Escape) | Key::Character("q") => event_loop.exit(),
                    Key::Named(NamedKey::Space) => self.paused = !self.paused,
                    Key::Named(NamedKey::ArrowRight) | Key::Character("n") => {
                        self.paused = true;
                        self.step_once = true;
                    }
                    Key::Character("c") => self.mode = self.mode.next(),
                    Key::Character("r") => {
                        if let Err(e) = self.restart() {
                            self.fail(event_loop, e);
                        }
                    }
                    _ => {}
                }
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.drag = (state == ElementState::Pressed).then_some(self.cursor);
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor = (position.x, position.y);
                if let Some((x, y)) = self.drag {
                    self.yaw -= (position.x - x) * 0.008;
                    self.pitch = (self.pitch + (position.y - y) * 0.008).clamp(-1.5, 1.5);
                    self.drag = Some(self.cursor);
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y as f64,
                    MouseScrollDelta::PixelDelta(p) => p.y / 40.0,
                };
                self.zoom = (self.zoom * 0.9f64.powf(lines)).clamp(0.05, 20.0);
            }
            WindowEvent::RedrawRequested => {
                let result = self.advance().and_then(|_| self.draw());
                if let Err(e) = result {
                    self.fail(event_loop, e);
                    return;
                }
                self.frames += 1;
                if self.options.exit_after.is_some_and(|n| self.frames >= n) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }
}

/// Opens the window and runs `scene` in it until the window closes.
pub fn run(scene: Scene, make_backend: &dyn Fn(&Scene) -> Result<Box<dyn Backend>>, options: Options) -> Result<()> {
    let event_loop = EventLoop::new().map_err(|e| {
        // winit says where in its own source it failed ("os error at
        // <path in the cargo registry>:788: Failed to open ..."): keep the
        // reason.
        let e = e.to_string();
        let reason = match e.strip_prefix("os error at ") {
            Some(rest) => rest.split_once(": ").map_or(rest, |(_, r)| r),
            None => &e,
        };
        Error::Preview(format!(
            "no display for the window ({reason}): run it on a desktop, or under Xvfb (see the README)"
        ))
    })?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let obstacles = obstacle_surfaces(&scene);
    // The camera orbits the cloth and the obstacles that start enabled.
    let (mut lo, mut hi) = scene.cloth.mesh.bounds();
    for (picture, o) in obstacles.iter().zip(&scene.obstacles) {
        if o.enabled && !picture.positions.is_empty() {
            let (a, b) = picture.bounds();
            (lo, hi) = (lo.min(a), hi.max(b));
        }
    }
    let sim = Simulation::new(scene.clone(), make_backend(&scene)?);
    let mut app = App {
        scene,
        make_backend,
        sim,
        options,
        gfx: None,
        obstacles,
        target: 0.5 * (lo + hi),
        radius: (0.5 * (hi - lo).length()).max(1e-3),
        yaw: 0.5,
        pitch: 0.6,
        zoom: 1.1,
        drag: None,
        cursor: (0.0, 0.0),
        paused: false,
        step_once: false,
        mode: Mode::Plain,
        frames: 0,
        rate: (Instant::now(), 0, 0.0),
        error: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| Error::Gpu(format!("the preview window's event loop: {e}")))?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
