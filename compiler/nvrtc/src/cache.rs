//! The on-disk compile cache: content-addressed entries (`<sha256>/kernel.ptx`,
//! `kernel.cubin`, `log.txt`) written through a temp folder and an atomic rename,
//! and `compile_cached`, which consults it before running NVRTC.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::compile::{CompileOutput, Runner};
use crate::discovery::LibrarySearch;
use crate::error::NvrtcError;
use crate::loader::load_nvrtc;
use crate::options::CompileOptions;
use crate::ptxas::parse_ptxas_report;

/// Bump when the entry layout or the key recipe changes; old entries then stop matching.
pub const CACHE_FORMAT_VERSION: &str = "skc-nvrtc-cache-v1";
/// Env var overriding the cache folder.
pub const CACHE_DIR_ENV: &str = "SKC_CACHE_DIR";

const PTX_FILE: &str = "kernel.ptx";
const CUBIN_FILE: &str = "kernel.cubin";
const LOG_FILE: &str = "log.txt";

/// A cache folder. Entries are never modified once renamed into place, so any
/// number of processes may read and write the same folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
}

/// What one cache entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedArtifacts {
    pub ptx: String,
    pub cubin: Vec<u8>,
    pub log: String,
}

/// Everything that decides a compile's result, hashed into the cache key.
#[derive(Debug, Clone, Copy)]
pub struct CacheKeyInputs<'a> {
    pub compiler_version: &'a str,
    pub cuda_source: &'a str,
    pub program_name: &'a str,
    pub options: &'a CompileOptions,
    pub nvrtc_version: (i32, i32),
}

impl<'a> CacheKeyInputs<'a> {
    /// Hex sha256 over the format version, skc version, source, program name,
    /// NVRTC arguments (which include the arch), the CUBIN flag and NVRTC version.
    /// Each field is length-prefixed so no two different inputs hash the same bytes.
    pub fn key(&self) -> String {
        let args = self.options.nvrtc_args();
        let version = format!("{}.{}", self.nvrtc_version.0, self.nvrtc_version.1);
        let mut hasher = Sha256::new();
        let mut field = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(CACHE_FORMAT_VERSION.as_bytes());
        field(self.compiler_version.as_bytes());
        field(self.cuda_source.as_bytes());
        field(self.program_name.as_bytes());
        field(&(args.len() as u64).to_le_bytes());
        for arg in &args {
            field(arg.as_bytes());
        }
        field(self.options.arch.as_bytes());
        field(&[u8::from(self.options.include_cubin)]);
        field(version.as_bytes());
        hex(&hasher.finalize())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Cache { dir: dir.into() }
    }

    /// `$SKC_CACHE_DIR`, else `$XDG_CACHE_HOME/skc`, else `~/.cache/skc`;
    /// `None` when none of those can be determined.
    pub fn from_env() -> Option<Self> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let dir = var(CACHE_DIR_ENV)
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("skc")))
            .or_else(|| var("HOME").map(|h| h.join(".cache").join("skc")))?;
        Some(Cache::new(dir))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder an entry lives in.
    pub fn entry_dir(&self, key: &str) -> PathBuf {
        self.dir.join(key)
    }

    /// The entry for `key`, or `None` if it is absent or unreadable.
    pub fn load(&self, key: &str) -> Option<CachedArtifacts> {
        let entry = self.entry_dir(key);
        Some(CachedArtifacts {
            ptx: fs::read_to_string(entry.join(PTX_FILE)).ok()?,
            cubin: fs::read(entry.join(CUBIN_FILE)).ok()?,
            log: fs::read_to_string(entry.join(LOG_FILE)).ok()?,
        })
    }

    /// Writes an entry: files go to a private temp folder first, which is then
    /// renamed into place, so readers never see a half-written entry. If another
    /// writer renamed the same key first, theirs is kept (same key, same content).
    pub fn store(&self, key: &str, artifacts: &CachedArtifacts) -> Result<(), NvrtcError> {
        fs::create_dir_all(&self.dir).map_err(|e| NvrtcError::io("create cache folder", &self.dir, e))?;
        let temp = self.create_temp_dir()?;
        let written = write_entry_files(&temp, artifacts).and_then(|()| self.publish(&temp, key));
        // Best effort: after a successful rename the temp path no longer exists.
        let _ = fs::remove_dir_all(&temp);
        written
    }

    fn publish(&self, temp: &Path, key: &str) -> Result<(), NvrtcError> {
        let entry = self.entry_dir(key);
        if fs::rename(temp, &entry).is_ok() {
            return Ok(());
        }
        // rename onto an existing non-empty folder fails: another writer won the race.
        if self.load(key).is_some() {
            return Ok(());
        }
        // The existing entry is damaged (files removed by hand): replace it once.
        let _ = fs::remove_dir_all(&entry);
        fs::rename(temp, &entry).map_err(|e| NvrtcError::io("publish cache entry", &entry, e))
    }

    /// A fresh folder inside the cache folder (same file system, so rename is atomic).
    fn create_temp_dir(&self) -> Result<PathBuf, NvrtcError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = self.dir.join(format!(".tmp-{}-{nanos}-{unique}", std::process::id()));
        fs::create_dir(&temp).map_err(|e| NvrtcError::io("create cache temp folder", &temp, e))?;
        Ok(temp)
    }
}

fn write_entry_files(dir: &Path, artifacts: &CachedArtifacts) -> Result<(), NvrtcError> {
    let files: [(&str, &[u8]); 3] =
        [(PTX_FILE, artifacts.ptx.as_bytes()), (CUBIN_FILE, &artifacts.cubin), (LOG_FILE, artifacts.log.as_bytes())];
    for (name, bytes) in files {
        let path = dir.join(name);
        fs::write(&path, bytes).map_err(|e| NvrtcError::io("write cache file", &path, e))?;
    }
    Ok(())
}

/// `compile`, through `cache` when given. A hit returns the stored PTX, CUBIN and
/// log with `cache_hit = true` and resources re-parsed from the log. A cache that
/// cannot be written does not fail the compile: the result is still returned.
pub fn compile_cached(
    cuda_source: &str,
    program_name: &str,
    options: &CompileOptions,
    cache: Option<&Cache>,
    compiler_version: &str,
) -> Result<CompileOutput, NvrtcError> {
    compile_cached_with(cuda_source, program_name, options, cache, compiler_version, &LibrarySearch::from_env())
}

/// `compile_cached` with an explicit library search.
pub fn compile_cached_with(
    cuda_source: &str,
    program_name: &str,
    options: &CompileOptions,
    cache: Option<&Cache>,
    compiler_version: &str,
    search: &LibrarySearch,
) -> Result<CompileOutput, NvrtcError> {
    Runner::in_process(search.clone()).compile_cached(cuda_source, program_name, options, cache, compiler_version)
}

impl Runner {
    /// `compile` through `cache` when given (see `compile_cached`): a hit runs no NVRTC and starts no worker.
    pub fn compile_cached(
        &self,
        cuda_source: &str,
        program_name: &str,
        options: &CompileOptions,
        cache: Option<&Cache>,
        compiler_version: &str,
    ) -> Result<CompileOutput, NvrtcError> {
        let started = Instant::now();
        // The key includes NVRTC's version, so NVRTC is loaded even for a hit.
        let library = load_nvrtc(&self.search)?;
        let nvrtc_version = library.version;
        let Some(cache) = cache else {
            return self.compile_loaded(cuda_source, program_name, options, &library);
        };
        let key = CacheKeyInputs { compiler_version, cuda_source, program_name, options, nvrtc_version }.key();
        if let Some(hit) = cache.load(&key) {
            return Ok(CompileOutput {
                resources: parse_ptxas_report(&hit.log),
                ptx: hit.ptx,
                cubin: hit.cubin,
                log: hit.log,
                nvrtc_version,
                elapsed: started.elapsed(),
                cache_hit: true,
            });
        }
        let output = self.compile_loaded(cuda_source, program_name, options, &library)?;
        let artifacts =
            CachedArtifacts { ptx: output.ptx.clone(), cubin: output.cubin.clone(), log: output.log.clone() };
        // Caching is an optimisation: a read-only or full disk must not fail the build.
        let _ = cache.store(&key, &artifacts);
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_cache(tag: &str) -> Cache {
        let dir = std::env::temp_dir().join(format!("skc-nvrtc-cache-unit-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Cache::new(dir)
    }

    fn inputs<'a>(source: &'a str, options: &'a CompileOptions) -> CacheKeyInputs<'a> {
        CacheKeyInputs {
            compiler_version: "skc 0.1.0",
            cuda_source: source,
            program_name: "k.cu",
            options,
            nvrtc_version: (13, 0),
        }
    }

    fn artifacts(tag: &str) -> CachedArtifacts {
        CachedArtifacts {
            ptx: format!("// ptx {tag}"),
            cubin: vec![0x7f, b'E', b'L', b'F'],
            log: "ptxas info    : Used 10 registers, used 0 barriers\n".into(),
        }
    }

    #[test]
    fn key_is_hex_sha256_and_sensitive_to_every_input() {
        let opts = CompileOptions::default();
        let base = inputs("src", &opts).key();
        assert_eq!(base.len(), 64);
        assert!(base.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(base, inputs("src", &opts).key());
        let other_arch = CompileOptions::for_arch("sm_80");
        let debug = CompileOptions { debug: true, ..CompileOptions::default() };
        let no_cubin = CompileOptions { include_cubin: false, ..CompileOptions::default() };
        let variants = [
            inputs("src2", &opts).key(),
            inputs("src", &other_arch).key(),
            inputs("src", &debug).key(),
            inputs("src", &no_cubin).key(),
            CacheKeyInputs { compiler_version: "skc 0.2.0", ..inputs("src", &opts) }.key(),
            CacheKeyInputs { nvrtc_version: (13, 1), ..inputs("src", &opts) }.key(),
            CacheKeyInputs { program_name: "other.cu", ..inputs("src", &opts) }.key(),
        ];
        for v in &variants {
            assert_ne!(v, &base);
        }
    }

    #[test]
    fn store_then_load_round_trips() {
        let cache = temp_cache("roundtrip");
        assert_eq!(cache.load("abc"), None);
        cache.store("abc", &artifacts("one")).expect("store");
        assert_eq!(cache.load("abc"), Some(artifacts("one")));
        for file in [PTX_FILE, CUBIN_FILE, LOG_FILE] {
            assert!(cache.entry_dir("abc").join(file).is_file(), "{file}");
        }
        let _ = fs::remove_dir_all(cache.dir());
    }

    #[test]
    fn second_writer_keeps_the_first_entry_and_leaves_no_temp_dirs() {
        let cache = temp_cache("race");
        cache.store("k", &artifacts("first")).expect("first store");
        cache.store("k", &artifacts("second")).expect("losing writer still succeeds");
        assert_eq!(cache.load("k").map(|a| a.ptx), Some("// ptx first".to_string()));
        let leftovers: Vec<_> = fs::read_dir(cache.dir())
            .expect("read cache dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
        let _ = fs::remove_dir_all(cache.dir());
    }

    #[test]
    fn concurrent_writers_all_succeed() {
        let cache = temp_cache("threads");
        std::thread::scope(|s| {
            for i in 0..8 {
                let cache = &cache;
                s.spawn(move || cache.store("same", &artifacts(&i.to_string())).expect("store"));
            }
        });
        let stored = cache.load("same").expect("one entry");
        assert!(stored.ptx.starts_with("// ptx "));
        let _ = fs::remove_dir_all(cache.dir());
    }

    #[test]
    fn damaged_entry_is_a_miss_and_gets_replaced() {
        let cache = temp_cache("partial");
        let entry = cache.entry_dir("p");
        fs::create_dir_all(&entry).expect("mkdir");
        fs::write(entry.join(PTX_FILE), "x").expect("write");
        assert_eq!(cache.load("p"), None);
        cache.store("p", &artifacts("healed")).expect("store replaces the damaged entry");
        assert_eq!(cache.load("p"), Some(artifacts("healed")));
        let _ = fs::remove_dir_all(cache.dir());
    }
}
