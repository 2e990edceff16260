/*
 * rpi_plugin.h — the rpi plugin C ABI (unified, version 4) as pier implements it.
 *
 * A plugin is a shared library exporting
 *
 *     int32_t rpi_plugin_register(const PluginApi *api);
 *
 * The host calls it once with a PluginApi it keeps alive for the whole session. Every type here mirrors
 * a #[repr(C)] type of the Rust SDK (kit/rust/rpi-plugin-sdk) field for field; the _Static_asserts at the
 * bottom pin the x86-64 / aarch64 (LP64) sizes and offsets so a mismatch fails at compile time, not at run time.
 *
 * Ownership rules (docs/native.md has the long form):
 *   - StbString is OWNING, UTF-8, NOT NUL-terminated; ptr == NULL means empty (len must be 0).
 *     Whoever produced it frees it, through the free function that producer handed over:
 *     host strings (execute params, runtime_action out) go back through api->free_string;
 *     plugin strings (results, outputs, schema strings) are reclaimed by the host with the
 *     plugin_free_string the plugin registered next to them.
 *   - StbStringRef is BORROWED and valid only for the duration of the call.
 *   - Event strings are borrowed during fan-out: handlers must not free them.
 *   - A command handler's out has no registered free function: pier reclaims it with the plugin's first
 *     registered plugin_free_string (so register one before commands produce output).
 *   - No callback may unwind or longjmp across the boundary.
 */
#ifndef RPI_PLUGIN_H
#define RPI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and symbols (native-abi.md §1.1) ---------------------------------------------------------- */
#define RPI_LEGACY_PLUGIN_ABI_VERSION 1u
#define RPI_PLUGIN_ABI_VERSION 2u
#define RPI_PLUGIN_ABI_VERSION_V3 3u
#define RPI_PLUGIN_ABI_VERSION_UNIFIED 4u
#define RPI_REGISTER_SYMBOL_UNIFIED "rpi_plugin_register"

/* ---- rpi_plugin_register return codes (the SDK-side checks, §1.2) --------------------------------------- */
#define RPI_REGISTER_OK 0
#define RPI_REGISTER_ABI_MISMATCH 1     /* abi_version != RPI_PLUGIN_ABI_VERSION_UNIFIED */
#define RPI_REGISTER_NULL_API 2         /* api == NULL */
#define RPI_REGISTER_STRUCT_TOO_SMALL 3 /* struct_size < sizeof(PluginApi) the plugin was compiled with */
#define RPI_REGISTER_PANIC_STATUS 70    /* the registration body panicked (Rust SDK) */

/* ---- event handler return codes (§2.4) ------------------------------------------------------------------ */
#define RPI_EVENT_HANDLER_CONTINUE 0
#define RPI_EVENT_HANDLER_ERROR 1   /* logged; the fan-out continues */
#define RPI_EVENT_HANDLER_ABORT 2   /* veto; honoured on lifecycle events only */
#define RPI_EVENT_HANDLER_CLAIMED 3 /* consumed; honoured where the host arbitrates (Input) */

/* ---- runtime_action return codes (§3.2) ----------------------------------------------------------------- */
#define RPI_ACTION_OK 0
#define RPI_ACTION_HOST_ERROR 1 /* *out = {"error": message} */
#define RPI_ACTION_UNKNOWN_ID 2 /* *out = {"error":"unknown runtime action id N"} */
#define RPI_ACTION_NO_BRIDGE (-1)
#define RPI_ACTION_DROPPED (-2)

/* ---- other constants (§8) ------------------------------------------------------------------------------- */
#define RPI_HOST_NAME "rpi"
#define RPI_SESSION_ID_ENV "RPI_SESSION_ID"
#define RPI_HOST_CONTEXT_KEY "__rpi"
#define RPI_DEFAULT_PRIORITY 100

/* ---- strings (§2.1) ------------------------------------------------------------------------------------- */
typedef struct StbString {
    char *ptr;
    size_t len;
} StbString;

typedef struct StbStringRef {
    const char *ptr;
    size_t len;
} StbStringRef;

typedef void (*FreeStringFn)(StbString s);

typedef struct StableToolSchema {
    StbString name;
    StbString description;
    StbString parameters; /* JSON Schema text */
} StableToolSchema;

/* ---- tool lifecycle (§2.2) ------------------------------------------------------------------------------ */
typedef void *StepHandle;

typedef enum StepResultTag {
    RPI_STEP_PENDING = 0,
    RPI_STEP_DONE = 1,
    RPI_STEP_ERR = 2
} StepResultTag;

typedef struct StepPending {
    StbString progress; /* may be empty */
} StepPending;
typedef struct StepDone {
    StbString result; /* AgentToolResult JSON */
} StepDone;
typedef struct StepErr {
    StbString message; /* plain UTF-8 text */
} StepErr;

typedef union StepPayload {
    StepPending pending;
    StepDone done;
    StepErr err;
} StepPayload;

typedef struct StepResult {
    uint32_t tag; /* StepResultTag */
    StepPayload payload;
} StepResult;

typedef void (*ToolPartialCb)(StbString partial, void *user_data);
typedef StepHandle (*ToolExecuteFn)(StbStringRef tool_call_id, StbString params, FreeStringFn free_params);
typedef StepResult (*ToolPollFn)(StepHandle handle, ToolPartialCb partial_cb, void *user_data);
typedef void (*ToolCancelFn)(StepHandle handle);
typedef void (*ToolDestroyFn)(StepHandle handle);
typedef void (*ToolWakeCb)(void *callback_data);
typedef void (*ToolSetWakerFn)(StepHandle handle, ToolWakeCb callback, void *callback_data);

/* ---- events (§2.5, §2.6) -------------------------------------------------------------------------------- */
typedef enum EventTag {
    RPI_EVENT_PROJECT_TRUST = 0,
    RPI_EVENT_RESOURCES_DISCOVER = 1,
    RPI_EVENT_SESSION_START = 2,
    RPI_EVENT_SESSION_INFO_CHANGED = 3,
    RPI_EVENT_SESSION_BEFORE_SWITCH = 4,
    RPI_EVENT_SESSION_BEFORE_FORK = 5,
    RPI_EVENT_SESSION_BEFORE_COMPACT = 6,
    RPI_EVENT_SESSION_COMPACT = 7,
    RPI_EVENT_SESSION_SHUTDOWN = 8,
    RPI_EVENT_SESSION_BEFORE_TREE = 9,
    RPI_EVENT_SESSION_TREE = 10,
    RPI_EVENT_CONTEXT = 11,
    RPI_EVENT_BEFORE_PROVIDER_REQUEST = 12,
    RPI_EVENT_BEFORE_PROVIDER_HEADERS = 13,
    RPI_EVENT_AFTER_PROVIDER_RESPONSE = 14,
    RPI_EVENT_BEFORE_AGENT_START = 15,
    RPI_EVENT_AGENT_START = 16,
    RPI_EVENT_AGENT_END = 17,
    RPI_EVENT_AGENT_SETTLED = 18,
    RPI_EVENT_TURN_START = 19,
    RPI_EVENT_TURN_END = 20,
    RPI_EVENT_MESSAGE_START = 21,
    RPI_EVENT_MESSAGE_UPDATE = 22,
    RPI_EVENT_MESSAGE_END = 23,
    RPI_EVENT_TOOL_EXECUTION_START = 24,
    RPI_EVENT_TOOL_EXECUTION_UPDATE = 25,
    RPI_EVENT_TOOL_EXECUTION_END = 26,
    RPI_EVENT_MODEL_SELECT = 27,
    RPI_EVENT_THINKING_LEVEL_SELECT = 28,
    RPI_EVENT_TOOL_CALL = 29,
    RPI_EVENT_TOOL_RESULT = 30,
    RPI_EVENT_USER_BASH = 31,
    RPI_EVENT_INPUT = 32,
    RPI_EVENT_BEFORE_TUI_START = 33,
    RPI_EVENT_UI_PROMPT_START = 34,
    RPI_EVENT_UI_PROMPT_END = 35,
    RPI_EVENT_EDITOR_CHANGE = 36
} EventTag;
#define RPI_EVENT_TAG_COUNT 37u

typedef struct EventEmpty {
    uint8_t _opaque;
} EventEmpty;
typedef struct EventMessage {
    StbString message; /* AgentMessage JSON */
} EventMessage;
typedef struct EventToolCall {
    StbString tool_call_id;
    StbString tool_name;
    StbString params; /* arguments JSON */
} EventToolCall;
typedef struct EventToolResult {
    StbString tool_call_id;
    StbString tool_name;
    StbString result; /* AgentToolResult JSON */
    uint8_t is_error;
} EventToolResult;
typedef struct EventError {
    StbString message;
} EventError;
typedef struct EventData {
    StbString data; /* event JSON */
} EventData;

typedef union EventPayload {
    EventEmpty empty;
    EventMessage message;
    EventToolCall tool_call;
    EventToolResult tool_result;
    EventError error;
    EventData data;
} EventPayload;

typedef struct StablePluginEvent {
    uint32_t tag; /* EventTag */
    EventPayload payload;
} StablePluginEvent;

/* ---- handler and callback types (§2.4) ------------------------------------------------------------------ */
typedef int32_t (*EventHandlerFn)(StablePluginEvent event, void *user_data);
typedef int32_t (*CommandHandlerFn)(StbStringRef args_json, StbString *out, void *user_data);
typedef int32_t (*RenderFn)(StbStringRef input_json, StbString *out, void *user_data);
typedef int32_t (*ProviderRequestFn)(StbStringRef request_json, StbString *out, void *user_data);
typedef int32_t (*ResourcesDiscoverFn)(StbStringRef cwd, StbStringRef reason, StbString *out, void *user_data);
typedef int32_t (*BeforeAgentStartFn)(StbStringRef event_json, StbString *out, void *user_data);
typedef int32_t (*OAuthRequestFn)(StbStringRef request_json, StbString *out, void *user_data);
typedef int32_t (*RuntimeActionFn)(uint32_t action_id, StbStringRef args_json, StbString *out, void *user_data);

/* ---- runtime action ids (§3.1) -------------------------------------------------------------------------- */
typedef enum RuntimeActionId {
    RPI_ACTION_SEND_MESSAGE = 0,
    RPI_ACTION_SEND_USER_MESSAGE = 1,
    RPI_ACTION_APPEND_ENTRY = 2,
    RPI_ACTION_SET_SESSION_NAME = 3,
    RPI_ACTION_GET_ACTIVE_TOOLS = 4,
    RPI_ACTION_SET_ACTIVE_TOOLS = 5,
    RPI_ACTION_SET_MODEL = 6,
    RPI_ACTION_GET_THINKING_LEVEL = 7,
    RPI_ACTION_SET_THINKING_LEVEL = 8,
    RPI_ACTION_COMPACT = 9,
    RPI_ACTION_GET_SYSTEM_PROMPT = 10,
    RPI_ACTION_NEW_SESSION = 11,
    RPI_ACTION_FORK = 12,
    RPI_ACTION_NAVIGATE_TREE = 13,
    RPI_ACTION_SWITCH_SESSION = 14,
    RPI_ACTION_RELOAD = 15,
    RPI_ACTION_GET_CLI_FLAG = 16,
    RPI_ACTION_UI_DIALOG = 17,
    RPI_ACTION_SET_STATUS = 18,
    RPI_ACTION_SET_EDITOR_TEXT = 19,
    RPI_ACTION_GET_SESSION_BRANCH = 20,
    RPI_ACTION_STDIO_LIFECYCLE = 21,
    RPI_ACTION_UI_COMPONENT = 22,
    RPI_ACTION_GET_EXECUTION_CONTEXT = 23,
    RPI_ACTION_CHILD_AGENT = 24,
    RPI_ACTION_SIDE_QUESTION = 25
} RuntimeActionId;
#define RPI_RUNTIME_ACTION_COUNT 26u

/* ---- registrar slot types (§1.3; slots 18-19 are pier's choice, CONTRACT) ------------------------------- */
typedef int32_t (*RegisterToolFn)(const StableToolSchema *schema, ToolExecuteFn execute_fn, ToolPollFn poll_fn,
                                  ToolCancelFn cancel_fn, ToolDestroyFn destroy_fn, FreeStringFn plugin_free_string);
typedef int32_t (*RegisterCommandFn)(StbStringRef name, StbStringRef description, CommandHandlerFn handler);
typedef int32_t (*RegisterShortcutFn)(StbStringRef key, StbStringRef description);
typedef int32_t (*RegisterFlagFn)(StbStringRef name, StbStringRef description);
typedef int32_t (*RegisterProviderFn)(StbStringRef provider_id, StbStringRef base_url, StbStringRef api_style,
                                      ProviderRequestFn request_fn, FreeStringFn plugin_free_string, void *user_data);
typedef int32_t (*RegisterRendererFn)(StbStringRef name, RenderFn render_fn, FreeStringFn plugin_free_string,
                                      void *user_data);
typedef int32_t (*RegisterEventHandlerFn)(uint32_t tag, EventHandlerFn handler, void *user_data);
typedef int32_t (*RegisterResourcesDiscoverFn)(ResourcesDiscoverFn handler, FreeStringFn plugin_free_string,
                                               void *user_data);
typedef int32_t (*DispatchEventFn)(StablePluginEvent event, void *user_data);
typedef int32_t (*DeclareFn)(StbStringRef json);
typedef int32_t (*RegisterBeforeAgentStartFn)(BeforeAgentStartFn handler, FreeStringFn plugin_free_string,
                                              void *user_data);
typedef int32_t (*RegisterOAuthProviderFn)(StbStringRef manifest_json, OAuthRequestFn request_fn,
                                           FreeStringFn plugin_free_string, void *user_data);
typedef int32_t (*RegisterToolWithWakeFn)(const StableToolSchema *schema, ToolExecuteFn execute_fn,
                                          ToolPollFn poll_fn, ToolCancelFn cancel_fn, ToolDestroyFn destroy_fn,
                                          FreeStringFn plugin_free_string, ToolSetWakerFn set_waker);

/*
 * The host table. Any registrar slot may be NULL (an older host): check before calling.
 * free_string and runtime_action are never NULL. Slots are only ever appended.
 * pier passes abi_version = 4 and struct_size = 256, zero-filled past the slots it knows.
 */
typedef struct PluginApi {
    uint32_t abi_version;                                      /* 0   */
    uint32_t struct_size;                                      /* 4   */
    FreeStringFn free_string;                                  /* 8   host deallocator */
    RegisterToolFn register_tool;                              /* 16  */
    RegisterCommandFn register_command;                        /* 24  */
    RegisterShortcutFn register_shortcut;                      /* 32  */
    RegisterFlagFn register_flag;                              /* 40  */
    RegisterProviderFn register_provider;                      /* 48  */
    RegisterRendererFn register_message_renderer;              /* 56  */
    RegisterRendererFn register_markdown_transformer;          /* 64  */
    RegisterRendererFn register_entry_renderer;                /* 72  */
    RegisterEventHandlerFn register_event_handler;             /* 80  */
    RegisterResourcesDiscoverFn register_resources_discover;   /* 88  */
    RuntimeActionFn runtime_action;                            /* 96  */
    DispatchEventFn dispatch_event;                            /* 104 */
    void *user_data;                                           /* 112 pass back to runtime_action */
    DeclareFn declare;                                         /* 120 */
    RegisterBeforeAgentStartFn register_before_agent_start;    /* 128 */
    RegisterOAuthProviderFn register_oauth_provider;           /* 136 */
    RegisterToolWithWakeFn register_tool_with_wake;            /* 144 */
    void *_reserved0;                                          /* 152 always NULL */
    void *_reserved1;                                          /* 160 always NULL */
} PluginApi;

/*
 * The entry point a plugin defines. A C plugin performs the SDK-side checks itself, in this order:
 * api NULL -> 2; abi_version != 4 -> 1; struct_size < sizeof(PluginApi) -> 3; then register, 0 on success.
 * RPI_CHECK_API does exactly that.
 */
int32_t rpi_plugin_register(const PluginApi *api);

#define RPI_CHECK_API(api)                                                                                      \
    do {                                                                                                        \
        if ((api) == NULL) return RPI_REGISTER_NULL_API;                                                        \
        if ((api)->abi_version != RPI_PLUGIN_ABI_VERSION_UNIFIED) return RPI_REGISTER_ABI_MISMATCH;             \
        if ((size_t)(api)->struct_size < sizeof(PluginApi)) return RPI_REGISTER_STRUCT_TOO_SMALL;               \
    } while (0)

/* A borrowed view of a C string literal or NUL-terminated buffer. */
static inline StbStringRef rpi_str_ref(const char *s) {
    StbStringRef r;
    size_t n = 0;
    if (s != NULL) {
        while (s[n] != '\0') n++;
    }
    r.ptr = s;
    r.len = n;
    return r;
}

/* ---- layout pins (LP64: x86-64 / aarch64 Linux) --------------------------------------------------------- */
#if defined(__LP64__) || defined(_LP64)
#ifdef __cplusplus
#define RPI_STATIC_ASSERT static_assert
#else
#define RPI_STATIC_ASSERT _Static_assert
#endif
RPI_STATIC_ASSERT(sizeof(StbString) == 16, "StbString is 16 bytes");
RPI_STATIC_ASSERT(sizeof(StbStringRef) == 16, "StbStringRef is 16 bytes");
RPI_STATIC_ASSERT(sizeof(StableToolSchema) == 48, "StableToolSchema is 48 bytes");
RPI_STATIC_ASSERT(sizeof(StepResult) == 24, "StepResult is 24 bytes");
RPI_STATIC_ASSERT(offsetof(StepResult, payload) == 8, "StepResult payload at 8");
RPI_STATIC_ASSERT(sizeof(EventPayload) == 56, "EventPayload is 56 bytes");
RPI_STATIC_ASSERT(offsetof(EventToolResult, is_error) == 48, "is_error at payload+48");
RPI_STATIC_ASSERT(sizeof(StablePluginEvent) == 64, "StablePluginEvent is 64 bytes");
RPI_STATIC_ASSERT(offsetof(StablePluginEvent, payload) == 8, "event payload at 8");
RPI_STATIC_ASSERT(sizeof(EventTag) == 4, "EventTag is a u32");
RPI_STATIC_ASSERT(sizeof(StepResultTag) == 4, "StepResultTag is a u32");
RPI_STATIC_ASSERT(offsetof(PluginApi, struct_size) == 4, "struct_size at 4");
RPI_STATIC_ASSERT(offsetof(PluginApi, free_string) == 8, "free_string at 8");
RPI_STATIC_ASSERT(offsetof(PluginApi, register_tool) == 16, "register_tool at 16");
RPI_STATIC_ASSERT(offsetof(PluginApi, register_event_handler) == 80, "register_event_handler at 80");
RPI_STATIC_ASSERT(offsetof(PluginApi, runtime_action) == 96, "runtime_action at 96");
RPI_STATIC_ASSERT(offsetof(PluginApi, user_data) == 112, "user_data at 112");
RPI_STATIC_ASSERT(offsetof(PluginApi, declare) == 120, "declare at 120");
RPI_STATIC_ASSERT(offsetof(PluginApi, register_before_agent_start) == 128, "register_before_agent_start at 128");
RPI_STATIC_ASSERT(offsetof(PluginApi, register_oauth_provider) == 136, "register_oauth_provider at 136");
RPI_STATIC_ASSERT(offsetof(PluginApi, register_tool_with_wake) == 144, "register_tool_with_wake at 144");
RPI_STATIC_ASSERT(offsetof(PluginApi, _reserved1) == 160, "reserved slot 21 at 160");
RPI_STATIC_ASSERT(sizeof(PluginApi) == 168, "PluginApi is 168 bytes (22 slots)");
#endif

#ifdef __cplusplus
}
#endif

#endif /* RPI_PLUGIN_H */
