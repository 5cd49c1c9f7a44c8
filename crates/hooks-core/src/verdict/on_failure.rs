//! What a failure means for the run ([`OnFailure`]: allow or block), the word a header's
//! `onFailure=` and the API's `onFailure` option both say; failure_policy.rs applies it.

/// What a failure of one kind means for the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnFailure {
    /// The tool goes ahead (the documented default: a broken hook never blocks).
    #[default]
    Allow,
    /// The run counts as `cancel: true` (fail closed).
    Block,
}

impl OnFailure {
    /// Its name in the Node API: `allow` or `block`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnFailure::Allow => "allow",
            OnFailure::Block => "block",
        }
    }
}
