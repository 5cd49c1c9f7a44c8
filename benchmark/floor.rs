//! The floor for row (a): the same hook started and waited from Rust with nothing else: no
//! runtime, no Node, no discovery, no output parsing. `std::process::Command` starts it with
//! `posix_spawn` (glibc: clone3 CLONE_VM|CLONE_VFORK), stdin and stdout piped, stderr
//! discarded; the input is written, stdout read to its end, the process waited.
//!
//! Compiled by `benchmark/lib/floor.js` with `rustc -O` into `target/benchmark/`; no crates.
//!
//! Usage: floor <hook> <runs> <input-json> [<cwd>]; prints `{"samplesMs":[...]}` on stdout.
//! With `<cwd>`, the start is set up the way @cline/hooks sets it up (its own process group,
//! that working directory, stderr piped and read too), to split the gap to the addon between
//! the spawn settings and everything else.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 && args.len() != 5 {
        eprintln!("usage: floor <hook> <runs> <input-json> [<cwd>]");
        std::process::exit(2);
    }
    let hook = &args[1];
    let runs: usize = args[2].parse().expect("runs must be a number");
    let like_addon = args.get(4);
    let mut input = args[3].clone().into_bytes();
    input.push(b'\n');

    let mut samples = Vec::with_capacity(runs);
    let mut out = Vec::with_capacity(4096);
    for _ in 0..runs {
        let t = Instant::now();
        let mut command = Command::new(hook);
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        match like_addon {
            Some(cwd) => {
                use std::os::unix::process::CommandExt;
                command
                    .stderr(Stdio::piped())
                    .current_dir(cwd)
                    .process_group(0);
            }
            None => {
                command.stderr(Stdio::null());
            }
        }
        let mut child = command.spawn().expect("spawn hook");
        {
            let mut stdin = child.stdin.take().expect("stdin");
            let _ = stdin.write_all(&input);
        }
        out.clear();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_end(&mut out)
            .expect("read stdout");
        if let Some(mut stderr) = child.stderr.take() {
            let mut sink = Vec::new();
            let _ = stderr.read_to_end(&mut sink);
        }
        let status = child.wait().expect("wait");
        samples.push(t.elapsed().as_secs_f64() * 1e3);
        if !status.success() || !out.starts_with(b"{") {
            eprintln!("hook failed: {status} {:?}", String::from_utf8_lossy(&out));
            std::process::exit(1);
        }
    }
    let list: Vec<String> = samples.iter().map(|s| format!("{s:.4}")).collect();
    println!("{{\"samplesMs\":[{}]}}", list.join(","));
}
