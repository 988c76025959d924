//! `skc run --gpu`: the same launch on GPU 0 through skc-runtime (front end, CUDA C, NVRTC, checked launch).
//! Vectors and parameters of scalar types only (vectors of records need typed host records the command line
//! does not have).

use std::path::Path;

use skc_interp::{Arg, Geometry, Scalar, ValueType};
use skc_runtime::{Context, DeviceBuffer, LaunchConfig, Module, ScalarValue};

use crate::FrontendArgs;

pub const AVAILABLE: bool = true;

pub fn device_found() -> bool {
    Context::new(0).is_ok()
}

/// A vector on the device, by element type.
enum Device {
    I32(DeviceBuffer<i32>),
    I64(DeviceBuffer<i64>),
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
    Bool(DeviceBuffer<bool>),
}

fn upload(ctx: &Context, scalar: Scalar, words: &[u64]) -> skc_runtime::Result<Device> {
    Ok(match scalar {
        Scalar::Int32 => Device::I32(ctx.upload(&words.iter().map(|w| *w as u32 as i32).collect::<Vec<_>>())?),
        Scalar::Int64 => Device::I64(ctx.upload(&words.iter().map(|w| *w as i64).collect::<Vec<_>>())?),
        Scalar::UInt32 => Device::U32(ctx.upload(&words.iter().map(|w| *w as u32).collect::<Vec<_>>())?),
        Scalar::UInt64 => Device::U64(ctx.upload(words)?),
        Scalar::Float32 => {
            Device::F32(ctx.upload(&words.iter().map(|w| f32::from_bits(*w as u32)).collect::<Vec<_>>())?)
        }
        Scalar::Float64 => Device::F64(ctx.upload(&words.iter().map(|w| f64::from_bits(*w)).collect::<Vec<_>>())?),
        Scalar::Bool => Device::Bool(ctx.upload(&words.iter().map(|w| *w != 0).collect::<Vec<_>>())?),
    })
}

impl Device {
    fn download(&self) -> skc_runtime::Result<Vec<u64>> {
        Ok(match self {
            Device::I32(b) => b.download()?.into_iter().map(|v| v as u32 as u64).collect(),
            Device::I64(b) => b.download()?.into_iter().map(|v| v as u64).collect(),
            Device::U32(b) => b.download()?.into_iter().map(|v| v as u64).collect(),
            Device::U64(b) => b.download()?,
            Device::F32(b) => b.download()?.into_iter().map(|v| v.to_bits() as u64).collect(),
            Device::F64(b) => b.download()?.into_iter().map(|v| v.to_bits()).collect(),
            Device::Bool(b) => b.download()?.into_iter().map(|v| v as u64).collect(),
        })
    }

    fn arg(&mut self) -> skc_runtime::Arg<'_> {
        match self {
            Device::I32(b) => b.into(),
            Device::I64(b) => b.into(),
            Device::U32(b) => b.into(),
            Device::U64(b) => b.into(),
            Device::F32(b) => b.into(),
            Device::F64(b) => b.into(),
            Device::Bool(b) => b.into(),
        }
    }
}

fn scalar_value(scalar: Scalar, word: u64) -> ScalarValue {
    match scalar {
        Scalar::Int32 => ScalarValue::Int32(word as u32 as i32),
        Scalar::Int64 => ScalarValue::Int64(word as i64),
        Scalar::UInt32 => ScalarValue::UInt32(word as u32),
        Scalar::UInt64 => ScalarValue::UInt64(word),
        Scalar::Float32 => ScalarValue::Float32(f32::from_bits(word as u32)),
        Scalar::Float64 => ScalarValue::Float64(f64::from_bits(word)),
        Scalar::Bool => ScalarValue::Bool(word != 0),
    }
}

/// Runs `kernel` on GPU 0; the vectors in `args` receive what it wrote.
pub fn run(
    file: &Path,
    frontend: &FrontendArgs,
    kernel: &str,
    geometry: &Geometry,
    args: &mut [Arg],
) -> Result<(), String> {
    let failed = |e: skc_runtime::RuntimeError| e.to_string();
    let ctx = Context::new(0).map_err(failed)?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let defines = crate::check::parse_defines(&frontend.defines)?;
    let name = file.display().to_string();
    let program = skc_runtime::Program::from_source_with_defines(&name, &text, &defines).map_err(failed)?;
    let module = Module::from_program(&ctx, program).map_err(failed)?;
    let function = module.kernel(kernel).map_err(failed)?;
    let mut devices: Vec<Option<Device>> = Vec::new();
    for arg in args.iter() {
        devices.push(match arg {
            Arg::Vector(buffer) => match buffer.elem {
                ValueType::Scalar(s) => Some(upload(&ctx, s, &buffer.words).map_err(failed)?),
                ValueType::Record { .. } => return Err("`--gpu` runs kernels with vectors of scalars only".into()),
            },
            Arg::Record(..) => return Err("`--gpu` runs kernels with scalar and vector parameters only".into()),
            Arg::Scalar(..) => None,
        });
    }
    let mut launch_args: Vec<skc_runtime::Arg> = Vec::new();
    for (arg, device) in args.iter().zip(devices.iter_mut()) {
        launch_args.push(match (arg, device) {
            (Arg::Scalar(s, word), _) => skc_runtime::Arg::Scalar(scalar_value(*s, *word)),
            (_, Some(device)) => device.arg(),
            _ => return Err("an argument the GPU backend cannot pass".into()),
        });
    }
    let [gx, gy, gz] = geometry.grid;
    let [bx, by, bz] = geometry.block;
    let mut config = LaunchConfig::new((gx, gy, gz), (bx, by, bz));
    config.dynamic_shared_bytes = geometry.dynamic_shared_bytes;
    function.launch(&config, &mut launch_args[..]).map_err(failed)?;
    drop(launch_args);
    ctx.synchronize().map_err(failed)?;
    for (arg, device) in args.iter_mut().zip(&devices) {
        if let (Arg::Vector(buffer), Some(device)) = (arg, device) {
            buffer.words = device.download().map_err(failed)?;
        }
    }
    Ok(())
}
