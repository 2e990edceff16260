//! pier's stub native plugin (the behaviour of rpi's `examples/plugin-stub`, native-abi.md §6), written on
//! pier's rpi-plugin-sdk. Registration order and the codes returned when a required slot is missing:
//! echo tool (1), MessageEnd handler (2), resources_discover (3), before_agent_start (optional),
//! provider `stub-provider` (4), markdown transformer `stub-uppercase` (5), then the `/echo-stats` command
//! (optional). Any registrar's nonzero code is returned as is.

use rpi_plugin_sdk::callbacks::free_string;
use rpi_plugin_sdk::handles::ToolHandles;
use rpi_plugin_sdk::{
    event_handler, execute_handler, export_plugin, string_handler, EventTag, PluginApi, StableToolSchema, StbString,
    StbStringRef, StepHandle, StepResult, ToolPartialCb, EVENT_HANDLER_CONTINUE,
};
use serde_json::{json, Value};
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

static MESSAGE_END_HITS: AtomicUsize = AtomicUsize::new(0);
static DISCOVER_HITS: AtomicUsize = AtomicUsize::new(0);
static PROVIDER_REQUEST_HITS: AtomicUsize = AtomicUsize::new(0);
static MARKDOWN_TRANSFORM_HITS: AtomicUsize = AtomicUsize::new(0);
static PROMPT_TRANSFORM_HITS: AtomicUsize = AtomicUsize::new(0);
static ECHO_CALLS: AtomicUsize = AtomicUsize::new(0);

const SKILL_PATH: &str = "plugin-stub-discovered/SKILL.md";
/// NUL-terminated for the C probe below.
static SKILL_PATH_C: &[u8] = b"plugin-stub-discovered/SKILL.md\0";

const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to echo back."}},"required":["text"]}"#;

struct Echo {
    text: String,
    polls: u32,
}

static CALLS: ToolHandles<Echo> = ToolHandles::new();

fn text_result(text: &str) -> String {
    json!({"content": [{"type": "text", "text": text}]}).to_string()
}

execute_handler! {
    fn echo_execute(_call_id, params) {
        let args: Value = params.json().unwrap_or(Value::Null);
        let text = args.get("text").and_then(Value::as_str).unwrap_or("").to_string();
        drop(params); // read and freed before the step starts, as the stub does
        ECHO_CALLS.fetch_add(1, Ordering::Relaxed);
        CALLS.insert(Echo { text, polls: 0 })
    }
}

extern "C" fn echo_poll(handle: StepHandle, partial_cb: Option<ToolPartialCb>, user_data: *mut c_void) -> StepResult {
    rpi_plugin_sdk::contain(StepResult::err_str(r#"{"error":"echo poll panicked"}"#), || {
        let Some(entry) = CALLS.get(handle) else { return StepResult::err_str("unknown echo handle") };
        let mut state = entry.lock();
        state.polls += 1;
        if state.polls == 1 {
            // First poll: one partial update (reclaimed by the host with this tool's free_string), then Pending.
            if let Some(partial) = partial_cb {
                partial(StbString::from_string(text_result("...")), user_data);
            }
            return StepResult::pending_empty();
        }
        StepResult::done(StbString::from_string(text_result(&format!("echo: {}", state.text))))
    })
}

extern "C" fn echo_cancel(_handle: StepHandle) {}

extern "C" fn echo_destroy(handle: StepHandle) {
    rpi_plugin_sdk::contain((), || {
        CALLS.remove(handle);
    })
}

event_handler! {
    fn on_message_end(_event, _user_data) {
        MESSAGE_END_HITS.fetch_add(1, Ordering::SeqCst);
        EVENT_HANDLER_CONTINUE
    }
}

string_handler! {
    fn discover((_cwd, _reason), output, _user_data) {
        DISCOVER_HITS.fetch_add(1, Ordering::SeqCst);
        output.write_json(&json!({"skillPaths": [SKILL_PATH]}));
        0
    }
}

string_handler! {
    fn before_agent_start(input, output, _user_data) {
        PROMPT_TRANSFORM_HITS.fetch_add(1, Ordering::SeqCst);
        let event: Value = serde_json::from_str(input).unwrap_or(Value::Null);
        let original = event.get("systemPrompt").and_then(Value::as_str).unwrap_or("");
        output.write_json(&json!({"systemPrompt": format!("[plugin-stub says: {original}")}));
        0
    }
}

string_handler! {
    fn provider_request(input, output, _user_data) {
        PROVIDER_REQUEST_HITS.fetch_add(1, Ordering::SeqCst);
        let _request: Value = serde_json::from_str(input).unwrap_or(Value::Null);
        let timestamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        output.write_json(&json!({
            "role": "assistant",
            "content": [{"type": "text", "text": "from-stub-provider"}],
            "api": "faux",
            "provider": "stub-provider",
            "model": "stub-model",
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop",
            "timestamp": timestamp
        }));
        0
    }
}

string_handler! {
    fn uppercase_markdown(input, output, _user_data) {
        MARKDOWN_TRANSFORM_HITS.fetch_add(1, Ordering::SeqCst);
        let value: Value = serde_json::from_str(input).unwrap_or(Value::Null);
        let markdown = value.get("markdown").and_then(Value::as_str).unwrap_or("");
        output.write_json(&json!({"markdown": markdown.to_uppercase()}));
        0
    }
}

string_handler! {
    fn echo_stats(_input, output, _user_data) {
        let text = format!(
            "echo calls: {}, message ends: {}, discovers: {}, provider requests: {}, markdown transforms: {}, prompt transforms: {}",
            ECHO_CALLS.load(Ordering::SeqCst),
            MESSAGE_END_HITS.load(Ordering::SeqCst),
            DISCOVER_HITS.load(Ordering::SeqCst),
            PROVIDER_REQUEST_HITS.load(Ordering::SeqCst),
            MARKDOWN_TRANSFORM_HITS.load(Ordering::SeqCst),
            PROMPT_TRANSFORM_HITS.load(Ordering::SeqCst),
        );
        output.write_json(&json!({"kind": "message", "text": text}));
        0
    }
}

fn register(api: &PluginApi) -> i32 {
    let Some(register_tool) = api.register_tool else { return 1 };
    let schema = StableToolSchema::new("echo", "Echoes back the provided text (a B2 ABI smoke-test tool).", ECHO_SCHEMA);
    // The host copies and frees the schema strings inside register_tool.
    let rc = register_tool(&schema, echo_execute, echo_poll, echo_cancel, echo_destroy, free_string);
    if rc != 0 {
        return rc;
    }

    let Some(register_event_handler) = api.register_event_handler else { return 2 };
    let rc = register_event_handler(EventTag::MessageEnd, on_message_end, std::ptr::null_mut());
    if rc != 0 {
        return rc;
    }

    let Some(register_discover) = api.register_resources_discover else { return 3 };
    let rc = register_discover(discover, free_string, std::ptr::null_mut());
    if rc != 0 {
        return rc;
    }

    if let Some(register_before) = api.register_before_agent_start {
        let rc = register_before(before_agent_start, free_string, std::ptr::null_mut());
        if rc != 0 {
            return rc;
        }
    }

    let Some(register_provider) = api.register_provider else { return 4 };
    let rc = register_provider(
        StbStringRef::from_str("stub-provider"),
        StbStringRef::from_str("https://stub.example"),
        StbStringRef::from_str("faux"),
        provider_request,
        free_string,
        std::ptr::null_mut(),
    );
    if rc != 0 {
        return rc;
    }

    let Some(register_markdown) = api.register_markdown_transformer else { return 5 };
    let rc = register_markdown(StbStringRef::from_str("stub-uppercase"), uppercase_markdown, free_string, std::ptr::null_mut());
    if rc != 0 {
        return rc;
    }

    if let Some(register_command) = api.register_command {
        let rc = register_command(
            StbStringRef::from_str("echo-stats"),
            StbStringRef::from_str("Show how often the echo plugin's callbacks ran"),
            echo_stats,
        );
        if rc != 0 {
            return rc;
        }
    }
    0
}

export_plugin!(register);

// ---- probes for tests that load the library in-process ---------------------------------------------------

#[no_mangle]
pub extern "C" fn plugin_stub_message_end_hits() -> usize {
    MESSAGE_END_HITS.load(Ordering::SeqCst)
}

#[no_mangle]
pub extern "C" fn plugin_stub_discover_hits() -> usize {
    DISCOVER_HITS.load(Ordering::SeqCst)
}

#[no_mangle]
pub extern "C" fn plugin_stub_discover_skill_path() -> *const u8 {
    SKILL_PATH_C.as_ptr()
}

#[no_mangle]
pub extern "C" fn plugin_stub_provider_request_hits() -> usize {
    PROVIDER_REQUEST_HITS.load(Ordering::SeqCst)
}

#[no_mangle]
pub extern "C" fn plugin_stub_markdown_transform_hits() -> usize {
    MARKDOWN_TRANSFORM_HITS.load(Ordering::SeqCst)
}

#[no_mangle]
pub extern "C" fn plugin_stub_prompt_transform_hits() -> usize {
    PROMPT_TRANSFORM_HITS.load(Ordering::SeqCst)
}

// The step result tags the host relies on (native-abi.md §6's compile-time assertion).
const _: () = assert!(
    rpi_plugin_sdk::StepResultTag::Pending as u32 == 0
        && rpi_plugin_sdk::StepResultTag::Done as u32 == 1
        && rpi_plugin_sdk::StepResultTag::Err as u32 == 2
);
