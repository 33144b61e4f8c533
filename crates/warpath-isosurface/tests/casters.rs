//! The casters against each other and against a brute-force march: the BVH caster returns
//! the reference's hit (the same cell, the same t bit for bit) for every ray, so it has no
//! pinholes; and the reference finds the first crossing a fine march along the ray finds.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use warpath_isosurface::cell::interpolate;
use warpath_isosurface::{BrickBvh, Lattice, cast_bvh, cast_reference, fields};

/// A ray from outside the lattice box toward a random point inside it.
fn random_ray(rng: &mut StdRng, lattice: &Lattice) -> ([f64; 3], [f64; 3]) {
    let upper = lattice.upper();
    let target: [f64; 3] = std::array::from_fn(|a| rng.random::<f64>() * upper[a]);
    let theta = rng.random::<f64>() * std::f64::consts::TAU;
    let z: f64 = rng.random_range(-1.0..1.0);
    let s = (1.0 - z * z).sqrt();
    let dir = [s * theta.cos(), s * theta.sin(), z];
    let reach = 2.0 * upper.iter().cloned().fold(0.0, f64::max);
    let origin = std::array::from_fn(|a| target[a] - reach * dir[a]);
    (origin, dir)
}

fn value_at(lattice: &Lattice, p: [f64; 3]) -> f64 {
    let cells = lattice.cells();
    let cell: [u32; 3] = std::array::from_fn(|a| (p[a].floor().max(0.0) as u32).min(cells[a] - 1));
    let local = std::array::from_fn(|a| p[a] - cell[a] as f64);
    interpolate(&lattice.cell_corners(cell), local)
}

#[test]
fn the_bvh_caster_returns_the_reference_hit_for_every_ray() {
    let volumes = [
        ("marschner-lobb 41³", fields::marschner_lobb([41, 41, 41])),
        ("spheres 33×29×37", fields::spheres([33, 29, 37])),
    ];
    let mut rng = StdRng::seed_from_u64(5);
    for (name, lattice) in &volumes {
        let (lo, hi) = lattice.range();
        for brick_cells in [4, 16] {
            let bvh = BrickBvh::build(lattice, brick_cells);
            for fraction in [0.3f32, 0.5, 0.7] {
                let isovalue =
                    if name.starts_with("spheres") { 0.0 + (fraction - 0.5) * 4.0 } else { lo + (hi - lo) * fraction };
                let tree = bvh.condense(isovalue);
                let (mut hits, rays) = (0, 4000);
                for _ in 0..rays {
                    let (o, d) = random_ray(&mut rng, lattice);
                    let reference = cast_reference(lattice, o, d, isovalue);
                    let accelerated = cast_bvh(lattice, &bvh, &tree, o, d, isovalue);
                    assert_eq!(
                        accelerated, reference,
                        "{name}, B = {brick_cells}, isovalue {isovalue}, ray {o:?} {d:?}"
                    );
                    hits += reference.is_some() as usize;
                }
                assert!(hits > rays / 10 && hits < rays, "{name} at {isovalue}: {hits} of {rays} rays hit");
            }
        }
    }
}

#[test]
fn the_reference_finds_the_first_crossing_of_a_fine_march() {
    let lattice = fields::marschner_lobb([25, 25, 25]);
    let mut rng = StdRng::seed_from_u64(9);
    let isovalue = 0.5f32;
    let mut hits = 0;
    for _ in 0..200 {
        let (o, d) = random_ray(&mut rng, &lattice);
        let step = 2e-4;
        let mut march = None;
        let mut previous: Option<f64> = None;
        let mut t = 0.0;
        while t < 200.0 {
            let p: [f64; 3] = std::array::from_fn(|a| o[a] + t * d[a]);
            let inside = (0..3).all(|a| p[a] >= 0.0 && p[a] <= lattice.upper()[a]);
            if inside {
                let g = value_at(&lattice, p) - isovalue as f64;
                if previous.is_some_and(|q| (q < 0.0) != (g < 0.0)) {
                    march = Some(t);
                    break;
                }
                previous = Some(g);
            } else if previous.is_some() {
                break;
            }
            t += step;
        }
        let reference = cast_reference(&lattice, o, d, isovalue);
        match (reference, march) {
            (Some(hit), Some(t)) => {
                hits += 1;
                assert!(hit.t <= t + 1e-9 && hit.t >= t - step - 1e-9, "reference t {} against the march's {t}", hit.t);
                let p: [f64; 3] = std::array::from_fn(|a| o[a] + hit.t * d[a]);
                assert!((value_at(&lattice, p) - isovalue as f64).abs() < 1e-9, "the hit lies on the isosurface");
            }
            (None, Some(t)) => panic!("the reference missed the crossing the march found at {t}"),
            (Some(hit), None) => {
                // A grazing touch between two march samples.
                let p: [f64; 3] = std::array::from_fn(|a| o[a] + hit.t * d[a]);
                assert!((value_at(&lattice, p) - isovalue as f64).abs() < 1e-9);
            }
            (None, None) => {}
        }
    }
    assert!(hits > 40, "the test must exercise hits ({hits})");
}

#[test]
fn isovalues_outside_the_range_hit_nothing() {
    let lattice = fields::marschner_lobb([17, 17, 17]);
    let bvh = BrickBvh::build(&lattice, 16);
    let (_, hi) = lattice.range();
    let tree = bvh.condense(hi + 1.0);
    assert_eq!(tree.root, None);
    let o = [-5.0, 8.0, 8.0];
    assert_eq!(cast_bvh(&lattice, &bvh, &tree, o, [1.0, 0.0, 0.0], hi + 1.0), None);
    assert_eq!(cast_reference(&lattice, o, [1.0, 0.0, 0.0], hi + 1.0), None);
}
