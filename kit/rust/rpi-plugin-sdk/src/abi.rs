//! The `#[repr(C)]` types that cross the boundary (native-abi.md §1–§3). Nothing here has a `Drop` impl:
//! ownership of a string is carried by the explicit free function its producer hands over.

use std::ffi::{c_char, c_void};

// ---- strings ----------------------------------------------------------------------------------------------

/// An owning UTF-8 buffer, not NUL-terminated. A null `ptr` means empty (and `len` must be 0).
/// Whoever receives one frees it exactly once with the free function its producer handed over.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StbString {
    pub ptr: *mut c_char,
    pub len: usize,
}

/// A borrowed UTF-8 view, valid only for the duration of the call it is passed to.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StbStringRef {
    pub ptr: *const c_char,
    pub len: usize,
}

/// Reading either string type: an owning buffer and a borrowed view read their bytes the same way (one
/// pointer is `*mut`, the other `*const`).
macro_rules! string_reads {
    ($ty:ident) => {
        impl $ty {
            /// True for a null pointer or a zero length.
            pub fn is_empty(&self) -> bool {
                self.ptr.is_null() || self.len == 0
            }

            /// Borrows the bytes.
            ///
            /// # Safety
            /// `ptr`/`len` must describe live memory that stays unchanged while the slice is used (a borrowed
            /// view is, inside the call that received it).
            pub unsafe fn as_bytes(&self) -> &[u8] {
                if self.is_empty() {
                    &[]
                } else {
                    std::slice::from_raw_parts(self.ptr as *const u8, self.len)
                }
            }

            /// Copies the bytes out as a `String`, replacing invalid UTF-8.
            ///
            /// # Safety
            /// As for `as_bytes`: the memory must be live and unchanged during the copy.
            pub unsafe fn to_string_lossy(&self) -> String {
                String::from_utf8_lossy(self.as_bytes()).into_owned()
            }
        }
    };
}
string_reads!(StbString);
string_reads!(StbStringRef);

/// A producer's deallocator. Unsafe to call: nothing in the pointer proves the buffer is uniquely owned or
/// came from that producer's allocator.
pub type FreeStringFn = unsafe extern "C" fn(s: StbString);

impl StbString {
    /// The empty string (null pointer, zero length); every deallocator accepts it as a no-op.
    pub const fn empty() -> Self {
        StbString { ptr: std::ptr::null_mut(), len: 0 }
    }

    /// Moves `s` into a buffer owned by this SDK's allocator (a `Box<[u8]>`); reclaim it with
    /// [`crate::callbacks::free_string`].
    pub fn from_string(s: String) -> Self {
        Self::from_bytes(s.into_bytes())
    }

    /// Copies `s` into an SDK-owned buffer (see [`StbString::from_string`]).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(s: &str) -> Self {
        Self::from_bytes(s.as_bytes().to_vec())
    }

    /// Moves `bytes` into an SDK-owned buffer; empty input gives the null empty string.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        if bytes.is_empty() {
            return Self::empty();
        }
        let boxed: Box<[u8]> = bytes.into_boxed_slice();
        let len = boxed.len();
        let ptr = Box::into_raw(boxed) as *mut u8 as *mut c_char;
        StbString { ptr, len }
    }

    /// A borrowed view of the same bytes.
    pub fn as_ref(&self) -> StbStringRef {
        StbStringRef { ptr: self.ptr as *const c_char, len: if self.ptr.is_null() { 0 } else { self.len } }
    }

    /// Hands the buffer back to its producer's deallocator.
    ///
    /// # Safety
    /// `self` must be uniquely owned, not yet freed, and allocated by the producer `free` belongs to.
    pub unsafe fn free_with(self, free: FreeStringFn) {
        if !self.ptr.is_null() {
            free(self);
        }
    }
}

impl Default for StbString {
    fn default() -> Self {
        Self::empty()
    }
}

impl StbStringRef {
    pub const fn empty() -> Self {
        StbStringRef { ptr: std::ptr::null(), len: 0 }
    }

    /// Borrows a Rust string for the duration of a call (the string must outlive the call).
    #[allow(clippy::should_implement_trait)]
    pub const fn from_str(s: &str) -> Self {
        StbStringRef { ptr: s.as_ptr() as *const c_char, len: s.len() }
    }

    /// The bytes as `&str`, or `None` when they are not UTF-8.
    ///
    /// # Safety
    /// As for [`StbStringRef::as_bytes`].
    pub unsafe fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(self.as_bytes()).ok()
    }
}

impl Default for StbStringRef {
    fn default() -> Self {
        Self::empty()
    }
}

/// A tool's schema. The host copies the three strings out and frees them with the tool's
/// `plugin_free_string` inside `register_tool`: the plugin must not free them again.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StableToolSchema {
    pub name: StbString,
    pub description: StbString,
    /// JSON Schema text.
    pub parameters: StbString,
}

impl StableToolSchema {
    /// SDK-owned copies of the three strings (register with [`crate::callbacks::free_string`]).
    pub fn new(name: &str, description: &str, parameters: &str) -> Self {
        StableToolSchema {
            name: StbString::from_str(name),
            description: StbString::from_str(description),
            parameters: StbString::from_str(parameters),
        }
    }
}

// ---- tool lifecycle ---------------------------------------------------------------------------------------

/// An opaque plugin-allocated token. The host never dereferences it.
pub type StepHandle = *mut c_void;

#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepResultTag {
    Pending = 0,
    Done = 1,
    Err = 2,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StepPending {
    /// Optional progress (may be empty; the host skips empty progress).
    pub progress: StbString,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StepDone {
    /// AgentToolResult JSON.
    pub result: StbString,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StepErr {
    /// Plain UTF-8 text.
    pub message: StbString,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union StepPayload {
    pub pending: StepPending,
    pub done: StepDone,
    pub err: StepErr,
}

/// What `poll` returns by value: the tag says which payload string is live.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StepResult {
    /// A [`StepResultTag`] value as `u32` (a raw integer so an unknown tag is never an invalid enum).
    pub tag: u32,
    pub payload: StepPayload,
}

impl StepResult {
    pub fn pending(progress: StbString) -> Self {
        StepResult { tag: StepResultTag::Pending as u32, payload: StepPayload { pending: StepPending { progress } } }
    }
    pub fn pending_empty() -> Self {
        Self::pending(StbString::empty())
    }
    pub fn done(result: StbString) -> Self {
        StepResult { tag: StepResultTag::Done as u32, payload: StepPayload { done: StepDone { result } } }
    }
    pub fn err(message: StbString) -> Self {
        StepResult { tag: StepResultTag::Err as u32, payload: StepPayload { err: StepErr { message } } }
    }
    /// `Done` with an SDK-owned copy of `json`.
    pub fn done_str(json: &str) -> Self {
        Self::done(StbString::from_str(json))
    }
    /// `Err` with an SDK-owned copy of `message`.
    pub fn err_str(message: &str) -> Self {
        Self::err(StbString::from_str(message))
    }
    pub fn tag(&self) -> Option<StepResultTag> {
        match self.tag {
            0 => Some(StepResultTag::Pending),
            1 => Some(StepResultTag::Done),
            2 => Some(StepResultTag::Err),
            _ => None,
        }
    }
    /// The live payload string (all three variants hold one `StbString` at the same offset).
    pub fn string(&self) -> StbString {
        // SAFETY: every variant is a single StbString at offset 0 of the union; all are Copy.
        unsafe { self.payload.pending.progress }
    }
}

impl std::fmt::Debug for StepResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepResult").field("tag", &self.tag).field("string", &self.string()).finish()
    }
}

pub type ToolPartialCb = extern "C" fn(partial: StbString, user_data: *mut c_void);
pub type ToolExecuteFn =
    extern "C" fn(tool_call_id: StbStringRef, params: StbString, free_params: Option<FreeStringFn>) -> StepHandle;
pub type ToolPollFn =
    extern "C" fn(handle: StepHandle, partial_cb: Option<ToolPartialCb>, user_data: *mut c_void) -> StepResult;
pub type ToolCancelFn = extern "C" fn(handle: StepHandle);
pub type ToolDestroyFn = extern "C" fn(handle: StepHandle);
/// The host's wake callback: call it (from any thread) whenever another poll could make progress.
pub type ToolWakeCb = extern "C" fn(callback_data: *mut c_void);
/// Installs (`Some`) or removes (`None`) a handle's waker. Installing must wake at once if progress is ready.
pub type ToolSetWakerFn = extern "C" fn(handle: StepHandle, callback: Option<ToolWakeCb>, callback_data: *mut c_void);

// ---- events -----------------------------------------------------------------------------------------------

/// The 37 event tags (native-abi.md §2.5).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventTag {
    ProjectTrust = 0,
    ResourcesDiscover = 1,
    SessionStart = 2,
    SessionInfoChanged = 3,
    SessionBeforeSwitch = 4,
    SessionBeforeFork = 5,
    SessionBeforeCompact = 6,
    SessionCompact = 7,
    SessionShutdown = 8,
    SessionBeforeTree = 9,
    SessionTree = 10,
    Context = 11,
    BeforeProviderRequest = 12,
    BeforeProviderHeaders = 13,
    AfterProviderResponse = 14,
    BeforeAgentStart = 15,
    AgentStart = 16,
    AgentEnd = 17,
    AgentSettled = 18,
    TurnStart = 19,
    TurnEnd = 20,
    MessageStart = 21,
    MessageUpdate = 22,
    MessageEnd = 23,
    ToolExecutionStart = 24,
    ToolExecutionUpdate = 25,
    ToolExecutionEnd = 26,
    ModelSelect = 27,
    ThinkingLevelSelect = 28,
    ToolCall = 29,
    ToolResult = 30,
    UserBash = 31,
    Input = 32,
    /// rpi-only: before the terminal UI initialises.
    BeforeTuiStart = 33,
    UiPromptStart = 34,
    UiPromptEnd = 35,
    /// rpi-only: `{"chars":N,"empty":bool}` (the text itself is not shipped).
    EditorChange = 36,
}

pub const EVENT_TAG_COUNT: u32 = 37;

/// Which [`EventPayload`] variant the host fills for a tag (pier's mapping, from the rpi host's translate.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadKind {
    Empty,
    Message,
    ToolCall,
    ToolResult,
    Data,
}

impl EventTag {
    pub const ALL: [EventTag; EVENT_TAG_COUNT as usize] = {
        let mut all = [EventTag::ProjectTrust; EVENT_TAG_COUNT as usize];
        let mut i = 0;
        while i < EVENT_TAG_COUNT as usize {
            all[i] = match EventTag::from_u32(i as u32) {
                Some(tag) => tag,
                None => EventTag::ProjectTrust,
            };
            i += 1;
        }
        all
    };

    pub const fn from_u32(value: u32) -> Option<EventTag> {
        use EventTag::*;
        Some(match value {
            0 => ProjectTrust,
            1 => ResourcesDiscover,
            2 => SessionStart,
            3 => SessionInfoChanged,
            4 => SessionBeforeSwitch,
            5 => SessionBeforeFork,
            6 => SessionBeforeCompact,
            7 => SessionCompact,
            8 => SessionShutdown,
            9 => SessionBeforeTree,
            10 => SessionTree,
            11 => Context,
            12 => BeforeProviderRequest,
            13 => BeforeProviderHeaders,
            14 => AfterProviderResponse,
            15 => BeforeAgentStart,
            16 => AgentStart,
            17 => AgentEnd,
            18 => AgentSettled,
            19 => TurnStart,
            20 => TurnEnd,
            21 => MessageStart,
            22 => MessageUpdate,
            23 => MessageEnd,
            24 => ToolExecutionStart,
            25 => ToolExecutionUpdate,
            26 => ToolExecutionEnd,
            27 => ModelSelect,
            28 => ThinkingLevelSelect,
            29 => ToolCall,
            30 => ToolResult,
            31 => UserBash,
            32 => Input,
            33 => BeforeTuiStart,
            34 => UiPromptStart,
            35 => UiPromptEnd,
            36 => EditorChange,
            _ => return None,
        })
    }

    /// The payload variant pier's host fills for this tag. Tags without a payload get the zeroed `empty`
    /// variant; every long-tail event carries its JSON in `data`.
    pub const fn payload_kind(self) -> PayloadKind {
        use EventTag::*;
        match self {
            MessageStart | MessageUpdate | MessageEnd => PayloadKind::Message,
            ToolCall | ToolExecutionStart | ToolExecutionUpdate => PayloadKind::ToolCall,
            ToolResult | ToolExecutionEnd => PayloadKind::ToolResult,
            AgentStart | AgentEnd | TurnStart | TurnEnd | SessionStart | SessionShutdown | BeforeTuiStart => {
                PayloadKind::Empty
            }
            _ => PayloadKind::Data,
        }
    }
}

impl PartialEq<EventTag> for u32 {
    fn eq(&self, other: &EventTag) -> bool {
        *self == *other as u32
    }
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EmptyPayload {
    pub _opaque: u8,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MessagePayload {
    /// AgentMessage JSON (MessageStart/MessageEnd) or the assistant message JSON (MessageUpdate).
    pub message: StbString,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ToolCallPayload {
    pub tool_call_id: StbString,
    pub tool_name: StbString,
    /// Arguments JSON.
    pub params: StbString,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ToolResultPayload {
    pub tool_call_id: StbString,
    pub tool_name: StbString,
    /// AgentToolResult JSON.
    pub result: StbString,
    pub is_error: u8,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ErrorPayload {
    pub message: StbString,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DataPayload {
    /// The event's JSON.
    pub data: StbString,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union EventPayload {
    pub empty: EmptyPayload,
    pub message: MessagePayload,
    pub tool_call: ToolCallPayload,
    pub tool_result: ToolResultPayload,
    pub error: ErrorPayload,
    pub data: DataPayload,
}

/// An event, passed by value (64 bytes). Handlers borrow its strings: the host frees them after the fan-out.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StablePluginEvent {
    /// An [`EventTag`] value as `u32` (a raw integer so a newer host's tag is never an invalid enum).
    pub tag: u32,
    pub payload: EventPayload,
}

impl StablePluginEvent {
    /// A zero-filled event of `tag` (every payload string empty).
    pub fn empty(tag: EventTag) -> Self {
        StablePluginEvent {
            tag: tag as u32,
            payload: EventPayload {
                tool_result: ToolResultPayload {
                    tool_call_id: StbString::empty(),
                    tool_name: StbString::empty(),
                    result: StbString::empty(),
                    is_error: 0,
                },
            },
        }
    }

    /// An event carrying `data` in the `data` variant (for `dispatch_event`; ownership passes to the host).
    pub fn with_data(tag: EventTag, data: StbString) -> Self {
        let mut event = Self::empty(tag);
        event.payload.data = DataPayload { data };
        event
    }
}

impl std::fmt::Debug for StablePluginEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StablePluginEvent").field("tag", &self.tag).finish_non_exhaustive()
    }
}

// ---- handler and callback types ---------------------------------------------------------------------------

pub type EventHandlerFn = extern "C" fn(event: StablePluginEvent, user_data: *mut c_void) -> i32;
/// Input `{"args":"<raw text>","command":"..."}` (plus `action`/`value` on follow-ups); `out` = result JSON.
pub type CommandHandlerFn = extern "C" fn(args_json: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;
pub type RenderFn = extern "C" fn(input_json: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;
pub type ProviderRequestFn = extern "C" fn(request_json: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;
pub type ResourcesDiscoverFn =
    extern "C" fn(cwd: StbStringRef, reason: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;
pub type BeforeAgentStartFn = extern "C" fn(event_json: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;
pub type OAuthRequestFn = extern "C" fn(request_json: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;
pub type RuntimeActionFn =
    extern "C" fn(action_id: u32, args_json: StbStringRef, out: *mut StbString, user_data: *mut c_void) -> i32;

pub type RegisterToolFn = extern "C" fn(
    schema: *const StableToolSchema,
    execute_fn: ToolExecuteFn,
    poll_fn: ToolPollFn,
    cancel_fn: ToolCancelFn,
    destroy_fn: ToolDestroyFn,
    plugin_free_string: FreeStringFn,
) -> i32;
pub type RegisterCommandFn = extern "C" fn(name: StbStringRef, description: StbStringRef, handler: CommandHandlerFn) -> i32;
pub type RegisterShortcutFn = extern "C" fn(key: StbStringRef, description: StbStringRef) -> i32;
pub type RegisterFlagFn = extern "C" fn(name: StbStringRef, description: StbStringRef) -> i32;
pub type RegisterProviderFn = extern "C" fn(
    provider_id: StbStringRef,
    base_url: StbStringRef,
    api_style: StbStringRef,
    request_fn: ProviderRequestFn,
    plugin_free_string: FreeStringFn,
    user_data: *mut c_void,
) -> i32;
pub type RegisterRendererFn =
    extern "C" fn(name: StbStringRef, render_fn: RenderFn, plugin_free_string: FreeStringFn, user_data: *mut c_void) -> i32;
pub type RegisterEventHandlerFn = extern "C" fn(tag: EventTag, handler: EventHandlerFn, user_data: *mut c_void) -> i32;
pub type RegisterResourcesDiscoverFn =
    extern "C" fn(handler: ResourcesDiscoverFn, plugin_free_string: FreeStringFn, user_data: *mut c_void) -> i32;
pub type DispatchEventFn = extern "C" fn(event: StablePluginEvent, user_data: *mut c_void) -> i32;
pub type DeclareFn = extern "C" fn(json: StbStringRef) -> i32;
pub type RegisterBeforeAgentStartFn =
    extern "C" fn(handler: BeforeAgentStartFn, plugin_free_string: FreeStringFn, user_data: *mut c_void) -> i32;
pub type RegisterOAuthProviderFn = extern "C" fn(
    manifest_json: StbStringRef,
    request_fn: OAuthRequestFn,
    plugin_free_string: FreeStringFn,
    user_data: *mut c_void,
) -> i32;
pub type RegisterToolWithWakeFn = extern "C" fn(
    schema: *const StableToolSchema,
    execute_fn: ToolExecuteFn,
    poll_fn: ToolPollFn,
    cancel_fn: ToolCancelFn,
    destroy_fn: ToolDestroyFn,
    plugin_free_string: FreeStringFn,
    set_waker: ToolSetWakerFn,
) -> i32;

// ---- runtime actions --------------------------------------------------------------------------------------

/// Runtime action ids (native-abi.md §3.1). Passed to `runtime_action` as a raw `u32`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuntimeActionId {
    SendMessage = 0,
    SendUserMessage = 1,
    AppendEntry = 2,
    SetSessionName = 3,
    GetActiveTools = 4,
    SetActiveTools = 5,
    SetModel = 6,
    GetThinkingLevel = 7,
    SetThinkingLevel = 8,
    Compact = 9,
    GetSystemPrompt = 10,
    NewSession = 11,
    Fork = 12,
    NavigateTree = 13,
    SwitchSession = 14,
    Reload = 15,
    GetCliFlag = 16,
    UiDialog = 17,
    SetStatus = 18,
    SetEditorText = 19,
    GetSessionBranch = 20,
    StdioLifecycle = 21,
    UiComponent = 22,
    GetExecutionContext = 23,
    ChildAgent = 24,
    SideQuestion = 25,
}

pub const RUNTIME_ACTION_COUNT: u32 = 26;

impl RuntimeActionId {
    pub const fn from_u32(value: u32) -> Option<RuntimeActionId> {
        use RuntimeActionId::*;
        Some(match value {
            0 => SendMessage,
            1 => SendUserMessage,
            2 => AppendEntry,
            3 => SetSessionName,
            4 => GetActiveTools,
            5 => SetActiveTools,
            6 => SetModel,
            7 => GetThinkingLevel,
            8 => SetThinkingLevel,
            9 => Compact,
            10 => GetSystemPrompt,
            11 => NewSession,
            12 => Fork,
            13 => NavigateTree,
            14 => SwitchSession,
            15 => Reload,
            16 => GetCliFlag,
            17 => UiDialog,
            18 => SetStatus,
            19 => SetEditorText,
            20 => GetSessionBranch,
            21 => StdioLifecycle,
            22 => UiComponent,
            23 => GetExecutionContext,
            24 => ChildAgent,
            25 => SideQuestion,
            _ => return None,
        })
    }
}

// ---- the host table ---------------------------------------------------------------------------------------

/// The table the host passes to `rpi_plugin_register` (unified ABI 4). Slots 0–17 as rpi's SDK; 18–21 are
/// pier's choice where upstream's order is unknown. Slots are only ever appended; an `Option` slot may be
/// `None` on an older host, so check before calling. pier passes `struct_size = 256`, zero-filled past 168.
#[repr(C)]
pub struct PluginApi {
    pub abi_version: u32,
    pub struct_size: u32,
    /// The host's deallocator, for host-produced strings (execute params, runtime_action `out`). Never null.
    pub free_string: FreeStringFn,
    pub register_tool: Option<RegisterToolFn>,
    pub register_command: Option<RegisterCommandFn>,
    pub register_shortcut: Option<RegisterShortcutFn>,
    /// A bare flag name (no `--`); read it later with [`RuntimeActionId::GetCliFlag`].
    pub register_flag: Option<RegisterFlagFn>,
    pub register_provider: Option<RegisterProviderFn>,
    pub register_message_renderer: Option<RegisterRendererFn>,
    pub register_markdown_transformer: Option<RegisterRendererFn>,
    pub register_entry_renderer: Option<RegisterRendererFn>,
    pub register_event_handler: Option<RegisterEventHandlerFn>,
    pub register_resources_discover: Option<RegisterResourcesDiscoverFn>,
    /// Not optional: a host without a bridge installs a stub that returns -1.
    pub runtime_action: RuntimeActionFn,
    pub dispatch_event: Option<DispatchEventFn>,
    /// The host's context; pass it back as `runtime_action`'s last argument.
    pub user_data: *mut c_void,
    pub declare: Option<DeclareFn>,
    pub register_before_agent_start: Option<RegisterBeforeAgentStartFn>,
    pub register_oauth_provider: Option<RegisterOAuthProviderFn>,
    pub register_tool_with_wake: Option<RegisterToolWithWakeFn>,
    pub _reserved0: *mut c_void,
    pub _reserved1: *mut c_void,
}

// SAFETY: the host leaks the table and keeps it valid and unchanged for the session; its fn slots are
// thread-safe per the ABI (runtime_action may be called from any plugin thread).
unsafe impl Sync for PluginApi {}
unsafe impl Send for PluginApi {}

/// The unified entry point's type: `rpi_plugin_register(api) -> i32`.
pub type RpiPluginRegisterUnified = extern "C" fn(api: *const PluginApi) -> i32;

// ---- layout pins (x86-64 / aarch64) -----------------------------------------------------------------------

#[cfg(target_pointer_width = "64")]
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<StbString>() == 16);
    assert!(size_of::<StbStringRef>() == 16);
    assert!(size_of::<StableToolSchema>() == 48);
    assert!(size_of::<StepResult>() == 24);
    assert!(offset_of!(StepResult, payload) == 8);
    assert!(size_of::<EventPayload>() == 56);
    assert!(align_of::<EventPayload>() == 8);
    assert!(offset_of!(ToolResultPayload, is_error) == 48);
    assert!(size_of::<StablePluginEvent>() == 64);
    assert!(offset_of!(StablePluginEvent, payload) == 8);
    assert!(size_of::<EventTag>() == 4);
    assert!(StepResultTag::Pending as u32 == 0 && StepResultTag::Done as u32 == 1 && StepResultTag::Err as u32 == 2);
    assert!(EventTag::EditorChange as u32 + 1 == EVENT_TAG_COUNT);
    assert!(RuntimeActionId::SideQuestion as u32 + 1 == RUNTIME_ACTION_COUNT);
    assert!(offset_of!(PluginApi, struct_size) == 4);
    assert!(offset_of!(PluginApi, free_string) == 8);
    assert!(offset_of!(PluginApi, register_tool) == 16);
    assert!(offset_of!(PluginApi, register_event_handler) == 80);
    assert!(offset_of!(PluginApi, runtime_action) == 96);
    assert!(offset_of!(PluginApi, user_data) == 112);
    assert!(offset_of!(PluginApi, declare) == 120);
    assert!(offset_of!(PluginApi, register_before_agent_start) == 128);
    assert!(offset_of!(PluginApi, register_oauth_provider) == 136);
    assert!(offset_of!(PluginApi, register_tool_with_wake) == 144);
    assert!(offset_of!(PluginApi, _reserved1) == 160);
    assert!(size_of::<PluginApi>() == 168);
    assert!(size_of::<Option<FreeStringFn>>() == 8);
};
