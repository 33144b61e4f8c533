//! `warpath info`: what a scene holds (triangles, meshes, isosurfaces, materials, media,
//! lights, settings, bounds, memory) and the BVH each renderer would build for it.

use crate::BvhKind;
use crate::commands::{load_scene, render_bvh_options};
use anyhow::Result;
use warpath_bvh::Bvh;
use warpath_scene::Scene;

/// `warpath info`'s lines about the media of `scene`.
fn print_media(scene: &Scene) {
    use warpath_volume::{MediumAlbedo, MediumDensity};
    if scene.media.is_empty() {
        return;
    }
    println!("  media: {} (rendered by the volumetric path tracer)", scene.media.len());
    for m in &scene.media {
        let density = match &m.density {
            MediumDensity::Homogeneous { sigma_t } => format!("homogeneous, sigma_t {sigma_t}"),
            MediumDensity::Grid { density, scale } => {
                let [x, y, z] = density.resolution;
                let (lo, hi) = density.range();
                format!("density grid {x}x{y}x{z} (values {lo} .. {hi}) x scale {scale}")
            }
        };
        let albedo = match &m.albedo {
            MediumAlbedo::Constant(a) => format!("albedo {a}"),
            MediumAlbedo::Grid(a) => {
                let [x, y, z] = a.resolution;
                format!("albedo grid {x}x{y}x{z}x{}", a.channels)
            }
        };
        let [mx, my, mz] = m.majorant.resolution;
        println!(
            "    {}: {density}; {albedo}; g {}; majorant grid {mx}x{my}x{mz} (max {}); {:.1} MiB",
            m.name,
            m.g,
            m.majorant.max(),
            m.memory_bytes() as f64 / (1 << 20) as f64
        );
    }
    if let Some(c) = scene.camera_medium {
        println!("    the camera is inside '{}'", scene.media[c as usize].name);
    }
}

pub fn info(scene: Option<&str>, list: bool, bvh: Option<BvhKind>) -> Result<()> {
    if list || scene.is_none() {
        println!("built-in scenes:");
        for form in warpath_scene::builtin::FORMS {
            println!("  {form}");
        }
        println!(
            "scene files: a .toml scene (docs/scene-format.md, examples in scenes/) or a mesh (.obj, .ply, .ply.gz, .gltf, .glb)"
        );
        return Ok(());
    }
    let scene = load_scene(scene.unwrap_or_default())?;
    let s = &scene.settings;
    println!("scene: {}", scene.name);
    println!("  triangles: {}", scene.triangle_count());
    println!(
        "  vertices: {} (normals: {}, uvs: {})",
        scene.positions.len(),
        !scene.normals.is_empty(),
        !scene.uvs.is_empty()
    );
    println!("  meshes: {}", scene.meshes.len());
    for m in scene.meshes.iter().take(20) {
        println!("    {} ({} triangles)", m.name, m.triangle_count);
    }
    println!("  isosurfaces: {}", scene.isosurfaces.len());
    for iso in &scene.isosurfaces {
        let s = &iso.surface;
        let [x, y, z] = s.lattice.samples;
        let (lo, hi) = s.lattice.range();
        println!(
            "    {} ({x}x{y}x{z} samples in [{lo}, {hi}], isovalue {}, material {}, {} valid of {} bricks of {}^3 cells)",
            iso.name,
            s.isovalue,
            scene.material_names[iso.material as usize],
            s.tree.leaves().len(),
            s.bvh.brick_count(),
            s.bvh.brick_cells
        );
    }
    println!("  materials: {}", scene.materials.len());
    let needed = warpath_cuda::MaterialFeatures::of_scene(&scene);
    println!(
        "    features: {} (CUDA programs compiled for {})",
        needed.names(),
        warpath_cuda::MaterialFeatures::compiled_for(needed)
    );
    print_media(&scene);
    let lights = scene.light_set();
    println!("  emissive triangles: {}", lights.triangles.len());
    println!(
        "  environment: {}",
        match &scene.environment {
            warpath_core::light::Environment::None => "none".to_string(),
            warpath_core::light::Environment::Constant(c) => format!("constant {c}"),
            warpath_core::light::Environment::Map(m) => format!("map {}x{}", m.width, m.height),
        }
    );
    for light in &scene.delta_lights {
        use warpath_core::light::delta_kind;
        match light.kind {
            delta_kind::POINT => println!("  point light at {}: intensity {} W/sr", light.position, light.intensity),
            delta_kind::SPOT => println!(
                "  spot light at {} toward {}: intensity {} W/sr, cutoff {:.1}°, beam {:.1}°",
                light.position,
                light.direction,
                light.intensity,
                light.cutoff.to_degrees(),
                light.cos_beam.clamp(-1.0, 1.0).acos().to_degrees()
            ),
            _ => println!("  directional light toward {}: irradiance {} W/m²", light.direction, light.intensity),
        }
    }
    println!(
        "  settings: {}x{}, {} spp, max depth {}, seed {}, sampler {}",
        s.width, s.height, s.spp, s.max_depth, s.seed, s.sampler
    );
    let b = scene.bounds();
    println!("  bounds: {} .. {}", b.min, b.max);
    println!("  scene memory: {:.1} MiB", scene.memory_bytes() as f64 / (1 << 20) as f64);
    let tris = scene.triangle_soup();
    let kinds = match bvh {
        Some(kind) => vec![kind],
        None => vec![BvhKind::Sbvh, BvhKind::Sah],
    };
    for kind in kinds {
        for (gpu, renderer) in [(false, "cpu"), (true, "cuda")] {
            let options = render_bvh_options(kind.build_kind(), gpu);
            let (bvh, stats) = Bvh::build(&tris, &options);
            let bytes = bvh.nodes.len() * std::mem::size_of::<warpath_bvh::BvhNode>() + bvh.prim_indices.len() * 4;
            println!(
                "  bvh as `render --bvh {} --backend {renderer}` builds it (leaves of up to {}): {stats}; memory {:.1} MiB",
                kind.build_kind().to_string().to_lowercase(),
                options.max_leaf_size,
                bytes as f64 / (1 << 20) as f64
            );
            if gpu {
                // The compressed 8-wide tree (Ylitie et al. 2017) the GPU tree collapses to.
                for collapse in [warpath_bvh::wide::Collapse::Optimal, warpath_bvh::wide::Collapse::Greedy] {
                    let (_, wide) = warpath_bvh::wide::WideBvh::from_binary(&bvh, &tris, collapse);
                    println!("    collapsed to {wide}");
                }
            }
        }
    }
    Ok(())
}
