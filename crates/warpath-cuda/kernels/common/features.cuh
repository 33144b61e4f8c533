// common/features.cuh — the material features a program is compiled for (warpath-cuda's
// src/strategy/features.rs, MaterialFeatures, owns the bits): WARPATH_MATERIAL_FEATURES is a
// bit set in front of the sources, and code only some scenes need (principled, plastic,
// exact conductor Fresnel, Beckmann, normal and bump maps, textures, opacity masks) is
// compiled only where its bit is set, so a scene of diffuse, glass and metal materials gets
// kernels without it (fewer registers). Absent, every feature is compiled: the default
// programs, the lockstep host build and precompiled caches are the full estimator.
// A program lacking a feature treats what needs it as absent (a disabled kind shades as
// Black, a flag or texture is ignored); the host never renders such a scene with it
// (MaterialFeatures::of_scene ⊆ the variant's set, checked before a render).
#pragma once

#ifndef WARPATH_MATERIAL_FEATURES
#define WARPATH_MATERIAL_FEATURES 0xffffffffu
#endif

// MaterialFeatures' bits.
#define WARPATH_FEATURE_PRINCIPLED 1u        // MaterialKind::Principled
#define WARPATH_FEATURE_PLASTIC 2u           // MaterialKind::Plastic (smooth and rough coats)
#define WARPATH_FEATURE_CONDUCTOR_ETA_K 4u   // flags::CONDUCTOR_ETA_K
#define WARPATH_FEATURE_BECKMANN 8u          // flags::BECKMANN
#define WARPATH_FEATURE_SURFACE_MAPS 16u     // normal_texture, bump_texture
#define WARPATH_FEATURE_TEXTURES 32u         // base_color, roughness, metallic textures
#define WARPATH_FEATURE_OPACITY 64u          // opacity < 1, opacity_texture (Material::is_masked)

// Whether feature `f` (PRINCIPLED, ...) is compiled: usable in `#if` and in expressions.
#define WARPATH_HAS_FEATURE(f) ((WARPATH_MATERIAL_FEATURES & WARPATH_FEATURE_##f) != 0u)
