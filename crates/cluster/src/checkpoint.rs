//! Checkpoints: each process writes its share of every finished layer to
//! a file of its own, and a restarted cluster resumes from the last layer
//! that every process finished. Neither timely nor TCP survives a dead
//! peer, so this is how a long count outlives one.
//!
//! A file is `layer-DDDD-process-I-of-N.ckpt`: a header (magic and format
//! version, the count's fingerprint, N, I, the depth and the layer's
//! summed figures), the share as bincode, and a CRC-32 of everything
//! before it. It is written under a temporary name, synced and renamed,
//! so that a process killed while writing leaves no file under the final
//! name; a file that still fails its checksum (a damaged disk) counts as
//! not written, and the layer is computed again.

use crate::ClusterError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// First bytes of every checkpoint file: "EGCKPT", then the format
/// version (2: the header says how the layer was split among the
/// processes; version 1 split every layer by hash).
const MAGIC: [u8; 8] = *b"EGCKPT\x00\x02";
/// Header words after the magic (see [`Header`]).
const HEADER_WORDS: usize = 8;

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
    fn words(&self) -> [u64; HEADER_WORDS] {
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
        ]
    }

    fn from_words(w: &[u64; HEADER_WORDS]) -> Header {
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
    /// missing; every checkpoint file in it must belong to this count and
    /// to a cluster of `peers` processes, or the directory is refused (a
    /// one-line error) rather than mixed with another count's layers.
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
                Ok(h) if h.fingerprint == self.fingerprint => {}
                // Too short for a header: damaged, computed again.
                Err(Short) => {}
                Ok(_) => {
                    return Err(ClusterError::Config(format!(
                        "checkpoint {} belongs to another count (board, goal, options or \
                         version differ): use another directory",
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
    /// name, synced to the disk, then renamed.
    #[cfg(test)]
    pub(crate) fn write<T: Serialize>(&self, h: &Header, share: &[T]) -> Result<(), ClusterError> {
        self.write_chunks(h, share.len() as u64, |f| {
            f(share);
            Ok(())
        })
    }

    /// [`Checkpoint::write`] of a share of `len` positions that `chunks`
    /// hands over in order (a spilled share streams from its file): the
    /// bytes are bincode's of the whole vector, its length then each
    /// position.
    pub(crate) fn write_chunks<T: Serialize>(
        &self,
        h: &Header,
        len: u64,
        chunks: impl FnOnce(&mut dyn FnMut(&[T]) -> bool) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let path = self.path(h.depth as usize, h.process as usize, h.peers as usize);
        let tmp = path.with_extension("ckpt.tmp");
        let file = std::fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
        let mut w = Crc {
            inner: BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
        };
        let mut head = Vec::with_capacity(8 * (HEADER_WORDS + 1));
        head.extend_from_slice(&MAGIC);
        for x in h.words() {
            head.extend_from_slice(&x.to_le_bytes());
        }
        w.write_all(&head).map_err(|e| io(&tmp, e))?;
        // bincode writes a vector's length as a little-endian u64.
        w.write_all(&len.to_le_bytes()).map_err(|e| io(&tmp, e))?;
        let mut failed = Ok(());
        let mut written = 0u64;
        chunks(&mut |c| {
            for t in c {
                if let Err(e) = bincode::serialize_into(&mut w, t) {
                    failed = Err(io(&tmp, e));
                    return false;
                }
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
    /// one missing or damaged, with their headers. Leftover temporary
    /// files of this process are removed.
    pub(crate) fn load<T: DeserializeOwned>(
        &self,
        process: usize,
        peers: usize,
    ) -> Vec<(Header, Vec<T>)> {
        let tmp = |d: usize| self.path(d, process, peers).with_extension("ckpt.tmp");
        let mut out = Vec::new();
        for depth in 0.. {
            let _ = std::fs::remove_file(tmp(depth));
            match read_file(&self.path(depth, process, peers)) {
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
    /// Another magic: another format or version, or not a checkpoint.
    Unknown,
}
use BadHeader::{Short, Unknown};

fn read_header_from(r: &mut impl Read) -> Result<Header, BadHeader> {
    let mut b = [0u8; 8 * (HEADER_WORDS + 1)];
    r.read_exact(&mut b).map_err(|_| Short)?;
    if b[..8] != MAGIC {
        return Err(Unknown);
    }
    let mut w = [0u64; HEADER_WORDS];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u64::from_le_bytes(b[8 + 8 * i..16 + 8 * i].try_into().expect("8 bytes"));
    }
    Ok(Header::from_words(&w))
}

fn read_header(path: &Path) -> Result<Header, BadHeader> {
    let mut f = std::fs::File::open(path).map_err(|_| Short)?;
    read_header_from(&mut f)
}

/// A whole checkpoint file, its checksum verified.
fn read_file<T: DeserializeOwned>(path: &Path) -> Result<(Header, Vec<T>), String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut r = Crc {
        inner: BufReader::with_capacity(1 << 20, f),
        crc: crc32fast::Hasher::new(),
    };
    let h = read_header_from(&mut r).map_err(|e| format!("{e:?}"))?;
    let share: Vec<T> = bincode::deserialize_from(&mut r).map_err(|e| e.to_string())?;
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
            ck.write(&header(d as u64), s).expect("written");
        }
        let back: Vec<(Header, Vec<u64>)> = ck.load(1, 2);
        assert_eq!(back.len(), 4);
        for (d, (h, s)) in back.iter().enumerate() {
            assert_eq!(*h, header(d as u64));
            assert_eq!(s, &shares[d]);
        }
        // Another process's files, or another cluster size's, are not
        // this process's.
        assert!(ck.load::<u64>(0, 2).is_empty());
        assert!(ck.load::<u64>(1, 3).is_empty());
        // One flipped bit in layer 2's share: layers 0 and 1 only.
        let p = ck.path(2, 1, 2);
        let mut bytes = std::fs::read(&p).expect("read");
        let at = bytes.len() - 6;
        bytes[at] ^= 1;
        std::fs::write(&p, &bytes).expect("written");
        assert_eq!(ck.load::<u64>(1, 2).len(), 2);
        // A truncated file (as a half-written one would be) likewise.
        std::fs::write(&p, &bytes[..bytes.len() / 2]).expect("written");
        assert_eq!(ck.load::<u64>(1, 2).len(), 2);
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
}
