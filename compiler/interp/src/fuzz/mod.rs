//! Testing the compiler with the interpreter: a generator of random well-typed kernels and the properties.
