//! Provider plugins (feature `provider`): implement [`Provider`], then export it with
//! [`export_provider!`](crate::export_provider) (one provider) or call [`register`] for each provider
//! inside one `export_plugin!`.
//!
//! The ABI's `ProviderRequestFn` is one-shot: the host sends `{model, context, options}` and receives the
//! whole assistant message, so [`drive`] runs a request to completion on the calling thread and no worker
//! outlives it (nothing survives plugin unloading). Differences from the public crate, which builds on
//! rpi-ai, tokio and an HTTP stack with TLS: none of those are in Debian's registry here, so this module is
//! std-only, [`completions`] speaks plain HTTP/1.1 (no `https://`), and streaming deltas are folded into the
//! final message rather than forwarded (the v1 provider ABI has no stream channel either).

pub mod http;
pub mod openai;

pub use openai::{completions, CompletionModel, CompletionOptions, Completions};

use crate::callbacks::{free_string, Output};
use crate::{PluginApi, StbString, StbStringRef};
use serde_json::{json, Value};
use std::ffi::c_void;

/// A request from the host.
#[derive(Debug, Clone)]
pub struct ProviderRequest {
    /// pi's model object (`{id, provider, api, baseUrl, ...}`) or a bare model id.
    pub model: Value,
    /// `{systemPrompt, messages, tools}`.
    pub context: Value,
    /// `{apiKey?, maxTokens?, temperature?, ...}`.
    pub options: Value,
}

impl ProviderRequest {
    pub fn parse(text: &str) -> Result<ProviderRequest, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("provider request is not JSON: {e}"))?;
        Ok(ProviderRequest {
            model: value.get("model").cloned().unwrap_or(Value::Null),
            context: value.get("context").cloned().unwrap_or(json!({})),
            options: value.get("options").cloned().unwrap_or(json!({})),
        })
    }

    /// The requested model id (`model.id`, or `model` when it is a string).
    pub fn model_id(&self) -> Option<&str> {
        self.model.get("id").and_then(Value::as_str).or(self.model.as_str())
    }
}

/// A model provider living in the plugin.
pub trait Provider: Send + Sync + 'static {
    /// The provider id (`--model <id>/<model>`).
    fn id(&self) -> String;
    fn base_url(&self) -> String {
        String::new()
    }
    fn api_style(&self) -> String {
        "openai-completions".to_string()
    }
    /// Answers with a whole assistant message (see [`assistant_message`]), or an error text.
    fn complete(&self, request: &ProviderRequest) -> Result<Value, String>;
}

/// pi's assistant message JSON.
pub fn assistant_message(
    provider: &str,
    model: &str,
    api: &str,
    content: Vec<Value>,
    stop_reason: &str,
    input_tokens: u64,
    output_tokens: u64,
) -> Value {
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    json!({
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": {
            "input": input_tokens, "output": output_tokens, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": input_tokens + output_tokens,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
        },
        "stopReason": stop_reason,
        "timestamp": timestamp
    })
}

/// Runs one request: parses `request_json`, calls the provider, returns the message JSON text.
pub fn drive(provider: &dyn Provider, request_json: &str) -> Result<String, String> {
    let request = ProviderRequest::parse(request_json)?;
    provider.complete(&request).map(|message| message.to_string())
}

extern "C" fn request_trampoline(request: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32 {
    crate::contain(crate::callbacks::PANIC_STATUS, || {
        if user_data.is_null() {
            return 1;
        }
        // SAFETY: user_data is the leaked Box<dyn Provider> from `register`, alive for the session.
        let provider: &dyn Provider = unsafe { &**(user_data as *const Box<dyn Provider>) };
        // SAFETY: the host's input is borrowed for the call; out is null or writable.
        let text = unsafe { request.to_string_lossy() };
        let mut output = unsafe { Output::new(out) };
        match drive(provider, &text) {
            Ok(message) => {
                output.write(message);
                0
            }
            Err(error) => {
                output.write(json!({ "error": error }).to_string());
                1
            }
        }
    })
}

/// Registers `provider` with the host (it lives for the session). `-1` when the host has no provider slot,
/// else the host's code.
pub fn register(api: &PluginApi, provider: impl Provider) -> i32 {
    let Some(register_provider) = api.register_provider else { return -1 };
    let (id, base_url, style) = (provider.id(), provider.base_url(), provider.api_style());
    let boxed: Box<Box<dyn Provider>> = Box::new(Box::new(provider));
    let user_data = Box::into_raw(boxed) as *mut c_void;
    register_provider(
        StbStringRef::from_str(&id),
        StbStringRef::from_str(&base_url),
        StbStringRef::from_str(&style),
        request_trampoline,
        free_string,
        user_data,
    )
}

/// Exports a single-provider plugin: `export_provider!(|| MyProvider::new())` (a factory expression).
#[macro_export]
macro_rules! export_provider {
    ($factory:expr) => {
        $crate::export_plugin!(|api: &'static $crate::PluginApi| $crate::provider::register(api, ($factory)()));
    };
}
