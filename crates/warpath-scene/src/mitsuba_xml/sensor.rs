//! Mitsuba emitters (`constant`, `envmap`; `point`, `spot`, `directional` in `delta.rs`; the
//! unsupported ones refused by line) and the
//! sensor, film, sampler and integrator that make the render settings.

use super::*;

impl Loader {
    pub(super) fn emitter(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let env = match kind.as_str() {
            "constant" => {
                let radiance = self.color(src, &mut props, "radiance")?.unwrap_or(Vec3::ONE);
                if !radiance.is_finite() || radiance.min_element() < 0.0 {
                    return Err(src.error(node, format!("radiance {radiance} must be finite and non-negative")));
                }
                Environment::Constant(radiance)
            }
            "envmap" => {
                let Some((file, line)) = self.string(src, &mut props, "filename")? else {
                    return Err(src.error(node, "an 'envmap' emitter needs <string name=\"filename\">"));
                };
                let path = self.resolve(src, &file);
                if !path.is_file() {
                    return Err(SceneError::Parse {
                        path: src.path.to_path_buf(),
                        line,
                        message: format!("environment map '{}' not found", path.display()),
                    });
                }
                let scale = self.float(src, &mut props, "scale")?.unwrap_or(1.0);
                if scale < 0.0 {
                    return Err(src.error(node, "scale must be non-negative"));
                }
                let rotation = match self.take(&mut props, "to_world") {
                    None => Mat3::IDENTITY,
                    Some(t) => {
                        let m = Mat3::from_mat4(self.transform(src, t)?);
                        let ortho = (m.transpose() * m - Mat3::IDENTITY).to_cols_array().iter().all(|x| x.abs() < 1e-4);
                        if !ortho || m.determinant() < 0.0 {
                            return Err(src.error(
                                t,
                                "an envmap's to_world must be a rotation: warpath's environment maps cannot be scaled, \
                                 sheared or mirrored",
                            ));
                        }
                        m
                    }
                };
                let mut texture = load_image(&path)?;
                let repairs = repair_pixels(&mut texture.pixels, None);
                if let Some(w) = repairs.warning(&path, "environment map", None) {
                    self.warn(w);
                }
                Environment::Map(EnvMap::new(texture.width, texture.height, texture.pixels, rotation, scale))
            }
            "area" => {
                return Err(src.error(node, "an 'area' emitter belongs inside the <shape> that emits"));
            }
            "point" | "spot" | "directional" => return self.delta_emitter(src, node, &kind),
            "sunsky" | "sky" | "sun" | "projector" | "directionalarea" => {
                return Err(src.error(
                    node,
                    format!(
                        "emitter '{kind}' is not supported yet (warpath has area, constant, envmap, point, spot and \
                         directional emitters): replace it with one of those, or remove it"
                    ),
                ));
            }
            other => {
                return Err(src.error(
                    node,
                    format!(
                        "emitter type '{other}' is not supported (warpath reads area, constant, envmap, point, spot \
                         and directional)"
                    ),
                ));
            }
        };
        if let Some((_, at)) = &self.environment {
            return Err(src.error(
                node,
                format!("a second environment emitter (the first is at {at}): warpath's scenes have one environment"),
            ));
        }
        self.environment = Some((env, src.at(node)));
        self.finish(src, props);
        Ok(())
    }

    pub(super) fn sensor(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        if self.camera.is_some() {
            self.warn(format!("{}: a second <sensor> is ignored (warpath renders the first)", src.at(node)));
            return Ok(());
        }
        if !matches!(kind.as_str(), "perspective" | "thinlens") {
            return Err(src.error(
                node,
                format!("sensor '{kind}' is not supported (warpath's camera is 'perspective' or 'thinlens')"),
            ));
        }
        let mut props = self.props(src, node)?;
        let to_world = match self.take(&mut props, "to_world") {
            Some(t) => self.transform(src, t)?,
            None => Mat4::IDENTITY,
        };
        let fov_node = props.entries.iter().find(|(n, _, _)| n == "fov").map(|e| e.1);
        let fov = self.float(src, &mut props, "fov")?;
        let focal = self.string(src, &mut props, "focal_length")?;
        let axis = self.string(src, &mut props, "fov_axis")?;
        let (mut fov, mut diagonal) = match (fov, focal) {
            (Some(_), Some((_, line))) => {
                return Err(SceneError::Parse {
                    path: src.path.to_path_buf(),
                    line,
                    message: "give either 'fov' or 'focal_length', not both".into(),
                });
            }
            (Some(f), None) => (f, false),
            (None, Some((f, line))) => {
                let mm: f32 = f.trim().trim_end_matches("mm").trim().parse().map_err(|_| SceneError::Parse {
                    path: src.path.to_path_buf(),
                    line,
                    message: format!("focal_length '{f}' is not a length like \"50mm\""),
                })?;
                // Mitsuba: the diagonal field of view of a 36 × 24 mm film.
                ((2.0 * ((36.0f32 * 36.0 + 24.0 * 24.0).sqrt() / (2.0 * mm)).atan()).to_degrees(), true)
            }
            // Mitsuba's default: focal_length = "50mm".
            (None, None) => ((2.0 * ((36.0f32 * 36.0 + 24.0 * 24.0).sqrt() / 100.0).atan()).to_degrees(), true),
        };
        if !(fov > 0.0 && fov < 180.0) {
            let n = fov_node.unwrap_or(node);
            return Err(src.error(n, format!("fov = {fov} must be between 0 and 180 degrees")));
        }
        let mut fov_axis = FovAxis::X;
        if let Some((a, line)) = axis {
            fov_axis = match a.as_str() {
                "x" => FovAxis::X,
                "y" => FovAxis::Y,
                "smaller" => FovAxis::Smaller,
                "larger" => FovAxis::Larger,
                "diagonal" => {
                    diagonal = true;
                    FovAxis::X
                }
                other => {
                    return Err(SceneError::Parse {
                        path: src.path.to_path_buf(),
                        line,
                        message: format!("fov_axis '{other}' is not x, y, smaller, larger or diagonal"),
                    });
                }
            };
        } else if diagonal {
            fov_axis = FovAxis::X;
        }
        let mut camera = Camera { to_world, fov_degrees: fov, fov_axis, aperture_radius: 0.0, focus_distance: 1.0 };
        if let Some(d) = self.float(src, &mut props, "focus_distance")? {
            if !(d > 0.0) {
                return Err(src.error(node, "focus_distance must be positive"));
            }
            camera.focus_distance = d;
        }
        if kind == "thinlens" {
            let r = self.float(src, &mut props, "aperture_radius")?.unwrap_or(0.03);
            if !(r >= 0.0) {
                return Err(src.error(node, "aperture_radius must be non-negative"));
            }
            camera.aperture_radius = r;
        }
        // Clip planes have no counterpart: warpath's camera rays start at the lens and end at
        // the scene (docs/scene-format.md).
        // Mitsuba moves the ray's origin near_clip ahead (default 0.01), which matters only
        // in a medium around the sensor (checked once the sensor's medium is known).
        let near_clip = self.float(src, &mut props, "near_clip")?.unwrap_or(0.01);
        self.take(&mut props, "far_clip");
        for child in props.objects.clone() {
            match child.tag_name().name() {
                "film" => self.film(src, child)?,
                "sampler" => self.sampler(src, child)?,
                // The medium the sensor sits in: inline or a reference to a declared one.
                "medium" | "ref" => {
                    let medium = self.medium_or_ref(src, child, "sensor")?;
                    if self.camera_medium.replace(medium).is_some() {
                        return Err(src.error(child, "the sensor has a second medium"));
                    }
                }
                other => {
                    self.warn(format!("{}: <{other}> inside the sensor is not supported and is ignored", src.at(child)))
                }
            }
        }
        if diagonal {
            // The horizontal field of view with the same diagonal.
            let (w, h) = (self.settings.width as f32, self.settings.height as f32);
            let t = (0.5 * fov.to_radians()).tan() * w / (w * w + h * h).sqrt();
            fov = (2.0 * t.atan()).to_degrees();
            camera.fov_degrees = fov;
        }
        props.objects.clear();
        self.finish(src, props);
        if let Some(m) = self.camera_medium {
            let sigma = self.builder.scene_mut().media[m as usize].majorant.max();
            let skipped = 1.0 - (-sigma * near_clip.max(0.0)).exp();
            if skipped > 1e-4 {
                self.warn(format!(
                    "{}: the sensor sits in a medium and Mitsuba starts its rays near_clip = {near_clip} ahead, skipping \
                     that much of the medium (up to {:.2}% of its extinction) where warpath's rays start at the lens: give \
                     a smaller near_clip (e.g. 1e-5)",
                    src.at(node),
                    100.0 * skipped
                ));
            }
        }
        self.camera = Some(camera);
        Ok(())
    }

    pub(super) fn film(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        if !matches!(kind.as_str(), "hdrfilm" | "specfilm") {
            self.warn(format!("{}: film '{kind}' is read as an 'hdrfilm' (its size only)", src.at(node)));
        }
        let mut props = self.props(src, node)?;
        for (key, default) in [("width", 768), ("height", 576)] {
            let v = self.integer(src, &mut props, key)?.unwrap_or(default);
            if !(1..=MAX_RESOLUTION as i64).contains(&v) {
                return Err(src.error(node, format!("film {key} = {v} is out of range [1, {MAX_RESOLUTION}]")));
            }
            if key == "width" {
                self.settings.width = v as u32;
            } else {
                self.settings.height = v as u32;
            }
        }
        // The output's pixel and file format are the command line's (-o FILE).
        for key in ["pixel_format", "component_format", "file_format"] {
            self.take(&mut props, key);
        }
        if !props.objects.iter().any(|child| child.tag_name().name() == "rfilter") {
            self.warn(format!(
                "{}: the film has no <rfilter>: Mitsuba filters it with a Gaussian (its default), warpath's \
                 film with a box (add <rfilter type=\"box\"/> to render the same image in both)",
                src.at(node)
            ));
        }
        for child in props.objects.clone() {
            let tag = child.tag_name().name();
            let ftype = self.attr(src, child, "type")?.unwrap_or_default();
            if tag == "rfilter" && ftype == "box" {
                continue;
            }
            self.warn(format!(
                "{}: <{tag} type=\"{ftype}\"> is ignored: warpath's film reconstructs with a box filter",
                src.at(child)
            ));
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(())
    }

    pub(super) fn sampler(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let mut props = self.props(src, node)?;
        // The sampler's type: warpath uses its own sequence (`sampler` in the TOML [render]
        // table, --sampler on the command line).
        let spp = self.integer(src, &mut props, "sample_count")?.unwrap_or(4);
        if !(1..=MAX_SPP as i64).contains(&spp) {
            return Err(src.error(node, format!("sample_count = {spp} is out of range [1, {MAX_SPP}]")));
        }
        self.settings.spp = spp as u32;
        if let Some(seed) = self.integer(src, &mut props, "seed")? {
            if !(0..=u32::MAX as i64).contains(&seed) {
                return Err(src.error(node, format!("seed = {seed} is out of range")));
            }
            self.settings.seed = seed as u32;
        }
        self.finish(src, props);
        Ok(())
    }

    pub(super) fn integrator(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        if !matches!(kind.as_str(), "path" | "volpath") {
            self.warn(format!(
                "{}: integrator '{kind}' is rendered with warpath's path tracer (its max_depth is read)",
                src.at(node)
            ));
        }
        self.integrator_kind = Some((kind.clone(), src.at(node)));
        let mut props = self.props(src, node)?;
        if let Some(d) = self.integer(src, &mut props, "max_depth")? {
            // Mitsuba counts path vertices, warpath bounces: warpath = Mitsuba − 1.
            self.settings.max_depth = match d {
                -1 => UNLIMITED_DEPTH,
                d if (1..=MAX_DEPTH as i64 + 1).contains(&d) => (d - 1) as u32,
                0 => {
                    return Err(
                        src.error(node, "max_depth = 0 renders nothing (Mitsuba counts path vertices); use 1 or more")
                    );
                }
                d => {
                    return Err(
                        src.error(node, format!("max_depth = {d} is out of range (-1, or 1 ..= {})", MAX_DEPTH + 1))
                    );
                }
            };
        }
        if let Some(n) = self.take(&mut props, "rr_depth") {
            self.warn(format!(
                "{}: rr_depth is ignored: warpath's Russian roulette acts on the path weight (rr_threshold), not from a \
                 depth; both are unbiased",
                src.at(n)
            ));
        }
        if kind != "path" && kind != "volpath" {
            for e in props.entries.iter_mut() {
                e.2 = true;
            }
        }
        for child in props.objects.clone() {
            self.warn(format!("{}: <{}> inside the integrator is ignored", src.at(child), child.tag_name().name()));
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(())
    }
}
