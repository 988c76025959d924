//! The typed wrappers skc-build generates (see build.rs): their signatures agree with the emitter's, records
//! are `#[repr(C)]` structs of the C size, and (GPU tests) a launch through them computes.

mod shift_points {
    include!(concat!(env!("OUT_DIR"), "/shift_points.rs"));
}

use shift_points::{Point, ShiftPoints};
use skc_runtime::{ElemType, ParamType, ScalarType};

#[test]
fn record_wrappers_have_the_c_layout() {
    assert_eq!(std::mem::size_of::<Point>(), 8);
    let signatures = ShiftPoints::signatures();
    let params: Vec<&ParamType> = signatures[0].params.iter().map(|p| &p.ty).collect();
    assert_eq!(
        params,
        [
            &ParamType::Vector { elem: ElemType::Record { name: "point".into(), size: 8 }, writable: true },
            &ParamType::Record { name: "point".into(), size: 8 },
            &ParamType::Scalar(ScalarType::Int32),
        ]
    );
    assert!(shift_points::CUDA_SOURCE.contains("shift_points"));
}

#[test]
fn generated_signatures_match_the_runtime_front_end() {
    let program = skc_examples::kernels::VECTOR_ADD.program().expect("vector_add.sk compiles");
    assert_eq!(skc_examples::vector_add::generated::VectorAdd::signatures(), program.kernels);
}

#[cfg(feature = "gpu-tests")]
#[test]
fn a_typed_launch_with_records_computes() {
    let ctx =
        skc_runtime::Context::new(0).unwrap_or_else(|e| panic!("the gpu-tests need a CUDA GPU and its driver: {e}"));
    let kernels = ShiftPoints::load(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let mut ps = ctx.upload(&vec![Point { x: 1.0, y: 2.0 }; 1000]).unwrap();
    let by = Point { x: 0.5, y: -1.0 };
    kernels.launch_shift_points(&skc_runtime::LaunchConfig::for_elements(1000, 128), &mut ps, &by, 1000).unwrap();
    assert_eq!(ps.download().unwrap(), vec![Point { x: 1.5, y: 1.0 }; 1000]);
}
