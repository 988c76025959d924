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
