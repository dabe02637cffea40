//! Solved tables kept on disk: versioned, checksummed files in a cache
//! directory, written atomically.
//!
//! A table is built once and loaded on every later use. A file is trusted
//! only if its header names the expected kind and version and its payload
//! matches the checksum; anything else (a torn write, a bit flip, a file
//! of an older format) is reported as [`CacheError::Invalid`] so the caller
//! rebuilds it. Writers write a temporary file in the same directory and
//! rename it over the target, so two processes building the same table
//! never leave a half-written file: the last rename wins, and both files
//! were whole.
//!
//! File layout (little-endian): the magic `ENDGAME\x01`, the kind's name
//! length (u16) and name, the kind's version (u32), the payload length
//! (u64), the payload's CRC-32 (u32), then the payload.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"ENDGAME\x01";

/// Why a table could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// No file yet.
    #[error("not built yet")]
    Missing,
    /// A file that must not be trusted (rebuild it).
    #[error("{0}")]
    Invalid(String),
    /// The file system failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// The cache directory: `explicit` if given, else `$ENDGAME_CACHE`, else
/// `$XDG_CACHE_HOME/endgame`, else `$HOME/.cache/endgame`, else
/// `.endgame-cache` in the working directory.
pub fn dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = env("ENDGAME_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = env("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("endgame");
    }
    if let Some(p) = env("HOME") {
        return PathBuf::from(p).join(".cache").join("endgame");
    }
    PathBuf::from(".endgame-cache")
}

/// The header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// What the payload is (e.g. `sim-k8-standard`).
    pub kind: String,
    /// The version of the payload's format for that kind.
    pub version: u32,
    /// Payload bytes.
    pub len: u64,
    /// CRC-32 of the payload.
    pub crc: u32,
}

/// Writes `payload` to `path` as a table of `kind` and `version`, through a
/// temporary file renamed into place (the directory is created if needed).
pub fn write(path: &Path, kind: &str, version: u32, payload: &[u8]) -> io::Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "table".into());
    let tmp = parent.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let result = (|| {
        let mut f = io::BufWriter::new(fs::File::create(&tmp)?);
        f.write_all(MAGIC)?;
        let kind_bytes = kind.as_bytes();
        let kind_len = u16::try_from(kind_bytes.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "kind name too long"))?;
        f.write_all(&kind_len.to_le_bytes())?;
        f.write_all(kind_bytes)?;
        f.write_all(&version.to_le_bytes())?;
        f.write_all(&(payload.len() as u64).to_le_bytes())?;
        f.write_all(&crc32fast::hash(payload).to_le_bytes())?;
        f.write_all(payload)?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn read_header(f: &mut impl Read) -> Result<Header, CacheError> {
    let bad = |what: &str| CacheError::Invalid(what.to_string());
    let mut magic = [0u8; 8];
    f.read_exact(&mut magic)
        .map_err(|_| bad("too short for a header"))?;
    if &magic != MAGIC {
        return Err(bad("not an Endgame table (bad magic)"));
    }
    let mut b2 = [0u8; 2];
    f.read_exact(&mut b2).map_err(|_| bad("truncated header"))?;
    let mut kind = vec![0u8; u16::from_le_bytes(b2) as usize];
    f.read_exact(&mut kind)
        .map_err(|_| bad("truncated header"))?;
    let kind = String::from_utf8(kind).map_err(|_| bad("kind is not UTF-8"))?;
    let mut b4 = [0u8; 4];
    let mut b8 = [0u8; 8];
    f.read_exact(&mut b4).map_err(|_| bad("truncated header"))?;
    let version = u32::from_le_bytes(b4);
    f.read_exact(&mut b8).map_err(|_| bad("truncated header"))?;
    let len = u64::from_le_bytes(b8);
    f.read_exact(&mut b4).map_err(|_| bad("truncated header"))?;
    Ok(Header {
        kind,
        version,
        len,
        crc: u32::from_le_bytes(b4),
    })
}

/// Reads only the header of a table file (for listings).
pub fn header(path: &Path) -> Result<Header, CacheError> {
    let mut f = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CacheError::Missing),
        Err(e) => return Err(e.into()),
    };
    read_header(&mut f)
}

/// Reads the payload of a table of `kind` and `version`, checking the
/// header and the checksum.
pub fn read(path: &Path, kind: &str, version: u32) -> Result<Vec<u8>, CacheError> {
    let mut f = match fs::File::open(path) {
        Ok(f) => io::BufReader::new(f),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CacheError::Missing),
        Err(e) => return Err(e.into()),
    };
    let h = read_header(&mut f)?;
    if h.kind != kind {
        return Err(CacheError::Invalid(format!(
            "holds a '{}' table, not '{kind}'",
            h.kind
        )));
    }
    if h.version != version {
        return Err(CacheError::Invalid(format!(
            "format version {} (this build reads {version})",
            h.version
        )));
    }
    let file_len = fs::metadata(path)?.len();
    if file_len < h.len {
        return Err(CacheError::Invalid("truncated payload".into()));
    }
    let mut payload = Vec::with_capacity(h.len as usize);
    (&mut f).take(h.len).read_to_end(&mut payload)?;
    if payload.len() as u64 != h.len {
        return Err(CacheError::Invalid("truncated payload".into()));
    }
    let mut rest = [0u8; 1];
    if f.read(&mut rest)? != 0 {
        return Err(CacheError::Invalid("bytes after the payload".into()));
    }
    if crc32fast::hash(&payload) != h.crc {
        return Err(CacheError::Invalid("checksum mismatch".into()));
    }
    Ok(payload)
}

/// How [`load_or_build`] got its table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read from the cache.
    Loaded,
    /// Built now (no file yet) and written.
    Built,
    /// Built now because the file could not be trusted (the reason); the
    /// damaged file was replaced.
    Rebuilt(String),
}

/// The payload of `path`, or `build()`'s written there when the file is
/// missing or cannot be trusted. A write failure is returned with the
/// built payload unwritten: the caller decides whether a table that only
/// lives in memory is good enough (it is for a hint).
pub fn load_or_build(
    path: &Path,
    kind: &str,
    version: u32,
    build: impl FnOnce() -> Vec<u8>,
) -> (Vec<u8>, Source, Option<io::Error>) {
    let source = match read(path, kind, version) {
        Ok(p) => return (p, Source::Loaded, None),
        Err(CacheError::Missing) => Source::Built,
        Err(e) => Source::Rebuilt(e.to_string()),
    };
    let payload = build();
    let err = write(path, kind, version, &payload).err();
    (payload, source, err)
}

/// Where a game's solved table stands.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "state")]
pub enum TableState {
    /// No valid file in the cache, nothing in memory.
    Missing,
    /// Being built; `progress` from 0 to 1 when known.
    Building {
        /// Share done, when the builder can tell.
        progress: Option<f64>,
    },
    /// A valid file is in the cache (not loaded yet).
    Cached,
    /// Loaded and answering.
    Ready,
    /// The last build failed (why).
    Failed {
        /// The error.
        error: String,
    },
}

/// One solved table a game's analysis service can keep.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TableInfo {
    /// Its name, also the file's stem (e.g. `sim-k8-standard`).
    pub name: String,
    /// What it holds, in words.
    pub about: String,
    /// The file in the cache directory.
    pub file: PathBuf,
    /// Where it stands.
    #[serde(flatten)]
    pub state: TableState,
    /// Bytes of the file, when it exists.
    pub bytes: Option<u64>,
    /// About the most memory building it takes (the process's peak, as
    /// measured), when that is more than a few hundred megabytes: a
    /// server builds in the background only tables within its budget.
    pub build_bytes: Option<u64>,
}

/// What building (or loading) one table did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BuildReport {
    /// The table.
    pub name: String,
    /// `loaded`, `built` or `rebuilt`.
    pub source: String,
    /// Why a file was rebuilt (it could not be trusted).
    pub warning: Option<String>,
    /// Entries (positions) in the table.
    pub entries: u64,
    /// Bytes of the file written or read.
    pub bytes: u64,
    /// Wall time in milliseconds.
    pub time_ms: f64,
}

impl Source {
    /// `loaded`, `built` or `rebuilt`.
    pub fn name(&self) -> &'static str {
        match self {
            Source::Loaded => "loaded",
            Source::Built => "built",
            Source::Rebuilt(_) => "rebuilt",
        }
    }

    /// Why the file was rebuilt, if it was.
    pub fn warning(&self) -> Option<String> {
        match self {
            Source::Rebuilt(w) => Some(w.clone()),
            _ => None,
        }
    }
}

/// A game's analysis service as the cache commands and the server see
/// it: the tables it can keep, and building one by name.
pub trait Tables: Send + Sync {
    /// Every table the service can keep, with its state.
    fn tables(&self) -> Vec<TableInfo>;
    /// Loads the table `name` from the cache, or builds and writes it;
    /// afterwards the service answers from it. `None`: not a table of
    /// this service. Building checks `budget` (cancel, deadline) itself.
    fn build(
        &self,
        name: &str,
        budget: &crate::budget::Budget,
    ) -> Option<Result<BuildReport, CacheError>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("endgame-cache-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_written_table_reads_back() {
        let d = scratch("rt");
        let p = d.join("t.bin");
        write(&p, "toy", 3, b"hello table").unwrap();
        assert_eq!(read(&p, "toy", 3).unwrap(), b"hello table");
        let h = header(&p).unwrap();
        assert_eq!((h.kind.as_str(), h.version, h.len), ("toy", 3, 11));
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn damaged_or_foreign_files_are_never_trusted() {
        let d = scratch("bad");
        let p = d.join("t.bin");
        assert!(matches!(read(&p, "toy", 1), Err(CacheError::Missing)));
        write(&p, "toy", 1, &[7u8; 1000]).unwrap();
        assert!(matches!(read(&p, "toy", 2), Err(CacheError::Invalid(_))));
        assert!(matches!(read(&p, "other", 1), Err(CacheError::Invalid(_))));
        // Every single flipped bit and every truncation is caught.
        let good = fs::read(&p).unwrap();
        for i in (0..good.len()).step_by(37) {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            fs::write(&p, &bad).unwrap();
            assert!(read(&p, "toy", 1).is_err(), "flip at byte {i} not caught");
            fs::write(&p, &good[..i]).unwrap();
            assert!(read(&p, "toy", 1).is_err(), "truncation at {i} not caught");
        }
        let mut longer = good.clone();
        longer.push(0);
        fs::write(&p, &longer).unwrap();
        assert!(read(&p, "toy", 1).is_err());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_damaged_file_is_rebuilt_and_replaced() {
        let d = scratch("rebuild");
        let p = d.join("t.bin");
        let (v, s, e) = load_or_build(&p, "toy", 1, || b"one".to_vec());
        assert_eq!(
            (v.as_slice(), s, e.is_none()),
            (&b"one"[..], Source::Built, true)
        );
        let (v, s, _) = load_or_build(&p, "toy", 1, || unreachable!("loaded, not built"));
        assert_eq!((v.as_slice(), s), (&b"one"[..], Source::Loaded));
        fs::write(&p, b"ENDGAME\x01garbage").unwrap();
        let (v, s, _) = load_or_build(&p, "toy", 1, || b"two".to_vec());
        assert_eq!(v, b"two");
        assert!(matches!(s, Source::Rebuilt(_)));
        assert_eq!(read(&p, "toy", 1).unwrap(), b"two");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn concurrent_writers_leave_one_whole_file() {
        let d = scratch("race");
        let p = d.join("t.bin");
        std::thread::scope(|s| {
            for i in 0..8u8 {
                let p = &p;
                s.spawn(move || write(p, "toy", 1, &vec![i; 200_000]).unwrap());
            }
        });
        let v = read(&p, "toy", 1).unwrap();
        assert_eq!(v.len(), 200_000);
        assert!(v.iter().all(|&b| b == v[0]));
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }
}
