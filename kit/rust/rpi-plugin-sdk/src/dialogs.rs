//! `UiDialog` (runtime action 17) request checks shared by plugins and adapters (feature `json`).
//!
//! A presentation `kind` never implies permission. `ui.purpose` omitted means `"question"`;
//! `"permission"` needs a nonempty `toolCallId`, a flat single-choice `confirm`/`selector`, and on every
//! option a `permission` decision (`allow_once`, `allow_always`, `reject_once`, `reject_always`) and a
//! title that is nonempty, unique and has no surrounding whitespace. Permission questions take no nested
//! questions, multiple answers or freeform input.

use serde_json::Value;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogPurpose {
    Question,
    Permission,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionDecision {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

impl PermissionDecision {
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "allow_once" => PermissionDecision::AllowOnce,
            "allow_always" => PermissionDecision::AllowAlways,
            "reject_once" => PermissionDecision::RejectOnce,
            "reject_always" => PermissionDecision::RejectAlways,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionDecision::AllowOnce => "allow_once",
            PermissionDecision::AllowAlways => "allow_always",
            PermissionDecision::RejectOnce => "reject_once",
            PermissionDecision::RejectAlways => "reject_always",
        }
    }

    pub fn allows(self) -> bool {
        matches!(self, PermissionDecision::AllowOnce | PermissionDecision::AllowAlways)
    }
}

/// One choice of a permission dialog. Answers carry `title` unchanged in `values`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionOption {
    pub title: String,
    pub description: Option<String>,
    pub permission: PermissionDecision,
}

/// Why a dialog request was refused; the text names the offending field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogError(pub String);

impl fmt::Display for DialogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DialogError {}

fn fail<T>(message: impl Into<String>) -> Result<T, DialogError> {
    Err(DialogError(message.into()))
}

fn str_field<'a>(value: &'a Value, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|name| value.get(*name).and_then(Value::as_str))
}

/// The `ui` object of a request envelope (`ui` defaults to the whole envelope).
pub fn ui_of(request: &Value) -> &Value {
    match request.get("ui") {
        Some(ui @ Value::Object(_)) => ui,
        _ => request,
    }
}

/// Checks a whole `UiDialog` request envelope `{op, requestId, toolCallId?, ui}` and returns its purpose.
pub fn validate(request: &Value) -> Result<DialogPurpose, DialogError> {
    if !request.is_object() {
        return fail("ui_dialog arguments must be a JSON object");
    }
    let op = str_field(request, &["op"]).unwrap_or("open");
    if !matches!(op, "open" | "poll" | "cancel" | "response" | "respond") {
        return fail(format!("unknown UI dialog operation `{op}`"));
    }
    match str_field(request, &["requestId", "request_id"]) {
        Some(id) if !id.is_empty() => {}
        _ => return fail("missing non-empty `requestId`"),
    }
    if op != "open" {
        return Ok(DialogPurpose::Question);
    }
    let ui = ui_of(request);
    match ui.get("purpose") {
        None | Some(Value::Null) => Ok(DialogPurpose::Question),
        Some(Value::String(p)) if p == "question" => Ok(DialogPurpose::Question),
        Some(Value::String(p)) if p == "permission" => {
            match str_field(request, &["toolCallId", "tool_call_id"]) {
                Some(id) if !id.trim().is_empty() => {}
                _ => return fail("ui.purpose \"permission\" requires a non-empty `toolCallId`"),
            }
            permission_options(ui)?;
            Ok(DialogPurpose::Permission)
        }
        Some(other) => fail(format!("ui.purpose must be \"question\" or \"permission\", got {other}")),
    }
}

/// The options of a permission `ui` object, checked (kind, flat single choice, decisions, titles).
pub fn permission_options(ui: &Value) -> Result<Vec<PermissionOption>, DialogError> {
    match str_field(ui, &["kind"]) {
        Some("confirm") | Some("selector") => {}
        Some(kind) => return fail(format!("a permission dialog must be kind \"confirm\" or \"selector\", not \"{kind}\"")),
        None => return fail("a permission dialog needs ui.kind \"confirm\" or \"selector\""),
    }
    if ui.get("questions").is_some() {
        return fail("a permission dialog cannot contain nested `questions`");
    }
    if ui.get("allowMultiple").and_then(Value::as_bool) == Some(true) {
        return fail("a permission dialog is single-choice: `allowMultiple` must not be true");
    }
    if ui.get("allowFreeform").and_then(Value::as_bool) == Some(true) {
        return fail("a permission dialog takes no freeform input: `allowFreeform` must not be true");
    }
    let Some(options) = ui.get("options").and_then(Value::as_array) else {
        return fail("a permission dialog needs a `options` array");
    };
    if options.is_empty() {
        return fail("a permission dialog needs at least one option");
    }
    let mut out: Vec<PermissionOption> = Vec::with_capacity(options.len());
    for (index, option) in options.iter().enumerate() {
        let Some(title) = option.get("title").and_then(Value::as_str) else {
            return fail(format!("options[{index}].title must be a string"));
        };
        if title.is_empty() {
            return fail(format!("options[{index}].title must not be empty"));
        }
        if title.trim() != title {
            return fail(format!("options[{index}].title {title:?} has surrounding whitespace"));
        }
        if out.iter().any(|seen| seen.title == title) {
            return fail(format!("options[{index}].title {title:?} is not unique"));
        }
        if option.get("options").is_some() || option.get("questions").is_some() {
            return fail(format!("options[{index}] is nested; a permission dialog is flat"));
        }
        let Some(permission) = option.get("permission").and_then(Value::as_str).and_then(PermissionDecision::parse)
        else {
            return fail(format!(
                "options[{index}].permission must be one of allow_once, allow_always, reject_once, reject_always"
            ));
        };
        let description = option.get("description").and_then(Value::as_str).map(str::to_owned);
        out.push(PermissionOption { title: title.to_owned(), description, permission });
    }
    Ok(out)
}
