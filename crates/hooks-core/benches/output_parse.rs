//! The output parser (`verdict::parse`, the streaming scan of `verdict::Reader`
//! and the verdict rule) over what real hooks print, and what a broken or hostile hook can
//! print, 1 MiB of it per case; and the scan of whole verdicts of up to 16 MiB streamed in
//! 64 KiB reads, as the runner reads them.
//!
//! `cargo bench -p cline-hooks-core --bench output_parse` (each case is capped at about a second of sampling).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::OnceLock;

use cline_hooks_core::discovery::Profile;
use cline_hooks_core::verdict;
use cline_hooks_core::verdict::{Reader, TAIL_KEEP};
use divan::counter::BytesCount;
use divan::Bencher;

fn main() {
    divan::main();
}

/// Realistic: what hooks print in practice.
const REALISTIC: &[&str] = &[
    "minimal",
    "logs_then_verdict",
    "pretty_jq",
    "hook_control",
    "context_over_limit",
    "chatty_1mib_tail",
];

/// Hostile: broken or adversarial output, 1 MiB each.
const HOSTILE: &[&str] = &[
    "plain_logs_1mib",
    "invalid_utf8_1mib",
    "brace_lines_1mib",
    "open_arrays_256x4k",
    "open_objects_256x4k",
    "objects_then_garbage",
    "deep_nesting_200k",
    "truncated_object_1mib",
    "open_brackets_1mib",
    "open_keys_1mib",
    "pretty_1000_lines",
    "junk_after_object_1mib",
    "small_objects_1mib",
    "broken_strings_1mib",
    "brace_log_lines_1mib",
];

/// (stdout, whether it is what is left of a longer output: the last MiB)
type Case = (Vec<u8>, bool);

fn cases() -> &'static BTreeMap<&'static str, Case> {
    static CASES: OnceLock<BTreeMap<&'static str, Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut m = BTreeMap::new();
        let keep = TAIL_KEEP;
        let log_line = |i: usize| format!("[hook] checked rule {i}: tool input looks fine, moving on\n");

        m.insert("minimal", (b"{\"cancel\":false}\n".to_vec(), false));

        let mut s = String::new();
        for i in 0..40 {
            s.push_str(&log_line(i));
        }
        s.push_str("{\"cancel\":false,\"contextModification\":\"");
        s.push_str(&"The project uses tabs; keep lines under 100 characters. ".repeat(4));
        s.push_str("\",\"errorMessage\":\"\"}\n");
        m.insert("logs_then_verdict", (s.into_bytes(), false));

        let mut s = String::from("running checks\n{\n  \"cancel\": true,\n  \"errorMessage\": \"rm -rf is not allowed here\",\n  \"contextModification\": \"Blocked a destructive command.\",\n  \"details\": {\n    \"rules\": [\n");
        for i in 0..30 {
            s.push_str(&format!(
                "      {{ \"id\": {i}, \"name\": \"rule-{i}\", \"matched\": false }},\n"
            ));
        }
        s.push_str("      { \"id\": 99, \"name\": \"no-rm-rf\", \"matched\": true }\n    ]\n  }\n}\n");
        m.insert("pretty_jq", (s.into_bytes(), false));

        let mut s = String::new();
        for i in 0..20 {
            s.push_str(&log_line(i));
        }
        s.push_str("HOOK_CONTROL\t{\"cancel\":false,\"context\":\"from the CLI hook\",\"review\":true}\n");
        for i in 0..20 {
            s.push_str(&log_line(i));
        }
        m.insert("hook_control", (s.into_bytes(), false));

        let long = "é".repeat(verdict::MAX_CONTEXT_BYTES / 2 + 10_000);
        let s = format!("{{\"cancel\":false,\"contextModification\":\"{long}\"}}\n");
        m.insert("context_over_limit", (s.into_bytes(), false));

        // What a hook printing 256 MiB of logs then its verdict leaves in the kept tail.
        let verdict = "{\"cancel\":false}\n";
        let mut s = String::new();
        let mut i = 0;
        while s.len() < keep - verdict.len() {
            s.push_str(&log_line(i));
            i += 1;
        }
        let cut_at = s.len() - (keep - verdict.len());
        let mut s = s[cut_at..].to_owned();
        s.push_str(verdict);
        m.insert("chatty_1mib_tail", (s.into_bytes(), true));

        // --- hostile ---
        let mut s = String::new();
        let mut i = 0;
        while s.len() < keep {
            s.push_str(&log_line(i));
            i += 1;
        }
        s.truncate(keep);
        m.insert("plain_logs_1mib", (s.into_bytes(), true));

        // Deterministic pseudo-random bytes (xorshift), newlines sprinkled in.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let bytes: Vec<u8> = (0..keep)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        m.insert("invalid_utf8_1mib", (bytes, true));

        // Every line opens an object and an array, nested ever deeper: none is valid.
        let s = "{\"x\":[\n".repeat(keep / 7);
        m.insert("brace_lines_1mib", (s.into_bytes(), true));

        // Issue 10 A3: 256 lines, each opening an array that never closes and filling 4 KiB
        // (2.4 s with the parser that retried serde_json from each line start).
        let mut s = String::new();
        for _ in 0..256 {
            s.push('[');
            s.push_str(&"1,".repeat(2047));
            s.push('\n');
        }
        m.insert("open_arrays_256x4k", (s.into_bytes(), false));

        let mut s = String::new();
        for i in 0..256 {
            s.push_str(&format!("{{\"k{i}\":\""));
            s.push_str(&"a".repeat(4080));
            s.push_str("\",\"n\":\n");
        }
        m.insert("open_objects_256x4k", (s.into_bytes(), false));

        // 256 valid objects, then a line of text: the "object followed by logs" path.
        let mut s = String::new();
        for i in 0..256 {
            s.push_str(&format!(
                "{{\"cancel\":false,\"i\":{i},\"pad\":\"{}\"}}\n",
                "p".repeat(4000)
            ));
        }
        s.push_str("done, exiting\n");
        m.insert("objects_then_garbage", (s.into_bytes(), false));

        let s = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        m.insert("deep_nesting_200k", (s.into_bytes(), false));

        // One object of 1 MiB that never closes (a hook killed mid-print).
        let mut s = String::from("{\"cancel\":true,\"items\":[");
        let mut i = 0;
        while s.len() < keep - 64 {
            s.push_str(&format!("{{\"i\":{i},\"v\":\"value {i}\"}},"));
            i += 1;
        }
        m.insert("truncated_object_1mib", (s.into_bytes(), false));

        // Issue 10 A3's shapes: each costs one pass, whatever it holds.
        m.insert("open_brackets_1mib", (vec![b'['; keep], false));

        let s = "{\"a\":".repeat(keep / 5);
        m.insert("open_keys_1mib", (s.into_bytes(), false));

        // What `jq` prints for a verdict with 1,000 findings.
        let mut s = String::from("{\n  \"cancel\": true,\n  \"findings\": [\n");
        for i in 0..1_000 {
            s.push_str(&format!("    {{\n      \"line\": {i},\n      \"rule\": \"no-{i}\"\n    }},\n"));
        }
        s.push_str("    {}\n  ]\n}\n");
        m.insert("pretty_1000_lines", (s.into_bytes(), false));

        // The verdict, then 1 MiB of lines that look like the start of JSON and never are.
        let mut s = String::from("{\"cancel\":true}\n");
        while s.len() < keep - 32 {
            s.push_str("] [ {\"unterminated: ] } [1, 2\n");
        }
        m.insert("junk_after_object_1mib", (s.into_bytes(), false));

        let s = "{\"cancel\":false}\n".repeat(keep / 17);
        m.insert("small_objects_1mib", (s.into_bytes(), false));

        // Quotes that never close inside brackets: the scan keeps two readings of each line.
        let s = "[\"{ x [\"{\\\" ] \"{\n".repeat(keep / 17);
        m.insert("broken_strings_1mib", (s.into_bytes(), false));

        // Log lines that each end in a bracket (the hostile suite's 1 GiB flood): every line
        // starts a parse that fails on the next one.
        let s = "log line that is not JSON {\n".repeat(keep / 28);
        m.insert("brace_log_lines_1mib", (s.into_bytes(), false));

        for (name, (bytes, _)) in &m {
            assert!(bytes.len() <= keep, "{name} exceeds 1 MiB");
        }
        m
    })
}

fn run(bencher: Bencher, name: &str) {
    let (bytes, _) = &cases()[name];
    let profile = if name == "hook_control" {
        Profile::Cli
    } else {
        Profile::Extension
    };
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| verdict::parse(black_box(bytes), profile));
}

#[divan::bench(args = REALISTIC, max_time = 1)]
fn realistic(bencher: Bencher, name: &str) {
    run(bencher, name);
}

#[divan::bench(args = HOSTILE, max_time = 1, sample_count = 30)]
fn hostile(bencher: Bencher, name: &str) {
    run(bencher, name);
}

/// Linear time, shown: the A3 shape (4 KiB lines that each open an array never closed, the
/// case that once took 2.4 s per MiB) at growing sizes. Throughput stays flat as size doubles.
#[divan::bench(args = [128, 256, 512, 1024], max_time = 1, sample_count = 30)]
fn scaling_open_arrays_kib(bencher: Bencher, kib: usize) {
    let line = format!("[{}\n", "\"x\",".repeat(1023));
    let bytes = line.repeat(kib / 4).into_bytes();
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| verdict::parse(black_box(&bytes), Profile::Extension));
}

/// Linear time beyond the kept windows: one pretty verdict, `cancel` last, after a `data`
/// array of small objects (the shape whose tail alone would mislead), 1 to 16 MiB, read in
/// 64 KiB pieces as the runner reads stdout. Throughput stays flat as size grows.
#[divan::bench(args = [1, 4, 16], max_time = 2, sample_count = 10)]
fn scaling_streamed_verdict_mib(bencher: Bencher, mib: usize) {
    let mut s = String::from("{\n  \"data\": [\n");
    while s.len() < mib << 20 {
        s.push_str("    { \"cancel\": false, \"line\": 12345 },\n");
    }
    s.push_str("    {}\n  ],\n  \"cancel\": true\n}\n");
    let bytes = s.into_bytes();
    bencher.counter(BytesCount::new(bytes.len())).bench(|| {
        let mut reader = Reader::new(Profile::Extension);
        for chunk in black_box(&bytes).chunks(64 << 10) {
            reader.feed(chunk);
        }
        let verdict = verdict::read(reader.finish());
        assert!(verdict.cancel);
        verdict
    });
}
