//! A real editor against `skc lsp`: Neovim, set up by the recipe in README.md (its `lua` block, with the path of
//! this tree), runs `editors/nvim/test_lsp.lua`: filetype and syntax highlighting from `editors/nvim`, E0001 on a
//! divergent barrier, `:SkcExplain`, a fix through the buffer that clears the diagnostics, `:SkcShowCuda`, and
//! shutdown. The recipe runs `skc` from the PATH: the test puts the binary under test first on it. Without
//! `nvim` on the PATH the test says so and passes, unless `SKC_REQUIRE_NVIM=1` (CI), where it fails.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

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
    let skc = Path::new(env!("CARGO_BIN_EXE_skc"));
    let script = root.join("editors/nvim/test_lsp.lua");
    let mut nvim = Command::new("nvim");
    nvim.args(["--headless", "--clean", "--cmd"]).arg(format!("luafile {}", recipe_file.display()));
    nvim.arg("-c").arg(format!("luafile {}", script.display()));
    let steps = [
        "syntax skKeyword",
        "E0001 at 1:28-1:45",
        ":SkcExplain",
        "diagnostics cleared",
        ":SkcShowCuda",
        "server exited",
    ];
    skc_tests::editor::run(&mut nvim, "Neovim", &root, skc, Duration::from_secs(90), &steps);
    let _ = std::fs::remove_file(&recipe_file);
}
