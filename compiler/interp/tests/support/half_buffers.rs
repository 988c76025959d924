//! Vectors of 16-bit floats for the interpreter's tests, as the words it stores: one per element, its bits.

use skc_interp::{Arg, Buffer, Scalar, ValueType};

/// A vector of `scalar` (float16 or bfloat16) holding `bits`.
pub fn halves(scalar: Scalar, bits: &[u16]) -> Arg {
    Arg::Vector(Buffer::from_words(scalar, bits.iter().map(|&b| u64::from(b)).collect()))
}

/// A vector of `n` zeros of `scalar`.
pub fn zeros(scalar: Scalar, n: usize) -> Arg {
    Arg::Vector(Buffer::new(ValueType::Scalar(scalar), n))
}

/// The words of a vector argument after a launch.
pub fn words(arg: &Arg) -> Vec<u64> {
    arg.buffer().expect("a vector").words.clone()
}
