//! Debug aid: prints the CUDA C that skc emits for a `.sk` file (after its diagnostics, if any), or, with
//! `--out DIR`, writes `DIR/<stem>.cu` for each file given; `--json` prints the kernel signatures instead;
//! `--no-line` leaves out `#line` directives.
use skc_core::codegen::{emit_cuda, EmitOptions};

fn main() {
    let mut out_dir = None;
    let mut json = false;
    let mut options = EmitOptions::default();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out_dir = args.next(),
            "--json" => json = true,
            "--no-line" => options.line_directives = false,
            _ => files.push(arg),
        }
    }
    let mut failed = false;
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let name = std::path::Path::new(&path).file_name().unwrap().to_string_lossy().to_string();
        let checked = skc_core::check(&name, &text, &skc_core::NoModules, &Default::default());
        for d in &checked.diagnostics {
            eprintln!(
                "{}",
                skc_core::diagnostic::render(d, &checked.sources, skc_core::diagnostic::ColorChoice::Never)
            );
        }
        if checked.has_errors() {
            failed = true;
            continue;
        }
        let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &options);
        if json {
            println!("{}", serde_json::to_string_pretty(&output.kernels).unwrap());
        } else if let Some(dir) = &out_dir {
            std::fs::create_dir_all(dir).unwrap();
            let stem = name.strip_suffix(".sk").unwrap_or(&name);
            std::fs::write(format!("{dir}/{stem}.cu"), &output.source).unwrap();
        } else {
            print!("{}", output.source);
        }
    }
    if failed {
        std::process::exit(1);
    }
}
