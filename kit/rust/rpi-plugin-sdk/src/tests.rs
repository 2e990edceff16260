//! Unit tests of the ABI core and helpers. `cargo test --offline -p rpi-plugin-sdk --all-features` runs
//! every module's tests (test/native/sdk-entry.test.ts does).

use crate::callbacks::{free_string, OwnedString, Output, Step};
use crate::handles::ToolHandles;
use crate::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

static FREED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn counting_free(s: StbString) {
    FREED.fetch_add(1, Ordering::SeqCst);
    free_string(s);
}

extern "C" fn no_action(_id: u32, _args: StbStringRef, _out: *mut StbString, _ud: *mut c_void) -> i32 {
    RUNTIME_ACTION_NO_BRIDGE
}

extern "C" fn echo_action(id: u32, args: StbStringRef, out: *mut StbString, _ud: *mut c_void) -> i32 {
    let text = unsafe { args.to_string_lossy() };
    unsafe { *out = StbString::from_string(format!("{{\"id\":{id},\"args\":{text}}}")) };
    0
}

fn fake_api() -> PluginApi {
    PluginApi {
        abi_version: RPI_PLUGIN_ABI_VERSION_UNIFIED,
        struct_size: 256,
        free_string: counting_free,
        register_tool: None,
        register_command: None,
        register_shortcut: None,
        register_flag: None,
        register_provider: None,
        register_message_renderer: None,
        register_markdown_transformer: None,
        register_entry_renderer: None,
        register_event_handler: None,
        register_resources_discover: None,
        runtime_action: no_action,
        dispatch_event: None,
        user_data: std::ptr::null_mut(),
        declare: None,
        register_before_agent_start: None,
        register_oauth_provider: None,
        register_tool_with_wake: None,
        _reserved0: std::ptr::null_mut(),
        _reserved1: std::ptr::null_mut(),
    }
}

#[test]
fn entrypoint_checks_null_version_size_and_panic_in_order() {
    assert_eq!(register_entrypoint(std::ptr::null(), |_| 0), 2);
    // Only the two leading u32s may be read from a table that is too short or of another version.
    let v3: [u32; 2] = [3, 4096];
    assert_eq!(register_entrypoint(v3.as_ptr() as *const PluginApi, |_| 0), 1);
    let short: [u32; 2] = [4, 100];
    assert_eq!(register_entrypoint(short.as_ptr() as *const PluginApi, |_| 0), 3);
    let just_short: [u32; 2] = [4, 167];
    assert_eq!(register_entrypoint(just_short.as_ptr() as *const PluginApi, |_| 0), 3);
    let api = fake_api();
    assert_eq!(register_entrypoint(&api, |_| panic!("boom")), 70);
    assert_eq!(register_entrypoint(&api, |_| 9), 9);
    let mut exact = fake_api();
    exact.struct_size = 168;
    assert_eq!(register_entrypoint(&exact, |api| api.struct_size as i32), 168);
    assert!(host_api().is_some());
}

#[test]
fn strings_round_trip_and_free_exactly_once() {
    let s = StbString::from_str("héllo");
    assert_eq!(s.len, 6);
    assert_eq!(unsafe { s.to_string_lossy() }, "héllo");
    unsafe { free_string(s) };
    let empty = StbString::from_string(String::new());
    assert!(empty.ptr.is_null() && empty.len == 0);
    unsafe { free_string(empty) };
    let r = StbStringRef::from_str("abc");
    assert_eq!(unsafe { r.as_str() }, Some("abc"));
    let bad = [0xffu8, 0xfe];
    let bad_ref = StbStringRef { ptr: bad.as_ptr() as *const _, len: 2 };
    assert_eq!(unsafe { bad_ref.as_str() }, None);
    assert_eq!(unsafe { bad_ref.to_string_lossy() }, "\u{fffd}\u{fffd}");
}

#[test]
fn owned_string_frees_on_drop_and_into_raw_does_not() {
    let before = FREED.load(Ordering::SeqCst);
    {
        let owned = unsafe { OwnedString::from_raw(StbString::from_str("x"), counting_free) };
        assert_eq!(owned.as_str(), Some("x"));
    }
    assert_eq!(FREED.load(Ordering::SeqCst), before + 1);
    let owned = unsafe { OwnedString::from_raw(StbString::from_str("y"), counting_free) };
    let raw = owned.into_raw();
    assert_eq!(FREED.load(Ordering::SeqCst), before + 1);
    unsafe { free_string(raw) };
    let sdk = OwnedString::from_string("z".into());
    assert_eq!(sdk.to_string_lossy(), "z");
}

#[test]
fn output_rewrites_reclaim_the_earlier_write_but_not_host_input() {
    // A host-owned sentinel in the slot must not be freed (it is not ours): a dangling pointer would crash.
    let mut slot = StbString { ptr: std::ptr::dangling_mut(), len: 1 };
    {
        let mut out = unsafe { Output::new(&mut slot) };
        assert!(out.write("first"));
        assert!(out.write("second"));
    }
    assert_eq!(unsafe { slot.to_string_lossy() }, "second");
    unsafe { free_string(slot) };
    let mut null = unsafe { Output::new(std::ptr::null_mut()) };
    assert!(!null.write("nowhere"));
}

#[test]
fn step_results_copy_out_and_reclaim() {
    let before = FREED.load(Ordering::SeqCst);
    let step = unsafe { take_step_result!(StepResult::done_str("{\"content\":[]}"), counting_free) };
    assert_eq!(step, Step::Done("{\"content\":[]}".into()));
    assert_eq!(FREED.load(Ordering::SeqCst), before + 1);
    assert_eq!(unsafe { take_step_result!(Step::Pending(String::new()).into_result()) }, Step::Pending(String::new()));
    assert_eq!(unsafe { take_step_result!(StepResult::err_str("bad")) }, Step::Err("bad".into()));
    let mut odd = StepResult::pending_empty();
    odd.tag = 9;
    assert_eq!(unsafe { take_step_result!(odd) }, Step::Err("unknown step result tag 9".into()));
}

#[test]
fn tool_handles_cancel_remove_and_unknown_tokens() {
    let handles: ToolHandles<u32> = ToolHandles::new();
    let h = handles.insert(1);
    assert!(!h.is_null());
    assert_eq!(handles.lock(h, |n| { *n += 1; *n }), Some(2));
    let entry = handles.get(h).expect("live");
    assert!(!entry.is_cancelled());
    assert!(handles.cancel(h));
    assert!(entry.is_cancelled() && handles.is_cancelled(h));
    assert!(handles.remove(h));
    assert!(!handles.remove(h));
    assert!(handles.get(h).is_none() && handles.lock(h, |_| ()).is_none());
    // The retained Arc keeps the state alive after removal.
    assert_eq!(*entry.lock(), 2);
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let h2 = handles.insert_with_cancel(5, flag.clone());
    assert_ne!(h, h2);
    handles.cancel(h2);
    assert!(flag.load(Ordering::SeqCst));
    assert!(!handles.cancel(0x9999 as StepHandle));
}

event_handler! {
    fn count_message(event, _user_data) {
        match event.message_text() {
            Some(text) if text == "panic" => panic!("handler panic"),
            Some(_) => EVENT_HANDLER_CONTINUE,
            None => EVENT_HANDLER_ABORT,
        }
    }
}

#[test]
fn event_views_are_tag_checked_and_handlers_contain_panics() {
    let text = "{\"role\":\"user\"}";
    let mut event = StablePluginEvent::empty(EventTag::MessageEnd);
    event.payload.message = MessagePayload { message: StbString { ptr: text.as_ptr() as *mut _, len: text.len() } };
    let view = EventView::new(&event);
    assert_eq!(view.tag(), Some(EventTag::MessageEnd));
    assert_eq!(view.message_text().as_deref(), Some(text));
    assert_eq!(view.tool_name(), None);
    assert_eq!(view.data_json(), None);
    assert_eq!(count_message(event, std::ptr::null_mut()), EVENT_HANDLER_CONTINUE);
    let boom = "panic";
    event.payload.message.message = StbString { ptr: boom.as_ptr() as *mut _, len: boom.len() };
    assert_eq!(count_message(event, std::ptr::null_mut()), EVENT_HANDLER_ERROR);
    let turn = StablePluginEvent::empty(EventTag::TurnStart);
    assert_eq!(count_message(turn, std::ptr::null_mut()), EVENT_HANDLER_ABORT);
    let unknown = StablePluginEvent { tag: 99, ..StablePluginEvent::empty(EventTag::Input) };
    assert_eq!(EventView::new(&unknown).tag(), None);
    assert_eq!(EventView::new(&unknown).data_json(), None);
    let (id, name) = ("c1", "bash");
    let mut call = StablePluginEvent::empty(EventTag::ToolCall);
    call.payload.tool_call.tool_call_id = StbString { ptr: id.as_ptr() as *mut _, len: 2 };
    call.payload.tool_call.tool_name = StbString { ptr: name.as_ptr() as *mut _, len: 4 };
    let view = EventView::new(&call);
    assert_eq!((view.tool_call_id().as_deref(), view.tool_name().as_deref()), (Some("c1"), Some("bash")));
    assert_eq!(view.params_json().as_deref(), Some(""));
    assert_eq!(view.result_json(), None);
    assert!(EventTag::ALL.iter().enumerate().all(|(i, tag)| *tag as usize == i));
    assert!(29u32 == EventTag::ToolCall);
}

string_handler! {
    fn shout(input, output, _user_data) {
        if input == "panic" { panic!("string handler panic"); }
        output.write(input.to_uppercase());
        0
    }
}

string_handler! {
    fn discover((cwd, reason), output, _user_data) {
        output.write(format!("{cwd}|{reason}"));
        0
    }
}

string_handler! {
    fn act(action_id, input, output, _user_data) {
        output.write(format!("{action_id}:{input}"));
        0
    }
}

#[test]
fn string_handlers_adapt_both_shapes_and_contain_panics() {
    let mut out = StbString::empty();
    assert_eq!(act(17, StbStringRef::from_str("{}"), &mut out, std::ptr::null_mut()), 0);
    assert_eq!(unsafe { OwnedString::from_raw(out, free_string) }.as_str(), Some("17:{}"));
    assert_eq!(RuntimeActionId::from_u32(22), Some(RuntimeActionId::UiComponent));
    assert_eq!(RuntimeActionId::from_u32(26), None);
    let mut out = StbString::empty();
    assert_eq!(shout(StbStringRef::from_str("hi"), &mut out, std::ptr::null_mut()), 0);
    assert_eq!(unsafe { OwnedString::from_raw(out, free_string) }.as_str(), Some("HI"));
    assert_eq!(shout(StbStringRef::from_str("panic"), std::ptr::null_mut(), std::ptr::null_mut()), 70);
    let mut out = StbString::empty();
    assert_eq!(discover(StbStringRef::from_str("/w"), StbStringRef::from_str("startup"), &mut out, std::ptr::null_mut()), 0);
    assert_eq!(unsafe { OwnedString::from_raw(out, free_string) }.as_str(), Some("/w|startup"));
}

execute_handler! {
    fn exec_two(call_id, params) {
        if params.as_str() == Some("panic") { panic!("execute panic"); }
        if call_id == "refuse" { return std::ptr::null_mut(); }
        params.len() as StepHandle
    }
}

execute_handler! {
    fn exec_three(_call_id, params, free_params) {
        let len = params.len;
        unsafe { params.free_with(free_params.expect("host free")) };
        len as StepHandle
    }
}

#[test]
fn execute_handlers_reclaim_params_on_every_path() {
    let before = FREED.load(Ordering::SeqCst);
    let h = exec_two(StbStringRef::from_str("c1"), StbString::from_str("{}"), Some(counting_free));
    assert_eq!(h as usize, 2);
    assert!(exec_two(StbStringRef::from_str("refuse"), StbString::from_str("{}"), Some(counting_free)).is_null());
    assert!(exec_two(StbStringRef::from_str("c1"), StbString::from_str("panic"), Some(counting_free)).is_null());
    let bad = [0xffu8];
    let bad_id = StbStringRef { ptr: bad.as_ptr() as *const _, len: 1 };
    assert!(exec_two(bad_id, StbString::from_str("{}"), Some(counting_free)).is_null());
    assert!(exec_three(bad_id, StbString::from_str("{}"), Some(counting_free)).is_null());
    assert_eq!(exec_three(StbStringRef::from_str("c2"), StbString::from_str("abc"), Some(counting_free)) as usize, 3);
    assert_eq!(FREED.load(Ordering::SeqCst), before + 6);
}

#[test]
fn actions_copy_and_free_the_host_out() {
    let mut api = fake_api();
    api.runtime_action = echo_action;
    let before = FREED.load(Ordering::SeqCst);
    let result = actions::call(&api, RuntimeActionId::GetCliFlag, "{\"name\":\"x\"}");
    assert_eq!(result, actions::ActionResult { code: 0, out: "{\"id\":16,\"args\":{\"name\":\"x\"}}".into() });
    assert_eq!(FREED.load(Ordering::SeqCst), before + 1);
    let api = fake_api();
    assert_eq!(actions::call_raw(&api, 77, "{}").code, -1);
}

#[test]
fn declarations_serialise_as_json() {
    let d = declare::Declaration { priority: Some(60), platforms: vec!["linux".into()], owns_stdio: true };
    assert_eq!(d.to_json(), r#"{"priority":60,"platforms":["linux"],"ownsStdio":true}"#);
    assert_eq!(declare::Declaration::default().to_json(), "{}");
    assert_eq!(declare::quote("a\"b\n\u{1}"), "\"a\\\"b\\n\\u0001\"");
    assert_eq!(declare::declare_json(&fake_api(), "{}"), None);
}

#[cfg(feature = "json")]
mod json_tests;
#[cfg(all(feature = "process", unix))]
mod process_tests;
#[cfg(feature = "provider")]
mod provider_tests;
#[cfg(all(feature = "stdio", unix))]
mod stdio_tests;
