//! README.md's sample error is what `skc check` prints: the block after "What `skc check FILE` prints:" is
//! compared, verbatim, with the command's output, run from the repository root without colour.

use std::path::Path;
use std::process::Command;

#[test]
fn the_readme_sample_error_is_what_skc_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let (command, sample) = sample_of(&readme).expect("README.md has a sample error after \"What `skc check\"");
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let o = Command::new(env!("CARGO_BIN_EXE_skc"))
        .args(&args)
        .current_dir(&root)
        .env("NO_COLOR", "1")
        .env_remove("SKC_STDLIB")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "the sample is an error");
    // Line by line, without the spaces ariadne leaves at the ends of lines (an editor may strip them).
    let lines = |text: &str| text.trim_end().lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    let printed = String::from_utf8_lossy(&o.stderr);
    assert_eq!(lines(&printed), lines(sample), "README.md's sample differs from what `{command}` prints");
}

/// The command (`skc check FILE`) and the fenced block that follows "What `COMMAND` prints:".
fn sample_of(readme: &str) -> Option<(&str, &str)> {
    let start = readme.find("What `skc check")? + "What `".len();
    let command = &readme[start..start + readme[start..].find('`')?];
    let block = &readme[start..];
    let open = block.find("```\n")? + "```\n".len();
    let close = open + block[open..].find("\n```")?;
    Some((command, &block[open..close]))
}

/// docs/from-cuda.md's first kernel works as the page says, from a folder outside the tree: `skc check`, `skc emit
/// --emit cuda` and `skc build --emit cuda` succeed, and `skc run` with the page's arguments prints the page's output.
#[test]
fn the_first_kernel_of_from_cuda_md_checks_builds_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let page = std::fs::read_to_string(root.join("docs/from-cuda.md")).unwrap();
    let program = between(&page, "`vector_add.sk`:\n\n```sk\n", "```").expect("the first kernel");
    let arguments = between(&page, "echo '", "' > add.json").expect("the arguments of `skc run`");
    let command = between(&page, "skc run vector_add.sk", "   #").expect("the `skc run` command");
    let expected = between(&page, "# prints ", "\n").expect("the output of `skc run`");
    let work = std::env::temp_dir().join(format!("skc-from-cuda-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("vector_add.sk"), program).unwrap();
    std::fs::write(work.join("add.json"), arguments).unwrap();
    let skc = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_skc")).args(args).current_dir(&work).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "skc {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    skc(&["check", "vector_add.sk"]);
    assert!(skc(&["emit", "--emit", "cuda", "vector_add.sk"]).contains("__global__ void vector_add("));
    let no_nvrtc = work.join("no-nvrtc");
    std::fs::create_dir_all(&no_nvrtc).unwrap();
    skc(&["build", "vector_add.sk", "--emit", "cuda", "-o", "out", "--nvrtc", no_nvrtc.to_str().unwrap()]);
    assert!(work.join("out/vector_add.cu").is_file());
    let mut run = vec!["run", "vector_add.sk"];
    run.extend(command.split_whitespace());
    assert_eq!(skc(&run).trim(), expected.trim());
}

/// The text between the first `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    Some(&text[from..from + text[from..].find(end)?])
}
