//! Out-of-core layers: a layer whose share would not fit the memory
//! budget is written to a file of its dense keys and read back in
//! order, chunk by chunk, by the steps that walk it (the forward step's
//! parents, the backward pass's merge).
//!
//! A spill file is `spill-DDDD-process-I.keys`: a magic, the share's keys
//! (8 bytes each, little-endian, in key order), then the number of keys
//! and a CRC-32 of everything before. Keys, not positions: a board of
//! more than 64 grid cells keeps its positions in 16 bytes, its keys in
//! 8. Files go to a directory of the caller's (the checkpoint directory)
//! or to a temporary one; either way the files are removed when the
//! count ends, on success, on error and on Ctrl-C (SIGINT or SIGTERM:
//! a thread removes them, then the process exits with status 130).

use crate::ClusterError;
use endgame_core::dense::DenseKeys;
use endgame_core::scratch::{self, TempDir};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// First bytes of a spill file (format version 1).
const MAGIC: [u8; 8] = *b"EGSPILL\x01";
/// Keys read or written at a time.
pub(crate) const CHUNK: usize = 1 << 16;
/// Bytes of a spill file's reader and writer buffers.
const IO_BUFFER: usize = 1 << 20;

/// Where this process spills its layers.
pub struct Spill {
    dir: PathBuf,
    /// `dir` when it was made for this count (and is removed with it).
    _temporary: Option<TempDir>,
    /// Files written and not yet removed.
    files: Mutex<Vec<PathBuf>>,
}

fn io(path: &Path, e: impl std::fmt::Display) -> ClusterError {
    ClusterError::Config(format!("spill file {}: {e}", path.display()))
}

impl Spill {
    /// Spills into `dir` (created when missing), or into a new temporary
    /// directory when `None`.
    pub fn new(dir: Option<&Path>) -> Result<Spill, ClusterError> {
        let (dir, temporary) = match dir {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|e| io(d, e))?;
                (d.to_path_buf(), None)
            }
            None => {
                let t =
                    TempDir::in_temp("endgame-spill").map_err(|e| io(&std::env::temp_dir(), e))?;
                (t.path().to_path_buf(), Some(t))
            }
        };
        interrupt::install();
        Ok(Spill {
            dir,
            _temporary: temporary,
            files: Mutex::new(Vec::new()),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts the file of this process's share of layer `depth`.
    pub(crate) fn create(&self, depth: usize, process: usize) -> Result<SpillWriter, ClusterError> {
        let path = self
            .dir
            .join(format!("spill-{depth:04}-process-{process}.keys"));
        let file = scratch::create_file(&path).map_err(|e| io(&path, e))?;
        self.files.lock().expect("not poisoned").push(path.clone());
        let mut w = SpillWriter {
            out: BufWriter::with_capacity(IO_BUFFER, file),
            crc: crc32fast::Hasher::new(),
            count: 0,
            path,
        };
        w.put(&MAGIC)?;
        Ok(w)
    }

    /// Removes a file this spill wrote (a layer no longer needed).
    pub(crate) fn remove(&self, path: &Path) {
        scratch::remove(path);
        self.files
            .lock()
            .expect("not poisoned")
            .retain(|p| p != path);
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        let files = std::mem::take(&mut *self.files.lock().expect("not poisoned"));
        for f in files {
            scratch::remove(&f);
        }
        // The temporary directory goes with its guard.
    }
}

/// A spill file being written.
pub(crate) struct SpillWriter {
    out: BufWriter<std::fs::File>,
    crc: crc32fast::Hasher,
    count: u64,
    path: PathBuf,
}

impl SpillWriter {
    fn put(&mut self, b: &[u8]) -> Result<(), ClusterError> {
        self.crc.update(b);
        self.out.write_all(b).map_err(|e| io(&self.path, e))
    }

    /// Appends keys (in key order, after those written before).
    pub(crate) fn write(&mut self, keys: &[u64]) -> Result<(), ClusterError> {
        let mut b = Vec::with_capacity(8 * keys.len());
        for k in keys {
            b.extend_from_slice(&k.to_le_bytes());
        }
        self.count += keys.len() as u64;
        self.put(&b)
    }

    /// Closes the file: the count and the checksum.
    pub(crate) fn finish(mut self) -> Result<SpillFile, ClusterError> {
        let n = self.count.to_le_bytes();
        self.put(&n)?;
        let crc = self.crc.clone().finalize().to_le_bytes();
        self.out.write_all(&crc).map_err(|e| io(&self.path, e))?;
        self.out.flush().map_err(|e| io(&self.path, e))?;
        Ok(SpillFile {
            path: self.path,
            len: self.count,
        })
    }
}

/// A finished spill file: a share of a layer on disk.
#[derive(Debug)]
pub(crate) struct SpillFile {
    pub(crate) path: PathBuf,
    /// Keys in it.
    pub(crate) len: u64,
}

impl SpillFile {
    /// Hands the share's positions to `f` in order, [`CHUNK`] at a time,
    /// while it returns `true`; the checksum is verified at the end of a
    /// whole pass (a damaged file is an error, never a wrong count).
    pub(crate) fn for_each_chunk<T>(
        &self,
        dk: &dyn DenseKeys<T>,
        f: &mut dyn FnMut(&[T]) -> bool,
    ) -> Result<(), ClusterError> {
        let file = std::fs::File::open(&self.path).map_err(|e| io(&self.path, e))?;
        let mut r = BufReader::with_capacity(IO_BUFFER, file);
        let mut crc = crc32fast::Hasher::new();
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic).map_err(|e| io(&self.path, e))?;
        crc.update(&magic);
        if magic != MAGIC {
            return Err(io(&self.path, "not a spill file of this version"));
        }
        let mut bytes = vec![0u8; 8 * CHUNK];
        let (mut keys, mut pos) = (Vec::with_capacity(CHUNK), Vec::with_capacity(CHUNK));
        let mut left = self.len;
        while left > 0 {
            let n = (left as usize).min(CHUNK);
            r.read_exact(&mut bytes[..8 * n])
                .map_err(|e| io(&self.path, e))?;
            crc.update(&bytes[..8 * n]);
            keys.clear();
            keys.extend(
                bytes[..8 * n]
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            );
            pos.clear();
            dk.positions(&keys, &mut pos);
            left -= n as u64;
            if !f(&pos) {
                return Ok(());
            }
        }
        let mut tail = [0u8; 12];
        r.read_exact(&mut tail).map_err(|e| io(&self.path, e))?;
        crc.update(&tail[..8]);
        let count = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
        let sum = u32::from_le_bytes(tail[8..].try_into().expect("4 bytes"));
        if count != self.len || sum != crc.finalize() {
            return Err(io(&self.path, "checksum mismatch (a damaged disk?)"));
        }
        // Nothing may follow.
        let end = r.stream_position().map_err(|e| io(&self.path, e))?;
        let size = r.seek(SeekFrom::End(0)).map_err(|e| io(&self.path, e))?;
        if end != size {
            return Err(io(&self.path, "trailing bytes"));
        }
        Ok(())
    }
}

/// Ctrl-C (or SIGTERM): the command line's handler marks the process
/// interrupted ([`endgame_core::budget::interrupt`]); a spilling count
/// does not wait for its next layer (minutes on a big board) to notice. A
/// thread watching the mark removes the doomed paths and ends the process
/// with the shell's status for an interrupt.
mod interrupt {
    use std::sync::Once;
    use std::time::Duration;

    pub(super) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            std::thread::spawn(|| loop {
                if endgame_core::budget::interrupted() {
                    endgame_core::scratch::exit(130, "error: interrupted; spill files removed");
                }
                std::thread::sleep(Duration::from_millis(50));
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys as their own positions.
    struct Plain;
    impl DenseKeys<u64> for Plain {
        fn key_bits(&self) -> u32 {
            48
        }
        fn invariants(&self) -> Vec<u64> {
            Vec::new()
        }
        fn key(&self, p: &u64) -> u64 {
            *p
        }
        fn positions(&self, keys: &[u64], out: &mut Vec<u64>) {
            out.extend_from_slice(keys)
        }
        fn child_keys(&self, _: &[u64], _: &mut Vec<u64>) {}
        fn neighbour_keys(&self, _: &[u64], _: bool, _: &mut Vec<u64>, _: &mut Vec<u32>) {}
    }

    fn read_all(f: &SpillFile) -> Result<Vec<u64>, ClusterError> {
        let mut got = Vec::new();
        f.for_each_chunk(&Plain, &mut |c| {
            got.extend_from_slice(c);
            true
        })?;
        Ok(got)
    }

    #[test]
    fn spilled_keys_read_back_and_damage_is_an_error() {
        let keys: Vec<u64> = (0..(2 * CHUNK as u64 + 17)).map(|i| i * 3 + 1).collect();
        let (path, dir) = {
            let s = Spill::new(None).expect("a temporary directory");
            let mut w = s.create(5, 1).expect("created");
            w.write(&keys[..100]).expect("written");
            w.write(&keys[100..]).expect("written");
            let f = w.finish().expect("finished");
            assert_eq!(f.len, keys.len() as u64);
            assert_eq!(read_all(&f).expect("read"), keys);
            // One flipped bit is an error at the end of the pass.
            let mut b = std::fs::read(&f.path).expect("read");
            b[1000] ^= 4;
            std::fs::write(&f.path, &b).expect("written");
            let e = read_all(&f).expect_err("damaged").to_string();
            assert!(e.contains("checksum"), "{e}");
            (f.path.clone(), s.dir().to_path_buf())
        };
        // Dropped: its file and temporary directory are gone.
        assert!(!path.exists() && !dir.exists());
        // In a given directory only the files go.
        let keep = tempfile::tempdir().expect("a directory");
        let s = Spill::new(Some(keep.path())).expect("spill");
        let f = s.create(0, 0).expect("created").finish().expect("empty");
        assert_eq!(read_all(&f).expect("read"), Vec::<u64>::new());
        drop(s);
        assert!(keep.path().exists());
        assert_eq!(std::fs::read_dir(keep.path()).expect("listed").count(), 0);
    }
}
