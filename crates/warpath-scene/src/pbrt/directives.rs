//! The pbrt-v4 directives, one arm each: the graphics state's (transforms, attributes,
//! coordinate systems), the scene-wide ones (camera, film, sampler, integrator), and the
//! handoffs to [`super::shapes`], [`super::materials`] and [`super::lights`].

use super::*;

impl Loader {
    pub(super) fn directive(&mut self, lx: &mut Lexer, d: &str, line: usize) -> Result<(), SceneError> {
        let at = format!("{}:{line}", lx.path.display());
        match d {
            "Identity" => self.transform(Mat4::IDENTITY, lx, line, d)?,
            "Translate" => {
                let v = Self::numbers(lx, 3, d, line)?;
                self.transform(self.g.ctm * Mat4::from_translation(Vec3::new(v[0], v[1], v[2])), lx, line, d)?;
            }
            "Scale" => {
                let v = Self::numbers(lx, 3, d, line)?;
                self.transform(self.g.ctm * Mat4::from_scale(Vec3::new(v[0], v[1], v[2])), lx, line, d)?;
            }
            "Rotate" => {
                let v = Self::numbers(lx, 4, d, line)?;
                let axis = Vec3::new(v[1], v[2], v[3]);
                if !(axis.length_squared() > 0.0) || !axis.is_finite() {
                    return Err(lx.error(line, "Rotate needs a non-zero axis"));
                }
                let r = Mat4::from_axis_angle(axis.normalize(), v[0].to_radians());
                self.transform(self.g.ctm * r, lx, line, d)?;
            }
            "LookAt" => {
                let v = Self::numbers(lx, 9, d, line)?;
                let (eye, look, up) =
                    (Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]), Vec3::new(v[6], v[7], v[8]));
                let m = look_at(eye, look, up).map_err(|m| lx.error(line, m))?;
                self.transform(self.g.ctm * m, lx, line, d)?;
            }
            "Transform" | "ConcatTransform" => {
                let v = Self::numbers(lx, 16, d, line)?;
                // The 16 numbers list the matrix column by column (translation last).
                let m = Mat4::from_cols_array(&v.try_into().unwrap());
                let m = if d == "Transform" { m } else { self.g.ctm * m };
                self.transform(m, lx, line, d)?;
            }
            "CoordinateSystem" => {
                let name = Self::string_arg(lx, d, line)?;
                self.named_coordinates.insert(name, self.g.ctm);
            }
            "CoordSysTransform" => {
                let name = Self::string_arg(lx, d, line)?;
                match self.named_coordinates.get(&name) {
                    Some(&m) => self.g.ctm = m,
                    None => self.warn(format!("{at}: CoordSysTransform: no coordinate system named \"{name}\"")),
                }
            }
            "TransformTimes" => {
                Self::numbers(lx, 2, d, line)?;
                self.warn(format!("{at}: TransformTimes is ignored (warpath renders no motion blur)"));
            }
            "ActiveTransform" => {
                let word = match lx.next()? {
                    Some(t) => match t.tok {
                        Tok::Word(w) => w,
                        other => {
                            return Err(lx.error(
                                t.line,
                                format!("ActiveTransform takes StartTime, EndTime or All, not {}", other.describe()),
                            ));
                        }
                    },
                    None => return Err(lx.error(line, "ActiveTransform takes StartTime, EndTime or All")),
                };
                match word.as_str() {
                    "All" | "StartTime" => self.end_time_only = false,
                    "EndTime" => {
                        self.end_time_only = true;
                        self.warn(format!(
                            "{at}: ActiveTransform EndTime: the end-of-shutter transforms are ignored (warpath renders \
                             no motion blur; the start transform is used)"
                        ));
                    }
                    other => {
                        return Err(
                            lx.error(line, format!("ActiveTransform takes StartTime, EndTime or All, not '{other}'"))
                        );
                    }
                }
            }
            "ReverseOrientation" => self.g.reverse_orientation = !self.g.reverse_orientation,
            "WorldBegin" => {
                self.named_coordinates.insert("world".into(), Mat4::IDENTITY);
                self.g.ctm = Mat4::IDENTITY;
            }
            "WorldEnd" => {}
            "AttributeBegin" | "TransformBegin" => {
                if self.stack.len() >= MAX_ATTRIBUTE_DEPTH {
                    return Err(lx.error(line, format!("{d} nests deeper than {MAX_ATTRIBUTE_DEPTH}")));
                }
                if d == "TransformBegin" {
                    self.warn(format!("{at}: TransformBegin is deprecated in pbrt-v4 (read as saving the transform)"));
                }
                self.stack.push((self.g.clone(), d == "TransformBegin", lx.path.clone(), line));
            }
            "AttributeEnd" | "TransformEnd" => match self.stack.pop() {
                Some((saved, transform_only, _, _)) => {
                    if transform_only != (d == "TransformEnd") {
                        self.warn(format!(
                            "{at}: {d} closes a {}",
                            if transform_only { "TransformBegin" } else { "AttributeBegin" }
                        ));
                    }
                    if transform_only {
                        self.g.ctm = saved.ctm;
                    } else {
                        self.g = saved;
                    }
                }
                None => return Err(lx.error(line, format!("{d} without a matching begin"))),
            },
            "Attribute" => {
                let (target, mut params) = Self::plugin(lx, d, line, self.warnings())?;
                params.ignore_all();
                self.warn(format!(
                    "{at}: Attribute \"{target}\" (default parameters for later directives) is not supported and is ignored"
                ));
            }
            "Option" => {
                let mut params = read_params(lx, "Option".into(), line, self.warnings())?;
                params.ignore_all();
                let names: Vec<String> = params.items.iter().map(|p| p.name.clone()).collect();
                self.warn(format!("{at}: Option {} is ignored", names.join(", ")));
            }
            "ColorSpace" => {
                let name = Self::string_arg(lx, d, line)?;
                if name != "srgb" {
                    self.warn(format!(
                        "{at}: ColorSpace \"{name}\": warpath renders linear sRGB; RGB values are read as sRGB"
                    ));
                }
            }
            "Camera" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.camera(&kind, params, lx, line)?;
            }
            "Film" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.film(&kind, params)?;
            }
            "Sampler" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.sampler(&kind, params)?;
            }
            "Integrator" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.integrator(&kind, params)?;
            }
            "PixelFilter" | "Accelerator" => {
                let (kind, mut params) = Self::plugin(lx, d, line, self.warnings())?;
                params.ignore_all();
                let why = if d == "PixelFilter" {
                    "warpath's film reconstructs with a box filter"
                } else {
                    "warpath builds its own BVH"
                };
                self.warn(format!("{at}: {d} \"{kind}\" is ignored ({why})"));
            }
            "MakeNamedMedium" => {
                let name = Self::string_arg(lx, d, line)?;
                let params = read_params(lx, format!("MakeNamedMedium \"{name}\""), line, self.warnings())?;
                self.medium(name, params)?;
            }
            "MediumInterface" => {
                let inside = Self::string_arg(lx, d, line)?;
                let outside = match lx.peek()? {
                    Some(t) if matches!(t.tok, Tok::Str(_)) => Self::string_arg(lx, d, line)?,
                    _ => inside.clone(),
                };
                for name in [&inside, &outside] {
                    if !name.is_empty() && !self.media.contains_key(name) {
                        return Err(lx.error(
                            line,
                            format!("MediumInterface: no medium named \"{name}\" (MakeNamedMedium it first)"),
                        ));
                    }
                }
                // The camera's medium is the outside one current at `Camera`.
                self.g.inside = inside;
                self.g.outside = outside;
            }
            "Material" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                let name = format!(
                    "{kind}@{}:{line}",
                    lx.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
                );
                self.g.material = Some(self.add_material(&kind, &name, params, None)?.0);
            }
            "MakeNamedMaterial" => {
                let name = Self::string_arg(lx, d, line)?;
                let mut params = read_params(lx, format!("MakeNamedMaterial \"{name}\""), line, self.warnings())?;
                let Some((kind, _)) = params.string("type")? else {
                    return Err(lx.error(line, format!("MakeNamedMaterial \"{name}\" needs \"string type\"")));
                };
                params.what = format!("MakeNamedMaterial \"{name}\" (type \"{kind}\")");
                let pending = self.pending_materials.remove(&name).map(|(placeholder, _)| placeholder);
                let (mut index, deferred) = self.add_material(&kind, &name, params, pending)?;
                if let (Some(placeholder), false) = (pending, deferred) {
                    self.fill_placeholder(placeholder, index, &at);
                    index = placeholder;
                }
                if self.named_materials.insert(name.clone(), index).is_some() {
                    self.warn(format!("{at}: named material \"{name}\" is redefined"));
                }
            }
            "NamedMaterial" => {
                let name = Self::string_arg(lx, d, line)?;
                match self.named_materials.get(&name) {
                    Some(&i) => self.g.material = Some(i),
                    None => {
                        // pbrt-v4 resolves names after parsing: a later MakeNamedMaterial
                        // (e.g. in a file included further down) fills this placeholder.
                        let i = match self.pending_materials.get(&name) {
                            Some(&(i, _)) => i,
                            None => {
                                let i = self.builder.add_material(
                                    &name,
                                    warpath_core::material::Material::diffuse(Vec3::splat(shapes::DEFAULT_REFLECTANCE)),
                                );
                                self.pending_materials.insert(name.clone(), (i, at.clone()));
                                i
                            }
                        };
                        self.g.material = Some(i);
                    }
                }
            }
            "Texture" => {
                let name = Self::string_arg(lx, d, line)?;
                let class = Self::string_arg(lx, d, line)?;
                let kind = Self::string_arg(lx, d, line)?;
                let params =
                    read_params(lx, format!("Texture \"{name}\" \"{class}\" \"{kind}\""), line, self.warnings())?;
                self.texture(name, &class, &kind, params)?;
            }
            "LightSource" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.light(&kind, params)?;
            }
            "AreaLightSource" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.area_light(&kind, params)?;
            }
            "Shape" => {
                let (kind, params) = Self::plugin(lx, d, line, self.warnings())?;
                self.shape(&kind, params)?;
            }
            "ObjectBegin" => {
                let name = Self::string_arg(lx, d, line)?;
                if let Some((open, _)) = &self.object {
                    return Err(lx.error(line, format!("ObjectBegin \"{name}\" inside ObjectBegin \"{open}\"")));
                }
                self.stack.push((self.g.clone(), false, lx.path.clone(), line));
                self.object = Some((name, Vec::new()));
            }
            "ObjectEnd" => {
                let Some((name, shapes)) = self.object.take() else {
                    return Err(lx.error(line, "ObjectEnd without ObjectBegin"));
                };
                if let Some((saved, _, _, _)) = self.stack.pop() {
                    self.g = saved;
                }
                self.objects.insert(name, shapes);
            }
            "ObjectInstance" => {
                let name = Self::string_arg(lx, d, line)?;
                self.instance(&name, lx, line)?;
            }
            "Include" | "Import" => {
                let name = Self::string_arg(lx, d, line)?;
                self.include(&name, lx, line)?;
            }
            other => {
                let guess = crate::error::closest(other, DIRECTIVES.iter().copied())
                    .map(|g| format!("; did you mean '{g}'?"))
                    .unwrap_or_default();
                return Err(lx.error(line, format!("unknown directive '{other}'{guess}")));
            }
        }
        Ok(())
    }
}
