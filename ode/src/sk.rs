//! The `.sk` side: the generated tableau modules of `stdlib/ode/` and the compile-time definitions that select
//! a method, a controller and a system size.
