/*
 * pier's plugin host helper (not part of the plugin ABI): a native tool call's first step in one foreign
 * call.
 *
 * A tool call that ends at its first poll costs the plugin host six koffi crossings made one by one (copy
 * the params, execute, poll, copy the result out, free it, destroy the handle), each paying koffi's fixed
 * fee and touching its code. This makes the same calls, in the same order, from C behind one crossing, and
 * copies the result into a buffer the host reads in place. Anything else (a refused call, Pending, Err, an
 * unknown tag, a result larger than the buffer) leaves the handle alive and reports where the host's own
 * path continues from.
 *
 * Built by pier with gcc from this file and ../rpi_plugin.h (src/extensions/runtimes/native/tool-step-build.ts);
 * without it the plugin host makes the same calls one at a time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../rpi_plugin.h"

/* Bumped whenever a signature, the header layout or the buffer changes: the host binds only its own. */
#define PIER_TOOL_STEP_VERSION 1

/* `pier_tool_step`'s answers. */
enum {
    PIER_STEP_NO_MEMORY = -1, /* the params could not be copied: nothing was called */
    PIER_STEP_REFUSED = 0,    /* execute returned a null handle */
    PIER_STEP_DONE = 1,       /* Done: the result copied and freed, the waker cleared, the handle destroyed */
    PIER_STEP_OPEN = 2        /* anything else: the handle is alive */
};

/*
 * The buffer every step writes: a header of little-endian words, then the payload's bytes when copied.
 *   [0]  handle (u64)           [8]  tag (u32)      [12] copied (u32: 1 = the payload is at [32] and freed)
 *   [16] payload length (u64)   [24] payload pointer (u64; when not copied the host copies and frees it)
 * One buffer for the process: the plugin host calls tools from its main thread only, and a step writes it
 * after its poll returns, so a step made from inside that poll's callbacks is read before it is overwritten.
 */
#define PIER_STEP_HEADER 32
#define PIER_STEP_BUFFER (64 * 1024)
static uint8_t out[PIER_STEP_BUFFER];

/* A tool's functions and the host's callbacks, bound once per tool. */
typedef struct PierTool {
    ToolExecuteFn execute;
    ToolPollFn poll;
    ToolDestroyFn destroy;
    FreeStringFn plugin_free;
    ToolSetWakerFn set_waker; /* NULL unless registered with register_tool_with_wake */
    ToolPartialCb partial;
    ToolWakeCb wake;
    FreeStringFn host_free;
} PierTool;

uint32_t pier_tool_step_version(void) { return PIER_TOOL_STEP_VERSION; }
uint8_t *pier_tool_step_buffer(void) { return out; }
size_t pier_tool_step_buffer_size(void) { return sizeof out; }

PierTool *pier_tool_bind(ToolExecuteFn execute, ToolPollFn poll, ToolDestroyFn destroy, FreeStringFn plugin_free,
                         ToolSetWakerFn set_waker, ToolPartialCb partial, ToolWakeCb wake, FreeStringFn host_free) {
    PierTool *tool = malloc(sizeof *tool);
    if (tool == NULL) return NULL;
    *tool = (PierTool){execute, poll, destroy, plugin_free, set_waker, partial, wake, host_free};
    return tool;
}

static void put64(size_t at, uint64_t value) { memcpy(out + at, &value, sizeof value); }
static void put32(size_t at, uint32_t value) { memcpy(out + at, &value, sizeof value); }

/*
 * execute with a copy of `params` (NUL-terminated JSON text, which never holds a NUL of its own; the plugin
 * frees the copy with the host's free), the waker installed with `key`, one poll with `key` as its user
 * data; on Done the result copied out (when it fits) and freed with the plugin's deallocator, the waker
 * cleared and the handle destroyed.
 */
int32_t pier_tool_step(const PierTool *tool, const char *id, size_t id_len, const char *params, uintptr_t key) {
    size_t params_len = strlen(params);
    char *copy = malloc(params_len + 1);
    if (copy == NULL) return PIER_STEP_NO_MEMORY;
    memcpy(copy, params, params_len + 1);
    StbStringRef call_id = {id_len == 0 ? NULL : id, id_len};
    StepHandle handle = tool->execute(call_id, (StbString){copy, params_len}, tool->host_free);
    put64(0, (uint64_t)(uintptr_t)handle);
    if (handle == NULL) return PIER_STEP_REFUSED;
    if (tool->set_waker != NULL) tool->set_waker(handle, tool->wake, (void *)key);
    StepResult step = tool->poll(handle, tool->partial, (void *)key);
    StbString payload = step.payload.done.result; /* every arm is one string at the same offset */
    /* An unknown tag says nothing about its payload: it is not read (the host reports the tag). */
    int copied = step.tag <= RPI_STEP_ERR && payload.ptr != NULL && payload.len <= sizeof out - PIER_STEP_HEADER;
    put32(8, step.tag);
    put32(12, (uint32_t)copied);
    put64(16, (uint64_t)payload.len);
    put64(24, (uint64_t)(uintptr_t)payload.ptr);
    if (copied) {
        memcpy(out + PIER_STEP_HEADER, payload.ptr, payload.len);
        tool->plugin_free(payload);
    }
    if (step.tag != RPI_STEP_DONE || (payload.ptr != NULL && !copied)) return PIER_STEP_OPEN;
    if (tool->set_waker != NULL) tool->set_waker(handle, NULL, NULL);
    tool->destroy(handle);
    return PIER_STEP_DONE;
}
