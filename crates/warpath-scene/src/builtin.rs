//! Scenes reachable by name, needing no files, and the primitive meshes the TOML format
//! offers (Mitsuba's `rectangle` and `cube`, a tessellated sphere).
//!
//! - `cornell`: Mitsuba 3's `cornell_box()` exactly (shapes placed by its `to_world`
//!   matrices, its reflectances and light radiance, its camera), 256×256, 8 bounces;
//! - `cornell-glass`: the same box with a glass, a chrome and a car-paint sphere;
//! - `furnace` (or `furnace:ALBEDO`): a diffuse sphere in a uniform environment of
//!   radiance 1, the white furnace test;
//! - `terrain`: a procedural height field of about one million triangles (diffuse rock,
//!   glossy snow, a mirror lake), a chrome and a glass sphere, lit by a rectangular area
//!   light and a constant sky;
//! - `many-lights` (or `many-lights:N`): 10,240 (N) small emissive triangles of 32 colours
//!   hovering over a floor with spheres and a box, no environment — the many-light scene of
//!   ReSTIR DI (issue 15).

use crate::mesh::{SceneBuilder, TriangleMesh};
use crate::{RenderSettings, Scene};
use glam::{Mat4, Vec2, Vec3};
use std::collections::HashMap;
use std::path::Path;
use warpath_core::camera::{Camera, FovAxis};
use warpath_core::light::Environment;
use warpath_core::material::Material;

/// Names [`by_name`] knows.
pub const NAMES: &[&str] = &["cornell", "cornell-glass", "furnace", "terrain", "many-lights"];

/// The built-in scenes as `warpath info --list` shows them, with their parameters.
pub const FORMS: &[&str] = &[
    "cornell",
    "cornell-glass",
    "furnace[:ALBEDO] (0..1, default 0.8)",
    "terrain",
    "many-lights[:COUNT] (1..4000000 emitters, default 10240)",
];

/// Emissive triangles of the `many-lights` scene by default.
pub const MANY_LIGHTS: u32 = 10_240;

/// A built-in scene by name, or `None`. `furnace:0.5` sets the furnace sphere's albedo.
pub fn by_name(name: &str) -> Option<Scene> {
    match name {
        "cornell" => Some(cornell()),
        "cornell-glass" => Some(cornell_glass()),
        "furnace" => Some(furnace(0.8)),
        "terrain" => Some(terrain(707)),
        "many-lights" => Some(many_lights(MANY_LIGHTS)),
        _ => {
            if let Some(count) = name.strip_prefix("many-lights:") {
                let count: u32 = count.parse().ok()?;
                return (1..=4_000_000).contains(&count).then(|| many_lights(count));
            }
            let albedo: f32 = name.strip_prefix("furnace:")?.parse().ok()?;
            (albedo.is_finite() && (0.0..=1.0).contains(&albedo)).then(|| furnace(albedo))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Primitives
// ---------------------------------------------------------------------------------------

/// Mitsuba's `rectangle`: the square [-1,1]² in the xy-plane, normal +z, two triangles
/// wound counter-clockwise seen from +z.
pub fn rectangle_mesh() -> TriangleMesh {
    TriangleMesh {
        name: "rectangle".into(),
        positions: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 4],
        uvs: vec![Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(1.0, 1.0), Vec2::new(0.0, 1.0)],
        triangles: vec![[0, 1, 2], [2, 3, 0]],
        material: None,
    }
}

/// Mitsuba's `cube`: [-1,1]³, four vertices per face with the face's normal, triangles
/// wound counter-clockwise seen from outside.
pub fn cube_mesh() -> TriangleMesh {
    let mut mesh = TriangleMesh { name: "cube".into(), ..TriangleMesh::default() };
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut normal = Vec3::ZERO;
            normal[axis] = sign;
            // Two tangents with u × v = normal.
            let mut u = Vec3::ZERO;
            u[(axis + 1) % 3] = 1.0;
            let mut v = Vec3::ZERO;
            v[(axis + 2) % 3] = 1.0;
            if sign < 0.0 {
                std::mem::swap(&mut u, &mut v);
            }
            let base = mesh.positions.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                mesh.positions.push(normal + u * a + v * b);
                mesh.normals.push(normal);
                mesh.uvs.push(Vec2::new(0.5 * (a + 1.0), 0.5 * (b + 1.0)));
            }
            mesh.triangles.push([base, base + 1, base + 2]);
            mesh.triangles.push([base + 2, base + 3, base]);
        }
    }
    mesh
}

/// A unit sphere: an icosahedron subdivided `subdivisions` times (20·4ⁿ triangles),
/// vertices on the sphere, smooth normals, equirectangular uvs.
pub fn sphere_mesh(subdivisions: u32) -> TriangleMesh {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let mut positions: Vec<Vec3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
    .collect();
    let mut triangles: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut midpoints: HashMap<(u32, u32), u32> = HashMap::with_capacity(triangles.len() * 2);
        let mut midpoint = |a: u32, b: u32, positions: &mut Vec<Vec3>| -> u32 {
            let key = (a.min(b), a.max(b));
            *midpoints.entry(key).or_insert_with(|| {
                positions.push((positions[a as usize] + positions[b as usize]).normalize());
                positions.len() as u32 - 1
            })
        };
        let mut next = Vec::with_capacity(triangles.len() * 4);
        for &[a, b, c] in &triangles {
            let ab = midpoint(a, b, &mut positions);
            let bc = midpoint(b, c, &mut positions);
            let ca = midpoint(c, a, &mut positions);
            next.extend_from_slice(&[[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        triangles = next;
    }
    let uvs = positions
        .iter()
        .map(|p| {
            let u = 0.5 + p.z.atan2(p.x) / (2.0 * std::f32::consts::PI);
            let v = 0.5 + p.y.clamp(-1.0, 1.0).asin() / std::f32::consts::PI;
            Vec2::new(u, v)
        })
        .collect();
    TriangleMesh { name: "sphere".into(), normals: positions.clone(), positions, uvs, triangles, material: None }
}

// ---------------------------------------------------------------------------------------
// Scenes
// ---------------------------------------------------------------------------------------

fn rows(m: [[f32; 4]; 4]) -> Mat4 {
    Mat4::from_cols_array_2d(&m).transpose()
}

/// Mitsuba 3's Cornell box `to_world` matrices (row-major), by shape name.
pub const CORNELL_SHAPES: &[(&str, &str, [[f32; 4]; 4])] = &[
    (
        "light",
        "rectangle",
        [[0.23, 0.0, 0.0, 0.0], [0.0, -0.0, -0.19, 0.99], [0.0, 0.19, -0.0, 0.01], [0.0, 0.0, 0.0, 1.0]],
    ),
    (
        "floor",
        "rectangle",
        [[0.9999999, 0.0, 0.0, 0.0], [0.0, -0.0, 1.0, -1.0], [0.0, -1.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
    ),
    (
        "ceiling",
        "rectangle",
        [[0.9999999, 0.0, 0.0, 0.0], [0.0, -0.0, -1.0, 1.0], [0.0, 1.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
    ),
    ("back", "rectangle", [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0], [0.0, 0.0, 0.0, 1.0]]),
    (
        "green-wall",
        "rectangle",
        [[-0.0, 0.0, -1.0, 1.0], [0.0, 0.9999999, 0.0, 0.0], [1.0, 0.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
    ),
    (
        "red-wall",
        "rectangle",
        [[-0.0, 0.0, 1.0, -1.0], [0.0, 0.9999999, 0.0, 0.0], [-1.0, 0.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
    ),
    (
        "small-box",
        "cube",
        [
            [0.2868915, 0.0, -0.0877115, 0.335],
            [0.0, 0.3, 0.0, -0.7],
            [0.0877115, 0.0, 0.2868915, 0.38],
            [0.0, 0.0, 0.0, 1.0],
        ],
    ),
    (
        "large-box",
        "cube",
        [
            [0.2849098, 0.0, 0.0939491, -0.33],
            [0.0, 0.61, 0.0, -0.4],
            [-0.0939491, 0.0, 0.2849098, -0.28],
            [0.0, 0.0, 0.0, 1.0],
        ],
    ),
];

/// Mitsuba's Cornell box camera `to_world` (row-major).
pub const CORNELL_CAMERA: [[f32; 4]; 4] =
    [[-1.0, 0.0, 0.0, 0.0], [0.0, 0.9999999, 0.0, 0.0], [0.0, 0.0, -0.9999999, 3.9000001], [0.0, 0.0, 0.0, 1.0]];
pub const CORNELL_WHITE: Vec3 = Vec3::new(0.885809, 0.698859, 0.666422);
pub const CORNELL_GREEN: Vec3 = Vec3::new(0.105421, 0.37798, 0.076425);
pub const CORNELL_RED: Vec3 = Vec3::new(0.570068, 0.0430135, 0.0443706);
pub const CORNELL_LIGHT_RADIANCE: Vec3 = Vec3::new(18.387, 13.9873, 6.75357);

fn place(builder: &mut SceneBuilder, mut mesh: TriangleMesh, name: &str, to_world: Mat4, material: u32) {
    mesh.name = name.to_string();
    // Built-in meshes are finite, in range and placed by invertible transforms.
    builder.add_mesh(&mesh, to_world, material, Path::new("<builtin>")).expect("built-in mesh is valid");
}

/// The Cornell box walls and light; `with_boxes` adds Mitsuba's two boxes.
fn cornell_builder(name: &str, with_boxes: bool) -> SceneBuilder {
    let mut b = SceneBuilder::new(name);
    let white = b.add_material("white", Material::diffuse(CORNELL_WHITE));
    let green = b.add_material("green", Material::diffuse(CORNELL_GREEN));
    let red = b.add_material("red", Material::diffuse(CORNELL_RED));
    let light = b.add_material("light", Material::diffuse(CORNELL_WHITE).with_emission(CORNELL_LIGHT_RADIANCE));
    for &(shape_name, kind, matrix) in CORNELL_SHAPES {
        let material = match shape_name {
            "light" => light,
            "green-wall" => green,
            "red-wall" => red,
            _ => white,
        };
        let mesh = if kind == "cube" { cube_mesh() } else { rectangle_mesh() };
        if kind == "cube" && !with_boxes {
            continue;
        }
        place(&mut b, mesh, shape_name, rows(matrix), material);
    }
    b
}

fn cornell_camera() -> Camera {
    Camera {
        to_world: rows(CORNELL_CAMERA),
        fov_degrees: 39.3077,
        fov_axis: FovAxis::Smaller,
        aperture_radius: 0.0,
        focus_distance: 1000.0,
    }
}

fn cornell_settings() -> RenderSettings {
    RenderSettings { width: 256, height: 256, max_depth: 8, ..RenderSettings::default() }
}

/// Mitsuba 3's `cornell_box()`.
pub fn cornell() -> Scene {
    let mut scene = cornell_builder("cornell", true).finish();
    scene.camera = cornell_camera();
    scene.settings = cornell_settings();
    scene.environment = Environment::None;
    scene
}

/// The Cornell box with a glass, a chrome and a red car-paint sphere instead of boxes.
pub fn cornell_glass() -> Scene {
    let mut b = cornell_builder("cornell-glass", false);
    let glass = b.add_material("glass", Material::glass(1.5));
    let chrome = b.add_material("chrome", Material::chrome());
    let paint = b.add_material(
        "car-paint",
        Material::car_paint(Vec3::new(0.5, 0.04, 0.03), Vec3::new(0.3, 0.25, 0.2), 200.0, 1.5),
    );
    let sphere = sphere_mesh(5);
    let spheres = [
        ("glass-sphere", glass, Vec3::new(-0.45, -0.68, 0.3), 0.32),
        ("chrome-sphere", chrome, Vec3::new(0.45, -0.68, -0.35), 0.32),
        ("car-paint-sphere", paint, Vec3::new(0.2, -0.78, 0.55), 0.22),
    ];
    for (name, material, center, radius) in spheres {
        let to_world = Mat4::from_translation(center) * Mat4::from_scale(Vec3::splat(radius));
        place(&mut b, sphere.clone(), name, to_world, material);
    }
    let mut scene = b.finish();
    scene.camera = cornell_camera();
    scene.settings = cornell_settings();
    scene
}

/// The white furnace: a unit diffuse sphere of `albedo` in a uniform environment of
/// radiance 1. A convex object sees only the environment, so a correct render converges
/// to 1 where the camera sees the environment and to exactly `albedo` on the sphere.
pub fn furnace(albedo: f32) -> Scene {
    let mut b = SceneBuilder::new("furnace");
    let material = b.add_material("sphere", Material::diffuse(Vec3::splat(albedo)));
    place(&mut b, sphere_mesh(5), "sphere", Mat4::IDENTITY, material);
    let mut scene = b.finish();
    scene.environment = Environment::Constant(Vec3::ONE);
    scene.camera = Camera::look_at(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, Vec3::Y, 40.0);
    scene.settings = RenderSettings { width: 128, height: 128, ..RenderSettings::default() };
    scene
}

/// Deterministic 2D value noise in [0, 1] on an integer lattice.
fn lattice_hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h =
        (x as u32).wrapping_mul(0x8da6_b343) ^ (y as u32).wrapping_mul(0xd816_3841) ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

fn value_noise(p: Vec2, seed: u32) -> f32 {
    let (x0, y0) = (p.x.floor(), p.y.floor());
    let (fx, fy) = (p.x - x0, p.y - y0);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (xi, yi) = (x0 as i32, y0 as i32);
    let a = lattice_hash(xi, yi, seed);
    let b = lattice_hash(xi + 1, yi, seed);
    let c = lattice_hash(xi, yi + 1, seed);
    let d = lattice_hash(xi + 1, yi + 1, seed);
    let top = a + (b - a) * sx;
    let bottom = c + (d - c) * sx;
    top + (bottom - top) * sy
}

/// Ridged-ish fractal height of the terrain at `p` (world xz), in about [0, 1.2].
fn terrain_height(p: Vec2) -> f32 {
    let mut height = 0.0;
    let mut amplitude = 0.55;
    let mut frequency = 0.35;
    for octave in 0..6 {
        let n = value_noise(p * frequency, 17 + octave);
        height += amplitude * (1.0 - (2.0 * n - 1.0).abs());
        amplitude *= 0.45;
        frequency *= 2.1;
    }
    let falloff = 1.0 - (p.length() / 11.0).clamp(0.0, 1.0);
    (height * falloff * 1.6 - 0.35).max(0.0)
}

/// A procedural landscape: a `cells`×`cells` grid of quads (2·cells² triangles; 707
/// gives about one million) over [-10,10]², rock below the snow line, glossy snow above
/// it, a mirror lake where the height is 0, a chrome and a glass sphere, a rectangular
/// area light and a constant blue sky.
pub fn terrain(cells: u32) -> Scene {
    let cells = cells.max(1);
    let n = cells as usize + 1;
    let extent = 10.0f32;
    let step = 2.0 * extent / cells as f32;
    let grid_point = |i: usize, j: usize| Vec2::new(-extent + i as f32 * step, -extent + j as f32 * step);
    let heights: Vec<f32> = (0..n * n).map(|k| terrain_height(grid_point(k % n, k / n))).collect();
    let height_at = |i: isize, j: isize| {
        let i = i.clamp(0, n as isize - 1) as usize;
        let j = j.clamp(0, n as isize - 1) as usize;
        heights[j * n + i]
    };
    let mut positions = Vec::with_capacity(n * n);
    let mut normals = Vec::with_capacity(n * n);
    let mut uvs = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let p = grid_point(i, j);
            positions.push(Vec3::new(p.x, heights[j * n + i], p.y));
            let (ii, jj) = (i as isize, j as isize);
            let dx = height_at(ii + 1, jj) - height_at(ii - 1, jj);
            let dz = height_at(ii, jj + 1) - height_at(ii, jj - 1);
            normals.push(Vec3::new(-dx, 2.0 * step, -dz).normalize());
            uvs.push(Vec2::new(i as f32 / cells as f32, j as f32 / cells as f32));
        }
    }
    // Triangles split by material: rock, snow and lake, each as its own mesh.
    let mut by_material: [Vec<[u32; 3]>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for j in 0..cells as usize {
        for i in 0..cells as usize {
            let a = (j * n + i) as u32;
            let b = a + 1;
            let c = a + n as u32;
            let d = c + 1;
            // Counter-clockwise seen from above (+y): a, c, b and b, c, d.
            for tri in [[a, c, b], [b, c, d]] {
                let mean = tri.iter().map(|&v| positions[v as usize].y).sum::<f32>() / 3.0;
                let slope = tri.iter().map(|&v| normals[v as usize].y).sum::<f32>() / 3.0;
                let class = if mean <= 1e-4 {
                    2
                } else if mean > 0.75 && slope > 0.6 {
                    1
                } else {
                    0
                };
                by_material[class].push(tri);
            }
        }
    }
    let mut b = SceneBuilder::new("terrain");
    let rock = b.add_material("rock", Material::diffuse(Vec3::new(0.35, 0.3, 0.25)));
    let snow = b.add_material("snow", Material::blinn(Vec3::splat(0.75), Vec3::splat(0.2), 60.0));
    let lake = b.add_material("lake", Material::rough_conductor(Vec3::new(0.3, 0.4, 0.45), 0.05));
    let chrome = b.add_material("chrome", Material::chrome());
    let glass = b.add_material("glass", Material::glass(1.5));
    let light = b.add_material("light", Material::emitter(Vec3::new(30.0, 28.0, 24.0)));
    let names = ["rock", "snow", "lake"];
    let materials = [rock, snow, lake];
    for class in 0..3 {
        let mesh = TriangleMesh {
            name: names[class].into(),
            positions: positions.clone(),
            normals: normals.clone(),
            uvs: uvs.clone(),
            triangles: std::mem::take(&mut by_material[class]),
            material: None,
        };
        place(&mut b, mesh, names[class], Mat4::IDENTITY, materials[class]);
    }
    let sphere = sphere_mesh(4);
    let sphere_at = |x: f32, z: f32, r: f32| {
        let y = terrain_height(Vec2::new(x, z)) + r * 0.8;
        Mat4::from_translation(Vec3::new(x, y, z)) * Mat4::from_scale(Vec3::splat(r))
    };
    place(&mut b, sphere.clone(), "chrome-sphere", sphere_at(-1.5, 3.0, 0.6), chrome);
    place(&mut b, sphere, "glass-sphere", sphere_at(1.2, 4.0, 0.5), glass);
    // A 4×4 light facing down, 8 units up: rectangle normal +z rotated to -y.
    let light_to_world = Mat4::from_translation(Vec3::new(3.0, 8.0, 2.0))
        * Mat4::from_rotation_x(std::f32::consts::FRAC_PI_2)
        * Mat4::from_scale(Vec3::new(2.0, 2.0, 1.0));
    place(&mut b, rectangle_mesh(), "light", light_to_world, light);
    let mut scene = b.finish();
    scene.environment = Environment::Constant(Vec3::new(0.25, 0.35, 0.55));
    scene.camera = Camera::look_at(Vec3::new(0.0, 3.5, 13.0), Vec3::new(0.0, 0.6, 0.0), Vec3::Y, 45.0);
    scene.settings = RenderSettings { width: 960, height: 540, ..RenderSettings::default() };
    scene
}

/// A field of small emissive triangles in `hues` colours, the many-light setting of
/// ReSTIR DI (issue 15): the built-in `many-lights` and the TOML shape `light-field`.
/// Triangle `k` has its centre at `place(u)` for a hashed `u` in [0,1)³, an edge of
/// `light_size[0]..light_size[1]` (world units), faces down (−y, one-sided) turned about y and
/// tilted up to ±14°, and belongs to hue `k mod hues`; `saturation` (1: the pure hues, 0:
/// white) mixes each hue with white. The same parameters make the same triangles everywhere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightField {
    pub count: u32,
    pub hues: u32,
    pub seed: u32,
    pub light_size: [f32; 2],
    /// 1: fully saturated hues; 0: white (the brightest channel stays 1).
    pub saturation: f32,
}

impl LightField {
    /// One mesh per hue (named `lights-H`, in world space) with its colour: hues around the
    /// colour wheel at `saturation`, the brightest channel 1.
    pub fn meshes(&self, place: impl Fn(Vec3) -> Vec3) -> Vec<(TriangleMesh, Vec3)> {
        let hues = self.hues.max(1);
        let hash = |k: u32, d: u32| lattice_hash(k as i32, d as i32, self.seed);
        let mut meshes: Vec<TriangleMesh> =
            (0..hues).map(|h| TriangleMesh { name: format!("lights-{h}"), ..TriangleMesh::default() }).collect();
        for k in 0..self.count {
            let centre = place(Vec3::new(hash(k, 0), hash(k, 1), hash(k, 2)));
            // A small triangle facing down (its winding normal −y), turned about y and tilted.
            let turn = Mat4::from_rotation_y(hash(k, 3) * std::f32::consts::TAU)
                * Mat4::from_rotation_x(0.5 * (hash(k, 4) - 0.5));
            let size = self.light_size[0] + (self.light_size[1] - self.light_size[0]) * hash(k, 5);
            // Wound clockwise seen from above: the winding normal, and the emission, point down.
            let corners = [Vec3::new(0.0, 0.0, 1.0), Vec3::new(-0.87, 0.0, -0.5), Vec3::new(0.87, 0.0, -0.5)];
            let mesh = &mut meshes[(k % hues) as usize];
            let first = mesh.positions.len() as u32;
            for c in corners {
                mesh.positions.push(centre + turn.transform_vector3(c * size));
            }
            mesh.triangles.push([first, first + 1, first + 2]);
        }
        meshes
            .into_iter()
            .enumerate()
            .filter(|(_, m)| !m.triangles.is_empty())
            .map(|(h, mesh)| {
                let hue = h as f32 / hues as f32 * 6.0;
                let rgb = Vec3::new(
                    ((hue - 3.0).abs() - 1.0).clamp(0.0, 1.0),
                    (2.0 - (hue - 2.0).abs()).clamp(0.0, 1.0),
                    (2.0 - (hue - 4.0).abs()).clamp(0.0, 1.0),
                );
                let s = self.saturation.clamp(0.0, 1.0);
                (mesh, Vec3::ONE - (Vec3::ONE - rgb) * s)
            })
            .collect()
    }
}

/// `lights` small emissive triangles (edge ~0.06, one-sided, facing mostly down, in 32 hues)
/// scattered through a slab 2.2–3.4 above a 10×10 floor holding three spheres (diffuse, rough
/// conductor, Blinn) and a box; no environment. Positions and colours come from a fixed hash,
/// so the scene is the same everywhere.
pub fn many_lights(lights: u32) -> Scene {
    let mut b = SceneBuilder::new("many-lights");
    let floor = b.add_material("floor", Material::diffuse(Vec3::splat(0.6)));
    let clay = b.add_material("clay", Material::diffuse(Vec3::new(0.7, 0.45, 0.3)));
    let metal = b.add_material("metal", Material::rough_conductor(Vec3::new(0.9, 0.85, 0.8), 0.25));
    let plastic = b.add_material("plastic", Material::blinn(Vec3::new(0.2, 0.35, 0.6), Vec3::splat(0.3), 50.0));
    let boxm = b.add_material("box", Material::diffuse(Vec3::new(0.5, 0.6, 0.45)));
    let rotate_floor = Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2) * Mat4::from_scale(Vec3::new(5.0, 5.0, 1.0));
    place(&mut b, rectangle_mesh(), "floor", rotate_floor, floor);
    let sphere = sphere_mesh(4);
    let at =
        |x: f32, y: f32, z: f32, r: f32| Mat4::from_translation(Vec3::new(x, y, z)) * Mat4::from_scale(Vec3::splat(r));
    place(&mut b, sphere.clone(), "clay-sphere", at(-1.6, 0.6, 0.0, 0.6), clay);
    place(&mut b, sphere.clone(), "metal-sphere", at(0.2, 0.5, 0.8, 0.5), metal);
    place(&mut b, sphere, "plastic-sphere", at(1.7, 0.45, -0.3, 0.45), plastic);
    let box_to_world = Mat4::from_translation(Vec3::new(0.4, 0.4, -1.6))
        * Mat4::from_rotation_y(0.5)
        * Mat4::from_scale(Vec3::new(0.6, 0.4, 0.5));
    place(&mut b, cube_mesh(), "box", box_to_world, boxm);
    let field = LightField { count: lights, hues: 32, seed: 4242, light_size: [0.04, 0.08], saturation: 1.0 };
    let radiance = 6.0 * MANY_LIGHTS as f32 / lights as f32;
    // Centres through the slab x, z in [-4.5, 4.5], y in [2.2, 3.4].
    let slab = |u: Vec3| Vec3::new(u.x * 9.0 - 4.5, 2.2 + 1.2 * u.y, u.z * 9.0 - 4.5);
    for (mesh, hue) in field.meshes(slab) {
        // Radiance scaled so that the floor receives about the same light whatever the count.
        let material = b.add_material(
            &format!("light-{}", mesh.name.trim_start_matches("lights-")),
            Material::emitter(hue * radiance),
        );
        place(&mut b, mesh.clone(), &mesh.name, Mat4::IDENTITY, material);
    }
    let mut scene = b.finish();
    scene.camera = Camera::look_at(Vec3::new(0.0, 1.5, 7.0), Vec3::new(0.0, 0.7, 0.0), Vec3::Y, 45.0);
    scene.settings = RenderSettings { width: 960, height: 540, max_depth: 1, ..RenderSettings::default() };
    scene
}
