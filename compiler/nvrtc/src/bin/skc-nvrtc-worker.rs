//! The NVRTC worker for programs that use skc-nvrtc as a library (`Isolation::from_env` finds it next to the
//! running executable, or `SKC_NVRTC_WORKER` names it): serves compilations on standard input and output until
//! its input is closed. Started as `skc-nvrtc-worker nvrtc-worker`; any other argument list is a usage error.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args != [skc_nvrtc::WORKER_ARG] {
        eprintln!(
            "skc-nvrtc-worker runs NVRTC for skc-nvrtc's callers and is started by them (as `skc-nvrtc-worker {}`)",
            skc_nvrtc::WORKER_ARG
        );
        std::process::exit(2);
    }
    std::process::exit(skc_nvrtc::serve_worker());
}
