//! Launching a kernel with the interpreter's arguments (`skc_interp::Arg`: scalars and vectors of scalars, as
//! words), so that a host that reads arguments as the interpreter does (`skc run --gpu`, the batch runner of the
//! GPU differential) runs the same launch on a GPU: each vector is uploaded as its element type, the kernel is
//! launched and the context synchronised, and the vectors get back what the device holds. Vectors of records and
//! record parameters are refused (they need typed host records, which words do not give).

use skc_interp::{Arg, Geometry, Scalar, ValueType};

use crate::buffer::DeviceBuffer;
use crate::config::LaunchConfig;
use crate::context::Context;
use crate::error::{Result, RuntimeError};
use crate::kernel::{Arg as DeviceArg, Kernel};
use crate::scalar::ScalarValue;

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

fn upload(ctx: &Context, scalar: Scalar, words: &[u64]) -> Result<Device> {
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
    fn download(&self) -> Result<Vec<u64>> {
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

    fn arg(&mut self) -> DeviceArg<'_> {
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

/// An argument words cannot pass: a record, or a vector of records.
fn unsupported(kernel: &Kernel, index: usize, found: &str) -> RuntimeError {
    let param = kernel.signature().params.get(index).map(|p| p.name.clone()).unwrap_or_default();
    RuntimeError::ArgumentType {
        kernel: kernel.name().to_string(),
        param,
        index,
        expected: "a scalar or a vector of scalars (words carry no host record type)".into(),
        found: found.into(),
    }
}

/// Launches `kernel` with `args` on its context's stream and waits for it; the vectors in `args` then hold what
/// the kernel left in them. The launch is checked against the kernel's signature as every launch is.
pub fn launch(kernel: &Kernel, geometry: &Geometry, args: &mut [Arg]) -> Result<()> {
    let ctx = kernel.context();
    let mut devices: Vec<Option<Device>> = Vec::with_capacity(args.len());
    for (index, arg) in args.iter().enumerate() {
        devices.push(match arg {
            Arg::Vector(buffer) => match buffer.elem {
                ValueType::Scalar(s) => Some(upload(ctx, s, &buffer.words)?),
                ValueType::Record { .. } => return Err(unsupported(kernel, index, "a vector of records")),
            },
            Arg::Record(..) => return Err(unsupported(kernel, index, "a record")),
            Arg::Scalar(..) => None,
        });
    }
    let mut launch_args: Vec<DeviceArg> = Vec::with_capacity(args.len());
    for (arg, device) in args.iter().zip(devices.iter_mut()) {
        launch_args.push(match (arg, device) {
            (Arg::Scalar(s, word), _) => DeviceArg::Scalar(scalar_value(*s, *word)),
            (_, Some(device)) => device.arg(),
            (_, None) => unreachable!("every vector was uploaded above"),
        });
    }
    let [gx, gy, gz] = geometry.grid;
    let [bx, by, bz] = geometry.block;
    let mut config = LaunchConfig::new((gx, gy, gz), (bx, by, bz));
    config.dynamic_shared_bytes = geometry.dynamic_shared_bytes;
    kernel.launch(&config, &mut launch_args[..])?;
    drop(launch_args);
    ctx.synchronize()?;
    for (arg, device) in args.iter_mut().zip(&devices) {
        if let (Arg::Vector(buffer), Some(device)) = (arg, device) {
            buffer.words = device.download()?;
        }
    }
    Ok(())
}
