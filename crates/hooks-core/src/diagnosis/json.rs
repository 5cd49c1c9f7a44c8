//! How the doctor's report is written as JSON (the `diagnoseHooks` result): camelCase names,
//! paths as text (lossy where a path is not Unicode, never an error), labels as their names.

use std::path::{Path, PathBuf};

use serde::Serializer;

use super::Problem;
use crate::discovery::{Profile, Source};
use crate::policy::TrustScope;

pub(super) fn path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

// serde hands `serialize_with` a reference to the field, whatever its type.
#[allow(clippy::ref_option)]
pub(super) fn some_path<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => s.serialize_str(&path.to_string_lossy()),
        None => s.serialize_none(),
    }
}

pub(super) fn source<S: Serializer>(source: &Source, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(source.as_str())
}

#[allow(clippy::ref_option)]
pub(super) fn some_problem<S: Serializer>(
    problem: &Option<Problem>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match problem {
        Some(problem) => s.serialize_str(problem.as_str()),
        None => s.serialize_none(),
    }
}

pub(super) fn profile<S: Serializer>(profile: &Profile, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match profile {
        Profile::Extension => "extension",
        Profile::Cli => "cli",
    })
}

pub(super) fn trust<S: Serializer>(trust: &TrustScope, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(trust.as_str())
}
