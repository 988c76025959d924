//! Launch arguments from JSON (what `skc run --args` reads) and the written vectors as JSON (what it prints).
//!
//! The arguments are an object by parameter name (or an array in parameter order; unit parameters take none):
//! a scalar is a JSON number or bool (float parameters also take "nan", "inf", "-inf"); a record an object of
//! its fields; a vector an array of elements, or `{ "fill": v, "len": n }`, `{ "range": n }` (0, 1, ... n-1),
//! `{ "random": n, "seed": s }` (integers uniform in `[min, max]`, by default 0 to 99; floats uniform in
//! `[min, max)`, by default 0 to 1; "min" and "max" may be given), or a `.npy` file: `"file.npy"` or
//! `{ "npy": "file.npy" }`.
//!
//! `read_file` reads such an object from a file (the one I/O of the crate, so that every host that takes
//! arguments from a file, `skc run` and its batch runner, reads them the same way).

use std::path::Path;

use serde_json::Value;

use crate::launch::Rng;
use crate::value::{Arg, Buffer, Scalar, ValueType};
use crate::{Kernel, ParamKind};

/// The arguments of `kernel` from `json`; `read_file` reads a `.npy` file named in it.
pub fn parse(
    kernel: &Kernel,
    json: &Value,
    read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<Arg>, String> {
    let params: Vec<_> = kernel.params.iter().filter(|p| p.kind != ParamKind::Unit).collect();
    let values: Vec<&Value> = match json {
        Value::Object(map) => {
            if let Some(unknown) = map.keys().find(|k| !params.iter().any(|p| &p.name == *k)) {
                let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                return Err(format!(
                    "kernel `{}` has no parameter `{unknown}` (its parameters: {})",
                    kernel.name,
                    names.join(", ")
                ));
            }
            params
                .iter()
                .map(|p| map.get(&p.name).ok_or_else(|| format!("no value for parameter `{}`", p.name)))
                .collect::<Result<_, _>>()?
        }
        Value::Array(items) if items.len() == params.len() => items.iter().collect(),
        Value::Array(items) => {
            return Err(format!(
                "kernel `{}` takes {} arguments, the array has {}",
                kernel.name,
                params.len(),
                items.len()
            ))
        }
        _ => return Err("the arguments must be a JSON object (by parameter name) or an array".into()),
    };
    params
        .iter()
        .zip(values)
        .map(|(p, v)| argument(&p.kind, v, read_file).map_err(|e| format!("parameter `{}`: {e}", p.name)))
        .collect()
}

/// The arguments of `kernel` from the JSON file `path`; `.npy` files named in it are read relative to its folder.
pub fn read_file(kernel: &Kernel, path: &Path) -> Result<Vec<Arg>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{} is not valid JSON: {e}", path.display()))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read_npy = |name: &str| {
        let file = dir.join(name);
        std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))
    };
    parse(kernel, &json, &read_npy).map_err(|e| format!("{}: {e}", path.display()))
}

fn argument(kind: &ParamKind, v: &Value, read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>) -> Result<Arg, String> {
    match kind {
        ParamKind::Scalar(s) => Ok(Arg::Scalar(*s, scalar(*s, v)?)),
        ParamKind::Record(t) => {
            let mut words = Vec::new();
            element(t, v, &mut words)?;
            Ok(Arg::Record(t.clone(), words))
        }
        ParamKind::Vector { elem, .. } => Ok(Arg::Vector(vector(elem, v, read_file)?)),
        ParamKind::Unit => Err("a unit parameter takes no value".into()),
    }
}

/// The word of a scalar of type `s` written as `v`.
pub fn scalar(s: Scalar, v: &Value) -> Result<u64, String> {
    match (s, v) {
        (Scalar::Bool, Value::Bool(b)) => Ok(*b as u64),
        (s, Value::Number(n)) if s.is_float() => Ok(s.from_f64(n.as_f64().unwrap_or(f64::NAN))),
        (s, Value::String(text)) if s.is_float() => match text.as_str() {
            "nan" | "NaN" => Ok(s.from_f64(f64::NAN)),
            "inf" | "infinity" => Ok(s.from_f64(f64::INFINITY)),
            "-inf" | "-infinity" => Ok(s.from_f64(f64::NEG_INFINITY)),
            _ => Err(format!("`{text}` is not a float")),
        },
        (_, Value::Number(n)) if s.is_integer() => {
            let value = n
                .as_i64()
                .map(|i| i as i128)
                .or_else(|| n.as_u64().map(|u| u as i128))
                .ok_or_else(|| format!("{n} is not an integer"))?;
            let word = s.from_i128(value);
            if s.to_i128(word) != value {
                return Err(format!("{value} does not fit in {}", s.name()));
            }
            Ok(word)
        }
        _ => Err(format!("{v} is not a {}", s.name())),
    }
}

/// Appends the words of one element of type `t` written as `v`.
fn element(t: &ValueType, v: &Value, out: &mut Vec<u64>) -> Result<(), String> {
    match t {
        ValueType::Scalar(s) => {
            out.push(scalar(*s, v)?);
            Ok(())
        }
        ValueType::Record { name, fields, .. } => {
            let Value::Object(map) = v else { return Err(format!("{v} is not a `{name}` record (an object)")) };
            for (field, ty) in fields {
                let value = map.get(field).ok_or_else(|| format!("record `{name}` needs field `{field}`"))?;
                element(ty, value, out)?;
            }
            Ok(())
        }
    }
}

fn count(v: &Value, what: &str) -> Result<usize, String> {
    v.as_u64().map(|n| n as usize).ok_or_else(|| format!("`{what}` must be a non-negative integer"))
}

fn vector(elem: &ValueType, v: &Value, read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>) -> Result<Buffer, String> {
    match v {
        Value::Array(items) => {
            let mut words = Vec::with_capacity(items.len() * elem.words());
            for item in items {
                element(elem, item, &mut words)?;
            }
            Ok(Buffer { elem: elem.clone(), words })
        }
        Value::String(path) => npy_vector(elem, path, read_file),
        Value::Object(map) => {
            if let Some(path) = map.get("npy") {
                let path = path.as_str().ok_or("`npy` must be a file name")?;
                return npy_vector(elem, path, read_file);
            }
            if let (Some(fill), Some(len)) = (map.get("fill"), map.get("len")) {
                let mut one = Vec::new();
                element(elem, fill, &mut one)?;
                let n = count(len, "len")?;
                return Ok(Buffer { elem: elem.clone(), words: one.repeat(n) });
            }
            if let Some(n) = map.get("range") {
                let ValueType::Scalar(s) = elem else { return Err("`range` needs a vector of scalars".into()) };
                let words = (0..count(n, "range")?).map(|i| s.from_i128(i as i128)).collect();
                return Ok(Buffer { elem: elem.clone(), words });
            }
            if let Some(n) = map.get("random") {
                let seed = map.get("seed").and_then(Value::as_u64).unwrap_or(0);
                let (min, max) = (map.get("min").and_then(Value::as_f64), map.get("max").and_then(Value::as_f64));
                return Ok(random_vector(elem, count(n, "random")?, seed, min, max));
            }
            Err("a vector is an array, a .npy file, or an object with `fill` and `len`, `range`, `random` or `npy`"
                .into())
        }
        _ => Err(format!("{v} is not a vector")),
    }
}

fn npy_vector(
    elem: &ValueType,
    path: &str,
    read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Buffer, String> {
    let ValueType::Scalar(s) = elem else { return Err("a .npy file can fill only a vector of scalars".into()) };
    let values = crate::npy::read(&read_file(path)?).map_err(|e| format!("{path}: {e}"))?;
    let words = values.to_words(*s).map_err(|e| format!("{path}: {e}"))?;
    Ok(Buffer { elem: elem.clone(), words })
}

/// `n` pseudo-random elements, deterministic from `seed` (see the module comment for the ranges).
pub fn random_vector(elem: &ValueType, n: usize, seed: u64, min: Option<f64>, max: Option<f64>) -> Buffer {
    let mut rng = Rng::new(seed);
    let leaves = elem.leaves();
    let mut words = Vec::with_capacity(n * leaves.len());
    for _ in 0..n {
        for s in &leaves {
            words.push(random_scalar(*s, &mut rng, min, max));
        }
    }
    Buffer { elem: elem.clone(), words }
}

fn random_scalar(s: Scalar, rng: &mut Rng, min: Option<f64>, max: Option<f64>) -> u64 {
    match s {
        Scalar::Bool => rng.below(2),
        s if s.is_float() => {
            let (lo, hi) = (min.unwrap_or(0.0), max.unwrap_or(1.0));
            let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            s.from_f64(lo + (hi - lo) * unit)
        }
        _ => {
            let (lo, hi) = (min.unwrap_or(0.0) as i128, max.unwrap_or(99.0) as i128);
            let span = (hi - lo + 1).max(1) as u128;
            let value = lo + ((rng.next_u64() as u128 * span) >> 64) as i128;
            s.from_i128(value)
        }
    }
}

/// The vectors the kernel may write, as a JSON object by parameter name.
pub fn written_json(kernel: &Kernel, args: &[Arg]) -> Value {
    let mut out = serde_json::Map::new();
    let params = kernel.params.iter().filter(|p| p.kind != ParamKind::Unit);
    for (param, arg) in params.zip(args) {
        if let (ParamKind::Vector { written: true, .. }, Arg::Vector(buffer)) = (&param.kind, arg) {
            out.insert(param.name.clone(), buffer.to_json());
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Param;

    fn kernel() -> Kernel {
        let f32s = ValueType::Scalar(Scalar::Float32);
        Kernel {
            name: "k".into(),
            params: vec![
                Param { name: "xs".into(), kind: ParamKind::Vector { elem: f32s.clone(), written: false } },
                Param {
                    name: "out".into(),
                    kind: ParamKind::Vector { elem: ValueType::Scalar(Scalar::Int32), written: true },
                },
                Param { name: "n".into(), kind: ParamKind::Scalar(Scalar::Int32) },
            ],
            dynamic_shared: None,
            contract: Default::default(),
            name_span: Default::default(),
        }
    }

    fn no_files(path: &str) -> Result<Vec<u8>, String> {
        Err(format!("no file {path}"))
    }

    #[test]
    fn parses_every_form() {
        let json: Value =
            serde_json::from_str(r#"{"xs": {"random": 4, "seed": 1}, "out": {"fill": -1, "len": 3}, "n": 4}"#).unwrap();
        let args = parse(&kernel(), &json, &no_files).unwrap();
        assert_eq!(args[0].buffer().unwrap().len(), 4);
        assert!(args[0].buffer().unwrap().as_f32().iter().all(|x| (0.0..1.0).contains(x)));
        assert_eq!(args[1].buffer().unwrap().as_i32(), vec![-1, -1, -1]);
        assert_eq!(args[2], Arg::i32(4));
        let json: Value = serde_json::from_str(r#"[[1.5, 2], {"range": 3}, 7]"#).unwrap();
        let args = parse(&kernel(), &json, &no_files).unwrap();
        assert_eq!(args[0].buffer().unwrap().as_f32(), vec![1.5, 2.0]);
        assert_eq!(args[1].buffer().unwrap().as_i32(), vec![0, 1, 2]);
        assert_eq!(written_json(&kernel(), &args).to_string(), r#"{"out":[0,1,2]}"#);
    }

    #[test]
    fn rejects_what_does_not_fit() {
        let bad = [
            r#"{"xs": [], "out": [], "n": 1.5}"#,
            r#"{"xs": [], "out": [3000000000], "n": 1}"#,
            r#"{"xs": [], "n": 1}"#,
            r#"{"xs": [], "out": [], "n": 1, "m": 2}"#,
            r#"{"xs": "a.npy", "out": [], "n": 1}"#,
        ];
        for text in bad {
            let json: Value = serde_json::from_str(text).unwrap();
            assert!(parse(&kernel(), &json, &no_files).is_err(), "{text}");
        }
    }
}
