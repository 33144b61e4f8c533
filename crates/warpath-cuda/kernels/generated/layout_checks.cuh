// generated/layout_checks.cuh — GENERATED from the Rust layout registry
// (crates/warpath-cuda/src/layout_registry.rs, `ALL`); do not edit. Rust owns every
// layout shared with the GPU: each size and field offset below is Rust's size_of /
// offset_of!. After changing a registered struct, regenerate with
//     WARPATH_BLESS=1 cargo test --release -p warpath-cuda layout
//
// No #pragma once: each header that declares a registered struct ends with
// `#define WARPATH_LAYOUT_<HEADER>` and includes this file; each group of checks below is
// stated once, when every header it needs is complete. static_asserts generate no code.

#ifndef WARPATH_OFFSETOF
#error "generated/layout_checks.cuh needs WARPATH_OFFSETOF (common/layout.cuh)"
#endif

// common/layout.cuh
#if defined(WARPATH_LAYOUT_COMMON_LAYOUT) && !defined(WARPATH_LAYOUT_CHECKED_COMMON_LAYOUT)
#define WARPATH_LAYOUT_CHECKED_COMMON_LAYOUT
static_assert(sizeof(AilaLaineNode) == 64, "AilaLaineNode size (Rust AilaLaineNode)");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, child0_xy) == 0, "AilaLaineNode.child0_xy");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, child1_xy) == 16, "AilaLaineNode.child1_xy");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, children_z) == 32, "AilaLaineNode.children_z");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, child_index) == 48, "AilaLaineNode.child_index");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, _pad) == 56, "AilaLaineNode._pad");
static_assert(sizeof(GpuTriangle) == 48, "GpuTriangle size (Rust GpuTriangle)");
static_assert(WARPATH_OFFSETOF(GpuTriangle, v0) == 0, "GpuTriangle.v0");
static_assert(WARPATH_OFFSETOF(GpuTriangle, edge1) == 16, "GpuTriangle.edge1");
static_assert(WARPATH_OFFSETOF(GpuTriangle, edge2) == 32, "GpuTriangle.edge2");
static_assert(sizeof(GpuRay) == 32, "GpuRay size (Rust GpuRay)");
static_assert(WARPATH_OFFSETOF(GpuRay, origin) == 0, "GpuRay.origin");
static_assert(WARPATH_OFFSETOF(GpuRay, t_min) == 12, "GpuRay.t_min");
static_assert(WARPATH_OFFSETOF(GpuRay, direction) == 16, "GpuRay.direction");
static_assert(WARPATH_OFFSETOF(GpuRay, t_max) == 28, "GpuRay.t_max");
static_assert(sizeof(GpuHit) == 16, "GpuHit size (Rust GpuHit)");
static_assert(WARPATH_OFFSETOF(GpuHit, t) == 0, "GpuHit.t");
static_assert(WARPATH_OFFSETOF(GpuHit, u) == 4, "GpuHit.u");
static_assert(WARPATH_OFFSETOF(GpuHit, v) == 8, "GpuHit.v");
static_assert(WARPATH_OFFSETOF(GpuHit, prim) == 12, "GpuHit.prim");
static_assert(sizeof(Material) == 128, "Material size (Rust Material)");
static_assert(WARPATH_OFFSETOF(Material, kind) == 0, "Material.kind");
static_assert(WARPATH_OFFSETOF(Material, base_color_texture) == 4, "Material.base_color_texture");
static_assert(WARPATH_OFFSETOF(Material, roughness) == 8, "Material.roughness");
static_assert(WARPATH_OFFSETOF(Material, ior) == 12, "Material.ior");
static_assert(WARPATH_OFFSETOF(Material, base_color) == 16, "Material.base_color");
static_assert(WARPATH_OFFSETOF(Material, exponent) == 28, "Material.exponent");
static_assert(WARPATH_OFFSETOF(Material, specular) == 32, "Material.specular");
static_assert(WARPATH_OFFSETOF(Material, flags) == 44, "Material.flags");
static_assert(WARPATH_OFFSETOF(Material, emission) == 48, "Material.emission");
static_assert(WARPATH_OFFSETOF(Material, normal_texture) == 60, "Material.normal_texture");
static_assert(WARPATH_OFFSETOF(Material, metallic) == 64, "Material.metallic");
static_assert(WARPATH_OFFSETOF(Material, spec_tint) == 68, "Material.spec_tint");
static_assert(WARPATH_OFFSETOF(Material, sheen) == 72, "Material.sheen");
static_assert(WARPATH_OFFSETOF(Material, sheen_tint) == 76, "Material.sheen_tint");
static_assert(WARPATH_OFFSETOF(Material, clearcoat) == 80, "Material.clearcoat");
static_assert(WARPATH_OFFSETOF(Material, clearcoat_gloss) == 84, "Material.clearcoat_gloss");
static_assert(WARPATH_OFFSETOF(Material, spec_trans) == 88, "Material.spec_trans");
static_assert(WARPATH_OFFSETOF(Material, flatness) == 92, "Material.flatness");
static_assert(WARPATH_OFFSETOF(Material, bump_texture) == 96, "Material.bump_texture");
static_assert(WARPATH_OFFSETOF(Material, bump_scale) == 100, "Material.bump_scale");
static_assert(WARPATH_OFFSETOF(Material, roughness_texture) == 104, "Material.roughness_texture");
static_assert(WARPATH_OFFSETOF(Material, metallic_texture) == 108, "Material.metallic_texture");
static_assert(WARPATH_OFFSETOF(Material, opacity) == 112, "Material.opacity");
static_assert(WARPATH_OFFSETOF(Material, opacity_texture) == 116, "Material.opacity_texture");
static_assert(WARPATH_OFFSETOF(Material, _pad_tail) == 120, "Material._pad_tail");
static_assert(sizeof(TriangleLight) == 64, "TriangleLight size (Rust TriangleLight)");
static_assert(WARPATH_OFFSETOF(TriangleLight, p0) == 0, "TriangleLight.p0");
static_assert(WARPATH_OFFSETOF(TriangleLight, area) == 12, "TriangleLight.area");
static_assert(WARPATH_OFFSETOF(TriangleLight, e1) == 16, "TriangleLight.e1");
static_assert(WARPATH_OFFSETOF(TriangleLight, two_sided) == 28, "TriangleLight.two_sided");
static_assert(WARPATH_OFFSETOF(TriangleLight, e2) == 32, "TriangleLight.e2");
static_assert(WARPATH_OFFSETOF(TriangleLight, triangle) == 44, "TriangleLight.triangle");
static_assert(WARPATH_OFFSETOF(TriangleLight, emission) == 48, "TriangleLight.emission");
static_assert(WARPATH_OFFSETOF(TriangleLight, _pad) == 60, "TriangleLight._pad");
static_assert(sizeof(DeltaLight) == 64, "DeltaLight size (Rust DeltaLight)");
static_assert(WARPATH_OFFSETOF(DeltaLight, position) == 0, "DeltaLight.position");
static_assert(WARPATH_OFFSETOF(DeltaLight, kind) == 12, "DeltaLight.kind");
static_assert(WARPATH_OFFSETOF(DeltaLight, direction) == 16, "DeltaLight.direction");
static_assert(WARPATH_OFFSETOF(DeltaLight, cos_cutoff) == 28, "DeltaLight.cos_cutoff");
static_assert(WARPATH_OFFSETOF(DeltaLight, intensity) == 32, "DeltaLight.intensity");
static_assert(WARPATH_OFFSETOF(DeltaLight, cos_beam) == 44, "DeltaLight.cos_beam");
static_assert(WARPATH_OFFSETOF(DeltaLight, cutoff) == 48, "DeltaLight.cutoff");
static_assert(WARPATH_OFFSETOF(DeltaLight, inv_transition) == 52, "DeltaLight.inv_transition");
static_assert(WARPATH_OFFSETOF(DeltaLight, _pad) == 56, "DeltaLight._pad");
#endif

// traversal/traversal.cuh
#if defined(WARPATH_LAYOUT_TRAVERSAL_TRAVERSAL) && !defined(WARPATH_LAYOUT_CHECKED_TRAVERSAL_TRAVERSAL)
#define WARPATH_LAYOUT_CHECKED_TRAVERSAL_TRAVERSAL
static_assert(sizeof(TraversalScene) == 24, "TraversalScene size (Rust TraversalSceneArgs)");
static_assert(WARPATH_OFFSETOF(TraversalScene, nodes) == 0, "TraversalScene.nodes");
static_assert(WARPATH_OFFSETOF(TraversalScene, triangles) == 8, "TraversalScene.triangles");
static_assert(WARPATH_OFFSETOF(TraversalScene, triangle_ids) == 16, "TraversalScene.triangle_ids");
#endif

// traversal/wide.cuh
#if defined(WARPATH_LAYOUT_TRAVERSAL_WIDE) && !defined(WARPATH_LAYOUT_CHECKED_TRAVERSAL_WIDE)
#define WARPATH_LAYOUT_CHECKED_TRAVERSAL_WIDE
static_assert(sizeof(WideNode) == 80, "WideNode size (Rust WideNode)");
static_assert(WARPATH_OFFSETOF(WideNode, origin) == 0, "WideNode.origin");
static_assert(WARPATH_OFFSETOF(WideNode, exponents) == 12, "WideNode.exponents");
static_assert(WARPATH_OFFSETOF(WideNode, imask) == 15, "WideNode.imask");
static_assert(WARPATH_OFFSETOF(WideNode, child_base) == 16, "WideNode.child_base");
static_assert(WARPATH_OFFSETOF(WideNode, tri_base) == 20, "WideNode.tri_base");
static_assert(WARPATH_OFFSETOF(WideNode, meta) == 24, "WideNode.meta");
static_assert(WARPATH_OFFSETOF(WideNode, q_lo) == 32, "WideNode.q_lo");
static_assert(WARPATH_OFFSETOF(WideNode, q_hi) == 56, "WideNode.q_hi");
static_assert(sizeof(WideTraversalScene) == 16, "WideTraversalScene size (Rust WideTraversalSceneArgs)");
static_assert(WARPATH_OFFSETOF(WideTraversalScene, nodes) == 0, "WideTraversalScene.nodes");
static_assert(WARPATH_OFFSETOF(WideTraversalScene, triangles) == 8, "WideTraversalScene.triangles");
#endif

// common/scene.cuh
#if defined(WARPATH_LAYOUT_COMMON_SCENE) && !defined(WARPATH_LAYOUT_CHECKED_COMMON_SCENE)
#define WARPATH_LAYOUT_CHECKED_COMMON_SCENE
static_assert(sizeof(GpuCamera) == 80, "GpuCamera size (Rust GpuCamera)");
static_assert(WARPATH_OFFSETOF(GpuCamera, to_world) == 0, "GpuCamera.to_world");
static_assert(WARPATH_OFFSETOF(GpuCamera, tan_half_fov) == 64, "GpuCamera.tan_half_fov");
static_assert(WARPATH_OFFSETOF(GpuCamera, aperture_radius) == 72, "GpuCamera.aperture_radius");
static_assert(WARPATH_OFFSETOF(GpuCamera, focus_distance) == 76, "GpuCamera.focus_distance");
static_assert(sizeof(GpuTexture) == 16, "GpuTexture size (Rust GpuTexture)");
static_assert(WARPATH_OFFSETOF(GpuTexture, width) == 0, "GpuTexture.width");
static_assert(WARPATH_OFFSETOF(GpuTexture, height) == 4, "GpuTexture.height");
static_assert(WARPATH_OFFSETOF(GpuTexture, offset) == 8, "GpuTexture.offset");
static_assert(WARPATH_OFFSETOF(GpuTexture, _pad) == 12, "GpuTexture._pad");
static_assert(sizeof(GpuSceneParams) == 256, "GpuSceneParams size (Rust GpuSceneParams)");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, camera) == 0, "GpuSceneParams.camera");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_to_world) == 80, "GpuSceneParams.env_to_world");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_to_local) == 116, "GpuSceneParams.env_to_local");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_constant) == 152, "GpuSceneParams.env_constant");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_scale) == 164, "GpuSceneParams.env_scale");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_kind) == 168, "GpuSceneParams.env_kind");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_width) == 172, "GpuSceneParams.env_width");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_height) == 176, "GpuSceneParams.env_height");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_is_black) == 180, "GpuSceneParams.env_is_black");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, width) == 184, "GpuSceneParams.width");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, height) == 188, "GpuSceneParams.height");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, max_depth) == 192, "GpuSceneParams.max_depth");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, seed) == 196, "GpuSceneParams.seed");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, sampler) == 200, "GpuSceneParams.sampler");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, rr_threshold) == 204, "GpuSceneParams.rr_threshold");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, triangle_count) == 208, "GpuSceneParams.triangle_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, material_count) == 212, "GpuSceneParams.material_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, light_count) == 216, "GpuSceneParams.light_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, selection_count) == 220, "GpuSceneParams.selection_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, has_normals) == 224, "GpuSceneParams.has_normals");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, has_uvs) == 228, "GpuSceneParams.has_uvs");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, texture_count) == 232, "GpuSceneParams.texture_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, iso_shape_count) == 236, "GpuSceneParams.iso_shape_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, delta_light_count) == 240, "GpuSceneParams.delta_light_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, _pad_delta) == 244, "GpuSceneParams._pad_delta");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, iso_shapes) == 248, "GpuSceneParams.iso_shapes");
static_assert(sizeof(DeviceScene) == 144, "DeviceScene size (Rust DeviceSceneArgs)");
static_assert(WARPATH_OFFSETOF(DeviceScene, params) == 0, "DeviceScene.params");
static_assert(WARPATH_OFFSETOF(DeviceScene, bvh) == 8, "DeviceScene.bvh");
static_assert(WARPATH_OFFSETOF(DeviceScene, positions) == 32, "DeviceScene.positions");
static_assert(WARPATH_OFFSETOF(DeviceScene, normals) == 40, "DeviceScene.normals");
static_assert(WARPATH_OFFSETOF(DeviceScene, uvs) == 48, "DeviceScene.uvs");
static_assert(WARPATH_OFFSETOF(DeviceScene, triangles) == 56, "DeviceScene.triangles");
static_assert(WARPATH_OFFSETOF(DeviceScene, triangle_materials) == 64, "DeviceScene.triangle_materials");
static_assert(WARPATH_OFFSETOF(DeviceScene, materials) == 72, "DeviceScene.materials");
static_assert(WARPATH_OFFSETOF(DeviceScene, triangle_to_light) == 80, "DeviceScene.triangle_to_light");
static_assert(WARPATH_OFFSETOF(DeviceScene, lights) == 88, "DeviceScene.lights");
static_assert(WARPATH_OFFSETOF(DeviceScene, light_cdf) == 96, "DeviceScene.light_cdf");
static_assert(WARPATH_OFFSETOF(DeviceScene, env_pixels) == 104, "DeviceScene.env_pixels");
static_assert(WARPATH_OFFSETOF(DeviceScene, env_conditional_cdf) == 112, "DeviceScene.env_conditional_cdf");
static_assert(WARPATH_OFFSETOF(DeviceScene, env_marginal_cdf) == 120, "DeviceScene.env_marginal_cdf");
static_assert(WARPATH_OFFSETOF(DeviceScene, texels) == 128, "DeviceScene.texels");
static_assert(WARPATH_OFFSETOF(DeviceScene, textures) == 136, "DeviceScene.textures");
#endif

// compaction/compaction.cuh
#if defined(WARPATH_LAYOUT_COMPACTION_COMPACTION) && !defined(WARPATH_LAYOUT_CHECKED_COMPACTION_COMPACTION)
#define WARPATH_LAYOUT_CHECKED_COMPACTION_COMPACTION
static_assert(sizeof(CompactElem16) == 16, "CompactElem16 size (Rust CompactElem16)");
static_assert(WARPATH_OFFSETOF(CompactElem16, key) == 0, "CompactElem16.key");
static_assert(WARPATH_OFFSETOF(CompactElem16, payload) == 4, "CompactElem16.payload");
static_assert(sizeof(CompactPathState) == 64, "CompactPathState size (Rust CompactPathState)");
static_assert(WARPATH_OFFSETOF(CompactPathState, key) == 0, "CompactPathState.key");
static_assert(WARPATH_OFFSETOF(CompactPathState, pixel) == 4, "CompactPathState.pixel");
static_assert(WARPATH_OFFSETOF(CompactPathState, depth) == 8, "CompactPathState.depth");
static_assert(WARPATH_OFFSETOF(CompactPathState, rng) == 12, "CompactPathState.rng");
static_assert(WARPATH_OFFSETOF(CompactPathState, origin) == 16, "CompactPathState.origin");
static_assert(WARPATH_OFFSETOF(CompactPathState, pdf) == 28, "CompactPathState.pdf");
static_assert(WARPATH_OFFSETOF(CompactPathState, direction) == 32, "CompactPathState.direction");
static_assert(WARPATH_OFFSETOF(CompactPathState, t_max) == 44, "CompactPathState.t_max");
static_assert(WARPATH_OFFSETOF(CompactPathState, throughput) == 48, "CompactPathState.throughput");
static_assert(WARPATH_OFFSETOF(CompactPathState, flags) == 60, "CompactPathState.flags");
static_assert(sizeof(CompactionState) == 64, "CompactionState size (Rust CompactionState)");
static_assert(WARPATH_OFFSETOF(CompactionState, ticket) == 0, "CompactionState.ticket");
static_assert(WARPATH_OFFSETOF(CompactionState, count) == 8, "CompactionState.count");
static_assert(WARPATH_OFFSETOF(CompactionState, tile_status) == 16, "CompactionState.tile_status");
static_assert(WARPATH_OFFSETOF(CompactionState, block_counts) == 24, "CompactionState.block_counts");
static_assert(WARPATH_OFFSETOF(CompactionState, section_counters) == 32, "CompactionState.section_counters");
static_assert(WARPATH_OFFSETOF(CompactionState, section_flags) == 40, "CompactionState.section_flags");
static_assert(WARPATH_OFFSETOF(CompactionState, section_offsets) == 48, "CompactionState.section_offsets");
static_assert(WARPATH_OFFSETOF(CompactionState, tiles) == 56, "CompactionState.tiles");
#endif

// surface/estimator.cuh
#if defined(WARPATH_LAYOUT_SURFACE_ESTIMATOR) && !defined(WARPATH_LAYOUT_CHECKED_SURFACE_ESTIMATOR)
#define WARPATH_LAYOUT_CHECKED_SURFACE_ESTIMATOR
static_assert(sizeof(StoredPath) == 64, "StoredPath size (Rust StoredPath)");
static_assert(WARPATH_OFFSETOF(StoredPath, origin_pixel) == 0, "StoredPath.origin_pixel");
static_assert(WARPATH_OFFSETOF(StoredPath, direction_sample) == 16, "StoredPath.direction_sample");
static_assert(WARPATH_OFFSETOF(StoredPath, throughput_pdf) == 32, "StoredPath.throughput_pdf");
static_assert(WARPATH_OFFSETOF(StoredPath, radiance_bounce) == 48, "StoredPath.radiance_bounce");
#endif

// schedules/wavefront.cuh
#if defined(WARPATH_LAYOUT_SCHEDULES_WAVEFRONT) && !defined(WARPATH_LAYOUT_CHECKED_SCHEDULES_WAVEFRONT)
#define WARPATH_LAYOUT_CHECKED_SCHEDULES_WAVEFRONT
static_assert(sizeof(WavefrontBuffers) == 96, "WavefrontBuffers size (Rust WavefrontBuffers)");
static_assert(WARPATH_OFFSETOF(WavefrontBuffers, input) == 0, "WavefrontBuffers.input");
static_assert(WARPATH_OFFSETOF(WavefrontBuffers, output) == 8, "WavefrontBuffers.output");
static_assert(WARPATH_OFFSETOF(WavefrontBuffers, flags) == 16, "WavefrontBuffers.flags");
static_assert(WARPATH_OFFSETOF(WavefrontBuffers, intermediate) == 24, "WavefrontBuffers.intermediate");
static_assert(WARPATH_OFFSETOF(WavefrontBuffers, state) == 32, "WavefrontBuffers.state");
#endif

// schedules/schedule.cuh + surface/estimator.cuh
#if defined(WARPATH_LAYOUT_SCHEDULES_SCHEDULE) && defined(WARPATH_LAYOUT_SURFACE_ESTIMATOR) && !defined(WARPATH_LAYOUT_CHECKED_SCHEDULES_SCHEDULE__SURFACE_ESTIMATOR)
#define WARPATH_LAYOUT_CHECKED_SCHEDULES_SCHEDULE__SURFACE_ESTIMATOR
static_assert(sizeof(ScheduleArgs<SurfaceEstimator>) == 240, "ScheduleArgs<SurfaceEstimator> size (Rust ScheduleArgs<DeviceSceneArgs>)");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, film_sum) == 0, "ScheduleArgs<SurfaceEstimator>.film_sum");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, film_sum_sq) == 8, "ScheduleArgs<SurfaceEstimator>.film_sum_sq");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, film_count) == 16, "ScheduleArgs<SurfaceEstimator>.film_count");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, counters) == 24, "ScheduleArgs<SurfaceEstimator>.counters");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, work) == 32, "ScheduleArgs<SurfaceEstimator>.work");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, morton_lo) == 40, "ScheduleArgs<SurfaceEstimator>.morton_lo");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, morton_scale) == 52, "ScheduleArgs<SurfaceEstimator>.morton_scale");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, first_sample) == 64, "ScheduleArgs<SurfaceEstimator>.first_sample");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, padded_pixels) == 68, "ScheduleArgs<SurfaceEstimator>.padded_pixels");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, tiles_x) == 72, "ScheduleArgs<SurfaceEstimator>.tiles_x");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, width) == 76, "ScheduleArgs<SurfaceEstimator>.width");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, height) == 80, "ScheduleArgs<SurfaceEstimator>.height");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, path_base) == 84, "ScheduleArgs<SurfaceEstimator>.path_base");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, wave_paths) == 88, "ScheduleArgs<SurfaceEstimator>.wave_paths");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, _pad) == 92, "ScheduleArgs<SurfaceEstimator>._pad");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<SurfaceEstimator>, scene) == 96, "ScheduleArgs<SurfaceEstimator>.scene");
#endif

// schedules/multistage.cuh
#if defined(WARPATH_LAYOUT_SCHEDULES_MULTISTAGE) && !defined(WARPATH_LAYOUT_CHECKED_SCHEDULES_MULTISTAGE)
#define WARPATH_LAYOUT_CHECKED_SCHEDULES_MULTISTAGE
static_assert(sizeof(MultiStageQueues) == 120, "MultiStageQueues size (Rust MultiStageQueues)");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, origin_pixel) == 0, "MultiStageQueues.origin_pixel");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, direction_sample) == 8, "MultiStageQueues.direction_sample");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, throughput_pdf) == 16, "MultiStageQueues.throughput_pdf");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, radiance_bounce) == 24, "MultiStageQueues.radiance_bounce");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, hits) == 32, "MultiStageQueues.hits");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, extend_in) == 40, "MultiStageQueues.extend_in");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, extend_out) == 48, "MultiStageQueues.extend_out");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, material_ids) == 56, "MultiStageQueues.material_ids");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, shadow_ids) == 64, "MultiStageQueues.shadow_ids");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, shadow_origin_tmax) == 72, "MultiStageQueues.shadow_origin_tmax");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, shadow_direction) == 80, "MultiStageQueues.shadow_direction");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, shadow_contribution) == 88, "MultiStageQueues.shadow_contribution");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, finished_ids) == 96, "MultiStageQueues.finished_ids");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, counts) == 104, "MultiStageQueues.counts");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, capacity) == 112, "MultiStageQueues.capacity");
static_assert(WARPATH_OFFSETOF(MultiStageQueues, _pad) == 116, "MultiStageQueues._pad");
#endif

// volume/medium.cuh
#if defined(WARPATH_LAYOUT_VOLUME_MEDIUM) && !defined(WARPATH_LAYOUT_CHECKED_VOLUME_MEDIUM)
#define WARPATH_LAYOUT_CHECKED_VOLUME_MEDIUM
static_assert(sizeof(GpuMedium) == 160, "GpuMedium size (Rust GpuMedium)");
static_assert(WARPATH_OFFSETOF(GpuMedium, kind) == 0, "GpuMedium.kind");
static_assert(WARPATH_OFFSETOF(GpuMedium, gray) == 4, "GpuMedium.gray");
static_assert(WARPATH_OFFSETOF(GpuMedium, albedo_kind) == 8, "GpuMedium.albedo_kind");
static_assert(WARPATH_OFFSETOF(GpuMedium, albedo_channels) == 12, "GpuMedium.albedo_channels");
static_assert(WARPATH_OFFSETOF(GpuMedium, sigma_t) == 16, "GpuMedium.sigma_t");
static_assert(WARPATH_OFFSETOF(GpuMedium, scale) == 28, "GpuMedium.scale");
static_assert(WARPATH_OFFSETOF(GpuMedium, albedo) == 32, "GpuMedium.albedo");
static_assert(WARPATH_OFFSETOF(GpuMedium, g) == 44, "GpuMedium.g");
static_assert(WARPATH_OFFSETOF(GpuMedium, world_to_local) == 48, "GpuMedium.world_to_local");
static_assert(WARPATH_OFFSETOF(GpuMedium, density_resolution) == 96, "GpuMedium.density_resolution");
static_assert(WARPATH_OFFSETOF(GpuMedium, density_offset) == 108, "GpuMedium.density_offset");
static_assert(WARPATH_OFFSETOF(GpuMedium, albedo_resolution) == 112, "GpuMedium.albedo_resolution");
static_assert(WARPATH_OFFSETOF(GpuMedium, albedo_offset) == 124, "GpuMedium.albedo_offset");
static_assert(WARPATH_OFFSETOF(GpuMedium, majorant_resolution) == 128, "GpuMedium.majorant_resolution");
static_assert(WARPATH_OFFSETOF(GpuMedium, majorant_offset) == 140, "GpuMedium.majorant_offset");
static_assert(WARPATH_OFFSETOF(GpuMedium, density_texture) == 144, "GpuMedium.density_texture");
static_assert(WARPATH_OFFSETOF(GpuMedium, albedo_texture) == 152, "GpuMedium.albedo_texture");
#endif

// volume/estimator.cuh
#if defined(WARPATH_LAYOUT_VOLUME_ESTIMATOR) && !defined(WARPATH_LAYOUT_CHECKED_VOLUME_ESTIMATOR)
#define WARPATH_LAYOUT_CHECKED_VOLUME_ESTIMATOR
static_assert(sizeof(DeviceVolumeScene) == 184, "DeviceVolumeScene size (Rust DeviceVolumeSceneArgs)");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, surface) == 0, "DeviceVolumeScene.surface");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, media) == 144, "DeviceVolumeScene.media");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, grid_data) == 152, "DeviceVolumeScene.grid_data");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, triangle_media) == 160, "DeviceVolumeScene.triangle_media");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, medium_count) == 168, "DeviceVolumeScene.medium_count");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, camera_medium) == 172, "DeviceVolumeScene.camera_medium");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, counter_slots) == 176, "DeviceVolumeScene.counter_slots");
static_assert(WARPATH_OFFSETOF(DeviceVolumeScene, _pad) == 180, "DeviceVolumeScene._pad");
#endif

// schedules/schedule.cuh + volume/estimator.cuh
#if defined(WARPATH_LAYOUT_SCHEDULES_SCHEDULE) && defined(WARPATH_LAYOUT_VOLUME_ESTIMATOR) && !defined(WARPATH_LAYOUT_CHECKED_SCHEDULES_SCHEDULE__VOLUME_ESTIMATOR)
#define WARPATH_LAYOUT_CHECKED_SCHEDULES_SCHEDULE__VOLUME_ESTIMATOR
static_assert(sizeof(ScheduleArgs<VolumeEstimator>) == 280, "ScheduleArgs<VolumeEstimator> size (Rust ScheduleArgs<DeviceVolumeSceneArgs>)");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, film_sum) == 0, "ScheduleArgs<VolumeEstimator>.film_sum");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, film_sum_sq) == 8, "ScheduleArgs<VolumeEstimator>.film_sum_sq");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, film_count) == 16, "ScheduleArgs<VolumeEstimator>.film_count");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, counters) == 24, "ScheduleArgs<VolumeEstimator>.counters");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, work) == 32, "ScheduleArgs<VolumeEstimator>.work");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, morton_lo) == 40, "ScheduleArgs<VolumeEstimator>.morton_lo");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, morton_scale) == 52, "ScheduleArgs<VolumeEstimator>.morton_scale");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, first_sample) == 64, "ScheduleArgs<VolumeEstimator>.first_sample");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, padded_pixels) == 68, "ScheduleArgs<VolumeEstimator>.padded_pixels");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, tiles_x) == 72, "ScheduleArgs<VolumeEstimator>.tiles_x");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, width) == 76, "ScheduleArgs<VolumeEstimator>.width");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, height) == 80, "ScheduleArgs<VolumeEstimator>.height");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, path_base) == 84, "ScheduleArgs<VolumeEstimator>.path_base");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, wave_paths) == 88, "ScheduleArgs<VolumeEstimator>.wave_paths");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, _pad) == 92, "ScheduleArgs<VolumeEstimator>._pad");
static_assert(WARPATH_OFFSETOF(ScheduleArgs<VolumeEstimator>, scene) == 96, "ScheduleArgs<VolumeEstimator>.scene");
#endif

// isosurface/caster.cuh
#if defined(WARPATH_LAYOUT_ISOSURFACE_CASTER) && !defined(WARPATH_LAYOUT_CHECKED_ISOSURFACE_CASTER)
#define WARPATH_LAYOUT_CHECKED_ISOSURFACE_CASTER
static_assert(sizeof(IsoNode) == 32, "IsoNode size (Rust IsoNode)");
static_assert(WARPATH_OFFSETOF(IsoNode, lo) == 0, "IsoNode.lo");
static_assert(WARPATH_OFFSETOF(IsoNode, hi) == 12, "IsoNode.hi");
static_assert(WARPATH_OFFSETOF(IsoNode, left) == 24, "IsoNode.left");
static_assert(WARPATH_OFFSETOF(IsoNode, right) == 28, "IsoNode.right");
static_assert(sizeof(IsoRay) == 48, "IsoRay size (Rust IsoRay)");
static_assert(WARPATH_OFFSETOF(IsoRay, origin) == 0, "IsoRay.origin");
static_assert(WARPATH_OFFSETOF(IsoRay, direction) == 24, "IsoRay.direction");
static_assert(sizeof(IsoHit) == 24, "IsoHit size (Rust IsoHit)");
static_assert(WARPATH_OFFSETOF(IsoHit, t) == 0, "IsoHit.t");
static_assert(WARPATH_OFFSETOF(IsoHit, cell) == 8, "IsoHit.cell");
static_assert(WARPATH_OFFSETOF(IsoHit, hit) == 20, "IsoHit.hit");
static_assert(sizeof(IsoArgs) == 64, "IsoArgs size (Rust IsoArgs)");
static_assert(WARPATH_OFFSETOF(IsoArgs, values) == 0, "IsoArgs.values");
static_assert(WARPATH_OFFSETOF(IsoArgs, nodes) == 8, "IsoArgs.nodes");
static_assert(WARPATH_OFFSETOF(IsoArgs, rays) == 16, "IsoArgs.rays");
static_assert(WARPATH_OFFSETOF(IsoArgs, hits) == 24, "IsoArgs.hits");
static_assert(WARPATH_OFFSETOF(IsoArgs, samples) == 32, "IsoArgs.samples");
static_assert(WARPATH_OFFSETOF(IsoArgs, root) == 44, "IsoArgs.root");
static_assert(WARPATH_OFFSETOF(IsoArgs, ray_count) == 48, "IsoArgs.ray_count");
static_assert(WARPATH_OFFSETOF(IsoArgs, isovalue) == 52, "IsoArgs.isovalue");
static_assert(WARPATH_OFFSETOF(IsoArgs, root_slot) == 56, "IsoArgs.root_slot");
#endif

// isosurface/render.cuh
#if defined(WARPATH_LAYOUT_ISOSURFACE_RENDER) && !defined(WARPATH_LAYOUT_CHECKED_ISOSURFACE_RENDER)
#define WARPATH_LAYOUT_CHECKED_ISOSURFACE_RENDER
static_assert(sizeof(IsoRenderArgs) == 232, "IsoRenderArgs size (Rust IsoRenderArgs)");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, values) == 0, "IsoRenderArgs.values");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, nodes) == 8, "IsoRenderArgs.nodes");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, pixels) == 16, "IsoRenderArgs.pixels");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, hits) == 24, "IsoRenderArgs.hits");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, eye) == 32, "IsoRenderArgs.eye");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, corner) == 56, "IsoRenderArgs.corner");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, right) == 80, "IsoRenderArgs.right");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, down) == 104, "IsoRenderArgs.down");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, samples) == 128, "IsoRenderArgs.samples");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, root) == 140, "IsoRenderArgs.root");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, width) == 144, "IsoRenderArgs.width");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, height) == 148, "IsoRenderArgs.height");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, isovalue) == 152, "IsoRenderArgs.isovalue");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, color) == 156, "IsoRenderArgs.color");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, ambient) == 168, "IsoRenderArgs.ambient");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, diffuse) == 172, "IsoRenderArgs.diffuse");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, specular) == 176, "IsoRenderArgs.specular");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, shininess) == 180, "IsoRenderArgs.shininess");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, background) == 184, "IsoRenderArgs.background");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, light_mode) == 196, "IsoRenderArgs.light_mode");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, root_slot) == 200, "IsoRenderArgs.root_slot");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, light) == 208, "IsoRenderArgs.light");
#endif

// isosurface/update.cuh
#if defined(WARPATH_LAYOUT_ISOSURFACE_UPDATE) && !defined(WARPATH_LAYOUT_CHECKED_ISOSURFACE_UPDATE)
#define WARPATH_LAYOUT_CHECKED_ISOSURFACE_UPDATE
static_assert(sizeof(IsoTreeNode) == 40, "IsoTreeNode size (Rust IsoTreeNode)");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, lo) == 0, "IsoTreeNode.lo");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, hi) == 12, "IsoTreeNode.hi");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, left) == 24, "IsoTreeNode.left");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, right) == 28, "IsoTreeNode.right");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, min) == 32, "IsoTreeNode.min");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, max) == 36, "IsoTreeNode.max");
static_assert(sizeof(IsoUpdateArgs) == 48, "IsoUpdateArgs size (Rust IsoUpdateArgs)");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, tree) == 0, "IsoUpdateArgs.tree");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, level_nodes) == 8, "IsoUpdateArgs.level_nodes");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, level_offsets) == 16, "IsoUpdateArgs.level_offsets");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, nodes) == 24, "IsoUpdateArgs.nodes");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, refs) == 32, "IsoUpdateArgs.refs");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, levels) == 40, "IsoUpdateArgs.levels");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, isovalue) == 44, "IsoUpdateArgs.isovalue");
static_assert(sizeof(IsoClimbArgs) == 64, "IsoClimbArgs size (Rust IsoClimbArgs)");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, tree) == 0, "IsoClimbArgs.tree");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, parents) == 8, "IsoClimbArgs.parents");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, leaves) == 16, "IsoClimbArgs.leaves");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, leaf_ranges) == 24, "IsoClimbArgs.leaf_ranges");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, arrivals) == 32, "IsoClimbArgs.arrivals");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, nodes) == 40, "IsoClimbArgs.nodes");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, refs) == 48, "IsoClimbArgs.refs");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, leaf_count) == 56, "IsoClimbArgs.leaf_count");
static_assert(WARPATH_OFFSETOF(IsoClimbArgs, isovalue) == 60, "IsoClimbArgs.isovalue");
#endif

// isosurface/pipeline.cuh
#if defined(WARPATH_LAYOUT_ISOSURFACE_PIPELINE) && !defined(WARPATH_LAYOUT_CHECKED_ISOSURFACE_PIPELINE)
#define WARPATH_LAYOUT_CHECKED_ISOSURFACE_PIPELINE
static_assert(sizeof(IsoPipelineArgs) == 272, "IsoPipelineArgs size (Rust IsoPipelineArgs)");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, frame) == 0, "IsoPipelineArgs.frame");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, stack_node) == 232, "IsoPipelineArgs.stack_node");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, stack_entry) == 240, "IsoPipelineArgs.stack_entry");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, stack_top) == 248, "IsoPipelineArgs.stack_top");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, normals) == 256, "IsoPipelineArgs.normals");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, stack_capacity) == 264, "IsoPipelineArgs.stack_capacity");
static_assert(WARPATH_OFFSETOF(IsoPipelineArgs, pixel_count) == 268, "IsoPipelineArgs.pixel_count");
static_assert(sizeof(IsoStageOut) == 88, "IsoStageOut size (Rust IsoStageOut)");
static_assert(WARPATH_OFFSETOF(IsoStageOut, items) == 0, "IsoStageOut.items");
static_assert(WARPATH_OFFSETOF(IsoStageOut, flags) == 8, "IsoStageOut.flags");
static_assert(WARPATH_OFFSETOF(IsoStageOut, intermediate) == 16, "IsoStageOut.intermediate");
static_assert(WARPATH_OFFSETOF(IsoStageOut, state) == 24, "IsoStageOut.state");
#endif

// isosurface/shapes.cuh
#if defined(WARPATH_LAYOUT_ISOSURFACE_SHAPES) && !defined(WARPATH_LAYOUT_CHECKED_ISOSURFACE_SHAPES)
#define WARPATH_LAYOUT_CHECKED_ISOSURFACE_SHAPES
static_assert(sizeof(GpuIsoShape) == 208, "GpuIsoShape size (Rust GpuIsoShape)");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, world_to_lattice) == 0, "GpuIsoShape.world_to_lattice");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, gradient_to_world) == 96, "GpuIsoShape.gradient_to_world");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, values) == 168, "GpuIsoShape.values");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, nodes) == 176, "GpuIsoShape.nodes");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, samples) == 184, "GpuIsoShape.samples");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, root) == 196, "GpuIsoShape.root");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, isovalue) == 200, "GpuIsoShape.isovalue");
static_assert(WARPATH_OFFSETOF(GpuIsoShape, material) == 204, "GpuIsoShape.material");
#endif

// restir/restir.cuh
#if defined(WARPATH_LAYOUT_RESTIR_RESTIR) && !defined(WARPATH_LAYOUT_CHECKED_RESTIR_RESTIR)
#define WARPATH_LAYOUT_CHECKED_RESTIR_RESTIR
static_assert(sizeof(RestirSurface) == 112, "RestirSurface size (Rust GpuRestirSurface)");
static_assert(WARPATH_OFFSETOF(RestirSurface, p) == 0, "RestirSurface.p");
static_assert(WARPATH_OFFSETOF(RestirSurface, ng) == 12, "RestirSurface.ng");
static_assert(WARPATH_OFFSETOF(RestirSurface, n) == 24, "RestirSurface.n");
static_assert(WARPATH_OFFSETOF(RestirSurface, base_color) == 36, "RestirSurface.base_color");
static_assert(WARPATH_OFFSETOF(RestirSurface, wo) == 48, "RestirSurface.wo");
static_assert(WARPATH_OFFSETOF(RestirSurface, emitted) == 60, "RestirSurface.emitted");
static_assert(WARPATH_OFFSETOF(RestirSurface, depth) == 72, "RestirSurface.depth");
static_assert(WARPATH_OFFSETOF(RestirSurface, material) == 76, "RestirSurface.material");
static_assert(WARPATH_OFFSETOF(RestirSurface, lit) == 80, "RestirSurface.lit");
static_assert(WARPATH_OFFSETOF(RestirSurface, roughness) == 84, "RestirSurface.roughness");
static_assert(WARPATH_OFFSETOF(RestirSurface, material_roughness) == 88, "RestirSurface.material_roughness");
static_assert(WARPATH_OFFSETOF(RestirSurface, metallic) == 92, "RestirSurface.metallic");
static_assert(WARPATH_OFFSETOF(RestirSurface, opacity) == 96, "RestirSurface.opacity");
static_assert(WARPATH_OFFSETOF(RestirSurface, _pad) == 100, "RestirSurface._pad");
#if !defined(RESTIR_FULL_SAMPLE)
static_assert(sizeof(Reservoir) == 24, "Reservoir size (Rust GpuReservoir)");
static_assert(WARPATH_OFFSETOF(Reservoir, light) == 0, "Reservoir.light");
static_assert(WARPATH_OFFSETOF(Reservoir, b) == 4, "Reservoir.b");
static_assert(WARPATH_OFFSETOF(Reservoir, w_sum) == 12, "Reservoir.w_sum");
static_assert(WARPATH_OFFSETOF(Reservoir, m) == 16, "Reservoir.m");
static_assert(WARPATH_OFFSETOF(Reservoir, w) == 20, "Reservoir.w");
#endif
#if defined(RESTIR_FULL_SAMPLE)
static_assert(sizeof(Reservoir) == 68, "Reservoir size (Rust GpuFullReservoir)");
static_assert(WARPATH_OFFSETOF(Reservoir, light) == 0, "Reservoir.light");
static_assert(WARPATH_OFFSETOF(Reservoir, b) == 4, "Reservoir.b");
static_assert(WARPATH_OFFSETOF(Reservoir, w_sum) == 12, "Reservoir.w_sum");
static_assert(WARPATH_OFFSETOF(Reservoir, m) == 16, "Reservoir.m");
static_assert(WARPATH_OFFSETOF(Reservoir, w) == 20, "Reservoir.w");
static_assert(WARPATH_OFFSETOF(Reservoir, q) == 24, "Reservoir.q");
static_assert(WARPATH_OFFSETOF(Reservoir, n) == 36, "Reservoir.n");
static_assert(WARPATH_OFFSETOF(Reservoir, emission) == 48, "Reservoir.emission");
static_assert(WARPATH_OFFSETOF(Reservoir, two_sided) == 60, "Reservoir.two_sided");
static_assert(WARPATH_OFFSETOF(Reservoir, source_pdf) == 64, "Reservoir.source_pdf");
#endif
static_assert(sizeof(RestirPendingZ) == 8, "RestirPendingZ size (Rust GpuPendingZ)");
static_assert(WARPATH_OFFSETOF(RestirPendingZ, chosen_target) == 0, "RestirPendingZ.chosen_target");
static_assert(WARPATH_OFFSETOF(RestirPendingZ, chosen) == 4, "RestirPendingZ.chosen");
static_assert(sizeof(RestirPendingTemporal) == 24, "RestirPendingTemporal size (Rust GpuPendingTemporal)");
static_assert(WARPATH_OFFSETOF(RestirPendingTemporal, chosen_target) == 0, "RestirPendingTemporal.chosen_target");
static_assert(WARPATH_OFFSETOF(RestirPendingTemporal, current_m) == 4, "RestirPendingTemporal.current_m");
static_assert(WARPATH_OFFSETOF(RestirPendingTemporal, prev_m) == 8, "RestirPendingTemporal.prev_m");
static_assert(WARPATH_OFFSETOF(RestirPendingTemporal, prev_pixel) == 12, "RestirPendingTemporal.prev_pixel");
static_assert(WARPATH_OFFSETOF(RestirPendingTemporal, has_prev) == 16, "RestirPendingTemporal.has_prev");
static_assert(WARPATH_OFFSETOF(RestirPendingTemporal, chosen_prev) == 20, "RestirPendingTemporal.chosen_prev");
static_assert(sizeof(RestirArgs) == 392, "RestirArgs size (Rust RestirArgs)");
static_assert(WARPATH_OFFSETOF(RestirArgs, scene) == 0, "RestirArgs.scene");
static_assert(WARPATH_OFFSETOF(RestirArgs, gbuffer) == 144, "RestirArgs.gbuffer");
static_assert(WARPATH_OFFSETOF(RestirArgs, prev_gbuffer) == 152, "RestirArgs.prev_gbuffer");
static_assert(WARPATH_OFFSETOF(RestirArgs, input) == 160, "RestirArgs.input");
static_assert(WARPATH_OFFSETOF(RestirArgs, output) == 168, "RestirArgs.output");
static_assert(WARPATH_OFFSETOF(RestirArgs, previous) == 176, "RestirArgs.previous");
static_assert(WARPATH_OFFSETOF(RestirArgs, film_sum) == 184, "RestirArgs.film_sum");
static_assert(WARPATH_OFFSETOF(RestirArgs, film_sum_sq) == 192, "RestirArgs.film_sum_sq");
static_assert(WARPATH_OFFSETOF(RestirArgs, film_count) == 200, "RestirArgs.film_count");
static_assert(WARPATH_OFFSETOF(RestirArgs, frame) == 208, "RestirArgs.frame");
static_assert(WARPATH_OFFSETOF(RestirArgs, seed) == 212, "RestirArgs.seed");
static_assert(WARPATH_OFFSETOF(RestirArgs, candidates) == 216, "RestirArgs.candidates");
static_assert(WARPATH_OFFSETOF(RestirArgs, light_pool) == 220, "RestirArgs.light_pool");
static_assert(WARPATH_OFFSETOF(RestirArgs, bias) == 224, "RestirArgs.bias");
static_assert(WARPATH_OFFSETOF(RestirArgs, neighbours) == 228, "RestirArgs.neighbours");
static_assert(WARPATH_OFFSETOF(RestirArgs, pass) == 232, "RestirArgs.pass");
static_assert(WARPATH_OFFSETOF(RestirArgs, has_previous) == 236, "RestirArgs.has_previous");
static_assert(WARPATH_OFFSETOF(RestirArgs, radius) == 240, "RestirArgs.radius");
static_assert(WARPATH_OFFSETOF(RestirArgs, temporal_cap) == 244, "RestirArgs.temporal_cap");
static_assert(WARPATH_OFFSETOF(RestirArgs, prev_to_camera) == 248, "RestirArgs.prev_to_camera");
static_assert(WARPATH_OFFSETOF(RestirArgs, prev_position) == 296, "RestirArgs.prev_position");
static_assert(WARPATH_OFFSETOF(RestirArgs, prev_tan_half_fov) == 308, "RestirArgs.prev_tan_half_fov");
static_assert(WARPATH_OFFSETOF(RestirArgs, camera_moved) == 316, "RestirArgs.camera_moved");
static_assert(WARPATH_OFFSETOF(RestirArgs, pending_z) == 320, "RestirArgs.pending_z");
static_assert(WARPATH_OFFSETOF(RestirArgs, neighbour_sees) == 328, "RestirArgs.neighbour_sees");
static_assert(WARPATH_OFFSETOF(RestirArgs, ray_group) == 336, "RestirArgs.ray_group");
static_assert(WARPATH_OFFSETOF(RestirArgs, target) == 340, "RestirArgs.target");
static_assert(WARPATH_OFFSETOF(RestirArgs, pending_temporal) == 344, "RestirArgs.pending_temporal");
static_assert(WARPATH_OFFSETOF(RestirArgs, reuse_visibility) == 352, "RestirArgs.reuse_visibility");
static_assert(WARPATH_OFFSETOF(RestirArgs, _pad) == 356, "RestirArgs._pad");
static_assert(WARPATH_OFFSETOF(RestirArgs, ray_counts) == 360, "RestirArgs.ray_counts");
static_assert(WARPATH_OFFSETOF(RestirArgs, bsdf_candidates) == 368, "RestirArgs.bsdf_candidates");
static_assert(WARPATH_OFFSETOF(RestirArgs, boiling_multiplier) == 372, "RestirArgs.boiling_multiplier");
static_assert(WARPATH_OFFSETOF(RestirArgs, roughness_threshold) == 376, "RestirArgs.roughness_threshold");
static_assert(WARPATH_OFFSETOF(RestirArgs, _pad2) == 380, "RestirArgs._pad2");
static_assert(WARPATH_OFFSETOF(RestirArgs, origins) == 384, "RestirArgs.origins");
#endif
