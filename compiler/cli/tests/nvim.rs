//! A real editor against `skc lsp`: Neovim, set up by the recipe in README.md (its `lua` block, with the path of
//! this tree), runs `editors/nvim/test_lsp.lua`: filetype and syntax highlighting from `editors/nvim`, E0001 on a
//! divergent barrier, `:SkcExplain`, a fix through the buffer that clears the diagnostics, `:SkcShowCuda`, and
//! shutdown. The recipe runs `skc` from the PATH: the test puts the binary under test first on it. Without
//! `nvim` on the PATH the test says so and passes, unless `SKC_REQUIRE_NVIM=1` (CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first ```lua block of README.md's Neovim recipe, pointing at this tree.
fn readme_recipe(root: &Path) -> String {
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find("```lua\n").expect("README.md has a ```lua block (the Neovim recipe)") + "```lua\n".len();
    let end = readme[start..].find("```").expect("an unclosed ```lua block") + start;
    let recipe = readme[start..end].to_string();
    assert!(recipe.contains("/path/to/skc"), "the recipe names the tree as /path/to/skc:\n{recipe}");
    recipe.replace("/path/to/skc", &root.canonicalize().unwrap().display().to_string())
}

#[test]
fn neovim_set_up_by_the_readme_recipe_sees_and_clears_a_convergence_error() {
    let Some(version) = skc_tests::require::nvim("the Neovim test") else { return };
    eprintln!("running {version}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let recipe_file = std::env::temp_dir().join(format!("skc-nvim-recipe-{}.lua", std::process::id()));
    std::fs::write(&recipe_file, readme_recipe(&root)).unwrap();
    let skc_dir: PathBuf = Path::new(env!("CARGO_BIN_EXE_skc")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(skc_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let script = root.join("editors/nvim/test_lsp.lua");
    let mut child = Command::new("nvim")
        .args(["--headless", "--clean", "--cmd"])
        .arg(format!("luafile {}", recipe_file.display()))
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .env("PATH", path)
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start nvim");
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("nvim did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&recipe_file);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(output.status.success(), "the Neovim test failed ({}):\n{stdout}{stderr}", output.status);
    for step in [
        "syntax skKeyword",
        "E0001 at 1:28-1:45",
        ":SkcExplain",
        "diagnostics cleared",
        ":SkcShowCuda",
        "server exited",
    ] {
        assert!(stdout.contains(step), "the test did not get to `{step}`:\n{stdout}");
    }
}
