//! CUDA C emission. (Being written.)
