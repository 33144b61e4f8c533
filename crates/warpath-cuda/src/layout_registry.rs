//! The one registry of every struct whose layout the GPU shares with Rust ([`ALL`]), and the
//! generator of `kernels/generated/layout_checks.cuh` from it (docs/architecture.md,
//! "Layouts").
//!
//! Rust owns each layout: the `#[repr(C)]` struct is the definition, and its CUDA mirror is
//! checked against it at compile time by the generated header's `static_assert`s of every
//! size and field offset, which come from Rust's `size_of`/`offset_of!` through
//! [`gpu_layout!`]. Adding a field means adding it to the Rust struct, to the CUDA struct and
//! to the struct's line here, then regenerating the header:
//!
//! ```text
//! WARPATH_BLESS=1 cargo test --release -p warpath-cuda layout
//! ```
//!
//! The test `generated_header_is_current` fails while the committed header differs from what
//! the registry renders, `registry_lists_every_cuda_field` while a line misses a member of
//! its CUDA struct, and NVRTC (CI's `.ci/nvrtc-check`, every program) fails on a
//! `static_assert` whose CUDA offset differs from Rust's.
//!
//! Why a committed file and a test, not build.rs: a build script runs before its own crate
//! is compiled, so it cannot evaluate `offset_of!` of the crate's types (nor of
//! warpath-core's `Material`, whose offsets are the compiler's to choose within `repr(C)`).
//!
//! How the header is laid out: it has no `#pragma once`. Every header that declares a
//! registered struct ends with `#define WARPATH_LAYOUT_<HEADER>` and
//! `#include "generated/layout_checks.cuh"`; the header's checks are grouped by the set of
//! headers a struct needs (`ScheduleArgs<SurfaceEstimator>` needs the schedule and the
//! estimator), and each group is stated once per program, as soon as all its headers are
//! complete. A program that never includes a header never sees its checks, so every
//! program compiles (the lockstep crate's host build of the headers too).
//!
//! This module imports the structs' modules and is imported by none of them.

use crate::compaction::elements::{CompactElem16, CompactPathState};
use crate::compaction::workspace::CompactionState;
use crate::isosurface::args::{IsoArgs, IsoClimbArgs, IsoPipelineArgs, IsoRenderArgs, IsoStageOut, IsoUpdateArgs};
use crate::isosurface::shapes::GpuIsoShape;
use crate::isosurface::{IsoHit, IsoNode, IsoRay, IsoTreeNode};
use crate::layout::{AilaLaineNode, GpuHit, GpuRay, GpuTriangle};
use crate::restir::args::RestirArgs;
use crate::restir::{GpuFullReservoir, GpuPendingTemporal, GpuPendingZ, GpuReservoir, GpuRestirSurface};
use crate::scene_upload::{DeviceSceneArgs, GpuCamera, GpuSceneParams, GpuTexture, TraversalSceneArgs};
use crate::strategy::args::{MultiStageQueues, ScheduleArgs, StoredPath, WavefrontBuffers};
use crate::volume_upload::{DeviceVolumeSceneArgs, GpuMedium};
use crate::wide_bvh::WideTraversalSceneArgs;
use std::fmt::Write as _;
use warpath_bvh::wide::WideNode;
use warpath_core::light::{DeltaLight, TriangleLight};
use warpath_core::material::Material;

/// One GPU-shared struct: its names on both sides, where CUDA declares it, Rust's size and
/// each field's Rust offset under its CUDA name.
#[derive(Clone, Copy, Debug)]
pub struct LayoutInfo {
    /// The Rust type, as written in the registry.
    pub rust_name: &'static str,
    /// The CUDA type (a struct, an alias or a template instance such as
    /// `ScheduleArgs<SurfaceEstimator>`).
    pub cuda_name: &'static str,
    /// The headers (`#include` names) that together declare the CUDA type; its checks are
    /// stated once all of them are complete.
    pub headers: &'static [&'static str],
    /// A preprocessor condition the CUDA struct's shape depends on (`defined(X)`), if any.
    pub condition: Option<&'static str>,
    /// `size_of` of the Rust type.
    pub size: usize,
    /// `(CUDA field name, offset_of! of the Rust field)`, in declaration order.
    pub fields: &'static [(&'static str, usize)],
}

/// `gpu_layout!(RustType => "CudaName" in ["header.cuh", ...] [if "condition"] { field, cuda_field: rust.path, ... })`:
/// a [`LayoutInfo`] whose size and offsets are Rust's `size_of`/`offset_of!`. A field is
/// named as CUDA names it; `name: a.b` takes the offset of Rust's (possibly nested) field
/// `a.b` for CUDA's `name`.
macro_rules! gpu_layout {
    ($ty:ty => $cuda:literal in [$($header:literal),+ $(,)?] $(if $cond:literal)?
        { $($field:ident $(: $($path:ident).+)?),* $(,)? }) => {
        LayoutInfo {
            rust_name: stringify!($ty),
            cuda_name: $cuda,
            headers: &[$($header),+],
            condition: layout_condition!($($cond)?),
            size: ::std::mem::size_of::<$ty>(),
            fields: &[$((stringify!($field), field_offset!($ty, $field $(, $($path).+)?))),*],
        }
    };
}

macro_rules! layout_condition {
    () => {
        None
    };
    ($cond:literal) => {
        Some($cond)
    };
}

macro_rules! field_offset {
    ($ty:ty, $field:ident) => {
        ::std::mem::offset_of!($ty, $field)
    };
    ($ty:ty, $field:ident, $($path:ident).+) => {
        ::std::mem::offset_of!($ty, $($path).+)
    };
}

/// Every struct shared with the GPU, grouped by the header that declares its CUDA mirror.
pub const ALL: &[LayoutInfo] = &[
    // common/layout.cuh: traversal records and warpath-core's Material and TriangleLight.
    gpu_layout!(AilaLaineNode => "AilaLaineNode" in ["common/layout.cuh"] {
        child0_xy, child1_xy, children_z, child_index, _pad
    }),
    gpu_layout!(GpuTriangle => "GpuTriangle" in ["common/layout.cuh"] { v0, edge1, edge2 }),
    gpu_layout!(GpuRay => "GpuRay" in ["common/layout.cuh"] { origin, t_min, direction, t_max }),
    gpu_layout!(GpuHit => "GpuHit" in ["common/layout.cuh"] { t, u, v, prim }),
    gpu_layout!(Material => "Material" in ["common/layout.cuh"] {
        kind, base_color_texture, roughness, ior, base_color, exponent, specular, flags, emission, normal_texture,
        metallic, spec_tint, sheen, sheen_tint, clearcoat, clearcoat_gloss, spec_trans, flatness,
        bump_texture, bump_scale, roughness_texture, metallic_texture, opacity, opacity_texture, _pad_tail
    }),
    gpu_layout!(TriangleLight => "TriangleLight" in ["common/layout.cuh"] {
        p0, area, e1, two_sided, e2, triangle, emission, _pad
    }),
    gpu_layout!(DeltaLight => "DeltaLight" in ["common/layout.cuh"] {
        position, kind, direction, cos_cutoff, intensity, cos_beam, cutoff, inv_transition, _pad
    }),
    // traversal/traversal.cuh and common/scene.cuh: the surface estimator's scene (scene_upload.rs).
    gpu_layout!(TraversalSceneArgs => "TraversalScene" in ["traversal/traversal.cuh"] {
        nodes, triangles, triangle_ids
    }),
    // traversal/wide.cuh: the compressed 8-wide BVH (wide_bvh.rs, warpath_bvh::wide).
    gpu_layout!(WideNode => "WideNode" in ["traversal/wide.cuh"] {
        origin, exponents, imask, child_base, tri_base, meta, q_lo, q_hi
    }),
    gpu_layout!(WideTraversalSceneArgs => "WideTraversalScene" in ["traversal/wide.cuh"] { nodes, triangles }),
    gpu_layout!(GpuCamera => "GpuCamera" in ["common/scene.cuh"] {
        to_world, tan_half_fov, aperture_radius, focus_distance
    }),
    gpu_layout!(GpuTexture => "GpuTexture" in ["common/scene.cuh"] { width, height, offset, _pad }),
    gpu_layout!(GpuSceneParams => "GpuSceneParams" in ["common/scene.cuh"] {
        camera, env_to_world, env_to_local, env_constant, env_scale, env_kind, env_width, env_height,
        env_is_black, width, height, max_depth, seed, sampler, rr_threshold, triangle_count, material_count,
        light_count, selection_count, has_normals, has_uvs, texture_count, iso_shape_count, delta_light_count,
        _pad_delta, iso_shapes
    }),
    gpu_layout!(DeviceSceneArgs => "DeviceScene" in ["common/scene.cuh"] {
        params, bvh, positions, normals, uvs, triangles, triangle_materials, materials, triangle_to_light,
        lights, light_cdf, env_pixels, env_conditional_cdf, env_marginal_cdf, texels, textures
    }),
    // compaction/compaction.cuh (compaction/elements.rs, compaction/workspace.rs).
    gpu_layout!(CompactElem16 => "CompactElem16" in ["compaction/compaction.cuh"] { key, payload }),
    gpu_layout!(CompactPathState => "CompactPathState" in ["compaction/compaction.cuh"] {
        key, pixel, depth, rng, origin, pdf, direction, t_max, throughput, flags
    }),
    gpu_layout!(CompactionState => "CompactionState" in ["compaction/compaction.cuh"] {
        ticket, count, tile_status, block_counts, section_counters, section_flags, section_offsets, tiles
    }),
    // The schedules (strategy/args.rs): surface/estimator.cuh, schedules/*.cuh.
    gpu_layout!(StoredPath => "StoredPath" in ["surface/estimator.cuh"] {
        origin_pixel, direction_sample, throughput_pdf, radiance_bounce
    }),
    gpu_layout!(WavefrontBuffers => "WavefrontBuffers" in ["schedules/wavefront.cuh"] {
        input, output, flags, intermediate, state
    }),
    gpu_layout!(ScheduleArgs<DeviceSceneArgs> => "ScheduleArgs<SurfaceEstimator>"
        in ["schedules/schedule.cuh", "surface/estimator.cuh"] {
        film_sum, film_sum_sq, film_count, counters, work, morton_lo, morton_scale, first_sample,
        padded_pixels, tiles_x, width, height, path_base, wave_paths, _pad, scene
    }),
    gpu_layout!(MultiStageQueues => "MultiStageQueues" in ["schedules/multistage.cuh"] {
        origin_pixel, direction_sample, throughput_pdf, radiance_bounce, hits, extend_in, extend_out,
        material_ids, shadow_ids, shadow_origin_tmax, shadow_direction, shadow_contribution, finished_ids,
        counts, capacity, _pad
    }),
    // The volumetric estimator (volume_upload.rs): volume/medium.cuh, volume/estimator.cuh.
    gpu_layout!(GpuMedium => "GpuMedium" in ["volume/medium.cuh"] {
        kind, gray, albedo_kind, albedo_channels, sigma_t, scale, albedo, g, world_to_local,
        density_resolution, density_offset, albedo_resolution, albedo_offset, majorant_resolution, majorant_offset,
        density_texture, albedo_texture
    }),
    gpu_layout!(DeviceVolumeSceneArgs => "DeviceVolumeScene" in ["volume/estimator.cuh"] {
        surface, media, grid_data, triangle_media, medium_count, camera_medium, counter_slots, _pad
    }),
    gpu_layout!(ScheduleArgs<DeviceVolumeSceneArgs> => "ScheduleArgs<VolumeEstimator>"
        in ["schedules/schedule.cuh", "volume/estimator.cuh"] {
        film_sum, film_sum_sq, film_count, counters, work, morton_lo, morton_scale, first_sample,
        padded_pixels, tiles_x, width, height, path_base, wave_paths, _pad, scene
    }),
    // The isosurface caster (isosurface/): isosurface/*.cuh.
    gpu_layout!(IsoNode => "IsoNode" in ["isosurface/caster.cuh"] { lo, hi, left, right }),
    gpu_layout!(IsoRay => "IsoRay" in ["isosurface/caster.cuh"] { origin, direction }),
    gpu_layout!(IsoHit => "IsoHit" in ["isosurface/caster.cuh"] { t, cell, hit }),
    gpu_layout!(IsoArgs => "IsoArgs" in ["isosurface/caster.cuh"] {
        values, nodes, rays, hits, samples, root, ray_count, isovalue, root_slot
    }),
    gpu_layout!(IsoRenderArgs => "IsoRenderArgs" in ["isosurface/render.cuh"] {
        values, nodes, pixels, hits, eye, corner, right, down, samples, root, width, height, isovalue,
        color, ambient, diffuse, specular, shininess, background, light_mode, root_slot, light
    }),
    gpu_layout!(IsoTreeNode => "IsoTreeNode" in ["isosurface/update.cuh"] { lo, hi, left, right, min, max }),
    gpu_layout!(IsoUpdateArgs => "IsoUpdateArgs" in ["isosurface/update.cuh"] {
        tree, level_nodes, level_offsets, nodes, refs, levels, isovalue
    }),
    gpu_layout!(IsoClimbArgs => "IsoClimbArgs" in ["isosurface/update.cuh"] {
        tree, parents, leaves, leaf_ranges, arrivals, nodes, refs, leaf_count, isovalue
    }),
    gpu_layout!(IsoPipelineArgs => "IsoPipelineArgs" in ["isosurface/pipeline.cuh"] {
        frame, stack_node, stack_entry, stack_top, normals, stack_capacity, pixel_count
    }),
    gpu_layout!(IsoStageOut => "IsoStageOut" in ["isosurface/pipeline.cuh"] { items, flags, intermediate, state }),
    gpu_layout!(GpuIsoShape => "GpuIsoShape" in ["isosurface/shapes.cuh"] {
        world_to_lattice, gradient_to_world, values, nodes, samples, root, isovalue, material
    }),
    // ReSTIR (restir/): restir/restir.cuh. The reservoir has two shapes, by RESTIR_FULL_SAMPLE.
    gpu_layout!(GpuRestirSurface => "RestirSurface" in ["restir/restir.cuh"] {
        p, ng, n, base_color, wo, emitted, depth, material, lit, roughness, material_roughness, metallic, opacity, _pad
    }),
    gpu_layout!(GpuReservoir => "Reservoir" in ["restir/restir.cuh"] if "!defined(RESTIR_FULL_SAMPLE)" {
        light, b, w_sum, m, w
    }),
    gpu_layout!(GpuFullReservoir => "Reservoir" in ["restir/restir.cuh"] if "defined(RESTIR_FULL_SAMPLE)" {
        light: compact.light, b: compact.b, w_sum: compact.w_sum, m: compact.m, w: compact.w,
        q, n, emission, two_sided, source_pdf
    }),
    gpu_layout!(GpuPendingZ => "RestirPendingZ" in ["restir/restir.cuh"] { chosen_target, chosen }),
    gpu_layout!(GpuPendingTemporal => "RestirPendingTemporal" in ["restir/restir.cuh"] {
        chosen_target, current_m, prev_m, prev_pixel, has_prev, chosen_prev
    }),
    gpu_layout!(RestirArgs => "RestirArgs" in ["restir/restir.cuh"] {
        scene, gbuffer, prev_gbuffer, input, output, previous, film_sum, film_sum_sq, film_count, frame, seed,
        candidates, light_pool, bias, neighbours, pass, has_previous, radius, temporal_cap, prev_to_camera,
        prev_position, prev_tan_half_fov, camera_moved, pending_z, neighbour_sees, ray_group, target,
        pending_temporal, reuse_visibility, _pad, ray_counts, bsdf_candidates, boiling_multiplier,
        roughness_threshold, _pad2, origins
    }),
];

/// Where the generated header lives, relative to `kernels/` (its `#include` name).
pub const GENERATED_HEADER: &str = "generated/layout_checks.cuh";

/// The macro a header defines before including the generated header at its end:
/// `common/scene.cuh` → `WARPATH_LAYOUT_COMMON_SCENE`.
pub fn header_macro(header: &str) -> String {
    let stem = header.strip_suffix(".cuh").unwrap_or(header);
    let name: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    format!("WARPATH_LAYOUT_{name}")
}

/// The headers a registry entry names, each once, in the registry's order.
pub fn registered_headers() -> Vec<&'static str> {
    let mut headers: Vec<&'static str> = Vec::new();
    for header in ALL.iter().flat_map(|layout| layout.headers.iter().copied()) {
        if !headers.contains(&header) {
            headers.push(header);
        }
    }
    headers
}

/// `kernels/generated/layout_checks.cuh`, rendered from [`ALL`].
pub fn render_header() -> String {
    let mut out = String::new();
    out.push_str(
        "// generated/layout_checks.cuh — GENERATED from the Rust layout registry\n\
         // (crates/warpath-cuda/src/layout_registry.rs, `ALL`); do not edit. Rust owns every\n\
         // layout shared with the GPU: each size and field offset below is Rust's size_of /\n\
         // offset_of!. After changing a registered struct, regenerate with\n\
         //     WARPATH_BLESS=1 cargo test --release -p warpath-cuda layout\n\
         //\n\
         // No #pragma once: each header that declares a registered struct ends with\n\
         // `#define WARPATH_LAYOUT_<HEADER>` and includes this file; each group of checks below is\n\
         // stated once, when every header it needs is complete. static_asserts generate no code.\n\
         \n\
         #ifndef WARPATH_OFFSETOF\n\
         #error \"generated/layout_checks.cuh needs WARPATH_OFFSETOF (common/layout.cuh)\"\n\
         #endif\n",
    );
    let mut groups: Vec<&'static [&'static str]> = Vec::new();
    for layout in ALL {
        if !groups.contains(&layout.headers) {
            groups.push(layout.headers);
        }
    }
    for headers in groups {
        let macros: Vec<String> = headers.iter().map(|h| header_macro(h)).collect();
        let stems: Vec<&str> = macros.iter().map(|m| m.trim_start_matches("WARPATH_LAYOUT_")).collect();
        let done = format!("WARPATH_LAYOUT_CHECKED_{}", stems.join("__"));
        let present: Vec<String> = macros.iter().map(|m| format!("defined({m})")).collect();
        let _ = write!(
            out,
            "\n// {}\n#if {} && !defined({done})\n#define {done}\n",
            headers.join(" + "),
            present.join(" && ")
        );
        for layout in ALL.iter().filter(|layout| layout.headers == headers) {
            if let Some(condition) = layout.condition {
                let _ = writeln!(out, "#if {condition}");
            }
            let cuda = layout.cuda_name;
            let _ = writeln!(
                out,
                "static_assert(sizeof({cuda}) == {}, \"{cuda} size (Rust {})\");",
                layout.size, layout.rust_name
            );
            for (field, offset) in layout.fields {
                let _ =
                    writeln!(out, "static_assert(WARPATH_OFFSETOF({cuda}, {field}) == {offset}, \"{cuda}.{field}\");");
            }
            if layout.condition.is_some() {
                out.push_str("#endif\n");
            }
        }
        out.push_str("#endif\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ParamType;
    use crate::kernels::HEADERS;
    use std::path::PathBuf;

    fn header_text(name: &str) -> &'static str {
        HEADERS
            .iter()
            .find(|(header, _)| *header == name)
            .map(|(_, text)| *text)
            .unwrap_or_else(|| panic!("{name} is not one of kernels::HEADERS"))
    }

    /// The committed header is what the registry renders (`WARPATH_BLESS=1` rewrites it).
    #[test]
    fn generated_header_is_current() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels").join(GENERATED_HEADER);
        let rendered = render_header();
        if std::env::var_os("WARPATH_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).expect("creating kernels/generated");
            std::fs::write(&path, &rendered).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == rendered,
            "{} differs from what the Rust layout registry (src/layout_registry.rs) renders: run \
             `WARPATH_BLESS=1 cargo test --release -p warpath-cuda layout` to regenerate it",
            path.display()
        );
    }

    /// Every struct a kernel takes by value (the catalog's `ParamType::Struct`) is registered.
    #[test]
    fn kernel_argument_structs_are_registered() {
        let mut missing: Vec<&str> = crate::catalog::all()
            .iter()
            .flat_map(|kernel| kernel.params.iter())
            .filter_map(|param| match param {
                ParamType::Struct(name) => Some(*name),
                _ => None,
            })
            .filter(|name| !ALL.iter().any(|layout| layout.cuda_name == *name))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        assert!(missing.is_empty(), "kernel arguments missing from layout_registry::ALL: {missing:?}");
    }

    /// Each registered CUDA type is declared in the headers the registry names (a template
    /// instance: the template and its argument), and each of those headers includes the
    /// generated checks at its end, after defining its macro.
    #[test]
    fn registered_cuda_names_exist() {
        let mut problems = Vec::new();
        for layout in ALL {
            let sources: String = layout.headers.iter().map(|h| header_text(h)).collect();
            let names = layout.cuda_name.trim_end_matches('>').split('<');
            for name in names {
                let declared =
                    [format!("struct {name} "), format!("struct alignas(16) {name} "), format!("using {name} =")]
                        .iter()
                        .any(|form| sources.contains(form.as_str()));
                if !declared {
                    problems.push(format!(
                        "{} ({}): {name} is not declared in {:?}",
                        layout.cuda_name, layout.rust_name, layout.headers
                    ));
                }
            }
        }
        for header in registered_headers() {
            let text = header_text(header);
            let tail = format!("#define {}\n#include \"{GENERATED_HEADER}\"\n", header_macro(header));
            if !text.ends_with(&tail) {
                problems.push(format!("{header} must end with:\n{tail}"));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// No header states a layout check of its own any more: the generated header is the one
    /// place sizes and offsets are written (checks of constants stay where they are).
    #[test]
    fn no_hand_written_layout_checks_remain() {
        let hand_written: Vec<String> = HEADERS
            .iter()
            .filter(|(name, _)| *name != GENERATED_HEADER)
            .flat_map(|(name, text)| text.lines().map(move |line| (name, line)))
            .filter(|(_, line)| {
                line.contains("static_assert(WARPATH_OFFSETOF(") || line.contains("static_assert(sizeof(")
            })
            .filter(|(_, line)| !line.contains("sizeof(T)"))
            .map(|(name, line)| format!("{name}: {}", line.trim()))
            .collect();
        assert!(hand_written.is_empty(), "layout checks belong in the registry:\n{}", hand_written.join("\n"));
    }

    /// The data members of `struct name { ... };` in `source`, in order (comments dropped;
    /// members inside `#if` blocks only when `full` is set, the `RESTIR_FULL_SAMPLE` shape).
    fn cuda_fields(source: &str, name: &str, full: bool) -> Option<Vec<String>> {
        let start = [format!("struct {name} {{"), format!("struct alignas(16) {name} {{")]
            .iter()
            .find_map(|form| source.find(form.as_str()).map(|at| at + form.len()))?;
        let body = &source[start..start + source[start..].find("\n};")?];
        let mut fields = Vec::new();
        let mut depth = 0;
        for line in body.lines() {
            let line = line.split("//").next().unwrap_or("").trim();
            if line.starts_with("#if") {
                depth += 1;
            } else if line.starts_with("#endif") {
                depth -= 1;
            } else if !line.is_empty() && !line.starts_with('#') && (depth == 0 || full) {
                for declaration in line.split(';').filter(|d| !d.trim().is_empty()) {
                    for declarator in declaration.split(',') {
                        let declarator = declarator.split('[').next().unwrap_or("").trim();
                        let ident = declarator.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next();
                        fields.push(ident.unwrap_or("").to_string());
                    }
                }
            }
        }
        Some(fields)
    }

    /// Each registry line lists every data member of its CUDA struct, in order: a field added
    /// to both sides but not to the registry fails here, not only when the size changes.
    #[test]
    fn registry_lists_every_cuda_field() {
        let restir = header_text("restir/restir.cuh");
        assert_eq!(cuda_fields(restir, "Reservoir", false).unwrap(), ["light", "b", "w_sum", "m", "w"]);
        assert_eq!(cuda_fields(restir, "Reservoir", true).unwrap().len(), 10);
        let scene = header_text("common/scene.cuh");
        assert_eq!(cuda_fields(scene, "DeviceScene", false).unwrap()[..3], ["params", "bvh", "positions"]);
        let mut problems = Vec::new();
        for layout in ALL {
            let sources: String = layout.headers.iter().map(|h| header_text(h)).collect();
            let base = layout.cuda_name.split('<').next().unwrap_or(layout.cuda_name);
            let full = layout.condition == Some("defined(RESTIR_FULL_SAMPLE)");
            let Some(cuda) = cuda_fields(&sources, base, full) else {
                problems.push(format!("{}: no `struct {base} {{` body in {:?}", layout.cuda_name, layout.headers));
                continue;
            };
            let registered: Vec<&str> = layout.fields.iter().map(|(name, _)| *name).collect();
            if cuda != registered {
                problems.push(format!("{}: CUDA fields {cuda:?}, registry {registered:?}", layout.cuda_name));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn header_macros_are_identifiers() {
        assert_eq!(header_macro("common/scene.cuh"), "WARPATH_LAYOUT_COMMON_SCENE");
        assert_eq!(header_macro("isosurface/caster.cuh"), "WARPATH_LAYOUT_ISOSURFACE_CASTER");
    }
}
