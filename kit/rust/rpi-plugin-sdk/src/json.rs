//! JSON across the boundary (feature `json`). serde_json is built with `preserve_order` and
//! `arbitrary_precision`, as the ABI requires of both sides, so key order and big integers survive.

pub use serde_json;
pub use serde_json::{json, Value};

use crate::{StbString, StbStringRef};
use serde::de::DeserializeOwned;

/// Parses an ABI string as JSON into `T`.
///
/// # Safety
/// `s` must describe a live buffer that stays unchanged during the parse.
pub unsafe fn from_stable<T: DeserializeOwned>(s: &StbString) -> serde_json::Result<T> {
    serde_json::from_slice(s.as_bytes())
}

/// Parses a borrowed ABI string as JSON into `T`.
///
/// # Safety
/// As for [`from_stable`].
pub unsafe fn from_stable_ref<T: DeserializeOwned>(s: &StbStringRef) -> serde_json::Result<T> {
    serde_json::from_slice(s.as_bytes())
}

/// Parses text that may be empty or invalid as an object (the host's rule for action args: `{}` then).
pub fn object_or_empty(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => value,
        _ => Value::Object(Default::default()),
    }
}

/// An SDK-owned ABI string holding `value`'s JSON text (free with [`crate::callbacks::free_string`]).
pub fn to_stable(value: &Value) -> StbString {
    StbString::from_string(value.to_string())
}
