/*
 * c-echo: the echo tool of pier's stub plugin, in C against kit/c/rpi_plugin.h.
 * Build: gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I kit/c -o libc_echo.so examples/native/c-echo/c_echo.c
 *
 * Every string this plugin hands the host is malloc'd and reclaimed by c_echo_free (registered as the
 * tool's plugin_free_string); host strings (the params) go back through the host's free_params.
 */
#include <stdlib.h>
#include <string.h>

#include "rpi_plugin.h"

static const char ECHO_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"description\":\"The text to echo back.\"}},"
    "\"required\":[\"text\"]}";

static volatile size_t message_end_hits;

typedef struct EchoCall {
    char *text; /* NUL-terminated, decoded */
    int polls;
} EchoCall;

static void c_echo_free(StbString s) {
    free(s.ptr);
}

/* A malloc'd StbString copy of n bytes. */
static StbString own(const char *bytes, size_t n) {
    StbString s = {NULL, 0};
    if (n == 0) return s;
    s.ptr = malloc(n);
    if (s.ptr == NULL) return s;
    memcpy(s.ptr, bytes, n);
    s.len = n;
    return s;
}

/* The decoded string value of top-level key "text" in a JSON object, or "" (malloc'd; never NULL on success). */
static char *json_text_field(const char *json, size_t len) {
    const char *key = "\"text\"";
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen <= len; i++) {
        if (memcmp(json + i, key, klen) != 0) continue;
        size_t j = i + klen;
        while (j < len && (json[j] == ' ' || json[j] == ':' || json[j] == '\t' || json[j] == '\n')) j++;
        if (j >= len || json[j] != '"') break;
        j++;
        char *out = malloc(len - j + 1);
        if (out == NULL) return NULL;
        size_t o = 0;
        while (j < len && json[j] != '"') {
            char c = json[j++];
            if (c == '\\' && j < len) {
                char e = json[j++];
                switch (e) {
                case 'n': c = '\n'; break;
                case 't': c = '\t'; break;
                case 'r': c = '\r'; break;
                case 'b': c = '\b'; break;
                case 'f': c = '\f'; break;
                case 'u': c = '?'; j = (j + 4 <= len) ? j + 4 : len; break; /* non-ASCII escapes: placeholder */
                default: c = e; break;
                }
            }
            out[o++] = c;
        }
        out[o] = '\0';
        return out;
    }
    char *empty = malloc(1);
    if (empty != NULL) empty[0] = '\0';
    return empty;
}

/* {"content":[{"type":"text","text":"<prefix><text>"}]} with the text JSON-escaped, malloc'd. */
static StbString text_result(const char *prefix, const char *text) {
    size_t n = strlen(prefix) + strlen(text);
    size_t cap = 64 + n * 6;
    char *buf = malloc(cap);
    StbString s = {NULL, 0};
    if (buf == NULL) return s;
    size_t o = 0;
    const char *head = "{\"content\":[{\"type\":\"text\",\"text\":\"";
    memcpy(buf, head, strlen(head));
    o += strlen(head);
    const char *parts[2] = {prefix, text};
    for (int p = 0; p < 2; p++) {
        for (const unsigned char *c = (const unsigned char *)parts[p]; *c; c++) {
            if (*c == '"' || *c == '\\') {
                buf[o++] = '\\';
                buf[o++] = (char)*c;
            } else if (*c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                buf[o++] = '\\';
                buf[o++] = 'u';
                buf[o++] = '0';
                buf[o++] = '0';
                buf[o++] = hex[*c >> 4];
                buf[o++] = hex[*c & 15];
            } else {
                buf[o++] = (char)*c;
            }
        }
    }
    const char *tail = "\"}]}";
    memcpy(buf + o, tail, strlen(tail));
    o += strlen(tail);
    s.ptr = buf;
    s.len = o;
    return s;
}

static StepHandle echo_execute(StbStringRef tool_call_id, StbString params, FreeStringFn free_params) {
    (void)tool_call_id;
    char *text = json_text_field(params.ptr, params.ptr == NULL ? 0 : params.len);
    if (free_params != NULL) free_params(params);
    if (text == NULL) return NULL;
    EchoCall *call = calloc(1, sizeof *call);
    if (call == NULL) {
        free(text);
        return NULL;
    }
    call->text = text;
    return call;
}

static StepResult echo_poll(StepHandle handle, ToolPartialCb partial_cb, void *user_data) {
    EchoCall *call = handle;
    StepResult r;
    memset(&r, 0, sizeof r);
    if (call == NULL) {
        r.tag = RPI_STEP_ERR;
        r.payload.err.message = own("no handle", 9);
        return r;
    }
    call->polls++;
    if (call->polls == 1) {
        if (partial_cb != NULL) partial_cb(text_result("", "..."), user_data);
        r.tag = RPI_STEP_PENDING;
        return r;
    }
    r.tag = RPI_STEP_DONE;
    r.payload.done.result = text_result("echo: ", call->text);
    return r;
}

static void echo_cancel(StepHandle handle) {
    (void)handle;
}

static void echo_destroy(StepHandle handle) {
    EchoCall *call = handle;
    if (call == NULL) return;
    free(call->text);
    free(call);
}

static int32_t on_message_end(StablePluginEvent event, void *user_data) {
    (void)event;
    (void)user_data;
    message_end_hits++;
    return RPI_EVENT_HANDLER_CONTINUE;
}

/* Probe for in-process tests. */
size_t c_echo_message_end_hits(void) {
    return message_end_hits;
}

int32_t rpi_plugin_register(const PluginApi *api) {
    RPI_CHECK_API(api);
    if (api->register_tool == NULL) return 1;
    StableToolSchema schema;
    schema.name = own("echo", 4);
    const char *description = "Echoes back the provided text (C example).";
    schema.description = own(description, strlen(description));
    schema.parameters = own(ECHO_SCHEMA, sizeof ECHO_SCHEMA - 1);
    /* The host copies and frees the schema strings (with c_echo_free) inside register_tool. */
    int32_t rc = api->register_tool(&schema, echo_execute, echo_poll, echo_cancel, echo_destroy, c_echo_free);
    if (rc != 0) return rc;
    if (api->register_event_handler == NULL) return 2;
    return api->register_event_handler(RPI_EVENT_MESSAGE_END, on_message_end, NULL);
}
