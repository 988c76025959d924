//! Every example kernel through the front end, the emitter and NVRTC for sm_90, with no GPU: the signatures the
//! runtime will check, and ptxas' report (no register spills in the kernels the benchmarks time).
//! Skips when NVRTC is missing unless `SKC_REQUIRE_NVRTC=1` (`skc_tests::require`).

use skc_examples::kernels::{self, KernelSource};
use skc_runtime::{ElemType, ParamType, Program, RuntimeError, ScalarType};

fn front_end(source: &KernelSource) -> Program {
    source.program().unwrap_or_else(|e| panic!("{}: {e}", source.file))
}

#[test]
fn every_example_compiles_for_sm_90_without_spills() {
    if !skc_tests::require::nvrtc("the examples' NVRTC test") {
        return;
    }
    for source in kernels::ALL.into_iter().chain(kernels::BENCH_VARIANTS) {
        let program = front_end(&source);
        let output =
            program.compile("sm_90").unwrap_or_else(|e| panic!("{}: {e}\n{}", source.file, program.cuda_source));
        for kernel in &program.kernels {
            assert!(
                output.ptx.contains(&format!(".entry {}(", kernel.symbol)),
                "{}: no entry {}",
                source.file,
                kernel.symbol
            );
        }
        for resources in &output.resources {
            eprintln!("{}: {resources:?}", source.file);
            assert_eq!(resources.spill_bytes(), 0, "{}: {resources:?}", source.file);
        }
    }
}

fn vector(elem: ScalarType, writable: bool) -> ParamType {
    ParamType::Vector { elem: ElemType::Scalar(elem), writable }
}

#[test]
fn signatures_say_which_vectors_are_written() {
    let program = front_end(&kernels::VECTOR_ADD);
    let add = program.kernel("vector_add").expect("vector_add kernel");
    let types: Vec<&ParamType> = add.params.iter().map(|p| &p.ty).collect();
    assert_eq!(
        types,
        [
            &vector(ScalarType::Float32, false),
            &vector(ScalarType::Float32, false),
            &vector(ScalarType::Float32, true),
            &ParamType::Scalar(ScalarType::Int32)
        ]
    );
    let program = front_end(&kernels::HISTOGRAM);
    let bins = &program.kernel("histogram").expect("histogram kernel").params[1];
    assert_eq!((bins.name.as_str(), &bins.ty), ("bins", &vector(ScalarType::Int32, true)), "atomics write");
}

#[test]
fn shared_arrays_sized_by_parameters_are_dynamic() {
    let program = front_end(&kernels::SCAN);
    assert_eq!(program.kernel("scan_blocks").expect("scan_blocks").dynamic_shared_elem, Some(ScalarType::Int32));
    assert_eq!(program.kernel("add_offsets").expect("add_offsets").dynamic_shared_elem, None);
    let program = front_end(&kernels::TRANSPOSE);
    assert_eq!(program.kernel("transpose").expect("transpose").dynamic_shared_elem, None, "(32, 33) is constant");
}

#[test]
fn front_end_errors_are_rendered_like_skc_check() {
    let text = "let k = [%kernel fun (xs : int32 vector) ->\n  if thread_idx_x < 16 then\n    Gpu.block_barrier\n]\n";
    match Program::from_source("deadlock.sk", text) {
        Err(RuntimeError::Frontend { file, error_count, rendered }) => {
            assert_eq!((file.as_str(), error_count), ("deadlock.sk", 1));
            assert!(rendered.contains("[E0001] Error") && rendered.contains("deadlock.sk:3:5"), "{rendered}");
        }
        other => panic!("expected the convergence error, got {:?}", other.map(|p| p.kernels)),
    }
}
