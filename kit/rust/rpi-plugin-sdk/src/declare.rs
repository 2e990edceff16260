//! `declare`: a plugin's load priority (smaller first, default 100), the platforms it supports, and whether
//! it owns the process's stdin/stdout.

use crate::{PluginApi, StbStringRef};

/// What a plugin declares during registration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declaration {
    /// Smaller runs first; `None` leaves the host's default (100).
    pub priority: Option<i64>,
    /// `"linux"`, `"macos"`, `"windows"`, `"android"` or `"all"`; empty means every platform.
    pub platforms: Vec<String>,
    /// Requests exclusive ownership of stdin/stdout (then use `StdioLifecycle` to finish).
    pub owns_stdio: bool,
}

impl Declaration {
    pub fn to_json(&self) -> String {
        let mut parts = Vec::new();
        if let Some(priority) = self.priority {
            parts.push(format!("\"priority\":{priority}"));
        }
        if !self.platforms.is_empty() {
            let list: Vec<String> = self.platforms.iter().map(|p| quote(p)).collect();
            parts.push(format!("\"platforms\":[{}]", list.join(",")));
        }
        if self.owns_stdio {
            parts.push("\"ownsStdio\":true".to_string());
        }
        format!("{{{}}}", parts.join(","))
    }
}

/// Sends `json` through the `declare` slot; `None` when the host has no such slot, else its code
/// (0 accepted; nonzero = the host logged it and kept its defaults).
pub fn declare_json(api: &PluginApi, json: &str) -> Option<i32> {
    api.declare.map(|declare| declare(StbStringRef::from_str(json)))
}

/// Sends a [`Declaration`].
pub fn declare(api: &PluginApi, declaration: &Declaration) -> Option<i32> {
    declare_json(api, &declaration.to_json())
}

/// A JSON string literal for `s` (std-only: the default features have no serde_json).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
