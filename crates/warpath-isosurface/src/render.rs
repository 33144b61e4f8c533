//! Images of an isosurface (issue 14, seed 001's generation and shading stages), the CPU
//! reference of `kernels/isosurface/render.cuh`:
//!
//! * [`IsoView`]: a pinhole camera in lattice space, orbiting the lattice box (seed 001 times
//!   its frames over views around the volume). A pixel's ray is
//!   `normalize(corner + (x + ½)·right + (y + ½)·down)` from the eye, every operation in
//!   f64 rounded on its own, so the GPU computes the same ray bit for bit;
//! * [`shade`]: Blinn–Phong with a head light (the light at the eye, as seed 001), the
//!   normal from the interpolant's gradient, two-sided (a normal facing away from the eye is
//!   flipped: isosurfaces of scans are seen from both sides);
//! * [`KeyLight`]: instead of the head light, a directional light fixed to the camera (its
//!   direction in camera coordinates), with optional shadow rays (issue 14): a lit hit casts
//!   a ray toward the light through the same tree, from the hit moved [`SHADOW_OFFSET`]
//!   along the normal, and is left in ambient light when the isosurface blocks it;
//! * [`render`]: the first hit of every pixel through the condensed tree (`cast_bvh`) and
//!   its shade; pixels that miss get the background.
//!
//! Images are linear RGB, row-major from the top-left pixel.

use crate::bricks::{BrickBvh, CondensedTree};
use crate::caster::{IsoHit, cast_bvh};
use crate::lattice::Lattice;

/// A pinhole camera in lattice space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsoView {
    pub width: u32,
    pub height: u32,
    pub eye: [f64; 3],
    /// The direction (unnormalised) through the top-left corner of the image.
    pub corner: [f64; 3],
    /// One pixel to the right, one pixel down.
    pub right: [f64; 3],
    pub down: [f64; 3],
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn normalize(a: [f64; 3]) -> [f64; 3] {
    let length = dot(a, a).sqrt();
    if length > 0.0 { [a[0] / length, a[1] / length, a[2] / length] } else { a }
}

/// Vertical field of view of [`IsoView::orbit`], in degrees.
pub const ORBIT_FOV_DEGREES: f64 = 30.0;

impl IsoView {
    /// A camera looking from `eye` at `target`, `up` roughly up, `fov_y` degrees vertically.
    pub fn look_at(eye: [f64; 3], target: [f64; 3], up: [f64; 3], fov_y: f64, width: u32, height: u32) -> Self {
        let forward = normalize(sub(target, eye));
        let mut right = cross(forward, up);
        if dot(right, right) < 1e-24 {
            // Looking along `up`: any perpendicular will do.
            right = cross(forward, if forward[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] });
        }
        let right = normalize(right);
        let true_up = cross(right, forward);
        let half_height = (fov_y.to_radians() * 0.5).tan();
        let pixel = 2.0 * half_height / height.max(1) as f64;
        let half_width = pixel * width as f64 * 0.5;
        let corner = [
            forward[0] - right[0] * half_width + true_up[0] * half_height,
            forward[1] - right[1] * half_width + true_up[1] * half_height,
            forward[2] - right[2] * half_width + true_up[2] * half_height,
        ];
        IsoView { width, height, eye, corner, right: scale(right, pixel), down: scale(true_up, -pixel) }
    }

    /// A camera on a circle around the lattice box's centre, `azimuth` degrees about the z
    /// axis (0: on the −y side) and `elevation` degrees above the xy plane, far enough that
    /// the box's bounding sphere fills the image's smaller side; z is up.
    pub fn orbit(lattice: &Lattice, azimuth: f64, elevation: f64, width: u32, height: u32) -> Self {
        let upper = lattice.upper();
        let centre = scale(upper, 0.5);
        let radius = 0.5 * dot(upper, upper).sqrt();
        let aspect = (width.max(1) as f64 / height.max(1) as f64).min(1.0);
        // The half angle of the image's smaller side; the bounding sphere fills it, 5% spare.
        let half_angle = ((ORBIT_FOV_DEGREES.to_radians() * 0.5).tan() * aspect).atan();
        let distance = 1.05 * radius / half_angle.sin();
        let (a, e) = (azimuth.to_radians(), elevation.to_radians());
        let offset = [e.cos() * a.sin() * distance, -e.cos() * a.cos() * distance, e.sin() * distance];
        let eye = [centre[0] + offset[0], centre[1] + offset[1], centre[2] + offset[2]];
        Self::look_at(eye, centre, [0.0, 0.0, 1.0], ORBIT_FOV_DEGREES, width, height)
    }

    /// A direction given in camera coordinates (x right, y up, z toward the viewer) as a
    /// unit vector in lattice space; the GPU gets this vector, so both sides use the same.
    pub fn world_direction(&self, camera: [f64; 3]) -> [f64; 3] {
        let right = normalize(self.right);
        let up = scale(normalize(self.down), -1.0);
        let (w, h) = (self.width as f64 * 0.5, self.height as f64 * 0.5);
        let forward: [f64; 3] = std::array::from_fn(|a| self.corner[a] + w * self.right[a] + h * self.down[a]);
        let back = scale(normalize(forward), -1.0);
        normalize(std::array::from_fn(|a| camera[0] * right[a] + camera[1] * up[a] + camera[2] * back[a]))
    }

    /// The ray of pixel (x, y): origin and unit direction (see the module doc).
    pub fn ray(&self, x: u32, y: u32) -> ([f64; 3], [f64; 3]) {
        let (u, v) = (x as f64 + 0.5, y as f64 + 0.5);
        let d: [f64; 3] = std::array::from_fn(|a| self.corner[a] + u * self.right[a] + v * self.down[a]);
        let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        (self.eye, [d[0] / length, d[1] / length, d[2] / length])
    }
}

/// Blinn–Phong parameters (linear RGB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shading {
    pub color: [f32; 3],
    pub ambient: f32,
    pub diffuse: f32,
    pub specular: f32,
    pub shininess: f32,
    pub background: [f32; 3],
    /// None: the head light (seed 001's); Some: a key light, optionally with shadow rays.
    pub key_light: Option<KeyLight>,
}

/// A directional light fixed to the camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyLight {
    /// Toward the light, in camera coordinates (x right, y up, z toward the viewer); need not
    /// be unit ([`IsoView::world_direction`] normalises it).
    pub direction: [f64; 3],
    /// Cast a shadow ray from every hit the light faces.
    pub shadows: bool,
}

impl KeyLight {
    /// From the upper left, in front of the volume: shadows fall down and to the right.
    pub const DEFAULT_DIRECTION: [f64; 3] = [-0.5, 0.7, 0.5];
}

/// How far (lattice units, a thousandth of a cell) a shadow ray starts from its hit, along
/// the normal on the light's side, so it does not find the surface it leaves.
pub const SHADOW_OFFSET: f64 = 1e-3;

impl Default for Shading {
    fn default() -> Self {
        Shading {
            color: [0.85, 0.78, 0.65],
            ambient: 0.08,
            diffuse: 0.85,
            specular: 0.35,
            shininess: 40.0,
            background: [0.0, 0.0, 0.0],
            key_light: None,
        }
    }
}

/// The colour of a hit seen along unit `direction` under a head light: with the light at
/// the eye, L = V = −direction and the half vector is V.
pub fn shade(shading: &Shading, normal: [f64; 3], direction: [f64; 3]) -> [f32; 3] {
    let view = [-direction[0], -direction[1], -direction[2]];
    let mut cosine = dot(normal, view);
    if cosine < 0.0 {
        cosine = -cosine;
    }
    let cosine = cosine.min(1.0) as f32;
    let lambert = shading.ambient + shading.diffuse * cosine;
    let highlight = shading.specular * cosine.powf(shading.shininess);
    std::array::from_fn(|c| shading.color[c] * lambert + highlight)
}

/// The colour of a hit under a key light whose unit direction (lattice space) is `light`:
/// Blinn–Phong at `n`, the normal already turned toward the viewer ([`facing`]); `blocked`
/// (a shadow ray met the isosurface) or a light behind the surface leaves the ambient term.
pub fn shade_key(shading: &Shading, n: [f64; 3], direction: [f64; 3], light: [f64; 3], blocked: bool) -> [f32; 3] {
    let view = [-direction[0], -direction[1], -direction[2]];
    let cos_light = dot(n, light);
    if !(cos_light > 0.0) || blocked {
        return std::array::from_fn(|c| shading.color[c] * shading.ambient);
    }
    let half = normalize([light[0] + view[0], light[1] + view[1], light[2] + view[2]]);
    let cos_half = dot(n, half).clamp(0.0, 1.0) as f32;
    let lambert = shading.ambient + shading.diffuse * (cos_light.min(1.0) as f32);
    let highlight = shading.specular * cos_half.powf(shading.shininess);
    std::array::from_fn(|c| shading.color[c] * lambert + highlight)
}

/// `normal` turned to the side of `view` (isosurfaces are two-sided).
pub fn facing(normal: [f64; 3], view: [f64; 3]) -> [f64; 3] {
    if dot(normal, view) < 0.0 { [-normal[0], -normal[1], -normal[2]] } else { normal }
}

/// Whether the key light `light` is blocked at the hit `t` of the ray (origin, direction)
/// with `n`, the normal turned toward the viewer ([`facing`]): a ray from the hit moved
/// [`SHADOW_OFFSET`] along n (on the viewer's side, where a light the surface faces lies)
/// toward the light meets the isosurface. Every operation in f64 rounded on its own, as
/// render.cuh's.
#[allow(clippy::too_many_arguments)]
pub fn shadow_blocked(
    lattice: &Lattice,
    bvh: &BrickBvh,
    tree: &CondensedTree,
    isovalue: f32,
    (origin, direction): ([f64; 3], [f64; 3]),
    t: f64,
    n: [f64; 3],
    light: [f64; 3],
) -> bool {
    let start: [f64; 3] = std::array::from_fn(|a| (origin[a] + t * direction[a]) + SHADOW_OFFSET * n[a]);
    cast_bvh(lattice, bvh, tree, start, light, isovalue).is_some()
}

/// One image: the colours and each pixel's hit.
pub struct IsoImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[f32; 3]>,
    pub hits: Vec<Option<IsoHit>>,
    /// Per pixel: a shadow ray was cast and met the isosurface (only with shadows on).
    pub shadowed: Vec<bool>,
}

impl IsoImage {
    pub fn hit_count(&self) -> usize {
        self.hits.iter().filter(|h| h.is_some()).count()
    }

    pub fn shadowed_count(&self) -> usize {
        self.shadowed.iter().filter(|s| **s).count()
    }
}

/// The colour of pixel ray (origin, direction) with `hit` (and whether its shadow ray was
/// blocked), under `shading` whose key light (if any) points along `light` in lattice space.
#[allow(clippy::too_many_arguments)]
pub fn shade_hit(
    lattice: &Lattice,
    bvh: &BrickBvh,
    tree: &CondensedTree,
    isovalue: f32,
    shading: &Shading,
    light: [f64; 3],
    ray: ([f64; 3], [f64; 3]),
    hit: &IsoHit,
) -> ([f32; 3], bool) {
    let Some(key) = shading.key_light else { return (shade(shading, hit.normal, ray.1), false) };
    let n = facing(hit.normal, [-ray.1[0], -ray.1[1], -ray.1[2]]);
    let blocked =
        key.shadows && dot(n, light) > 0.0 && shadow_blocked(lattice, bvh, tree, isovalue, ray, hit.t, n, light);
    (shade_key(shading, n, ray.1, light, blocked), blocked)
}

/// Renders `view` of the isosurface of `isovalue` (the tree `bvh.condense(isovalue)`), rows
/// in parallel (rayon).
pub fn render(
    lattice: &Lattice,
    bvh: &BrickBvh,
    tree: &CondensedTree,
    isovalue: f32,
    view: &IsoView,
    shading: &Shading,
) -> IsoImage {
    let (width, height) = (view.width as usize, view.height as usize);
    let mut pixels = vec![shading.background; width * height];
    let mut hits = vec![None; width * height];
    let mut shadowed = vec![false; width * height];
    let light = shading.key_light.map_or([0.0; 3], |k| view.world_direction(k.direction));
    type Row<'a> = (&'a mut [[f32; 3]], &'a mut [Option<IsoHit>], &'a mut [bool]);
    let w = width.max(1);
    let rows: Vec<(usize, Row)> = pixels
        .chunks_mut(w)
        .zip(hits.chunks_mut(w))
        .zip(shadowed.chunks_mut(w))
        .map(|((p, h), s)| (p, h, s))
        .enumerate()
        .collect();
    let render_row = |(y, (colours, row_hits, row_shadowed)): (usize, Row)| {
        for x in 0..width {
            let (origin, direction) = view.ray(x as u32, y as u32);
            let hit = cast_bvh(lattice, bvh, tree, origin, direction, isovalue);
            if let Some(h) = &hit {
                (colours[x], row_shadowed[x]) =
                    shade_hit(lattice, bvh, tree, isovalue, shading, light, (origin, direction), h);
            }
            row_hits[x] = hit;
        }
    };
    use rayon::prelude::*;
    rows.into_par_iter().for_each(render_row);
    IsoImage { width: view.width, height: view.height, pixels, hits, shadowed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields;

    #[test]
    fn the_orbit_sees_the_whole_box_and_the_centre_pixel_looks_at_its_centre() {
        let lattice = fields::spheres([40, 30, 20]);
        for (azimuth, elevation) in [(0.0, 0.0), (90.0, 30.0), (217.0, -45.0)] {
            let view = IsoView::orbit(&lattice, azimuth, elevation, 101, 101);
            let (eye, d) = view.ray(50, 50);
            let centre = scale(lattice.upper(), 0.5);
            let to = normalize(sub(centre, eye));
            assert!(dot(d, to) > 1.0 - 1e-12, "centre pixel {d:?} vs {to:?}");
            // Every corner of the box projects inside the image.
            for corner in 0..8 {
                let p: [f64; 3] = std::array::from_fn(|a| if corner >> a & 1 == 1 { lattice.upper()[a] } else { 0.0 });
                let dir = normalize(sub(p, eye));
                let forward = normalize(sub(centre, eye));
                let along = dot(dir, forward);
                assert!(along > 0.0);
                let plane: [f64; 3] = std::array::from_fn(|a| dir[a] / along);
                let offset = sub(plane, forward);
                let right = normalize(view.right);
                let down = normalize(view.down);
                let pixel = dot(view.right, view.right).sqrt();
                let x = dot(offset, right) / pixel + 50.5;
                let y = dot(offset, down) / pixel + 50.5;
                assert!((0.0..=101.0).contains(&x) && (0.0..=101.0).contains(&y), "corner {corner} at {x}, {y}");
            }
        }
    }

    #[test]
    fn rays_are_unit_and_neighbours_one_pixel_apart() {
        let lattice = fields::marschner_lobb([17, 17, 17]);
        let view = IsoView::orbit(&lattice, 30.0, 20.0, 64, 48);
        let (_, a) = view.ray(32, 24);
        let (_, b) = view.ray(33, 24);
        assert!((dot(a, a) - 1.0).abs() < 1e-14);
        let angle = dot(a, b).acos();
        let pixel = 2.0 * (ORBIT_FOV_DEGREES.to_radians() * 0.5).tan() / 48.0;
        assert!((angle - pixel).abs() < pixel * 0.02, "{angle} vs {pixel}");
    }

    #[test]
    fn a_sphere_faces_the_eye_at_its_centre_and_the_render_equals_the_reference_caster() {
        // One sphere: the value is the distance from the centre; the isosurface of 8 is a
        // sphere of radius 8 lattice units, seen head-on at its centre.
        let n = 33u32;
        let lattice = Lattice::from_fn([n, n, n], |i, j, k| {
            let c = 16.0f32;
            ((i as f32 - c).powi(2) + (j as f32 - c).powi(2) + (k as f32 - c).powi(2)).sqrt()
        })
        .unwrap();
        let bvh = BrickBvh::build(&lattice, 4);
        let tree = bvh.condense(8.0);
        let view = IsoView::orbit(&lattice, 0.0, 0.0, 65, 65);
        let shading = Shading::default();
        let image = render(&lattice, &bvh, &tree, 8.0, &view, &shading);
        // The centre pixel sees the sphere head-on: its normal faces the eye.
        let (_, d) = view.ray(32, 32);
        let centre = image.hits[32 * 65 + 32].expect("the centre pixel hits the sphere");
        assert!(-dot(centre.normal, d) > 0.995, "normal {:?} along {d:?}", centre.normal);
        assert_eq!(image.pixels[32 * 65 + 32], shade(&shading, centre.normal, d));
        for i in 0..image.pixels.len() {
            let (x, y) = ((i % 65) as u32, (i / 65) as u32);
            let (o, d) = view.ray(x, y);
            let reference = crate::caster::cast_reference(&lattice, o, d, 8.0);
            assert_eq!(image.hits[i].map(|h| (h.t, h.cell)), reference.map(|h| (h.t, h.cell)), "pixel {x},{y}");
        }
        assert!(image.hit_count() > 100 && image.hit_count() < 65 * 65);
    }

    /// A sphere of radius 6 floating 6 units above a plane, a light from the upper right:
    /// every plane pixel whose ray toward the light passes the sphere's centre closer than
    /// 5.5 is shadowed (ambient only), every one farther than 6.5 is lit, and without
    /// shadow rays none is; a key light without shadows shades as Blinn–Phong says.
    #[test]
    fn shadow_rays_darken_exactly_the_plane_under_the_sphere() {
        let centre = [20.0f32, 20.0, 22.0];
        let lattice = Lattice::from_fn([41, 41, 41], |i, j, k| {
            let d = ((i as f32 - centre[0]).powi(2) + (j as f32 - centre[1]).powi(2) + (k as f32 - centre[2]).powi(2))
                .sqrt();
            (10.0 - k as f32).max(6.0 - d)
        })
        .unwrap();
        let bvh = BrickBvh::build(&lattice, 8);
        let tree = bvh.condense(0.0);
        let view = IsoView::look_at([20.0, 20.0, 80.0], [20.0, 20.0, 0.0], [0.0, 1.0, 0.0], 40.0, 96, 96);
        let direction = [0.6, 0.0, 0.8];
        let light = view.world_direction(direction);
        assert!((light[0] - 0.6).abs() < 1e-12 && light[1].abs() < 1e-12 && (light[2] - 0.8).abs() < 1e-12);
        let mut shading = Shading { key_light: Some(KeyLight { direction, shadows: true }), ..Shading::default() };
        let image = render(&lattice, &bvh, &tree, 0.0, &view, &shading);
        let (mut dark, mut bright, mut band, mut on_sphere_shadowed) = (0, 0, 0, 0);
        for (i, hit) in image.hits.iter().enumerate() {
            let Some(h) = hit else { continue };
            let (o, d) = view.ray((i % 96) as u32, (i / 96) as u32);
            let p: [f64; 3] = std::array::from_fn(|a| o[a] + h.t * d[a]);
            if (p[2] - 10.0).abs() > 1e-6 {
                on_sphere_shadowed += image.shadowed[i] as usize;
                continue;
            }
            let to_centre: [f64; 3] = std::array::from_fn(|a| centre[a] as f64 - p[a]);
            let along = dot(to_centre, light);
            let miss = (dot(to_centre, to_centre) - along * along).sqrt();
            let ambient: [f32; 3] = std::array::from_fn(|c| shading.color[c] * shading.ambient);
            if along > 0.0 && miss < 5.5 {
                assert!(image.shadowed[i] && image.pixels[i] == ambient, "pixel {i} at {p:?} should be shadowed");
                dark += 1;
            } else if along <= 0.0 || miss > 6.5 {
                assert!(!image.shadowed[i] && image.pixels[i] != ambient, "pixel {i} at {p:?} should be lit");
                bright += 1;
            } else {
                band += 1;
            }
        }
        assert!(dark > 200 && bright > 1000, "{dark} shadowed, {bright} lit plane pixels");
        // The rest of the shadowed pixels lie in the band 5.5..6.5 (the trilinear sphere's
        // radius is not exactly 6); none is on the sphere (the plane lies below it).
        assert!(image.shadowed_count() <= dark + band, "{} shadowed, {dark} + {band}", image.shadowed_count());
        assert_eq!(on_sphere_shadowed, 0);
        // Without shadow rays: nothing shadowed, the plane under the sphere lit like the rest.
        shading.key_light = Some(KeyLight { direction, shadows: false });
        let unshadowed = render(&lattice, &bvh, &tree, 0.0, &view, &shading);
        assert_eq!(unshadowed.shadowed_count(), 0);
        assert_eq!(
            unshadowed.hits.iter().map(|h| h.map(|h| h.t)).collect::<Vec<_>>(),
            image.hits.iter().map(|h| h.map(|h| h.t)).collect::<Vec<_>>()
        );
        let flat = shade_key(&shading, [0.0, 0.0, 1.0], [0.0, 0.0, -1.0], light, false);
        let expected_half = normalize([0.6, 0.0, 1.8]);
        let highlight = shading.specular * (expected_half[2] as f32).powf(shading.shininess);
        for c in 0..3 {
            let want = shading.color[c] * (shading.ambient + shading.diffuse * 0.8) + highlight;
            assert!((flat[c] - want).abs() < 1e-5, "{flat:?}");
        }
    }

    #[test]
    fn shading_is_two_sided_and_bounded() {
        let s = Shading::default();
        let d = [0.0, 0.0, -1.0];
        assert_eq!(shade(&s, [0.0, 0.0, 1.0], d), shade(&s, [0.0, 0.0, -1.0], d));
        let grazing = shade(&s, [1.0, 0.0, 0.0], d);
        assert!((grazing[0] - s.color[0] * s.ambient).abs() < 1e-6);
        assert_eq!(shade(&s, [0.0; 3], d), grazing, "a vanishing gradient shades as grazing");
    }
}
