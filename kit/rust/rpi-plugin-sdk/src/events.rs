//! A tag-checked, safe view of a [`StablePluginEvent`] and the `event_handler!` trampoline.
//!
//! Accessors return owned copies and `None` when the event's tag does not carry that field (pier's mapping
//! is [`EventTag::payload_kind`]), so a handler never reads the wrong union variant or keeps a host pointer.
//! Event strings are borrowed from the host during fan-out: handlers must not free them.

use crate::{EventTag, PayloadKind, StablePluginEvent, StbString};

/// The event a handler receives, valid only for the duration of the call.
pub struct EventView<'a> {
    raw: &'a StablePluginEvent,
}

impl<'a> EventView<'a> {
    pub fn new(raw: &'a StablePluginEvent) -> Self {
        EventView { raw }
    }

    /// The tag, or `None` for a tag this SDK does not know (a newer host).
    pub fn tag(&self) -> Option<EventTag> {
        EventTag::from_u32(self.raw.tag)
    }

    pub fn raw_tag(&self) -> u32 {
        self.raw.tag
    }

    pub fn is(&self, tag: EventTag) -> bool {
        self.raw.tag == tag as u32
    }

    fn kind(&self) -> Option<PayloadKind> {
        self.tag().map(EventTag::payload_kind)
    }

    fn copy(s: StbString) -> String {
        // SAFETY: the host keeps event strings live and unchanged for the duration of the handler call.
        unsafe { s.to_string_lossy() }
    }

    /// The message JSON of MessageStart / MessageUpdate / MessageEnd.
    pub fn message_text(&self) -> Option<String> {
        // SAFETY: the tag says the `message` variant is live.
        (self.kind()? == PayloadKind::Message).then(|| Self::copy(unsafe { self.raw.payload.message.message }))
    }

    /// The JSON of a long-tail (`data`) event: Context, BeforeProviderRequest, ModelSelect, Input, …
    pub fn data_json(&self) -> Option<String> {
        // SAFETY: the tag says the `data` variant is live.
        (self.kind()? == PayloadKind::Data).then(|| Self::copy(unsafe { self.raw.payload.data.data }))
    }

    /// The error text of an event that carries the `error` variant; pier sends errors as `data` JSON, so
    /// this reads the same slot for data-kind tags.
    pub fn error_message(&self) -> Option<String> {
        // SAFETY: `error` and `data` are both a single StbString at offset 0; the tag says one is live.
        (self.kind()? == PayloadKind::Data).then(|| Self::copy(unsafe { self.raw.payload.error.message }))
    }

    fn tool_call_strings(&self) -> Option<(StbString, StbString)> {
        // SAFETY: tool_call and tool_result share their first two strings; the tag says one is live.
        match self.kind()? {
            PayloadKind::ToolCall => unsafe {
                Some((self.raw.payload.tool_call.tool_call_id, self.raw.payload.tool_call.tool_name))
            },
            PayloadKind::ToolResult => unsafe {
                Some((self.raw.payload.tool_result.tool_call_id, self.raw.payload.tool_result.tool_name))
            },
            _ => None,
        }
    }

    /// The tool call id of ToolCall / ToolExecution* / ToolResult events.
    pub fn tool_call_id(&self) -> Option<String> {
        self.tool_call_strings().map(|(id, _)| Self::copy(id))
    }

    /// The tool name of ToolCall / ToolExecution* / ToolResult events.
    pub fn tool_name(&self) -> Option<String> {
        self.tool_call_strings().map(|(_, name)| Self::copy(name))
    }

    /// The arguments JSON of ToolCall / ToolExecutionStart / ToolExecutionUpdate.
    pub fn params_json(&self) -> Option<String> {
        // SAFETY: the tag says the `tool_call` variant is live.
        (self.kind()? == PayloadKind::ToolCall).then(|| Self::copy(unsafe { self.raw.payload.tool_call.params }))
    }

    /// The AgentToolResult JSON of ToolResult / ToolExecutionEnd.
    pub fn result_json(&self) -> Option<String> {
        // SAFETY: the tag says the `tool_result` variant is live.
        (self.kind()? == PayloadKind::ToolResult).then(|| Self::copy(unsafe { self.raw.payload.tool_result.result }))
    }

    /// Whether a ToolResult / ToolExecutionEnd reports an error.
    // Lazy on purpose: the union field is only read once the tag says that variant is live.
    #[allow(clippy::unnecessary_lazy_evaluations)]
    pub fn is_error(&self) -> Option<bool> {
        // SAFETY: the tag says the `tool_result` variant is live.
        (self.kind()? == PayloadKind::ToolResult).then(|| unsafe { self.raw.payload.tool_result.is_error != 0 })
    }

    /// The raw event (for custom handling).
    pub fn raw(&self) -> &StablePluginEvent {
        self.raw
    }
}

/// Defines an event handler as an `extern "C"` fn taking the event by value. The body sees an
/// [`EventView`] and the raw `user_data`, returns an `i32` code, and a panic becomes
/// [`crate::EVENT_HANDLER_ERROR`] (logged by the host; the fan-out continues).
#[macro_export]
macro_rules! event_handler {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($event:ident, $user_data:pat) $body:block) => {
        $(#[$meta])*
        // A body that always panics or aborts (a test fixture) is fine: the trampoline's tail is unreachable.
        #[allow(unreachable_code)]
        $vis extern "C" fn $name(event: $crate::StablePluginEvent, user_data: *mut ::std::ffi::c_void) -> i32 {
            $crate::contain($crate::EVENT_HANDLER_ERROR, move || {
                let $event = $crate::events::EventView::new(&event);
                let $user_data = user_data;
                let code: i32 = $body;
                code
            })
        }
    };
}
