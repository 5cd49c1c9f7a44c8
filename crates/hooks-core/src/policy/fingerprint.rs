//! A hook file's fingerprint, the sha256 of its bytes, read through one open file; and the
//! scan's memory of them, so a rescan hashes again only the files whose size or times changed.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Files larger than this get no fingerprint (so they cannot be approved): a hook is a
/// script or a small program, and hashing gigabytes on every change would stall discovery.
pub const FINGERPRINT_LIMIT: u64 = 64 * 1024 * 1024;

/// The sha256 of all of `file`'s bytes as lowercase hex, read from its start; `None` when it
/// holds more than [`FINGERPRINT_LIMIT`] bytes.
pub fn sha256_of(file: &File) -> io::Result<Option<String>> {
    let mut reader = file;
    reader.rewind()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total: u64 = 0;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        if total > FINGERPRINT_LIMIT {
            return Ok(None);
        }
        hasher.update(&buf[..n]);
    }
    Ok(Some(hex(&hasher.finalize())))
}

/// All of `file`'s bytes, read from its start; `None` when it holds more than
/// [`FINGERPRINT_LIMIT`] bytes.
pub fn read_capped(file: &File) -> io::Result<Option<Vec<u8>>> {
    let mut reader = file;
    reader.rewind()?;
    let mut bytes = Vec::new();
    reader.take(FINGERPRINT_LIMIT + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= FINGERPRINT_LIMIT).then_some(bytes))
}

/// The sha256 of `bytes` as lowercase hex.
pub fn sha256_of_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    use std::fmt::Write;
    digest.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// What identifies a file's contents without reading them: identity, size and times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp([i128; 6]);

impl FileStamp {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp([
            meta.dev() as i128,
            meta.ino() as i128,
            meta.size() as i128,
            meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
            meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
            0,
        ])
    }

    #[cfg(not(unix))]
    fn of(meta: &std::fs::Metadata) -> FileStamp {
        let nanos = |t: io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(-1, |d| d.as_nanos() as i128)
        };
        FileStamp([
            meta.len() as i128,
            nanos(meta.modified()),
            nanos(meta.created()),
            0,
            0,
            0,
        ])
    }
}

/// The fingerprints of the files one scan looked at, kept for the next scan: a file whose
/// stamp is unchanged is not read again. Only the files of the latest scan are remembered.
#[derive(Debug, Default)]
pub struct Fingerprints {
    previous: HashMap<PathBuf, (FileStamp, Option<String>)>,
    current: HashMap<PathBuf, (FileStamp, Option<String>)>,
}

impl Fingerprints {
    /// Starts a scan: what the last one found is what may be reused.
    pub fn begin(&mut self) {
        self.previous = std::mem::take(&mut self.current);
    }

    /// The fingerprint of the open `file` at `path` whose metadata is `meta`: remembered if its
    /// stamp has not changed, else read now. `None` if it is too large or cannot be read.
    pub fn of(&mut self, path: &Path, file: &File, meta: &std::fs::Metadata) -> Option<String> {
        let stamp = FileStamp::of(meta);
        let digest = match self.previous.remove(path) {
            Some((seen, digest)) if seen == stamp => digest,
            _ => sha256_of(file).ok().flatten(),
        };
        self.current
            .insert(path.to_owned(), (stamp, digest.clone()));
        digest
    }

    /// How many files are remembered (tests and benchmarks).
    pub fn len(&self) -> usize {
        self.current.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.current.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_sha256_of_every_byte() {
        // sha256("test")
        assert_eq!(
            sha256_of_bytes(b"test"),
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        );
        let path = std::env::temp_dir().join(format!("cline-hooks-fp-{}", std::process::id()));
        std::fs::write(&path, b"test").unwrap();
        let file = File::open(&path).unwrap();
        // Read from the start even when the file was read before.
        let _ = (&file).read(&mut [0u8; 2]).unwrap();
        assert_eq!(sha256_of(&file).unwrap(), Some(sha256_of_bytes(b"test")));

        let mut fingerprints = Fingerprints::default();
        fingerprints.begin();
        let meta = file.metadata().unwrap();
        assert_eq!(
            fingerprints.of(&path, &file, &meta),
            Some(sha256_of_bytes(b"test"))
        );
        // Unchanged: remembered (the open file is not read: a closed one would fail).
        fingerprints.begin();
        assert_eq!(
            fingerprints.of(&path, &file, &meta),
            Some(sha256_of_bytes(b"test"))
        );
        assert_eq!(fingerprints.len(), 1);
        // Not looked at in a scan: forgotten.
        fingerprints.begin();
        fingerprints.begin();
        assert!(fingerprints.is_empty());
        let _ = std::fs::remove_file(&path);
    }
}
