//! Which files a settings command runs from its project: the program of each simple command
//! when it is a path (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`), and the script an
//! interpreter is given (`python3 .claude/hooks/guard.py`). An approval covers their bytes, and
//! a path that names no file is said at discovery (the shell would fail with exit 127 and the
//! guard would never run). Read the way `sh` splits words, for the common forms only: a
//! command this does not understand names no script (its text is still approved). Pure.

use std::path::{Component, Path, PathBuf};

/// Programs that run a script file they are given as an argument.
const INTERPRETERS: [&str; 16] = [
    "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "bun", "deno", "ruby", "perl",
    "tsx", "ts-node", "pwsh", "uv",
];

/// Programs that run the command after their own options (`env sh x.sh`, `timeout 5 ./g.sh`):
/// the words after them are read as a command of their own.
const WRAPPERS: [&str; 9] = [
    "env", "timeout", "nice", "nohup", "exec", "command", "time", "stdbuf", "xargs",
];

/// An interpreter's options after which it runs code from the command line or a module, not
/// a script file (`bash -c '...'`, `node -e '...'`, `python3 -m pkg`).
fn runs_no_script(interpreter: &str, option: &str) -> bool {
    match interpreter {
        "sh" | "bash" | "zsh" | "dash" | "ksh" => option == "-c",
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
    /// Whether it is what the command runs (the program, or an interpreter's script), so its
    /// absence is a mistake (the shell fails, exit 127); the other files named (an
    /// interpreter's `-r ./pre.js`, a `< x.sh`) count only when they exist.
    pub primary: bool,
}

/// The files `command` names inside `area` (its project folder), resolved against
/// `project_dir` where relative (after a `cd`, against where it went), `$CLAUDE_PROJECT_DIR`
/// expanded; in order, without repeats. Read generously: every word of an interpreter's
/// argument list that looks like a file counts, so that an approval covers what the command
/// loads, not only what it names first.
pub fn scripts_named(command: &str, project_dir: &Path, area: &Path) -> Vec<Named> {
    let mut found: Vec<Named> = Vec::new();
    let mut here = project_dir.to_path_buf();
    let mut add = |here: &Path, word: &str, primary: bool| {
        let path = normalize(&here.join(word));
        if !path.starts_with(area) {
            return;
        }
        match found.iter_mut().find(|n| n.path == path) {
            Some(named) => named.primary |= primary,
            None => found.push(Named { path, primary }),
        }
    };
    for words in simple_commands(command) {
        let words: Vec<String> = words.iter().map(|w| expand(w, project_dir)).collect();
        let mut rest = words.iter().skip_while(|w| is_assignment(w)).peekable();
        // Wrappers and their options (and `timeout`'s duration) lead to the real program.
        while let Some(word) = rest.peek() {
            let name = base_name(word);
            if WRAPPERS.contains(&name) {
                rest.next();
                while rest.peek().is_some_and(|w| {
                    w.starts_with('-')
                        || is_assignment(w)
                        || w.parse::<f64>().is_ok()
                        || w.ends_with('s') && w[..w.len() - 1].parse::<f64>().is_ok()
                }) {
                    rest.next();
                }
                continue;
            }
            break;
        }
        let Some(program) = rest.next() else {
            continue;
        };
        let name = base_name(program);
        if name == "cd" {
            if let Some(dir) = rest.next() {
                here = normalize(&here.join(dir));
            }
            continue;
        }
        let interpreter = INTERPRETERS.contains(&name);
        if name == "." || name == "source" {
            if let Some(script) = rest.next() {
                add(&here, script, true);
            }
            continue;
        }
        if looks_like_path(program) && !interpreter {
            add(&here, program, true);
            continue;
        }
        if !interpreter {
            continue;
        }
        let mut primary_taken = false;
        for word in rest {
            if let Some(target) = word.strip_prefix(STDIN_MARK) {
                add(&here, target, !primary_taken);
                primary_taken = true;
                continue;
            }
            if runs_no_script(name, word) {
                break;
            }
            if word.starts_with('-') || SUBCOMMANDS.contains(&word.as_str()) {
                continue;
            }
            // A file name: a path, or a name with an extension (`guard.py`).
            if looks_like_path(word) || word.contains('.') {
                add(&here, word, !primary_taken);
            }
            primary_taken = true;
        }
    }
    found
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

/// `$CLAUDE_PROJECT_DIR` and `${CLAUDE_PROJECT_DIR}` replaced by the project folder.
fn expand(word: &str, project_dir: &Path) -> String {
    let dir = project_dir.to_string_lossy();
    word.replace("${CLAUDE_PROJECT_DIR}", &dir)
        .replace("$CLAUDE_PROJECT_DIR", &dir)
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

/// The words of each simple command of `line` (split at `;`, `|`, `&`, newlines), quotes
/// removed; an output redirection's target is not a word of the command, an input
/// redirection's is marked with [`STDIN_MARK`].
fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut redirect = Redirect::None;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String,
                    in_word: &mut bool,
                    redirect: &mut Redirect,
                    commands: &mut Vec<Vec<String>>| {
        if *in_word {
            let taken = std::mem::take(word);
            if let Some(current) = commands.last_mut() {
                match *redirect {
                    Redirect::None => current.push(taken),
                    Redirect::Input => current.push(format!("{STDIN_MARK}{taken}")),
                    Redirect::Output => {}
                }
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
                        '\\' => {
                            if let Some(&next) = chars.peek() {
                                if matches!(next, '"' | '\\' | '$' | '`') {
                                    chars.next();
                                    word.push(next);
                                    continue;
                                }
                            }
                            word.push(q);
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    if next != '\n' {
                        word.push(next);
                    }
                }
            }
            ';' | '|' | '&' | '\n' | '(' | ')' => {
                end_word(&mut word, &mut in_word, &mut redirect, &mut commands);
                redirect = Redirect::None;
                commands.push(Vec::new());
            }
            '>' | '<' => {
                // `2>` and `>&2`: the digits before belong to the operator.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                end_word(&mut word, &mut in_word, &mut redirect, &mut commands);
                while matches!(chars.peek(), Some('>' | '&')) {
                    chars.next();
                }
                redirect = match c {
                    '<' => Redirect::Input,
                    _ => Redirect::Output,
                };
            }
            c if c.is_whitespace() => {
                end_word(&mut word, &mut in_word, &mut redirect, &mut commands);
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut redirect, &mut commands);
    commands.retain(|c| !c.is_empty());
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(command: &str) -> Vec<String> {
        scripts_named(command, Path::new("/w"), Path::new("/w"))
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
        assert_eq!(
            named("cd .claude/hooks && ./g.sh"),
            ["/w/.claude/hooks/g.sh"]
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
}
