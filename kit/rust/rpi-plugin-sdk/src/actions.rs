//! Calling the host's `runtime_action` without touching raw buffers: the host's `out` is copied into a
//! `String` and handed back to the host's `free_string` at once.
//!
//! One call is therefore two host calls (`runtime_action`, then `free_string`). From a thread of your own,
//! pier's host (Node + koffi) answers each one on its event loop: the thread waits until that loop runs
//! it. A plugin handler that waits for such a thread (a SessionShutdown handler joining its worker) relies
//! on the host calling that handler off its loop thread, as native-abi.md's host does and pier's must.

use crate::{PluginApi, RuntimeActionId, StbString, StbStringRef};

/// The host's answer: the return code (0 ok, 1 host error, 2 unknown id, -1 no bridge, -2 dropped) and the
/// `out` JSON text (`{"error": ...}` on 1 and 2; empty when the host wrote nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionResult {
    pub code: i32,
    pub out: String,
}

impl ActionResult {
    pub fn is_ok(&self) -> bool {
        self.code == crate::RUNTIME_ACTION_OK
    }
}

/// Calls action `id` (a raw number, so ids this SDK does not name can be tried too) with `args_json`.
/// Blocks the calling thread until the host answers.
pub fn call_raw(api: &PluginApi, id: u32, args_json: &str) -> ActionResult {
    let mut out = StbString::empty();
    let code = (api.runtime_action)(id, StbStringRef::from_str(args_json), &mut out, api.user_data);
    // SAFETY: the host wrote `out` for us (or left it empty); it is ours to read once and free with the
    // host's deallocator.
    let text = unsafe {
        let text = out.to_string_lossy();
        out.free_with(api.free_string);
        text
    };
    ActionResult { code, out: text }
}

/// [`call_raw`] with a named id.
pub fn call(api: &PluginApi, id: RuntimeActionId, args_json: &str) -> ActionResult {
    call_raw(api, id as u32, args_json)
}
