//! Participating media as a scene holds them, and the two tracking estimators the volumetric
//! path tracer is built on (Woodcock / delta tracking for free flights, ratio tracking for
//! transmittance), stepping through the medium's majorant grid.
//!
//! A medium fills the interior of a shape (its boundary decides where the medium is). Its
//! extinction is either homogeneous (RGB σ_t, everywhere inside the shape) or a grid:
//! σ_t(x) = scale · density(x) with the density grid on the unit cube placed by `to_world`,
//! zero outside that cube (as Mitsuba 3's `heterogeneous` medium). The single-scattering
//! albedo is a constant or an RGB grid on the same cube; σ_s = albedo · σ_t. The phase
//! function is Henyey–Greenstein with anisotropy `g`.
//!
//! Free flights are sampled against the majorant σ̄ of each grid cell the ray crosses: a
//! tentative collision at distance −ln(1−u)/σ̄; it is real with probability σ_t/σ̄ (mean over
//! channels for a spectrally varying σ_t, whose weights then correct the throughput), else
//! the flight goes on (null collision). A real collision scatters with weight albedo (the
//! absorbed fraction is carried by the throughput, as Mitsuba's `volpath` does).
//! Transmittance multiplies 1 − σ_t/σ̄ over tentative collisions (ratio tracking), with
//! pbrt-v4's Russian roulette once it falls below 0.05.
//!
//! Every operation is written in the order `kernels/volume/medium.cuh` uses, without fused
//! multiply-adds, and the logarithm is warpath's deterministic one, so the CPU reference and
//! the GPU take the same decisions for the same random numbers.

use crate::grid::VolumeGrid;
use crate::majorant::{MajorantGrid, MajorantWalk, clip_to_unit_cube};
use crate::random::TrackingRng;
use glam::{Mat4, Vec3};
use std::sync::Arc;
use warpath_core::detmath::det_ln;

/// Extinction of a medium.
#[derive(Clone, Debug, PartialEq)]
pub enum MediumDensity {
    /// Constant σ_t per world unit, RGB.
    Homogeneous { sigma_t: Vec3 },
    /// σ_t(x) = `scale` · density(x) per world unit, the grid on the medium's unit cube.
    Grid { density: Arc<VolumeGrid>, scale: f32 },
}

/// Single-scattering albedo of a medium.
#[derive(Clone, Debug, PartialEq)]
pub enum MediumAlbedo {
    Constant(Vec3),
    /// An RGB (or gray) grid on the medium's unit cube.
    Grid(Arc<VolumeGrid>),
}

/// An affine map as three rows of four (`x' = r0·(x, y, z, 1)`), applied with a fixed
/// order of operations on both backends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AffineRows(pub [f32; 12]);

impl AffineRows {
    pub fn from_mat4(m: &Mat4) -> Self {
        let r = m.transpose().to_cols_array(); // rows of m, 4 floats each
        AffineRows([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]])
    }

    #[inline]
    pub fn point(&self, p: Vec3) -> Vec3 {
        let m = &self.0;
        Vec3::new(
            m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3],
            m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
            m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11],
        )
    }

    #[inline]
    pub fn vector(&self, v: Vec3) -> Vec3 {
        let m = &self.0;
        Vec3::new(
            m[0] * v.x + m[1] * v.y + m[2] * v.z,
            m[4] * v.x + m[5] * v.y + m[6] * v.z,
            m[8] * v.x + m[9] * v.y + m[10] * v.z,
        )
    }
}

/// A participating medium.
#[derive(Clone, Debug, PartialEq)]
pub struct Medium {
    pub name: String,
    pub density: MediumDensity,
    pub albedo: MediumAlbedo,
    /// Henyey–Greenstein anisotropy in (−1, 1).
    pub g: f32,
    /// Places the grids' unit cube in the world (identity for homogeneous media).
    pub to_world: Mat4,
    /// World to the unit cube's coordinates.
    pub world_to_local: AffineRows,
    /// σ̄ per cell (scale applied); one cell for homogeneous media.
    pub majorant: MajorantGrid,
    /// σ_t is the same in every channel (delta tracking needs no spectral weights).
    pub gray: bool,
}

/// What the tracking loops did, for the per-path statistics (shared with every backend's
/// `PathCounters`).
pub use warpath_core::counters::TrackingCounts;

/// The end of a free flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FreeFlight {
    /// A real collision at distance `t`: the path scatters there; multiply its throughput by
    /// `weight` (the spectral weights of the null collisions before it and of the real one;
    /// 1 for gray media) and by the albedo there, [`Medium::albedo_along`]. The albedo is
    /// not in `weight` so that a GPU schedule may fetch it later (seed 003's sortingSK
    /// fetches it after reordering the paths by position): the same values either way.
    Scatter { t: f32, weight: Vec3 },
    /// No collision before the segment's end; multiply the throughput by `weight` (1 for
    /// gray media).
    Pass { weight: Vec3 },
}

/// Why a medium cannot be made.
pub fn check_parameters(g: f32, albedo: &MediumAlbedo) -> Result<(), String> {
    if !(g.is_finite() && g > -1.0 && g < 1.0) {
        return Err(format!("g = {g}: the Henyey–Greenstein anisotropy must lie strictly between -1 and 1"));
    }
    if let MediumAlbedo::Constant(a) = albedo {
        if !(a.is_finite() && a.min_element() >= 0.0 && a.max_element() <= 1.0) {
            return Err(format!("albedo {a}: each channel must lie in [0, 1]"));
        }
    }
    Ok(())
}

impl Medium {
    /// A homogeneous medium of extinction `sigma_t` and albedo `albedo`.
    pub fn homogeneous(name: &str, sigma_t: Vec3, albedo: Vec3, g: f32) -> Result<Self, String> {
        if !(sigma_t.is_finite() && sigma_t.min_element() >= 0.0) {
            return Err(format!("sigma_t {sigma_t}: must be finite and not negative"));
        }
        let albedo = MediumAlbedo::Constant(albedo);
        check_parameters(g, &albedo)?;
        Ok(Medium {
            name: name.to_string(),
            density: MediumDensity::Homogeneous { sigma_t },
            albedo,
            g,
            to_world: Mat4::IDENTITY,
            world_to_local: AffineRows::from_mat4(&Mat4::IDENTITY),
            majorant: MajorantGrid::global(sigma_t.max_element()),
            gray: sigma_t.x == sigma_t.y && sigma_t.y == sigma_t.z,
        })
    }

    /// A homogeneous medium from absorption and scattering coefficients.
    pub fn from_coefficients(name: &str, sigma_a: Vec3, sigma_s: Vec3, g: f32) -> Result<Self, String> {
        if !(sigma_a.is_finite() && sigma_s.is_finite() && sigma_a.min_element() >= 0.0 && sigma_s.min_element() >= 0.0)
        {
            return Err(format!("sigma_a {sigma_a}, sigma_s {sigma_s}: must be finite and not negative"));
        }
        let sigma_t = sigma_a + sigma_s;
        let albedo = Vec3::select(sigma_t.cmpgt(Vec3::ZERO), sigma_s / sigma_t, Vec3::ZERO);
        Self::homogeneous(name, sigma_t, albedo, g)
    }

    /// A grid medium: σ_t = `scale` · density, the grids on the unit cube placed by
    /// `to_world` (invertible), majorant cells of `voxels_per_cell` voxels (0: one global
    /// majorant; [`crate::majorant::DEFAULT_VOXELS_PER_CELL`] is the default).
    pub fn grid(
        name: &str,
        density: Arc<VolumeGrid>,
        scale: f32,
        albedo: MediumAlbedo,
        g: f32,
        to_world: Mat4,
        voxels_per_cell: u32,
    ) -> Result<Self, String> {
        if density.channels != 1 {
            return Err(format!("the density grid has {} channels (expected 1)", density.channels));
        }
        if !(scale.is_finite() && scale >= 0.0) {
            return Err(format!("scale {scale}: must be finite and not negative"));
        }
        if let Some((voxel, value)) = density.first_invalid_value() {
            return Err(format!("density {value} at voxel {voxel}: densities must be finite and not negative"));
        }
        if let MediumAlbedo::Grid(a) = &albedo {
            if let Some((voxel, value)) = a
                .data
                .iter()
                .position(|v| !(v.is_finite() && (0.0..=1.0).contains(v)))
                .map(|i| (i / a.channels as usize, a.data[i]))
            {
                return Err(format!("albedo {value} at voxel {voxel}: albedos must lie in [0, 1]"));
            }
        }
        check_parameters(g, &albedo)?;
        let det = to_world.determinant();
        if !(det.is_finite() && det.abs() > 1e-12) {
            return Err("to_world is not invertible".to_string());
        }
        let majorant = MajorantGrid::build(&density, voxels_per_cell, scale);
        Ok(Medium {
            name: name.to_string(),
            density: MediumDensity::Grid { density, scale },
            albedo,
            g,
            to_world,
            world_to_local: AffineRows::from_mat4(&to_world.inverse()),
            majorant,
            gray: true,
        })
    }

    /// The same medium with majorant cells of `voxels_per_cell` voxels (0: one global
    /// majorant). No effect on homogeneous media.
    pub fn with_majorant_cells(mut self, voxels_per_cell: u32) -> Self {
        if let MediumDensity::Grid { density, scale } = &self.density {
            self.majorant = MajorantGrid::build(density, voxels_per_cell, *scale);
        }
        self
    }

    pub fn is_homogeneous(&self) -> bool {
        matches!(self.density, MediumDensity::Homogeneous { .. })
    }

    /// Bytes of grid data (density, albedo and majorants).
    pub fn memory_bytes(&self) -> u64 {
        let density = match &self.density {
            MediumDensity::Grid { density, .. } => density.memory_bytes(),
            MediumDensity::Homogeneous { .. } => 0,
        };
        let albedo = match &self.albedo {
            MediumAlbedo::Grid(a) => a.memory_bytes(),
            MediumAlbedo::Constant(_) => 0,
        };
        density + albedo + self.majorant.values.len() as u64 * 4
    }

    /// σ_t at local point `p` (inside the unit cube for grids).
    #[inline]
    pub fn sigma_t_local(&self, p: Vec3, counts: &mut TrackingCounts) -> Vec3 {
        match &self.density {
            MediumDensity::Homogeneous { sigma_t } => *sigma_t,
            MediumDensity::Grid { density, scale } => {
                counts.density_lookups += 1;
                Vec3::splat(scale * density.lookup(p))
            }
        }
    }

    /// The albedo at local point `p`.
    #[inline]
    pub fn albedo_local(&self, p: Vec3, counts: &mut TrackingCounts) -> Vec3 {
        match &self.albedo {
            MediumAlbedo::Constant(a) => *a,
            MediumAlbedo::Grid(grid) => {
                counts.albedo_lookups += 1;
                grid.lookup_rgb(p)
            }
        }
    }

    /// The albedo at distance `t` along the ray from world point `o` along unit `d`: the
    /// point is the one the free flight's tracker reached (local origin + local direction ·
    /// t, each operation rounded as [`Tracker`] rounds it), so that this equals a lookup
    /// made inside [`Medium::sample_free_flight`] bit for bit. Grid albedos come only with
    /// grid densities, whose tracker works in local coordinates.
    pub fn albedo_along(&self, o: Vec3, d: Vec3, t: f32, counts: &mut TrackingCounts) -> Vec3 {
        match &self.albedo {
            MediumAlbedo::Constant(a) => *a,
            MediumAlbedo::Grid(_) => {
                let origin = self.world_to_local.point(o);
                let direction = self.world_to_local.vector(d);
                self.albedo_local(local_point_along(origin, direction, t), counts)
            }
        }
    }

    /// Samples where a ray travelling from world point `o` along unit `d` first collides
    /// with the medium before distance `t_max` (delta tracking over the majorant grid).
    pub fn sample_free_flight(
        &self,
        o: Vec3,
        d: Vec3,
        t_max: f32,
        rng: &mut TrackingRng,
        counts: &mut TrackingCounts,
    ) -> FreeFlight {
        let mut weight = Vec3::ONE;
        let Some(mut tracker) = Tracker::new(self, o, d, t_max) else { return FreeFlight::Pass { weight } };
        let mut tau = -det_ln(1.0 - rng.next());
        while let Some(sigma_bar) = tracker.next_collision(&mut tau) {
            counts.steps += 1;
            let p = tracker.position();
            let ratio = self.sigma_t_local(p, counts) / sigma_bar;
            let p_real = if self.gray { ratio.x } else { (ratio.x + ratio.y + ratio.z) / 3.0 };
            if rng.next() < p_real {
                if !self.gray {
                    weight = weight * (ratio / p_real);
                }
                return FreeFlight::Scatter { t: tracker.t, weight };
            }
            if !self.gray {
                weight = weight * ((Vec3::ONE - ratio) / (1.0 - p_real));
            }
            tau = -det_ln(1.0 - rng.next());
        }
        FreeFlight::Pass { weight }
    }

    /// The transmittance from world point `o` along unit `d` over `[0, t_max]` (ratio
    /// tracking, Russian roulette below 0.05).
    pub fn transmittance(
        &self,
        o: Vec3,
        d: Vec3,
        t_max: f32,
        rng: &mut TrackingRng,
        counts: &mut TrackingCounts,
    ) -> Vec3 {
        let mut transmittance = Vec3::ONE;
        let Some(mut tracker) = Tracker::new(self, o, d, t_max) else { return transmittance };
        let mut tau = -det_ln(1.0 - rng.next());
        while let Some(sigma_bar) = tracker.next_collision(&mut tau) {
            counts.steps += 1;
            let ratio = self.sigma_t_local(tracker.position(), counts) / sigma_bar;
            transmittance = transmittance * (Vec3::ONE - ratio.min(Vec3::ONE));
            let largest = transmittance.max_element();
            if largest <= 0.0 {
                return Vec3::ZERO;
            }
            if largest < 0.05 {
                if rng.next() < 0.75 {
                    return Vec3::ZERO;
                }
                transmittance = transmittance / 0.25;
            }
            tau = -det_ln(1.0 - rng.next());
        }
        transmittance
    }
}

/// The walk of one ray segment through a medium's majorant cells, stopping at tentative
/// collisions.
struct Tracker<'a> {
    medium: &'a Medium,
    /// The ray in the medium's local coordinates, parametrised by world distance.
    origin: Vec3,
    direction: Vec3,
    /// Distance of the current position.
    t: f32,
    t_end: f32,
    /// Grid media: the cell walk (homogeneous media have one unbounded cell).
    walk: Option<MajorantWalk>,
}

impl<'a> Tracker<'a> {
    fn new(medium: &'a Medium, o: Vec3, d: Vec3, t_max: f32) -> Option<Self> {
        if medium.is_homogeneous() {
            return (t_max > 0.0).then_some(Tracker {
                medium,
                origin: o,
                direction: d,
                t: 0.0,
                t_end: t_max,
                walk: None,
            });
        }
        let origin = medium.world_to_local.point(o);
        let direction = medium.world_to_local.vector(d);
        let (t0, t1) = clip_to_unit_cube(origin, direction, t_max)?;
        let walk = MajorantWalk::new(origin, direction, t0, t1, medium.majorant.resolution);
        Some(Tracker { medium, origin, direction, t: t0, t_end: t1, walk: Some(walk) })
    }

    /// The current position in local coordinates.
    #[inline]
    fn position(&self) -> Vec3 {
        local_point_along(self.origin, self.direction, self.t)
    }

    /// Moves to the next tentative collision, `tau` optical depth (in majorant units) ahead,
    /// and returns the majorant there; `None` when the segment ends first. `tau` keeps what
    /// is left of the optical depth across cells.
    #[inline]
    fn next_collision(&mut self, tau: &mut f32) -> Option<f32> {
        loop {
            let (cell_end, sigma_bar) = match &self.walk {
                Some(walk) => (walk.cell_end(), self.medium.majorant.value(walk.cell_u32())),
                None => (self.t_end, self.medium.majorant.values[0]),
            };
            if sigma_bar > 0.0 {
                let t = self.t + *tau / sigma_bar;
                if t < cell_end {
                    self.t = t;
                    return Some(sigma_bar);
                }
                *tau -= (cell_end - self.t) * sigma_bar;
                if *tau < 0.0 {
                    *tau = 0.0;
                }
            }
            self.t = cell_end;
            let resolution = self.medium.majorant.resolution;
            if !self.walk.as_mut().is_some_and(|walk| walk.advance(resolution)) {
                return None;
            }
        }
    }
}

/// Which media a shape's boundary separates, packed in a `u32` per triangle (what the GPU
/// reads): 0 for a shape that declares no media (crossing it keeps the current medium);
/// otherwise bit 31 set, the interior medium + 1 in bits 0–14 and the exterior medium + 1 in
/// bits 15–29 (0: vacuum). The interior is the side the geometric normal (the triangle's
/// winding) points away from, as in Mitsuba 3.
pub mod interface {
    /// Media a scene may hold (15 bits per side).
    pub const MAX_MEDIA: usize = (1 << 15) - 2;
    const DECLARED: u32 = 1 << 31;
    const MASK: u32 = (1 << 15) - 1;

    pub fn pack(interior: Option<u32>, exterior: Option<u32>) -> u32 {
        let side = |m: Option<u32>| m.map_or(0, |m| (m + 1) & MASK);
        DECLARED | side(interior) | (side(exterior) << 15)
    }

    /// Whether crossing the triangle changes the medium.
    #[inline]
    pub fn is_transition(packed: u32) -> bool {
        packed & DECLARED != 0
    }

    /// The medium (index + 1, 0 = vacuum) on the side a direction with `cos_to_normal` =
    /// dot(direction, geometric normal) goes to.
    #[inline]
    pub fn target(packed: u32, cos_to_normal: f32) -> u32 {
        if cos_to_normal < 0.0 { packed & MASK } else { (packed >> 15) & MASK }
    }

    /// The interior and exterior media of a packed interface (None: vacuum or undeclared).
    pub fn unpack(packed: u32) -> (Option<u32>, Option<u32>) {
        let side = |v: u32| if v == 0 { None } else { Some(v - 1) };
        if !is_transition(packed) { (None, None) } else { (side(packed & MASK), side((packed >> 15) & MASK)) }
    }
}

/// origin + direction · t per component, one rounding per operation (no fused multiply-add,
/// as the GPU's `tracker_position`).
#[inline]
fn local_point_along(origin: Vec3, direction: Vec3, t: f32) -> Vec3 {
    Vec3::new(origin.x + direction.x * t, origin.y + direction.y * t, origin.z + direction.z * t)
}
