//! Safe adapters for the string-shaped callbacks: owned strings with their deallocator, the `out` slot of
//! command/render/provider/discover callbacks, tool step results, and the macros that generate the
//! `extern "C"` trampolines (each wraps its body in `catch_unwind`).

use crate::{FreeStringFn, StbString, StepResult, StepResultTag};
use std::marker::PhantomData;

/// Returned by a generated string callback whose body panicked (the panic is contained).
pub const PANIC_STATUS: i32 = 70;

/// The SDK's deallocator: reclaims a [`StbString`] built by this crate (a `Box<[u8]>` from the Rust global
/// allocator). Register it as `plugin_free_string` for SDK-allocated outputs. Null/empty is a no-op.
///
/// # Safety
/// `s` must come from this SDK's allocation (e.g. [`StbString::from_string`]) and not be freed yet.
pub unsafe extern "C" fn free_string(s: StbString) {
    if s.ptr.is_null() || s.len == 0 {
        return;
    }
    let slice = std::ptr::slice_from_raw_parts_mut(s.ptr as *mut u8, s.len);
    drop(Box::from_raw(slice));
}

/// A string owned together with its producer's deallocator. Not `Copy`/`Clone`: moving it moves ownership,
/// and dropping it frees the buffer (also on early return or unwinding).
pub struct OwnedString {
    raw: StbString,
    free: Option<FreeStringFn>,
}

// SAFETY: the buffer is uniquely owned; deallocators are plain functions callable from any thread.
unsafe impl Send for OwnedString {}

impl OwnedString {
    /// An SDK-owned copy of `s` (freed with [`free_string`]).
    pub fn from_string(s: String) -> Self {
        OwnedString { raw: StbString::from_string(s), free: Some(free_string) }
    }

    /// Adopts a raw ABI string.
    ///
    /// # Safety
    /// `raw` must be live, uniquely owned by the caller and allocated by the producer `free` belongs to.
    pub unsafe fn from_raw(raw: StbString, free: FreeStringFn) -> Self {
        OwnedString { raw, free: Some(free) }
    }

    /// Adopts a raw string whose deallocator may be absent (then the buffer is never freed: a host that
    /// hands out params without `free_params` keeps ownership).
    ///
    /// # Safety
    /// As for [`OwnedString::from_raw`].
    pub unsafe fn from_raw_optional(raw: StbString, free: Option<FreeStringFn>) -> Self {
        OwnedString { raw, free }
    }

    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the buffer is owned by self and live until drop.
        unsafe { self.raw.as_bytes() }
    }

    /// The text, with invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }

    /// The text when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(self.as_bytes()).ok()
    }

    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Parses the text as JSON.
    #[cfg(feature = "json")]
    pub fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::from_slice(self.as_bytes())
    }

    /// Gives the raw string to an ABI receiver without freeing it (the receiver now frees it with the
    /// producer's deallocator).
    pub fn into_raw(self) -> StbString {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }
}

impl Drop for OwnedString {
    fn drop(&mut self) {
        if let Some(free) = self.free {
            // SAFETY: from_raw/from_string established unique ownership and the matching deallocator.
            unsafe { std::mem::take(&mut self.raw).free_with(free) };
        }
    }
}

impl std::fmt::Debug for OwnedString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OwnedString").field(&self.to_string_lossy()).finish()
    }
}

/// The `out` slot of a string callback, bound to the callback's lifetime. Writing stores an SDK-owned
/// string (the host reclaims it with the `plugin_free_string` registered next to the callback, which for
/// SDK plugins is [`free_string`]); writing again reclaims this Output's earlier write. Whatever the host
/// left in the slot is never freed.
pub struct Output<'a> {
    slot: *mut StbString,
    written: bool,
    _lifetime: PhantomData<&'a mut StbString>,
}

impl<'a> Output<'a> {
    /// # Safety
    /// `slot` is null or valid for writes for `'a`.
    pub unsafe fn new(slot: *mut StbString) -> Self {
        Output { slot, written: false, _lifetime: PhantomData }
    }

    /// Whether the host gave a slot at all (a null `out` means the host only wants the code).
    pub fn is_available(&self) -> bool {
        !self.slot.is_null()
    }

    /// Stores `text`; `false` when the slot is null.
    pub fn write(&mut self, text: impl Into<String>) -> bool {
        if self.slot.is_null() {
            return false;
        }
        let next = StbString::from_string(text.into());
        // SAFETY: slot is valid for writes (new's contract); an earlier write of ours is SDK-owned.
        unsafe {
            let previous = std::ptr::replace(self.slot, next);
            if self.written {
                free_string(previous);
            }
        }
        self.written = true;
        true
    }

    /// Stores `value` as JSON text.
    #[cfg(feature = "json")]
    pub fn write_json(&mut self, value: &serde_json::Value) -> bool {
        self.write(value.to_string())
    }
}

/// A tool step copied out of a [`StepResult`], with no pointers left in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Still running; the progress text may be empty.
    Pending(String),
    /// Finished: AgentToolResult JSON.
    Done(String),
    /// Failed: plain text.
    Err(String),
}

impl Step {
    /// An SDK-owned [`StepResult`] (register the tool with [`free_string`]); empty Pending progress stays
    /// the null string so the host skips it.
    pub fn into_result(self) -> StepResult {
        match self {
            Step::Pending(text) => StepResult::pending(StbString::from_string(text)),
            Step::Done(text) => StepResult::done(StbString::from_string(text)),
            Step::Err(text) => StepResult::err(StbString::from_string(text)),
        }
    }
}

/// Copies `result` into a [`Step`] and frees its string with the producer's `free`. An unknown tag is an
/// `Err` naming it.
///
/// # Safety
/// `result` must be a live, not yet reclaimed step result whose string was allocated by `free`'s producer.
pub unsafe fn take_step_result_with(result: StepResult, free: FreeStringFn) -> Step {
    let raw = result.string();
    let text = raw.to_string_lossy();
    raw.free_with(free);
    match result.tag() {
        Some(StepResultTag::Pending) => Step::Pending(text),
        Some(StepResultTag::Done) => Step::Done(text),
        Some(StepResultTag::Err) => Step::Err(text),
        None => Step::Err(format!("unknown step result tag {}", result.tag)),
    }
}

/// [`take_step_result_with`] for a result this SDK allocated.
///
/// # Safety
/// As for [`take_step_result_with`], with this SDK as the producer.
pub unsafe fn take_step_result(result: StepResult) -> Step {
    take_step_result_with(result, free_string)
}

/// Copies and reclaims an SDK-allocated step result. Expands to a call of an `unsafe fn`, so the call
/// site needs an explicit `unsafe` block: the macro cannot prove the result's ownership.
#[macro_export]
macro_rules! take_step_result {
    ($result:expr) => {
        $crate::callbacks::take_step_result($result)
    };
    ($result:expr, $free:expr) => {
        $crate::callbacks::take_step_result_with($result, $free)
    };
}

/// Defines a string callback as an `extern "C"` fn. The body sees `&str` inputs and an [`Output`], returns
/// an `i32` status, and a panic becomes [`PANIC_STATUS`].
///
/// ```
/// use rpi_plugin_sdk::string_handler;
/// // Command / render / provider / before_agent_start / oauth shape: (input, out, user_data)
/// string_handler! { fn stats(input, output, _user_data) { output.write("{\"kind\":\"message\",\"text\":\"hi\"}"); 0 } }
/// // Runtime-action shape: (action_id, input, out, user_data)
/// string_handler! { fn act(id, input, output, _user_data) { output.write(format!("{id}:{input}")); 0 } }
/// // Resources discovery: ((cwd, reason), out, user_data)
/// string_handler! { fn discover((cwd, reason), output, _user_data) { output.write(format!("{cwd}{reason}")); 0 } }
/// ```
#[macro_export]
macro_rules! string_handler {
    // Runtime-action shape: (action_id, input, out, user_data), the body sees `action_id: u32`.
    ($(#[$meta:meta])* $vis:vis fn $name:ident($action_id:ident, $input:ident, $output:ident, $user_data:pat) $body:block) => {
        $(#[$meta])*
        #[allow(unreachable_code)]
        $vis extern "C" fn $name(
            action_id: u32,
            input: $crate::StbStringRef,
            out: *mut $crate::StbString,
            user_data: *mut ::std::ffi::c_void,
        ) -> i32 {
            $crate::contain($crate::callbacks::PANIC_STATUS, move || {
                // SAFETY: the caller's borrowed input is valid for the call; out is null or writable.
                let input_owned = unsafe { input.to_string_lossy() };
                let $action_id: u32 = action_id;
                let $input: &str = &input_owned;
                #[allow(unused_mut)]
                let mut $output = unsafe { $crate::callbacks::Output::new(out) };
                let $user_data = user_data;
                let code: i32 = $body;
                code
            })
        }
    };
    ($(#[$meta:meta])* $vis:vis fn $name:ident(($first:ident, $second:ident), $output:ident, $user_data:pat) $body:block) => {
        $(#[$meta])*
        // A body that always panics or aborts (a test fixture) is fine: the trampoline's tail is unreachable.
        #[allow(unreachable_code)]
        $vis extern "C" fn $name(
            first: $crate::StbStringRef,
            second: $crate::StbStringRef,
            out: *mut $crate::StbString,
            user_data: *mut ::std::ffi::c_void,
        ) -> i32 {
            $crate::contain($crate::callbacks::PANIC_STATUS, move || {
                // SAFETY: the host's borrowed inputs are valid for the call; out is null or writable.
                let (first_owned, second_owned) = unsafe { (first.to_string_lossy(), second.to_string_lossy()) };
                let $first: &str = &first_owned;
                let $second: &str = &second_owned;
                #[allow(unused_mut)]
                let mut $output = unsafe { $crate::callbacks::Output::new(out) };
                let $user_data = user_data;
                let code: i32 = $body;
                code
            })
        }
    };
    ($(#[$meta:meta])* $vis:vis fn $name:ident($input:ident, $output:ident, $user_data:pat) $body:block) => {
        $(#[$meta])*
        // A body that always panics or aborts (a test fixture) is fine: the trampoline's tail is unreachable.
        #[allow(unreachable_code)]
        $vis extern "C" fn $name(
            input: $crate::StbStringRef,
            out: *mut $crate::StbString,
            user_data: *mut ::std::ffi::c_void,
        ) -> i32 {
            $crate::contain($crate::callbacks::PANIC_STATUS, move || {
                // SAFETY: the host's borrowed input is valid for the call; out is null or writable.
                let input_owned = unsafe { input.to_string_lossy() };
                let $input: &str = &input_owned;
                #[allow(unused_mut)]
                let mut $output = unsafe { $crate::callbacks::Output::new(out) };
                let $user_data = user_data;
                let code: i32 = $body;
                code
            })
        }
    };
}

/// Defines a tool's `execute` as an `extern "C"` fn returning a [`crate::StepHandle`] (null = refusal).
///
/// Two-argument form: `fn exec(call_id, params) { ... }` — `call_id: &str`, `params:`
/// [`OwnedString`] (freed with the host's `free_params` when dropped, also on refusal, panic or a call id
/// that is not UTF-8, which returns null).
/// Three-argument form: `fn exec(call_id, params, free_params) { ... }` — the raw `StbString` and its
/// `Option<FreeStringFn>` for custom handling (the body owns freeing them; a non-UTF-8 call id frees them
/// and returns null).
#[macro_export]
macro_rules! execute_handler {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($call_id:ident, $params:ident, $free_params:ident) $body:block) => {
        $(#[$meta])*
        // A body that always panics or aborts (a test fixture) is fine: the trampoline's tail is unreachable.
        #[allow(unreachable_code)]
        $vis extern "C" fn $name(
            tool_call_id: $crate::StbStringRef,
            params: $crate::StbString,
            free_params: ::std::option::Option<$crate::FreeStringFn>,
        ) -> $crate::StepHandle {
            $crate::contain(::std::ptr::null_mut(), move || {
                // SAFETY: the call id is borrowed for the call.
                let Some(call_id_str) = (unsafe { tool_call_id.as_str() }) else {
                    if let Some(free) = free_params {
                        unsafe { params.free_with(free) };
                    }
                    return ::std::ptr::null_mut();
                };
                let $call_id: &str = call_id_str;
                let $params: $crate::StbString = params;
                let $free_params: ::std::option::Option<$crate::FreeStringFn> = free_params;
                let handle: $crate::StepHandle = $body;
                handle
            })
        }
    };
    ($(#[$meta:meta])* $vis:vis fn $name:ident($call_id:ident, $params:ident) $body:block) => {
        // The three-argument form, its params adopted first thing: every path after that (a refusal, a
        // panic unwinding through the body) drops the OwnedString and so reclaims them; a call id that is
        // not UTF-8 never reaches the body and is freed there.
        $crate::execute_handler! {
            $(#[$meta])*
            $vis fn $name(call_id, raw_params, free_params) {
                // SAFETY: the host hands over ownership of params together with its deallocator.
                let $params = unsafe { $crate::callbacks::OwnedString::from_raw_optional(raw_params, free_params) };
                let $call_id: &str = call_id;
                $body
            }
        }
    };
}
