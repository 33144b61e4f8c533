//! Combining reservoirs at a pixel (generalised RIS), with 1/M, ray-traced (1/Z) or pairwise MIS
//! weights (the parent module's docs give the formulas); the temporal and spatial passes call
//! these, in the order the CUDA kernels (restir.cuh) compute them.

use super::*;

/// p̂ at the pixel's surface `s` of input `r`'s sample `y` as a combination resamples it: the
/// target, times the visibility from `s` when `reused` (not the pixel's own input) and
/// visibility-aware reuse is on — a shadow ray wherever the resampling weight would be > 0.
fn reused_target(
    view: &SceneView,
    options: &RestirOptions,
    s: &Surface,
    reused: bool,
    r: &Reservoir,
    y: LightPoint,
    rays: &AtomicU64,
) -> f32 {
    let p = target(view, options.target, s, y);
    if options.reuse_visibility && reused && p > 0.0 && r.w > 0.0 && !sees(view, s, y, rays) { 0.0 } else { p }
}

/// Combines `inputs` (reservoir, the surface it was made at) at surface `s` (generalised
/// RIS; the first input is the pixel's own, made at `s`). `u` draws the selection numbers. The
/// result's origin is the pixel's own input's when its sample wins, else `reused`.
pub(super) fn combine(
    view: &SceneView,
    options: &RestirOptions,
    s: &Surface,
    inputs: &[(Reservoir, Surface)],
    reused: SampleOrigin,
    rays: &AtomicU64,
    mut u: impl FnMut(u32) -> f32,
) -> Reservoir {
    let bias = options.bias;
    if bias == BiasCorrection::Pairwise {
        return combine_pairwise(view, options, s, inputs, reused, rays, u);
    }
    let mut out = Reservoir::default();
    let mut m = 0.0;
    let mut chosen_target = 0.0;
    let mut chosen = 0;
    for (i, (r, _)) in inputs.iter().enumerate() {
        m += r.m;
        if let Some(y) = r.y {
            let p = reused_target(view, options, s, i > 0, r, y, rays);
            if out.update(y, p * r.w * r.m, u(i as u32)) {
                chosen_target = p;
                chosen = i;
            }
        }
    }
    out.m = m;
    out.origin = if chosen == 0 { inputs[0].0.origin } else { reused };
    let Some(y) = out.y else { return out };
    // Whether each input's surface sees y (the pixel's own is inputs[0]): a shadow ray, but
    // for the input y came from (`sees_chosen`).
    // With visibility-aware reuse the pixel's own surface sees y whichever input it came from
    // (a reused sample it does not see had resampling weight 0).
    let input_sees = |i: usize| {
        if i == chosen || (i == 0 && options.reuse_visibility) {
            sees_chosen(view, &inputs[i].1, y)
        } else {
            sees(view, &inputs[i].1, y, rays)
        }
    };
    let seen: Vec<bool> = match bias {
        BiasCorrection::RayTraced => (0..inputs.len()).map(input_sees).collect(),
        BiasCorrection::Off | BiasCorrection::Pairwise => vec![input_sees(0)],
    };
    let normaliser = match bias {
        BiasCorrection::Off | BiasCorrection::Pairwise => m,
        BiasCorrection::RayTraced => inputs.iter().zip(&seen).filter(|(_, seen)| **seen).map(|((r, _), _)| r.m).sum(),
    };
    finalize(&mut out, chosen_target, normaliser);
    // A sample the pixel does not see contributes nothing here, and it must not be handed on
    // with W > 0: a reservoir reused later has to be one its own surface could have made
    // (support of p̂·V), or the 1/Z weights of the reusing pixel no longer sum to one.
    if !seen[0] {
        out.w = 0.0;
    }
    out
}

/// `combine` with pairwise MIS weights (module docs): the reused inputs first, in order, then
/// the pixel's own; one shadow ray, for the pixel's own surface. Every product and quotient is
/// written in the order restir.cuh's `restir_pairwise_*` computes it.
fn combine_pairwise(
    view: &SceneView,
    options: &RestirOptions,
    s: &Surface,
    inputs: &[(Reservoir, Surface)],
    reused: SampleOrigin,
    rays: &AtomicU64,
    mut u: impl FnMut(u32) -> f32,
) -> Reservoir {
    let kind = options.target;
    let mut out = Reservoir::default();
    let mut m = 0.0;
    let mut chosen_target = 0.0;
    let own = inputs[0].0;
    let mut chosen_own = false;
    let k = (inputs.len() - 1) as f32;
    let own_target = own.y.map_or(0.0, |y| target(view, kind, s, y));
    // Σ_i c/(c + d_i): the pixel's own sample's share against each reused input.
    let mut own_share = 0.0f32;
    for (i, (r, surface)) in inputs.iter().enumerate().skip(1) {
        m += r.m;
        if let Some(y) = r.y {
            let p = reused_target(view, options, s, true, r, y, rays);
            let a = (k * r.m) * target(view, kind, surface, y);
            let b = own.m * p;
            let mis = if a + b > 0.0 { (a / (a + b)) / k } else { 0.0 };
            if out.update(y, (mis * p) * r.w, u(i as u32)) {
                chosen_target = p;
            }
        }
        if let Some(y) = own.y {
            let c = own.m * own_target;
            let mut d = (k * r.m) * target(view, kind, surface, y);
            // The reused input's technique cannot produce a sample its surface does not see.
            if d > 0.0 && !sees(view, surface, y, rays) {
                d = 0.0;
            }
            own_share += if c + d > 0.0 { c / (c + d) } else { 0.0 };
        }
    }
    m += own.m;
    if let Some(y) = own.y {
        let mis = if inputs.len() > 1 { own_share / k } else { 1.0 };
        if out.update(y, (mis * own_target) * own.w, u(0)) {
            chosen_target = own_target;
            chosen_own = true;
        }
    }
    out.m = m;
    out.origin = if chosen_own { own.origin } else { reused };
    let Some(y) = out.y else { return out };
    finalize(&mut out, chosen_target, 1.0);
    // As in `combine`: a sample the pixel does not see is handed on with W = 0 (known when it
    // is the pixel's own: `sees_chosen`).
    let seen = if chosen_own || options.reuse_visibility { sees_chosen(view, s, y) } else { sees(view, s, y, rays) };
    if !seen {
        out.w = 0.0;
    }
    out
}
