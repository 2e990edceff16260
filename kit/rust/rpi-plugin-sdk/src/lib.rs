//! pier's `rpi-plugin-sdk`: the stable `#[repr(C)]` ABI contract for rpi plugins (unified ABI, version 4),
//! written for pier from the published facts of the public crate of the same name and version, so a plugin
//! using the items below builds against it unchanged by pointing its dependency at this path:
//!
//! ```toml
//! [lib]
//! crate-type = ["cdylib"]
//! [dependencies]
//! rpi-plugin-sdk = { path = "<pier>/kit/rust/rpi-plugin-sdk", features = ["json"] }
//! ```
//!
//! The rules every crossing obeys: every type is `#[repr(C)]`; no `Drop` type crosses (strings travel as
//! [`StbString`] plus the producer's free function); structured data is JSON text; unions hold `Copy` payloads;
//! and unwinding never crosses — every `extern "C"` entry this crate generates runs its body in
//! `catch_unwind` and turns a panic into a status code.
//!
//! Features: default = std only. `json` = serde_json from Debian's packaged crates (`preserve_order`,
//! `arbitrary_precision`, `raw_value`). `process`, `stdio` = std plus a handful of libc functions declared
//! here with `extern "C"` (Unix only). `provider` = `json` plus an OpenAI-compatible client on
//! `std::net::TcpStream`.
//!
//! **What is not available offline on std alone:** TLS. The public crate's provider feature rides on
//! rpi-ai/tokio/reqwest with rustls or native-tls; none of a TLS stack is in std, and Debian's registry on
//! these machines has no rustls/openssl crates installed, so [`provider::completions`] speaks plain
//! HTTP/1.1 and refuses `https://` base URLs with an error saying so (point it at a local proxy, or
//! implement [`provider::Provider`] over your own transport).

pub mod abi;
pub mod actions;
pub mod callbacks;
pub mod declare;
pub mod events;
pub mod handles;

#[cfg(feature = "json")]
pub mod dialogs;
#[cfg(feature = "json")]
pub mod json;
#[cfg(all(feature = "process", unix))]
pub mod process;
#[cfg(feature = "provider")]
pub mod provider;
#[cfg(all(feature = "stdio", unix))]
pub mod stdio;

pub use abi::*;
pub use events::EventView;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, Ordering};

// ---- versions and symbols ---------------------------------------------------------------------------------

pub const LEGACY_PLUGIN_ABI_VERSION: u32 = 1;
pub const RPI_PLUGIN_ABI_VERSION: u32 = 2;
pub const RPI_PLUGIN_ABI_VERSION_V3: u32 = 3;
pub const RPI_PLUGIN_ABI_VERSION_UNIFIED: u32 = 4;
pub const REGISTER_SYMBOL_UNIFIED: &[u8] = b"rpi_plugin_register\0";

// ---- rpi_plugin_register status codes (SDK-side checks, native-abi.md §1.2) -------------------------------

pub const REGISTER_OK: i32 = 0;
pub const REGISTER_ABI_MISMATCH_STATUS: i32 = 1;
pub const REGISTER_NULL_API_STATUS: i32 = 2;
pub const REGISTER_STRUCT_TOO_SMALL_STATUS: i32 = 3;
pub const REGISTER_PANIC_STATUS: i32 = 70;

// ---- event handler codes ----------------------------------------------------------------------------------

pub const EVENT_HANDLER_CONTINUE: i32 = 0;
/// Logged; the fan-out continues.
pub const EVENT_HANDLER_ERROR: i32 = 1;
/// A veto, honoured on lifecycle events only.
pub const EVENT_HANDLER_ABORT: i32 = 2;
/// Consumed, honoured where the host arbitrates (`Input`).
pub const EVENT_HANDLER_CLAIMED: i32 = 3;

// ---- runtime_action codes ---------------------------------------------------------------------------------

pub const RUNTIME_ACTION_OK: i32 = 0;
pub const RUNTIME_ACTION_HOST_ERROR: i32 = 1;
pub const RUNTIME_ACTION_UNKNOWN_ID: i32 = 2;
pub const RUNTIME_ACTION_NO_BRIDGE: i32 = -1;
pub const RUNTIME_ACTION_DROPPED: i32 = -2;

// ---- other constants (§8) ---------------------------------------------------------------------------------

pub const HOST_NAME: &str = "rpi";
pub const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");
pub const SESSION_ID_ENV: &str = "RPI_SESSION_ID";
pub const HOST_CONTEXT_KEY: &str = "__rpi";
pub const SUBAGENT_PARENT_TRACE_ID_ENV: &str = "LANGFUSE_PI_PARENT_TRACE_ID";
pub const SUBAGENT_PARENT_SPAN_ID_ENV: &str = "LANGFUSE_PI_PARENT_SPAN_ID";
pub const SUBAGENT_PARENT_SESSION_ID_ENV: &str = "LANGFUSE_PI_PARENT_SESSION_ID";
pub const SUBAGENT_PARENT_DEPTH_ENV: &str = "LANGFUSE_PI_PARENT_DEPTH";
/// `declare`'s default priority (smaller runs first).
pub const DEFAULT_PRIORITY: i64 = 100;

// ---- the entry point --------------------------------------------------------------------------------------

static HOST_API: AtomicPtr<PluginApi> = AtomicPtr::new(std::ptr::null_mut());

/// The table the host passed to the last successful check in [`register_entrypoint`]. The host keeps it
/// alive for the session, so workers may keep the reference (e.g. to call `runtime_action` from `poll`).
pub fn host_api() -> Option<&'static PluginApi> {
    let ptr = HOST_API.load(Ordering::Acquire);
    // SAFETY: only pointers that passed the null/version/size checks are stored, and the host never frees it.
    unsafe { ptr.as_ref() }
}

/// The SDK side of `rpi_plugin_register`: null → 2, `abi_version != 4` → 1, `struct_size` below this
/// crate's `PluginApi` → 3, then `body` inside `catch_unwind` (a panic → 70), else the body's code.
/// Only the first two `u32`s are read before the size check, so a short table is never read past its end.
// Safe to call by design: export_plugin! passes the host's pointer straight through, and every
// dereference is guarded by the checks below (the contract is the host's, not the caller's).
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn register_entrypoint<F>(api: *const PluginApi, body: F) -> i32
where
    F: FnOnce(&'static PluginApi) -> i32,
{
    if api.is_null() {
        return REGISTER_NULL_API_STATUS;
    }
    // SAFETY: a non-null api points at least at the two leading u32s every ABI version starts with.
    let (abi_version, struct_size) = unsafe {
        let head = api as *const u32;
        (std::ptr::read_unaligned(head), std::ptr::read_unaligned(head.add(1)))
    };
    if abi_version != RPI_PLUGIN_ABI_VERSION_UNIFIED {
        return REGISTER_ABI_MISMATCH_STATUS;
    }
    if (struct_size as usize) < std::mem::size_of::<PluginApi>() {
        return REGISTER_STRUCT_TOO_SMALL_STATUS;
    }
    HOST_API.store(api as *mut PluginApi, Ordering::Release);
    // SAFETY: the checks above show the host's table covers every field of ours; it lives for the session.
    let api: &'static PluginApi = unsafe { &*api };
    match catch_unwind(AssertUnwindSafe(|| body(api))) {
        Ok(code) => code,
        Err(_) => REGISTER_PANIC_STATUS,
    }
}

/// Exports `rpi_plugin_register` running `body` (a closure taking `&PluginApi` and returning the status).
///
/// ```
/// rpi_plugin_sdk::export_plugin!(|api| {
///     if let Some(declare) = api.declare { declare(rpi_plugin_sdk::StbStringRef::from_str(r#"{"priority":60}"#)); }
///     0
/// });
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($body:expr) => {
        #[no_mangle]
        pub extern "C" fn rpi_plugin_register(api: *const $crate::PluginApi) -> i32 {
            $crate::register_entrypoint(api, $body)
        }
    };
}

/// Runs `f`, turning a panic into `fallback` (what every generated trampoline does at the boundary).
#[doc(hidden)]
pub fn contain<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

#[cfg(test)]
mod tests;
