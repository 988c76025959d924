//! The corpus on disk, as `fuzz_compiler --write-corpus DIR` writes it and `fuzz_compiler --compare DIR` reads
//! it: `cases.tsv` (one `NAME<TAB>GRID<TAB>BLOCK` line per case, extents as `X`, `X,Y` or `X,Y,Z`), and for each
//! case `NAME.sk` and `NAME.json` (its arguments, as `skc run --args` reads them). A case's result is written
//! as `skc run --out NAME.gpu.json` writes it (the written vectors, one line of JSON), and what went wrong in
//! `NAME.gpu.log`: a case with neither was not run.

use std::path::{Path, PathBuf};

/// One case of the corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// The cases of `dir/cases.tsv`, in its order.
pub fn read_manifest(dir: &Path) -> Result<Vec<Case>, String> {
    let path = dir.join("cases.tsv");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| parse_line(line).map_err(|e| format!("{}:{}: {e}", path.display(), index + 1)))
        .collect()
}

fn parse_line(line: &str) -> Result<Case, String> {
    let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
    let [name, grid, block] = fields[..] else {
        return Err(format!("expected NAME<TAB>GRID<TAB>BLOCK, found `{line}`"));
    };
    if name.is_empty() || name.contains(['/', '\\']) {
        return Err(format!("`{name}` is not a case name"));
    }
    Ok(Case { name: name.to_string(), grid: parse_dims(grid)?, block: parse_dims(block)? })
}

/// `X`, `X,Y` or `X,Y,Z`, each at least 1 (as `skc run --grid` reads them).
fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("`{text}`: give X, X,Y or X,Y,Z"));
    }
    let mut dims = [1u32; 3];
    for (dim, part) in dims.iter_mut().zip(&parts) {
        *dim = part.parse().map_err(|_| format!("`{part}` is not a positive whole number"))?;
        if *dim == 0 {
            return Err(format!("`{text}`: extents must be at least 1"));
        }
    }
    Ok(dims)
}

/// Where one case's files are.
pub struct CaseFiles {
    dir: PathBuf,
    name: String,
}

impl CaseFiles {
    pub fn new(dir: &Path, case: &Case) -> CaseFiles {
        CaseFiles { dir: dir.to_path_buf(), name: case.name.clone() }
    }

    fn path(&self, extension: &str) -> PathBuf {
        self.dir.join(format!("{}.{extension}", self.name))
    }

    pub fn source(&self) -> PathBuf {
        self.path("sk")
    }

    pub fn arguments(&self) -> PathBuf {
        self.path("json")
    }

    pub fn output(&self) -> PathBuf {
        self.path("gpu.json")
    }

    pub fn log(&self) -> PathBuf {
        self.path("gpu.log")
    }

    /// Has an earlier process already finished this case (an output or a log)?
    pub fn done(&self) -> bool {
        self.output().exists() || self.log().exists()
    }

    /// The written vectors, as `skc run --out NAME.gpu.json` writes them; `notes` (reports of the run, which
    /// `skc run` prints on stderr) go to the log, and an empty log is removed.
    pub fn write_output(&self, written: &serde_json::Value, notes: &str) -> Result<(), String> {
        write(&self.output(), &format!("{written}\n"))?;
        if notes.is_empty() {
            return remove(&self.log());
        }
        write(&self.log(), notes)
    }

    /// Records a case that produced no output (its log is what `fuzz_compiler --compare` prints).
    pub fn write_failure(&self, message: &str) -> Result<(), String> {
        write(&self.log(), &format!("{}\n", message.trim_end()))
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn remove(path: &Path) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_manifest_fuzz_compiler_writes() {
        assert_eq!(
            parse_line("case00000007\t2\t48").unwrap(),
            Case { name: "case00000007".into(), grid: [2, 1, 1], block: [48, 1, 1] }
        );
        assert_eq!(parse_line("a\t2,3\t4,5,6").unwrap().block, [4, 5, 6]);
        assert_eq!(parse_line("a\t2,3\t4,5,6").unwrap().grid, [2, 3, 1]);
        for bad in ["a\t2", "a\t0\t32", "a\tx\t32", "../a\t1\t1", "a\t1,1,1,1\t1", "\t1\t1"] {
            assert!(parse_line(bad).is_err(), "{bad:?} must be refused");
        }
    }

    #[test]
    fn an_output_replaces_the_log_and_a_failure_is_a_log() {
        let dir = std::env::temp_dir().join(format!("skc-run-batch-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let case = Case { name: "c".into(), grid: [1; 3], block: [1; 3] };
        let files = CaseFiles::new(&dir, &case);
        assert!(!files.done());
        files.write_failure("started").unwrap();
        assert!(files.done());
        files.write_output(&serde_json::json!({ "out": [1, 2] }), "").unwrap();
        assert_eq!(std::fs::read_to_string(files.output()).unwrap(), "{\"out\":[1,2]}\n");
        assert!(!files.log().exists(), "a clean run leaves no log");
        files.write_failure("boom").unwrap();
        assert_eq!(std::fs::read_to_string(files.log()).unwrap(), "boom\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
