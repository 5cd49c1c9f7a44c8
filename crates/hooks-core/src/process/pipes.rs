//! A hook's pipes: its input fed to stdin while stdout is scanned for the verdict and the tail
//! of stderr is kept, and how long output is read on after its process is gone.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::time::{timeout, Instant};

use super::hook_child::HookChild;
use crate::blocking::{self, Started};
use crate::observe::Lines;
use crate::verdict::Reader;

/// Bytes of stdout handed to its scan at once, on a blocking thread (all of stdout is scanned
/// as it arrives; see [`Reader`] for what is kept).
const SCAN_BATCH: usize = 256 << 10;
/// Bytes kept for the result of the end of stderr, and of stdout's text (cut from what its
/// reader kept).
pub const STDERR_KEEP: usize = 16 << 10;
/// How long stdout and stderr may stay quiet after the hook's own process exited before they
/// are given up on: a background process it started may hold them open forever, and must not
/// hold the run.
pub const PIPE_GRACE: Duration = Duration::from_millis(150);
/// How much longer than [`PIPE_GRACE`] output still flowing after the exit is read (what the
/// pipe and the scan still held, or a background process still printing).
pub const PIPE_FLOW_MAX: Duration = Duration::from_secs(1);
/// The `cli` profile's wait for the pipes after the hook's own process exited: the Cline SDK's
/// (`@cline/core` 0.0.86 ends a run when every pipe has closed or this long after the exit,
/// whichever is first), so output written in that second counts here as it does there.
pub const SDK_EXIT_GRACE: Duration = Duration::from_secs(1);

/// How long output is read on after the hook's own process is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipeGrace {
    /// The `extension` profile's: until the pipes are quiet for [`PIPE_GRACE`], at most
    /// [`PIPE_FLOW_MAX`] more.
    Quiet,
    /// The `cli` profile's: until the pipes close, at most [`SDK_EXIT_GRACE`].
    Sdk,
}

impl PipeGrace {
    /// The grace of a profile.
    pub fn of(profile: crate::discovery::Profile) -> PipeGrace {
        match profile {
            crate::discovery::Profile::Extension => PipeGrace::Quiet,
            crate::discovery::Profile::Cli => PipeGrace::Sdk,
        }
    }

    /// How long pipes that stay open and quiet are waited for.
    pub fn waited(self) -> Duration {
        match self {
            PipeGrace::Quiet => PIPE_GRACE,
            PipeGrace::Sdk => SDK_EXIT_GRACE,
        }
    }
}

/// The exchange over the hook's pipes, taken from `child`: `input` is written to stdin while
/// stdout goes to `out` and stderr to `err`; `progress` counts what was read and scanned.
/// It ends when all three pipes are done with. With `lines` (an observed run), each pipe's
/// bytes are also split into lines for its events.
pub(super) fn exchange<'a>(
    child: &mut HookChild,
    input: &'a [u8],
    out: &'a mut StdoutScan,
    err: &'a mut Tail,
    progress: &'a AtomicU64,
    lines: Option<&'a mut (Lines, Lines)>,
) -> impl Future<Output = ()> + 'a {
    let (out_lines, err_lines) = match lines {
        Some((out_lines, err_lines)) => (Some(out_lines), Some(err_lines)),
        None => (None, None),
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    async move {
        tokio::join!(
            feed(stdin, input),
            drain(stdout, out, progress, out_lines),
            drain(stderr, err, progress, err_lines)
        );
    }
}

/// Reads on once the hook's own process is gone, by `grace`: with [`PipeGrace::Quiet`], output
/// still flowing is read (up to [`PIPE_FLOW_MAX`] past [`PIPE_GRACE`]) and pipes quiet for
/// [`PIPE_GRACE`] are given up on; with [`PipeGrace::Sdk`], everything until the pipes close,
/// for at most [`SDK_EXIT_GRACE`]. Returns whether `io` finished (all pipes closed).
pub(super) async fn read_on(
    mut io: Pin<&mut impl Future<Output = ()>>,
    mut io_done: bool,
    progress: &AtomicU64,
    grace: PipeGrace,
) -> bool {
    if grace == PipeGrace::Sdk {
        return io_done || timeout(SDK_EXIT_GRACE, io.as_mut()).await.is_ok();
    }
    let flow_end = Instant::now() + PIPE_GRACE + PIPE_FLOW_MAX;
    while !io_done {
        let seen = progress.load(Ordering::Relaxed);
        let wait = PIPE_GRACE.min(flow_end.saturating_duration_since(Instant::now()));
        io_done = timeout(wait, io.as_mut()).await.is_ok();
        if progress.load(Ordering::Relaxed) == seen || Instant::now() >= flow_end {
            break;
        }
    }
    io_done
}

/// Writes the input and closes stdin. A hook that exits without reading it is fine.
async fn feed(stdin: Option<tokio::process::ChildStdin>, input: &[u8]) {
    if let Some(mut stdin) = stdin {
        let _ = stdin.write_all(input).await;
        let _ = stdin.shutdown().await;
    }
}

/// Where a drained pipe's bytes go: stdout's scan or stderr's tail.
pub(super) trait Sink {
    /// Takes bytes just read. `true` when it also moved the scan on (handed a batch over),
    /// which counts as progress: output is still being dealt with.
    async fn take(&mut self, bytes: &[u8]) -> bool;
}

/// Reads `pipe` to its end into `sink`; `progress` counts what was read and scanned.
/// Cancel-safe: what was read and not yet scanned stays in the sink.
async fn drain<R: AsyncRead + Unpin>(
    pipe: Option<R>,
    sink: &mut impl Sink,
    progress: &AtomicU64,
    mut lines: Option<&mut Lines>,
) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                progress.fetch_add(n as u64, Ordering::Relaxed);
                if let Some(lines) = lines.as_deref_mut() {
                    lines.push(&buf[..n]);
                }
                if sink.take(&buf[..n]).await {
                    progress.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Stdout's scan: the reader (away on a blocking thread while it scans a batch) and the bytes
/// read since.
pub(super) struct StdoutScan {
    reader: Option<Reader>,
    scanning: Option<Started<Reader>>,
    batch: Vec<u8>,
    /// Why the reader was lost (a panic in the scan), if it was.
    lost: Option<String>,
}

impl StdoutScan {
    pub(super) fn new(reader: Reader) -> StdoutScan {
        StdoutScan {
            reader: Some(reader),
            scanning: None,
            batch: Vec::new(),
            lost: None,
        }
    }

    /// Waits for the batch being scanned, if any. Cancel-safe: the handle is kept until it
    /// resolves.
    pub(super) async fn settle(&mut self) {
        let Some(scanning) = self.scanning.as_mut() else {
            return;
        };
        let result = scanning.await;
        self.scanning = None;
        match result {
            Ok(Some(reader)) => self.reader = Some(reader),
            Ok(None) => self.lost = Some("the scan was taken back from the blocking pool".into()),
            Err(join) => self.lost = Some(join.to_string()),
        }
    }

    /// Hands the bytes read so far to the scan, once the previous batch is done.
    async fn hand_over(&mut self) {
        self.settle().await;
        let batch = std::mem::take(&mut self.batch);
        if let Some(mut reader) = self.reader.take() {
            let scan = move || {
                reader.feed(&batch);
                reader
            };
            match blocking::spawn(scan) {
                Ok(started) => self.scanning = Some(started),
                // Refused a thread (no process to spare): scanned here, as the verdict must
                // not be lost; one batch is bounded work.
                Err(refused) => self.reader = Some((refused.work)()),
            }
        }
    }

    /// The reader with the rest of stdout fed to it, after [`StdoutScan::settle`]; linear in
    /// that rest, so it belongs on a blocking thread. The error says why the reader was lost.
    pub(super) fn into_reader(self) -> Result<Reader, String> {
        let StdoutScan {
            reader,
            batch,
            lost,
            ..
        } = self;
        let mut reader = match (reader, lost) {
            (Some(reader), None) => reader,
            (_, lost) => return Err(lost.unwrap_or_default()),
        };
        reader.feed(&batch);
        Ok(reader)
    }
}

/// Stdout is scanned in batches of [`SCAN_BATCH`] bytes.
impl Sink for StdoutScan {
    async fn take(&mut self, bytes: &[u8]) -> bool {
        self.batch.extend_from_slice(bytes);
        if self.batch.len() < SCAN_BATCH {
            return false;
        }
        self.hand_over().await;
        true
    }
}

/// The last `cap` bytes of a stream, and how many there were.
pub(super) struct Tail {
    buf: VecDeque<u8>,
    cap: usize,
    total: u64,
}

impl Tail {
    pub(super) fn new(cap: usize) -> Tail {
        Tail {
            buf: VecDeque::new(),
            cap,
            total: 0,
        }
    }

    pub(super) fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(self.cap)..];
        let overflow = (self.buf.len() + chunk.len()).saturating_sub(self.cap);
        self.buf.drain(..overflow);
        self.buf.extend(chunk);
    }

    pub(super) fn bytes(&mut self) -> &[u8] {
        self.buf.make_contiguous()
    }

    /// How many bytes the stream held, kept or not.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    pub(super) fn text(&mut self) -> String {
        String::from_utf8_lossy(self.bytes()).into_owned()
    }
}

/// Of stderr, only its tail is kept.
impl Sink for Tail {
    async fn take(&mut self, bytes: &[u8]) -> bool {
        self.push(bytes);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_bytes_and_counts_all() {
        let mut tail = Tail::new(4);
        tail.push(b"ab");
        tail.push(b"cdef");
        assert_eq!(tail.bytes(), b"cdef");
        tail.push(b"0123456789");
        assert_eq!(tail.bytes(), b"6789");
        assert_eq!(tail.total, 16);
    }
}
