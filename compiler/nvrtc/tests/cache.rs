//! Integration tests of `compile_cached` against real NVRTC.

mod common;

use skc_nvrtc::{compile_cached, Cache, CompileOptions};

#[test]
fn second_compile_is_a_cache_hit_with_identical_output() {
    require_nvrtc!("second_compile_is_a_cache_hit_with_identical_output");
    let cache = Cache::new(common::fresh_dir("hit"));
    let source = common::data("noinline.cu");
    let options = CompileOptions::default();
    let miss = compile_cached(&source, "noinline.cu", &options, Some(&cache), "skc-test 1").expect("miss");
    let hit = compile_cached(&source, "noinline.cu", &options, Some(&cache), "skc-test 1").expect("hit");
    assert!(!miss.cache_hit);
    assert!(hit.cache_hit);
    assert_eq!((&hit.ptx, &hit.cubin, &hit.log), (&miss.ptx, &miss.cubin, &miss.log));
    assert_eq!(hit.resources, miss.resources);
    assert_eq!(hit.nvrtc_version, miss.nvrtc_version);
    assert!(hit.elapsed < miss.elapsed, "hit {:?} vs miss {:?}", hit.elapsed, miss.elapsed);
    eprintln!("cold compile {:?}, cache hit {:?}", miss.elapsed, hit.elapsed);

    let entries: Vec<_> = std::fs::read_dir(cache.dir()).expect("cache dir").filter_map(|e| e.ok()).collect();
    assert_eq!(entries.len(), 1, "one entry, no temp dirs left");
    let entry = entries[0].path();
    for file in ["kernel.ptx", "kernel.cubin", "log.txt"] {
        assert!(entry.join(file).is_file(), "{file}");
    }
    let _ = std::fs::remove_dir_all(cache.dir());
}

#[test]
fn different_version_or_options_miss() {
    require_nvrtc!("different_version_or_options_miss");
    let cache = Cache::new(common::fresh_dir("miss"));
    let source = common::data("simple.cu");
    let options = CompileOptions::default();
    compile_cached(&source, "simple.cu", &options, Some(&cache), "skc 1").expect("first");
    let other_version = compile_cached(&source, "simple.cu", &options, Some(&cache), "skc 2").expect("second");
    assert!(!other_version.cache_hit);
    let sm80 = CompileOptions::for_arch("sm_80");
    let other_arch = compile_cached(&source, "simple.cu", &sm80, Some(&cache), "skc 1").expect("third");
    assert!(!other_arch.cache_hit);
    assert_eq!(other_arch.resources[0].arch, "sm_80");
    let again = compile_cached(&source, "simple.cu", &sm80, Some(&cache), "skc 1").expect("fourth");
    assert!(again.cache_hit);
    let _ = std::fs::remove_dir_all(cache.dir());
}

#[test]
fn no_cache_always_compiles() {
    require_nvrtc!("no_cache_always_compiles");
    let source = common::data("simple.cu");
    let out = compile_cached(&source, "simple.cu", &CompileOptions::default(), None, "skc").expect("compiles");
    assert!(!out.cache_hit);
}

#[test]
fn failed_compiles_are_not_cached() {
    require_nvrtc!("failed_compiles_are_not_cached");
    let cache = Cache::new(common::fresh_dir("broken"));
    let source = common::data("broken.cu");
    for _ in 0..2 {
        let err = compile_cached(&source, "broken.cu", &CompileOptions::default(), Some(&cache), "skc");
        assert!(matches!(err, Err(skc_nvrtc::NvrtcError::Compile { .. })), "{err:?}");
    }
    let count = std::fs::read_dir(cache.dir()).map(|d| d.count()).unwrap_or(0);
    assert_eq!(count, 0);
    let _ = std::fs::remove_dir_all(cache.dir());
}

#[test]
fn concurrent_compiles_of_the_same_kernel_share_one_entry() {
    require_nvrtc!("concurrent_compiles_of_the_same_kernel_share_one_entry");
    let cache = Cache::new(common::fresh_dir("concurrent"));
    let source = common::data("shared.cu");
    let outputs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| compile_cached(&source, "shared.cu", &CompileOptions::default(), Some(&cache), "skc")))
            .collect();
        handles.into_iter().map(|h| h.join().expect("thread").expect("compile")).collect()
    });
    assert!(outputs.windows(2).all(|w| w[0].ptx == w[1].ptx && w[0].cubin == w[1].cubin));
    let names: Vec<String> = std::fs::read_dir(cache.dir())
        .expect("cache dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "exactly one entry and no temp folders: {names:?}");
    let after = compile_cached(&source, "shared.cu", &CompileOptions::default(), Some(&cache), "skc").expect("hit");
    assert!(after.cache_hit);
    let _ = std::fs::remove_dir_all(cache.dir());
}
