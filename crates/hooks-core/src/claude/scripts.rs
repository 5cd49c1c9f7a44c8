//! Which files a settings command runs: the program of each simple command when it is a path
//! (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`), and the script an interpreter is given
//! (`python3 .claude/hooks/guard.py`), wherever they are; the caller keeps those inside the
//! project for an approval, and says which are missing. Read the way `sh` splits words, for
//! the common forms only: a command this does not understand names no script (its text is
//! still approved). Where the folder a command runs in cannot be known for sure (after a `cd`
//! that may fail, or one in a pipeline), every candidate is named: an approval covering a
//! superset is safe, covering the wrong file is not. What no reading can follow (`eval`,
//! `$(...)`, a `cd` to a folder given by a variable, ...) is said (see [`unfollowed`]), never
//! guessed silently: the approval then covers the text and `.claude/hooks` only. Pure.

use std::path::{Component, Path, PathBuf};

/// Programs that run a script file they are given as an argument.
const INTERPRETERS: [&str; 16] = [
    "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "bun", "deno", "ruby", "perl",
    "tsx", "ts-node", "pwsh", "uv",
];

/// The interpreters that are shells: given `-c`, they run a string of commands.
const SHELLS: [&str; 5] = ["sh", "bash", "zsh", "dash", "ksh"];

/// Programs that run the command after their own options (`env sh x.sh`, `timeout 5 ./g.sh`):
/// the words after them are read as a command of their own.
const WRAPPERS: [&str; 10] = [
    "env", "timeout", "nice", "nohup", "exec", "command", "builtin", "time", "stdbuf", "xargs",
];

/// A wrapper's options whose argument is the next word (`timeout -s KILL 5 ...`): that word is
/// not the program. Written attached (`-sKILL`, `--signal=KILL`), the option is one word.
fn takes_argument(wrapper: &str, option: &str) -> bool {
    let options: &[&str] = match wrapper {
        "env" => &[
            "-u",
            "--unset",
            "-C",
            "--chdir",
            "-a",
            "--argv0",
            "-S",
            "--split-string",
        ],
        "timeout" => &["-s", "--signal", "-k", "--kill-after"],
        "nice" => &["-n", "--adjustment"],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "xargs" => &[
            "-a",
            "--arg-file",
            "-d",
            "--delimiter",
            "-E",
            "-I",
            "-L",
            "--max-lines",
            "-n",
            "--max-args",
            "-P",
            "--max-procs",
            "-s",
            "--max-chars",
            "--process-slot-var",
        ],
        "exec" => &["-a"],
        "time" => &["-f", "--format", "-o", "--output"],
        _ => &[],
    };
    options.contains(&option)
}

/// `env`'s option that runs the wrapped command in another folder (`-C dir`, `--chdir=dir`,
/// `-Cdir`): its folder, when `word` (with `next`, the word after it) is one. `Some(None)`:
/// the option with no folder after it.
fn env_chdir<'a>(word: &'a str, next: Option<&'a str>) -> Option<Option<&'a str>> {
    match word {
        "-C" | "--chdir" => Some(next),
        _ => word
            .strip_prefix("--chdir=")
            .or_else(|| word.strip_prefix("-C"))
            .map(Some),
    }
}

/// A wrapper's duration or priority (`timeout 5`, `2.5s`, `1m`): a word before the program.
fn is_number(word: &str) -> bool {
    let number = word.strip_suffix(['s', 'm', 'h', 'd']).unwrap_or(word);
    number.parse::<f64>().is_ok()
}

/// What a command does that no reading of it can follow, so that the files it runs may be
/// others than those named (see [`unfollowed`]): `eval`.
pub const EVAL: &str = "`eval`";
/// A command substitution, `$(...)` or backquotes.
pub const SUBSTITUTION: &str = "`$(...)`";
/// A `cd` whose folder is a variable's, or a command's output.
pub const CD_VARIABLE: &str = "a `cd` to a folder given by a variable";
/// A shell given its commands as a string (`sh -c "..."`), or `env -S`.
pub const SHELL_STRING: &str = "a shell given commands as a string (`sh -c`)";
/// `CDPATH` set: a relative `cd` may go to a folder under another.
pub const CDPATH: &str = "`CDPATH`";
/// `HOME` set: `~` is another folder.
pub const HOME_SET: &str = "`HOME` set by the command";
/// `CLAUDE_PROJECT_DIR` set, or read with an operator that changes it
/// (`${CLAUDE_PROJECT_DIR:+x}`).
pub const PROJECT_DIR_CHANGED: &str = "a changed `CLAUDE_PROJECT_DIR`";
/// A loop over values or a function: what it runs depends on them.
pub const LOOP_OR_FUNCTION: &str = "a `for` loop or a function";

/// The shell's reserved words that may open a command (`if sh x.sh; then ...`): the program
/// is the word after them.
const RESERVED: [&str; 12] = [
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}",
];

/// Most candidate folders kept for a command's relative paths: a command with more `cd`s than
/// this is no hook's, and its later candidates are not named.
const CANDIDATES: usize = 32;

/// An interpreter's options after which it runs code from the command line or a module, not
/// a script file (`bash -c '...'`, `node -e '...'`, `python3 -m pkg`).
fn runs_no_script(interpreter: &str, option: &str) -> bool {
    match interpreter {
        _ if SHELLS.contains(&interpreter) => option == "-c",
        "python" | "python3" => matches!(option, "-c" | "-m"),
        "ruby" | "perl" => option == "-e",
        "pwsh" => matches!(option.to_ascii_lowercase().as_str(), "-c" | "-command"),
        _ => matches!(option, "-e" | "--eval" | "-p" | "--print"),
    }
}

/// A file a settings command runs or loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The file, resolved and tidied.
    pub path: PathBuf,
    /// Whether it is what the command runs (the program, or an interpreter's script) from the
    /// folder it most likely runs in, so its absence is a mistake (the handler fails); the
    /// other files named (an interpreter's `-r ./pre.js`, a `< x.sh`, the same name from
    /// another candidate folder) count only when they exist.
    pub primary: bool,
}

/// Where the shell is while reading a command: the folder it most likely is in (`None`: not
/// known, so relative paths name nothing), and the others it may be in.
#[derive(Debug, Clone)]
struct Where {
    here: Option<PathBuf>,
    also: Vec<PathBuf>,
}

impl Where {
    /// `word` (expanded) resolved against each folder: the first is the likely one.
    fn resolve(&self, word: &str) -> Vec<(PathBuf, bool)> {
        if word.starts_with('~') || word.contains(['$', '`']) {
            // A variable this reading does not know: no file can be said to be named.
            return Vec::new();
        }
        let path = Path::new(word);
        if path.is_absolute() {
            return vec![(normalize(path), true)];
        }
        let likely = self.here.iter().map(|h| (normalize(&h.join(word)), true));
        let others = self.also.iter().map(|h| (normalize(&h.join(word)), false));
        likely.chain(others).collect()
    }

    /// A `cd` to `target` (`None`: a folder not known) in the shell itself (`for_sure`), or
    /// in a subshell of a pipeline, whose folder does not outlast it (`!for_sure`).
    fn cd(&mut self, target: Option<&str>, for_sure: bool) {
        let went: Vec<(PathBuf, bool)> = target.map(|t| self.resolve(t)).unwrap_or_default();
        let mut also = std::mem::take(&mut self.also);
        let mut push = |path: PathBuf| {
            if !also.contains(&path) && also.len() < CANDIDATES {
                also.push(path);
            }
        };
        let likely = went
            .iter()
            .find(|(_, likely)| *likely)
            .map(|(p, _)| p.clone());
        if for_sure {
            // The cd may fail: the folder before stays a candidate. Gone to a folder not
            // known: none is likely.
            if let Some(old) = std::mem::replace(&mut self.here, likely) {
                push(old);
            }
        }
        for (path, _) in went {
            if Some(&path) != self.here.as_ref() {
                push(path);
            }
        }
        self.also = also;
    }
}

/// The files `command` names (resolved where relative against `project_dir`, or after a `cd`
/// against where it went; `$CLAUDE_PROJECT_DIR` and the `${CLAUDE_PROJECT_DIR...}` forms that
/// keep it, and with `home` `~/`, `$HOME` and `${HOME}`, expanded), wherever they are; in
/// order, without repeats. A relative path with no `project_dir`, or a word with a variable
/// left, names nothing. Read generously: every word of an interpreter's argument list that
/// looks like a file counts, so that an approval covers what the command loads, not only what
/// it names first.
pub fn scripts_named(command: &str, project_dir: Option<&Path>, home: Option<&Path>) -> Vec<Named> {
    read(command, project_dir, home).0
}

/// What `command` does that no reading of it can follow ([`EVAL`], [`SUBSTITUTION`],
/// [`CD_VARIABLE`], ...), in order, without repeats; empty when the files it runs are all
/// those [`scripts_named`] names. After a `cd` to a folder not known, the relative paths named
/// are only candidates: never said missing.
pub fn unfollowed(command: &str) -> Vec<&'static str> {
    // What is followed does not depend on where the folders are, only on their being known.
    let known = Path::new("/");
    read(command, Some(known), Some(known)).1
}

/// The warning for a handler whose command does what `what` ([`unfollowed`]) says.
pub fn unfollowed_warning(what: &[&str]) -> String {
    format!(
        "its command runs files in a way an approval cannot follow ({}): the approval covers its text and every file of .claude/hooks only; keep the scripts it runs in .claude/hooks",
        what.join(", ")
    )
}

/// [`scripts_named`] and [`unfollowed`] in one reading.
fn read(
    command: &str,
    project_dir: Option<&Path>,
    home: Option<&Path>,
) -> (Vec<Named>, Vec<&'static str>) {
    let mut found: Vec<Named> = Vec::new();
    let mut add = |at: &Where, word: &str, primary: bool| {
        for (path, likely) in at.resolve(word) {
            let primary = primary && likely;
            match found.iter_mut().find(|n| n.path == path) {
                Some(named) => named.primary |= primary,
                None => found.push(Named { path, primary }),
            }
        }
    };
    let mut unfollowed: Vec<&'static str> = Vec::new();
    let mut say = |what: &'static str| {
        if !unfollowed.contains(&what) {
            unfollowed.push(what);
        }
    };
    if substitutes(command) {
        say(SUBSTITUTION);
    }
    // Set by the command itself, these no longer mean what the host's do: from there on, `~`
    // and `$CLAUDE_PROJECT_DIR` name nothing, and a relative `cd` goes to a folder not known.
    let (mut home, mut project_var, mut cdpath) = (home, project_dir, false);
    let mut at = Where {
        here: project_dir.map(Path::to_path_buf),
        also: Vec::new(),
    };
    // The folders to go back to when a subshell ends: its `cd`s end with it.
    let mut outer: Vec<Where> = Vec::new();
    let pieces = pieces(command);
    for (i, piece) in pieces.iter().enumerate() {
        let words = match piece {
            Piece::Op(Op::Open) => {
                // `f() { ...; }`: a function, run where it is called, with its arguments.
                if pieces.get(i + 1) == Some(&Piece::Op(Op::Close)) {
                    say(LOOP_OR_FUNCTION);
                }
                outer.push(at.clone());
                continue;
            }
            Piece::Op(Op::Close) => {
                if let Some(back) = outer.pop() {
                    at = back;
                }
                continue;
            }
            Piece::Op(_) => continue,
            Piece::Words(words) => words,
        };
        // A pipeline's commands, and one sent to the background, run in subshells.
        let alone = !matches!(
            i.checked_sub(1).and_then(|p| pieces.get(p)),
            Some(Piece::Op(Op::Pipe))
        ) && !matches!(
            pieces.get(i + 1),
            Some(Piece::Op(Op::Pipe | Op::Background))
        );
        // Set here (`HOME=x; sh ~/y.sh`, `export HOME=x`, `CDPATH=s cd x`): no longer the
        // host's, for this command and those after it.
        for word in words {
            match word.split_once('=') {
                Some(("HOME", _)) => {
                    say(HOME_SET);
                    home = None;
                }
                Some(("CDPATH", _)) => {
                    say(CDPATH);
                    cdpath = true;
                }
                Some(("CLAUDE_PROJECT_DIR", _)) => {
                    say(PROJECT_DIR_CHANGED);
                    project_var = None;
                }
                _ => {}
            }
        }
        let mut words_read = Vec::with_capacity(words.len());
        for word in words {
            let (word, kept) = expand(word, project_var, home);
            if !kept {
                say(PROJECT_DIR_CHANGED);
            }
            words_read.push(word);
        }
        let words = words_read;
        // The folder this command runs in: `env -C` moves it, for this command only.
        let mut run_at: Option<Where> = None;
        let mut rest = words.iter().peekable();
        // Assignments, reserved words, wrappers and their options (with their arguments, and
        // `timeout`'s duration) lead to the real program.
        while let Some(word) = rest.peek() {
            if is_assignment(word) || RESERVED.contains(&word.as_str()) {
                rest.next();
                continue;
            }
            let wrapper = base_name(word);
            if WRAPPERS.contains(&wrapper) {
                rest.next();
                while let Some(option) = rest.peek().map(|w| w.as_str()) {
                    if !(option.starts_with('-') || is_assignment(option) || is_number(option)) {
                        break;
                    }
                    rest.next();
                    let argument = takes_argument(wrapper, option).then(|| rest.next());
                    if wrapper != "env" {
                        continue;
                    }
                    let argument = argument.flatten().map(String::as_str);
                    if matches!(option, "-S" | "--split-string")
                        || option.starts_with("--split-string=")
                        || option.starts_with("-S") && !option.starts_with("--")
                    {
                        say(SHELL_STRING);
                    } else if let Some(dir) = env_chdir(option, argument) {
                        let mut moved = run_at.take().unwrap_or_else(|| at.clone());
                        moved.cd(dir.filter(|d| !d.is_empty()), true);
                        run_at = Some(moved);
                    }
                }
                continue;
            }
            break;
        }
        let Some(program) = rest.next() else {
            continue;
        };
        let name = base_name(program);
        if name == "eval" {
            // Its words are a command of their own, which may `cd`: from here the folder is
            // not known.
            say(EVAL);
            at.cd(None, alone);
            continue;
        }
        if matches!(name, "for" | "select" | "function") {
            say(LOOP_OR_FUNCTION);
            continue;
        }
        if name == "cd" || name == "pushd" {
            // Its options (`-P`, `-L`, `--`) are not the folder; no folder is the home one.
            let mut target = None;
            for word in rest.by_ref() {
                if word == "--" {
                    target = rest.next();
                    break;
                }
                if !(word.starts_with('-') && word != "-") {
                    target = Some(word);
                    break;
                }
            }
            let home = home.map(|h| h.to_string_lossy().into_owned());
            let target = match target.map(String::as_str) {
                // The folder before: not followed, but it is among the candidates.
                Some("-") => None,
                Some(dir) if dir.contains(['$', '`']) || dir.starts_with('~') && home.is_none() => {
                    say(CD_VARIABLE);
                    None
                }
                // Looked up under `CDPATH`'s folders first.
                Some(dir) if cdpath && !Path::new(dir).is_absolute() && !dir.starts_with('.') => {
                    None
                }
                Some(dir) => Some(dir.to_owned()),
                None => home,
            };
            at.cd(target.as_deref(), alone);
            continue;
        }
        let at = run_at.as_ref().unwrap_or(&at);
        let interpreter = INTERPRETERS.contains(&name);
        if name == "." || name == "source" {
            if let Some(script) = rest.next() {
                add(at, script, true);
            }
            continue;
        }
        if looks_like_path(program) && !interpreter {
            add(at, program, true);
            continue;
        }
        if !interpreter {
            continue;
        }
        let mut primary_taken = false;
        for word in rest {
            if let Some(target) = word.strip_prefix(STDIN_MARK) {
                add(at, target, !primary_taken);
                primary_taken = true;
                continue;
            }
            if runs_no_script(name, word) {
                if SHELLS.contains(&name) {
                    say(SHELL_STRING);
                }
                break;
            }
            if word.starts_with('-') || SUBCOMMANDS.contains(&word.as_str()) {
                continue;
            }
            // A file name: a path, or a name with an extension (`guard.py`).
            if looks_like_path(word) || word.contains('.') {
                add(at, word, !primary_taken);
            }
            primary_taken = true;
        }
    }
    (found, unfollowed)
}

/// Words an interpreter takes before its script (`uv run x.py`, `deno run x.ts`).
const SUBCOMMANDS: [&str; 2] = ["run", "exec"];

/// Marks a word that is an input redirection's target (`sh < x.sh`): the file the shell feeds
/// the program.
const STDIN_MARK: &str = "\u{0}<";

/// `NAME=value` before a command's program.
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn looks_like_path(word: &str) -> bool {
    word.contains('/') || word.contains('\\')
}

fn base_name(word: &str) -> &str {
    word.rsplit(['/', '\\']).next().unwrap_or(word)
}

/// `$CLAUDE_PROJECT_DIR`, and `${CLAUDE_PROJECT_DIR...}` in the forms whose value is still
/// the folder (see [`keeps_the_folder`]), replaced by the project folder, and `~`, `~/...`,
/// `$HOME` and `${HOME}` by the home folder, when known (else left, so the word names
/// nothing); and whether no other `${CLAUDE_PROJECT_DIR...}` form was left (`:+x`, `#/`).
fn expand(word: &str, project_dir: Option<&Path>, home: Option<&Path>) -> (String, bool) {
    let mut kept = true;
    const OPEN: &str = "${CLAUDE_PROJECT_DIR";
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        // The operator and its word, up to the `}` that closes this one.
        let mut depth = 0usize;
        let close = after.char_indices().find(|&(_, c)| match c {
            '{' => {
                depth += 1;
                false
            }
            '}' if depth == 0 => true,
            '}' => {
                depth -= 1;
                false
            }
            _ => false,
        });
        let Some((end, _)) = close else {
            // Not closed: a form this does not read.
            kept = false;
            out.push_str(&rest[at..]);
            rest = "";
            break;
        };
        let operator = &after[..end];
        match project_dir {
            Some(dir) if keeps_the_folder(operator) => out.push_str(&dir.to_string_lossy()),
            _ => {
                kept &= keeps_the_folder(operator);
                out.push_str(&rest[at..at + OPEN.len() + end + 1]);
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    let mut word = out;
    if let Some(dir) = project_dir {
        word = word.replace("$CLAUDE_PROJECT_DIR", &dir.to_string_lossy());
    }
    if let Some(home) = home {
        let home = home.to_string_lossy();
        if word == "~" || word.starts_with("~/") {
            word = format!("{home}{}", &word[1..]);
        }
        word = word.replace("${HOME}", &home);
        // `$HOME` only as a whole name: `$HOMEDIR` is another variable.
        let mut out = String::new();
        let mut rest = word.as_str();
        while let Some(at) = rest.find("$HOME") {
            let after = &rest[at + "$HOME".len()..];
            out.push_str(&rest[..at]);
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                out.push_str("$HOME");
            } else {
                out.push_str(&home);
            }
            rest = after;
        }
        out.push_str(rest);
        word = out;
    }
    (word, kept)
}

/// Whether `${CLAUDE_PROJECT_DIR<operator>}` is the project folder, which is set and not empty
/// when a handler runs: a default (`:-x`, `-x`, `:=x`, `=x`) or an error (`:?x`, `?x`) is not
/// used, and removing a trailing `/` (`%/`, `%%/`) leaves the same folder. Another name
/// (`${CLAUDE_PROJECT_DIRX}`) or another operator (`:+x`, `#/`, `/a/b`) is not.
fn keeps_the_folder(operator: &str) -> bool {
    operator.is_empty()
        || ["-", ":-", "=", ":=", "?", ":?"]
            .iter()
            .any(|op| operator.starts_with(op))
        || matches!(operator, "%/" | "%%/")
}

/// Whether `line` has a command substitution (`$(...)`, backquotes) outside single quotes:
/// a command's output, which no reading knows, becomes words of the command.
fn substitutes(line: &str) -> bool {
    let mut chars = line.chars().peekable();
    let mut double = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '\'' if !double => {
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                }
            }
            '"' => double = !double,
            '`' => return true,
            // `$((...))` is arithmetic, not a command.
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                if chars.peek() != Some(&'(') {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// `.` and `..` resolved in the text, so a path leading out of the project is seen to.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What the word being read is the target of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirect {
    None,
    Input,
    Output,
}

/// An operator between simple commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `(`, a subshell opens (also `$(`).
    Open,
    /// `)`, it ends.
    Close,
    /// `|` (and `|&`).
    Pipe,
    /// A lone `&`.
    Background,
    /// `;`, `&&`, `||`, a newline: the next command runs in the same shell.
    Sequence,
}

/// A simple command's words, or an operator.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Words(Vec<String>),
    Op(Op),
}

/// `line` read into simple commands and the operators between them, quotes removed, a
/// backslash-newline joining lines; an output redirection's target is not a word of the
/// command, an input redirection's is marked with [`STDIN_MARK`].
fn pieces(line: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut redirect = Redirect::None;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String,
                    in_word: &mut bool,
                    redirect: &mut Redirect,
                    current: &mut Vec<String>| {
        if *in_word {
            let taken = std::mem::take(word);
            match *redirect {
                Redirect::None => current.push(taken),
                Redirect::Input => current.push(format!("{STDIN_MARK}{taken}")),
                Redirect::Output => {}
            }
            *redirect = Redirect::None;
        }
        *in_word = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('\n') => {
                                chars.next();
                            }
                            Some(&next) if matches!(next, '"' | '\\' | '$' | '`') => {
                                chars.next();
                                word.push(next);
                            }
                            _ => word.push(q),
                        },
                        _ => word.push(q),
                    }
                }
            }
            '\\' => match chars.next() {
                // A line continued: nothing, not even a word's end.
                Some('\n') => {}
                Some(next) => {
                    in_word = true;
                    word.push(next);
                }
                None => {}
            },
            ';' | '|' | '&' | '\n' | '(' | ')' => {
                end_word(&mut word, &mut in_word, &mut redirect, &mut current);
                redirect = Redirect::None;
                if !current.is_empty() {
                    pieces.push(Piece::Words(std::mem::take(&mut current)));
                }
                let op = match c {
                    '(' => Op::Open,
                    ')' => Op::Close,
                    '|' if chars.peek() == Some(&'|') => {
                        chars.next();
                        Op::Sequence
                    }
                    '|' => {
                        if chars.peek() == Some(&'&') {
                            chars.next();
                        }
                        Op::Pipe
                    }
                    '&' if chars.peek() == Some(&'&') => {
                        chars.next();
                        Op::Sequence
                    }
                    '&' => Op::Background,
                    _ => Op::Sequence,
                };
                pieces.push(Piece::Op(op));
            }
            '>' | '<' => {
                // `2>` and `>&2`: the digits before belong to the operator.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                end_word(&mut word, &mut in_word, &mut redirect, &mut current);
                while matches!(chars.peek(), Some('>' | '&')) {
                    chars.next();
                }
                redirect = match c {
                    '<' => Redirect::Input,
                    _ => Redirect::Output,
                };
            }
            c if c.is_whitespace() => {
                end_word(&mut word, &mut in_word, &mut redirect, &mut current);
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut redirect, &mut current);
    if !current.is_empty() {
        pieces.push(Piece::Words(current));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `command` names inside the project `/w` (the home folder is `/h`).
    fn named(command: &str) -> Vec<String> {
        anywhere(command)
            .into_iter()
            .filter(|n| n.starts_with("/w/"))
            .collect()
    }

    /// What `command` names, wherever.
    fn anywhere(command: &str) -> Vec<String> {
        scripts_named(command, Some(Path::new("/w")), Some(Path::new("/h")))
            .iter()
            .map(|n| {
                // Windows writes the same paths with `\`.
                let path = n.path.display().to_string().replace('\\', "/");
                format!("{path}{}", if n.primary { "" } else { " (also)" })
            })
            .collect()
    }

    #[test]
    fn the_program_path_and_an_interpreters_script_are_named() {
        assert_eq!(
            named(r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh"#),
            ["/w/.claude/hooks/guard.sh"]
        );
        assert_eq!(
            named("${CLAUDE_PROJECT_DIR}/.claude/hooks/g.sh --strict"),
            ["/w/.claude/hooks/g.sh"]
        );
        assert_eq!(
            named("python3 .claude/hooks/check.py"),
            ["/w/.claude/hooks/check.py"]
        );
        assert_eq!(named("uv run -q hooks/x.py"), ["/w/hooks/x.py"]);
        assert_eq!(named("FOO=1 node ./h.js arg"), ["/w/h.js"]);
        assert_eq!(
            named("./a.sh && bash b.sh 2>/dev/null | ./a.sh"),
            ["/w/a.sh", "/w/b.sh"]
        );
    }

    /// Attack on issue 36: spellings whose script an approval did not cover.
    #[test]
    fn wrappers_absolute_interpreters_cd_source_redirections_and_loaded_files_count() {
        assert_eq!(named("/bin/sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("/usr/bin/env bash x.sh"), ["/w/x.sh"]);
        assert_eq!(named("env -i FOO=1 sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("ksh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("timeout 5 sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("timeout 2.5s ./g.sh"), ["/w/g.sh"]);
        assert_eq!(named("nice -n 5 sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("bash -e x.sh"), ["/w/x.sh"]);
        // `ignore` is read as the script (an option's value is not told apart): x.py still counts.
        assert_eq!(named("python3 -W ignore x.py"), ["/w/x.py (also)"]);
        assert_eq!(
            named("node -r ./.claude/hooks/pre.js .claude/hooks/g.js"),
            ["/w/.claude/hooks/pre.js", "/w/.claude/hooks/g.js (also)"]
        );
        // The cd may fail, and then `./g.sh` is the project's: named too, when it exists.
        assert_eq!(
            named("cd .claude/hooks && ./g.sh"),
            ["/w/.claude/hooks/g.sh", "/w/g.sh (also)"]
        );
        assert_eq!(named(". x.sh"), ["/w/x.sh"]);
        assert_eq!(named("source ./x.sh"), ["/w/x.sh"]);
        assert_eq!(named("sh < x.sh"), ["/w/x.sh"]);
    }

    #[test]
    fn arguments_redirections_and_paths_outside_the_project_are_not_scripts() {
        assert!(named("jq -r '.tool_input.command' | grep -q 'rm -rf /'").is_empty());
        assert!(named("echo hi > ./out.log").is_empty());
        assert!(named("/usr/bin/env true").is_empty());
        assert!(named("../elsewhere/x.sh").is_empty());
        assert!(named("npx prettier --write .").is_empty());
        assert!(named("node -e 'process.exit(0)'").is_empty());
        assert!(named("python3 -c 'print(1)' x.py").is_empty());
        assert!(named("bash -c 'echo hi'").is_empty());
        assert!(named("python3 -m black .").is_empty());
        assert!(named("uv run ruff").is_empty());
        assert!(named("").is_empty());
        assert!(named("'unterminated").len() <= 1);
    }

    /// Attack 04: a `cd` read wrongly named a file other than the one the shell runs.
    #[test]
    fn a_cd_in_a_subshell_ends_with_it_and_its_options_are_not_the_folder() {
        assert_eq!(named("(cd scripts); sh x.sh"), ["/w/x.sh"]);
        assert_eq!(
            named("(cd scripts && sh x.sh)"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        assert_eq!(
            named("(cd a; (cd b); sh x.sh); sh y.sh"),
            ["/w/a/x.sh", "/w/x.sh (also)", "/w/y.sh"]
        );
        assert_eq!(named("x=$(cd scripts); sh x.sh"), ["/w/x.sh"]);
        assert_eq!(
            named("cd -- scripts && sh x.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        assert_eq!(
            named("cd -P scripts && sh x.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        assert_eq!(
            named("cd -L -P -- -d && sh x.sh"),
            ["/w/-d/x.sh", "/w/x.sh (also)"]
        );
        // A cd in a pipeline or in the background runs in a subshell: the folder stays.
        assert_eq!(
            named("cd scripts | true; sh x.sh"),
            ["/w/x.sh", "/w/scripts/x.sh (also)"]
        );
        assert_eq!(
            named("cd scripts & sh x.sh"),
            ["/w/x.sh", "/w/scripts/x.sh (also)"]
        );
        // Not known: the folder before, or a variable's, or home (outside the project).
        assert_eq!(
            named("cd a; cd -; sh x.sh"),
            ["/w/x.sh (also)", "/w/a/x.sh (also)"]
        );
        assert_eq!(named("cd \"$D\" && ./g.sh"), ["/w/g.sh (also)"]);
        assert_eq!(named("cd; sh x.sh"), ["/w/x.sh (also)"]);
        assert_eq!(anywhere("cd; sh x.sh"), ["/h/x.sh", "/w/x.sh (also)"]);
        assert_eq!(
            named("cd \"$CLAUDE_PROJECT_DIR\"/s && ./g.sh"),
            ["/w/s/g.sh", "/w/g.sh (also)"]
        );
        assert_eq!(
            named("cd a && cd b && ./g.sh"),
            // Each cd may fail: `b` of the project is a candidate too.
            [
                "/w/a/b/g.sh",
                "/w/g.sh (also)",
                "/w/a/g.sh (also)",
                "/w/b/g.sh (also)"
            ]
        );
        assert_eq!(named("pushd a && ./g.sh"), ["/w/a/g.sh", "/w/g.sh (also)"]);
    }

    #[test]
    fn reserved_words_open_a_command_and_a_continued_line_is_one() {
        assert_eq!(
            named("if true; then sh scripts/x.sh; fi"),
            ["/w/scripts/x.sh"]
        );
        assert_eq!(
            named("if ./check.sh; then :; else ./other.sh; fi"),
            ["/w/check.sh", "/w/other.sh"]
        );
        assert_eq!(named("{ sh x.sh; }"), ["/w/x.sh"]);
        assert_eq!(named("! ./g.sh"), ["/w/g.sh"]);
        assert_eq!(
            named("while ./a.sh; do ./b.sh; done"),
            ["/w/a.sh", "/w/b.sh"]
        );
        assert_eq!(named("until false; do FOO=1 sh x.sh; done"), ["/w/x.sh"]);
        assert_eq!(
            named("cd scripts &&\\\n sh x.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        assert_eq!(named("sh \\\n  x.sh"), ["/w/x.sh"]);
        assert_eq!(named("./long\\\nname.sh"), ["/w/longname.sh"]);
        assert_eq!(named("sh \"x\\\n.sh\""), ["/w/x.sh"]);
    }

    /// Attack on the missing-script warning: `$HOME` read as a folder of the project.
    #[test]
    fn home_is_expanded_and_a_variable_left_names_nothing() {
        assert_eq!(anywhere("$HOME/bin/guard.sh"), ["/h/bin/guard.sh"]);
        assert_eq!(anywhere("~/bin/g.sh"), ["/h/bin/g.sh"]);
        assert_eq!(anywhere("sh ${HOME}/x.sh"), ["/h/x.sh"]);
        assert_eq!(
            anywhere("python3 \"$HOME\"/.claude/hooks/g.py"),
            ["/h/.claude/hooks/g.py"]
        );
        assert!(anywhere("$HOMEDIR/x.sh").is_empty());
        assert!(anywhere("~other/x.sh").is_empty());
        assert!(anywhere("$TOOLS/x.sh").is_empty());
        assert!(anywhere("sh \"$(dirname \"$0\")/x.sh\"").is_empty());
        // Without a home folder known, `~` names nothing: never a file of the project.
        let none = scripts_named("~/bin/g.sh; $HOME/x.sh", Some(Path::new("/w")), None);
        assert!(none.is_empty());
    }

    #[test]
    fn without_a_project_only_absolute_paths_are_named() {
        // Absolute as the platform reads it: a drive on Windows.
        let root = if cfg!(windows) { "C:" } else { "" };
        let named: Vec<Named> = scripts_named(
            &format!("python3 g.py; {root}/opt/x.sh; ~/y.sh; \"$CLAUDE_PROJECT_DIR\"/z.sh"),
            None,
            Some(Path::new(&format!("{root}/h"))),
        );
        let paths: Vec<String> = named
            .iter()
            .map(|n| n.path.display().to_string().replace('\\', "/"))
            .collect();
        assert_eq!(
            paths,
            [format!("{root}/opt/x.sh"), format!("{root}/h/y.sh")]
        );
    }

    /// Attack 2-04: a wrapper's option that takes an argument read as the program.
    #[test]
    fn a_wrappers_options_with_an_argument_are_skipped_and_env_chdir_moves_the_command() {
        assert_eq!(
            named("timeout -s KILL 5 sh scripts/x.sh"),
            ["/w/scripts/x.sh"]
        );
        assert_eq!(named("timeout --signal KILL 1m sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("timeout -sKILL -k 2 5 sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("env -u NAME sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("nice -n 5 sh scripts/x.sh"), ["/w/scripts/x.sh"]);
        assert_eq!(named("stdbuf -o L sh x.sh"), ["/w/x.sh"]);
        assert_eq!(named("xargs -I {} sh x.sh {}"), ["/w/x.sh"]);
        assert_eq!(named("exec -a name ./g.sh"), ["/w/g.sh"]);
        // `env -C` is a cd for its command only (which fails if the folder does not exist).
        assert_eq!(
            named("env -C scripts sh x.sh; sh y.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)", "/w/y.sh"]
        );
        assert_eq!(
            named("env --chdir=scripts sh x.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        assert_eq!(
            named("env -Cscripts -u A sh x.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        assert_eq!(
            named("builtin cd scripts; sh x.sh"),
            ["/w/scripts/x.sh", "/w/x.sh (also)"]
        );
        for command in [
            "timeout -s KILL 5 sh x.sh",
            "env -C s sh x.sh",
            "nice -n 5 ./g.sh",
        ] {
            assert!(unfollowed(command).is_empty(), "{command}");
        }
    }

    /// Attack 2-04: `${CLAUDE_PROJECT_DIR...}` forms other than the plain one.
    #[test]
    fn the_project_dir_with_a_default_or_a_trailing_slash_removed_is_the_project() {
        assert_eq!(
            named(r#"sh "${CLAUDE_PROJECT_DIR:-/nonexistent}/scripts/x.sh""#),
            ["/w/scripts/x.sh"]
        );
        assert_eq!(
            named(r#"sh "${CLAUDE_PROJECT_DIR%/}/scripts/x.sh""#),
            ["/w/scripts/x.sh"]
        );
        assert_eq!(
            named("${CLAUDE_PROJECT_DIR:=${HOME}}/g.sh; ${CLAUDE_PROJECT_DIR?}/h.sh"),
            ["/w/g.sh", "/w/h.sh"]
        );
        assert!(unfollowed(r#"sh "${CLAUDE_PROJECT_DIR:-/x}/s/x.sh""#).is_empty());
        // Another value than the folder: named nothing, and said.
        assert!(named("sh ${CLAUDE_PROJECT_DIR:+/opt}/x.sh").is_empty());
        assert_eq!(
            unfollowed("sh ${CLAUDE_PROJECT_DIR#/}/x.sh"),
            [PROJECT_DIR_CHANGED]
        );
        assert_eq!(
            unfollowed("CLAUDE_PROJECT_DIR=/tmp; sh \"$CLAUDE_PROJECT_DIR\"/x.sh"),
            [PROJECT_DIR_CHANGED]
        );
        assert!(named("CLAUDE_PROJECT_DIR=/tmp; sh \"$CLAUDE_PROJECT_DIR\"/x.sh").is_empty());
    }

    /// Attack 2-04: what no reading can follow is said, and after a cd to a folder not known
    /// the files named are only candidates (never said missing).
    #[test]
    fn what_cannot_be_followed_is_said_and_its_files_are_only_candidates() {
        let cases: [(&str, &[&str]); 14] = [
            (
                "cd $(echo scripts) && sh x.sh",
                &[SUBSTITUTION, CD_VARIABLE],
            ),
            ("cd `echo scripts` && sh x.sh", &[SUBSTITUTION, CD_VARIABLE]),
            ("sh x.sh $(cd scripts)", &[SUBSTITUTION]),
            ("set -- scripts; cd \"$1\"; sh x.sh", &[CD_VARIABLE]),
            ("cd $d && ./g.sh", &[CD_VARIABLE]),
            ("CDPATH=scripts cd sub && sh x.sh", &[CDPATH]),
            ("eval cd scripts; sh x.sh", &[EVAL]),
            ("eval \"sh scripts/x.sh\"", &[EVAL]),
            ("sh -c \"sh scripts/x.sh\"", &[SHELL_STRING]),
            ("env -S 'sh x.sh'", &[SHELL_STRING]),
            ("HOME=$CLAUDE_PROJECT_DIR/scripts; sh ~/x.sh", &[HOME_SET]),
            (
                "for d in scripts; do cd $d; done; sh x.sh",
                &[LOOP_OR_FUNCTION, CD_VARIABLE],
            ),
            ("f() { sh scripts/x.sh; }; f", &[LOOP_OR_FUNCTION]),
            ("function f { ./g.sh; }; f", &[LOOP_OR_FUNCTION]),
        ];
        for (command, said) in cases {
            assert_eq!(unfollowed(command), said, "{command}");
        }
        // No file of the project is the likely one after them: none is said missing.
        for command in [
            "cd `echo scripts` && sh x.sh",
            "cd $(echo scripts) && sh x.sh",
            "eval cd scripts; sh x.sh",
            "CDPATH=scripts cd sub && sh x.sh",
            "cd \"$1\"; sh x.sh",
        ] {
            let primary: Vec<String> = named(command)
                .into_iter()
                .filter(|n| !n.ends_with("(also)"))
                .collect();
            assert!(primary.is_empty(), "{command}: {primary:?}");
        }
        assert_eq!(named("cd `echo scripts` && sh x.sh"), ["/w/x.sh (also)"]);
        // `~` after HOME is set names nothing: not the host's home.
        assert!(anywhere("HOME=/elsewhere; sh ~/x.sh").is_empty());
        assert!(anywhere("export HOME=/elsewhere; sh $HOME/x.sh").is_empty());
        // An eval in a subshell leaves the folder outside it known.
        assert_eq!(named("(eval cd a); sh x.sh"), ["/w/x.sh"]);
    }

    #[test]
    fn what_is_followed_says_nothing_and_quoted_text_is_no_substitution() {
        for command in [
            r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh"#,
            "cd .claude/hooks && ./g.sh",
            "cd ~ && sh x.sh",
            "cd a; cd -; sh x.sh",
            "jq -r '.x | \"$(no)\" + `no`' | grep -q x",
            "echo $((1 + 2))",
            "node -e 'process.exit(0)'",
            "case x in x) cd scripts;; esac; sh x.sh",
        ] {
            assert!(
                unfollowed(command).is_empty(),
                "{command}: {:?}",
                unfollowed(command)
            );
        }
        assert_eq!(
            unfollowed_warning(&[EVAL, SUBSTITUTION]),
            "its command runs files in a way an approval cannot follow (`eval`, `$(...)`): the approval covers its text and every file of .claude/hooks only; keep the scripts it runs in .claude/hooks"
        );
    }

    #[test]
    fn paths_outside_the_project_are_named_for_the_missing_check() {
        assert_eq!(anywhere("/nonexistent/x.sh"), ["/nonexistent/x.sh"]);
        assert_eq!(anywhere("../elsewhere/x.sh"), ["/elsewhere/x.sh"]);
        assert_eq!(anywhere("/usr/bin/env true"), Vec::<String>::new());
    }
}
