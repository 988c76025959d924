//! Launch geometry ([`LaunchConfig`]: grid, block, dynamic shared memory) and declared vector lengths
//! ([`Extent`]: how many elements a vector parameter must hold for a launch to stay in bounds).

use std::fmt;

use crate::scalar::DeviceScalar;

/// Three extents (x fastest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub fn count(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    pub fn as_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// How a kernel is launched: `grid` blocks of `block` threads, and the bytes of its dynamic shared array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub dynamic_shared_bytes: u32,
}

impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchConfig { grid: grid.into(), block: block.into(), dynamic_shared_bytes: 0 }
    }

    /// One thread per element: `ceil(n / block)` blocks of `block` threads.
    pub fn for_elements(n: usize, block: u32) -> Self {
        let blocks = n.div_ceil(block.max(1) as usize).max(1);
        LaunchConfig::new(u32::try_from(blocks).unwrap_or(u32::MAX), block)
    }

    /// Dynamic shared memory in bytes.
    pub fn with_shared_bytes(mut self, bytes: u32) -> Self {
        self.dynamic_shared_bytes = bytes;
        self
    }

    /// Dynamic shared memory for `n` elements of `T`.
    pub fn with_shared_elems<T: DeviceScalar>(mut self, n: usize) -> Self {
        let bytes = n.saturating_mul(T::TYPE.size() as usize);
        self.dynamic_shared_bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
        self
    }

    /// Threads in the whole grid.
    pub fn threads(&self) -> u64 {
        self.grid.count() * self.block.count()
    }
}

/// The number of elements a vector parameter must hold, declared once per kernel with
/// [`Kernel::require_len`](crate::Kernel::require_len) and checked at every launch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Extent {
    /// A fixed count.
    Elements(u64),
    /// The value of an integer scalar parameter (`n`).
    Param(String),
    /// The product of integer scalar parameters (`rows * cols`).
    Product(Vec<String>),
    /// One element per thread of the grid.
    GridThreads,
    /// One element per block of the grid.
    GridBlocks,
}

impl Extent {
    pub fn param(name: &str) -> Extent {
        Extent::Param(name.to_string())
    }

    pub fn product(names: &[&str]) -> Extent {
        Extent::Product(names.iter().map(|n| n.to_string()).collect())
    }

    /// The scalar parameters it reads.
    pub fn params(&self) -> Vec<&str> {
        match self {
            Extent::Param(p) => vec![p.as_str()],
            Extent::Product(ps) => ps.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for Extent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Extent::Elements(n) => write!(f, "{n} elements"),
            Extent::Param(p) => write!(f, "`{p}`"),
            Extent::Product(ps) => write!(f, "`{}`", ps.join(" * ")),
            Extent::GridThreads => f.write_str("one element per grid thread"),
            Extent::GridBlocks => f.write_str("one element per grid block"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_elements_rounds_up() {
        let c = LaunchConfig::for_elements(1000, 256);
        assert_eq!((c.grid.x, c.block.x), (4, 256));
        assert_eq!(LaunchConfig::for_elements(0, 256).grid.x, 1);
        assert_eq!(LaunchConfig::new((2, 3), (32, 8)).threads(), 6 * 256);
    }

    #[test]
    fn shared_elems_are_bytes_of_the_type() {
        assert_eq!(LaunchConfig::new(1, 1).with_shared_elems::<f64>(10).dynamic_shared_bytes, 80);
    }
}
