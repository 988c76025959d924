//! `CompileOptions` and their translation into NVRTC command-line arguments.

/// How to compile one CUDA program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// Real GPU architecture, e.g. "sm_90". A real (sm_) target is what makes NVRTC
    /// run ptxas, which produces the CUBIN and the resource report.
    pub arch: String,
    /// Device debug info (-G); also turns device optimisation off.
    pub debug: bool,
    /// Line tables for profilers (-lineinfo); implied by `debug`, so only passed without it
    /// (ptxas warns about the pair).
    pub line_info: bool,
    /// ptxas optimisation; `false` passes ptxas `-O0`. (NVRTC 13.0 rejects `--dopt=off`,
    /// so the NVVM front end still optimises; use `debug` for fully unoptimised code.)
    pub optimize: bool,
    /// Extra NVRTC options, appended verbatim after ours.
    pub extra: Vec<String>,
    /// Also return the CUBIN (costs one extra NVRTC call and a copy).
    pub include_cubin: bool,
    /// Relocatable device code (`--relocatable-device-code=true`), required by programs that launch kernels from
    /// the device. The CUBIN is then an unlinked object: link it with `libcudadevrt.a` (`find_cudadevrt`) through
    /// the driver's linker before loading. PTX and the ptxas report are produced as usual.
    pub relocatable: bool,
}

/// The architecture skc targets unless told otherwise (H100/H200).
pub const DEFAULT_ARCH: &str = "sm_90";

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: DEFAULT_ARCH.to_string(),
            debug: false,
            line_info: false,
            optimize: true,
            extra: Vec::new(),
            include_cubin: true,
            relocatable: false,
        }
    }
}

impl CompileOptions {
    /// Default options for another architecture.
    pub fn for_arch(arch: impl Into<String>) -> Self {
        CompileOptions { arch: arch.into(), ..Self::default() }
    }

    /// The arguments handed to nvrtcCompileProgram.
    ///
    /// Each option is a single `--name=value` token: NVRTC takes the argv array
    /// as is, and e.g. `-Xptxas -v` as two tokens silently yields an empty log.
    pub fn nvrtc_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("--gpu-architecture={}", self.arch),
            // Makes ptxas print the per-kernel resource report into the program log.
            "--ptxas-options=-v".to_string(),
            "-std=c++17".to_string(),
        ];
        if self.debug {
            args.push("-G".to_string());
        }
        if self.line_info && !self.debug {
            args.push("-lineinfo".to_string());
        }
        if !self.optimize {
            args.push("--ptxas-options=-O0".to_string());
        }
        if self.relocatable {
            args.push("--relocatable-device-code=true".to_string());
        }
        args.extend(self.extra.iter().cloned());
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_targets_sm_90_with_ptxas_report() {
        let args = CompileOptions::default().nvrtc_args();
        assert_eq!(args, ["--gpu-architecture=sm_90", "--ptxas-options=-v", "-std=c++17"]);
    }

    #[test]
    fn flags_map_to_single_tokens() {
        let opts = CompileOptions {
            arch: "sm_80".into(),
            debug: true,
            line_info: true,
            optimize: false,
            extra: vec!["--maxrregcount=32".into()],
            include_cubin: false,
            relocatable: true,
        };
        let args = opts.nvrtc_args();
        assert_eq!(args[0], "--gpu-architecture=sm_80");
        for flag in ["-G", "--ptxas-options=-O0", "--relocatable-device-code=true"] {
            assert!(args.iter().any(|a| a == flag), "missing {flag} in {args:?}");
        }
        assert!(!args.iter().any(|a| a == "-lineinfo"), "-G already implies line info");
        assert_eq!(args.last().map(String::as_str), Some("--maxrregcount=32"));
    }
}
