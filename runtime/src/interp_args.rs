//! Launching a kernel with the interpreter's arguments (`skc_interp::Arg`: scalars and vectors of scalars, as
//! words), so that a host that reads arguments as the interpreter does (`skc run --gpu`, the batch runner of the
//! GPU differential) runs the same launch on a GPU: each vector is uploaded as its element type, the kernel is
//! launched and the context synchronised, and the vectors get back what the device holds. A record (by value or
//! as a vector's element) goes as its C bytes (`Buffer::to_c_bytes`: the emitted struct's layout), typed by the
//! kernel's signature, and comes back through `Buffer::from_c_bytes`.

use skc_interp::{Arg, Buffer, Geometry, Scalar, ValueType};

use crate::buffer::DeviceBuffer;
use crate::config::LaunchConfig;
use crate::context::Context;
use crate::error::{Result, RuntimeError};
use crate::kernel::{Arg as DeviceArg, Kernel};
use crate::scalar::{BFloat16, Float16, ScalarValue};
use crate::signature::{ElemType, ParamType};
use crate::untracked::DeviceArray;

/// A vector on the device, by element type.
enum Device {
    I32(DeviceBuffer<i32>),
    I64(DeviceBuffer<i64>),
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
    F16(DeviceBuffer<Float16>),
    BF16(DeviceBuffer<BFloat16>),
    Bool(DeviceBuffer<bool>),
    /// Records in C's layout, as 32-bit words (the last one zero-padded), typed by the kernel's signature.
    Records {
        words: DeviceArray<u32>,
        bytes: usize,
        count: usize,
        elem: ElemType,
        interp: ValueType,
    },
}

/// The C bytes of records as little-endian 32-bit words, the last one zero-padded.
fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| c.iter().enumerate().fold(0u32, |w, (i, b)| w | (*b as u32) << (8 * i))).collect()
}

/// Uploads a vector of records as its C bytes; `elem` is the element type the kernel's signature declares.
fn upload_records(ctx: &Context, buffer: &Buffer, elem: ElemType) -> Result<Device> {
    let bytes = buffer.to_c_bytes();
    let words = words_of(&bytes);
    let array = ctx.device_array::<u32>(words.len().max(1))?;
    array.upload_prefix(&words)?;
    Ok(Device::Records { words: array, bytes: bytes.len(), count: buffer.len(), elem, interp: buffer.elem.clone() })
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
        Scalar::Float16 => Device::F16(ctx.upload(&words.iter().map(|w| Float16(*w as u16)).collect::<Vec<_>>())?),
        Scalar::BFloat16 => Device::BF16(ctx.upload(&words.iter().map(|w| BFloat16(*w as u16)).collect::<Vec<_>>())?),
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
            Device::F16(b) => b.download()?.into_iter().map(|v| u64::from(v.0)).collect(),
            Device::BF16(b) => b.download()?.into_iter().map(|v| u64::from(v.0)).collect(),
            Device::Bool(b) => b.download()?.into_iter().map(|v| v as u64).collect(),
            Device::Records { words, bytes, interp, .. } => {
                let raw: Vec<u8> = words.download()?.iter().flat_map(|w| w.to_le_bytes()).take(*bytes).collect();
                Buffer::from_c_bytes(interp.clone(), &raw).words
            }
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
            Device::F16(b) => b.into(),
            Device::BF16(b) => b.into(),
            Device::Bool(b) => b.into(),
            Device::Records { words, count, elem, .. } => words.as_elements(elem.clone(), *count),
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
        Scalar::Float16 => ScalarValue::Float16(Float16(word as u16)),
        Scalar::BFloat16 => ScalarValue::BFloat16(BFloat16(word as u16)),
        Scalar::Bool => ScalarValue::Bool(word != 0),
    }
}

/// A record argument whose parameter is not the record kind it is (the launch's own check words it the same way).
fn mismatch(kernel: &Kernel, index: usize, found: &str) -> RuntimeError {
    let param = kernel.signature().params.get(index);
    RuntimeError::ArgumentType {
        kernel: kernel.name().to_string(),
        param: param.map(|p| p.name.clone()).unwrap_or_default(),
        index,
        expected: param.map(|p| p.ty.to_string()).unwrap_or_else(|| "no argument".into()),
        found: found.into(),
    }
}

/// The element type the kernel's signature gives the vector parameter `index`.
fn vector_elem(kernel: &Kernel, index: usize) -> Option<ElemType> {
    match kernel.signature().params.get(index).map(|p| &p.ty) {
        Some(ParamType::Vector { elem, .. }) => Some(elem.clone()),
        _ => None,
    }
}

/// Launches `kernel` with `args` on its context's stream and waits for it; the vectors in `args` then hold what
/// the kernel left in them. The launch is checked against the kernel's signature as every launch is.
pub fn launch(kernel: &Kernel, geometry: &Geometry, args: &mut [Arg]) -> Result<()> {
    let ctx = kernel.context();
    let mut devices: Vec<Option<Device>> = Vec::with_capacity(args.len());
    // The C bytes of each record passed by value, with its type from the signature.
    let mut records: Vec<Option<(ElemType, Vec<u8>)>> = Vec::with_capacity(args.len());
    for (index, arg) in args.iter().enumerate() {
        let (device, record) = match arg {
            Arg::Vector(buffer) => match buffer.elem {
                ValueType::Scalar(s) => (Some(upload(ctx, s, &buffer.words)?), None),
                ValueType::Record { .. } => {
                    let elem =
                        vector_elem(kernel, index).ok_or_else(|| mismatch(kernel, index, "a vector of records"))?;
                    (Some(upload_records(ctx, buffer, elem)?), None)
                }
            },
            Arg::Record(t, words) => {
                let Some(ParamType::Record { name, size }) = kernel.signature().params.get(index).map(|p| &p.ty) else {
                    return Err(mismatch(kernel, index, "a record"));
                };
                let bytes = Buffer { elem: t.clone(), words: words.clone() }.to_c_bytes();
                (None, Some((ElemType::Record { name: name.clone(), size: *size }, bytes)))
            }
            Arg::Scalar(..) => (None, None),
        };
        devices.push(device);
        records.push(record);
    }
    let mut launch_args: Vec<DeviceArg> = Vec::with_capacity(args.len());
    for ((arg, device), record) in args.iter().zip(devices.iter_mut()).zip(&records) {
        launch_args.push(match (arg, device, record) {
            (Arg::Scalar(s, word), _, _) => DeviceArg::Scalar(scalar_value(*s, *word)),
            (_, Some(device), _) => device.arg(),
            (_, None, Some((elem, bytes))) => DeviceArg::Record { elem: elem.clone(), bytes },
            (_, None, None) => unreachable!("every vector was uploaded and every record laid out above"),
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
