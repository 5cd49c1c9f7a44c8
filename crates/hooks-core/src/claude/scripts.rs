//! Which files a settings command runs from its project: the program of each simple command
//! when it is a path (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`), and the script an
//! interpreter is given (`python3 .claude/hooks/guard.py`). An approval covers their bytes, and
//! a path that names no file is said at discovery (the shell would fail with exit 127 and the
//! guard would never run). Read the way `sh` splits words, for the common forms only: a
//! command this does not understand names no script (its text is still approved). Pure.

use std::path::{Component, Path, PathBuf};

/// Programs whose first argument that is not an option is the script they run (`npx` is not
/// one: its first word is a package).
const INTERPRETERS: [&str; 15] = [
    "sh", "bash", "zsh", "dash", "python", "python3", "node", "bun", "deno", "ruby", "perl", "tsx",
    "ts-node", "pwsh", "uv",
];

/// Options after which an interpreter runs code given on the command line or a module, not
/// a script file (`bash -c '...'`, `node -e '...'`, `python3 -m pkg`).
const NO_SCRIPT: [&str; 8] = [
    "-c", "-e", "--eval", "-p", "--print", "-m", "-Command", "-command",
];

/// Words an interpreter takes before its script (`uv run x.py`, `deno run x.ts`).
const SUBCOMMANDS: [&str; 2] = ["run", "exec"];

/// The script files `command` names inside `area` (its project folder), resolved against
/// `project_dir` where relative, `$CLAUDE_PROJECT_DIR` expanded; in order, without repeats.
pub fn scripts_named(command: &str, project_dir: &Path, area: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for words in simple_commands(command) {
        let mut words = words
            .iter()
            .skip_while(|w| is_assignment(w))
            .map(|w| expand(w, project_dir));
        let Some(program) = words.next() else {
            continue;
        };
        let script = if looks_like_path(&program) {
            Some(program)
        } else if INTERPRETERS.contains(&base_name(&program)) {
            let mut script = None;
            for word in words.by_ref() {
                if NO_SCRIPT.contains(&word.as_str()) {
                    break;
                }
                if !word.starts_with('-') && !SUBCOMMANDS.contains(&word.as_str()) {
                    script = Some(word);
                    break;
                }
            }
            // A file name: a path, or a name with an extension (`guard.py`).
            script.filter(|w| looks_like_path(w) || w.contains('.'))
        } else {
            None
        };
        let Some(script) = script else { continue };
        let path = normalize(&project_dir.join(&script));
        if path.starts_with(area) && !found.contains(&path) {
            found.push(path);
        }
    }
    found
}

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

/// The words of each simple command of `line` (split at `;`, `|`, `&`, newlines), quotes
/// removed; a redirection's target is not a word of the command.
fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut redirect = false;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String,
                    in_word: &mut bool,
                    redirect: &mut bool,
                    commands: &mut Vec<Vec<String>>| {
        if *in_word {
            let taken = std::mem::take(word);
            if *redirect {
                *redirect = false;
            } else if let Some(current) = commands.last_mut() {
                current.push(taken);
            }
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
                redirect = false;
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
                redirect = true;
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
            .map(|p| p.to_string_lossy().into_owned())
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
        assert!(named("'unterminated").is_empty() || named("'unterminated").len() == 1);
    }
}
