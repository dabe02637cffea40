//! Checkpoints: each process writes its share of every finished layer to
//! a file of its own, and a restarted cluster resumes from the last layer
//! that every process finished. Neither timely nor TCP survives a dead
//! peer, so this is how a long count outlives one.
//!
//! A file is `layer-DDDD-process-I-of-N.ckpt`: a header (magic and format
//! version, the count's fingerprint, N, I, the depth, the layer's summed
//! figures, how it was split and how its positions are written), the
//! share, and a CRC-32 of everything before it. A puzzle with dense keys
//! writes each position as its key in the fewest whole bytes that hold
//! the key's bits (5 bytes for the 33-hole boards, 6 for the 41-hole
//! diamond, whose positions take 16 bytes in memory), read back through
//! the same keys; any other puzzle writes its positions as bincode. It
//! is written under a temporary name, synced and renamed, so that a
//! process killed while writing leaves no file under the final name; a
//! file that still fails its checksum (a damaged disk) counts as not
//! written, and the layer is computed again.

use crate::ClusterError;
use endgame_core::dense::DenseKeys;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// First bytes of every checkpoint file: "EGCKPT", a zero, then the
/// format version ([`VERSION`]).
const MAGIC_PREFIX: [u8; 7] = *b"EGCKPT\x00";
/// The format version: 3, shares of a puzzle with dense keys as keys (a
/// ninth header word gives their bytes); version 2 wrote every share as
/// bincode positions, version 1 also split every layer by hash.
const VERSION: u8 = 3;
const MAGIC: [u8; 8] = {
    let mut m = [0u8; 8];
    let mut i = 0;
    while i < 7 {
        m[i] = MAGIC_PREFIX[i];
        i += 1;
    }
    m[7] = VERSION;
    m
};
/// Header words after the magic (see [`Header`], then the bytes of a
/// key, 0 when the share is bincode positions).
const HEADER_WORDS: usize = 9;

/// Bytes a key of `dk`'s puzzle takes in a checkpoint: the fewest whole
/// bytes holding its bits; 0 (positions as bincode) without dense keys.
pub(crate) fn key_bytes<T>(dk: Option<&dyn DenseKeys<T>>) -> usize {
    dk.map_or(0, |dk| dk.key_bits().div_ceil(8).clamp(1, 8) as usize)
}

/// Where a cluster keeps its checkpoints, and what count they belong to.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The directory (created when missing); processes of one machine may
    /// share it, their files have distinct names.
    pub dir: PathBuf,
    /// Fingerprint of the count (board, goal, options, program version):
    /// files with another one are refused.
    pub fingerprint: u64,
}

/// What a checkpoint file says besides its share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) fingerprint: u64,
    pub(crate) peers: u64,
    pub(crate) process: u64,
    pub(crate) depth: u64,
    /// The layer's positions up to symmetry, over every process.
    pub(crate) reduced: u64,
    /// The layer's positions counted without symmetry, over every process.
    pub(crate) raw: u64,
    /// Whether the layer holds a goal (on any process).
    pub(crate) goal: bool,
    /// The class (bit count, invariant parities) of a layer split among
    /// the processes by rank block; `None` when split by hash.
    pub(crate) ranked: Option<(u32, u64)>,
}

impl Header {
    fn words(&self, key_bytes: usize) -> [u64; HEADER_WORDS] {
        [
            self.fingerprint,
            self.peers,
            self.process,
            self.depth,
            self.reduced,
            self.raw,
            self.goal as u64,
            // Bit 0 says ranked; the bit count (at most 48) and the
            // parities (at most 8 bits) follow.
            self.ranked
                .map_or(0, |(k, par)| 1 | (k as u64) << 8 | par << 16),
            key_bytes as u64,
        ]
    }

    fn from_words(w: &[u64; HEADER_WORDS - 1]) -> Header {
        Header {
            fingerprint: w[0],
            peers: w[1],
            process: w[2],
            depth: w[3],
            reduced: w[4],
            raw: w[5],
            goal: w[6] != 0,
            ranked: (w[7] & 1 == 1).then_some(((w[7] >> 8 & 0xFF) as u32, w[7] >> 16)),
        }
    }
}

fn file_name(depth: usize, process: usize, peers: usize) -> String {
    format!("layer-{depth:04}-process-{process}-of-{peers}.ckpt")
}

/// The (depth, process, peers) a checkpoint file's name gives.
fn parse_name(name: &str) -> Option<(usize, usize, usize)> {
    let rest = name.strip_prefix("layer-")?.strip_suffix(".ckpt")?;
    let (depth, rest) = rest.split_once("-process-")?;
    let (process, peers) = rest.split_once("-of-")?;
    Some((
        depth.parse().ok()?,
        process.parse().ok()?,
        peers.parse().ok()?,
    ))
}

/// A writer that keeps the CRC-32 of what passes through it.
struct Crc<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Crc<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Crc<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

fn io(path: &Path, e: impl std::fmt::Display) -> ClusterError {
    ClusterError::Config(format!("checkpoint {}: {e}", path.display()))
}

impl Checkpoint {
    /// Checks the directory before the cluster forms: created when
    /// missing; every checkpoint file in it must belong to this count, to
    /// a cluster of `peers` processes and to this format version, or the
    /// directory is refused (a one-line error) rather than mixed with
    /// another count's layers.
    pub fn check(&self, peers: usize) -> Result<(), ClusterError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        let entries = std::fs::read_dir(&self.dir).map_err(|e| io(&self.dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(&self.dir, e))?;
            let name = entry.file_name();
            let Some((_, _, n)) = name.to_str().and_then(parse_name) else {
                continue;
            };
            let path = entry.path();
            if n != peers {
                return Err(ClusterError::Config(format!(
                    "checkpoint {} was written by a cluster of {n} processes, this one has \
                     {peers}: use another directory",
                    path.display()
                )));
            }
            match read_header(&path) {
                Ok((h, _)) if h.fingerprint == self.fingerprint => {}
                // Too short for a header: damaged, computed again.
                Err(Short) => {}
                Ok(_) => {
                    return Err(ClusterError::Config(format!(
                        "checkpoint {} belongs to another count (board, goal, options or \
                         version differ): use another directory",
                        path.display()
                    )))
                }
                Err(Version(v)) => {
                    return Err(ClusterError::Config(format!(
                        "checkpoint {} is not a checkpoint of this version (format {v}, this \
                         program reads {VERSION}): use another directory",
                        path.display()
                    )))
                }
                Err(Unknown) => {
                    return Err(ClusterError::Config(format!(
                        "checkpoint {} is not a checkpoint of this version",
                        path.display()
                    )))
                }
            }
        }
        Ok(())
    }

    fn path(&self, depth: usize, process: usize, peers: usize) -> PathBuf {
        self.dir.join(file_name(depth, process, peers))
    }

    /// Writes this process's share of a finished layer: to a temporary
    /// name, synced to the disk, then renamed; as keys when `dk` is given.
    #[cfg(test)]
    pub(crate) fn write<T: Serialize>(
        &self,
        h: &Header,
        dk: Option<&dyn DenseKeys<T>>,
        share: &[T],
    ) -> Result<(), ClusterError> {
        self.write_chunks(h, share.len() as u64, dk, |f| {
            f(share);
            Ok(())
        })
    }

    /// [`Checkpoint::write`] of a share of `len` positions that `chunks`
    /// hands over in order (a spilled share streams from its file): its
    /// length (a little-endian u64), then each position's key in
    /// [`key_bytes`] bytes (little-endian) when the puzzle has dense keys
    /// (`dk`), else each position as bincode (the bytes of bincode's
    /// whole vector).
    pub(crate) fn write_chunks<T: Serialize>(
        &self,
        h: &Header,
        len: u64,
        dk: Option<&dyn DenseKeys<T>>,
        chunks: impl FnOnce(&mut dyn FnMut(&[T]) -> bool) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let path = self.path(h.depth as usize, h.process as usize, h.peers as usize);
        let tmp = path.with_extension("ckpt.tmp");
        let file = std::fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
        let mut w = Crc {
            inner: BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
        };
        let width = key_bytes(dk);
        let mut head = Vec::with_capacity(8 * (HEADER_WORDS + 2));
        head.extend_from_slice(&MAGIC);
        for x in h.words(width) {
            head.extend_from_slice(&x.to_le_bytes());
        }
        head.extend_from_slice(&len.to_le_bytes());
        w.write_all(&head).map_err(|e| io(&tmp, e))?;
        let mut failed = Ok(());
        let mut written = 0u64;
        let (mut keys, mut bytes) = (Vec::new(), Vec::new());
        chunks(&mut |c| {
            let done = match dk {
                Some(dk) => {
                    keys.clear();
                    dk.keys(c, &mut keys);
                    bytes.clear();
                    for k in &keys {
                        debug_assert!(width == 8 || k >> (8 * width) == 0, "a key past its bits");
                        bytes.extend_from_slice(&k.to_le_bytes()[..width]);
                    }
                    w.write_all(&bytes).map_err(|e| io(&tmp, e))
                }
                None => c
                    .iter()
                    .try_for_each(|t| bincode::serialize_into(&mut w, t).map_err(|e| io(&tmp, e))),
            };
            if let Err(e) = done {
                failed = Err(e);
                return false;
            }
            written += c.len() as u64;
            true
        })?;
        failed?;
        if written != len {
            return Err(io(&tmp, "a share changed length while written"));
        }
        let crc = w.crc.clone().finalize();
        let mut inner = w.inner;
        inner
            .write_all(&crc.to_le_bytes())
            .and_then(|()| inner.flush())
            .map_err(|e| io(&tmp, e))?;
        let file = inner.into_inner().map_err(|e| io(&tmp, e.error()))?;
        file.sync_all().map_err(|e| io(&tmp, e))?;
        drop(file);
        std::fs::rename(&tmp, &path).map_err(|e| io(&path, e))
    }

    /// This process's shares of layers 0, 1, … as written, up to the first
    /// one missing or damaged, with their headers; keys decoded through
    /// `dk` (a file written otherwise than `dk` would write it counts as
    /// damaged). Leftover temporary files of this process are removed.
    pub(crate) fn load<T: DeserializeOwned>(
        &self,
        process: usize,
        peers: usize,
        dk: Option<&dyn DenseKeys<T>>,
    ) -> Vec<(Header, Vec<T>)> {
        let tmp = |d: usize| self.path(d, process, peers).with_extension("ckpt.tmp");
        let mut out = Vec::new();
        for depth in 0.. {
            let _ = std::fs::remove_file(tmp(depth));
            match read_file(&self.path(depth, process, peers), dk) {
                Ok((h, share))
                    if h.fingerprint == self.fingerprint
                        && h.depth == depth as u64
                        && h.process == process as u64
                        && h.peers == peers as u64 =>
                {
                    out.push((h, share))
                }
                _ => break,
            }
        }
        out
    }
}

/// Why a file's header could not be read.
#[derive(Debug)]
enum BadHeader {
    /// The file ends (or cannot be read) before the header does.
    Short,
    /// A checkpoint of another format version.
    Version(u8),
    /// Another magic: not a checkpoint.
    Unknown,
}
use BadHeader::{Short, Unknown, Version};

/// The header and the bytes of a key (0: bincode positions).
fn read_header_from(r: &mut impl Read) -> Result<(Header, usize), BadHeader> {
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic).map_err(|_| Short)?;
    if magic[..7] != MAGIC_PREFIX {
        return Err(Unknown);
    }
    if magic[7] != VERSION {
        return Err(Version(magic[7]));
    }
    let mut b = [0u8; 8 * HEADER_WORDS];
    r.read_exact(&mut b).map_err(|_| Short)?;
    let mut w = [0u64; HEADER_WORDS];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    }
    let width = w[HEADER_WORDS - 1];
    let words = w[..HEADER_WORDS - 1]
        .try_into()
        .expect("the header's words");
    Ok((Header::from_words(words), width.min(9) as usize))
}

fn read_header(path: &Path) -> Result<(Header, usize), BadHeader> {
    let mut f = std::fs::File::open(path).map_err(|_| Short)?;
    read_header_from(&mut f)
}

/// Keys decoded at a time.
const LOAD_CHUNK: usize = 1 << 16;

/// A whole checkpoint file, its checksum verified, its keys decoded
/// through `dk`.
fn read_file<T: DeserializeOwned>(
    path: &Path,
    dk: Option<&dyn DenseKeys<T>>,
) -> Result<(Header, Vec<T>), String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut r = Crc {
        inner: BufReader::with_capacity(1 << 20, f),
        crc: crc32fast::Hasher::new(),
    };
    let (h, width) = read_header_from(&mut r).map_err(|e| format!("{e:?}"))?;
    if width != key_bytes(dk) {
        return Err(format!("keys of {width} bytes, expected {}", key_bytes(dk)));
    }
    let share: Vec<T> = match dk {
        None => bincode::deserialize_from(&mut r).map_err(|e| e.to_string())?,
        Some(dk) => {
            let mut n = [0u8; 8];
            r.read_exact(&mut n).map_err(|e| e.to_string())?;
            let n = u64::from_le_bytes(n);
            // The length is checked against the file's size before
            // anything is allocated for it.
            let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
            let body = size.saturating_sub(8 * (HEADER_WORDS as u64 + 2) + 4);
            if n.checked_mul(width as u64) != Some(body) {
                return Err("length and size disagree".into());
            }
            let mut share = Vec::with_capacity(n as usize);
            let mut bytes = vec![0u8; width * LOAD_CHUNK];
            let mut keys = Vec::with_capacity(LOAD_CHUNK);
            let mut left = n as usize;
            while left > 0 {
                let m = left.min(LOAD_CHUNK);
                r.read_exact(&mut bytes[..m * width])
                    .map_err(|e| e.to_string())?;
                keys.clear();
                keys.extend(bytes[..m * width].chunks_exact(width).map(|b| {
                    let mut k = [0u8; 8];
                    k[..width].copy_from_slice(b);
                    u64::from_le_bytes(k)
                }));
                dk.positions(&keys, &mut share);
                left -= m;
            }
            share
        }
    };
    let want = r.crc.clone().finalize();
    let mut tail = [0u8; 4];
    r.inner.read_exact(&mut tail).map_err(|e| e.to_string())?;
    if u32::from_le_bytes(tail) != want {
        return Err("checksum mismatch".into());
    }
    let mut extra = [0u8; 1];
    if r.inner.read(&mut extra).map_err(|e| e.to_string())? != 0 {
        return Err("trailing bytes".into());
    }
    Ok((h, share))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(depth: u64) -> Header {
        Header {
            fingerprint: 42,
            peers: 2,
            process: 1,
            depth,
            reduced: 10,
            raw: 80,
            goal: depth == 1,
            ranked: (depth == 2).then_some((17, 0b1011)),
        }
    }

    #[test]
    fn names_parse_back() {
        assert_eq!(parse_name(&file_name(7, 3, 12)), Some((7, 3, 12)));
        assert_eq!(parse_name("layer-0001-process-1-of-2.ckpt.tmp"), None);
        assert_eq!(parse_name("notes.txt"), None);
    }

    #[test]
    fn layers_load_back_up_to_the_first_damaged_one() {
        let dir = tempfile::tempdir().expect("a directory");
        let ck = Checkpoint {
            dir: dir.path().to_path_buf(),
            fingerprint: 42,
        };
        let shares: Vec<Vec<u64>> = vec![vec![1], vec![2, 3, 5], vec![8, 13], vec![21]];
        for (d, s) in shares.iter().enumerate() {
            ck.write(&header(d as u64), None, s).expect("written");
        }
        let back: Vec<(Header, Vec<u64>)> = ck.load(1, 2, None);
        assert_eq!(back.len(), 4);
        for (d, (h, s)) in back.iter().enumerate() {
            assert_eq!(*h, header(d as u64));
            assert_eq!(s, &shares[d]);
        }
        // Another process's files, or another cluster size's, are not
        // this process's.
        assert!(ck.load::<u64>(0, 2, None).is_empty());
        assert!(ck.load::<u64>(1, 3, None).is_empty());
        // One flipped bit in layer 2's share: layers 0 and 1 only.
        let p = ck.path(2, 1, 2);
        let mut bytes = std::fs::read(&p).expect("read");
        let at = bytes.len() - 6;
        bytes[at] ^= 1;
        std::fs::write(&p, &bytes).expect("written");
        assert_eq!(ck.load::<u64>(1, 2, None).len(), 2);
        // A truncated file (as a half-written one would be) likewise.
        std::fs::write(&p, &bytes[..bytes.len() / 2]).expect("written");
        assert_eq!(ck.load::<u64>(1, 2, None).len(), 2);
        assert!(ck.check(2).is_ok());
        let other = Checkpoint {
            fingerprint: 43,
            ..ck.clone()
        };
        let e = other.check(2).expect_err("another count").to_string();
        assert!(e.contains("another count"), "{e}");
        let e = ck.check(3).expect_err("another size").to_string();
        assert!(e.contains("cluster of 2 processes"), "{e}");
    }

    /// Positions of 16 bytes whose keys have 41 bits (as the 41-hole
    /// diamond's on its 9 × 9 grid): a position is its key shifted up.
    struct Wide;
    impl DenseKeys<u128> for Wide {
        fn key_bits(&self) -> u32 {
            41
        }
        fn invariants(&self) -> Vec<u64> {
            Vec::new()
        }
        fn key(&self, p: &u128) -> u64 {
            (p >> 60) as u64
        }
        fn positions(&self, keys: &[u64], out: &mut Vec<u128>) {
            out.extend(keys.iter().map(|&k| (k as u128) << 60));
        }
        fn child_keys(&self, _: &[u128], _: &mut Vec<u64>) {
            unreachable!("not stepped")
        }
        fn neighbour_keys(&self, _: &[u128], _: bool, _: &mut Vec<u64>, _: &mut Vec<u32>) {
            unreachable!("not stepped")
        }
    }

    /// A share of a puzzle with dense keys is written as keys (6 bytes
    /// each for 41 bits, against 16 a position) and read back as the
    /// same positions, in order; the same share without keys takes more
    /// than twice the bytes; a file of another key width, or of another
    /// format version, is not loaded, and the version is named.
    #[test]
    fn shares_are_written_as_keys_and_read_back() {
        let dir = tempfile::tempdir().expect("a directory");
        let ck = Checkpoint {
            dir: dir.path().to_path_buf(),
            fingerprint: 42,
        };
        let share: Vec<u128> = (0..100_000u64)
            .map(|i| ((i * 2_654_435_761) % (1 << 41)) as u128)
            .map(|k| k << 60)
            .collect();
        let wide: &dyn DenseKeys<u128> = &Wide;
        assert_eq!(key_bytes(Some(wide)), 6);
        ck.write(&header(0), Some(wide), &share).expect("written");
        let p = ck.path(0, 1, 2);
        let keyed = std::fs::metadata(&p).expect("a file").len();
        assert_eq!(
            keyed,
            8 + 8 * HEADER_WORDS as u64 + 8 + 6 * share.len() as u64 + 4
        );
        let back = ck.load(1, 2, Some(wide));
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].0, header(0));
        assert_eq!(back[0].1, share);
        // Read as another puzzle's (positions): not loaded.
        assert!(ck.load::<u128>(1, 2, None).is_empty());
        ck.write(&header(0), None, &share).expect("written");
        let plain = std::fs::metadata(&p).expect("a file").len();
        assert!(2 * keyed < plain, "{keyed} {plain}");
        assert!(ck.load::<u128>(1, 2, Some(wide)).is_empty());
        // A file of format version 2 (the version before keys).
        ck.write(&header(0), Some(wide), &share).expect("written");
        let mut bytes = std::fs::read(&p).expect("read");
        bytes[7] = 2;
        std::fs::write(&p, &bytes).expect("written");
        assert!(ck.load(1, 2, Some(wide)).is_empty());
        let e = ck.check(2).expect_err("an old format").to_string();
        assert!(e.contains("format 2, this program reads 3"), "{e}");
        // Not a checkpoint at all.
        bytes[0] = b'X';
        std::fs::write(&p, &bytes).expect("written");
        let e = ck.check(2).expect_err("not a checkpoint").to_string();
        assert!(e.contains("not a checkpoint of this version"), "{e}");
    }
}
